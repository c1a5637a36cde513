//! Cline CLI: measured with 3.0.65 against its real model requests (`tests/delivery.rs`;
//! `docs/hand-off.md`). No per-prompt channel (its hooks run around tools only), so a change
//! of the set reaches the next session.

use crate::handoff::profile::{
    Channel, Known, Measure, MidSession, Profile, Reached, RulesFile, Scopes, SkillsFolder, in_home,
};
use crate::hosts::{Host, Scope, cline};

const MEASURED: Known = Known::Measured("Cline CLI 3.0.65");

pub static PROFILE: Profile = Profile {
    host: Host::Cline,
    entry: &cline::DIALECT,
    entry_known: MEASURED,
    program: Some("cline"),
    entry_note: None,
    start: Some(&CHANNEL),
    per_turn: None,
    hooks: None,
    mention: None,
    skills: Some(&SKILLS),
    // It reads the project's AGENTS.md (not CLAUDE.md), without imports.
    reads_also: &[],
};

/// A rule file in `.clinerules/`, sent whole in its system prompt under `# Rules` as
/// `## NAME` (600 KB seen whole), before the workspace's `AGENTS.md`. A project with a
/// `.cline/rules/` folder has Cline read that one in place of `.clinerules/`, so the file
/// goes where it is read. Its entry is the user's; its rules are the project's.
pub const CHANNEL: Channel = Channel {
    host: Host::Cline,
    what: "a `.clinerules/` rule file",
    limit: None,
    limit_words: "",
    measure: Measure::Bytes,
    wrapper_tags: &[],
    wrap: |path, _, file| {
        let name = std::path::Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy())
            .unwrap_or_default();
        format!("## {name}\n{}", file.trim())
    },
    tool_limit: None,
    lists_prompts: false,
    warns_over: None,
    every_call: false,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::Project,
    reached: Reached::Rules(RulesFile {
        folder: ".clinerules",
        read_instead: Some(".cline/rules"),
        extension: "md",
        front_matter: "",
    }),
};

/// `.cline/skills/NAME/SKILL.md` (user: `~/.cline/skills`): Cline offers them through its
/// `skill` tool, named in its description ("Available skills: NAME."), without descriptions.
/// It reads `.agents/skills` too, where Kilo's delivery writes them.
pub const SKILLS: SkillsFolder = SkillsFolder {
    host: Host::Cline,
    project: ".cline/skills",
    user: |p| in_home(p, ".cline/skills"),
    reads_also: &[(Host::Kilo, Scope::Project)],
    known: MEASURED,
    mid_session: MidSession::NewSession,
    names_only: true,
};
