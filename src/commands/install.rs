//! `mcpick install HOST` / `mcpick uninstall HOST`: mcpick's `serve` entry in a host's own
//! config file, through the host's dialect ([`crate::hosts`]). A project entry is shared (it
//! is committed with the project), so it runs `mcpick` from PATH with the set relative to the
//! project; a user entry names the running binary and the set by absolute path.

use std::path::{Component, Path, PathBuf};

use super::{Exit, report, usage_error};
use crate::cli::{InstallArgs, UninstallArgs};
use crate::hosts::install::{self, Plan, Refused};
use crate::hosts::{Dialect, Host, Launch, Places, Scope, is_ours};

/// The scope given, else project where the host has a project file, else user.
pub(crate) fn scope_of(dialect: &Dialect, scope: Option<Scope>) -> Result<Scope, String> {
    match scope {
        Some(Scope::Project) if dialect.project_file.is_none() => Err(format!(
            "{} has no project-scope file; use --scope user",
            dialect.name
        )),
        Some(scope) => Ok(scope),
        None if dialect.project_file.is_some() => Ok(Scope::Project),
        None => Ok(Scope::User),
    }
}

pub fn install(args: InstallArgs) -> Exit {
    let places = Places::system();
    if args.list {
        return list(&places, &args.set.path);
    }
    let Some(host) = args.host else {
        return usage_error("give a HOST, or --list");
    };
    let dialect = host.dialect();
    let scope = match scope_of(dialect, args.scope) {
        Ok(scope) => scope,
        Err(message) => return usage_error(&message),
    };
    let Some(path) = dialect.file(scope, &places) else {
        return usage_error(&format!(
            "cannot tell where {}'s {} file is (no home directory)",
            dialect.name,
            scope.name()
        ));
    };
    let launch = match launch(dialect, scope, &places, &args.set.path, &args.name) {
        Ok(launch) => launch,
        Err(message) => return usage_error(&message),
    };
    edit(&path, args.dry_run, |before| {
        install::plan_install(dialect, before, &args.name, &launch, args.force)
    })
    .map_or_else(
        |exit| exit,
        |outcome| {
            match outcome {
                Done::Unchanged => eprintln!(
                    "mcpick: {} already has `{}`; nothing changed",
                    path.display(),
                    args.name
                ),
                Done::Written { backup, replaced } => {
                    println!(
                        "{} `{}` in {} ({}, {} scope): {} {}",
                        if replaced { "updated" } else { "installed" },
                        args.name,
                        path.display(),
                        dialect.name,
                        scope.name(),
                        launch.command,
                        launch.args.join(" ")
                    );
                    if let Some(backup) = backup {
                        println!("the original is kept in {}", backup.display());
                    }
                }
                Done::Shown => {}
            }
            Exit::Ok
        },
    )
}

pub fn uninstall(args: UninstallArgs) -> Exit {
    let places = Places::system();
    let dialect = args.host.dialect();
    let scope = match scope_of(dialect, args.scope) {
        Ok(scope) => scope,
        Err(message) => return usage_error(&message),
    };
    let Some(path) = dialect.file(scope, &places) else {
        return usage_error("no home directory");
    };
    match edit(&path, args.dry_run, |before| {
        install::plan_uninstall(dialect, before, &args.name)
    }) {
        Err(exit) => exit,
        Ok(Done::Unchanged) => {
            eprintln!(
                "mcpick: {} has no entry `{}`; nothing changed",
                path.display(),
                args.name
            );
            Exit::Ok
        }
        Ok(Done::Written { backup, .. }) => {
            println!("removed `{}` from {}", args.name, path.display());
            if let Some(backup) = backup {
                println!("the original is kept in {}", backup.display());
            }
            Exit::Ok
        }
        Ok(Done::Shown) => Exit::Ok,
    }
}

enum Done {
    Unchanged,
    Written {
        backup: Option<PathBuf>,
        replaced: bool,
    },
    /// `--dry-run`: the diff was printed.
    Shown,
}

/// Reads the file, plans, and prints the diff (`dry_run`) or commits the change.
fn edit(
    path: &Path,
    dry_run: bool,
    plan: impl Fn(Option<&str>) -> Result<Plan, Refused>,
) -> Result<Done, Exit> {
    let before = install::read(path).map_err(|e| {
        report(&format!("{}: cannot read the file: {e}", path.display()));
        Exit::ServerFailed
    })?;
    let (text, replaced) = match plan(before.as_deref()) {
        Ok(Plan::Unchanged) => return Ok(Done::Unchanged),
        Ok(Plan::Change { text, replaced }) => (text, replaced),
        Err(Refused::Unreadable(why)) => {
            report(&format!(
                "{}: {why}; the file was left as it is",
                path.display()
            ));
            return Err(Exit::ServerFailed);
        }
        Err(Refused::Foreign { name, entry }) => {
            report(&format!(
                "{}: `{name}` is not an entry mcpick wrote ({}); it was left as it is. Use --force to replace it, or --as ANOTHER_NAME",
                path.display(),
                describe(&entry)
            ));
            return Err(Exit::Usage);
        }
    };
    if dry_run {
        print!("{}", install::diff(path, before.as_deref(), &text));
        return Ok(Done::Shown);
    }
    match install::commit(path, before.as_deref(), &text) {
        Ok(backup) => Ok(Done::Written { backup, replaced }),
        Err(e) => {
            report(&format!("{}: {e}", path.display()));
            Err(Exit::ServerFailed)
        }
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
    let (command, set_arg) = entry_path(dialect, scope, places, set, "set")?;
    let mut args = vec!["serve".to_string(), "--set".to_string(), set_arg];
    if name != "mcpick" {
        args.extend(["--as".to_string(), name.to_string()]);
    }
    Ok(Launch { command, args })
}

/// The command an entry runs and how it names the file `path` (`what` names it in errors).
/// Project scope: `mcpick` from PATH and the path relative to the project (through the
/// host's workspace variable where it has one), so the entry can be committed. User scope:
/// this binary and the absolute path.
pub(crate) fn entry_path(
    dialect: &Dialect,
    scope: Scope,
    places: &Places,
    path: &Path,
    what: &str,
) -> Result<(String, String), String> {
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
            ("mcpick".to_string(), arg)
        }
        Scope::User => {
            let exe = std::env::current_exe()
                .and_then(std::fs::canonicalize)
                .map_err(|e| format!("cannot tell where this mcpick binary is: {e}"))?;
            (
                exe.to_string_lossy().into_owned(),
                absolute.to_string_lossy().into_owned(),
            )
        }
    })
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

/// `--list`: every host's files, whether they exist, and mcpick's entries in them.
fn list(places: &Places, set: &Path) -> Exit {
    let mut exit = Exit::Ok;
    for host in Host::ALL {
        let dialect = host.dialect();
        for scope in [Scope::Project, Scope::User] {
            let Some(path) = dialect.file(scope, places) else {
                continue;
            };
            let state = match install::read(&path) {
                Ok(None) => "no file".to_string(),
                Err(e) => {
                    exit = Exit::ServerFailed;
                    format!("cannot read: {e}")
                }
                Ok(Some(text)) => match install::ours(dialect, &text) {
                    Err(why) => {
                        exit = Exit::ServerFailed;
                        why
                    }
                    Ok(entries) if entries.is_empty() => "no mcpick entry".to_string(),
                    Ok(entries) => entries
                        .iter()
                        .map(|(name, entry)| {
                            if crate::hosts::wrap::is_wrapped(entry) {
                                return format!(
                                    "`{name}` wrapped by mcpick (`mcpick unwrap` restores it)"
                                );
                            }
                            debug_assert!(is_ours(entry));
                            let args = entry["args"]
                                .as_array()
                                .map(|a| {
                                    a.iter()
                                        .filter_map(|v| v.as_str())
                                        .collect::<Vec<_>>()
                                        .join(" ")
                                })
                                .unwrap_or_default();
                            format!("mcpick entry `{name}`: {args}")
                        })
                        .collect::<Vec<_>>()
                        .join("; "),
                },
            };
            println!(
                "{:<15} {:<8} {}  {}",
                dialect.name,
                scope.name(),
                path.display(),
                crate::sanitize::line(&state, 500)
            );
        }
    }
    super::deliver::list(set);
    exit
}
