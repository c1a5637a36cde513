//! The built-in demo server.
//!
//! `mcpick demo-server` speaks MCP over stdio (default) or Streamable HTTP and publishes a
//! deterministic, generated catalogue (see [`catalogue`]) so mcpick can be tried without
//! setting anything up, and so tests have a server whose every answer is known in advance.
//! Its flags only shape the catalogue and pick the transport. What tests need beyond that
//! (crashes, garbage, hangs, malformed entries, planted rule violations, a changing
//! catalogue, OAuth) is in the test fixture, the workspace member `fixture/`
//! (`mcpick-fixture`, never published), built on this module's [`DemoServer`] and
//! [`http::serve`].
//!
//! Both protocol eras are served: rmcp answers the legacy `initialize` handshake and the
//! 2026-07-28 `server/discover` with the same handler.

mod catalogue;
mod complete;
mod content;
pub mod http;
mod server;
mod sse;
pub mod synth;
mod time;

#[cfg(test)]
mod e2e_tests;

use std::net::SocketAddr;

use clap::builder::RangedU64ValueParser;
use rmcp::{ServiceExt, service::ServerInitializeError};

pub use self::server::{DemoServer, cursor, cursor_offset};

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

    /// Serve HTTP instead of stdio: Streamable HTTP at http://ADDR/mcp and the legacy
    /// HTTP+SSE transport at http://ADDR/sse; port 0 picks a free port (the chosen address is
    /// printed as `listening on http://ADDR/mcp`).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
}

impl Default for DemoArgs {
    fn default() -> Self {
        DemoArgs {
            count: 300,
            page_size: 100,
            http: None,
        }
    }
}

impl DemoArgs {
    /// The server these options describe (one per process: every connection shares it).
    pub fn server(&self) -> DemoServer {
        DemoServer::new(self.count, self.page_size)
    }
}

/// Serves MCP over stdin/stdout until stdin closes.
pub async fn serve_stdio(args: DemoArgs) -> anyhow::Result<()> {
    // Non-blocking pipes when stdin/stdout are pipes, so EOF on stdin ends the server
    // promptly.
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let running = match args.server().serve((stdin, stdout)).await {
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
    let server = args.server();
    let listener = http::bind(addr).await?;
    http::serve(listener, move || server.connection(), ()).await
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
