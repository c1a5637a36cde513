//! Session-start delivery written again from the command line: by `mcpick deliver` and after
//! every change of the set (`pin`, `exclude`, `unmark`, `policy`), through servers listed
//! afresh. What is written, and where, is [`crate::handoff::service`]'s.

use std::path::Path;

use super::context::{Resolved, load_set, own_of, resolve_file, resolve_set};
use super::{Exit, report};
use crate::cli::DeliverArgs;
use crate::handoff::delivery::Record;
use crate::handoff::{Channel, Contents, Delivered, absolute, service, start};
use crate::hosts::{Host, Scope};

/// What a resolved set is made of, for a delivery.
fn contents<'r, 'c>(
    resolved: &'r Resolved,
    candidates: &'r [crate::context::Candidate<'c>],
) -> Contents<'r, 'c> {
    Contents {
        preview: &resolved.preview,
        candidates,
        texts: &resolved.texts,
        skills: Some(&resolved.skills),
    }
}

/// Writes every delivery recorded for `set` from `resolved` ([`service::write`]): what was
/// written, for messages (what could not be is reported).
fn write_all(set: &Path, resolved: &Resolved) -> Vec<String> {
    let cands = resolved.candidates();
    let refreshed = service::write(set, contents(resolved, &cands));
    for why in &refreshed.problems {
        report(why);
    }
    refreshed.written
}

/// Says which recorded deliveries were not followed, and why.
fn say_refused(record: &Record) {
    for warning in start::refused(record) {
        report(&warning);
    }
}

/// After a change of the set: its deliveries written again (nothing when it has none).
pub async fn after_change(set: &Path) -> Exit {
    if let Err(none) = service::recorded(set) {
        none.problems.iter().for_each(|p| report(p));
        return Exit::Ok;
    }
    match resolve_file(set, own_of(set)).await {
        Ok(resolved) => {
            for line in write_all(set, &resolved) {
                report(&line);
            }
            Exit::Ok
        }
        Err(exit) => exit,
    }
}

/// `mcpick deliver`: the set's deliveries, written again now.
pub async fn run(args: DeliverArgs) -> Exit {
    let set_abs = absolute(&args.set.path);
    let record = Record::load(&set_abs);
    if record.deliveries.is_empty() {
        say_refused(&record);
        report(&format!(
            "{} has no session-start delivery; `mcpick install HOST` sets one up",
            args.set.path.display()
        ));
        return Exit::Usage;
    }
    let loaded = match load_set(&args.set) {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let resolved = match resolve_set(
        &loaded,
        own_of(&args.set.path),
        &args.servers,
        &loaded.policy,
        args.jobs,
        true,
    )
    .await
    {
        Ok(r) => r,
        Err(exit) => return exit,
    };
    for line in write_all(&args.set.path, &resolved) {
        if !args.servers.quiet {
            crate::outln!("{line}");
        }
    }
    if resolved.failed.is_empty() {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}

/// `preview --host HOST`: the delivery as recorded (or as `install` would plan it).
pub fn for_preview(
    host: Host,
    scope: Option<Scope>,
    served_as: &str,
    set: &Path,
    resolved: &Resolved,
) -> Result<(&'static Channel, Delivered), String> {
    let cands = resolved.candidates();
    start::for_host(host, scope, served_as, set, contents(resolved, &cands))
}
