//! Gemini CLI: `.gemini/settings.json` in the project, `~/.gemini/settings.json` for the
//! user; `mcpServers` with `{command, args, env, cwd}` (stdio), `url` (SSE) or `httpUrl`
//! (Streamable HTTP) with `headers`; a `type` (`sse`, `http`) beside `url` says which. Values
//! name variables as `$VAR` or `${VAR}`. Without `cwd` a server runs in the folder Gemini CLI
//! was started in, the project; project settings apply in trusted folders.

use std::path::PathBuf;

use serde_json::Value;

use super::{Dialect, FileFormat, Launch, Places, in_home, plain_entry};

pub const PROJECT_FILE: &str = ".gemini/settings.json";

pub static DIALECT: Dialect = Dialect {
    host_name: "Gemini CLI",
    name: "gemini",
    format: FileFormat::Json,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: None,
    entry,
    read,
    cwd_note: "runs servers in the folder it was started in (the project), in trusted folders",
    host_keys: &[],
    mcp: true,
};

/// `trust: true`, said explicitly: Gemini CLI then calls the server's tools without asking,
/// and without it `gemini -p` does not offer them at all. `mcpick serve` has one tool,
/// `context`, read-only, which hands out the set and nothing else.
pub(crate) fn entry(launch: &Launch) -> Value {
    let mut entry = plain_entry(launch);
    entry["trust"] = Value::Bool(true);
    entry
}

/// What `install` says about the entry's `trust`.
pub const TRUST_NOTE: &str = "the entry has \"trust\": true: Gemini CLI calls its tools without asking (mcpick serve has one, `context`, read-only); without it `gemini -p` hides the tool";

pub fn user_file(places: &Places) -> Option<PathBuf> {
    in_home(places, ".gemini/settings.json")
}

/// `httpUrl` is a Streamable HTTP server, a `url` without `type` an SSE one; `$VAR` in `env`
/// and `headers` values becomes `${VAR}`.
pub(crate) fn read(entry: &Value) -> Option<Value> {
    let Some(object) = entry.as_object() else {
        return Some(entry.clone());
    };
    let mut out = object.clone();
    if object.get("command").is_none() && object.get("type").is_none() {
        if let Some(http) = object.get("httpUrl") {
            out.insert("url".into(), http.clone());
            out.insert("type".into(), "http".into());
        } else if object.get("url").is_some() {
            out.insert("type".into(), "sse".into());
        }
    }
    for key in ["env", "headers"] {
        if let Some(Value::Object(map)) = out.get_mut(key) {
            for value in map.values_mut() {
                if let Value::String(s) = value {
                    *s = braced(s);
                }
            }
        }
    }
    Some(Value::Object(out))
}

/// `$NAME` → `${NAME}` (a `$` not followed by a name, or already braced, stays).
fn braced(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let starts_name = |c: char| c.is_ascii_alphabetic() || c == '_';
        match chars.peek() {
            Some(&(_, next)) if c == '$' && starts_name(next) => {
                let rest = &text[i + 1..];
                let len = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                out.push_str("${");
                out.push_str(&rest[..len]);
                out.push('}');
                for _ in 0..rest[..len].chars().count() {
                    chars.next();
                }
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn transports_and_dollar_variables() {
        let http = super::read(&json!({"httpUrl": "https://x/mcp", "headers": {"A": "Bearer $T"}}))
            .unwrap();
        assert_eq!(http["type"], "http");
        assert_eq!(http["url"], "https://x/mcp");
        assert_eq!(http["headers"]["A"], "Bearer ${T}");
        let sse = super::read(&json!({"url": "https://x/sse"})).unwrap();
        assert_eq!(sse["type"], "sse");
        let typed = super::read(&json!({"url": "https://x/mcp", "type": "http"})).unwrap();
        assert_eq!(typed["type"], "http");
        let stdio = super::read(&json!({"command": "c", "env": {"K": "$A-${B}x$ $1"}})).unwrap();
        assert_eq!(stdio["env"]["K"], "${A}-${B}x$ $1");
        assert!(stdio.get("type").is_none());
    }
}
