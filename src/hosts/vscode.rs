//! VS Code: `.vscode/mcp.json` in the workspace, `mcp.json` in the user profile (`Code/User/`
//! in the OS's config folder); JSONC; the servers are under **`servers`** (with `inputs`
//! beside them), entries `{type: "stdio", command, args}`. `${workspaceFolder}` names the
//! workspace.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Dialect, FileFormat, Launch, Places};

pub const PROJECT_FILE: &str = ".vscode/mcp.json";

pub static DIALECT: Dialect = Dialect {
    host_name: "VS Code",
    name: "vscode",
    format: FileFormat::Jsonc,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["servers"],
    workspace_var: Some("${workspaceFolder}"),
    entry,
    read: super::plain_read,
    cwd_note: "expands ${workspaceFolder}",
    host_keys: &[],
    mcp: true,
};

/// The default profile's `mcp.json`.
pub fn user_file(places: &Places) -> Option<PathBuf> {
    places
        .config_dir
        .as_ref()
        .map(|d| d.join("Code").join("User").join("mcp.json"))
}

fn entry(launch: &Launch) -> Value {
    json!({ "type": "stdio", "command": launch.command, "args": launch.args })
}
