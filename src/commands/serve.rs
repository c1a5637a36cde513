//! `mcpick serve`: argument handling around [`crate::serve`]. The upstreams are chosen
//! exactly as `mcpick preview` chooses them (a definition in a config file wins, for its
//! secrets).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::context::{SetArgs, choose, load_set};
use super::{Exit, usage_error};
use crate::cli::ServerArgs;
use crate::serve::{self, Diag, Engine, Expose, Listen, Presentation, UpstreamDef, Upstreams};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8765; port 0
    /// picks a free one, printed on stderr). Loopback unless --require-token-env is given.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,

    /// What to publish: the budgeted set the agent view shows (included), or everything not
    /// excluded or filtered, without the budget cut (allowed).
    #[arg(long, value_enum, default_value_t)]
    pub expose: Expose,

    /// Don't offer the `context` tool (the prompt and the resources stay).
    #[arg(long)]
    pub no_tool: bool,

    /// The server name hosts show.
    #[arg(long = "as", value_name = "NAME", default_value = "mcpick")]
    pub server_name: String,

    /// With --http on a non-loopback address: the environment variable holding the bearer
    /// token clients must send (`Authorization: Bearer …`).
    #[arg(long, value_name = "VAR", requires = "http")]
    pub require_token_env: Option<String>,

    /// Also write diagnostics to FILE (they always go to stderr; stdout carries the protocol).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Reads at once while counting tokens.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,

    #[command(flatten)]
    pub set: SetArgs,

    #[command(flatten)]
    pub servers: ServerArgs,
}

pub async fn run(args: ServeArgs) -> Exit {
    let token = match (&args.http, &args.require_token_env) {
        (_, Some(var)) => match std::env::var(var) {
            Ok(token) if !token.is_empty() => Some(token),
            _ => {
                return usage_error(&format!(
                    "--require-token-env {var}: the variable is not set or empty"
                ));
            }
        },
        (Some(addr), None) if !addr.ip().is_loopback() => {
            return usage_error(&format!(
                "--http {addr} is not a loopback address: anyone who can reach it could read the set; add --require-token-env VAR (a bearer token clients must send), or bind 127.0.0.1"
            ));
        }
        _ => None,
    };
    let diag = match &args.log {
        Some(path) => match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            Ok(file) => Diag::new(Some(file)),
            Err(e) => return usage_error(&format!("--log {}: {e}", path.display())),
        },
        None => Diag::new(None),
    };
    let diag = Arc::new(diag);
    let set = match load_set(&args.set) {
        Ok(set) => set,
        Err(exit) => return exit,
    };
    let chosen = match choose(&args.servers, &set) {
        Ok(chosen) => chosen,
        Err(message) => return usage_error(&message),
    };
    let defs = chosen
        .into_iter()
        .map(|c| UpstreamDef {
            spec: c.selected.spec,
            error: c.selected.error,
        })
        .collect();
    let options = args.servers.connect_options();
    let upstreams = Upstreams::connect(defs, &options, crate::mcp::list::DEFAULT_CAP).await;
    let engine = Arc::new(
        Engine::new(
            upstreams,
            set,
            args.set.path.clone(),
            args.expose,
            args.jobs,
        )
        .await,
    );
    let presentation = Presentation {
        name: args.server_name,
        tool: !args.no_tool,
    };
    let listen = Listen {
        http: args.http,
        token,
    };
    match serve::run(engine, presentation, listen, diag.clone()).await {
        Ok(()) => Exit::Ok,
        Err(e) => {
            diag.line(&format!("{e:#}"));
            Exit::ServerFailed
        }
    }
}
