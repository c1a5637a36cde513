//! `mcpick login`: the authorization-code flow with PKCE, driven by rmcp's OAuth client.
//!
//! mcpick asks the server once without a token to get its `WWW-Authenticate` challenge,
//! lets rmcp discover the metadata and register (a `client_id` from the definition, else
//! dynamic registration), opens the authorization URL in a browser (and prints it), and waits
//! on a loopback listener (`127.0.0.1`, a random port) for the redirect. The redirect's
//! `state` must be the one sent, else nothing is exchanged. rmcp exchanges the code with the
//! PKCE verifier and saves the tokens through [`TokenStore`].

use std::time::Duration;

use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationMetadata,
    AuthorizationRequest, AuthorizationSession,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::store::TokenStore;

/// The path the browser is sent back to on the loopback listener.
const CALLBACK_PATH: &str = "/callback";
/// The longest request line and headers read from the browser.
const MAX_CALLBACK_BYTES: usize = 16 * 1024;

/// A pre-registered client, for servers without dynamic registration.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ClientConfig {
    pub client_id: Option<String>,
    /// A confidential client's secret (from `MCPICK_CLIENT_SECRET`, never a command line or
    /// a config file); kept with the tokens, owner-only, and never shown.
    pub client_secret: Option<String>,
    pub scopes: Vec<String>,
}

impl std::fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientConfig")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// What `login` needs besides the server.
pub struct LoginOptions<'a> {
    pub client: ClientConfig,
    /// How long to wait for the browser to come back.
    pub wait: Duration,
    /// Where the authorization URL and progress go (stderr for the CLI).
    pub say: &'a mut (dyn FnMut(&str) + Send),
}

/// Runs the whole flow for the server at `url`; on success the tokens are in the store.
pub async fn login(url: &str, options: LoginOptions<'_>) -> Result<(), String> {
    let store = TokenStore::for_url(url)
        .ok_or("no user data directory is known (set HOME or MCPICK_DATA_DIR)")?;
    crate::mcp::http::install_crypto();
    let challenge = challenge(url).await?;
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| format!("OAuth: {e}"))?;
    manager.set_credential_store(store.clone());
    let (metadata, discovered) = match manager
        .resolve_metadata_from_challenge(challenge.as_deref())
        .await
    {
        Ok(resolution) => (resolution.metadata, resolution.source.is_discovered()),
        Err(AuthError::AuthorizationServerMismatch { .. }) => {
            (same_origin_metadata(url, options.say).await?, true)
        }
        Err(e) => return Err(format!("OAuth discovery failed: {e}")),
    };
    // A server of the 2025-03-26 revision publishes no metadata and serves the default
    // endpoints (`/authorize`, `/token`, `/register`) at its origin: used when it asks for a
    // sign-in, never on a guess.
    if !discovered {
        if challenge.is_none() {
            return Err(
                "the server does not ask for a sign-in and publishes no OAuth metadata".into(),
            );
        }
        (options.say)(
            "the server publishes no OAuth metadata: using the 2025-03-26 default endpoints at its origin (/authorize, /token, /register)",
        );
    }
    manager.set_metadata(metadata.clone());

    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|e| format!("could not listen on 127.0.0.1 for the sign-in: {e}"))?;
    let port = listener.local_addr().map_err(|e| e.to_string())?.port();
    let redirect_uri = format!("http://127.0.0.1:{port}{CALLBACK_PATH}");

    let request = request_for(&redirect_uri, challenge.as_deref(), &options.client);
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| format!("OAuth: {e}"))?;
    let auth_url = session.get_authorization_url().to_string();
    openable(&auth_url)?;
    let sent_state = state_of(&auth_url).ok_or("the authorization URL carries no state")?;

    (options.say)(&format!(
        "Open this address to sign in (waiting up to {}s):\n  {auth_url}",
        options.wait.as_secs()
    ));
    if let Err(e) = open_browser(&auth_url) {
        (options.say)(&format!("(could not open a browser: {e})"));
    }

    let callback = tokio::time::timeout(options.wait, callback(&listener, &sent_state))
        .await
        .map_err(|_| {
            format!(
                "no answer from the browser within {}s; nothing stored",
                options.wait.as_secs()
            )
        })??;
    session
        .handle_callback_with_issuer(
            &callback.code,
            &callback.csrf_token,
            callback.issuer.as_deref(),
        )
        .await
        .map_err(|e| format!("the token exchange failed: {e}"))?;
    store
        .set_metadata(metadata)
        .and_then(|()| {
            let secret = options
                .client
                .client_secret
                .filter(|_| options.client.client_id.is_some());
            store.set_client_secret(secret)
        })
        .map_err(|e| format!("could not write the token store: {e}"))?;
    Ok(())
}

/// The authorization request for a callback at `redirect_uri`: the server's challenge, and
/// the client the user configured (pre-registered, with its secret and scopes) if any.
fn request_for(
    redirect_uri: &str,
    challenge: Option<&str>,
    client: &ClientConfig,
) -> AuthorizationRequest {
    let mut request = AuthorizationRequest::new(redirect_uri).with_client_name("mcpick");
    if let Some(challenge) = challenge {
        request = request.with_challenge(challenge.to_string());
    }
    if let Some(client_id) = &client.client_id {
        request = request.with_preregistered_client(client_id.clone());
        if let Some(secret) = &client.client_secret {
            request = request.with_client_secret(secret.clone());
        }
    }
    if !client.scopes.is_empty() {
        request = request.with_scopes(client.scopes.iter().cloned());
    }
    request
}

/// The `state` the authorization URL carries, which the callback must bring back.
fn state_of(auth_url: &str) -> Option<String> {
    url::Url::parse(auth_url).ok().and_then(|u| {
        u.query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
    })
}

/// The authorization server metadata a server of the 2025-03-26 revision publishes at its own
/// origin (`/.well-known/oauth-authorization-server`), when its `issuer` is not that origin
/// (rmcp refuses it, as RFC 8414 says; the 2025-03-26 revision makes the MCP server's origin the
/// authorization base URL, and such servers name a path there, `…/oauth`). Taken only when every
/// endpoint it names is on the server's own origin: nothing is sent anywhere else.
async fn same_origin_metadata(
    url: &str,
    say: &mut (dyn FnMut(&str) + Send),
) -> Result<AuthorizationMetadata, String> {
    let refused = |why: &str| format!("OAuth discovery failed: {why}");
    let server = url::Url::parse(url).map_err(|e| refused(&e.to_string()))?;
    let well_known = server
        .join("/.well-known/oauth-authorization-server")
        .map_err(|e| refused(&e.to_string()))?;
    let client = crate::mcp::http::client().map_err(|e| e.to_string())?;
    let response = client
        .get(well_known.clone())
        .send()
        .await
        .map_err(|e| refused(&e.without_url().to_string()))?;
    if !response.status().is_success() {
        return Err(refused(&format!(
            "{well_known} answered {}",
            response.status()
        )));
    }
    let body = response
        .bytes()
        .await
        .map_err(|e| refused(&e.without_url().to_string()))?;
    let metadata: AuthorizationMetadata =
        serde_json::from_slice(&body).map_err(|e| refused(&e.to_string()))?;
    let same_origin =
        |endpoint: &str| url::Url::parse(endpoint).is_ok_and(|e| e.origin() == server.origin());
    let endpoints = [
        Some(metadata.authorization_endpoint.as_str()),
        Some(metadata.token_endpoint.as_str()),
        metadata.registration_endpoint.as_deref(),
    ];
    if !endpoints.into_iter().flatten().all(same_origin) {
        return Err(refused(
            "the server's authorization metadata names another issuer and endpoints on another origin",
        ));
    }
    say(&format!(
        "the server's authorization metadata names the issuer {} at its origin (a 2025-03-26 server): using it",
        crate::sanitize::line(metadata.issuer.as_deref().unwrap_or("(none)"), 200)
    ));
    Ok(metadata)
}

/// The server's `WWW-Authenticate` challenge to an unauthenticated `initialize`, if it sends
/// one. Sent with mcpick's HTTP client: no cross-origin redirect, no Referer.
async fn challenge(url: &str) -> Result<Option<String>, String> {
    let client = crate::mcp::http::client().map_err(|e| e.to_string())?;
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "mcpick", "version": env!("CARGO_PKG_VERSION") }
        }
    });
    let response = client
        .post(url)
        .header("accept", "application/json, text/event-stream")
        .json(&body)
        .send()
        .await
        .map_err(|e| format!("could not reach the server: {}", e.without_url()))?;
    if response.status() != reqwest::StatusCode::UNAUTHORIZED {
        return Ok(None);
    }
    Ok(response
        .headers()
        .get(reqwest::header::WWW_AUTHENTICATE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string))
}

/// Refuses an authorization address a browser must not be handed: the server's metadata
/// names it, so a hostile server could name `file:///…`, `javascript:…` or `vscode://…` (a
/// handler that acts on its own) for `$BROWSER` or `xdg-open` to open. Only `https:` passes,
/// and `http:` to a loopback host (a sign-in server on this machine, as in development).
pub fn openable(url: &str) -> Result<(), String> {
    let refuse = |why: &str| {
        Err(format!(
            "the server's authorization address {} {why}; mcpick opens only https: (or http: on this machine) and did not open it",
            crate::sanitize::line(&crate::redact::url(url), 300)
        ))
    };
    let Ok(parsed) = url::Url::parse(url) else {
        return refuse("is not a URL");
    };
    match parsed.scheme() {
        "https" if parsed.host().is_some() => Ok(()),
        "http" if is_loopback(&parsed) => Ok(()),
        "http" => refuse("is plain http to another machine"),
        _ => refuse(&format!("has the scheme `{}:`", parsed.scheme())),
    }
}

/// True when the URL's host is this machine: `localhost` or a loopback address.
fn is_loopback(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Runs `$BROWSER URL` when `BROWSER` is set (its first `:`-separated entry), else the
/// platform's opener; does not wait for it.
fn open_browser(url: &str) -> std::io::Result<()> {
    let command = match std::env::var("BROWSER") {
        Ok(browser) if !browser.trim().is_empty() => {
            browser.split(':').next().unwrap_or_default().to_string()
        }
        _ if cfg!(target_os = "macos") => "open".into(),
        _ => "xdg-open".into(),
    };
    let mut child = std::process::Command::new(command)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()?;
    // Reaped in the background, so no zombie is left.
    std::thread::spawn(move || child.wait());
    Ok(())
}

/// Waits for the browser's redirect to [`CALLBACK_PATH`] and answers it; other requests
/// (a favicon) get 404 and the wait goes on. A `state` other than the one sent ends the
/// flow with an error: the redirect did not come from this sign-in.
async fn callback(
    listener: &TcpListener,
    sent_state: &str,
) -> Result<AuthorizationCallback, String> {
    loop {
        let (mut stream, _) = listener
            .accept()
            .await
            .map_err(|e| format!("the sign-in listener failed: {e}"))?;
        let Some(target) = request_target(&mut stream).await else {
            continue;
        };
        if !target.starts_with(CALLBACK_PATH) {
            let _ = reply(&mut stream, "404 Not Found", "not found").await;
            continue;
        }
        let full = format!("http://127.0.0.1{target}");
        let error = url::Url::parse(&full).ok().and_then(|u| {
            u.query_pairs()
                .find(|(k, _)| k == "error")
                .map(|(_, v)| crate::sanitize::line(&v, 200))
        });
        if let Some(error) = error {
            let _ = reply(&mut stream, "400 Bad Request", "Sign-in refused.").await;
            return Err(format!("the authorization server refused: {error}"));
        }
        let parsed = match AuthorizationCallback::from_redirect_url(&full) {
            Ok(parsed) => parsed,
            Err(e) => {
                let _ = reply(&mut stream, "400 Bad Request", "Sign-in failed.").await;
                return Err(format!("the sign-in answer is unusable: {e}"));
            }
        };
        if parsed.csrf_token != sent_state {
            let _ = reply(
                &mut stream,
                "400 Bad Request",
                "Sign-in refused: state mismatch.",
            )
            .await;
            return Err(
                "the sign-in answer's state does not match the request (a forged or stale \
                 redirect); nothing stored"
                    .into(),
            );
        }
        let _ = reply(
            &mut stream,
            "200 OK",
            "Signed in to the MCP server. You can close this tab.",
        )
        .await;
        return Ok(parsed);
    }
}

/// The request target of an HTTP/1 request (`/callback?code=…`), or `None` for garbage.
async fn request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 2048];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") && buf.len() < MAX_CALLBACK_BYTES {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let line = buf.split(|&b| b == b'\n').next()?;
    let line = std::str::from_utf8(line).ok()?.trim_end();
    let mut parts = line.split(' ');
    match (parts.next(), parts.next()) {
        (Some("GET"), Some(target)) => Some(target.to_string()),
        _ => None,
    }
}

async fn reply(
    stream: &mut tokio::net::TcpStream,
    status: &str,
    text: &str,
) -> std::io::Result<()> {
    let body = format!("<!doctype html><title>mcpick</title><p>{text}</p>\n");
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\
         cache-control: no-store\r\nreferrer-policy: no-referrer\r\nconnection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body.as_bytes()).await?;
    stream.shutdown().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_and_loopback_http_are_opened() {
        for ok in [
            "https://auth.example.com/authorize?state=x",
            "http://127.0.0.1:8080/authorize",
            "http://localhost/authorize",
            "http://[::1]:9/authorize",
        ] {
            assert!(openable(ok).is_ok(), "{ok}");
        }
        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "vscode://vscode.git/clone?url=x",
            "http://auth.example.com/authorize",
            "http://127.0.0.1.evil.example/authorize",
            "ftp://example.com/x",
            "data:text/html,hi",
            "not a url",
        ] {
            let refused = openable(bad).unwrap_err();
            assert!(refused.contains("did not open it"), "{bad}: {refused}");
        }
    }
}
