//! mcpick: browse the resources MCP servers publish and decide what an agent sees.
//!
//! The library is shared by the headless commands and the browser: `mcp` is the connection
//! layer on rmcp, `catalog` the resource model, `context` marks, policy and resolution, `config`
//! the server definitions, `hosts` the hosts' config dialects, `handoff` "this set, in host H",
//! `serve` and `wrap` the servers mcpick runs for hosts, `export` and `check` their commands'
//! libraries, `tui` the browser, `commands` the headless commands, `demo` the built-in demo (the tests'
//! fixture server, with its faults, is the workspace member `fixture/`), and
//! the low modules (`say`, `sanitize`, `redact`, `fsio`, `places`, `sync`, …) below them all.
//! `docs/development.md` maps every folder and follows one keypress and one install through the
//! code.

// A command's output goes through `out!`/`outln!` (`say::out`): `println!` panics when the
// reader of stdout has gone (`mcpick install … | head -1`), in the middle of a command.
#![deny(clippy::print_stdout)]

pub mod catalog;
pub mod check;
pub mod cli;
pub mod commands;
pub mod config;
pub mod context;
pub mod demo;
pub mod export;
pub mod fsio;
pub mod handoff;
pub mod heap;
pub mod hosts;
pub mod mcp;
pub mod places;
pub mod progress;
pub mod redact;
pub mod safe_json;
pub mod sanitize;
pub mod say;
pub mod sched;
pub mod serve;
pub mod signals;
pub mod skills;
pub mod sync;
pub mod tui;
pub mod units;
pub mod wrap;
