//! `mcpick serve`: the chosen context set as an MCP server any host can connect to.
//!
//! It connects to the set's servers (the upstreams), resolves the set exactly as `mcpick
//! preview` does, and publishes the result three ways: as resources (only the set, in the
//! agent's order), as the prompt `context` and as the read-only tool `context` (the whole set
//! at once). Anything else is "not found" without asking an upstream. The set file is
//! watched, upstream changes are followed, and connected clients are told when the list
//! changes ([`live`]).
//!
//! - [`exposed`]: pure: preview → what is published (order, annotations, URI aliases).
//! - [`upstream`]: the upstream connections and their listings.
//! - [`listing`]: one upstream's listed resources, compactly, given back exactly as listed.
//! - [`engine`]: the published state and how it is recomputed.
//! - [`deliver`]: the set's deliveries kept fresh from what the engine publishes.
//! - [`handler`]: the rmcp server handler (both eras).
//! - [`live`]: the set-file watcher and upstream notifications.
//! - [`followed`]: which published resources' updates each upstream is asked for.
//! - [`http`]: Streamable HTTP with DNS-rebinding and token checks.
//! - [`params`]: a known method with bad params is "invalid params", not "not found".
//! - [`stdio`]: stdio, answering a request above the size limit instead of dropping it.

pub mod deliver;
pub mod engine;
pub mod exposed;
pub mod followed;
pub mod handler;
pub mod http;
pub mod listing;
pub mod live;
pub mod params;
pub mod stdio;
pub mod upstream;

use crate::sync::Locked;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use rmcp::ServiceExt;

pub use engine::Engine;
pub use exposed::{Expose, Served};
pub use handler::{Awaiting, Presentation, ServeHandler};
pub use upstream::{UpstreamDef, Upstreams};

/// Diagnostics: stderr (never stdout, which carries the protocol on stdio) and `--log FILE`.
#[derive(Debug, Default)]
pub struct Diag {
    file: Option<Mutex<std::fs::File>>,
}

impl Diag {
    pub fn new(file: Option<std::fs::File>) -> Self {
        Diag {
            file: file.map(Mutex::new),
        }
    }

    /// Writes one line (cleaned of escape sequences) with a time stamp in the log file.
    pub fn line(&self, message: &str) {
        let message = crate::sanitize::text(message);
        crate::progress::clear();
        let mut err = std::io::stderr().lock();
        let _ = writeln!(err, "mcpick serve: {message}");
        drop(err);
        if let Some(file) = &self.file {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let mut file = file.locked();
            let _ = writeln!(file, "{secs} {message}");
        }
    }
}

/// Where and how to serve.
#[derive(Debug, Clone)]
pub struct Listen {
    /// `None`: stdio.
    pub http: Option<SocketAddr>,
    /// The bearer token HTTP clients must send.
    pub token: Option<String>,
}

/// Serves until the client closes stdin (stdio) or the process is stopped (HTTP).
pub async fn run(
    engine: Arc<Engine>,
    presentation: Presentation,
    listen: Listen,
    diag: Arc<Diag>,
) -> anyhow::Result<()> {
    diag.line(&format!(
        "connecting to the servers ({}) of {}; clients are answered meanwhile",
        engine.upstream_count,
        engine.set_path.display()
    ));
    tokio::spawn(live::upkeep(engine.clone(), diag.clone()));
    let presentation = Arc::new(presentation);
    match listen.http {
        Some(addr) => http::serve(engine, presentation, addr, listen.token, diag).await,
        None => {
            let stdio = stdio::stdio(stdio::REQUEST_LIMIT, diag);
            let service = ServeHandler::new(engine, presentation)
                .serve(stdio.transport)
                .await?;
            service.waiting().await?;
            // The transport is gone; let the last answers reach the client.
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), stdio.flushed).await;
            Ok(())
        }
    }
}
