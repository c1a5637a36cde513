//! Codex: measured with 0.171.0 against its real model requests (`tests/delivery.rs`,
//! `tests/live.rs`, `tests/skills.rs`; `docs/hand-off.md`).

use crate::handoff::profile::{
    Channel, HookFile, Known, Measure, MidSession, Override, PerTurn, Profile, Reached, Scopes,
    SkillsFolder, in_home,
};
use crate::hosts::{Host, codex};

const MEASURED: Known = Known::Measured("Codex 0.171.0");

pub static PROFILE: Profile = Profile {
    host: Host::Codex,
    entry: &codex::DIALECT,
    entry_known: MEASURED,
    program: Some("codex"),
    entry_note: None,
    start: Some(&CHANNEL),
    per_turn: Some(&PER_TURN),
    hooks: Some(&HOOKS),
    mention: None,
    skills: Some(&SKILLS),
    reads_also: &[],
};

/// Codex's `project_doc_max_bytes` default.
pub const AGENTS_LIMIT: usize = 32 * 1024;

/// `AGENTS.md`, no imports, the project's documents cut silently at 32 KiB;
/// `AGENTS.override.md` is read in its place. mcpick writes the override as the user's
/// `AGENTS.md` followed by the set, cut at resource boundaries to fit.
pub const CHANNEL: Channel = Channel {
    host: Host::Codex,
    what: "`AGENTS.override.md` (read in place of `AGENTS.md`)",
    limit: Some(AGENTS_LIMIT),
    limit_words: "Codex's 32 KiB AGENTS.md limit",
    measure: Measure::Bytes,
    wrapper_tags: &["</INSTRUCTIONS>"],
    wrap: |_, folder, file| {
        format!("# AGENTS.md instructions for {folder}\n\n<INSTRUCTIONS>\n{file}\n</INSTRUCTIONS>")
    },
    tool_limit: Some((
        12_000,
        "Codex's cut of tool results near ~12,000 characters",
    )),
    lists_prompts: false,
    warns_over: None,
    every_call: false,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Override(Override {
        file: "AGENTS.override.md",
        replaces: "AGENTS.md",
        user_folder: |places| match &places.codex_home {
            Some(dir) => Some(dir.clone()),
            None => in_home(places, ".codex"),
        },
        marker: MARKER,
    }),
};

/// The override's first line: the user's `AGENTS.md` first, then the set.
pub const MARKER: &str = "<!-- Written by mcpick: AGENTS.md, then the context set. Edit AGENTS.md and the set, not this file. -->\n";

pub const PER_TURN: PerTurn = PerTurn {
    host: Host::Codex,
    what: "a `UserPromptSubmit` hook's additional context",
    // Head and tail kept around a cut near 2,500 tokens (~10 KB).
    cap: Some(9_000),
    escapes_angles: false,
    top_level: false,
    wrap: |text| text.to_string(),
    known: MEASURED,
};

pub static HOOKS: HookFile = HookFile {
    host: Host::Codex,
    project_file: ".codex/hooks.json",
    user_file: |places| match &places.codex_home {
        Some(dir) => Some(dir.join("hooks.json")),
        None => in_home(places, ".codex/hooks.json"),
    },
    events: &["UserPromptSubmit", "SessionStart"],
    flat: false,
    approval: "Codex runs a hook only after you trust it, and asks again after every change to it: start `codex` (the interactive TUI) in the project, where \"Hooks need review\" lists them, and choose \"Trust all and continue\"; until then `codex exec` skips them silently. A project's .codex/ files are read only in a trusted project",
    switch: None,
    known: MEASURED,
};

/// `.codex/skills/NAME/SKILL.md` in the project (and `$CODEX_HOME/skills`), listed under
/// "Available skills" by description, bodies on demand.
pub const SKILLS: SkillsFolder = SkillsFolder {
    host: Host::Codex,
    project: ".codex/skills",
    user: |p| match &p.codex_home {
        Some(codex_home) => Some(codex_home.join("skills")),
        None => in_home(p, ".codex/skills"),
    },
    reads_also: &[],
    known: MEASURED,
    mid_session: MidSession::NextTurn,
    names_only: false,
};
