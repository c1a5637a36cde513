//! The audit commands' arguments: `check` (a server against the specification), `lock` and
//! `diff` (what the agent is handed, recorded and compared).

use std::path::PathBuf;

use clap::Args;

use super::ServerArgs;
use super::context::SetArgs;

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Print one JSON document (every server, every rule, its verdict and evidence).
    #[arg(long)]
    pub json: bool,

    /// Read at most N listed resources for the read rules (spread over the whole list).
    #[arg(long, value_name = "N", default_value_t = 50)]
    pub sample: usize,

    /// Also list each HTTP server under this credential (a header added to its definition's;
    /// repeatable, one credential each) and show how its catalogue differs from the one
    /// listed without it. Information, not a verdict: a catalogue may vary by authorization.
    #[arg(long = "as", value_name = "NAME: VALUE", value_parser = crate::mcp::spec::parse_header)]
    pub credentials: Vec<(String, String)>,

    #[command(flatten)]
    pub servers: ServerArgs,
}

#[derive(Debug, Args)]
pub struct LockArgs {
    /// Reads at once while counting tokens.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,

    #[command(flatten)]
    pub set: SetArgs,

    #[command(flatten)]
    pub servers: ServerArgs,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The lock to compare with [default: the set's, NAME.lock.json beside NAME.json].
    #[arg(long, value_name = "FILE")]
    pub lock: Option<PathBuf>,

    /// Print the changes as one JSON document.
    #[arg(long)]
    pub json: bool,

    /// Reads at once while counting tokens.
    #[arg(long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,

    #[command(flatten)]
    pub set: SetArgs,

    #[command(flatten)]
    pub servers: ServerArgs,
}
