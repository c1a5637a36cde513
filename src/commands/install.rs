//! `mcpick install HOST` / `mcpick uninstall HOST`: the hand-off ([`crate::handoff`]) from
//! the command line: parse, plan, print the plan or make it, and say what was done.

use std::path::Path;

use super::context::connect_file;
use super::{Exit, report, usage_error};
use crate::cli::{InstallArgs, UninstallArgs};
use crate::handoff::entry::{Committed, shown};
use crate::handoff::{self, Written, delivery, hooks, make, profiles, start};
use crate::hosts::install;
use crate::hosts::{Host, Places, Scope, is_ours};

/// `mcpick install HOST`: the served entry, then (by default) session-start delivery.
pub async fn install(args: InstallArgs) -> Exit {
    let places = Places::system();
    if args.list {
        return list(&places, &args.set.path);
    }
    let Some(host) = args.host else {
        return usage_error("give a HOST, or --list");
    };
    let plan = match handoff::plan(
        host,
        args.scope,
        &places,
        &args.set.path,
        &args.name,
        args.force,
        args.deliver,
    ) {
        Ok(plan) => plan,
        Err(refused) => {
            report(&refused.why);
            return refused.refusal.into();
        }
    };
    // Said first: everything below rests on facts measured on one version of the host.
    if let Some(drift) = handoff::version::drift(host) {
        report(&format!("note: {}", drift.said()));
    }
    if args.dry_run {
        match &plan.entry {
            Some(entry) if entry.edit.is_unchanged() => report(&format!(
                "{} already has `{}`; nothing changed",
                entry.edit.path.display(),
                shown(&args.name)
            )),
            Some(entry) => crate::out!("{}", entry.edit.diff()),
            None => {}
        }
        for n in &plan.notes {
            report(n);
        }
        for line in plan.delivery_lines().into_iter().chain(plan.hook_lines()) {
            crate::outln!("{line}");
        }
        return Exit::Ok;
    }
    let mut notes = Vec::new();
    let told = |step: make::Step<'_>| match step {
        make::Step::Entry { written, unchanged } => {
            say_written(written, unchanged);
            notes.extend(written.notes.iter().cloned());
        }
        make::Step::Hooks { written, unchanged } => {
            say_written(written, unchanged);
            report_variables(&args.set.path);
            for n in notes.iter().chain(&written.notes) {
                report(&format!("note: {n}"));
            }
            for n in &plan.notes {
                report(n);
            }
        }
    };
    let connect = |_own| connect_file(&args.set.path);
    let made = make::make(&plan, &places, told, connect).await;
    let delivered = match made {
        Ok(delivered) => delivered,
        Err(make::Refused::Reading(exit)) => return exit,
        Err(
            make::Refused::Entry(why) | make::Refused::Hooks(why) | make::Refused::Delivery(why),
        ) => {
            report(&why);
            return Exit::ServerFailed;
        }
    };
    let Some(make::Delivered {
        written,
        read,
        reader,
    }) = delivered
    else {
        return Exit::Ok;
    };
    for w in &written.warnings {
        report(&format!("warning: {w}"));
    }
    for line in written.lines {
        crate::outln!("{line}");
    }
    let resolved = reader.close(read).await;
    // A skill the person pinned and did not get is a failure, said above.
    if resolved.failed.is_empty() && resolved.skills.iter().all(|s| s.outcome.is_ok()) {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}

/// A step's lines (on stdout when it changed something, else on stderr) and its warnings;
/// its notes are the caller's.
fn say_written(written: &Written, unchanged: bool) {
    if unchanged {
        written.lines.iter().for_each(|l| report(l));
    } else {
        written.lines.iter().for_each(|l| crate::outln!("{l}"));
    }
    for w in &written.warnings {
        report(&format!("warning: {w}"));
    }
}

/// Names the environment variables the set's servers read (`${VAR}`): the host starts
/// mcpick, so they must be set where the host runs.
fn report_variables(set: &std::path::Path) {
    let Ok(set) = crate::context::ContextSet::load(set) else {
        return;
    };
    let needed: Vec<String> = set
        .servers
        .iter()
        .flat_map(|(name, written)| {
            crate::config::written::variables(written)
                .into_iter()
                .map(move |var| format!("{var} (`{}`)", shown(name)))
        })
        .collect();
    if !needed.is_empty() {
        report(&format!(
            "note: the set's servers read these environment variables, which must be set where the host runs: {}",
            crate::sanitize::line(&needed.join(", "), 2000)
        ));
    }
}

/// `mcpick uninstall HOST`: every piece of its delivery, then the per-turn hooks and the entry
/// (all planned first: a refusal changes nothing).
pub fn uninstall(args: UninstallArgs) -> Exit {
    let places = Places::system();
    let scope = match handoff::entry::scope_of(args.host.dialect(), args.scope) {
        Ok(scope) => scope,
        Err(message) => return usage_error(&message),
    };
    // The hooks first: in Gemini CLI's settings they share the file with the entry, whose
    // removal is planned on what taking the hooks out leaves.
    let planned = || {
        let hooks = hooks::plan_removal(args.host, scope, &places, &args.name)?;
        if !args.host.dialect().mcp {
            return Ok::<_, handoff::NotPlanned>((hooks, None));
        }
        let edit = handoff::entry::plan_removal(
            args.host,
            args.scope,
            &places,
            &args.name,
            hooks.as_ref(),
        )?;
        Ok((hooks, Some(edit)))
    };
    let (mut hooks, mut edit) = match planned() {
        Ok(planned) => planned,
        Err(refused) => {
            report(&refused.why);
            return refused.refusal.into();
        }
    };
    // Then the delivery, before the entry is written: opencode lists the delivered file in the
    // config that holds the entry, and a file `install` created goes only once both are out.
    let mut delivery_exit = Exit::Ok;
    if !args.dry_run {
        delivery_exit = take_back_delivery(&args.set.path, args.host, scope, &args.name);
        match planned() {
            Ok(again) => (hooks, edit) = again,
            Err(refused) => {
                report(&refused.why);
                return refused.refusal.into();
            }
        }
    }
    if args.dry_run {
        let hooks_diff = hooks.as_ref().map(|h| h.diff()).unwrap_or_default();
        let entry_diff = edit.as_ref().map(|e| e.diff()).unwrap_or_default();
        if edit.as_ref().is_some_and(|e| !e.is_unchanged()) || !hooks_diff.is_empty() {
            crate::out!("{hooks_diff}{entry_diff}");
            return Exit::Ok;
        }
    }
    if let Some(hooks) = &hooks {
        match hooks.commit() {
            Err(message) => {
                report(&message);
                return Exit::ServerFailed;
            }
            Ok(Committed::Unchanged) => {}
            Ok(Committed::Written(_)) => crate::outln!(
                "removed mcpick's per-turn hooks for `{}` from {}",
                shown(&args.name),
                hooks.path.display()
            ),
            Ok(Committed::Removed) => crate::outln!(
                "removed mcpick's per-turn hooks for `{}` and with them {}: it held nothing else (install had created it)",
                shown(&args.name),
                hooks.path.display()
            ),
        }
    }
    if let Some(edit) = &edit {
        let exit = remove_entry(edit, &args.name);
        if exit != Exit::Ok {
            return exit;
        }
    }
    delivery_exit
}

/// Commits the entry's removal and says what it did.
fn remove_entry(edit: &handoff::entry::Edit, name: &str) -> Exit {
    let path = edit.path.display();
    match edit.commit() {
        Err(message) => {
            report(&message);
            return Exit::ServerFailed;
        }
        Ok(Committed::Unchanged) => {
            report(&format!(
                "{path} has no entry `{}`; nothing changed",
                shown(name)
            ));
        }
        Ok(Committed::Written(_)) => {
            crate::outln!("removed `{}` from {path}", shown(name));
        }
        Ok(Committed::Removed) => {
            crate::outln!(
                "removed `{}` and with it {path}: it held nothing else (install had created it)",
                shown(name),
            );
        }
    }
    Exit::Ok
}

/// Removes every piece of the set's delivery that goes with `host`'s entry of `scope` and
/// `name` (none: nothing to do).
fn take_back_delivery(set: &Path, host: Host, scope: Scope, name: &str) -> Exit {
    let Some(scope) = profiles::of(host).start.and_then(|c| c.scope_for(scope)) else {
        return Exit::Ok;
    };
    match delivery::remove(&handoff::absolute(set), host, scope, name) {
        Ok(None) => Exit::Ok,
        Ok(Some((delivery, notes))) => {
            for (what, path) in delivery.files() {
                crate::outln!("removed the {what} from {}", path.display());
            }
            for note in notes {
                report(&format!("note: {note}"));
            }
            Exit::Ok
        }
        Err(e) => {
            report(&format!("cannot remove the session-start delivery: {e}"));
            Exit::ServerFailed
        }
    }
}

/// What `--list` says of one of mcpick's entries: wrapped, changed by someone else, or the
/// arguments it runs mcpick with.
fn entry_state(
    dialect: &crate::hosts::Dialect,
    scope: Scope,
    name: &str,
    entry: &serde_json::Value,
) -> String {
    if crate::hosts::wrap::is_wrapped(entry) {
        return format!("`{name}` wrapped by mcpick (`mcpick unwrap` restores it)");
    }
    debug_assert!(is_ours(entry));
    if let Some(differs) = install::not_as_written(dialect, scope, name, entry) {
        return format!(
            "`{name}` runs mcpick but is NOT what mcpick writes ({differs}): not mcpick's, left as it is"
        );
    }
    let fields = (dialect.read)(entry).unwrap_or_default();
    let command = fields["command"].as_str().unwrap_or("");
    let args = fields["args"].as_array().into_iter().flatten();
    let words: Vec<&str> = std::iter::once(command)
        .chain(args.filter_map(|v| v.as_str()))
        .collect();
    // `mcpick` itself goes without saying; `npx -y mcpick@VERSION` is said.
    let shown = match crate::hosts::mcpick_words(&words) {
        1 => &words[1..],
        _ => &words[..],
    };
    format!("mcpick entry `{name}`: {}", shown.join(" "))
}

/// `--list`: every host's files, whether they exist, and mcpick's entries in them.
fn list(places: &Places, set: &Path) -> Exit {
    let mut exit = Exit::Ok;
    // Only the files that are there: the rest are counted in one line.
    let mut absent = 0;
    for host in Host::ALL {
        let dialect = host.dialect();
        for scope in [Scope::Project, Scope::User] {
            let Some(path) = dialect.file(scope, places) else {
                continue;
            };
            let state = match install::read(&path) {
                Ok(None) => {
                    absent += 1;
                    continue;
                }
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
                        .map(|(name, entry)| entry_state(dialect, scope, name, entry))
                        .collect::<Vec<_>>()
                        .join("; "),
                },
            };
            crate::outln!(
                "{:<15} {:<8} {}  {}",
                dialect.name,
                scope.name(),
                path.display(),
                crate::sanitize::line(&state, 500)
            );
        }
    }
    if absent > 0 {
        crate::outln!(
            "({absent} other host config files are not there; `mcpick servers` lists every place it reads)"
        );
    }
    crate::outln!("\nper-turn hooks (run `mcpick turn` on every turn):");
    for file in Host::ALL.into_iter().filter_map(|h| profiles::of(h).hooks) {
        for scope in [Scope::Project, Scope::User] {
            let Some(path) = file.file(scope, places) else {
                continue;
            };
            let state = match install::read(&path) {
                Ok(None) => continue,
                Err(e) => {
                    exit = Exit::ServerFailed;
                    vec![format!("cannot read: {e}")]
                }
                Ok(Some(text)) => match hooks::ours(file, scope, &text) {
                    Err(why) => {
                        exit = Exit::ServerFailed;
                        vec![why]
                    }
                    Ok(found) if found.is_empty() => vec!["no mcpick hooks".to_string()],
                    Ok(found) => found.iter().map(|f| f.line(file)).collect(),
                },
            };
            for state in state {
                crate::outln!(
                    "{:<15} {:<8} {}  {}",
                    file.host.name(),
                    scope.name(),
                    path.display(),
                    crate::sanitize::line(&state, 2000)
                );
            }
        }
    }
    let record = delivery::Record::load(&handoff::absolute(set));
    for warning in start::refused(&record) {
        report(&warning);
    }
    if !record.deliveries.is_empty() {
        crate::outln!(
            "\nsession-start deliveries of {}:",
            crate::sanitize::line(&set.display().to_string(), 1000)
        );
        for line in start::listed(&record) {
            crate::outln!("{line}");
        }
    }
    exit
}
