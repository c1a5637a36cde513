//! Cursor: from its docs (it cannot run here).

use super::vscode::IDE_LIMIT;
use crate::handoff::profile::{
    Channel, Known, Measure, Profile, Reached, RulesFile, Scopes, as_is,
};
use crate::hosts::{Host, cursor};

pub static PROFILE: Profile = Profile {
    host: Host::Cursor,
    entry: &cursor::DIALECT,
    entry_known: Known::FromDocs,
    program: None,
    entry_note: None,
    start: Some(&CHANNEL),
    per_turn: None,
    hooks: None,
    mention: None,
    skills: None,
    reads_also: &[],
};

/// A project rule `.cursor/rules/*.mdc` with `alwaysApply: true` is in the model's context on
/// every request.
pub const CHANNEL: Channel = Channel {
    host: Host::Cursor,
    what: "a `.cursor/rules/*.mdc` rule",
    limit: Some(IDE_LIMIT),
    limit_words: "256 KiB (Cursor's docs give no limit; the figure leaves room in a model's context, as for Copilot CLI)",
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
        folder: ".cursor/rules",
        read_instead: None,
        extension: "mdc",
        front_matter: "---\ndescription: The context set chosen with mcpick, delivered at session start\nalwaysApply: true\n---\n",
    }),
};
