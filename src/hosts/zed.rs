//! Zed: `.zed/settings.json` in the project, Zed's `settings.json` for the user; JSONC; the
//! servers are under `context_servers`: `{command, args, env}` with `command` a string, the
//! older `{command: {path, args, env}}`, or a remote `{url, headers}` (Streamable HTTP).
//! Entries that only hold an extension's `settings` (`source: "extension"`) are servers Zed's
//! extensions start; mcpick cannot, and skips them.
//!
//! Zed has no workspace variable for these files. It starts a local server in the project
//! root (the active project directory, else the first folder of the workspace: checked in
//! Zed's `context_server_store.rs`, 2026), so a project entry names the set relative to the
//! project root; `--scope user` writes an absolute path.

use std::path::PathBuf;

use serde_json::Value;

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
    read,
    cwd_note: "runs servers in the project root; the set path is relative to it",
    host_keys: &[],
    mcp: true,
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

/// The older `command: {path, args, env}` is flattened (its `args` and `env` win over the
/// outer ones); an extension's entry is skipped.
fn read(entry: &Value) -> Option<Value> {
    let Some(object) = entry.as_object() else {
        return Some(entry.clone());
    };
    let extension = object.get("source").and_then(Value::as_str) == Some("extension")
        || (object.get("command").is_none()
            && object.get("url").is_none()
            && object.contains_key("settings"));
    if extension {
        return None;
    }
    let mut out = object.clone();
    if let Some(Value::Object(command)) = object.get("command")
        && let Some(path) = command.get("path")
    {
        out.insert("command".into(), path.clone());
        for key in ["args", "env"] {
            if let Some(value) = command.get(key) {
                out.insert(key.into(), value.clone());
            }
        }
    }
    Some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn both_command_shapes_remote_entries_and_extensions() {
        let old = super::read(&json!({
            "command": {"path": "srv", "args": ["a"], "env": {"K": "v"}},
            "settings": {}
        }))
        .unwrap();
        assert_eq!(old["command"], "srv");
        assert_eq!(old["args"], json!(["a"]));
        assert_eq!(old["env"], json!({"K": "v"}));
        let new = json!({"source": "custom", "command": "srv", "args": ["a"]});
        assert_eq!(super::read(&new).unwrap(), new);
        let remote = json!({"url": "https://x/mcp", "headers": {"A": "b"}});
        assert_eq!(super::read(&remote).unwrap(), remote);
        assert!(super::read(&json!({"source": "extension", "settings": {}})).is_none());
        assert!(super::read(&json!({"settings": {"k": 1}})).is_none());
        // A broken command object is passed on for the reader to report.
        assert_eq!(
            super::read(&json!({"command": {"args": []}})).unwrap()["command"],
            json!({"args": []})
        );
    }
}
