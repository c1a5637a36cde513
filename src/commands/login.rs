//! `mcpick login` / `mcpick logout`: sign in to an OAuth-protected HTTP server, or forget the
//! sign-in. The flow itself is [`crate::mcp::oauth`]'s; this finds the server's URL and
//! reports. Tokens are never printed.

use std::time::Duration;

use super::{Exit, report, usage_error};
use crate::cli::{LoginArgs, LogoutArgs};
use crate::mcp::TransportSpec;
use crate::mcp::oauth::{self, ClientConfig, LoginOptions, TokenStore};

/// The server's name for messages, its URL and its definition's `oauth` client.
fn target(
    name: Option<&str>,
    url: Option<&str>,
    config: Option<&std::path::Path>,
) -> Result<(String, String, ClientConfig), String> {
    if let Some(url) = url {
        return Ok((
            crate::redact::url(url),
            url.to_string(),
            ClientConfig::default(),
        ));
    }
    let name = name.unwrap_or_default();
    let config = crate::config::load_system(config);
    let known = config
        .get(name)
        .ok_or_else(|| format!("no server named `{name}` is defined (see `mcpick servers`)"))?;
    match &known.definition.spec {
        Ok(spec) => match &spec.transport {
            TransportSpec::Http { url, .. } => Ok((
                name.to_string(),
                url.clone(),
                known.definition.oauth.clone().unwrap_or_default(),
            )),
            other => Err(format!(
                "`{name}` is a {} server; OAuth sign-in is for Streamable HTTP servers",
                other.kind()
            )),
        },
        Err(reason) => Err(reason.clone()),
    }
}

/// Where `login` reads a pre-registered confidential client's secret.
pub const CLIENT_SECRET_ENV: &str = "MCPICK_CLIENT_SECRET";

/// Refuses a sign-in to a server a project's own files define and the user has not approved
/// (`mcpick trust`): signing in asks that server, and the authorization server it names, for
/// a page to open in the user's browser, and stores tokens for it. The gate every command
/// that connects uses ([`crate::config::select::select_servers`]).
fn approved(name: &str, config: Option<&std::path::Path>) -> Result<(), String> {
    use crate::config::select::{ServerChoice, select_servers};
    let choice = ServerChoice {
        servers: vec![name.to_string()],
        config_file: config.map(std::path::Path::to_path_buf),
        ..Default::default()
    };
    let servers = select_servers(&choice).servers?;
    match servers.iter().find(|s| s.spec.name == name) {
        Some(held) if held.error.is_some() => Err(held.error.clone().unwrap_or_default()),
        _ => Ok(()),
    }
}

pub async fn login(args: LoginArgs) -> Exit {
    let (name, url, defined) = match target(
        args.name.as_deref(),
        args.url.as_deref(),
        args.config.file.as_deref(),
    ) {
        Ok(found) => found,
        Err(message) => return usage_error(&message),
    };
    if let Some(server) = args.name.as_deref()
        && let Err(why) = approved(server, args.config.file.as_deref())
    {
        report(&format!("{name}: no sign-in: {why}"));
        return Exit::ServerFailed;
    }
    let mut say = |line: &str| super::tell(line);
    let options = LoginOptions {
        // The command line wins over the definition.
        client: ClientConfig {
            client_id: args.client_id.or(defined.client_id),
            // Never on a command line (any user can read those) nor in a config file.
            client_secret: std::env::var(CLIENT_SECRET_ENV)
                .ok()
                .filter(|s| !s.is_empty()),
            scopes: if args.scopes.is_empty() {
                defined.scopes
            } else {
                args.scopes
            },
        },
        wait: Duration::from_secs(args.wait.max(1)),
        say: &mut say,
    };
    match oauth::login(&url, options).await {
        Ok(()) => {
            crate::outln!("signed in to {name}");
            Exit::Ok
        }
        Err(message) => {
            report(&format!("{name}: sign-in failed: {message}"));
            Exit::ServerFailed
        }
    }
}

pub fn logout(args: LogoutArgs) -> Exit {
    let (name, url, _) = match target(
        args.name.as_deref(),
        args.url.as_deref(),
        args.config.file.as_deref(),
    ) {
        Ok(found) => found,
        Err(message) => return usage_error(&message),
    };
    let Some(store) = TokenStore::for_url(&url) else {
        return usage_error("no user data directory is known (set HOME or MCPICK_DATA_DIR)");
    };
    match store.delete() {
        Ok(true) => {
            crate::outln!("signed out of {name}");
            Exit::Ok
        }
        Ok(false) => {
            crate::outln!("{name}: not signed in");
            Exit::Ok
        }
        Err(e) => {
            report(&format!("{name}: could not delete the stored sign-in: {e}"));
            Exit::ServerFailed
        }
    }
}
