//! Kilo CLI (an opencode fork): measured with 7.7.7 against its real model requests
//! (`tests/delivery.rs`, `tests/skills.rs`; `docs/hand-off.md`). Its entry and skills follow
//! opencode's; the set goes through a plugin of mcpick's, which Kilo loads from its config's
//! `plugin` list: the set at the session's first prompt, each later prompt's change from
//! `mcpick turn kilo`.

use crate::handoff::profile::{
    At, Channel, Known, Loader, LoaderText, Measure, MidSession, PerTurn, Profile, Reached, Scopes,
    SkillsFolder, in_home, loader_prelude,
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
    per_turn: Some(&PER_TURN),
    // No hook settings: mcpick's plugin runs `mcpick turn kilo` itself.
    hooks: None,
    mention: None,
    skills: Some(&SKILLS),
    // It reads the first of AGENTS.md, CLAUDE.md and CONTEXT.md without following imports: a
    // Claude Code delivery gives it two lines, not the set.
    reads_also: &[],
};

/// A plugin of mcpick's, `.mcpick/NAME.kilo.js` beside the delivered file, named in the
/// config's `plugin` list (no `.kilo/` folder, into which Kilo writes files of its own): at a
/// session's first prompt it reads the delivered file and adds it to the system prompt of the
/// session's calls (`experimental.chat.system.transform`), verbatim, as it was then (600 KB
/// seen whole through `instructions`).
pub const CHANNEL: Channel = Channel {
    host: Host::Kilo,
    what: "the file mcpick's Kilo plugin reads",
    limit: None,
    limit_words: "",
    measure: Measure::Bytes,
    wrapper_tags: &[],
    wrap: |_, _, file| file.to_string(),
    tool_limit: None,
    lists_prompts: true,
    warns_over: None,
    every_call: false,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Loader(Loader {
        project: At::Project(".mcpick"),
        user: At::Home(".config/kilo"),
        extension: "kilo.js",
        code: plugin,
        listed_in: Some("plugin"),
    }),
};

/// On each later prompt the plugin asks `mcpick turn kilo` what changed and adds it to the
/// prompt's message as a part of its own (`chat.message`), which Kilo sends its model as a
/// text block of the user message, verbatim, after the prompt.
pub const PER_TURN: PerTurn = PerTurn {
    host: Host::Kilo,
    what: "a part mcpick's Kilo plugin adds to the prompt",
    cap: None,
    escapes_angles: false,
    top_level: true,
    wrap: |text| text.to_string(),
    known: MEASURED,
};

/// The plugin: [`loader_prelude`], then Kilo's hooks.
fn plugin(text: &LoaderText<'_>) -> String {
    loader_prelude(text, "Kilo")
        + r#"
// Per session: the delivered file as the session's first prompt found it.
const atStart = new Map();

export const Mcpick = async () => ({
  "chat.message": async (input, output) => {
    const id = input.sessionID;
    if (!id) return;
    if (!atStart.has(id)) {
      turn(id, "SessionStart");
      atStart.set(id, delivered());
    }
    const changed = turn(id, "UserPromptSubmit");
    const first = output.parts[0];
    if (changed && first) {
      output.parts.push({ ...first, id: `${first.id}m`, type: "text", text: changed, synthetic: true });
    }
  },
  "experimental.chat.system.transform": async (input, output) => {
    const text = input.sessionID ? atStart.get(input.sessionID) : undefined;
    if (text) output.system.push(text);
  },
  // A compacted session starts afresh: its next prompt reads the file again.
  event: async ({ event }) => {
    if (event?.type === "session.compacted") atStart.delete(event.properties?.sessionID);
  },
});
"#
}

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
