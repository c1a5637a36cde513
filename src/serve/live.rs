//! Keeping what `serve` publishes current: the set file is watched (a change from the TUI or
//! `mcpick pin` is resolved again); what each upstream's supervisor tells (a re-list after a
//! list change, an update, the upstream gone or back) is applied to its listing, and updates of
//! published resources reach subscribed clients. Changes already queued are applied
//! together: one resolution for all of them. Whose updates each upstream is asked for is
//! looked at once a burst of published changes is over ([`super::followed`]).

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;

use tokio::time::Instant;

use super::Diag;
use super::engine::Engine;
use super::followed::Followed;
use super::upstream::Applied;
use crate::context::ContextSet;
use crate::mcp::follow::Burst;
use crate::mcp::supervisor::Event;

/// How often the set file is looked at. Polling is portable and costs one `stat`.
const SET_POLL: Duration = Duration::from_millis(250);

enum Change {
    Set(ContextSet),
    Upstream(usize, Event),
}

/// Runs forever, applying changes to `engine`.
pub async fn upkeep(engine: Arc<Engine>, diag: Arc<Diag>) {
    let (tx, mut rx) = mpsc::unbounded_channel();
    // Set-file changes while the upstreams connect are queued and applied once ready.
    tokio::spawn(watch_set(engine.set_path.clone(), tx.clone(), diag.clone()));
    let upstreams = engine.ready().await;
    say_published(&engine, &diag);
    // What the upstreams' supervisors tell: re-lists, updates, an upstream gone.
    if let Some(mut told) = upstreams.take_told() {
        let tx = tx.clone();
        tokio::spawn(async move {
            while let Some((i, event)) = told.recv().await {
                if tx.send(Change::Upstream(i, event)).is_err() {
                    return;
                }
            }
        });
    }
    drop(tx);
    let mut followed = Followed::default();
    followed.update(&engine.current(), upstreams, &diag).await;
    // Published changes not followed up yet.
    let mut burst = Burst::default();
    loop {
        let due = burst.due();
        let first = tokio::select! {
            change = rx.recv() => match change {
                Some(change) => change,
                None => break,
            },
            () = sleep_until(due), if due.is_some() => {
                burst.done(Instant::now());
                followed.update(&engine.current(), upstreams, &diag).await;
                continue;
            }
        };
        let mut batch = vec![first];
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        let mut set = None;
        let mut relisted = false;
        let mut updated = Vec::new();
        for change in batch {
            match change {
                Change::Set(s) => set = Some(s),
                Change::Upstream(i, event) => {
                    if let Event::Connected(_) = &event {
                        // A new connection follows nothing yet.
                        followed.forget(i);
                        burst.changed(Instant::now());
                    }
                    match upstreams.apply(i, event) {
                        Applied::Nothing => {}
                        Applied::Listing => relisted = true,
                        Applied::Updated(uri) => updated.push((i, uri)),
                        Applied::Unavailable(reason) => {
                            let name = upstreams.name(i);
                            diag.line(&format!("server `{name}` is unavailable: {reason}"));
                            relisted = true;
                        }
                        Applied::Back => {
                            diag.line(&format!("server `{}` is back", upstreams.name(i)));
                            relisted = true;
                        }
                    }
                }
            }
        }
        // Updates are told at once; one resolution follows for all that need one.
        let mut stale = false;
        for (i, uri) in updated {
            stale |= engine.updated(upstreams.name(i), &uri).await;
        }
        let changed = match set {
            Some(set) => engine.set_changed(set).await,
            None if relisted || stale => engine.refresh().await,
            None => false,
        };
        if changed {
            let served = engine.current();
            diag.line(&format!(
                "the published list changed: {} resources ({} in the budgeted set)",
                served.len(),
                served.bundle
            ));
            // Whose updates are followed is looked at once the burst is over.
            burst.changed(Instant::now());
        }
    }
}

/// Says what is published once the upstreams are ready, and which servers are unavailable
/// (those not said while connecting or listing).
fn say_published(engine: &Engine, diag: &Diag) {
    // Not held past here: a refresh edits the published list in place when no one else
    // holds it (and copies it when someone does).
    let served = engine.current();
    diag.line(&format!(
        "publishing {} resources ({} in the budgeted set) from {}",
        served.len(),
        served.bundle,
        engine.set_path.display()
    ));
    // Those that failed while connecting or listing were said then.
    let said = engine.failed_early();
    for (name, error) in &served.unavailable {
        if !said.iter().any(|(n, _)| n == name) {
            diag.line(&format!("server `{name}` is unavailable: {error}"));
        }
    }
}

/// Sleeps until `at` (for ever without one).
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The set file's identity for change detection: modification time and length.
fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// Polls the set file; sends the new set when its contents changed. A file that cannot be
/// used (corrupt, newer) is reported and the last good set stays published.
async fn watch_set(path: std::path::PathBuf, tx: mpsc::UnboundedSender<Change>, diag: Arc<Diag>) {
    let mut last_stamp = stamp(&path);
    let mut last_text = std::fs::read(&path).ok();
    loop {
        tokio::time::sleep(SET_POLL).await;
        let now = stamp(&path);
        if now == last_stamp {
            continue;
        }
        last_stamp = now;
        let text = std::fs::read(&path).ok();
        if text == last_text {
            continue;
        }
        last_text = text;
        match ContextSet::load(&path) {
            Ok(set) => {
                diag.line(&format!("{}: changed; resolving again", path.display()));
                if tx.send(Change::Set(set)).is_err() {
                    return;
                }
            }
            Err(e) => diag.line(&format!("{e}; still serving the previous set")),
        }
    }
}
