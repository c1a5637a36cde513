//! The interactive browser: `mcpick` with no subcommand.
//!
//! A pure core (`app`: state, `update(msg) -> Vec<Effect>`; `ui`: `render(&App, &mut Frame)`)
//! inside one tokio `select!` loop (`runtime`), which owns the terminal (`term`), the server
//! connections, the search worker and the contents reads, and turns their results into
//! messages. Keys are data (`keymap`), styles are roles (`theme`), and the contents pane.s
//! documents are built off the UI thread (`contents`).

pub mod agent;
pub mod app;
pub mod contents;
pub mod keymap;
pub mod layout;
pub mod runtime;
pub mod term;
pub mod theme;
pub mod ui;

pub use app::{App, Effect, Msg, ServerEvent, ServerSetup};
pub use runtime::run;
