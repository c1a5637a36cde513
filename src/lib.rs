//! mcpick: browse the resources MCP servers publish and decide what an agent sees.
//!
//! The library is shared by the headless commands and the TUI: `mcp` is the connection layer
//! on rmcp, `catalog` the resource model, `config` the server definitions (mcpick's own file and
//! the host config files), `commands` the headless commands, and `demo` the built-in demo
//! server (the tests' fixture server, with its faults, is the workspace member `fixture/`).

pub mod catalog;
pub mod check;
pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod deliver;
pub mod demo;
pub mod export;
pub mod fsio;
pub mod heap;
pub mod hosts;
pub mod mcp;
pub mod places;
pub mod progress;
pub mod redact;
pub mod safe_json;
pub mod sanitize;
pub mod serve;
pub mod signals;
pub mod tui;
pub mod units;
pub mod wrap;
