//! mcpick: browse the resources MCP servers publish and decide what an agent sees.
//!
//! The library is shared by the headless commands and (later) the TUI. `mcp` is the
//! connection layer on rmcp; `demo` is the built-in demo and fixture server.

pub mod demo;
pub mod mcp;
pub mod sanitize;
