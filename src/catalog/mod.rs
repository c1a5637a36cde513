//! The catalogue engine: what servers publish, as something a person can navigate. Pure
//! library code (no terminal, no sockets), shared by the headless commands and the TUI.
//!
//! - [`Catalogue`]: every resource and template, keyed by (server, uri), filled page by page.
//! - [`UriTree`]: the URI tree with counts, compaction, expand state and visible rows.
//! - [`order`]: the list orders; [`query`]: the search syntax; [`search`]: search on every core.
//! - [`template`]: RFC 6570 templates: expand, and match a URI back to its template.

mod children;
mod entry;
pub(crate) mod index;
pub mod item;
pub mod kept;
pub mod order;
pub mod query;
pub mod runs;
pub mod search;
pub mod store;
pub mod template;
pub mod time;
pub mod tree;
pub mod worker;

pub use entry::{AnnotationsEntry, ResourceEntry, TemplateEntry};
pub use item::Item;
pub use order::{SortKey, SortedList};
pub use runs::IdRuns;
pub use search::{FieldHighlights, Match, MatcherKind, Search};
pub use store::{AppendReport, Catalogue, Duplicate, Extent, ItemId, ItemRef, ServerId, Snapshot};
pub use tree::UriTree;
pub use worker::{SearchResults, SearchWorker};
