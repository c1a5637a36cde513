//! Claude Code: measured with 2.1.332 (skills with 2.1.328) against its real model requests
//! (`tests/delivery.rs`, `tests/live.rs`, `tests/skills.rs`; `docs/hand-off.md`).

use crate::handoff::profile::{
    At, Channel, HookFile, Import, Known, Measure, MidSession, PerTurn, Profile, Reached, Scopes,
    SkillsFolder, Switch, in_home,
};
use crate::hosts::{Host, claude_code};

const MEASURED: Known = Known::Measured("Claude Code 2.1.332");

pub static PROFILE: Profile = Profile {
    host: Host::ClaudeCode,
    entry: &claude_code::DIALECT,
    entry_known: MEASURED,
    program: Some("claude"),
    entry_note: None,
    start: Some(&CHANNEL),
    per_turn: Some(&PER_TURN),
    hooks: Some(&HOOKS),
    mention: Some("@NAME:URI (interactive prompt only)"),
    skills: Some(&SKILLS),
    reads_also: &[],
};

/// `CLAUDE.md` and its `@path` imports, verbatim (74 KB seen whole), read before its
/// SessionStart hooks run (so a hook cannot refresh them for the same session) and cut at
/// 10,000 characters for a hook's own output: the import is the channel. Imports follow
/// `(?:^|\s)@((?:[^\s\\]|\\ )+)`, cut at `#` (its sources).
pub const CHANNEL: Channel = Channel {
    host: Host::ClaudeCode,
    what: "a `CLAUDE.md` import",
    limit: None,
    limit_words: "",
    measure: Measure::Bytes,
    wrapper_tags: &["</system-reminder>"],
    wrap: |path, _, file| {
        format!("Contents of {path} (project instructions, checked into the codebase):\n\n{file}")
    },
    tool_limit: Some((
        50_000,
        "Claude Code's ~50,000-character cut of tool results (past it the model gets a preview)",
    )),
    lists_prompts: true,
    // The warning's limit is in its code (2.1.332): the larger of 40,000 characters and 5% of
    // the model's context window; the file whole at the model was measured with 712,700 bytes
    // (`delivery::claude_code_reads_a_delivery_past_its_size_banner_whole`).
    warns_over: Some((
        40_000,
        "Claude Code warns of it on its own screen (\"Large .mcpick/….md will impact performance\", from 40,000 characters, more on a model with a larger context window) and still sends the file whole: every resource in it reaches the model, at the cost of its context; a budget (`mcpick policy --budget N`) makes it smaller",
    )),
    every_call: false,
    // It tells its model of a file it read that changed on disk (the changed lines, numbered,
    // cut near 8,000 characters, nothing of lines removed).
    tells_of_changes: true,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Import(Import {
        project: At::Project("CLAUDE.md"),
        user: At::Home(".claude/CLAUDE.md"),
        user_beside: false,
        shown_as_imported: false,
        escaped_spaces: true,
    }),
};

pub const PER_TURN: PerTurn = PerTurn {
    host: Host::ClaudeCode,
    what: "a `UserPromptSubmit` hook's additional context",
    // Whole to ~10,000 characters; over it the model gets a 2 KB preview.
    cap: Some(9_500),
    escapes_angles: false,
    top_level: false,
    wrap: |text| format!("UserPromptSubmit hook additional context: {text}"),
    known: MEASURED,
};

pub static HOOKS: HookFile = HookFile {
    host: Host::ClaudeCode,
    project_file: ".claude/settings.json",
    user_file: |places| in_home(places, ".claude/settings.json"),
    events: &[
        "UserPromptSubmit",
        "SessionStart",
        "PreCompact",
        "SessionEnd",
    ],
    flat: false,
    approval: "Claude Code runs a project's hooks once the project is trusted: start `claude` in the project once and answer \"Yes, I trust this folder\" (kept in ~/.claude.json as `hasTrustDialogAccepted`); `claude -p` runs them without asking; `/hooks` lists them",
    switch: Some(Switch {
        pointer: "/disableAllHooks",
        off: true,
        said: "`disableAllHooks` is true: Claude Code runs no hooks, mcpick's neither, until it is removed",
    }),
    known: MEASURED,
};

/// `.claude/skills/NAME/SKILL.md`, descriptions in its first model request, bodies on demand.
pub const SKILLS: SkillsFolder = SkillsFolder {
    host: Host::ClaudeCode,
    project: ".claude/skills",
    user: |p| in_home(p, ".claude/skills"),
    reads_also: &[],
    known: Known::Measured("Claude Code 2.1.328"),
    mid_session: MidSession::NextTurn,
    names_only: false,
};
