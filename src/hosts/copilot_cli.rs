//! GitHub Copilot CLI: `~/.copilot/mcp-config.json` (user scope only: the workspace `.mcp.json`
//! it also reads is Claude Code's file, and needs folder trust); `mcpServers` with
//! `{type: "local", command, args, env, tools}` (stdio) or `{type: "http" | "sse", url,
//! headers}`. `tools: ["*"]` offers every tool of the server; Copilot CLI starts a server in
//! the folder it was started in.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::{Dialect, FileFormat, Launch, Places, in_home};

pub static DIALECT: Dialect = Dialect {
    host_name: "GitHub Copilot CLI",
    name: "copilot-cli",
    format: FileFormat::Json,
    project_file: None,
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: None,
    entry,
    read,
    cwd_note: "runs servers in the folder it was started in; user scope only",
    host_keys: &[],
    mcp: true,
};

pub fn user_file(places: &Places) -> Option<PathBuf> {
    in_home(places, ".copilot/mcp-config.json")
}

/// `tools: ["*"]`: without a tools list Copilot CLI offers none of the server's tools.
fn entry(launch: &Launch) -> Value {
    json!({ "type": "local", "command": launch.command, "args": launch.args, "tools": ["*"] })
}

/// `type: "local"` is stdio.
fn read(entry: &Value) -> Option<Value> {
    let mut out = entry.clone();
    if out.get("type").and_then(Value::as_str) == Some("local") {
        out["type"] = "stdio".into();
    }
    Some(out)
}
