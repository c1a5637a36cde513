//! Qwen Code, a fork of Gemini CLI with Gemini's settings format: `.qwen/settings.json` in
//! the project, `~/.qwen/settings.json` for the user; `mcpServers` as in Gemini CLI. A project
//! entry waits for `qwen mcp approve NAME` (bound to the entry's hash, measured in Qwen Code
//! 0.24.4) before Qwen Code starts it; a user entry runs at once.

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, in_home};

pub const PROJECT_FILE: &str = ".qwen/settings.json";

pub static DIALECT: Dialect = Dialect {
    host_name: "Qwen Code",
    name: "qwen-code",
    format: FileFormat::Json,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: None,
    entry: super::gemini::entry,
    read: super::gemini::read,
    cwd_note: "runs servers in the folder it was started in; a project entry after `qwen mcp approve NAME`",
    // Qwen Code marks every settings file it reads with its format version.
    host_keys: &["$version"],
    mcp: true,
};

pub fn user_file(places: &Places) -> Option<PathBuf> {
    in_home(places, ".qwen/settings.json")
}

/// What `install` says about a project entry.
pub const APPROVE_NOTE: &str = "Qwen Code starts a project entry once approved: run `qwen mcp approve NAME` in the project (the session-start delivery needs no approval)";
