//! `mcpick trust`'s arguments.

use clap::Args;

use super::context::SetArgs;

#[derive(Debug, Args)]
pub struct TrustArgs {
    /// Approve without asking (for scripts): every server shown is started from now on.
    #[arg(long, short = 'y', conflicts_with_all = ["list", "revoke"])]
    pub yes: bool,

    /// List every approval this user gave, in every project, and change nothing.
    #[arg(long, conflicts_with = "revoke")]
    pub list: bool,

    /// Review the skills held back in this project (a skill whose SKILL.md frontmatter can
    /// make a host act, such as `hooks` or `allowed-tools`, or whose files changed on the
    /// server since you accepted it) and accept them at the version shown.
    #[arg(long, conflicts_with_all = ["list", "revoke"])]
    pub skills: bool,

    /// Forget this project's approvals: its servers are asked about again.
    #[arg(long)]
    pub revoke: bool,

    #[command(flatten)]
    pub set: SetArgs,
}
