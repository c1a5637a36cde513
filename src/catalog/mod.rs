//! The resource model mcpick works on, independent of terminals and sockets.

mod entry;

pub use entry::{AnnotationsEntry, ResourceEntry, TemplateEntry};
