//! The hand-off commands' arguments: `install`, `uninstall` and `export`.

use std::path::PathBuf;

use clap::Args;

use super::ServerArgs;
use super::context::{RunPolicy, SetArgs};
use crate::export::Format;
pub use crate::handoff::Deliver;
use crate::hosts::{Host, Scope};
use crate::serve::Expose;

#[derive(Debug, Args)]
pub struct InstallArgs {
    /// The host whose config file gets the entry.
    #[arg(value_enum, required_unless_present = "list")]
    pub host: Option<Host>,

    /// project: the project's file, committed and shared (the default where the host has
    /// one); user: the user's file, for every project.
    #[arg(long, value_enum)]
    pub scope: Option<Scope>,

    /// The entry's name in the host's file (also the server name the host shows).
    #[arg(
        long = "as",
        alias = "name",
        value_name = "NAME",
        default_value = crate::handoff::DEFAULT_NAME
    )]
    pub name: String,

    /// Print the change as a unified diff and change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Replace an entry of the same name that mcpick did not write.
    #[arg(long)]
    pub force: bool,

    /// Show, per host, the files found and the mcpick entries in them.
    #[arg(long, conflicts_with_all = ["host", "force", "dry_run"])]
    pub list: bool,

    /// live: put the set into the model's context at every session start (Claude Code: a
    /// CLAUDE.md import; Gemini CLI: a GEMINI.md import; Codex: AGENTS.override.md) and hand
    /// every change on the session's next turn through the host's per-turn hooks, written into
    /// its own settings (Claude Code: .claude/settings.json; Gemini CLI: .gemini/settings.json;
    /// Codex: .codex/hooks.json); start: session start only; on-demand: only the served entry
    /// (mentions, the `context` prompt and tool). A host without per-turn hooks gets start,
    /// one without a session-start channel on-demand.
    #[arg(long, value_enum, default_value_t)]
    pub deliver: Deliver,

    #[command(flatten)]
    pub set: SetArgs,
}

/// `mcpick deliver`: write the set's session-start deliveries again now.
#[derive(Debug, Args)]
pub struct DeliverArgs {
    /// Reads at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,

    #[command(flatten)]
    pub set: SetArgs,

    /// With --quiet, nothing is said on success either.
    #[command(flatten)]
    pub servers: ServerArgs,
}

#[derive(Debug, Args)]
pub struct UninstallArgs {
    /// The host whose config file holds the entry.
    #[arg(value_enum)]
    pub host: Host,

    #[arg(long, value_enum)]
    pub scope: Option<Scope>,

    /// The entry's name.
    #[arg(
        long = "as",
        alias = "name",
        value_name = "NAME",
        default_value = crate::handoff::DEFAULT_NAME
    )]
    pub name: String,

    /// Print the change as a unified diff and change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// The set whose session-start delivery goes too.
    #[command(flatten)]
    pub set: SetArgs,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format of the bundle.
    #[arg(long, value_enum, default_value = "markdown")]
    pub format: Format,

    /// Write to FILE (atomically) instead of stdout.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        conflicts_with = "clipboard"
    )]
    pub output: Option<PathBuf>,

    /// Put it on the clipboard through the terminal (OSC 52; works over SSH); stdout must be
    /// a terminal.
    #[arg(long)]
    pub clipboard: bool,

    /// Print the included resources as `@NAME:uri` mentions instead of the bundle, NAME being
    /// the served entry's name the host knows after `mcpick install` (see --as).
    #[arg(long)]
    pub mentions: bool,

    /// With --mentions: the name the set is served as (`mcpick install --as`).
    #[arg(
        long = "as",
        value_name = "NAME",
        default_value = crate::handoff::DEFAULT_NAME,
        requires = "mentions"
    )]
    pub served_as: String,

    #[command(flatten)]
    pub policy: RunPolicy,

    /// Reads at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,

    #[command(flatten)]
    pub set: SetArgs,

    #[command(flatten)]
    pub servers: ServerArgs,
}

#[derive(Debug, Args)]
pub struct WrapArgs {
    /// The host whose config file has the entry.
    #[arg(value_enum)]
    pub host: Host,

    /// The entry to put mcpick in front of (the server name the host shows; it stays).
    pub name: String,

    /// project: the project's file (the default where the host has one); user: the user's.
    #[arg(long, value_enum)]
    pub scope: Option<Scope>,

    /// Print the change as a unified diff and change nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// The set whose marks (on server NAME) and policy filter the server's resources.
    #[command(flatten)]
    pub set: SetArgs,

    /// What the host is given of the server's resources: everything not excluded or
    /// filtered (allowed), or only what the set includes under its budget, ranked with
    /// counts estimated from sizes (included).
    #[arg(long, value_enum, default_value_t = Expose::Allowed)]
    pub expose: Expose,
}

#[derive(Debug, Args)]
pub struct UnwrapArgs {
    /// The host whose config file has the wrapped entry.
    #[arg(value_enum)]
    pub host: Host,

    /// The wrapped entry.
    pub name: String,

    #[arg(long, value_enum)]
    pub scope: Option<Scope>,

    /// Print the change as a unified diff and change nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// What a wrapped entry runs (written by `mcpick wrap`, not for people).
#[derive(Debug, Args)]
pub struct WrapServeArgs {
    /// The side record holding the original entry.
    #[arg(long, value_name = "FILE")]
    pub record: PathBuf,

    /// The entry's name: the server the set's marks refer to.
    #[arg(long)]
    pub name: String,

    #[command(flatten)]
    pub set: SetArgs,

    /// As `mcpick wrap --expose`.
    #[arg(long, value_enum, default_value_t = Expose::Allowed)]
    pub expose: Expose,
}

/// `mcpick turn HOST`: what a host's per-turn hook runs (written by `mcpick install`).
#[derive(Debug, Args)]
pub struct TurnArgs {
    /// The host whose hook runs this (its hook's input arrives on stdin, as JSON).
    #[arg(value_enum)]
    pub host: Host,

    /// The served entry's name (`install --as`).
    #[arg(long = "as", value_name = "NAME", default_value = crate::handoff::DEFAULT_NAME)]
    pub name: String,

    #[command(flatten)]
    pub set: SetArgs,
}
