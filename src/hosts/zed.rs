//! Zed: `.zed/settings.json` in the project, Zed's `settings.json` for the user; JSONC; the
//! servers are under `context_servers`, entries `{command, args}`. Zed's documentation does
//! not say which folder a server runs in and has no workspace variable for these files, so a
//! project entry names the set relative to the project root (`--scope user` writes an
//! absolute path).

use std::path::PathBuf;

use super::{Dialect, FileFormat, Places, plain_entry};

pub const PROJECT_FILE: &str = ".zed/settings.json";

pub static DIALECT: Dialect = Dialect {
    host_name: "Zed",
    name: "zed",
    format: FileFormat::Jsonc,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["context_servers"],
    workspace_var: None,
    entry: plain_entry,
    cwd_note: "its docs do not say which folder a server runs in; the set path is relative to the project root",
};

/// `~/.config/zed/settings.json` on Linux and macOS (`$XDG_CONFIG_HOME/zed` when set),
/// `%APPDATA%\Zed\settings.json` on Windows.
pub fn user_file(places: &Places) -> Option<PathBuf> {
    if cfg!(windows) {
        return places
            .config_dir
            .as_ref()
            .map(|d| d.join("Zed").join("settings.json"));
    }
    if cfg!(target_os = "macos") {
        return places
            .home
            .as_ref()
            .map(|h| h.join(".config/zed/settings.json"));
    }
    places
        .config_dir
        .as_ref()
        .map(|d| d.join("zed").join("settings.json"))
}
