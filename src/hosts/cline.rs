//! Cline CLI: the user's `~/.cline/data/settings/cline_mcp_settings.json` (user scope only;
//! it reads no project file of servers), `mcpServers` with `{command, args, env}`. Cline
//! starts a server without an approval step and speaks `2024-11-05`; only a server's tools
//! reach its model (measured, Cline CLI 3.0.65).

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, in_home, plain_entry, plain_read};

pub static DIALECT: Dialect = Dialect {
    host_name: "Cline CLI",
    name: "cline",
    format: FileFormat::Json,
    project_file: None,
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: None,
    entry: plain_entry,
    read: plain_read,
    cwd_note: "runs servers in the folder it was started in; user scope only",
    host_keys: &[],
    mcp: true,
};

pub fn user_file(places: &Places) -> Option<PathBuf> {
    in_home(places, ".cline/data/settings/cline_mcp_settings.json")
}
