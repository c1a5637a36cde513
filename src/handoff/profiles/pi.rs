//! pi: measured with 0.73.1 against its real model requests (`tests/delivery.rs`,
//! `tests/skills.rs`; `docs/hand-off.md`). It takes no MCP servers and reads its `AGENTS.md`
//! and `.pi/APPEND_SYSTEM.md` once per session, so mcpick hands it the set through a project
//! extension of its own, which pi runs without asking: the set at the session's first prompt,
//! and each later prompt's change from `mcpick turn pi`.

use crate::handoff::profile::{
    At, Channel, Known, Loader, LoaderText, Measure, MidSession, PerTurn, Profile, Reached, Scopes,
    SkillsFolder, in_home, loader_prelude,
};
use crate::hosts::{Host, pi};

const MEASURED: Known = Known::Measured("pi 0.73.1");

pub static PROFILE: Profile = Profile {
    host: Host::Pi,
    entry: &pi::DIALECT,
    entry_known: MEASURED,
    program: Some("pi"),
    entry_note: None,
    start: Some(&CHANNEL),
    per_turn: Some(&PER_TURN),
    // No hook settings: mcpick's extension runs `mcpick turn pi` itself.
    hooks: None,
    mention: None,
    skills: Some(&SKILLS),
    // It reads the project's AGENTS.md (else CLAUDE.md) without following imports: another
    // host's delivery gives it two lines, or nothing.
    reads_also: &[],
};

/// `.pi/extensions/NAME.ts` (user: `~/.pi/agent/extensions/`): at a session's first prompt
/// (`before_agent_start`) it reads the delivered file and appends it to the system prompt,
/// raw (600 KB seen whole), and keeps that text for the session's later prompts, so the
/// system prompt stays as it was at the start, as another host's session-start file does.
pub const CHANNEL: Channel = Channel {
    host: Host::Pi,
    what: "the file mcpick's pi extension reads",
    limit: None,
    limit_words: "",
    measure: Measure::Bytes,
    wrapper_tags: &[],
    wrap: |_, _, file| file.to_string(),
    tool_limit: None,
    lists_prompts: false,
    warns_over: None,
    every_call: false,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Loader(Loader {
        project: At::Project(".pi/extensions"),
        user: At::Home(".pi/agent/extensions"),
        extension: "ts",
        code: extension,
        listed_in: None,
    }),
};

/// On each later prompt the extension asks `mcpick turn pi` what changed and adds it as a
/// message of its own, which pi sends its model as a user message, verbatim, after the prompt.
pub const PER_TURN: PerTurn = PerTurn {
    host: Host::Pi,
    what: "a message mcpick's pi extension adds to the prompt",
    cap: None,
    escapes_angles: false,
    top_level: true,
    wrap: |text| text.to_string(),
    known: MEASURED,
};

/// The extension: [`loader_prelude`], then pi's hooks.
fn extension(text: &LoaderText<'_>) -> String {
    loader_prelude(text, "pi")
        + r#"
export default function (pi: any) {
  let session: string | undefined;
  let atStart = "";
  // Compaction folds the turns' messages into a summary: the next prompt starts afresh.
  pi.on("session_compact", () => {
    session = undefined;
  });
  pi.on("before_agent_start", async (event: any, ctx: any) => {
    const id = String(ctx.sessionManager.getSessionId());
    if (id !== session) {
      turn(id, "SessionStart");
      atStart = delivered();
      session = id;
    }
    const changed = turn(id, "UserPromptSubmit");
    const answer: any = {
      systemPrompt: atStart ? `${event.systemPrompt}\n\n${atStart}` : event.systemPrompt,
    };
    if (changed) answer.message = { customType: "mcpick", content: changed, display: false };
    return answer;
  });
}
"#
}

/// `.pi/skills/NAME/SKILL.md` (user: `~/.pi/agent/skills`): name, description and location
/// listed, bodies on demand.
pub const SKILLS: SkillsFolder = SkillsFolder {
    host: Host::Pi,
    project: ".pi/skills",
    user: |p| in_home(p, ".pi/agent/skills"),
    reads_also: &[],
    known: MEASURED,
    mid_session: MidSession::NewSession,
    names_only: false,
};
