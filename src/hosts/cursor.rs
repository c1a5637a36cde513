//! Cursor: `.cursor/mcp.json` in the project, `~/.cursor/mcp.json` for the user, `mcpServers`
//! with `{command, args}`. Cursor expands `${workspaceFolder}` in these files, so a project
//! entry names the set through it.

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, in_home, plain_entry};

pub const PROJECT_FILE: &str = ".cursor/mcp.json";

pub static DIALECT: Dialect = Dialect {
    host_name: "Cursor",
    name: "cursor",
    format: FileFormat::Json,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: Some("${workspaceFolder}"),
    entry: plain_entry,
    read: super::plain_read,
    cwd_note: "expands ${workspaceFolder}",
    host_keys: &[],
    mcp: true,
};

pub fn user_file(places: &Places) -> Option<PathBuf> {
    in_home(places, ".cursor/mcp.json")
}
