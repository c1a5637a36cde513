//! Kilo CLI (an opencode fork): measured with 7.7.7 against its real model requests
//! (`tests/delivery.rs`, `tests/skills.rs`; `docs/hand-off.md`). opencode's profile with
//! Kilo's names: no per-turn hook, it reads its instructions files again before every model
//! call.

use crate::handoff::profile::{
    Channel, Known, Measure, MidSession, Profile, Reached, Scopes, SkillsFolder, in_home,
};
use crate::hosts::{Host, Scope, kilo};

const MEASURED: Known = Known::Measured("Kilo CLI 7.7.7");

pub static PROFILE: Profile = Profile {
    host: Host::Kilo,
    entry: &kilo::DIALECT,
    entry_known: MEASURED,
    program: Some("kilo"),
    entry_note: None,
    start: Some(&CHANNEL),
    per_turn: None,
    hooks: None,
    mention: None,
    skills: Some(&SKILLS),
    // It reads the first of AGENTS.md, CLAUDE.md and CONTEXT.md without following imports: a
    // Claude Code delivery gives it two lines, not the set.
    reads_also: &[],
};

/// The files its config's `instructions` lists, verbatim, after the user's `AGENTS.md` and
/// `.kilo/rules/*.md` (600 KB seen whole); no imports.
pub const CHANNEL: Channel = Channel {
    host: Host::Kilo,
    what: "a file in Kilo's `instructions`",
    limit: None,
    limit_words: "",
    measure: Measure::Bytes,
    wrapper_tags: &["Instructions from: "],
    wrap: super::opencode::instructions_from,
    tool_limit: None,
    lists_prompts: true,
    warns_over: None,
    every_call: true,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Listed("instructions"),
};

/// `.agents/skills/NAME/SKILL.md` (user: `~/.agents/skills`), listed by description, bodies
/// on demand. It reads `.kilo/skills` too, but writes a `.gitignore` of its own into any
/// `.kilo/` folder it finds, which would outlive an uninstall. It reads Claude Code's folders
/// too.
pub const SKILLS: SkillsFolder = SkillsFolder {
    host: Host::Kilo,
    project: ".agents/skills",
    user: |p| in_home(p, ".agents/skills"),
    reads_also: &[
        (Host::ClaudeCode, Scope::Project),
        (Host::ClaudeCode, Scope::User),
    ],
    known: MEASURED,
    mid_session: MidSession::NewSession,
    names_only: false,
};
