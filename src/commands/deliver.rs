//! Session-start delivery written again from the command line: by `mcpick deliver`, after
//! every change of the set (`pin`, `exclude`, `unmark`, `policy`) and while `serve` runs.
//! What is written, and where, is [`crate::handoff::start`]'s.

use std::path::{Path, PathBuf};

use super::context::{Resolved, load_set, own_of, resolve_file, resolve_set};
use super::{Exit, report};
use crate::cli::DeliverArgs;
use crate::handoff::delivery::Record;
use crate::handoff::{Channel, Contents, Delivered, absolute, start};
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

/// Writes every delivery recorded for `set` from `resolved`: what was written, for
/// messages (what could not be is reported).
fn write_all(set: &Path, resolved: &Resolved) -> Vec<String> {
    let cands = resolved.candidates();
    let mut said = Vec::new();
    for done in start::refresh_all(set, contents(resolved, &cands)) {
        match done {
            Ok(line) => said.push(line),
            Err(why) => report(&why),
        }
    }
    said
}

/// Says which recorded deliveries were not followed, and why.
fn say_refused(record: &Record) {
    for warning in start::refused(record) {
        report(&warning);
    }
}

/// After a change of the set: its deliveries written again (nothing when it has none).
pub async fn after_change(set: &Path) -> Exit {
    let record = Record::load(&absolute(set));
    if record.deliveries.is_empty() {
        say_refused(&record);
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

/// While `serve` runs (the hosts start it at every session): the set's deliveries written 5 s
/// after it is ready, so the servers' contents as they are now reach the next session, and again
/// after the published list or a resource changes (a burst waits; at most every 10 s).
/// Each write lists the servers afresh, as `mcpick deliver` does.
pub async fn keep_fresh(engine: std::sync::Arc<crate::serve::Engine>, set: PathBuf) {
    use tokio::sync::broadcast::error::RecvError;
    if Record::load(&absolute(&set)).deliveries.is_empty() {
        return;
    }
    engine.ready().await;
    // Not while the host is starting its session: the write lists the servers again, which
    // on two cores slowed `claude -p` by a third when done at once (benches/delivery.sh).
    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
    let mut served = engine.served.subscribe();
    let mut updates = engine.updates.subscribe();
    loop {
        let _ = after_change(&set).await;
        tokio::select! {
            changed = served.changed() => if changed.is_err() { return },
            update = updates.recv() => if matches!(update, Err(RecvError::Closed)) { return },
        }
        tokio::time::sleep(std::time::Duration::from_secs(10)).await;
        served.borrow_and_update();
        while updates.try_recv().is_ok() {}
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
