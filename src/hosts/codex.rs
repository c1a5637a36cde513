//! OpenAI Codex: `.codex/config.toml` in a (trusted) project, `$CODEX_HOME/config.toml`
//! (default `~/.codex/config.toml`) for the user; TOML tables `[mcp_servers.NAME]` with
//! `command` and `args`. Codex starts servers in the session's folder, the project.

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, in_home, plain_entry};

pub const PROJECT_FILE: &str = ".codex/config.toml";

pub static DIALECT: Dialect = Dialect {
    host_name: "Codex",
    name: "codex",
    format: FileFormat::Toml,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["mcp_servers"],
    workspace_var: None,
    entry: plain_entry,
    cwd_note: "runs servers in the session's folder (the project); project files are read in trusted projects",
};

pub fn user_file(places: &Places) -> Option<PathBuf> {
    match &places.codex_home {
        Some(dir) => Some(dir.join("config.toml")),
        None => in_home(places, ".codex/config.toml"),
    }
}
