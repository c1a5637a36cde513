//! Claude Desktop: its entry, from its docs; no channel mcpick can write (the set reaches its model on
//! demand).

use crate::handoff::profile::{Known, Profile};
use crate::hosts::{Host, claude_desktop};

pub static PROFILE: Profile = Profile {
    host: Host::ClaudeDesktop,
    entry: &claude_desktop::DIALECT,
    entry_known: Known::FromDocs,
    program: None,
    entry_note: None,
    start: None,
    per_turn: None,
    hooks: None,
    mention: None,
    skills: None,
    reads_also: &[],
};
