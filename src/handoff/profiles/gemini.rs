//! Gemini CLI: measured with 0.61.0 against its real model requests (`tests/delivery.rs`,
//! `tests/live.rs`, `tests/skills.rs`; `docs/hand-off.md`).

use crate::handoff::profile::{
    At, Channel, EntryNote, HookFile, Import, Known, Measure, MidSession, PerTurn, Profile,
    Reached, Scopes, SkillsFolder, Switch, in_home,
};
use crate::hosts::{Host, gemini};

const MEASURED: Known = Known::Measured("Gemini CLI 0.61.0");

pub static PROFILE: Profile = Profile {
    host: Host::Gemini,
    entry: &gemini::DIALECT,
    entry_known: MEASURED,
    program: Some("gemini"),
    entry_note: Some(EntryNote {
        project_only: false,
        text: gemini::TRUST_NOTE,
    }),
    start: Some(&CHANNEL),
    per_turn: Some(&PER_TURN),
    hooks: Some(&HOOKS),
    mention: Some("@NAME:URI (also with -p)"),
    skills: Some(&SKILLS),
    reads_also: &[],
};

/// `GEMINI.md` and its `@path` imports, verbatim (74 KB seen whole); its hooks escape `<` and
/// `>`, so again the import. It imports only from under the importing file's folder (an
/// absolute path, or one up and out, is dropped silently), and ends a path at white space.
pub const CHANNEL: Channel = Channel {
    host: Host::Gemini,
    what: "a `GEMINI.md` import",
    limit: None,
    limit_words: "",
    measure: Measure::Bytes,
    wrapper_tags: &[
        "<!-- End of import from:",
        "--- End of Context from:",
        "</project_context>",
        "</loaded_context>",
        "</session_context>",
    ],
    wrap: |path, _, file| {
        format!("<!-- Imported from: {path} -->\n{file}\n<!-- End of import from: {path} -->")
    },
    tool_limit: None,
    lists_prompts: true,
    warns_over: None,
    every_call: false,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Import(Import {
        project: At::Project("GEMINI.md"),
        user: At::Home(".gemini/GEMINI.md"),
        user_beside: true,
        shown_as_imported: true,
        escaped_spaces: false,
    }),
};

pub const PER_TURN: PerTurn = PerTurn {
    host: Host::Gemini,
    what: "a `BeforeAgent` hook's additional context (`<` and `>` arrive escaped)",
    cap: None,
    escapes_angles: true,
    top_level: false,
    wrap: |text| format!("<hook_context>{text}</hook_context>"),
    known: MEASURED,
};

pub static HOOKS: HookFile = HookFile {
    host: Host::Gemini,
    project_file: ".gemini/settings.json",
    user_file: |places| in_home(places, ".gemini/settings.json"),
    events: &["BeforeAgent", "SessionStart", "PreCompress", "SessionEnd"],
    flat: false,
    approval: "Gemini CLI runs hooks, the project's and the user's alike, only in a trusted folder: start `gemini` in the project once and choose \"Trust folder\" (kept in ~/.gemini/trustedFolders.json; `/permissions` changes it), with `hooksConfig.enabled` unset or true; the first session names the new project hooks in a warning",
    switch: Some(Switch {
        pointer: "/hooksConfig/enabled",
        off: false,
        said: "`hooksConfig.enabled` is false: Gemini CLI runs no hooks, mcpick's neither, until it is true",
    }),
    known: MEASURED,
};

/// `.gemini/skills/NAME/SKILL.md` (project skills only in a trusted folder), listed in
/// `<available_skills>` by description, bodies on demand. It also reads `.agents/skills`,
/// which Codex reads too: each host gets its own folder, so no two deliveries share one.
pub const SKILLS: SkillsFolder = SkillsFolder {
    host: Host::Gemini,
    project: ".gemini/skills",
    user: |p| in_home(p, ".gemini/skills"),
    reads_also: &[],
    known: MEASURED,
    mid_session: MidSession::Command("/skills reload"),
    names_only: false,
};
