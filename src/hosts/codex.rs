//! OpenAI Codex: `.codex/config.toml` in a (trusted) project, `$CODEX_HOME/config.toml`
//! (default `~/.codex/config.toml`) for the user; TOML tables `[mcp_servers.NAME]` with
//! `command`, `args`, `env`, `cwd` (stdio) or `url` (Streamable HTTP) with `http_headers`,
//! `env_http_headers` (header → variable) and `bearer_token_env_var`. Codex starts servers in
//! the session's folder, the project.

use std::path::PathBuf;

use serde_json::{Map, Value};

use super::{Dialect, FileFormat, Places, in_home, plain_entry};

pub const PROJECT_FILE: &str = ".codex/config.toml";

pub static DIALECT: Dialect = Dialect {
    host_name: "Codex",
    name: "codex",
    format: FileFormat::Toml,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["mcp_servers"],
    workspace_var: None,
    entry: plain_entry,
    read,
    cwd_note: "runs servers in the session's folder (the project); project files are read in trusted projects",
    host_keys: &[],
    mcp: true,
};

pub fn user_file(places: &Places) -> Option<PathBuf> {
    match &places.codex_home {
        Some(dir) => Some(dir.join("config.toml")),
        None => in_home(places, ".codex/config.toml"),
    }
}

/// Codex's header fields become `headers`, the variables they name `${VAR}` placeholders (so
/// the secret is looked up when connecting and never shown). A field of the wrong shape is
/// left for the reader to report.
fn read(entry: &Value) -> Option<Value> {
    let Some(object) = entry.as_object() else {
        return Some(entry.clone());
    };
    let mut out = object.clone();
    let mut headers = Map::new();
    if let Some(Value::Object(plain)) = object.get("http_headers") {
        headers.extend(plain.clone());
    }
    if let Some(Value::Object(from_env)) = object.get("env_http_headers") {
        for (name, var) in from_env {
            let value = match var {
                Value::String(var) => Value::String(format!("${{{var}}}")),
                other => other.clone(),
            };
            headers.insert(name.clone(), value);
        }
    }
    if let Some(Value::String(var)) = object.get("bearer_token_env_var") {
        headers.insert(
            "Authorization".into(),
            Value::String(format!("Bearer ${{{var}}}")),
        );
    }
    if !headers.is_empty() {
        out.insert("headers".into(), Value::Object(headers));
    }
    Some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn header_fields_become_headers_with_placeholders() {
        let read = super::read(&json!({
            "url": "https://x.example/mcp",
            "bearer_token_env_var": "TOKEN",
            "http_headers": {"X-Team": "a"},
            "env_http_headers": {"X-Key": "KEY"},
            "startup_timeout_sec": 20
        }))
        .unwrap();
        assert_eq!(
            read["headers"],
            json!({"Authorization": "Bearer ${TOKEN}", "X-Team": "a", "X-Key": "${KEY}"})
        );
        let stdio = json!({"command": "srv", "args": ["a"], "env": {"A": "1"}});
        assert_eq!(super::read(&stdio).unwrap(), stdio);
    }
}
