//! VS Code: from its docs (it cannot run here); Copilot CLI reads its rules file too, and
//! that reading is measured.

use super::copilot_cli;
use crate::handoff::profile::{
    Channel, Known, Measure, Profile, Reached, RulesFile, Scopes, as_is,
};
use crate::hosts::{Host, vscode};

pub static PROFILE: Profile = Profile {
    host: Host::VsCode,
    entry: &vscode::DIALECT,
    entry_known: Known::FromDocs,
    program: None,
    entry_note: None,
    start: Some(&CHANNEL),
    per_turn: None,
    hooks: None,
    mention: None,
    skills: None,
    // It reads `CLAUDE.md` without its `@` imports: a Claude Code delivery gives it two
    // lines, not the set.
    reads_also: &[],
};

/// What the IDE channels without a documented size limit take: their docs state none, and a
/// model's context is the limit that remains. The figure is Copilot CLI's, the one host of
/// this kind measured: room for the host's own prompt, tools and the conversation.
pub const IDE_LIMIT: usize = copilot_cli::LIMIT;

/// Every `.github/instructions/*.instructions.md` whose `applyTo` matches goes into the chat's
/// requests; `applyTo: "**"` matches every request. Copilot CLI reads these files too, raw,
/// front matter included (measured), which is why the file stays under Copilot CLI's limit.
pub const CHANNEL: Channel = Channel {
    host: Host::VsCode,
    what: "a `.github/instructions/*.instructions.md` file",
    limit: Some(IDE_LIMIT),
    limit_words: "256 KiB (VS Code's docs give no limit; Copilot CLI reads this file too, and past ~400 KB of instructions it sends its model nothing)",
    measure: Measure::Bytes,
    wrapper_tags: &[],
    wrap: as_is,
    tool_limit: None,
    lists_prompts: true,
    warns_over: None,
    every_call: false,
    tells_of_changes: false,
    known: Known::FromDocs,
    scopes: Scopes::ProjectOnly,
    reached: Reached::Rules(RulesFile {
        folder: ".github/instructions",
        read_instead: None,
        extension: "instructions.md",
        front_matter: "---\napplyTo: \"**\"\n---\n",
    }),
};
