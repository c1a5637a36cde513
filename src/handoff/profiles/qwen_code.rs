//! Qwen Code (a fork of Gemini CLI): measured with 0.24.4 against its real model requests
//! (`tests/delivery.rs`, `tests/live.rs`, `tests/skills.rs`; `docs/hand-off.md`).

use crate::handoff::profile::{
    At, Channel, EntryNote, HookFile, Import, Known, Measure, MidSession, PerTurn, Profile,
    Reached, Scopes, SkillsFolder, in_home,
};
use crate::hosts::{Host, qwen_code};

const MEASURED: Known = Known::Measured("Qwen Code 0.24.4");

pub static PROFILE: Profile = Profile {
    host: Host::QwenCode,
    entry: &qwen_code::DIALECT,
    entry_known: MEASURED,
    program: Some("qwen"),
    entry_note: Some(EntryNote {
        project_only: true,
        text: qwen_code::APPROVE_NOTE,
    }),
    start: Some(&CHANNEL),
    per_turn: Some(&PER_TURN),
    hooks: Some(&HOOKS),
    mention: Some("@NAME:URI (also headless)"),
    skills: Some(&SKILLS),
    reads_also: &[],
};

/// `QWEN.md` and its `@` imports, as Gemini CLI, its origin.
pub const CHANNEL: Channel = Channel {
    host: Host::QwenCode,
    what: "a `QWEN.md` import",
    limit: None,
    limit_words: "",
    measure: Measure::Bytes,
    wrapper_tags: &["<!-- End of import from:", "--- End of Context from:"],
    wrap: super::gemini::CHANNEL.wrap,
    tool_limit: None,
    lists_prompts: true,
    warns_over: None,
    every_call: false,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Import(Import {
        project: At::Project("QWEN.md"),
        user: At::Home(".qwen/QWEN.md"),
        user_beside: true,
        shown_as_imported: true,
        escaped_spaces: false,
    }),
};

pub const PER_TURN: PerTurn = PerTurn {
    host: Host::QwenCode,
    what: "a `UserPromptSubmit` hook's additional context (`<` and `>` arrive escaped)",
    // No cut measured; Qwen Code sends it again after every tool result of the turn.
    cap: None,
    escapes_angles: true,
    top_level: false,
    wrap: |text| {
        format!("<qwen:user-prompt-submit-context>\n{text}\n</qwen:user-prompt-submit-context>")
    },
    known: MEASURED,
};

pub static HOOKS: HookFile = HookFile {
    host: Host::QwenCode,
    project_file: ".qwen/settings.json",
    user_file: |places| in_home(places, ".qwen/settings.json"),
    // The one event measured (Claude Code's format); a session starts on its first turn.
    events: &["UserPromptSubmit"],
    flat: false,
    approval: "Qwen Code runs the project's and the user's hooks without asking (measured with `qwen` headless, Qwen Code 0.24.4); `/hooks` lists them",
    switch: None,
    known: MEASURED,
};

/// `.qwen/skills/NAME/SKILL.md` (user: `~/.qwen/skills`), listed by description, bodies on
/// demand.
pub const SKILLS: SkillsFolder = SkillsFolder {
    host: Host::QwenCode,
    project: ".qwen/skills",
    user: |p| in_home(p, ".qwen/skills"),
    reads_also: &[],
    known: MEASURED,
    mid_session: MidSession::Command("/reload-plugins"),
    names_only: false,
};
