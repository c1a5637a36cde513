//! opencode: measured with 1.18.33 against its real model requests (`tests/delivery.rs`,
//! `tests/skills.rs`; `docs/hand-off.md`). No per-turn hook: it reads its instructions files
//! again before every model call.

use crate::handoff::profile::{
    Channel, Known, Measure, MidSession, Profile, Reached, Scopes, SkillsFolder,
};
use crate::hosts::{Host, Scope, opencode};

const MEASURED: Known = Known::Measured("opencode 1.18.33");

pub static PROFILE: Profile = Profile {
    host: Host::OpenCode,
    entry: &opencode::DIALECT,
    entry_known: MEASURED,
    program: Some("opencode"),
    entry_note: None,
    start: Some(&CHANNEL),
    per_turn: None,
    hooks: None,
    mention: None,
    skills: Some(&SKILLS),
    // It reads the first of AGENTS.md and CLAUDE.md, without following imports: a
    // Claude Code delivery gives it two lines, not the set.
    reads_also: &[],
};

/// The files its config's `instructions` lists, verbatim, after the user's own `AGENTS.md`
/// (or `CLAUDE.md`), never in place of it (1 MB seen whole); no imports, so mcpick's file is
/// listed there: the project's `opencode.json` names it relative to the project, the user's
/// config by its absolute path.
pub const CHANNEL: Channel = Channel {
    host: Host::OpenCode,
    what: "a file in opencode's `instructions`",
    limit: None,
    limit_words: "",
    measure: Measure::Bytes,
    wrapper_tags: &["Instructions from: "],
    wrap: instructions_from,
    tool_limit: None,
    lists_prompts: true,
    warns_over: None,
    every_call: true,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Listed("instructions"),
};

/// How opencode and its forks put an instructions file into the system prompt.
pub fn instructions_from(path: &str, _folder: &str, file: &str) -> String {
    format!("Instructions from: {path}\n{file}")
}

/// `.opencode/skills/NAME/SKILL.md` (user: `skills` beside its user config,
/// `~/.config/opencode/skills`), listed by description, bodies on demand. It reads Claude
/// Code's folders too (project and user).
pub const SKILLS: SkillsFolder = SkillsFolder {
    host: Host::OpenCode,
    project: ".opencode/skills",
    user: |p| Some(opencode::user_file(p)?.parent()?.join("skills")),
    reads_also: &[
        (Host::ClaudeCode, Scope::Project),
        (Host::ClaudeCode, Scope::User),
    ],
    known: MEASURED,
    mid_session: MidSession::NewSession,
    names_only: false,
};
