//! Host dialects: one module per host application, saying where its config files live (project
//! and user scope), where in them its servers are, and the shape of the entry `mcpick install`
//! writes. `mcpick servers` reads through the same [`Dialect`]s, so reading and writing a
//! host's file can never disagree.
//!
//! The editing itself is format-preserving ([`doc`]): JSON and JSONC through a concrete syntax
//! tree (comments, order and formatting kept), TOML through `toml_edit`.

pub mod claude_code;
pub mod claude_desktop;
pub mod cline;
pub mod codex;
pub mod copilot_cli;
pub mod cursor;
pub mod doc;
pub mod gemini;
pub mod install;
pub mod json;
pub mod kilo;
pub mod opencode;
pub mod pi;
pub mod qwen_code;
pub mod vscode;
pub mod windsurf;
pub mod wrap;
pub mod zed;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// Where host files are looked for: the one [`crate::places::Places`] config uses too.
pub use crate::places::Places;

/// The host applications `mcpick install` writes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Host {
    ClaudeCode,
    ClaudeDesktop,
    Cursor,
    #[value(name = "vscode")]
    VsCode,
    Codex,
    Gemini,
    Windsurf,
    Zed,
    #[value(name = "opencode")]
    OpenCode,
    CopilotCli,
    QwenCode,
    Kilo,
    Cline,
    Pi,
}

impl Host {
    pub const ALL: [Host; 14] = [
        Host::ClaudeCode,
        Host::ClaudeDesktop,
        Host::Cursor,
        Host::VsCode,
        Host::Codex,
        Host::Gemini,
        Host::Windsurf,
        Host::Zed,
        Host::OpenCode,
        Host::CopilotCli,
        Host::QwenCode,
        Host::Kilo,
        Host::Cline,
        Host::Pi,
    ];

    /// The name on the command line: `claude-code`, `vscode`, ….
    pub fn name(self) -> &'static str {
        self.dialect().name
    }

    pub fn dialect(self) -> &'static Dialect {
        match self {
            Host::ClaudeCode => &claude_code::DIALECT,
            Host::ClaudeDesktop => &claude_desktop::DIALECT,
            Host::Cursor => &cursor::DIALECT,
            Host::VsCode => &vscode::DIALECT,
            Host::Codex => &codex::DIALECT,
            Host::Gemini => &gemini::DIALECT,
            Host::Windsurf => &windsurf::DIALECT,
            Host::Zed => &zed::DIALECT,
            Host::OpenCode => &opencode::DIALECT,
            Host::CopilotCli => &copilot_cli::DIALECT,
            Host::QwenCode => &qwen_code::DIALECT,
            Host::Kilo => &kilo::DIALECT,
            Host::Cline => &cline::DIALECT,
            Host::Pi => &pi::DIALECT,
        }
    }
}

/// Where an entry goes: the project (a file committed and shared with the repository) or the
/// user (a file in the home directory, for every project).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Scope {
    #[default]
    Project,
    User,
}

impl Scope {
    pub fn name(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::User => "user",
        }
    }
}

/// The file format of a host's config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileFormat {
    /// JSON; comments and trailing commas are kept if someone put them there.
    Json,
    /// JSON with comments (VS Code, Zed).
    Jsonc,
    Toml,
}

/// What an installed entry runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Launch {
    pub command: String,
    pub args: Vec<String>,
}

impl Launch {
    /// The words that start mcpick (`mcpick`, its path, or `npx -y mcpick@VERSION`), then
    /// `extra`.
    pub fn of(program: Vec<String>, extra: Vec<String>) -> Launch {
        let mut words = program.into_iter();
        Launch {
            command: words.next().unwrap_or_else(|| "mcpick".to_string()),
            args: words.chain(extra).collect(),
        }
    }
}

/// How many of `words` (a command line's words) start mcpick: 1 for `mcpick` from any folder,
/// 3 for `npx -y mcpick` or `npx -y mcpick@VERSION` (as mcpick writes when npx ran it); 0 when
/// they start something else.
pub fn mcpick_words<S: AsRef<str>>(words: &[S]) -> usize {
    let stem = |w: &S| {
        Path::new(w.as_ref())
            .file_stem()
            .and_then(|s| s.to_str())
            .map(str::to_string)
    };
    match words {
        [first, ..] if stem(first).as_deref() == Some("mcpick") => 1,
        [first, yes, package, ..]
            if stem(first).as_deref() == Some("npx")
                && matches!(yes.as_ref(), "-y" | "--yes")
                && package.as_ref().split('@').next() == Some("mcpick") =>
        {
            3
        }
        _ => 0,
    }
}

/// One host's config dialect.
pub struct Dialect {
    pub host_name: &'static str,
    /// The name on the command line.
    pub name: &'static str,
    pub format: FileFormat,
    /// The project file, relative to the project; `None` when the host has no project scope.
    pub project_file: Option<&'static str>,
    /// The user file.
    pub user_file: fn(&Places) -> Option<PathBuf>,
    /// The keys leading to the object of servers (`["mcpServers"]`, `["servers"]`, …).
    pub servers_key: &'static [&'static str],
    /// The host's variable for the project folder in a project-scope entry, if it has one
    /// (`${workspaceFolder}`); else the set path is relative to the folder the host starts
    /// servers in, the project.
    pub workspace_var: Option<&'static str>,
    /// The entry for a stdio server.
    pub entry: fn(&Launch) -> Value,
    /// One entry as the host writes it, in mcpick's own fields (`type`, `command`, `args`,
    /// `env`, `cwd`, `url`, `headers`); `None` for an entry that is not a server mcpick can
    /// start (a Zed extension's settings). The inverse of [`Dialect::entry`]: a launch written
    /// by `entry` reads back as the same command and arguments.
    pub read: fn(&Value) -> Option<Value>,
    /// Where the host runs a project server, for the README and `--list`.
    pub cwd_note: &'static str,
    /// Top-level keys the host adds to a settings file by itself when it reads it (a format
    /// version, a schema): a file `install` created and the host only marked so is still
    /// removed whole by `uninstall`.
    pub host_keys: &'static [&'static str],
    /// The host takes MCP servers. pi has none by design: no entry is written for it, its
    /// hand-off is the delivery alone.
    pub mcp: bool,
}

impl Dialect {
    /// The file of `scope`, if the host has one there.
    pub fn file(&self, scope: Scope, places: &Places) -> Option<PathBuf> {
        match scope {
            Scope::Project => self.project_file.map(|f| places.project.join(f)),
            Scope::User => (self.user_file)(places),
        }
    }

    /// The object of servers in a parsed file, if there is one.
    pub fn servers<'a>(&self, root: &'a Value) -> Option<&'a Value> {
        self.servers_key
            .iter()
            .try_fold(root, |value, key| value.get(key))
    }
}

/// Most hosts' entries are already in mcpick's fields (`type` optional, `command` or `url`).
pub fn plain_read(entry: &Value) -> Option<Value> {
    Some(entry.clone())
}

/// `{command, args}`: the shape most hosts share.
pub fn plain_entry(launch: &Launch) -> Value {
    json!({ "command": launch.command, "args": launch.args })
}

/// True when `entry` is one mcpick wrote: its command is `mcpick` (any folder) and its first
/// argument `serve`.
pub fn is_ours(entry: &Value) -> bool {
    runs_mcpick(entry, "serve")
}

/// True when `entry` runs `mcpick` (any folder, or through `npx -y mcpick@VERSION`) with
/// `subcommand` as its first argument.
pub(crate) fn runs_mcpick(entry: &Value, subcommand: &str) -> bool {
    // opencode's `command` is the program and its arguments in one array.
    if let Some([program, args @ ..]) = entry
        .get("command")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        let flat = json!({ "command": program, "args": args });
        return runs_mcpick(&flat, subcommand);
    }
    let command = entry.get("command").and_then(Value::as_str).unwrap_or("");
    let args = entry.get("args").and_then(Value::as_array);
    let words: Vec<&str> = std::iter::once(command)
        .chain(args.into_iter().flatten().map(|a| a.as_str().unwrap_or("")))
        .collect();
    let program = mcpick_words(&words);
    program > 0 && words.get(program) == Some(&subcommand)
}

/// The user's home joined with `rest`.
fn in_home(places: &Places, rest: &str) -> Option<PathBuf> {
    places.home.as_ref().map(|h| h.join(rest))
}
