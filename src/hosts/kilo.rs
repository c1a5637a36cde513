//! Kilo CLI, an opencode fork: `kilo.json` in the project, `kilo.json` in its config folder
//! (`~/.config/kilo/`, `$XDG_CONFIG_HOME/kilo/` when set) for the user; JSON with comments,
//! servers under `mcp` in opencode's shape. It ignores `.mcp.json` and starts servers without
//! an approval step, in the folder it runs in (measured, Kilo CLI 7.7.7).

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, opencode};

pub const PROJECT_FILE: &str = "kilo.json";

pub static DIALECT: Dialect = Dialect {
    host_name: "Kilo CLI",
    name: "kilo",
    format: FileFormat::Jsonc,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["mcp"],
    workspace_var: None,
    entry: opencode::entry,
    read: opencode::read,
    cwd_note: "runs servers in the folder it was started in (the project)",
    host_keys: &["$schema"],
    mcp: true,
};

/// Like opencode's: `kilo/kilo.json` in the XDG config folder.
pub fn user_file(places: &Places) -> Option<PathBuf> {
    opencode::in_config(places, "kilo/kilo.json")
}
