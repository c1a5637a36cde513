//! Which servers a run uses: the servers the command line names (`--server`, `--demo`,
//! `--url`, `-- COMMAND`), else the servers a context set refers to, else every defined
//! server. The headless commands, `serve` and the TUI all choose through here, so they
//! always agree.
//!
//! The built-in demo publishes made-up resources, so it is used only when asked for
//! (`--demo`) or on a first run: no server named or defined and no context set file. Then the
//! selection carries [`FIRST_RUN_DEMO`] as a note, for the caller to say. With a set file
//! and no server anywhere, the choice is an error: a set is never resolved against the demo
//! unasked.
//!
//! Nothing here prints: what a person should hear about (a config file that cannot be
//! parsed) comes back as [`Selection::warnings`], and the caller says it its own way (stderr
//! for a command, the status line for the TUI).
//!
//! Server definitions in a set are a fallback: a server of the same name defined in a config
//! file (see `mcpick servers`) is used in its place, since that one holds the person's own
//! secrets. A set's definition is expanded (`${VAR}` from the environment) only to connect;
//! the set file keeps it as written ([`super::written`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::kept::{self, Fields};
use super::relative::{from_set_relative, to_set_relative};
use super::trust::{Approvals, HOW_TO_APPROVE, Store, Verdict};
use super::written::{expand_written, masked_form, masked_parts, written_form};
use super::{Config, Definition, Places};
use crate::mcp::{ServerSpec, TransportSpec};
use crate::sanitize;

/// The server flags of a command line, as selection needs them (the CLI's `ServerArgs`
/// converts into this, so the import runs from the CLI to here).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ServerChoice {
    /// `--server NAME`, in order (repeats are ignored).
    pub servers: Vec<String>,
    /// `--demo`.
    pub demo: bool,
    /// `--url URL`.
    pub url: Option<String>,
    /// `--sse`: the legacy transport only for `url`.
    pub sse: bool,
    /// `-H NAME: VALUE` for `url`.
    pub headers: Vec<(String, String)>,
    /// `--name`: the ad-hoc server's name.
    pub name: Option<String>,
    /// `-- COMMAND ARGS…`.
    pub command: Vec<String>,
    /// `--config FILE`.
    pub config_file: Option<PathBuf>,
}

impl ServerChoice {
    /// True when the command line names servers (`--server`, `--demo`, `--url`, `-- CMD`).
    pub fn names_servers(&self) -> bool {
        !self.servers.is_empty() || self.adhoc()
    }

    /// True when it gives a server that needs no config file (`--demo`, `--url`, `-- CMD`).
    fn adhoc(&self) -> bool {
        self.demo || self.url.is_some() || !self.command.is_empty()
    }
}

/// What a choice came to: the servers (or why the choice is a usage error) and warnings
/// about config files that could not be used. The warnings are there either way, so an error
/// never hides them.
#[derive(Debug)]
pub struct Selection<T> {
    pub servers: Result<Vec<T>, String>,
    /// One message per config file that could not be read or parsed (the others were used);
    /// raw text that names files: clean it before a terminal ([`crate::sanitize`]).
    pub warnings: Vec<String>,
    /// What the person should know about the choice itself ([`FIRST_RUN_DEMO`]).
    pub notes: Vec<String>,
}

/// Said whenever the demo is used without `--demo`.
pub const FIRST_RUN_DEMO: &str = "no server is defined and there is no context set here: using the built-in demo server (made-up resources); define servers (see `mcpick servers --help`) or name one (--server, --url, -- COMMAND); --demo asks for the demo without this note";

/// Where a chosen definition came from, as approval needs it (see [`super::trust`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Origin {
    /// The person's own: the command line, their config outside the project, `--config`.
    #[default]
    Yours,
    /// A file of the project (the working directory): `.mcp.json`, `mcpick.toml`, ….
    Project { file: PathBuf },
    /// The context set's own definition.
    Set,
}

impl Origin {
    /// The project whose approval a definition of this origin needs, and the file that
    /// names it (for messages); `None` for the person's own. `project`: the working
    /// directory; `set_folder`: the context set's folder (its definitions' project).
    pub fn needs_approval(
        &self,
        project: &Path,
        set_folder: Option<&Path>,
    ) -> Option<(PathBuf, String)> {
        match self {
            Origin::Yours => None,
            Origin::Project { file } => Some((project.to_path_buf(), file.display().to_string())),
            Origin::Set => Some((
                set_project(project, set_folder),
                "the context set".to_string(),
            )),
        }
    }
}

/// The project a context set's definitions belong to: its folder under the working
/// directory `project` (approvals and kept secrets are keyed by it).
pub fn set_project(project: &Path, set_folder: Option<&Path>) -> PathBuf {
    match set_folder {
        Some(folder) if !folder.as_os_str().is_empty() => project.join(folder),
        _ => project.to_path_buf(),
    }
}

/// One server chosen for this run: a definition ready to connect, or one whose definition
/// failed (an unset variable, a bad field, not approved), which becomes a failed session.
#[derive(Debug, Clone, PartialEq)]
pub struct Selected {
    /// The definition (for a failed one: as written, masked; never connected to).
    pub spec: ServerSpec,
    /// Why the definition cannot be used; names the file and the field.
    pub error: Option<String>,
    /// The definition as written (placeholders kept), which messages name the server by;
    /// `None` for an ad-hoc server, named by its masked definition.
    pub shown: Option<TransportSpec>,
    /// Who gave the definition: a project's files need the person's approval.
    pub origin: Origin,
}

impl Selected {
    fn ready(spec: ServerSpec) -> Self {
        Selected {
            spec,
            error: None,
            shown: None,
            origin: Origin::Yours,
        }
    }

    /// A configured server: ready, or failed with the reason its definition gave.
    fn from_definition(definition: &Definition) -> Self {
        let origin = match definition.scope {
            super::Scope::Project => Origin::Project {
                file: definition.path.clone(),
            },
            super::Scope::Explicit | super::Scope::User | super::Scope::Host => Origin::Yours,
        };
        match &definition.spec {
            Ok(spec) => Selected {
                shown: definition.shown.clone(),
                origin,
                ..Selected::ready(spec.clone())
            },
            Err(error) => Selected {
                spec: definition.shown_spec(),
                error: Some(error.clone()),
                shown: definition.shown.clone(),
                origin,
            },
        }
    }

    /// How messages name this server: its definition as written (placeholders kept) for a
    /// configured server, the masked definition for an ad-hoc one.
    pub fn shown_target(&self) -> String {
        self.shown.as_ref().unwrap_or(&self.spec.transport).target()
    }
}

/// Loads the run's config from the real process's places: the one load a run makes
/// (servers and the `[keys]` tables together), with its file errors as warnings.
pub fn load_config(file: Option<&Path>) -> (Config, Vec<String>) {
    load_config_at(&Places::system(), file)
}

/// [`load_config`] from `places`.
pub fn load_config_at(places: &Places, file: Option<&Path>) -> (Config, Vec<String>) {
    let config = super::load_at(places, file);
    let warnings = config.file_errors().into_iter().map(String::from).collect();
    (config, warnings)
}

/// The servers named by the arguments, with the definitions from config files: `--server`
/// names, the ad-hoc ones and `--demo`; with none of these, every defined server, or the
/// built-in demo when none is defined. An error is a usage error.
/// Servers a project's files define run only once approved ([`gate`]).
pub fn select_servers(choice: &ServerChoice) -> Selection<Selected> {
    let places = Places::system();
    let mut selection = select_servers_at(&places, choice);
    if let Ok(servers) = &mut selection.servers {
        gate_system(servers, |s| s, &places.project, None, &mut selection.notes);
    }
    selection
}

/// [`select_servers`] with config files found from `places`.
pub fn select_servers_at(places: &Places, choice: &ServerChoice) -> Selection<Selected> {
    if let Some(file) = &choice.config_file
        && !places.project.join(file).is_file()
    {
        return Selection {
            servers: Err(format!("--config {}: no such file", file.display())),
            warnings: Vec::new(),
            notes: Vec::new(),
        };
    }
    // Ad-hoc servers alone need no config files.
    let (config, warnings) =
        if choice.adhoc() && choice.servers.is_empty() && choice.config_file.is_none() {
            (Config::default(), Vec::new())
        } else {
            load_config_at(places, choice.config_file.as_deref())
        };
    // No set is involved: with nothing named or defined, this is a first run.
    let mut notes = Vec::new();
    Selection {
        servers: select_from(choice, &config, true, &mut notes),
        warnings,
        notes,
    }
}

/// [`select_servers`] with the config already loaded. `first_run`: there is no context set
/// either, so with no server named or defined the demo is used, with [`FIRST_RUN_DEMO`] in
/// `notes`; without it that is an error.
pub fn select_from(
    choice: &ServerChoice,
    config: &Config,
    first_run: bool,
    notes: &mut Vec<String>,
) -> Result<Vec<Selected>, String> {
    let mut selected = Vec::new();
    let mut named: Vec<&str> = Vec::new();
    for name in &choice.servers {
        if named.contains(&name.as_str()) {
            continue;
        }
        named.push(name);
        let known = config
            .get(name)
            .ok_or_else(|| unknown_server(name, config))?;
        selected.push(Selected::from_definition(&known.definition));
    }
    selected.extend(adhoc_servers(choice)?.into_iter().map(Selected::ready));
    if selected.is_empty() && !choice.demo {
        for known in &config.servers {
            selected.push(Selected::from_definition(&known.definition));
        }
    }
    if selected.is_empty() && !choice.demo {
        if !first_run {
            return Err(no_servers());
        }
        notes.push(FIRST_RUN_DEMO.to_string());
        selected.push(Selected::ready(demo_spec()?));
    } else if choice.demo {
        selected.push(Selected::ready(demo_spec()?));
    }
    Ok(selected)
}

fn no_servers() -> String {
    "no server to use: the context set names none, no server is defined (see `mcpick servers --help` for where mcpick looks) and none is named; name one (--server NAME, --url URL, -- COMMAND) or ask for the built-in demo with --demo".to_string()
}

fn unknown_server(name: &str, config: &Config) -> String {
    let name = sanitize::line(name, 200);
    if config.servers.is_empty() {
        return format!(
            "no server named `{name}`: no servers are defined (see `mcpick servers --help` for where mcpick looks)"
        );
    }
    let known: Vec<String> = config
        .servers
        .iter()
        .map(|s| sanitize::line(s.name(), 200))
        .collect();
    format!(
        "no server named `{name}`; known servers: {}",
        known.join(", ")
    )
}

/// The ad-hoc servers: `-- COMMAND ARGS…` and `--url`.
fn adhoc_servers(choice: &ServerChoice) -> Result<Vec<ServerSpec>, String> {
    let mut specs = Vec::new();
    if let Some((command, rest)) = choice.command.split_first() {
        specs.push(ServerSpec {
            name: choice
                .name
                .clone()
                .unwrap_or_else(|| name_from_command(command, rest)),
            transport: TransportSpec::Stdio {
                command: command.clone(),
                args: rest.to_vec(),
                env: Default::default(),
                cwd: None,
            },
        });
    }
    if let Some(url) = &choice.url {
        let shown = crate::redact::url(url);
        let parsed =
            url::Url::parse(url).map_err(|e| format!("`{shown}` is not a valid URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!("`{shown}` is not an http:// or https:// URL"));
        }
        let headers = choice.headers.iter().cloned().collect();
        let name = match (&choice.name, specs.is_empty()) {
            (Some(name), true) => name.clone(),
            _ => parsed.host_str().unwrap_or("http").to_string(),
        };
        let transport = if choice.sse {
            TransportSpec::Sse {
                url: url.clone(),
                headers,
            }
        } else {
            TransportSpec::Http {
                url: url.clone(),
                headers,
            }
        };
        specs.push(ServerSpec { name, transport });
    } else if !choice.headers.is_empty() {
        return Err("-H/--header only applies to --url".into());
    }
    Ok(specs)
}

/// The built-in demo server: this very binary, run as `mcpick demo-server`.
pub fn demo_spec() -> Result<ServerSpec, String> {
    let exe = std::env::current_exe()
        .map_err(|e| format!("cannot find the mcpick binary to start the demo server: {e}"))?;
    Ok(ServerSpec {
        name: "demo".into(),
        transport: TransportSpec::Stdio {
            command: exe.to_string_lossy().into_owned(),
            args: vec!["demo-server".into()],
            env: Default::default(),
            cwd: None,
        },
    })
}

/// A short name for an ad-hoc stdio server: the package or script for launchers
/// (`npx -y @scope/server-x@1` → `server-x`), else the command's file name.
pub fn name_from_command(command: &str, args: &[String]) -> String {
    let base = |s: &str| {
        Path::new(s)
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| s.to_string())
    };
    let command_name = base(command);
    let launchers = [
        "npx", "uvx", "bunx", "pnpx", "node", "python", "python3", "uv", "deno", "pipx",
    ];
    if launchers.contains(&command_name.as_str())
        && let Some(target) = args.iter().find(|a| !a.starts_with('-') && *a != "run")
    {
        return name_from_target(target);
    }
    command_name
}

/// `@scope/pkg@1.2` → `pkg`; `a/server-x/dist/index.js` → `server-x`; `tool.py` → `tool`.
fn name_from_target(target: &str) -> String {
    if target.starts_with('@') || !target.contains(['/', '.']) {
        let package = target.rsplit('/').next().unwrap_or(target);
        return package
            .split('@')
            .next()
            .filter(|p| !p.is_empty())
            .unwrap_or(package)
            .to_string();
    }
    let path = Path::new(target);
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| target.to_string());
    if !["index", "main", "server", "cli", "__main__"].contains(&stem.as_str()) {
        return stem;
    }
    // A generic entry point: name it after the package folder above dist/, build/, ….
    path.ancestors()
        .skip(1)
        .filter_map(|p| p.file_name())
        .map(|f| f.to_string_lossy().into_owned())
        .find(|f| !["dist", "build", "lib", "src", "bin", "out"].contains(&f.as_str()))
        .unwrap_or(stem)
}

/// One server chosen for a context command, with the definition the set records for it.
#[derive(Debug, Clone)]
pub struct Chosen {
    pub selected: Selected,
    /// The definition as written (placeholders kept, other secret values masked).
    pub shown: TransportSpec,
    /// What masking took out of an ad-hoc definition (see [`masked_parts`]); empty for one
    /// from a config file or a set.
    pub masked: Vec<String>,
    /// The values masking took out, by field: kept for this user when the set records
    /// `shown` (see [`super::kept`]).
    pub kept: Fields,
}

impl Chosen {
    /// An ad-hoc server: recorded in its [`written_form`], messages name it masked.
    fn adhoc(mut selected: Selected) -> Self {
        let shown = written_form(&selected.spec.transport);
        let masked = masked_parts(&selected.spec.transport);
        let kept = kept::fields(&selected.spec.transport, &shown);
        selected.shown = Some(shown.clone());
        Chosen {
            selected,
            shown,
            masked,
            kept,
        }
    }

    /// A server whose recorded form is `shown`, already free of literal secrets.
    fn written(mut selected: Selected, shown: TransportSpec) -> Self {
        selected.shown = Some(shown.clone());
        Chosen {
            selected,
            shown,
            masked: Vec::new(),
            kept: Fields::new(),
        }
    }
}

/// The server definitions a context set records, the folder its relative paths are
/// relative to (see [`super::relative`]), and whether the set is a file at all (no file and
/// no server anywhere is a first run: the demo, with a note).
#[derive(Debug, Clone, Copy)]
pub struct SetServers<'a> {
    pub servers: &'a BTreeMap<String, TransportSpec>,
    pub folder: Option<&'a Path>,
    pub on_disk: bool,
}

/// The servers of a context command: those the command line names (a `--server` name may
/// also come from the set), else the set's servers, else every defined server (or the demo).
/// Loads the config only when the choice needs it.
/// Servers a project's files or the set define run only once approved ([`gate`]).
pub fn choose(choice: &ServerChoice, set: SetServers) -> Selection<Chosen> {
    choose_and_hold(choice, set).0
}

/// [`choose`], and the servers it held back for approval (`serve` tells its clients which).
pub fn choose_and_hold(choice: &ServerChoice, set: SetServers) -> (Selection<Chosen>, Vec<Held>) {
    let places = Places::system();
    let mut selection = choose_at(&places, choice, set);
    let mut held = Vec::new();
    if let Ok(servers) = &mut selection.servers {
        let (project, folder) = (&places.project, set.folder);
        held = gate_system(
            servers,
            |c| &mut c.selected,
            project,
            folder,
            &mut selection.notes,
        );
    }
    (selection, held)
}

/// [`choose`] with config files found from `places`.
pub fn choose_at(places: &Places, choice: &ServerChoice, set: SetServers) -> Selection<Chosen> {
    let needs_config = !choice.servers.is_empty() || !choice.names_servers();
    let (config, warnings) = if needs_config {
        load_config_at(places, choice.config_file.as_deref())
    } else {
        (Config::default(), Vec::new())
    };
    let mut notes = Vec::new();
    Selection {
        servers: choose_from(choice, set, &config, &mut notes),
        warnings,
        notes,
    }
}

/// [`choose`] with the config already loaded (the TUI loads it once, for its keys too); what
/// the person should hear about the choice goes to `notes`.
pub fn choose_from(
    choice: &ServerChoice,
    set: SetServers,
    config: &Config,
    notes: &mut Vec<String>,
) -> Result<Vec<Chosen>, String> {
    let mut chosen = Vec::new();
    if !choice.names_servers() && !set.servers.is_empty() {
        for (name, written) in set.servers {
            chosen.push(by_name(name, config, Some(written), set.folder)?);
        }
        return Ok(chosen);
    }
    for name in &choice.servers {
        if chosen
            .iter()
            .any(|c: &Chosen| &c.selected.spec.name == name)
        {
            continue;
        }
        chosen.push(by_name(name, config, set.servers.get(name), set.folder)?);
    }
    if choice.adhoc() {
        let only_adhoc = ServerChoice {
            servers: Vec::new(),
            ..choice.clone()
        };
        let cwd = std::env::current_dir().ok();
        for selected in select_from(&only_adhoc, &Config::default(), false, notes)? {
            let mut chosen_one = Chosen::adhoc(selected);
            // Relative paths on the command line are relative to here; the set stores them
            // relative to its own folder (see `config::relative`).
            if let (Some(cwd), Some(folder)) = (&cwd, set.folder) {
                chosen_one.shown = to_set_relative(&chosen_one.shown, cwd, folder);
                chosen_one.kept =
                    kept::fields(&chosen_one.selected.spec.transport, &chosen_one.shown);
            }
            chosen.push(chosen_one);
        }
    }
    if chosen.is_empty() {
        for selected in select_from(choice, config, !set.on_disk, notes)? {
            match config
                .get(&selected.spec.name)
                .and_then(|k| k.definition.shown.clone())
            {
                Some(shown) => chosen.push(Chosen::written(selected, shown)),
                None => chosen.push(Chosen::adhoc(selected)),
            }
        }
    }
    Ok(chosen)
}

/// A named server: its config definition, else the set's (its relative paths resolved
/// against the set's `folder`).
fn by_name(
    name: &str,
    config: &Config,
    written: Option<&TransportSpec>,
    folder: Option<&Path>,
) -> Result<Chosen, String> {
    if let Some(known) = config.get(name) {
        let selected = Selected::from_definition(&known.definition);
        return Ok(match known.definition.shown.clone() {
            Some(shown) => Chosen::written(selected, shown),
            None => Chosen::adhoc(selected),
        });
    }
    let Some(written) = written else {
        return Err(unknown_server(name, config));
    };
    let kept = kept_for_set(name, written, folder);
    let selected = match expand_written(name, written, &kept) {
        Ok(mut spec) => {
            if let Some(folder) = folder {
                spec.transport = from_set_relative(&spec.transport, folder);
            }
            Selected {
                origin: Origin::Set,
                ..Selected::ready(spec)
            }
        }
        Err(error) => Selected {
            spec: ServerSpec {
                name: name.to_string(),
                transport: written.clone(),
            },
            error: Some(format!("the context set's definition of `{name}`: {error}")),
            shown: None,
            origin: Origin::Set,
        },
    };
    // The set holds the definition as written; clean it again in case the file was edited
    // by hand (a literal secret in a set is not shown either).
    Ok(Chosen::written(selected, masked_form(written)))
}

/// This user's kept secrets for the set's definition `written` of `name` (none unless it
/// holds a masked value; an unreadable store keeps nothing, and the masked value is then
/// refused with its reason).
fn kept_for_set(name: &str, written: &TransportSpec, folder: Option<&Path>) -> Fields {
    if !kept::holds_mask(written) {
        return Fields::new();
    }
    let project = set_project(&Places::system().project, folder);
    kept::Store::system()
        .and_then(|store| store.load().ok())
        .map(|k| k.get(&project, name, written))
        .unwrap_or_default()
}

/// Remembers, for the set's project, what the definitions the person gave themselves (the
/// command line, their own config) and a set records need: the secrets masking took out
/// (kept in the user data directory, see [`super::kept`]), and their approval: the next run
/// reads them from the set, and they are what this person already chose to run here. The
/// form approved is the one read back from the set (expanded with the kept secrets,
/// relative paths against `set_folder`), exactly what a later run would start.
pub fn remember_recorded(chosen: &[Chosen], set_folder: Option<&Path>) -> Result<(), String> {
    let project = Places::system().project;
    let folder = set_project(&project, set_folder);
    let mine_recorded: Vec<&Chosen> = chosen
        .iter()
        .filter(|c| c.selected.origin == Origin::Yours && c.selected.error.is_none())
        .collect();
    // Every server is kept or forgotten: no short cut after the first change.
    let keep = |k: &mut kept::KeptSecrets| {
        let mut changed = false;
        for c in &mine_recorded {
            changed |= k.keep(&folder, &c.selected.spec.name, &c.shown, c.kept.clone());
        }
        changed
    };
    match kept::Store::system() {
        // Read first: most runs have nothing to keep or forget, and write nothing.
        Some(store) if store.load().map_or(true, |mut k| keep(&mut k)) => store.update(keep)?,
        Some(_) => {}
        None if mine_recorded.iter().any(|c| !c.kept.is_empty()) => {
            return Err("no user data directory to keep the set's secrets in".into());
        }
        None => {}
    }
    let mut mine = Vec::new();
    for c in chosen {
        if c.selected.origin != Origin::Yours || c.selected.error.is_some() {
            continue;
        }
        let name = &c.selected.spec.name;
        let Ok(mut spec) = expand_written(name, &c.shown, &c.kept) else {
            continue;
        };
        if let Some(set_folder) = set_folder {
            spec.transport = from_set_relative(&spec.transport, set_folder);
        }
        mine.push((name.clone(), spec.transport, c.shown.target()));
    }
    let Some(store) = Store::system() else {
        return Ok(());
    };
    if mine.is_empty()
        || store.load().is_ok_and(|approvals| {
            mine.iter()
                .all(|(_, transport, _)| approvals.is_approved(&folder, transport))
        })
    {
        return Ok(());
    }
    store.update(|approvals| {
        for (name, transport, shown) in &mine {
            approvals.approve(&folder, name, transport, shown);
        }
    })
}

/// [`gate`] with this user's approvals (an unreadable store approves nothing, and says so).
pub fn gate_system<T>(
    servers: &mut [T],
    selected: impl Fn(&mut T) -> &mut Selected,
    project: &Path,
    set_folder: Option<&Path>,
    notes: &mut Vec<String>,
) -> Vec<Held> {
    let approvals = match Store::system() {
        Some(store) => store.load(),
        None => Err("no user data directory to keep approvals in".to_string()),
    };
    gate(
        servers.iter_mut().map(selected),
        project,
        set_folder,
        approvals.as_ref().map_err(String::as_str),
        notes,
    )
}

/// A server [`gate`] did not start: its place among the servers given, the project whose
/// approval it waits for, and what to show the person who is asked to approve it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Held {
    pub position: usize,
    pub project: PathBuf,
    /// Its name as defined (untrusted: clean it before showing).
    pub name: String,
    /// The file that defines it.
    pub named_by: String,
    /// What it runs, whole, one part a line ([`super::trust::describe`]; cleaned).
    pub runs: Vec<String>,
    /// Its definition as written, kept with the approval (`mcpick trust --list`).
    pub shown: String,
}

/// Marks every ready server whose definition comes from the project's files (`project`: the
/// working directory) or from the context set (`set_folder`: its project) and that the person
/// has not approved as failed, so it is never started, and says once in `notes` which and how
/// to approve them. A server the person gave themselves is left as it is. Returns those held.
pub fn gate<'a>(
    servers: impl Iterator<Item = &'a mut Selected>,
    project: &Path,
    set_folder: Option<&Path>,
    approvals: Result<&Approvals, &str>,
    notes: &mut Vec<String>,
) -> Vec<Held> {
    let mut held = Vec::new();
    let mut names = Vec::new();
    // Approved once, but a file the command names changed since: said apart, with the file.
    let mut changed = Vec::new();
    for (position, selected) in servers.enumerate() {
        if selected.error.is_some() {
            continue;
        }
        let Some((folder, named_by)) = selected.origin.needs_approval(project, set_folder) else {
            continue;
        };
        let verdict = approvals.map_or(Verdict::NotApproved, |a| {
            a.check(&folder, &selected.spec.transport)
        });
        if verdict == Verdict::Approved {
            continue;
        }
        let mut runs = Vec::new();
        if let Verdict::FilesChanged(files) = &verdict {
            let files: Vec<String> = files.iter().map(|f| sanitize::for_decision(f)).collect();
            runs.push(format!(
                "changed since you approved it: {} (review what it runs now)",
                files.join(", ")
            ));
        }
        runs.extend(super::trust::describe(selected));
        runs.extend(super::trust::covers(&folder, &selected.spec.transport));
        held.push(Held {
            position,
            project: folder.clone(),
            name: selected.spec.name.clone(),
            named_by: named_by.clone(),
            runs,
            shown: selected.shown_target(),
        });
        let name = sanitize::line(&selected.spec.name, 200);
        selected.error = Some(match &verdict {
            Verdict::FilesChanged(_) => format!(
                "not started: {}; review and approve it again with `{HOW_TO_APPROVE}`",
                verdict.why_held(&name).unwrap_or_default()
            ),
            _ => format!(
                "not started: `{name}` is defined by {named_by}, a file of the project, and you have not approved what it runs; review and approve it with `{HOW_TO_APPROVE}`"
            ),
        });
        match verdict.why_held(&name) {
            Some(why) if matches!(verdict, Verdict::FilesChanged(_)) => changed.push(why),
            _ => names.push(format!("`{name}`")),
        }
    }
    if held.is_empty() {
        return held;
    }
    let mut said = Vec::new();
    if !names.is_empty() {
        said.push(format!(
            "not started, not approved by you: {} (defined by this project's files)",
            names.join(", ")
        ));
    }
    if !changed.is_empty() {
        said.push(format!("not started: {}", changed.join("; ")));
    }
    let mut note = format!(
        "{}; review what they run and approve them with `{HOW_TO_APPROVE}`",
        said.join("; ")
    );
    if let Err(why) = approvals {
        note.push_str(&format!(" (approvals cannot be read: {why})"));
    }
    notes.push(note);
    held
}

#[cfg(test)]
mod tests;
