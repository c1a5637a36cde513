//! Gemini CLI: `.gemini/settings.json` in the project, `~/.gemini/settings.json` for the
//! user; `mcpServers` with `{command, args}`. Without `cwd` a server runs in the folder Gemini
//! CLI was started in, the project; project settings apply in trusted folders.

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, in_home, plain_entry};

pub const PROJECT_FILE: &str = ".gemini/settings.json";

pub static DIALECT: Dialect = Dialect {
    host_name: "Gemini CLI",
    name: "gemini",
    format: FileFormat::Json,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: None,
    entry: plain_entry,
    cwd_note: "runs servers in the folder it was started in (the project), in trusted folders",
};

pub fn user_file(places: &Places) -> Option<PathBuf> {
    in_home(places, ".gemini/settings.json")
}
