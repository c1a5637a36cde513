//! The built-in demo server, which is also the project's fixture server.
//!
//! `mcpick demo-server` speaks MCP over stdio (default) or Streamable HTTP and publishes a
//! deterministic, generated catalogue (see [`catalogue`]) so mcpick can be tried without
//! setting anything up, and so tests have a server whose every answer is known in advance.
//! Flags make it misbehave in the ways real servers do (crash, garbage, hang, endless
//! cursor, no resources at all) to exercise the client's error handling.
//!
//! Both protocol eras are served: rmcp answers the legacy `initialize` handshake and the
//! 2026-07-28 `server/discover` with the same handler.

mod catalogue;
mod churn;
mod complete;
mod content;
pub mod hostile;
mod http;
mod misbehave;
mod oauth;
pub mod odd;
mod server;
mod sse;
pub mod synth;
mod time;
pub mod violate;

#[cfg(test)]
mod e2e_tests;

use std::net::SocketAddr;

use clap::builder::RangedU64ValueParser;
use rmcp::{ServiceExt, service::ServerInitializeError};

use self::{
    hostile::Served,
    misbehave::GarbageWriter,
    server::{DemoServer, Shared},
};

/// Options of `mcpick demo-server`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct DemoArgs {
    /// How many resources `resources/list` publishes (0 to 1000000).
    #[arg(long, value_name = "N", default_value_t = 300,
          value_parser = RangedU64ValueParser::<usize>::new().range(0..=1_000_000))]
    pub count: usize,

    /// Resources per `resources/list` page.
    #[arg(long, value_name = "N", default_value_t = 100,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=1_000_000))]
    pub page_size: usize,

    /// Misbehave: every page returns the same `nextCursor`, forever (tests a client's
    /// cursor-loop guard).
    #[arg(long)]
    pub repeat_cursor: bool,

    /// Misbehave: answer N resource requests, then print a note to stderr and exit with
    /// status 1 on the next one.
    #[arg(long, value_name = "N")]
    pub crash_after: Option<u64>,

    /// Misbehave (stdio only): after N resource requests, write one line that is not JSON to
    /// stdout, then carry on normally.
    #[arg(long, value_name = "N")]
    pub garbage_after: Option<u64>,

    /// Misbehave: answer N resource requests, then never answer any request again.
    #[arg(long, value_name = "N")]
    pub hang_after: Option<u64>,

    /// Misbehave (stdio only): after N resource requests, the next reply is not valid JSON
    /// (it carries a bare `Infinity`, as some JSON encoders write), then carry on normally.
    #[arg(long, value_name = "N")]
    pub invalid_json_after: Option<u64>,

    /// Make `demo://big` readable (it is not listed): its text is N MiB, to test clients'
    /// message-size limits.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub big_mib: Option<u32>,

    /// Misbehave: mix malformed entries into valid ones: the first `resources/list` page
    /// gets one entry per malformed field (priority "high", audience ["user", 42],
    /// annotations "yes", size "big", …), entries without a usable URI and a duplicate URI;
    /// the templates list gets malformed templates; every `resources/read` reply gets
    /// unusable contents items. Tests that one bad entry costs a client that entry only.
    /// Stdio only.
    #[arg(long, conflicts_with = "http")]
    pub hostile: bool,

    /// Advertise no `resources` capability at all, only one `echo` tool (a client should
    /// report "no resources", not an error).
    #[arg(long)]
    pub no_resources: bool,

    /// Write a few log lines to stderr at startup (to check that clients capture stderr).
    #[arg(long)]
    pub stderr_noise: bool,

    /// With --http: refuse (HTTP 401) requests that lack this exact header, e.g.
    /// 'Authorization: Bearer secret' (to test that clients send configured headers).
    #[arg(long, value_name = "NAME: VALUE", requires = "http")]
    pub require_header: Option<String>,

    /// Append one line per resource request (`resources/read URI`, `resources/list`,
    /// `subscriptions/listen`) to FILE, to count what a client or a proxy such as
    /// `mcpick serve` forwards, or see how far it got.
    #[arg(long, value_name = "FILE")]
    pub request_log: Option<std::path::PathBuf>,

    /// Break one rule of `mcpick check` on purpose (repeatable): capability, cursor-loop,
    /// invalid-cursor, unstable, side-effect, not-found-empty, read-uri, wrong-mime,
    /// wrong-size, bad-annotations, bad-uris, bad-template, no-completion, traversal,
    /// no-cache-hints (stdio only). Each one breaks exactly its rule (see the README): a
    /// `fail` where the specification says MUST, a `warn` where it says SHOULD.
    #[arg(long, value_enum, value_name = "RULE")]
    pub violate: Vec<violate::Violation>,

    /// List this resource with priority 1.0, which moves it up the agent's order (to see
    /// `mcpick diff` report drift).
    #[arg(long, value_name = "URI")]
    pub bump: Option<String>,

    /// Add a paragraph to this resource's text, so its contents change (for `mcpick diff`).
    #[arg(long, value_name = "URI")]
    pub edit: Option<String>,

    /// With --http: requests that carry this exact header also list `demo://private/report`
    /// (a catalogue that varies by credential, for `mcpick check --as`).
    #[arg(long, value_name = "NAME: VALUE")]
    pub private_for: Option<String>,
    /// Change the catalogue every MS milliseconds: `demo://live/0` is listed (after the
    /// generated resources) from the start; each tick adds the next `demo://live/N` and
    /// touches `demo://live/0`. Clients are told as they asked: legacy ones get
    /// `notifications/resources/list_changed` (and `notifications/resources/updated` for
    /// subscribed URIs), 2026-07-28 ones the same through `subscriptions/listen`.
    #[arg(long, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub churn: Option<u64>,

    /// Misbehave: wait MS milliseconds before answering anything, even the handshake (a
    /// server that is slow to start).
    #[arg(long, value_name = "MS")]
    pub start_delay: Option<u64>,

    /// List four more resources (after the others) whose URIs and names hold markdown's
    /// markup characters (`_`, `*`, `[`, backticks, …), at priority 1.0: to check that a
    /// hand-off keeps them byte for byte.
    #[arg(long)]
    pub markup_uris: bool,

    /// Misbehave: answer every read of a listed resource with one more contents part under
    /// URI (an excluded resource's, say), to test that a hand-off drops what was not asked
    /// for.
    #[arg(long, value_name = "URI")]
    pub smuggle: Option<String>,

    /// Misbehave (with --http): refuse `resources/list` and `resources/read` with an error
    /// that quotes every request header (credentials included), as some servers do.
    #[arg(long, requires = "http")]
    pub echo_headers: bool,

    /// Serve HTTP instead of stdio: Streamable HTTP at http://ADDR/mcp and the legacy
    /// HTTP+SSE transport at http://ADDR/sse; port 0 picks a free port (the chosen address is
    /// printed as `listening on http://ADDR/mcp`).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,

    /// With --http: protect the server with OAuth, with its own authorization server
    /// (metadata discovery, dynamic registration, an authorize endpoint that approves at
    /// once, PKCE, refresh). For `mcpick login` and its tests.
    #[arg(long, requires = "http")]
    pub oauth: bool,

    /// With --oauth: seconds an access token lives.
    #[arg(long, value_name = "SECS", default_value_t = 3600, requires = "oauth")]
    pub token_ttl: u64,

    /// With --oauth: a client ID the authorization server knows without registration (as
    /// for a server without dynamic registration; any loopback redirect URI is accepted).
    #[arg(long, value_name = "ID", requires = "oauth")]
    pub oauth_client: Option<String>,

    /// With --oauth: revoke every grant (access and refresh tokens) once N MCP requests were
    /// let through, as an administrator revoking a sign-in mid-session would.
    #[arg(long, value_name = "N", requires = "oauth", value_parser = clap::value_parser!(u64).range(1..))]
    pub revoke_after: Option<u64>,
}

impl Default for DemoArgs {
    fn default() -> Self {
        DemoArgs {
            count: 300,
            page_size: 100,
            repeat_cursor: false,
            crash_after: None,
            garbage_after: None,
            hang_after: None,
            invalid_json_after: None,
            big_mib: None,
            hostile: false,
            no_resources: false,
            stderr_noise: false,
            require_header: None,
            request_log: None,
            violate: Vec::new(),
            bump: None,
            edit: None,
            private_for: None,
            churn: None,
            start_delay: None,
            markup_uris: false,
            smuggle: None,
            echo_headers: false,
            http: None,
            oauth: false,
            token_ttl: 3600,
            oauth_client: None,
            revoke_after: None,
        }
    }
}

/// Serves MCP over stdin/stdout until stdin closes.
pub async fn serve_stdio(args: DemoArgs) -> anyhow::Result<()> {
    start_delay(&args).await;
    let shared = Shared::new(&args);
    if args.stderr_noise {
        stderr_noise(&args, "stdio");
    }
    // Non-blocking pipes when stdin/stdout are pipes, so EOF on stdin ends the server
    // promptly; `--garbage-after` rides on the stdout wrapper.
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let stdout = GarbageWriter::new(stdout, shared.misbehave.garbage_flag())
        .with_invalid_json(shared.misbehave.invalid_json_flag());
    let no_cache_hints = args.violate.contains(&violate::Violation::NoCacheHints);
    let served =
        Served::new(DemoServer::new(shared), args.hostile).without_cache_hints(no_cache_hints);
    let running = match served.serve((stdin, stdout)).await {
        Ok(running) => running,
        // The client left before the handshake: nothing to serve, not a failure.
        Err(ServerInitializeError::ConnectionClosed(_)) => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    running.waiting().await?;
    Ok(())
}

/// Serves Streamable HTTP at `http://ADDR/mcp` until Ctrl-C. After binding, prints exactly
/// one line, `listening on http://IP:PORT/mcp`, to stdout and flushes it.
pub async fn serve_http(args: DemoArgs, addr: SocketAddr) -> anyhow::Result<()> {
    start_delay(&args).await;
    if args.stderr_noise {
        stderr_noise(&args, "streamable-http");
    }
    let required = args
        .require_header
        .as_deref()
        .map(crate::mcp::spec::parse_header)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let oauth = args.oauth.then(|| oauth::OAuthOptions {
        ttl: args.token_ttl,
        client: args.oauth_client.clone(),
        revoke_after: args.revoke_after,
    });
    http::serve(Shared::new(&args), addr, required, oauth).await
}

/// `--start-delay`: a server slow to start answers nothing until it is up.
async fn start_delay(args: &DemoArgs) {
    if let Some(ms) = args.start_delay {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
}

/// The first `count` resources of the demo catalogue, exactly as `resources/list` pages
/// them (for tests and benchmarks; the server itself generates pages on demand).
pub fn demo_resources(count: usize) -> Vec<rmcp::model::Resource> {
    catalogue::Catalogue::new(count).page(0, count)
}

/// Resources `offset..offset + limit` of a demo catalogue of `count`, generated on demand
/// (benchmarks build million-resource catalogues page by page with it).
pub fn demo_page(count: usize, offset: usize, limit: usize) -> Vec<rmcp::model::Resource> {
    catalogue::Catalogue::new(count).page(offset, limit)
}

/// Startup chatter in the style of a real server's logger.
fn stderr_noise(args: &DemoArgs, transport: &str) {
    let now = time::now_rfc3339();
    let version = env!("CARGO_PKG_VERSION");
    let pid = std::process::id();
    eprintln!("{now} INFO  mcpick_demo: starting mcpick-demo v{version} (pid {pid})");
    eprintln!("{now} INFO  mcpick_demo: transport={transport} protocols=2024-11-05..2026-07-28");
    eprintln!(
        "{now} INFO  mcpick_demo::catalogue: {} resources, {} per page",
        args.count, args.page_size
    );
    eprintln!(
        "{now} WARN  mcpick_demo::config: /etc/mcpick-demo/config.toml not found, using defaults"
    );
    eprintln!("{now} DEBUG mcpick_demo: ready");
}
