//! The connection layer: speaks MCP through rmcp and adapts it to what a resource browser needs.
//!
//! rmcp does the protocol (both eras, stdio and Streamable HTTP). This module adds what a
//! browser needs around it: server definitions, stderr capture, the legacy HTTP+SSE transport,
//! timeouts on every request, pagination with cursor-loop guards, and errors that say which
//! server failed and why ("not found" told apart from everything else).

mod client;
mod connection;
pub mod diff;
pub mod era;
pub mod error;
mod events;
pub mod follow;
pub mod group;
pub(crate) mod http;
mod lenient;
pub mod limit;
pub mod list;
pub mod log;
pub mod oauth;
mod probe;
mod raw;
pub mod read;
mod reaper;
pub mod spec;
pub(crate) mod sse;
pub(crate) mod sse_events;
mod stdio;
pub mod supervisor;
pub mod warning;

pub use connection::{ConnectOptions, Connection, ResourceNotices, ServerSummary};
pub use diff::{Fingerprint, ListingChange, ListingEdit};
pub use error::{Failure, FailureKind, McpError, NotFound};
pub use events::{ServerEvent, Watch};
pub use follow::{Change, Changes};
pub use limit::MessageLimit;
pub use list::{CacheHints, ListOptions, ListOutcome, Page};
pub use read::{ReadOutcome, is_part_of};
pub use spec::{ServerSpec, Transport, TransportSpec};
pub use warning::{Warning, Warnings};
