//! Windsurf: `~/.codeium/windsurf/mcp_config.json`, user scope only, `mcpServers` with
//! `{command, args, env}` (stdio) or `serverUrl` (remote, Streamable HTTP) with `headers`;
//! values may name variables as `${env:VAR}`.

use std::path::PathBuf;

use serde_json::Value;

use super::{Dialect, FileFormat, Places, in_home, plain_entry};

pub static DIALECT: Dialect = Dialect {
    host_name: "Windsurf",
    name: "windsurf",
    format: FileFormat::Json,
    project_file: None,
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: None,
    entry: plain_entry,
    read,
    cwd_note: "user scope only",
    host_keys: &[],
    mcp: true,
};

pub fn user_file(places: &Places) -> Option<PathBuf> {
    in_home(places, ".codeium/windsurf/mcp_config.json")
}

/// `serverUrl` is the remote server's `url`.
fn read(entry: &Value) -> Option<Value> {
    let mut out = entry.clone();
    if let Some(object) = out.as_object_mut()
        && !object.contains_key("url")
        && let Some(url) = object.remove("serverUrl")
    {
        object.insert("url".into(), url);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn server_url_is_the_url() {
        let read = super::read(&json!({"serverUrl": "https://x/mcp", "headers": {}})).unwrap();
        assert_eq!(read, json!({"url": "https://x/mcp", "headers": {}}));
    }
}
