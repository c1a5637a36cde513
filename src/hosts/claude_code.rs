//! Claude Code: `.mcp.json` in the project, and the top-level `mcpServers` of `~/.claude.json`
//! (a large state file of which mcpick changes only that key). Its `projects[<dir>]` sections
//! hold the servers added with `claude mcp add` (local scope), which mcpick reads but never
//! writes. Entries are `{type: "stdio", command, args, env}`. Claude Code starts project
//! servers in the folder it runs in, the project, so a relative set path works there.

use std::path::Path;

use serde_json::{Map, Value, json};

use super::{Dialect, FileFormat, Launch, Places, in_home};

pub const PROJECT_FILE: &str = ".mcp.json";

pub static DIALECT: Dialect = Dialect {
    host_name: "Claude Code",
    name: "claude-code",
    format: FileFormat::Json,
    project_file: Some(PROJECT_FILE),
    user_file,
    servers_key: &["mcpServers"],
    workspace_var: None,
    entry,
    read: super::plain_read,
    cwd_note: "runs servers in the folder it was started in (the project)",
    host_keys: &[],
    mcp: true,
};

pub fn user_file(places: &Places) -> Option<std::path::PathBuf> {
    in_home(places, ".claude.json")
}

fn entry(launch: &Launch) -> Value {
    json!({ "type": "stdio", "command": launch.command, "args": launch.args, "env": {} })
}

/// `projects[<project>]` of `~/.claude.json`: the key is the project's absolute path. Returns
/// the key as written and the section.
pub fn project_section<'a>(
    root: &'a Map<String, Value>,
    project: &Path,
) -> Option<(&'a str, &'a Map<String, Value>)> {
    root.get("projects")?
        .as_object()?
        .iter()
        .find(|(key, _)| Path::new(key.as_str()) == project)
        .and_then(|(key, section)| Some((key.as_str(), section.as_object()?)))
}
