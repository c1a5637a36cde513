//! pi: measured with 0.73.1 against its real model requests (`tests/delivery.rs`,
//! `tests/skills.rs`; `docs/hand-off.md`). It takes no MCP servers and reads its `AGENTS.md`
//! and `.pi/APPEND_SYSTEM.md` once per session, so mcpick hands it the set through a project
//! extension of its own, which pi runs without asking.

use crate::handoff::profile::{
    At, Channel, Known, Loader, Measure, MidSession, Profile, Reached, Scopes, SkillsFolder,
    in_home,
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
    per_turn: None,
    hooks: None,
    mention: None,
    skills: Some(&SKILLS),
    // It reads the project's AGENTS.md (else CLAUDE.md) without following imports: another
    // host's delivery gives it two lines, or nothing.
    reads_also: &[],
};

/// `.pi/extensions/NAME.ts` (user: `~/.pi/agent/extensions/`): on every prompt
/// (`before_agent_start`) it reads the delivered file and appends it to that turn's system
/// prompt, raw (600 KB seen whole). So each turn carries the set as it is then.
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
    every_call: true,
    tells_of_changes: false,
    known: MEASURED,
    scopes: Scopes::AsEntry,
    reached: Reached::Loader(Loader {
        project: At::Project(".pi/extensions"),
        user: At::Home(".pi/agent/extensions"),
        extension: "ts",
        code: extension,
    }),
};

/// The extension: the delivered file's path (relative to the extension's folder, or
/// absolute) as a JSON string, which is a JavaScript string too.
fn extension(target: &str, host: &str) -> String {
    let target = serde_json::to_string(target).unwrap_or_else(|_| "\"\"".into());
    format!(
        r#"// Written by mcpick: hands pi's model the context set, read again before every prompt.
// Edit the set, not this file; `mcpick uninstall {host}` removes it.
import {{ readFileSync }} from "node:fs";
import {{ dirname, resolve }} from "node:path";
import {{ fileURLToPath }} from "node:url";

const DELIVERED = resolve(dirname(fileURLToPath(import.meta.url)), {target});

export default function (pi: any) {{
  pi.on("before_agent_start", async (event: any) => {{
    let text: string;
    try {{
      text = readFileSync(DELIVERED, "utf8");
    }} catch {{
      return;
    }}
    return {{ systemPrompt: `${{event.systemPrompt}}\n\n${{text}}` }};
  }});
}}
"#
    )
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
