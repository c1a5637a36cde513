//! `mcpick wrap HOST NAME` / `mcpick unwrap HOST NAME`: the host's own entry NAME runs
//! `mcpick wrap-serve` in front of its original definition (see [`crate::hosts::wrap`] for
//! the edit and the side record, [`crate::wrap`] for the proxy).

use std::path::Path;

use super::{Exit, report, usage_error};
use crate::cli::{UnwrapArgs, WrapArgs};
use crate::handoff::entry::{entry_path, host_file, within};
use crate::hosts::install;
use crate::hosts::wrap::{self, PROXY_COMMAND, Plan, Record, Refused, Restore};
use crate::hosts::{Launch, Places};
use crate::serve::Expose;

/// The `--expose` value as written on a command line.
fn expose_name(expose: Expose) -> String {
    use clap::ValueEnum;
    expose
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string())
}

/// The entry that starts mcpick's proxy in front of the wrapped server: its record and the
/// set named as the host's file can reach them.
fn proxy_launch(
    dialect: &crate::hosts::Dialect,
    scope: crate::hosts::Scope,
    places: &Places,
    record_path: &Path,
    args: &WrapArgs,
) -> Result<Launch, String> {
    let paths =
        entry_path(dialect, scope, places, record_path, "record").and_then(|(command, record)| {
            entry_path(dialect, scope, places, &args.set.path, "set")
                .map(|(_, set)| (command, record, set))
        });
    let (command, record_arg, set_arg) = paths?;
    let mut proxy_args = vec![
        PROXY_COMMAND.into(),
        "--record".into(),
        record_arg,
        "--name".into(),
        args.name.clone(),
        "--set".into(),
        set_arg,
    ];
    // The default is left out, so entries wrapped before `--expose` existed read the same.
    if args.expose != Expose::Allowed {
        proxy_args.extend(["--expose".into(), expose_name(args.expose)]);
    }
    Ok(Launch::of(command, proxy_args))
}

pub fn wrap(args: WrapArgs) -> Exit {
    let places = Places::system();
    let dialect = args.host.dialect();
    let (scope, path) = match host_file(dialect, args.scope, &places) {
        Ok(found) => found,
        Err(message) => return usage_error(&message),
    };
    let within = within(scope, &places);
    // A project file that is a link out of the project is the user's own: not wrapped.
    if let Err(e) = install::real_target(&path, within) {
        return usage_error(&e.to_string());
    }
    let record_path = wrap::record_path(&path);
    let launch = match proxy_launch(dialect, scope, &places, &record_path, &args) {
        Ok(launch) => launch,
        Err(message) => return usage_error(&message),
    };
    let before = match install::read(&path) {
        Ok(before) => before,
        Err(e) => {
            report(&format!("{}: cannot read the file: {e}", path.display()));
            return Exit::ServerFailed;
        }
    };
    let mut record = match load_record(&record_path) {
        Ok(record) => record,
        Err(exit) => return exit,
    };
    let planned = match wrap::plan_wrap(dialect, before.as_deref(), &args.name, &launch) {
        // Wrapped with other arguments: wrapped again from the original, so `unwrap` still
        // gives back the file as it was before the first wrap.
        Ok(Plan::Rewrap) => match rewrap(
            dialect,
            &path,
            before.as_deref(),
            &args.name,
            &launch,
            &record,
        ) {
            Ok(planned) => Ok(planned),
            Err(exit) => return exit,
        },
        other => other,
    };
    let (text, wrapped) = match planned {
        Ok(Plan::Unchanged) => {
            report(&format!(
                "`{}` in {} is already wrapped; nothing changed",
                crate::sanitize::line(&args.name, 200),
                path.display()
            ));
            return Exit::Ok;
        }
        Ok(Plan::Change { text, wrapped }) => (text, wrapped),
        Ok(Plan::Rewrap) => unreachable!("planned from the unwrapped text"),
        Err(refused) => return refused_exit(&path, refused),
    };
    if args.dry_run {
        crate::out!("{}", install::diff(&path, before.as_deref(), Some(&text)));
        return Exit::Ok;
    }
    // The record first: a host file pointing at a record that is not there would fail.
    record.version = 1;
    record.entries.insert(args.name.clone(), wrapped);
    if let Err(e) = write_record(&record_path, &path, &record) {
        report(&format!("{}: {e}", record_path.display()));
        return Exit::ServerFailed;
    }
    approve_original(&record_path, &args.name);
    match install::commit(&path, before.as_deref(), Some(&text), true, &[], within) {
        Ok(_) => {
            crate::outln!(
                "wrapped `{}` in {} ({}, {} scope): the host now starts `{} {}` in front of it; the original is kept in {}",
                crate::sanitize::line(&args.name, 200),
                path.display(),
                dialect.name,
                scope.name(),
                launch.command,
                launch.args.join(" "),
                record_path.display()
            );
            Exit::Ok
        }
        Err(e) => {
            report(&format!("{}: {e}", path.display()));
            Exit::ServerFailed
        }
    }
}

pub fn unwrap(args: UnwrapArgs) -> Exit {
    let places = Places::system();
    let dialect = args.host.dialect();
    let (scope, path) = match host_file(dialect, args.scope, &places) {
        Ok(found) => found,
        Err(message) => return usage_error(&message),
    };
    let within = within(scope, &places);
    if let Err(e) = install::real_target(&path, within) {
        return usage_error(&e.to_string());
    }
    let record_path = wrap::record_path(&path);
    let mut record = match load_record(&record_path) {
        Ok(record) => record,
        Err(exit) => return exit,
    };
    let Some(wrapped) = record.entries.get(&args.name).cloned() else {
        return usage_error(&format!(
            "`{}` in {} was not wrapped by mcpick (no record of it in {})",
            crate::sanitize::line(&args.name, 200),
            path.display(),
            record_path.display()
        ));
    };
    let now = match install::read(&path) {
        Ok(Some(now)) => now,
        Ok(None) => return usage_error(&format!("{} does not exist", path.display())),
        Err(e) => {
            report(&format!("{}: cannot read the file: {e}", path.display()));
            return Exit::ServerFailed;
        }
    };
    let (text, exact) = match wrap::plan_unwrap(dialect, &now, &args.name, &wrapped) {
        Ok(Restore::Exact(text)) => (text, true),
        Ok(Restore::Reformatted(text)) => (text, false),
        Err(refused) => return refused_exit(&path, refused),
    };
    if args.dry_run {
        crate::out!("{}", install::diff(&path, Some(&now), Some(&text)));
        return Exit::Ok;
    }
    if let Err(e) = install::commit(&path, Some(&now), Some(&text), false, &[], within) {
        report(&format!("{}: {e}", path.display()));
        return Exit::ServerFailed;
    }
    record.entries.remove(&args.name);
    let forgotten = if record.entries.is_empty() {
        std::fs::remove_file(&record_path)
    } else {
        write_record(&record_path, &path, &record)
    };
    if let Err(e) = forgotten {
        report(&format!(
            "warning: {}: cannot update the record: {e}",
            record_path.display()
        ));
    }
    crate::outln!(
        "unwrapped `{}` in {}",
        crate::sanitize::line(&args.name, 200),
        path.display()
    );
    if !exact {
        report(&format!(
            "the lines `wrap` wrote were edited since, so `{}` was put back through the editor: its fields are the original's, its formatting may differ",
            args.name
        ));
    }
    Exit::Ok
}

/// The plan for an entry wrapped before with other arguments: the original put back (as
/// `unwrap` would), then wrapped with `launch`.
fn rewrap(
    dialect: &crate::hosts::Dialect,
    path: &Path,
    now: Option<&str>,
    name: &str,
    launch: &Launch,
    record: &Record,
) -> Result<Plan, Exit> {
    let Some(wrapped) = record.entries.get(name) else {
        return Err(usage_error(&format!(
            "`{}` runs `mcpick wrap-serve` but has no record; unwrap it by hand",
            crate::sanitize::line(name, 200)
        )));
    };
    let now = now.unwrap_or("");
    let restored = match wrap::plan_unwrap(dialect, now, name, wrapped) {
        Ok(Restore::Exact(text) | Restore::Reformatted(text)) => text,
        Err(refused) => return Err(refused_exit(path, refused)),
    };
    match wrap::plan_wrap(dialect, Some(&restored), name, launch) {
        Ok(plan @ Plan::Change { .. }) => Ok(plan),
        Ok(_) => Err(usage_error(&format!(
            "`{}`: its record's original is itself a wrapped entry; unwrap it first",
            crate::sanitize::line(name, 200)
        ))),
        Err(refused) => Err(refused_exit(path, refused)),
    }
}

fn refused_exit(path: &Path, refused: Refused) -> Exit {
    match refused {
        Refused::Unreadable(why) => {
            report(&format!(
                "{}: {why}; the file was left as it is",
                path.display()
            ));
            Exit::ServerFailed
        }
        Refused::Missing { name, names } => usage_error(&format!(
            "{} has no entry `{name}`; its entries: {}",
            path.display(),
            if names.is_empty() {
                "none".to_string()
            } else {
                names
                    .iter()
                    .map(|n| crate::sanitize::line(n, 100))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        )),
        Refused::Transport(what) => usage_error(&format!(
            "{}: the entry is {what}; it was left as it is",
            path.display()
        )),
        Refused::NotWrapped(why) => usage_error(&format!("{}: {why}", path.display())),
    }
}

/// The person chose to wrap this entry: a record that keeps literal secrets is said, and its
/// original, kept in a project's record, is approved for the project as it is now
/// (`wrap-serve` starts only an approved original; a record changed later waits for
/// `mcpick trust`).
fn approve_original(record_path: &Path, name: &str) {
    let Ok(original) = crate::wrap::original(record_path, name) else {
        return;
    };
    let literal = literal_values(&original.shown);
    if !literal.is_empty() {
        report(&format!(
            "note: {} keeps `{}`'s original entry as the host file had it, with the literal values that may be secrets ({}), under the host file's permissions: keep it (and a `.mcpick-backup` beside it) out of version control, or write the secrets as `${{VAR}}` in the host file first",
            record_path.display(),
            crate::sanitize::line(name, 200),
            literal.join(", "),
        ));
    }
    let (Some(project), Some(store)) = (original.project, crate::config::trust::Store::system())
    else {
        return;
    };
    let shown = original.shown.target();
    if let Err(e) = store.update(|a| a.approve(&project, name, &original.key, &shown)) {
        report(&format!(
            "warning: cannot remember the approval of `{name}`'s original: {e}"
        ));
    }
}

/// The values the definition as written holds literally that may be secrets: those its
/// shown form masks (env and header values without a `${VAR}`, secret-looking arguments,
/// a URL's credentials), named for a person.
fn literal_values(shown: &crate::mcp::TransportSpec) -> Vec<String> {
    use crate::mcp::TransportSpec;
    use crate::redact::{MASK, is_masked};
    let named = |what: &str, map: &std::collections::BTreeMap<String, String>| {
        map.iter()
            .filter(|(_, v)| is_masked(v))
            .map(|(k, _)| format!("{what} `{}`", crate::sanitize::line(k, 100)))
            .collect::<Vec<_>>()
    };
    match shown {
        TransportSpec::Stdio { args, env, .. } => {
            let mut out = named("env", env);
            out.extend(
                args.iter()
                    .enumerate()
                    .filter(|(_, a)| a.contains(MASK))
                    .map(|(i, _)| format!("argument {}", i + 1)),
            );
            out
        }
        TransportSpec::Http { url, headers } | TransportSpec::Sse { url, headers } => {
            let mut out = named("header", headers);
            if url.contains(MASK) {
                out.push("the URL's credentials".into());
            }
            out
        }
    }
}

/// The side record; an empty one when there is none.
pub(crate) fn load_record(path: &Path) -> Result<Record, Exit> {
    match install::read(path) {
        Ok(None) => Ok(Record::default()),
        Ok(Some(text)) => serde_json::from_str(&text).map_err(|e| {
            report(&format!("{}: not a wrap record: {e}", path.display()));
            Exit::ServerFailed
        }),
        Err(e) => {
            report(&format!("{}: cannot read: {e}", path.display()));
            Err(Exit::ServerFailed)
        }
    }
}

/// Writes the record atomically, with the host file's permissions (it holds the original
/// entry, secrets and all: a private host file keeps a private record).
fn write_record(path: &Path, host_file: &Path, record: &Record) -> std::io::Result<()> {
    let mut text = serde_json::to_string_pretty(record).map_err(std::io::Error::other)?;
    text.push('\n');
    crate::fsio::write_with(
        path,
        text.as_bytes(),
        crate::fsio::Perms::KeepOrLike(host_file),
    )
}
