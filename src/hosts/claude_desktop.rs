//! Claude Desktop: `claude_desktop_config.json` in the OS's config folder (`Claude/`), user
//! scope only, `mcpServers` with stdio entries `{command, args}`.

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, plain_entry};

pub static DIALECT: Dialect = Dialect {
    host_name: "Claude Desktop",
    name: "claude-desktop",
    format: FileFormat::Json,
    project_file: None,
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: None,
    entry: plain_entry,
    read: super::plain_read,
    cwd_note: "user scope only",
    host_keys: &[],
    mcp: true,
};

/// `~/Library/Application Support/Claude/…` on macOS, `%APPDATA%\Claude\…` on Windows,
/// `~/.config/Claude/…` elsewhere.
pub fn user_file(places: &Places) -> Option<PathBuf> {
    places
        .config_dir
        .as_ref()
        .map(|d| d.join("Claude").join("claude_desktop_config.json"))
}
