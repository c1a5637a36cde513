//! Keeping what `serve` publishes current: the set file is watched (a change from the TUI or
//! `mcpick pin` is resolved again); what each upstream's supervisor tells (a re-list after a
//! list change, an update, the upstream gone or back) is applied to its listing, and updates of
//! published resources reach subscribed clients. Changes already queued are applied
//! together: one resolution for all of them.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;

use super::Diag;
use super::engine::Engine;
use super::upstream::Applied;
use crate::context::ContextSet;
use crate::mcp::Watch;
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
    let served = engine.current();
    diag.line(&format!(
        "publishing {} resources ({} in the budgeted set) from {}",
        served.resources.len(),
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
    // Upstreams told of the cap on followed updates (once each).
    let mut capped = Vec::new();
    let mut watches = rewatch(&engine, &diag, &mut capped).await;
    while let Some(first) = rx.recv().await {
        let mut batch = vec![first];
        while let Ok(more) = rx.try_recv() {
            batch.push(more);
        }
        let mut set = None;
        let mut relisted = false;
        // An upstream on a new connection: its subscriptions are asked for there.
        let mut reconnected = false;
        let mut updated = Vec::new();
        for change in batch {
            match change {
                Change::Set(s) => set = Some(s),
                Change::Upstream(i, event) => match upstreams.apply(i, event) {
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
                        reconnected = true;
                    }
                },
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
                served.resources.len(),
                served.bundle
            ));
        }
        if changed || reconnected {
            drop(watches);
            watches = rewatch(&engine, &diag, &mut capped).await;
        }
    }
}

/// The most published resources of one upstream whose updates are asked for. One
/// subscription request names them all, and a server asked for 150,000 at once did not
/// answer in 30 s.
const MAX_FOLLOWED: usize = 10_000;

/// Asks every upstream for updates of its published resources, at most [`MAX_FOLLOWED`] of
/// each in the published order (the budgeted set first); its supervisor asks for list
/// changes.
async fn rewatch(engine: &Engine, diag: &Diag, capped: &mut Vec<String>) -> Vec<Watch> {
    let served = engine.current();
    let mut watches = Vec::new();
    for upstream in engine.ready().await.iter() {
        let Some(connection) = upstream.connection() else {
            continue;
        };
        let published = served
            .resources
            .iter()
            .filter(|r| *r.server == *upstream.name);
        let uris: Vec<String> = published
            .clone()
            .take(MAX_FOLLOWED)
            .map(|r| r.upstream_uri().to_string())
            .collect();
        match connection.watch_updates(&uris).await {
            Ok(watch) => watches.push(watch),
            Err(e) => {
                diag.line(&format!(
                    "server `{}`: cannot watch for changes: {}",
                    upstream.name,
                    connection.explain(&e)
                ));
                continue;
            }
        }
        if uris.len() == MAX_FOLLOWED && connection.resource_capabilities().subscribe {
            let all = published.count();
            if all > MAX_FOLLOWED && !capped.contains(&upstream.name) {
                capped.push(upstream.name.clone());
                diag.line(&format!(
                    "server `{}`: following updates of the first {MAX_FOLLOWED} of its {all} \
                     published resources (the budgeted set first)",
                    upstream.name,
                ));
            }
        }
    }
    watches
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
