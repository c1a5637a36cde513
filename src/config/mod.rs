//! Server definitions: mcpick's own TOML config and the host config files users already have,
//! each read through its host's dialect ([`crate::hosts`]), the module `mcpick install` writes
//! it with.
//!
//! # Sources, in precedence order
//!
//! When two sources define the same name, the first one in this list wins and the others are
//! kept as *shadowed* definitions (`mcpick servers` shows them):
//!
//! 1. `--config FILE` (mcpick TOML, or a host-style JSON file when it ends in `.json`)
//! 2. the project, in the working directory: `mcpick.toml`, then every host's project file in
//!    [`Host::ALL`] order: `.mcp.json` (Claude Code), `.cursor/mcp.json`, `.vscode/mcp.json`,
//!    `.codex/config.toml`, `.gemini/settings.json`, `.zed/settings.json`, `opencode.json`,
//!    `.qwen/settings.json`
//! 3. the user's mcpick config: `config.toml` in the user config directory
//!    (`~/.config/mcpick/` on Linux, `~/Library/Application Support/mcpick/` on macOS,
//!    `%APPDATA%\mcpick\config\` on Windows)
//! 4. every host's user file, in [`Host::ALL`] order: `~/.claude.json` (its `projects[<cwd>]`
//!    section, then its top-level `mcpServers`), Claude Desktop's
//!    `claude_desktop_config.json`, `~/.cursor/mcp.json`, VS Code's user `mcp.json`,
//!    `~/.codex/config.toml`, `~/.gemini/settings.json`, Windsurf's `mcp_config.json`, Zed's
//!    `settings.json`, opencode's `opencode.json`, `~/.copilot/mcp-config.json`,
//!    `~/.qwen/settings.json`
//!
//! A definition that fails (an unset variable, a bad field) still wins over lower sources: it
//! is shown as failed rather than silently replaced by another definition.
//!
//! # mcpick's TOML format
//!
//! ```toml
//! [servers.demo2]
//! command = "mcpick"
//! args = ["demo-server", "--count", "50"]
//! env = { TOKEN = "${MY_TOKEN}" }
//! cwd = "/srv/demo"              # optional
//!
//! [servers.remote]
//! url = "https://example.com/mcp"
//! headers = { Authorization = "Bearer ${API_TOKEN}" }
//! type = "sse"                   # optional: stdio (default with command), http (default with url), sse
//! ```
//!
//! Placeholders (in `command`, `args`, `env`, `cwd`, `url` and `headers`, in every format) are
//! described in [`expand`].
//!
//! Discovery ([`sources`]) and loading ([`load`]) are pure functions of a [`Places`] and an
//! environment lookup; only [`Places::system`] and [`load_system`] look at the real process.

pub mod example;
pub mod expand;
pub mod kept;
mod parse;
pub mod private;
pub mod relative;
pub mod select;
pub mod skill_trust;
#[cfg(test)]
mod tests;
pub mod trust;
pub mod written;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::hosts::{self, Host};
use crate::mcp::{ServerSpec, TransportSpec};
pub use crate::places::Places;
pub use expand::Vars;

/// How much a source counts when names collide; earlier variants win.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// `--config FILE`.
    Explicit,
    /// A file in the working directory.
    Project,
    /// mcpick's user config.
    User,
    /// A host application's file in the home directory.
    Host,
}

/// The dialect of a file and the part of it that holds the servers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// mcpick's TOML: `[servers.NAME]`.
    Mcpick,
    /// A host's file, read through its dialect ([`crate::hosts`]): the same module that
    /// `mcpick install` writes with.
    Host(Host),
    /// Claude Code's `~/.claude.json`: `projects[<project>].mcpServers`, or the top-level
    /// `mcpServers` (its dialect's servers) when `project` is `None`.
    ClaudeCodeUser { project: Option<PathBuf> },
    /// A JSON file given with `--config`: `mcpServers` or `servers` (with `inputs`).
    Json,
}

impl Format {
    /// A short name for people and JSON: `mcpick`, `claude-code`, `claude-desktop`, ….
    pub fn name(&self) -> &'static str {
        match self {
            Format::Mcpick => "mcpick",
            Format::Host(host) => host.name(),
            Format::ClaudeCodeUser { .. } => Host::ClaudeCode.name(),
            Format::Json => "json",
        }
    }

    /// The host whose dialect reads this file, if any.
    pub fn host(&self) -> Option<Host> {
        match self {
            Format::Host(host) => Some(*host),
            Format::ClaudeCodeUser { .. } => Some(Host::ClaudeCode),
            Format::Mcpick | Format::Json => None,
        }
    }

    /// True for TOML files: mcpick's own and Codex's.
    fn is_toml(&self) -> bool {
        match self {
            Format::Mcpick => true,
            Format::Host(host) => host.dialect().format == hosts::FileFormat::Toml,
            Format::ClaudeCodeUser { .. } | Format::Json => false,
        }
    }
}

/// One place server definitions may come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    pub path: PathBuf,
    pub scope: Scope,
    pub format: Format,
}

/// Every source, in precedence order (see the module documentation). Pure: it only joins
/// paths; missing files are found out by [`load`].
pub fn sources(places: &Places, explicit: Option<&Path>) -> Vec<Source> {
    let mut list = Vec::new();
    let mut add = |path: PathBuf, scope, format| {
        let source = Source {
            path,
            scope,
            format,
        };
        // The same file reached twice (the working directory is the home directory) is
        // read once, at its higher precedence.
        if !list
            .iter()
            .any(|s: &Source| s.path == source.path && s.format == source.format)
        {
            list.push(source);
        }
    };
    if let Some(path) = explicit {
        let format = if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            Format::Json
        } else {
            Format::Mcpick
        };
        add(places.project.join(path), Scope::Explicit, format);
    }
    let cwd = &places.project;
    add(cwd.join("mcpick.toml"), Scope::Project, Format::Mcpick);
    for host in Host::ALL {
        if let Some(path) = host.dialect().file(hosts::Scope::Project, places) {
            add(path, Scope::Project, Format::Host(host));
        }
    }
    if let Some(dir) = &places.mcpick_dir {
        add(dir.join("config.toml"), Scope::User, Format::Mcpick);
    }
    for host in Host::ALL {
        let Some(path) = host.dialect().file(hosts::Scope::User, places) else {
            continue;
        };
        if host == Host::ClaudeCode {
            // `~/.claude.json`: the servers of this project (`claude mcp add`'s local
            // scope) before the top-level ones.
            add(
                path.clone(),
                Scope::Host,
                Format::ClaudeCodeUser {
                    project: Some(cwd.clone()),
                },
            );
            add(path, Scope::Host, Format::ClaudeCodeUser { project: None });
        } else {
            add(path, Scope::Host, Format::Host(host));
        }
    }
    list
}

/// One definition of a server, as found in one file.
#[derive(Debug, Clone)]
pub struct Definition {
    pub name: String,
    /// The file that defined it.
    pub path: PathBuf,
    /// Where in the file: `mcpServers.github`, `projects["/home/me/app"].mcpServers.db`, ….
    pub field: String,
    pub scope: Scope,
    pub format: Format,
    /// The definition as written, safe to print: placeholders unexpanded, env and header
    /// values without a placeholder masked. `None` when the definition's shape is invalid.
    pub shown: Option<TransportSpec>,
    /// The expanded definition, or why it failed (naming the file and the field).
    pub spec: Result<ServerSpec, String>,
    /// `oauth = { client_id, scopes }`: a client registered beforehand, for `mcpick login`.
    pub oauth: Option<crate::mcp::oauth::ClientConfig>,
}

impl Definition {
    pub fn error(&self) -> Option<&str> {
        self.spec.as_ref().err().map(String::as_str)
    }

    /// A spec to stand for this definition when it failed: the definition as written, so a
    /// failed server still shows its name and transport.
    pub fn shown_spec(&self) -> ServerSpec {
        ServerSpec {
            name: self.name.clone(),
            transport: self.shown.clone().unwrap_or(TransportSpec::Stdio {
                command: String::new(),
                args: Vec::new(),
                env: Default::default(),
                cwd: None,
            }),
        }
    }
}

/// A server name and every definition of it: the winner first.
#[derive(Debug, Clone)]
pub struct KnownServer {
    pub definition: Definition,
    /// Lower-precedence definitions of the same name, in precedence order.
    pub shadowed: Vec<Definition>,
}

impl KnownServer {
    pub fn name(&self) -> &str {
        &self.definition.name
    }
}

/// What happened to one source.
#[derive(Debug, Clone, PartialEq)]
pub enum SourceState {
    /// The file does not exist.
    Missing,
    /// Read; it defined this many servers.
    Loaded { servers: usize },
    /// The file could not be read or parsed; the message names it.
    Failed(String),
}

#[derive(Debug, Clone)]
pub struct SourceReport {
    pub source: Source,
    pub state: SourceState,
}

/// Every known server and what happened to every source.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Every server name, winners in precedence order of their source.
    pub servers: Vec<KnownServer>,
    pub sources: Vec<SourceReport>,
    /// The `[keys]` tables of mcpick's TOML files, highest precedence first. Read in the same
    /// pass as the servers, so a file that cannot be parsed is reported once, by
    /// [`Config::file_errors`], and the key table's own errors come from its one reader.
    pub keys: Vec<KeyTable>,
}

/// One `[keys]` table as written (the TUI's key map reads it).
#[derive(Debug, Clone, PartialEq)]
pub struct KeyTable {
    /// The file it came from, for messages.
    pub origin: String,
    /// The value of `keys`: a table when the file is right.
    pub value: toml::Value,
}

impl Config {
    pub fn get(&self, name: &str) -> Option<&KnownServer> {
        self.servers.iter().find(|s| s.name() == name)
    }

    /// One message per file that could not be read or parsed (a file reached by two
    /// sources is reported once).
    pub fn file_errors(&self) -> Vec<&str> {
        let mut seen: Vec<&Path> = Vec::new();
        let mut errors = Vec::new();
        for report in &self.sources {
            if let SourceState::Failed(message) = &report.state
                && !seen.contains(&report.source.path.as_path())
            {
                seen.push(&report.source.path);
                errors.push(message.as_str());
            }
        }
        errors
    }
}

/// Reads every source and resolves precedence. A file that is missing is skipped; a file
/// that cannot be read or parsed is reported in [`Config::sources`] and the others still load.
pub fn load(sources: &[Source], vars: &Vars) -> Config {
    let mut files: HashMap<PathBuf, Result<Option<Value>, String>> = HashMap::new();
    let mut config = Config::default();
    for source in sources {
        let parsed = files
            .entry(source.path.clone())
            .or_insert_with(|| read_file(&source.path, &source.format));
        let state = match parsed {
            Ok(None) => SourceState::Missing,
            Err(message) => SourceState::Failed(message.clone()),
            Ok(Some(doc)) => {
                if source.format == Format::Mcpick
                    && let Some(keys) = doc.get("keys")
                {
                    // It came from TOML, so it converts back (TOML has no null).
                    if let Ok(value) = toml::Value::try_from(keys) {
                        config.keys.push(KeyTable {
                            origin: source.path.display().to_string(),
                            value,
                        });
                    }
                }
                match parse::definitions(source, doc, vars) {
                    Err(message) => SourceState::Failed(message),
                    Ok(definitions) => {
                        let count = definitions.len();
                        for definition in definitions {
                            match config
                                .servers
                                .iter_mut()
                                .find(|s| s.name() == definition.name)
                            {
                                Some(known) => known.shadowed.push(definition),
                                None => config.servers.push(KnownServer {
                                    definition,
                                    shadowed: Vec::new(),
                                }),
                            }
                        }
                        SourceState::Loaded { servers: count }
                    }
                }
            }
        };
        config.sources.push(SourceReport {
            source: source.clone(),
            state,
        });
    }
    config
}

/// [`load`] for the real process: its working directory, home, and environment.
pub fn load_system(explicit: Option<&Path>) -> Config {
    load_at(&Places::system(), explicit)
}

/// [`load`] from `places`, with the real process environment.
pub fn load_at(places: &Places, explicit: Option<&Path>) -> Config {
    let env = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    let vars = Vars {
        env: &env,
        workspace: &places.project,
        home: places.home.as_deref(),
    };
    load(&sources(places, explicit), &vars)
}

/// One host entry as a definition, read exactly as `mcpick servers` reads it from `path` (the
/// host's dialect, placeholders expanded with the real environment, relative paths against
/// `places`): what `wrap`'s proxy starts from the original entry it keeps.
pub fn host_entry(
    places: &Places,
    host: Host,
    path: &Path,
    scope: Scope,
    name: &str,
    entry: &Value,
) -> Option<Definition> {
    let mut doc = Value::Object(serde_json::Map::from_iter([(
        name.to_string(),
        entry.clone(),
    )]));
    for key in host.dialect().servers_key.iter().rev() {
        doc = Value::Object(serde_json::Map::from_iter([(key.to_string(), doc)]));
    }
    let env = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    let vars = Vars {
        env: &env,
        workspace: &places.project,
        home: places.home.as_deref(),
    };
    let source = Source {
        path: path.to_path_buf(),
        scope,
        format: Format::Host(host),
    };
    parse::definitions(&source, &doc, &vars)
        .ok()?
        .into_iter()
        .next()
}

/// Reads and parses one file: `Ok(None)` when it does not exist. Errors name the file and,
/// when the parser knows it, the line and column. They never quote the file's text, which may
/// hold secrets.
fn read_file(path: &Path, format: &Format) -> Result<Option<Value>, String> {
    let shown = path.display();
    let text = match crate::fsio::read_capped(path) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(None),
        Err(e) => return Err(format!("{shown}: cannot read the file: {e}")),
    };
    parse_text(&text, path, format).map(Some)
}

fn parse_text(text: &str, path: &Path, format: &Format) -> Result<Value, String> {
    let shown = path.display();
    if format.is_toml() {
        return toml::from_str::<toml::Table>(text)
            .map_err(|e| hosts::doc::toml_error(text, e.span(), e.message()).at(&shown.to_string()))
            .and_then(|table| serde_json::to_value(table).map_err(|e| format!("{shown}: {e}")));
    }
    // The other host files are JSON; VS Code's and Zed's allow comments and trailing commas
    // (JSONC), which the host reader blanks out in place, so line and column stay right.
    hosts::json::parse(text).map_err(|e| format!("{shown}: not valid JSON: {e}"))
}
