//! GitHub Copilot CLI: measured with 1.0.102 against its real model requests
//! (`tests/delivery.rs`, `tests/live.rs`, `tests/skills.rs`; `docs/hand-off.md`).

use crate::handoff::profile::{
    At, Channel, HookFile, Import, Known, Measure, MidSession, PerTurn, Profile, Reached, Scopes,
    SkillsFolder, in_home,
};
use crate::hosts::{Host, Scope, copilot_cli};

const MEASURED: Known = Known::Measured("GitHub Copilot CLI 1.0.102");

pub static PROFILE: Profile = Profile {
    host: Host::CopilotCli,
    entry: &copilot_cli::DIALECT,
    entry_known: MEASURED,
    program: Some("copilot"),
    entry_note: None,
    start: Some(&CHANNEL),
    per_turn: Some(&PER_TURN),
    hooks: Some(&HOOKS),
    mention: None,
    skills: Some(&SKILLS),
    // It reads the project's CLAUDE.md and GEMINI.md with their imports, and
    // `.github/instructions/*.instructions.md` with `applyTo: "**"`: VS Code's file.
    reads_also: &[
        (Host::ClaudeCode, Scope::Project),
        (Host::Gemini, Scope::Project),
        (Host::VsCode, Scope::Project),
    ],
};

/// What Copilot CLI follows of `@` imports, all together: over it, it skips them whole and
/// says nothing, the user's own imports with them.
pub const IMPORTS_LIMIT: usize = 512 * 1024;

/// What mcpick's import takes. Before [`IMPORTS_LIMIT`] comes the model's: when its
/// instructions and tools exceed the model's usable context, Copilot CLI sends no request at
/// all (with `claude-sonnet-4-5`: an import of 400 KB passed, 440 KB was blocked). 256 KiB
/// leaves room for Copilot's own prompt and tools, the user's imports and the conversation.
pub const LIMIT: usize = 256 * 1024;

/// `~/.copilot/copilot-instructions.md` and its `@` imports from under its folder, verbatim;
/// not inside code spans or fences. Its entry is the user's only.
pub const CHANNEL: Channel = Channel {
    host: Host::CopilotCli,
    what: "a `copilot-instructions.md` import",
    limit: Some(LIMIT),
    limit_words: "256 KiB (past ~400 KB of instructions Copilot CLI sends its model nothing)",
    measure: Measure::Bytes,
    wrapper_tags: &["</imported_custom_instruction>", "</custom_instruction>"],
    wrap: |path, _, file| {
        format!(
            "<imported_custom_instruction source=\"{path}\">\n{}\n</imported_custom_instruction>",
            file.trim_end()
        )
    },
    tool_limit: None,
    lists_prompts: true,
    warns_over: None,
    every_call: false,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Import(Import {
        project: At::Home(".copilot/copilot-instructions.md"),
        user: At::Home(".copilot/copilot-instructions.md"),
        user_beside: true,
        shown_as_imported: false,
        escaped_spaces: false,
    }),
};

pub const PER_TURN: PerTurn = PerTurn {
    host: Host::CopilotCli,
    what: "a `UserPromptSubmit` hook's additional context",
    // No cut measured.
    cap: None,
    escapes_angles: false,
    top_level: true,
    // Trimmed; also sent as a part of its own before the prompt.
    wrap: |text| format!("<system_reminder>\n{}\n</system_reminder>", text.trim_end()),
    known: MEASURED,
};

/// A hooks file of mcpick's own among the user's (`~/.copilot/hooks/*.json`, all of which it
/// runs), `UserPromptSubmit` in Claude Code's event format (its camel-case events send
/// another payload).
pub static HOOKS: HookFile = HookFile {
    host: Host::CopilotCli,
    project_file: ".github/hooks/mcpick.json",
    user_file: |places| in_home(places, ".copilot/hooks/mcpick.json"),
    events: &["UserPromptSubmit"],
    flat: true,
    approval: "Copilot CLI runs the hooks in ~/.copilot/hooks/ without asking (measured with `copilot -p`); /hooks lists them",
    switch: None,
    known: MEASURED,
};

/// `~/.copilot/skills/NAME/SKILL.md` (a project's is `.github/skills`), listed by
/// description, bodies on demand. It reads a project's `.claude/skills` too (not
/// `~/.claude/skills`).
pub const SKILLS: SkillsFolder = SkillsFolder {
    host: Host::CopilotCli,
    project: ".github/skills",
    user: |p| in_home(p, ".copilot/skills"),
    reads_also: &[(Host::ClaudeCode, Scope::Project)],
    known: MEASURED,
    mid_session: MidSession::NewSession,
    names_only: false,
};
