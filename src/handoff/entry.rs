//! mcpick's `serve` entry in a host's own config file, through the host's dialect
//! ([`crate::hosts`]): planned on the file as read (shown as a diff), then written or taken
//! back. A project entry is shared (committed with the project), so it runs `mcpick` from PATH
//! with the set relative to the project; a user entry names this binary and the set by
//! absolute path.

use std::path::{Component, Path, PathBuf};

use crate::hosts::install::{self, Plan, Refused};
use crate::hosts::{Dialect, Host, Launch, Places, Scope};

/// The scope given, else project where the host has a project file, else user.
pub fn scope_of(dialect: &Dialect, scope: Option<Scope>) -> Result<Scope, String> {
    match scope {
        // No entry: the scope is the delivery's.
        scope if !dialect.mcp => Ok(scope.unwrap_or(Scope::Project)),
        Some(Scope::Project) if dialect.project_file.is_none() => Err(format!(
            "{} has no project-scope file; use --scope user",
            dialect.name
        )),
        Some(scope) => Ok(scope),
        None if dialect.project_file.is_some() => Ok(Scope::Project),
        None => Ok(Scope::User),
    }
}

/// mcpick's entry for a set in one host's file, planned and not yet written: what
/// `install` writes, what `--dry-run` and the browser's hand-off show before it is confirmed.
#[derive(Debug, Clone)]
pub struct EntryPlan {
    pub host: Host,
    pub scope: Scope,
    pub name: String,
    pub launch: Launch,
    pub edit: Edit,
}

/// Why an entry was not planned: the message, and what kind of refusal it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotPlanned {
    /// What was refused and why, for people.
    pub why: String,
    pub refusal: Refusal,
}

impl NotPlanned {
    /// Refused for what was asked (a usage error).
    pub fn request(why: impl Into<String>) -> Self {
        NotPlanned {
            why: why.into(),
            refusal: Refusal::Request,
        }
    }

    /// Refused because something failed on the way (a file could not be read).
    pub fn failed(why: impl Into<String>) -> Self {
        NotPlanned {
            why: why.into(),
            refusal: Refusal::Failed,
        }
    }
}

/// What kind of refusal a plan met; `commands` says which exit code each means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// What was asked cannot be done as asked: a name, a scope, a file outside the project,
    /// an entry that is not mcpick's.
    Request,
    /// What the plan needs could not be read or prepared.
    Failed,
}

/// Plans `host`'s entry serving `set` as `name` (the scope given, else the host's default).
pub fn plan_entry(
    host: Host,
    scope: Option<Scope>,
    places: &Places,
    set: &Path,
    name: &str,
    force: bool,
) -> Result<EntryPlan, NotPlanned> {
    if name.trim().is_empty() {
        return Err(NotPlanned::request(
            "--as: the entry needs a name (the server name the host shows)",
        ));
    }
    // The entry serves the set: one that is missing or unusable would hand the host nothing
    // (or, before, the demo), so nothing is written.
    match crate::context::ContextSet::load(set) {
        Ok(loaded) if loaded.on_disk => {}
        Ok(_) => {
            let path = crate::sanitize::line(&set.display().to_string(), 500);
            return Err(NotPlanned::request(format!(
                "nothing installed: {}",
                crate::context::missing_set(&path)
            )));
        }
        Err(e) => {
            return Err(NotPlanned::request(format!(
                "nothing installed: {}",
                crate::sanitize::line(&e.to_string(), 2000)
            )));
        }
    }
    let dialect = host.dialect();
    let (scope, path) = host_file(dialect, scope, places).map_err(NotPlanned::request)?;
    let launch = launch(dialect, scope, places, set, name).map_err(NotPlanned::request)?;
    let edit = Edit::plan(&path, true, within(scope, places), |before| {
        install::plan_install(dialect, before, name, &launch, force)
    })?;
    Ok(EntryPlan {
        host,
        scope,
        name: name.to_string(),
        launch,
        edit,
    })
}

impl EntryPlan {
    /// Writes the entry; the line that says what was done, where the original is kept, and a
    /// warning when that copy holds literal secrets.
    pub fn commit(&self) -> Result<super::Written, String> {
        let path = self.edit.path.display();
        match self.edit.commit()? {
            Committed::Unchanged | Committed::Removed => Ok(super::Written {
                lines: vec![format!(
                    "{path} already has `{}`; nothing changed",
                    shown(&self.name)
                )],
                ..Default::default()
            }),
            Committed::Written(backup) => {
                let mut lines = vec![crate::sanitize::line(
                    &format!(
                        "{} `{}` in {path} ({}, {} scope): {} {}",
                        if self.edit.replaced() {
                            "updated"
                        } else {
                            "installed"
                        },
                        self.name,
                        self.host.dialect().name,
                        self.scope.name(),
                        self.launch.command,
                        self.launch.args.join(" ")
                    ),
                    4000,
                )];
                let mut warnings = Vec::new();
                if let Some(backup) = backup {
                    lines.push(format!(
                        "the file as it was is kept in {}",
                        backup.display()
                    ));
                    let secrets = self.edit.before.as_deref().map_or_else(Vec::new, |text| {
                        install::literal_secrets(self.host.dialect(), text)
                    });
                    if !secrets.is_empty() {
                        warnings.push(format!(
                            "{} copies literal values that may be secrets ({}): keep it out of version control, and write them as `${{VAR}}` in the host file",
                            backup.display(),
                            secrets.join(", ")
                        ));
                    }
                }
                Ok(super::Written {
                    lines,
                    warnings,
                    notes: Vec::new(),
                })
            }
        }
    }
}

/// What approving the entry `install` just wrote came to: the line that says what was
/// approved (for stderr), or why nothing was.
#[derive(Debug, Default)]
pub struct Approval {
    pub approved: Option<String>,
    pub warning: Option<String>,
}

/// Approves, for the project, exactly the entry this plan wrote: the definition the project's
/// files give `name` is approved only when it comes from the file install edited and that
/// file holds, under `name`, byte for byte the entry install wrote (mcpick itself, its
/// arguments, no environment, no folder). Anything else (a `mcpick.toml` or another file
/// defining the same name, an entry changed since) is a project's own command and waits for
/// `mcpick trust` like every other: a repository must not get its server approved by a
/// routine install.
pub fn approve_entry(places: &Places, plan: &EntryPlan) -> Approval {
    use crate::config::select;
    let dialect = plan.host.dialect();
    let name = plan.name.as_str();
    let shown_name = shown(name);
    let written = (dialect.entry)(&plan.launch);
    let on_disk = install::read(&plan.edit.path)
        .ok()
        .flatten()
        .and_then(|text| crate::hosts::doc::Doc::parse(dialect.format, &text).ok())
        .and_then(|doc| doc.get(dialect.servers_key, name).ok().flatten());
    if on_disk.as_ref() != Some(&written) {
        return Approval {
            approved: None,
            warning: Some(format!(
                "`{shown_name}` in {} is not the entry install wrote (changed since?); nothing was approved: review it with `{}`",
                plan.edit.path.display(),
                crate::config::trust::HOW_TO_APPROVE
            )),
        };
    }
    // The definition as mcpick reads it back from the file edited (winner or shadowed: the
    // approval is of what it runs, wherever the name is defined first).
    let (config, _) = select::load_config_at(places, None);
    let edited = std::fs::canonicalize(&plan.edit.path).ok();
    let exact = |transport: &crate::mcp::TransportSpec| {
        matches!(transport, crate::mcp::TransportSpec::Stdio { command, args, env, cwd }
            if *command == plan.launch.command
                && args.len() == plan.launch.args.len()
                && env.is_empty()
                && cwd.is_none())
    };
    let ours: Vec<_> = config
        .servers
        .iter()
        .flat_map(|known| std::iter::once(&known.definition).chain(&known.shadowed))
        .filter(|d| {
            d.name == name
                && d.scope == crate::config::Scope::Project
                && edited.is_some()
                && std::fs::canonicalize(&d.path).ok() == edited
        })
        .filter_map(|d| Some((d, d.spec.as_ref().ok()?)))
        .filter(|(_, spec)| exact(&spec.transport))
        .map(|(d, spec)| {
            let shown = d.shown.as_ref().unwrap_or(&spec.transport).target();
            (spec.transport.clone(), shown)
        })
        .collect();
    if ours.is_empty() {
        return Approval::default();
    }
    let Some(store) = crate::config::trust::Store::system() else {
        return Approval {
            approved: None,
            warning: Some(format!(
                "cannot remember the approval of `{shown_name}`: no user data directory"
            )),
        };
    };
    match store.update(|approvals| {
        for (transport, shown) in &ours {
            approvals.approve(&places.project, name, transport, shown);
        }
    }) {
        Ok(()) => Approval {
            approved: Some(crate::sanitize::line(
                &format!(
                    "approved for this project: `{name}` in {} ({} {}), the entry install wrote",
                    plan.edit.path.display(),
                    plan.launch.command,
                    plan.launch.args.join(" ")
                ),
                4000,
            )),
            warning: None,
        },
        Err(e) => Approval {
            approved: None,
            warning: Some(format!(
                "cannot remember the approval of `{shown_name}`: {e}"
            )),
        },
    }
}

/// The host file a command edits: the scope given (else the host's default) and its path;
/// why (a usage error) when there is none.
pub fn host_file(
    dialect: &Dialect,
    scope: Option<Scope>,
    places: &Places,
) -> Result<(Scope, PathBuf), String> {
    if !dialect.mcp {
        return Err(format!(
            "{} takes no MCP servers: it has no file of servers to write",
            dialect.host_name
        ));
    }
    let scope = scope_of(dialect, scope)?;
    let path = dialect.file(scope, places).ok_or_else(|| {
        format!(
            "cannot tell where {}'s {} file is (no home directory)",
            dialect.name,
            scope.name()
        )
    })?;
    Ok((scope, path))
}

/// Plans taking `name`'s entry out of `host`'s file (the scope given, else the host's
/// default): the file as it was when install created it, or without the entry. `before` is
/// an edit committed first (taking the per-turn hooks out): when it is of the same file, the
/// removal is planned on the text it leaves.
pub fn plan_removal(
    host: Host,
    scope: Option<Scope>,
    places: &Places,
    name: &str,
    before: Option<&Edit>,
) -> Result<Edit, NotPlanned> {
    let dialect = host.dialect();
    let (scope, path) = host_file(dialect, scope, places).map_err(NotPlanned::request)?;
    let within = within(scope, places);
    if name.trim().is_empty() {
        return Err(NotPlanned::request(
            "--as: the entry needs a name (the server name the host shows)",
        ));
    }
    let original = Edit::original(&path, within)?;
    let plan =
        |text: Option<&str>| install::plan_uninstall(dialect, text, original.as_deref(), name);
    match before.filter(|e| e.path == path) {
        Some(edit) => Edit::plan_on(
            &path,
            edit.text_after().map(str::to_owned),
            false,
            within,
            plan,
        ),
        None => Edit::plan(&path, false, within, plan),
    }
    .map(|edit| edit.within(places))
}

/// An edit of one host file, planned on the text read: shown as a diff, then committed
/// (which refuses when the file changed since it was read).
#[derive(Debug, Clone)]
pub struct Edit {
    pub path: PathBuf,
    before: Option<String>,
    /// The text after the edit; `None` removes the file (an uninstall of the only entry of a
    /// file `install` created). Unused when `unchanged`.
    after: Option<String>,
    unchanged: bool,
    replaced: bool,
    /// Keep the file as it was before the first change (installs only).
    backup: bool,
    /// Where a removal stops removing the folders it leaves empty (see [`Edit::within`]).
    roots: Vec<PathBuf>,
    /// The project, at project scope: the file and its backup must really be in it
    /// ([`install::real_target`]).
    confined: Option<PathBuf>,
}

/// The folder a host file of `scope` must really be in: the project at project scope (the
/// file is shared with it, so a committed link must not lead to the user's own files),
/// nothing at user scope.
pub(crate) fn within(scope: Scope, places: &Places) -> Option<&Path> {
    (scope == Scope::Project).then_some(places.project.as_path())
}

/// What [`Edit::commit`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum Committed {
    Unchanged,
    /// Written; the backup made, if this was the first change.
    Written(Option<PathBuf>),
    Removed,
}

/// The `--as` name as messages show it (the file gets it as given).
pub fn shown(name: &str) -> String {
    crate::sanitize::line(name, 200)
}

impl Edit {
    /// Reads the file and plans the change.
    fn plan(
        path: &Path,
        backup: bool,
        within: Option<&Path>,
        plan: impl Fn(Option<&str>) -> Result<Plan, Refused>,
    ) -> Result<Edit, NotPlanned> {
        Edit::confined(path, within)?;
        let before = install::read(path).map_err(|e| {
            NotPlanned::failed(format!("{}: cannot read the file: {e}", path.display()))
        })?;
        Edit::plan_on(path, before, backup, within, plan)
    }

    /// The real file an edit of `path` changes, refused before anything is read or planned
    /// when it leaves `within` ([`install::real_target`]).
    pub(crate) fn confined(path: &Path, within: Option<&Path>) -> Result<PathBuf, NotPlanned> {
        install::real_target(path, within).map_err(|e| NotPlanned::request(e.to_string()))
    }

    /// The file as it was before `install` first changed it (its backup), checked as the
    /// file itself is; `None` when there is none.
    pub(crate) fn original(
        path: &Path,
        within: Option<&Path>,
    ) -> Result<Option<String>, NotPlanned> {
        let target = Edit::confined(path, within)?;
        let backup = install::real_backup(&target, within)
            .map_err(|e| NotPlanned::request(e.to_string()))?;
        Ok(install::read(&backup).ok().flatten())
    }

    /// Plans the change on `before`, the text the file will hold when this edit is committed
    /// (what it holds now, or what an edit of the same file committed before this one leaves).
    pub(crate) fn plan_on(
        path: &Path,
        before: Option<String>,
        backup: bool,
        within: Option<&Path>,
        plan: impl Fn(Option<&str>) -> Result<Plan, Refused>,
    ) -> Result<Edit, NotPlanned> {
        let target = Edit::confined(path, within)?;
        let plan = match plan(before.as_deref()) {
            Ok(plan) => plan,
            Err(Refused::Unreadable(why)) => {
                return Err(NotPlanned::failed(format!(
                    "{}: {why}; the file was left as it is",
                    path.display()
                )));
            }
            Err(Refused::Foreign { name, entry }) => {
                return Err(NotPlanned::request(format!(
                    "{}: `{}` is not an entry mcpick wrote ({}); it was left as it is. Use --force to replace it, or --as ANOTHER_NAME",
                    path.display(),
                    shown(&name),
                    describe(&entry)
                )));
            }
        };
        let (after, unchanged, replaced) = match plan {
            Plan::Unchanged => (None, true, false),
            Plan::Change { text, replaced } => (Some(text), false, replaced),
            // Removed only when install created it (no backup of an original exists).
            Plan::Delete { text }
                if install::real_backup(&target, within).is_ok_and(|b| b.exists()) =>
            {
                (Some(text), false, true)
            }
            Plan::Delete { .. } => (None, false, true),
        };
        Ok(Edit {
            path: path.to_path_buf(),
            before,
            after,
            unchanged,
            replaced,
            backup,
            roots: Vec::new(),
            confined: within.map(Path::to_path_buf),
        })
    }

    /// A removal of the file also removes the host folders it leaves empty, up to the
    /// project or the home folder of `places` (without this, it removes no folder).
    pub(crate) fn within(mut self, places: &Places) -> Self {
        self.roots = [Some(places.project.clone()), places.home.clone()]
            .into_iter()
            .flatten()
            .collect();
        self
    }

    /// What the file holds once this edit is committed (`None`: no file).
    pub fn text_after(&self) -> Option<&str> {
        if self.unchanged {
            self.before.as_deref()
        } else {
            self.after.as_deref()
        }
    }

    /// The file as it was read, before this edit.
    pub fn text_before(&self) -> Option<&str> {
        self.before.as_deref()
    }

    /// The file already says this.
    pub fn is_unchanged(&self) -> bool {
        self.unchanged
    }

    fn replaced(&self) -> bool {
        self.replaced
    }

    /// The change as a unified diff (empty when there is none).
    pub fn diff(&self) -> String {
        if self.unchanged {
            return String::new();
        }
        install::diff(&self.path, self.before.as_deref(), self.after.as_deref())
    }

    /// Writes the change (refused when the file changed since it was read).
    pub fn commit(&self) -> Result<Committed, String> {
        if self.unchanged {
            return Ok(Committed::Unchanged);
        }
        let roots: Vec<&Path> = self.roots.iter().map(PathBuf::as_path).collect();
        install::commit(
            &self.path,
            self.before.as_deref(),
            self.after.as_deref(),
            self.backup,
            &roots,
            self.confined.as_deref(),
        )
        .map(|backup| match &self.after {
            None => Committed::Removed,
            Some(_) => Committed::Written(backup),
        })
        .map_err(|e| format!("{}: {e}", self.path.display()))
    }
}

/// An entry in one line for a message: its command, or its URL.
fn describe(entry: &serde_json::Value) -> String {
    let text = |key: &str| entry.get(key).and_then(|v| v.as_str()).map(str::to_owned);
    match (text("command"), text("url").or_else(|| text("httpUrl"))) {
        (Some(command), _) => format!("runs `{}`", crate::sanitize::line(&command, 200)),
        (None, Some(url)) => format!("connects to {}", crate::redact::url(&url)),
        _ => "another kind of entry".to_string(),
    }
}

/// What the entry runs. Project scope: `mcpick` from PATH and the set relative to the
/// project (through the host's workspace variable where it has one). User scope: this
/// binary and the set, by absolute path.
pub fn launch(
    dialect: &Dialect,
    scope: Scope,
    places: &Places,
    set: &Path,
    name: &str,
) -> Result<Launch, String> {
    let (program, set_arg) = entry_path(dialect, scope, places, set, "set")?;
    let mut extra = vec!["serve".to_string(), "--set".to_string(), set_arg];
    if name != "mcpick" {
        extra.extend(["--as".to_string(), name.to_string()]);
    }
    Ok(Launch::of(program, extra))
}

/// The command an entry runs and how it names the file `path` (`what` names it in errors).
/// Project scope: `mcpick` from PATH and the path relative to the project (through the
/// host's workspace variable where it has one), so the entry can be committed. User scope:
/// this binary and the absolute path.
pub fn entry_path(
    dialect: &Dialect,
    scope: Scope,
    places: &Places,
    path: &Path,
    what: &str,
) -> Result<(Vec<String>, String), String> {
    let project = std::fs::canonicalize(&places.project).unwrap_or(places.project.clone());
    let absolute = absolute_set(&project, path);
    Ok(match scope {
        Scope::Project => {
            let relative = absolute.strip_prefix(&project).map_err(|_| {
                format!(
                    "the {what} {} is outside the project {}: a project entry is shared with the project, so its {what} must be inside it (or use --scope user)",
                    absolute.display(),
                    project.display()
                )
            })?;
            let relative = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            let arg = match dialect.workspace_var {
                Some(var) => format!("{var}/{relative}"),
                None => relative,
            };
            (via_npx().unwrap_or_else(|| vec![project_program()]), arg)
        }
        Scope::User => {
            let program = match via_npx() {
                Some(words) => words,
                None => vec![
                    std::env::current_exe()
                        .and_then(std::fs::canonicalize)
                        .map_err(|e| format!("cannot tell where this mcpick binary is: {e}"))?
                        .to_string_lossy()
                        .into_owned(),
                ],
            };
            (program, absolute.to_string_lossy().into_owned())
        }
    })
}

/// `npx -y mcpick@VERSION` when npm's `npx` (or `npm exec`) started this binary: its launcher
/// says so in `MCPICK_NPX` (`mcpick@VERSION`, this binary's version). The binary then sits in
/// npm's cache, which npm may clean, so a host runs it the way it was run, by package.
pub(crate) fn via_npx() -> Option<Vec<String>> {
    let spec = std::env::var("MCPICK_NPX").ok()?;
    (spec == format!("mcpick@{}", env!("CARGO_PKG_VERSION")))
        .then(|| vec!["npx".to_string(), "-y".to_string(), spec])
}

/// What `mcpick` on `PATH` is, seen from this binary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OnPath {
    /// This very binary: a project entry can name `mcpick`.
    This,
    /// No `mcpick` on `PATH` (run from a checkout, `cargo run`, an unpacked archive).
    Absent,
    /// Another binary: another version, which the host would run instead of this one.
    Other(PathBuf),
}

/// Where `mcpick` on `PATH` leads, compared with this binary (links resolved).
pub fn on_path() -> OnPath {
    let this = std::env::current_exe().and_then(std::fs::canonicalize).ok();
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("mcpick"))
            .find(|candidate| {
                std::fs::metadata(candidate).is_ok_and(|m| {
                    use std::os::unix::fs::PermissionsExt;
                    m.is_file() && m.permissions().mode() & 0o111 != 0
                })
            })
    });
    match found {
        None => OnPath::Absent,
        Some(found) => match std::fs::canonicalize(&found) {
            Ok(real) if Some(&real) == this.as_ref() => OnPath::This,
            _ => OnPath::Other(found),
        },
    }
}

/// The program a project entry or hook runs: `mcpick` from `PATH` when that is this binary
/// (what a committed entry should say), else this binary by its path, so the host never gets
/// an entry that runs nothing or another version ([`path_note`] says so).
pub(crate) fn project_program() -> String {
    match on_path() {
        OnPath::This => "mcpick".to_string(),
        OnPath::Absent | OnPath::Other(_) => std::env::current_exe()
            .and_then(std::fs::canonicalize)
            .map(|exe| exe.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "mcpick".to_string()),
    }
}

/// What a person installing into a project file should know when `mcpick` on `PATH` is not
/// this binary: the entry names this binary by its path, which a clone elsewhere lacks.
pub fn path_note(host: Host) -> Option<String> {
    if let Some(words) = via_npx() {
        return Some(format!(
            "run through npx: the entry and hooks run `{}`, which npm fetches again when its cache no longer has it (offline, that needs the package in npm's cache; `npm install -g mcpick` gives a plain `mcpick`)",
            words.join(" ")
        ));
    }
    let why = match on_path() {
        OnPath::This => return None,
        OnPath::Absent => "`mcpick` is not on PATH".to_string(),
        OnPath::Other(other) => format!("`mcpick` on PATH is another binary ({})", other.display()),
    };
    let exe = std::env::current_exe().ok()?;
    Some(format!(
        "{why}: the entry and hooks run this binary by its path, {}, so {} starts it; a clone elsewhere needs mcpick on PATH (`cargo install --path .`, or put this binary there), then `mcpick install {}` again writes plain `mcpick`",
        exe.display(),
        host.dialect().host_name,
        host.name()
    ))
}

/// The set's absolute path, `.` and `..` resolved, its folder's symbolic links resolved when
/// it exists (so it compares with the canonical project folder).
fn absolute_set(project: &Path, set: &Path) -> PathBuf {
    let joined = project.join(set);
    let mut clean = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::ParentDir => {
                clean.pop();
            }
            Component::CurDir => {}
            other => clean.push(other),
        }
    }
    match (clean.parent(), clean.file_name()) {
        (Some(dir), Some(file)) => std::fs::canonicalize(dir)
            .map(|d| d.join(file))
            .unwrap_or(clean),
        _ => clean,
    }
}
