//! pi (`@mariozechner/pi-coding-agent`): no MCP by design, so there is no entry to write; its
//! hand-off is the delivery alone (an extension of mcpick's own, [`crate::handoff::profiles::pi`]).

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, plain_entry, plain_read};

pub static DIALECT: Dialect = Dialect {
    host_name: "pi",
    name: "pi",
    format: FileFormat::Json,
    project_file: None,
    user_file: no_file,
    servers_key: &[],
    workspace_var: None,
    entry: plain_entry,
    read: plain_read,
    cwd_note: "takes no MCP servers",
    host_keys: &[],
    mcp: false,
};

fn no_file(_: &Places) -> Option<PathBuf> {
    None
}
