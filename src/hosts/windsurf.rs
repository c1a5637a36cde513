//! Windsurf: `~/.codeium/windsurf/mcp_config.json`, user scope only, `mcpServers` with
//! `{command, args}`.

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, in_home, plain_entry};

pub static DIALECT: Dialect = Dialect {
    host_name: "Windsurf",
    name: "windsurf",
    format: FileFormat::Json,
    project_file: None,
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: None,
    entry: plain_entry,
    cwd_note: "user scope only",
};

pub fn user_file(places: &Places) -> Option<PathBuf> {
    in_home(places, ".codeium/windsurf/mcp_config.json")
}
