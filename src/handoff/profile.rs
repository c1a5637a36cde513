//! What a host profile is: every way mcpick hands a host the set, as data. Each host's values
//! are in its own file under [`super::profiles`]; the feature modules (the session-start
//! channel, the per-turn hooks and turn, the skills folder, the delivery's files) hold the
//! algorithms and read only these fields, so none of them names a host. This file imports
//! nothing of the wing: the profiles below it, the features above.

use std::path::PathBuf;

use crate::hosts::{Dialect, Host, Places, Scope};

/// Where a fact about a host comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Driven by the tests and read in the host's own model request, on this version of it.
    Measured(&'static str),
    /// From the host's documentation; not driven by the tests.
    FromDocs,
}

impl Known {
    pub fn is_measured(self) -> bool {
        matches!(self, Known::Measured(_))
    }

    /// The version a measured fact was measured on: the last word of "Claude Code 2.1.332".
    pub fn version(self) -> Option<&'static str> {
        match self {
            Known::Measured(on) => on.rsplit(' ').next(),
            Known::FromDocs => None,
        }
    }
}

/// Everything mcpick knows about one host.
pub struct Profile {
    pub host: Host,
    /// The config file the served entry goes in, and its format.
    pub entry: &'static Dialect,
    /// How the entry is known to work.
    pub entry_known: Known,
    /// The host's command on `PATH`, asked its version to say when it is not the one the
    /// facts were measured on (`None`: an app mcpick cannot ask).
    pub program: Option<&'static str>,
    /// Said after the entry is written (`NAME`: the served name), for every entry or only a
    /// project one.
    pub entry_note: Option<EntryNote>,
    /// The channel read verbatim at every session's start, if mcpick can write one. The IDE
    /// hosts' (VS Code, Cursor, Windsurf), which cannot run here, come from their docs and say
    /// so wherever they are shown: a delivery from docs is still better than none.
    pub start: Option<&'static Channel>,
    /// The channel read on every turn of a running session (a hook's additional context).
    pub per_turn: Option<&'static PerTurn>,
    /// The settings the per-turn channel's hooks go in (with `per_turn`).
    pub hooks: Option<&'static HookFile>,
    /// How a prompt names one served resource (`NAME` the entry, `URI` the resource), where
    /// the host expands it into the model's request.
    pub mention: Option<&'static str>,
    /// The folder the host reads skills from; `None`: a skill travels as resources do.
    pub skills: Option<&'static SkillsFolder>,
    /// Other hosts' session-start deliveries (host, scope) this host's model reads too: where
    /// one of the set is installed, this host gets the set through it.
    pub reads_also: &'static [(Host, Scope)],
}

/// A note for the person once the entry is written.
pub struct EntryNote {
    pub project_only: bool,
    /// `NAME` stands for the served name.
    pub text: &'static str,
}

/// How one host takes the set at session start.
#[derive(Debug)]
pub struct Channel {
    pub host: Host,
    /// What carries the text, for messages: "a `CLAUDE.md` import".
    pub what: &'static str,
    /// The most the host takes from the file(s), when it cuts (in [`Channel::measure`]).
    pub limit: Option<usize>,
    /// The limit in words, for the reason a resource is left out.
    pub limit_words: &'static str,
    /// What `limit` counts.
    pub measure: Measure,
    /// Closing tags of the host's own wrapper: a resource that contains one could end the
    /// host's block early, so the preview says so.
    pub wrapper_tags: &'static [&'static str],
    /// The host's wrapper around the file in its model request: (the file as the host names
    /// it, its folder, the file's text) → what the model reads.
    pub wrap: fn(&str, &str, &str) -> String,
    /// Where the host stops passing an MCP tool's result whole (characters): the `context`
    /// tool is the way to what the channel cannot carry.
    pub tool_limit: Option<(usize, &'static str)>,
    /// The host lists the served `context` prompt (Codex lists no prompts).
    pub lists_prompts: bool,
    /// Where the host warns of the file's size on its own screen without cutting it
    /// (characters), and what the person sees and the model still gets: said by `install`
    /// and `preview --host`, so the host's banner is no surprise.
    pub warns_over: Option<(usize, &'static str)>,
    /// The host reads the file again before every model call: a rewrite reaches a running
    /// session's next turn, whole. Elsewhere the file is read once, at the session's start.
    pub every_call: bool,
    /// The host tells a running session's model that a file it read changed on disk: the
    /// rewrite is held back while a session runs and the change goes through the next turn.
    pub tells_of_changes: bool,
    /// Measured, or from the host's docs: every place that shows a channel says which.
    pub known: Known,
    /// Which delivery goes with an entry of each scope.
    pub scopes: Scopes,
    /// How the host is led to the file; `None`: the file in the set's `.mcpick` folder is
    /// read as it is.
    pub reached: Reached,
}

/// How a host comes to read the delivered file.
#[derive(Debug)]
pub enum Reached {
    /// Two lines appended to an instructions file the host reads: a comment and `@PATH`.
    Import(Import),
    /// A file of mcpick's own in the project's rules folder (the IDE hosts).
    Rules(RulesFile),
    /// The file's path added to a list in the host's own config (opencode's `instructions`).
    Listed(&'static str),
    /// A file the host reads in place of the user's own, carrying the user's first.
    Override(Override),
    /// A file of mcpick's own that the host runs (pi's extension), which reads the delivered
    /// file itself.
    Loader(Loader),
}

/// What a channel's limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    Bytes,
    /// Characters (Windsurf's docs give its limit in characters).
    Chars,
}

/// Which scope of delivery goes with an entry of each scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scopes {
    /// The entry's own scope: a project entry, the project's file; a user entry, the user's.
    AsEntry,
    /// A project entry only: the host's user-level instructions are not a file mcpick writes,
    /// so a user entry gets the set on demand.
    ProjectOnly,
    /// Always the project's file, whatever the entry's scope.
    Project,
}

/// A host file's place: in the project, or under the home folder.
#[derive(Debug, Clone, Copy)]
pub enum At {
    Project(&'static str),
    Home(&'static str),
}

/// An instructions file whose `@PATH` imports the host follows.
#[derive(Debug)]
pub struct Import {
    /// The importing file for a project delivery, and for a user one.
    pub project: At,
    pub user: At,
    /// A user delivery goes in a `mcpick` folder beside the importing file (the host imports
    /// only from under that file's folder).
    pub user_beside: bool,
    /// The host names the imported file in its model request as imported (relative), not
    /// by its absolute path.
    pub shown_as_imported: bool,
    /// The host takes `\ ` for a space in a path, and ends a path at `#`.
    pub escaped_spaces: bool,
}

/// A rules file the host reads whole, every session, from a folder of the project: mcpick
/// owns it wholly (`FOLDER/NAME.EXTENSION`), its front matter first, as the host's docs ask.
#[derive(Debug)]
pub struct RulesFile {
    /// The folder, relative to the project.
    pub folder: &'static str,
    /// A folder the host reads in `folder`'s place where the project has it (relative to the
    /// project): the file goes there, where it is read.
    pub read_instead: Option<&'static str>,
    /// What the file name ends with, after `NAME.`.
    pub extension: &'static str,
    /// The front matter that makes the host read the file into every request.
    pub front_matter: &'static str,
}

/// A file of mcpick's own the host runs at every session (`FOLDER/NAME.EXTENSION`): it hands
/// the model the delivered file at the session's start and, on each later prompt, what
/// `mcpick turn` says changed (the host's per-turn hook, where it has no hook settings).
#[derive(Debug)]
pub struct Loader {
    /// Its folder for a project delivery, and for a user one.
    pub project: At,
    pub user: At,
    /// What the file name ends with, after `NAME.`.
    pub extension: &'static str,
    /// The file's text.
    pub code: fn(&LoaderText<'_>) -> String,
    /// The list in the host's config that names the loader (Kilo's `plugin`): the loader then
    /// sits beside the delivered file, in mcpick's own folder, and no host folder is made.
    pub listed_in: Option<&'static str>,
}

/// What a loader's text is made from.
pub struct LoaderText<'a> {
    /// The delivered file's path, relative to the loader's folder (or absolute).
    pub target: &'a str,
    /// The project's folder, relative to the loader's folder (or absolute): where the per-turn
    /// command runs.
    pub root: &'a str,
    /// The host's command-line name.
    pub host: &'a str,
    /// The shell command of `mcpick turn` for this delivery (`None`: `--deliver start`),
    /// written on the one line that starts with [`TURN_LINE`].
    pub turn: Option<&'a str>,
}

/// How the one line of a loader that names the per-turn command starts. That line names this
/// binary (or `mcpick`) and whether the delivery is live, so two loaders that differ only there
/// are the same delivery ([`same_loader`]): a moved binary or another `--deliver` does not make
/// mcpick's own loader a stranger's.
pub const TURN_LINE: &str = "const TURN = ";

/// The start every loader shares: what it is, its imports, where the delivered file and the
/// project are, the per-turn command on its [`TURN_LINE`], and `turn(session, event)`, which
/// asks `mcpick turn` and gives its answer ("" when nothing, or on failure: it never stops a
/// prompt). Paths and the command are JSON strings, which are JavaScript strings too.
pub fn loader_prelude(text: &LoaderText<'_>, host_name: &str) -> String {
    let json = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let turn = text.turn.map(json).unwrap_or_else(|| "null".into());
    format!(
        r#"// Written by mcpick: hands {host_name}'s model the context set: the delivered file in the
// system prompt from a session's first prompt on, and on each later prompt what changed since
// the last one, from `mcpick turn`. Edit the set, not this file; `mcpick uninstall {host}`
// removes it.
import {{ readFileSync }} from "node:fs";
import {{ spawnSync }} from "node:child_process";
import {{ dirname, resolve }} from "node:path";
import {{ fileURLToPath }} from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const DELIVERED = resolve(HERE, {target});
const ROOT = resolve(HERE, {root});
{TURN_LINE}{turn};

function turn(session, event) {{
  if (TURN === null) return "";
  const ran = spawnSync(TURN, {{
    shell: true,
    cwd: ROOT,
    input: JSON.stringify({{ session_id: session, hook_event_name: event }}),
    encoding: "utf8",
    timeout: 10000,
  }});
  try {{
    return ran.status === 0 && ran.stdout.trim() ? JSON.parse(ran.stdout).additionalContext ?? "" : "";
  }} catch {{
    return "";
  }}
}}

function delivered() {{
  try {{
    return readFileSync(DELIVERED, "utf8");
  }} catch {{
    return "";
  }}
}}
"#,
        host = text.host,
        target = json(text.target),
        root = json(text.root),
    )
}

/// A file the host reads in place of the user's own (Codex's `AGENTS.override.md`).
#[derive(Debug)]
pub struct Override {
    /// Its name, and the name of the user's file it replaces, in one folder.
    pub file: &'static str,
    pub replaces: &'static str,
    /// The folder for a user delivery.
    pub user_folder: fn(&Places) -> Option<PathBuf>,
    /// The first line of the file: mcpick's mark.
    pub marker: &'static str,
}

/// How one host's per-turn channel takes text.
#[derive(Debug, Clone, Copy)]
pub struct PerTurn {
    pub host: Host,
    /// What carries it, for messages.
    pub what: &'static str,
    /// The most characters the channel passes whole (mcpick stays under it).
    pub cap: Option<usize>,
    /// The channel escapes `<` and `>`: the model reads `&lt;` `&gt;`.
    pub escapes_angles: bool,
    /// The hook answers with a top-level `additionalContext`, not `hookSpecificOutput`.
    pub top_level: bool,
    /// The host's wrapper around the text (already escaped as the host escapes it).
    pub wrap: fn(&str) -> String,
    pub known: Known,
}

/// One host's hook settings: where they are, the events mcpick's hook runs on, and what the
/// host asks of the person before they run.
pub struct HookFile {
    pub host: Host,
    /// The project's file, relative to the project.
    pub project_file: &'static str,
    /// The user's file.
    pub user_file: fn(&Places) -> Option<PathBuf>,
    /// The events, the per-turn one first (then session start, compaction, session end).
    pub events: &'static [&'static str],
    /// The approval the host needs before the hooks run, and the exact step.
    pub approval: &'static str,
    /// Each event's array holds the handlers themselves (`{"type": "command", "bash": CMD}`),
    /// not matcher groups of them.
    pub flat: bool,
    /// The host's own switch for all hooks in the same file, when it has one.
    pub switch: Option<Switch>,
    pub known: Known,
}

/// A setting that turns off all of a host's hooks: at `pointer`, the value `off`.
pub struct Switch {
    pub pointer: &'static str,
    pub off: bool,
    /// What the person is told.
    pub said: &'static str,
}

/// Where a host reads skills from.
#[derive(Debug)]
pub struct SkillsFolder {
    pub host: Host,
    /// Under the project, for a project install.
    pub project: &'static str,
    /// For a user install (`None`: no home folder to put it in).
    pub user: fn(&Places) -> Option<PathBuf>,
    /// Other hosts' skills folders (host, scope) this host lists too. A skill of the same
    /// name in two of the folders it reads is listed once, so its own folder beside another
    /// host's lists nothing twice.
    pub reads_also: &'static [(Host, Scope)],
    pub known: Known,
    /// How a session running when a skill is written learns of it.
    pub mid_session: MidSession,
    /// The host lists skills by name only: their descriptions do not reach its model.
    pub names_only: bool,
}

/// How a running session of a host learns of a skill written into its folder since it started.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MidSession {
    /// Its next turn lists it (measured).
    NextTurn,
    /// It lists the skills it found at session start until this command of its own is run in
    /// it (measured: not on the next turn, listed after the command).
    Command(&'static str),
    /// It lists the skills it found at session start; a new session lists the folder as it is
    /// (measured: not on the next turn).
    NewSession,
}

/// The wrapper of a host whose model requests cannot be recorded here: the file as it is.
pub fn as_is(_path: &str, _folder: &str, file: &str) -> String {
    file.to_string()
}

/// `rest` under the home folder.
pub fn in_home(places: &Places, rest: &str) -> Option<PathBuf> {
    places.home.as_ref().map(|h| h.join(rest))
}
