//! opencode: `opencode.json` in the project, `opencode.json` in opencode's config folder
//! (`~/.config/opencode/`, `$XDG_CONFIG_HOME/opencode/` when set) for the user; JSON with
//! comments. The servers are under `mcp`: a local one is `{type: "local", command: [program,
//! ...args], environment, enabled}`, a remote one `{type: "remote", url, headers}`. opencode
//! starts servers without an approval step (measured, opencode 1.18.33), in the folder it
//! runs in, the project.

use std::path::PathBuf;

use serde_json::{Map, Value, json};

use super::{Dialect, FileFormat, Launch, Places};

pub const PROJECT_FILE: &str = "opencode.json";

pub static DIALECT: Dialect = Dialect {
    host_name: "opencode",
    name: "opencode",
    format: FileFormat::Jsonc,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["mcp"],
    workspace_var: None,
    entry,
    read,
    cwd_note: "runs servers in the folder it was started in (the project)",
    // opencode adds its schema to a project file it reads.
    host_keys: &["$schema"],
    mcp: true,
};

/// opencode finds its config through the XDG base directories on every system: the config
/// folder on Linux (`$XDG_CONFIG_HOME`, else `~/.config`), `~/.config` elsewhere.
pub fn user_file(places: &Places) -> Option<PathBuf> {
    in_config(places, "opencode/opencode.json")
}

/// `rest` in the XDG config folder as opencode and its forks find it.
pub(super) fn in_config(places: &Places, rest: &str) -> Option<PathBuf> {
    let base = if cfg!(target_os = "linux") {
        places.config_dir.clone()
    } else {
        places.home.as_ref().map(|h| h.join(".config"))
    }?;
    Some(base.join(rest))
}

/// The program and its arguments are one array.
pub(super) fn entry(launch: &Launch) -> Value {
    let mut command = vec![launch.command.clone()];
    command.extend(launch.args.iter().cloned());
    json!({ "type": "local", "command": command, "enabled": true })
}

/// `command: [program, ...args]` → `command`, `args`; `environment` → `env`; a `remote` entry
/// is Streamable HTTP. Anything else is passed on for the reader to report.
pub(super) fn read(entry: &Value) -> Option<Value> {
    let Some(object) = entry.as_object() else {
        return Some(entry.clone());
    };
    let mut out = Map::new();
    for (key, value) in object {
        match (key.as_str(), value) {
            ("command", Value::Array(parts)) if !parts.is_empty() => {
                out.insert("command".into(), parts[0].clone());
                out.insert("args".into(), Value::Array(parts[1..].to_vec()));
            }
            ("environment", _) => {
                out.insert("env".into(), value.clone());
            }
            ("type", Value::String(t)) if t == "local" => {
                out.insert("type".into(), "stdio".into());
            }
            ("type", Value::String(t)) if t == "remote" => {
                out.insert("type".into(), "http".into());
            }
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    Some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_entry_reads_back_as_its_launch_and_remote_entries_as_http() {
        let launch = Launch {
            command: "mcpick".into(),
            args: vec!["serve".into(), "--set".into(), "s.json".into()],
        };
        let read = super::read(&entry(&launch)).unwrap();
        assert_eq!(read["command"], "mcpick");
        assert_eq!(read["args"], json!(["serve", "--set", "s.json"]));
        assert!(super::super::is_ours(&read));
        let local = super::read(&json!({
            "type": "local", "command": ["npx", "-y", "srv"], "environment": {"K": "v"}
        }))
        .unwrap();
        assert_eq!(local["type"], "stdio");
        assert_eq!(local["env"], json!({"K": "v"}));
        let remote =
            super::read(&json!({"type": "remote", "url": "https://x/mcp", "headers": {"A": "b"}}))
                .unwrap();
        assert_eq!(remote["type"], "http");
        assert_eq!(remote["url"], "https://x/mcp");
    }
}
