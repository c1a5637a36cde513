//! Windsurf: from its docs (it cannot run here).

use crate::handoff::profile::{
    Channel, Known, Measure, Profile, Reached, RulesFile, Scopes, as_is,
};
use crate::hosts::{Host, windsurf};

pub static PROFILE: Profile = Profile {
    host: Host::Windsurf,
    entry: &windsurf::DIALECT,
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

/// Windsurf's limit per rule file, in characters (its docs).
pub const RULE_LIMIT: usize = 12_000;

/// A workspace rule `.windsurf/rules/*.md` with `trigger: always_on` is in Cascade's context
/// on every request, up to 12,000 characters per file. Its entry is user-wide only
/// (`mcp_config.json`) and its rules are the workspace's: always the project's file.
pub const CHANNEL: Channel = Channel {
    host: Host::Windsurf,
    what: "a `.windsurf/rules/*.md` rule",
    limit: Some(RULE_LIMIT),
    limit_words: "Windsurf's 12,000-character limit per rule file (from its docs)",
    measure: Measure::Chars,
    wrapper_tags: &[],
    wrap: as_is,
    tool_limit: None,
    lists_prompts: true,
    warns_over: None,
    every_call: false,
    tells_of_changes: false,
    known: Known::FromDocs,
    scopes: Scopes::Project,
    reached: Reached::Rules(RulesFile {
        folder: ".windsurf/rules",
        read_instead: None,
        extension: "md",
        front_matter: "---\ntrigger: always_on\n---\n",
    }),
};
