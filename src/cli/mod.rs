//! Every command-line argument struct (clap), and nothing else: the commands import these,
//! never the other way round.

mod check;
pub mod complete;
mod context;
mod handoff;
mod trust;

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use crate::demo::DemoArgs;
use crate::hosts::Host;
use crate::mcp::spec::parse_header;

pub use check::{CheckArgs, DiffArgs, LockArgs};
pub use context::{
    MarkArgs, MarksArgs, PolicyArgs, PreviewArgs, ServeArgs, SetArgs, UnmarkArgs, parse_budget,
    parse_priority,
};
pub use handoff::{
    Deliver, DeliverArgs, ExportArgs, InstallArgs, TurnArgs, UninstallArgs, UnwrapArgs, WrapArgs,
    WrapServeArgs,
};
pub use trust::TrustArgs;

#[derive(Debug, Parser)]
#[command(
    name = "mcpick",
    version,
    about = "See every resource your MCP servers publish, and decide what an agent is handed.",
    long_about = long_about(),
    after_help = "Exit status: 0 ok, 1 a server or transport failed, 2 usage error, 3 resource not found.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub servers: ServerArgs,

    /// Colours in the interactive browser: auto (none when NO_COLOR is set), always, never.
    #[arg(long, value_enum, default_value_t, value_name = "WHEN")]
    pub color: ColorChoice,

    /// The context set the interactive browser edits (saved after each change) [default:
    /// ./mcpick.context.json].
    #[arg(long = "set", value_name = "FILE", add = complete::set_files())]
    pub set: Option<PathBuf>,
}

/// `--color`: whether the interactive browser draws in colour (its theme reads it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ColorChoice {
    /// Colours unless NO_COLOR is set.
    #[default]
    Auto,
    /// Colours even with NO_COLOR.
    Always,
    /// No colours: selection and state by modifiers and glyphs only.
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every resource (and, with --templates, every template) of the servers.
    #[command(
        after_help = "Examples:\n  mcpick ls --demo\n  mcpick ls --server github --server docs\n  mcpick ls --json -- npx -y @modelcontextprotocol/server-everything\n  mcpick ls --templates --url http://127.0.0.1:3001/mcp -H 'Authorization: Bearer $TOKEN'"
    )]
    Ls(LsArgs),
    /// Read one resource and print its contents.
    #[command(
        after_help = "Text goes to stdout. A blob goes to stdout as raw bytes when stdout is not a terminal \
(`mcpick read URI > file.png`), else a one-line summary is printed.\n\nExamples:\n  mcpick read --demo file:///project/README.md\n  mcpick read --demo demo://assets/logo.png > logo.png"
    )]
    Read(ReadArgs),
    /// Stay connected and print what the servers change as it happens: resources that appear
    /// and disappear, updates of subscribed resources, a server that goes away (an HTTP
    /// server is tried again until it is back).
    #[command(
        after_help = "Runs until every server is gone for good (exit status 1: a stdio server that exited, a server never reached) or it is interrupted.\n\nExamples:\n  mcpick watch --demo\n  mcpick watch --json --server docs\n  mcpick watch --uri file:///project/README.md -- npx -y @modelcontextprotocol/server-everything"
    )]
    Watch(WatchArgs),
    /// List every server defined in mcpick's config and the host config files, with where
    /// each definition came from.
    #[command(
        after_help = servers_help()
    )]
    Servers(ServersArgs),
    /// Sign in to an OAuth-protected HTTP server: the authorization page opens in the
    /// browser ($BROWSER, else the system's), its address is printed too, and the tokens are
    /// kept for that server only, in an owner-only file in the user data directory.
    #[command(
        after_help = "Registration: --client-id when given, else the server's dynamic client registration.\n\n\
Examples:\n  mcpick login docs\n  mcpick login --url https://mcp.example.com/mcp\n  mcpick login docs --client-id my-app --scope read"
    )]
    Login(LoginArgs),
    /// Forget the sign-in of a server (deletes its stored tokens).
    Logout(LogoutArgs),
    /// Run the built-in demo MCP server on stdin/stdout (or Streamable HTTP with --http).
    ///
    /// It publishes a few hundred realistic resources (nested paths, every kind of annotation,
    /// a template with completion, a binary blob, a resource that changes). Flags make it page
    /// and grow.
    DemoServer(DemoArgs),
    /// Pin resources (always handed to the agent): `URI`, or `PREFIX*` for every resource
    /// under a prefix, now and later.
    #[command(
        after_help = "Marks are kept in the context set (--set, default ./mcpick.context.json). An exact URI \
no server lists is refused (status 3) unless --allow-missing. The most specific mark wins: exact \
over prefix, longer prefix over shorter.\n\nExamples:\n  mcpick pin --demo file:///project/README.md\n  \
mcpick pin --demo 'file:///project/docs/*'\n  mcpick pin --server github --allow-missing 'repo://x/*'"
    )]
    Pin(context::MarkArgs),
    /// Exclude resources (never handed to the agent): `URI` or `PREFIX*`.
    Exclude(context::MarkArgs),
    /// Remove marks: `URI` or `PREFIX*`, as `mcpick marks` shows them.
    Unmark(context::UnmarkArgs),
    /// Show the marks and the policy of a context set (--check: report missing resources).
    Marks(context::MarksArgs),
    /// Show or change the policy of a context set: audience, minimum priority, budget,
    /// tokenizer.
    Policy(context::PolicyArgs),
    /// Print what an agent would be handed: the resources in order with their contents and
    /// token counts, the cut line, and what was left out and why.
    #[command(
        after_help = "Token counts come from a real tokenizer (o200k_base by default) and are estimates of the \
host model's tokenizer.\n\nExamples:\n  mcpick preview --demo --budget 4000\n  mcpick preview --set team.context.json --format json -o context.json"
    )]
    Preview(context::PreviewArgs),
    /// Serve the context set as an MCP server (stdio, or Streamable HTTP with --http) that
    /// publishes only the set: as resources in the agent's order, as the prompt `context` and
    /// as the read-only tool `context`. Changes to the set file reach connected hosts.
    #[command(
        after_help = "Hosts connect to it like to any MCP server; `mcpick install HOST` writes the entry into a host's config file.\n\nExamples:\n  mcpick serve --set mcpick.context.json\n  mcpick serve --demo --expose allowed\n  mcpick serve --http 127.0.0.1:8765"
    )]
    Serve(context::ServeArgs),
    /// Write an entry that runs `mcpick serve --set …` into a host's config file (keeping
    /// every other entry, field and comment), or show with --list where mcpick is installed.
    #[command(
        after_help = "Hosts: claude-code, claude-desktop, cursor, vscode, codex, gemini, opencode, copilot-cli, qwen-code, kilo, cline, pi, windsurf, zed. \
A project entry (the default where the host has a project file) runs `mcpick` from PATH with the set \
relative to the project, so it can be committed; a user entry runs this binary with the set's absolute \
path. The file as it was is kept as NAME.mcpick-backup before install first changes it. By default the \
set is also delivered into the model's context at every session start (every host but Claude Desktop and Zed; \
VS Code, Cursor and Windsurf from their docs, not measured; --deliver on-demand to skip).\n\nExamples:\n  \
mcpick install claude-code\n  mcpick install vscode --dry-run\n  mcpick install codex --scope user --set team.context.json\n  mcpick install --list"
    )]
    Install(handoff::InstallArgs),
    /// Put mcpick in front of a server a host already uses: the host's entry NAME runs
    /// mcpick, which starts (or, over HTTP, connects to) the original and passes everything
    /// through but the resources the set leaves out.
    #[command(
        after_help = "The entry keeps its name (the host's tool names do not change); the original is kept in \
FILE.mcpick-wrap.json next to the host's file, and `mcpick unwrap HOST NAME` puts it back byte for byte. \
Marks on server NAME in the set (--set, default ./mcpick.context.json) decide; resources/list shows \
what the set allows (not excluded, passing the audience and minimum-priority policy).\n\nExamples:\n  \
mcpick wrap claude-code docs\n  mcpick exclude --server docs 'docs://archive/*'\n  mcpick unwrap claude-code docs"
    )]
    Wrap(handoff::WrapArgs),
    /// Undo `mcpick wrap`: the host's entry NAME back as it was, byte for byte.
    Unwrap(handoff::UnwrapArgs),
    /// The proxy a wrapped entry runs (see `mcpick wrap`).
    #[command(hide = true)]
    WrapServe(handoff::WrapServeArgs),
    /// Remove the entry `mcpick install` wrote from a host's config file (only an entry
    /// mcpick wrote), and every piece of its session-start delivery.
    Uninstall(handoff::UninstallArgs),
    /// Write the set's session-start deliveries (set up by `mcpick install`) again now, from
    /// the set file and the servers' contents as they are.
    #[command(
        after_help = "Changes of the set (pin, exclude, unmark, policy, the browser) and `mcpick serve` do this by themselves.\n\nExamples:\n  mcpick deliver\n  mcpick deliver --set team.context.json"
    )]
    Deliver(handoff::DeliverArgs),
    /// Run by a host's per-turn hook (`mcpick install` writes it): hands the model what changed
    /// in the set since its last turn, and nothing when nothing did.
    #[command(
        after_help = "Reads the hook's JSON on stdin (its session id and event) and answers on stdout in the host's format. Reads no server: the set as delivered last is kept current by the mark commands, the browser and `mcpick serve`. A failure says nothing to the model and is logged (`mcpick install --list` names the log).\n\nExample (what install writes into .claude/settings.json):\n  mcpick turn claude-code --set .mcpick/context.json"
    )]
    Turn(handoff::TurnArgs),
    /// Print the bundle an agent would be handed (the included resources with their contents,
    /// in order, under the budget) without preview's diagnostics; or copy it to the clipboard,
    /// or print it as @server:uri mentions.
    #[command(
        after_help = "Examples:\n  mcpick export --demo\n  mcpick export --format xml -o context.xml\n  mcpick export --clipboard\n  mcpick export --mentions"
    )]
    Export(handoff::ExportArgs),
    /// Audit each server's resources against the MCP specification: one verdict per rule
    /// (pass, warn, fail, or skipped and why), with the request and the offending answer.
    #[command(
        after_help = "A rule the specification words as MUST fails when broken, a SHOULD warns; \
the level of each rule is in the table and in --json.\n\nRules (ids are stable; README lists what each checks): capability, \
capability.subscribe, pagination.terminates, pagination.invalid-cursor, stable.connections, \
stable.after-reads, not-found, read.matches-list, read.mime, read.size, annotations, names-uris, \
templates.syntax, templates.completion, traversal, caching.\n\nThe checks send reads of URIs \
no server lists (random paths, traversal attempts such as file:///project/../../etc/passwd) and \
connect a second time. Evidence is cleaned of escape sequences.\n\nExit status: 0 no rule failed \
(warnings allowed), 1 a rule failed or a server could not be checked, 2 usage error.\n\nExamples:\n  \
mcpick check --demo\n  mcpick check --json -- npx -y @modelcontextprotocol/server-everything\n  \
mcpick check --sample 200 --server docs"
    )]
    Check(check::CheckArgs),
    /// Record what the agent is handed now (the included resources in order with tokens and a
    /// SHA-256 of their contents, and what is left out and why) in the set's lock file.
    #[command(
        after_help = "The lock is NAME.lock.json beside the set NAME.json (mcpick.context.lock.json \
for the default set), written atomically as pretty JSON in a stable order, for committing next to \
the set. `mcpick diff` compares against it.\n\nExit status: 0 written, 1 a server failed (nothing \
written), 2 usage error.\n\nExamples:\n  mcpick lock\n  mcpick lock --set team.context.json"
    )]
    Lock(check::LockArgs),
    /// Resolve the set again and report how what the agent is handed differs from the lock:
    /// added, removed, moved, contents changed (with the token change), crossed the cut line.
    #[command(
        after_help = "Exit status: 0 nothing changed, 1 drift (the agent's context changed since \
the lock was written), 2 usage error, a missing or unreadable lock, or a server that could not \
be listed (drift cannot be told).\n\nExamples:\n  mcpick diff\n  mcpick diff --json --lock \
review/mcpick.context.lock.json"
    )]
    Diff(check::DiffArgs),
    /// Show the servers this project's own files define (.mcp.json, .vscode/mcp.json,
    /// .cursor/mcp.json, .zed/settings.json, mcpick.toml, …, and the context set) with what
    /// each runs, whole, and ask whether mcpick may start them.
    #[command(
        after_help = "A cloned repository can name any command in those files, so mcpick starts such a server (or connects to such a URL) only once you approved it here, as the hosts that own the files do. A server you give yourself needs no approval: on the command line (-- COMMAND, --url, --demo), in your own config outside the project, or in a --config file you name; one you record in a set with `mcpick pin … -- COMMAND` or the browser is approved for that set as it is recorded.

Approvals are kept for you only, in trust.json in the user data directory (owner-only), per project and per exact server: the command, its arguments, working directory and environment (or the URL and headers) after ${VAR} expansion. A changed server is asked about again.

An approval covers the command line, and the project files it names: a script given as the command or an argument (python3 srv.py, node ./srv.js) or a module (python3 -m srvmod) is pinned by its SHA-256 when you approve, so a `git pull` that changes it holds the server back again, saying which file changed. It does not cover what those files load in turn: imports, node_modules, the package `npx pkg` fetches or prefers from the project's node_modules, files a script reads. Until approved, `ls`, `preview`, `export`, `lock`, `marks --check`, `serve` and the browser leave it out and say so.

Exit status: 0 approved (or nothing to approve), 1 declined or the approvals could not be saved, 2 usage error (no terminal to ask on: use --yes).

Examples:
  mcpick trust
  mcpick trust --yes
  mcpick trust --set team.context.json
  mcpick trust --list
  mcpick trust --revoke"
    )]
    Trust(TrustArgs),
    /// Print a completion script for a shell; it completes subcommands, flags, host names,
    /// defined server names (`--server`) and context-set files (`--set`).
    #[command(
        after_help = "The script asks mcpick for each completion, so it stays true as servers are defined and \
after an upgrade; load it at shell start:\n  bash:       echo 'source <(mcpick completions bash)' >> ~/.bashrc\n  \
zsh:        echo 'source <(mcpick completions zsh)' >> ~/.zshrc\n  \
fish:       echo 'mcpick completions fish | source' > ~/.config/fish/completions/mcpick.fish\n  \
powershell: add `mcpick completions powershell | Out-String | Invoke-Expression` to $PROFILE\n  \
elvish:     echo 'eval (mcpick completions elvish | slurp)' >> ~/.config/elvish/rc.elv"
    )]
    Completions(CompletionsArgs),
    /// Print mcpick's manual page (roff): every command and flag on one page.
    #[command(
        after_help = "Examples:\n  mcpick man | man -l -\n  mcpick man > ~/.local/share/man/man1/mcpick.1"
    )]
    Man,
}

impl Command {
    /// The server flags of a command that connects to servers (for `--quiet`).
    pub fn server_args(&self) -> Option<&ServerArgs> {
        match self {
            Command::Ls(a) => Some(&a.servers),
            Command::Read(a) => Some(&a.servers),
            Command::Watch(a) => Some(&a.servers),
            Command::Pin(a) | Command::Exclude(a) => Some(&a.servers),
            Command::Marks(a) => Some(&a.servers),
            Command::Preview(a) => Some(&a.servers),
            Command::Serve(a) => Some(&a.servers),
            Command::Export(a) => Some(&a.servers),
            Command::Check(a) => Some(&a.servers),
            Command::Lock(a) => Some(&a.servers),
            Command::Diff(a) => Some(&a.servers),
            Command::Deliver(a) => Some(&a.servers),
            Command::Servers(_)
            | Command::Login(_)
            | Command::Logout(_)
            | Command::DemoServer(_)
            | Command::Unmark(_)
            | Command::Policy(_)
            | Command::Install(_)
            | Command::Wrap(_)
            | Command::Unwrap(_)
            | Command::WrapServe(_)
            | Command::Uninstall(_)
            | Command::Completions(_)
            | Command::Trust(_)
            | Command::Turn(_)
            | Command::Man => None,
        }
    }
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// The host applications whose config files mcpick reads, from their dialects (so `--help`
/// names every one): "Claude Code, Claude Desktop, … and Zed".
fn host_names() -> String {
    let names: Vec<&str> = Host::ALL
        .iter()
        .filter(|h| h.dialect().mcp)
        .map(|h| h.dialect().host_name)
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

fn long_about() -> String {
    format!(
        "mcpick connects to MCP (Model Context Protocol) servers and shows the resources \
they publish, annotations and all; you pin and exclude resources and preview what an agent \
would be handed under a token budget.\n\nWith no command, mcpick opens the interactive browser \
(press ? in it for the keys); the commands below do the same work headless.\n\nWith no server \
given it uses every server defined in mcpick's config and in the config files of {} (see \
`mcpick servers`), or its built-in demo server when there are none, so `mcpick ls` works with \
no setup. Pick defined servers with `--server NAME`, or give one ad hoc with `--url URL` \
(Streamable HTTP, or the legacy HTTP+SSE transport, detected) or with `-- COMMAND ARGS…` (a \
stdio server).",
        host_names()
    )
}

/// `mcpick servers --help`: every source, from the same dialects `mcpick servers` reads.
fn servers_help() -> String {
    let project: Vec<String> = std::iter::once("./mcpick.toml".to_string())
        .chain(
            Host::ALL
                .iter()
                .filter_map(|h| h.dialect().project_file)
                .map(|f| format!("./{f}")),
        )
        .collect();
    format!(
        "Sources, highest precedence first: --config FILE; the project ({}); mcpick's user \
config (config.toml in the user config directory); the user files of {} (Claude Code's \
~/.claude.json: this project's section first, then its top level). A name defined twice is \
taken from the first source and the other definitions are shown as shadowed.\n\nSecrets are \
never printed: env and header values show their placeholder as written (${{API_TOKEN}}) or a \
masked value.\n\nExit status: 0 ok, 1 a definition or a file has an error.",
        project.join(", "),
        host_names()
    )
}

/// Which servers to talk to. With none given, every defined server (see `mcpick servers`); the
/// built-in demo server only with --demo or on a first run (no server defined, no set file).
#[derive(Debug, Args, Clone, Default)]
pub struct ServerArgs {
    /// A server defined in a config file, by name (repeatable; see `mcpick servers`).
    #[arg(short = 's', long = "server", value_name = "NAME", add = complete::servers())]
    pub servers: Vec<String>,

    /// Use the built-in demo server (besides any other server given).
    #[arg(long)]
    pub demo: bool,

    /// An MCP server over HTTP: Streamable HTTP, falling back to legacy HTTP+SSE.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// Use only the legacy HTTP+SSE transport for --url (skip Streamable HTTP).
    #[arg(long, requires = "url")]
    pub sse: bool,

    /// An HTTP header sent with every request to --url, e.g. 'Authorization: Bearer TOKEN'.
    #[arg(short = 'H', long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,

    /// The name to show for the ad-hoc server (default: derived from the command or URL).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,

    /// Seconds to wait for connecting and for each request: a positive number, at most
    /// 86400 (one day).
    #[arg(long, value_name = "SECS", default_value_t = 30.0, value_parser = parse_timeout,
          allow_hyphen_values = true)]
    pub timeout: f64,

    /// The largest reply accepted from a server, in MiB, on every transport; a larger one
    /// fails its request at once ("reply larger than N MiB").
    #[arg(long, value_name = "MIB", default_value_t = crate::mcp::limit::DEFAULT_MAX_MESSAGE_MIB,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_message_mib: u32,

    /// A stdio server: the command and its arguments, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,

    /// No progress line on stderr (it is only drawn when stderr is a terminal); errors and
    /// warnings are still printed.
    #[arg(short = 'q', long)]
    pub quiet: bool,

    #[command(flatten)]
    pub config: ConfigArgs,
}

/// Where server definitions come from, besides the files mcpick finds by itself.
#[derive(Debug, Args, Clone, Default)]
pub struct ConfigArgs {
    /// A config file read before every other source (mcpick TOML, or JSON with `mcpServers`
    /// or `servers` when the name ends in .json).
    #[arg(long = "config", value_name = "FILE")]
    pub file: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct LoginArgs {
    /// The server, by name (see `mcpick servers`).
    #[arg(
        value_name = "NAME",
        required_unless_present = "url",
        conflicts_with = "url",
        add = complete::servers()
    )]
    pub name: Option<String>,

    /// An HTTP server not in any config file.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    /// A client ID registered with the authorization server beforehand, for servers without
    /// dynamic client registration.
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,

    /// A scope to ask for (repeatable); default: what the server asks for.
    #[arg(long = "scope", value_name = "SCOPE")]
    pub scopes: Vec<String>,

    /// Seconds to wait for the browser to come back.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub wait: u64,

    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct LogoutArgs {
    /// The server, by name (see `mcpick servers`).
    #[arg(
        value_name = "NAME",
        required_unless_present = "url",
        conflicts_with = "url",
        add = complete::servers()
    )]
    pub name: Option<String>,

    /// An HTTP server not in any config file.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,

    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Debug, Args)]
pub struct ServersArgs {
    /// Print one JSON document instead of a table.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub config: ConfigArgs,
}

/// The longest `--timeout`: one day.
pub const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// `--timeout`: a positive, finite number of seconds up to [`MAX_TIMEOUT_SECS`]; anything
/// else (`nan`, `0`, `-1`, `inf`, `1e20`) is a usage error.
pub fn parse_timeout(s: &str) -> Result<f64, String> {
    let secs: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if secs.is_finite() && secs > 0.0 && secs <= MAX_TIMEOUT_SECS {
        Ok(secs)
    } else {
        Err(format!(
            "`{s}` is not a usable timeout: give a positive number of seconds, at most {MAX_TIMEOUT_SECS} (one day)"
        ))
    }
}

impl ServerArgs {
    /// The validated `--timeout`; 30 s for arguments built in code without one.
    pub fn timeout(&self) -> Duration {
        match parse_timeout(&self.timeout.to_string()) {
            Ok(secs) => Duration::from_secs_f64(secs),
            Err(_) => Duration::from_secs(30),
        }
    }

    /// The server flags as [`crate::config::select`] takes them.
    pub fn choice(&self) -> crate::config::select::ServerChoice {
        crate::config::select::ServerChoice {
            servers: self.servers.clone(),
            demo: self.demo,
            url: self.url.clone(),
            sse: self.sse,
            headers: self.headers.clone(),
            name: self.name.clone(),
            command: self.command.clone(),
            config_file: self.config.file.clone(),
        }
    }

    /// Connection settings from these flags.
    pub fn connect_options(&self) -> crate::mcp::ConnectOptions {
        crate::mcp::ConnectOptions {
            timeout: self.timeout(),
            // 0 only comes from `ServerArgs::default()` (clap refuses it): the default.
            max_message: match self.max_message_mib {
                0 => crate::mcp::MessageLimit::default(),
                mib => crate::mcp::MessageLimit::from_mib(mib),
            },
            ..Default::default()
        }
    }
}

#[derive(Debug, Args)]
pub struct LsArgs {
    /// Print one JSON document (servers, resources, templates) instead of a table.
    #[arg(long)]
    pub json: bool,

    /// Also list resource templates.
    #[arg(long)]
    pub templates: bool,

    /// Stop listing a server after this many resources (a notice says so).
    #[arg(long, value_name = "N", default_value_t = crate::mcp::list::DEFAULT_CAP)]
    pub cap: usize,

    /// Print the URI tree (servers, then scheme://authority and path segments) instead of a
    /// table; chains of single-child folders are shown as one line.
    #[arg(long, conflicts_with = "json")]
    pub tree: bool,

    /// Order the resources (default: as the servers listed them; with --filter: best match
    /// first). Ties keep the servers' order.
    #[arg(long, value_enum, value_name = "KEY")]
    pub sort: Option<crate::catalog::SortKey>,

    /// Keep only resources matching this fuzzy query (over title, name, URI, description;
    /// smart case; fzf syntax: 'exact ^prefix suffix$ !not), the same search as the TUI's.
    #[arg(long, value_name = "QUERY")]
    pub filter: Option<String>,

    #[command(flatten)]
    pub servers: ServerArgs,
}

impl Default for LsArgs {
    fn default() -> Self {
        Self {
            json: false,
            templates: false,
            cap: crate::mcp::list::DEFAULT_CAP,
            tree: false,
            sort: None,
            filter: None,
            servers: ServerArgs::default(),
        }
    }
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Print one JSON object per line (JSON Lines): `{"server", "event", …}` with event
    /// `listed`, `watching`, `added`, `removed`, `updated`, `unavailable` (an HTTP server
    /// that went away, tried again), `back`, `closed`, `failed` or `error`.
    #[arg(long)]
    pub json: bool,

    /// Subscribe to updates of this resource only (repeatable). Without it, every listed
    /// resource is subscribed (up to --max-subscriptions per server), newcomers included.
    #[arg(long = "uri", value_name = "URI")]
    pub uris: Vec<String>,

    /// The most resources subscribed per server when no --uri is given.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_subscriptions: usize,

    #[command(flatten)]
    pub servers: ServerArgs,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// The resource URI, exactly as the server lists it.
    pub uri: String,

    /// Print the protocol's `contents` array as JSON.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub servers: ServerArgs,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeout_must_be_positive_finite_and_at_most_a_day() {
        for bad in [
            "nan", "NaN", "0", "-1", "inf", "-inf", "1e20", "86401", "abc", "",
        ] {
            let error = parse_timeout(bad).expect_err(bad);
            assert!(error.contains(bad), "{error}");
        }
        assert_eq!(parse_timeout("0.5"), Ok(0.5));
        assert_eq!(parse_timeout("86400"), Ok(86_400.0));
        assert_eq!(parse_timeout("30"), Ok(30.0));
    }

    #[test]
    fn timeout_flag_is_a_usage_error() {
        use clap::Parser;
        for bad in ["nan", "0", "inf", "-1", "1e20"] {
            let error =
                Cli::try_parse_from(["mcpick", "ls", "--timeout", bad, "--demo"]).expect_err(bad);
            assert_eq!(error.exit_code(), 2, "{bad}");
            // Our message, not clap's "unexpected argument" for `-1`.
            assert!(
                error.to_string().contains("positive number of seconds"),
                "{error}"
            );
        }
        let cli = Cli::try_parse_from(["mcpick", "ls", "--timeout", "0.5", "--demo"]).unwrap();
        let Some(Command::Ls(ls)) = cli.command else {
            panic!("not ls")
        };
        assert_eq!(ls.servers.timeout(), Duration::from_millis(500));
        assert_eq!(ServerArgs::default().timeout(), Duration::from_secs(30));
    }
}
