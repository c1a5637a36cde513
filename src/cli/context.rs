//! The context-set commands' arguments: `pin`, `exclude`, `unmark`, `marks`, `policy`,
//! `preview` and `serve`, with their value parsers.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Args;

use super::ServerArgs;
use crate::context::{Audience, Budget, DEFAULT_FILE, Policy, TokenizerKind};
use crate::export::Format;
use crate::serve::Expose;

/// `--set FILE`, shared by every context-set command.
#[derive(Debug, Args, Clone)]
pub struct SetArgs {
    /// The context-set file (created on the first change).
    #[arg(long = "set", value_name = "FILE", default_value = DEFAULT_FILE,
          add = super::complete::set_files())]
    pub path: PathBuf,
}

#[derive(Debug, Args)]
pub struct MarkArgs {
    /// Resource URIs, exactly as listed, or `PREFIX*` for every resource under a prefix
    /// (now and later); `*` alone is the whole server.
    #[arg(required = true, value_name = "URI|PREFIX*")]
    pub targets: Vec<String>,

    /// Treat a trailing `*` as part of the URI, not as a prefix.
    #[arg(long)]
    pub exact: bool,

    /// Record an exact URI even when no server lists it now (it shows as missing). With
    /// `--server`, no server is contacted.
    #[arg(long)]
    pub allow_missing: bool,

    #[command(flatten)]
    pub set: SetArgs,

    #[command(flatten)]
    pub servers: ServerArgs,
}

#[derive(Debug, Args)]
pub struct UnmarkArgs {
    /// The marked URIs or `PREFIX*`es, as `mcpick marks` shows them.
    #[arg(required = true, value_name = "URI|PREFIX*")]
    pub targets: Vec<String>,

    /// Treat a trailing `*` as part of the URI, not as a prefix.
    #[arg(long)]
    pub exact: bool,

    /// Only on this server (repeatable); default: every server.
    #[arg(short = 's', long = "server", value_name = "NAME", add = super::complete::servers())]
    pub servers: Vec<String>,

    #[command(flatten)]
    pub set: SetArgs,
}

#[derive(Debug, Args)]
pub struct MarksArgs {
    /// Print one JSON document.
    #[arg(long)]
    pub json: bool,

    /// Connect to the servers and report marks that match no listed resource as missing.
    #[arg(long)]
    pub check: bool,

    #[command(flatten)]
    pub set: SetArgs,

    #[command(flatten)]
    pub servers: ServerArgs,
}

#[derive(Debug, Args)]
pub struct PolicyArgs {
    /// Which audience unmarked resources need (no `audience` annotation counts for both).
    #[arg(long, value_enum)]
    pub audience: Option<Audience>,

    /// Leave out unmarked resources below this priority (0.0–1.0; no priority counts as 0.5).
    #[arg(long, value_name = "P", value_parser = parse_priority, conflicts_with = "no_min_priority")]
    pub min_priority: Option<f32>,

    /// Remove the minimum priority.
    #[arg(long)]
    pub no_min_priority: bool,

    /// Token budget: a number of tokens (pinned resources first, then the rest ranked, up to
    /// that many), `all` for everything the servers publish, no limit, or `none` to unset it
    /// (the default: only pinned resources are handed over).
    #[arg(long, value_name = "TOKENS|all|none", value_parser = parse_budget, conflicts_with = "no_budget")]
    pub budget: Option<Budget>,

    /// Unset the budget: only pinned resources are handed over (the same as `--budget none`).
    #[arg(long)]
    pub no_budget: bool,

    /// Tokenizer for token counts (an estimate of the host model's).
    #[arg(long, value_enum)]
    pub tokenizer: Option<TokenizerKind>,

    /// Print the policy as JSON.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub set: SetArgs,
}

/// A `--budget` value, one meaning in `policy` and `preview`: tokens (0 included: zero
/// tokens besides the pins), `all` (no limit), or `none` (unset: pinned resources only).
pub fn parse_budget(s: &str) -> Result<Budget, String> {
    if s.eq_ignore_ascii_case("none") {
        return Ok(Budget::Unset);
    }
    if s.eq_ignore_ascii_case("all") {
        return Ok(Budget::All);
    }
    s.parse::<u64>().map(Budget::Tokens).map_err(|_| {
        format!("`{s}` is not a number of tokens (or `all` for no limit, `none` for pinned only)")
    })
}

pub fn parse_priority(s: &str) -> Result<f32, String> {
    let p: f32 = s.parse().map_err(|_| format!("`{s}` is not a number"))?;
    if (0.0..=1.0).contains(&p) {
        Ok(p)
    } else {
        Err(format!("{p} is not between 0 and 1"))
    }
}

/// The set's policy, changed for one run (`preview`, `export`).
#[derive(Debug, Args)]
pub struct RunPolicy {
    /// Token budget for this run (the set's policy otherwise): a number of tokens, `all` for
    /// no limit, or `none` for pinned resources only.
    #[arg(long, value_name = "TOKENS|all|none", value_parser = parse_budget)]
    pub budget: Option<Budget>,

    /// Audience filter for this run.
    #[arg(long, value_enum)]
    pub audience: Option<Audience>,

    /// Minimum priority for this run.
    #[arg(long, value_name = "P", value_parser = parse_priority)]
    pub min_priority: Option<f32>,

    /// Tokenizer for this run.
    #[arg(long, value_enum)]
    pub tokenizer: Option<TokenizerKind>,
}

impl RunPolicy {
    /// `policy` with this run's changes.
    pub fn apply(&self, mut policy: Policy) -> Policy {
        if let Some(b) = self.budget {
            policy.budget = b;
        }
        if let Some(a) = self.audience {
            policy.audience = a;
        }
        if let Some(m) = self.min_priority {
            policy.min_priority = Some(m);
        }
        if let Some(t) = self.tokenizer {
            policy.tokenizer = t;
        }
        policy
    }
}

#[derive(Debug, Args)]
pub struct PreviewArgs {
    #[command(flatten)]
    pub policy: RunPolicy,

    /// Output format.
    #[arg(long, value_enum, default_value = "markdown")]
    pub format: Format,

    /// Write to FILE (atomically) instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Show exactly what HOST's model receives at session start after `mcpick install HOST`:
    /// the host's wrapper around the text, and the cut its channel imposes (whole resources
    /// only, each one left out named with why). Claude Code, Gemini CLI and Codex.
    #[arg(long, value_enum, value_name = "HOST")]
    pub host: Option<crate::hosts::Host>,

    /// With --host: the entry's name the set is served as (`install --as`).
    #[arg(
        long = "as",
        value_name = "NAME",
        default_value = crate::handoff::DEFAULT_NAME,
        requires = "host"
    )]
    pub served_as: String,

    /// With --host: what the next turn of each running session of that host will be given
    /// (what changed in the set since that session's model last got it), in the host's
    /// wrapper, as its per-turn hook will hand it on. Reads no server.
    #[arg(long, requires = "host")]
    pub next_turn: bool,

    /// With --host: the scope of the installed entry (default: project).
    #[arg(long, value_enum, requires = "host")]
    pub scope: Option<crate::hosts::Scope>,

    /// Reads at once.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,

    #[command(flatten)]
    pub set: SetArgs,

    #[command(flatten)]
    pub servers: ServerArgs,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8765; port 0
    /// picks a free one, printed on stderr). Loopback unless --require-token-env is given.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,

    /// What to publish: the budgeted set the agent view shows (included), or everything not
    /// excluded or filtered, without the budget cut (allowed).
    #[arg(long, value_enum, default_value_t)]
    pub expose: Expose,

    /// Don't offer the `context` tool (the prompt and the resources stay).
    #[arg(long)]
    pub no_tool: bool,

    /// The server name hosts show.
    #[arg(long = "as", value_name = "NAME", default_value = crate::handoff::DEFAULT_NAME)]
    pub server_name: String,

    /// With --http on a non-loopback address: the environment variable holding the bearer
    /// token clients must send (`Authorization: Bearer …`).
    #[arg(long, value_name = "VAR", requires = "http")]
    pub require_token_env: Option<String>,

    /// Also write diagnostics to FILE (they always go to stderr; stdout carries the protocol).
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Reads at once while counting tokens.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,

    #[command(flatten)]
    pub set: SetArgs,

    #[command(flatten)]
    pub servers: ServerArgs,
}
