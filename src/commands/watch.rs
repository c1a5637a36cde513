//! `mcpick watch`: stays connected and prints what the servers change as it happens: list
//! changes as the URIs that appeared and disappeared (a burst of notifications costs one
//! re-list), updates of subscribed resources, and a server that goes away (an HTTP server
//! that was reached is tried again, and what changed while it was away is printed when it is
//! back). Text for a person, or one JSON object per line (`--json`) for scripts and tests.
//!
//! Updates are asked for in full on each connection, and after list changes only for the
//! difference, once the burst is over and at most once a second ([`Updates`]): a server that
//! adds a resource every 100 ms is not sent every URI again each time.

use crate::sync::Locked;
use std::collections::BTreeSet;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use tokio::time::Instant;

use futures::future::join_all;
use serde_json::{Value, json};

use super::{Exit, take_selection};
use crate::cli::WatchArgs;
use crate::config::select::{Selected, select_servers};
use crate::mcp::follow::Burst;
use crate::mcp::log::ServerLog;
use crate::mcp::supervisor::{Event, Supervisor};
use crate::mcp::{ConnectOptions, Connection, ListOptions, ListingChange, Watch};
use crate::sanitize;

pub async fn run(args: WatchArgs) -> Exit {
    let selected = match take_selection(select_servers(&args.servers.choice())) {
        Ok(selected) => selected,
        Err(exit) => return exit,
    };
    let options = crate::mcp::ConnectOptions {
        follow_updates: true,
        ..args.servers.connect_options()
    };
    let out = Printer { json: args.json };
    let connecting = Connecting::new(selected.iter().map(|s| s.spec.name.clone()));
    // Runs until every server is gone for good (status 1, as a failed server is elsewhere):
    // one that never connected, a stdio server that exited; or until a signal ends mcpick
    // (see `crate::signals`: the servers are killed there).
    join_all(
        selected
            .into_iter()
            .enumerate()
            .map(|(i, selected)| follow(selected, i, &connecting, &options, &args, &out)),
    )
    .await;
    Exit::ServerFailed
}

/// Follows server `index` until it goes away for good (or forever): what its
/// [`Supervisor`] tells, as events. A stdio server that exited is not started again;
/// `watch` reports and ends. An HTTP server that went away is said to be unavailable until
/// it is back, then what changed meanwhile is printed as for a list change.
async fn follow(
    selected: Selected,
    index: usize,
    connecting: &Connecting,
    options: &ConnectOptions,
    args: &WatchArgs,
    out: &Printer,
) {
    let name = selected.spec.name.clone();
    if let Some(reason) = &selected.error {
        connecting.done(index, "failed");
        let error = sanitize::text(&format!(
            "server `{}`: {reason}",
            sanitize::line(&name, 200)
        ));
        return out.event(&name, "failed", json!({ "error": error }));
    }
    let supervisor = Supervisor {
        shown: Some(selected.shown_target()),
        spec: selected.spec,
        options: options.clone(),
        log: ServerLog::new(options.log_lines),
        list: ListOptions::default(),
        templates: false,
        // HTTP is tried again after it went away; stdio stays failed.
        retry: true,
    };
    let mut followed = supervisor.spawn();
    let mut connection: Option<Arc<Connection>> = None;
    // What the server listed last, as a set (what a change is told against).
    let mut uris = BTreeSet::new();
    // The current connection's listing in order, every entry (a re-list's change names the
    // entries it removes by position).
    let mut listing: Vec<String> = Vec::new();
    // Until its first listing (or end): on the progress line.
    let mut first = true;
    // Went away and is being tried again.
    let mut away = false;
    let mut updates = Updates::default();
    loop {
        let due = updates.burst.due();
        let event = tokio::select! {
            event = followed.next() => match event {
                Some((_, event)) => event,
                None => break,
            },
            () = sleep_until(due), if due.is_some() => {
                updates.follow_up(connection.as_deref(), &uris, args, out).await;
                continue;
            }
        };
        match event {
            Event::Connected(c) => {
                listing.clear();
                // A new connection follows nothing yet.
                updates.forget();
                if first && c.has_resources() {
                    connecting.set(index, "listing");
                } else if first {
                    first = false;
                    connecting.done(index, "no resources");
                } else if away && !c.has_resources() {
                    // Nothing to list: back as it is.
                    away = false;
                    out.event(&name, "back", json!({ "count": 0 }));
                }
                connection = Some(c);
            }
            Event::Page(page) => {
                listing.extend(page.items.into_iter().map(|r| r.uri));
            }
            Event::Listed(_) => {
                let now: BTreeSet<String> = listing.iter().cloned().collect();
                if std::mem::take(&mut first) {
                    connecting.done(index, "listed");
                    out.event(&name, "listed", json!({ "count": now.len() }));
                } else {
                    out.event(&name, "back", json!({ "count": now.len() }));
                    changes(&name, &uris, &now, out);
                }
                away = false;
                uris = now;
                updates.ask(connection.as_deref(), &uris, args, out).await;
            }
            Event::Templates(_) => {}
            // A burst of notifications: one re-list for all of it.
            Event::Relisted { change, .. } => {
                apply(&mut listing, change);
                let now: BTreeSet<String> = listing.iter().cloned().collect();
                changes(&name, &uris, &now, out);
                uris = now;
                updates.list_changed(&uris, args);
            }
            Event::RelistFailed(error) => out.event(&name, "error", json!({ "error": error.why })),
            Event::Updated(uri) => out.event(&name, "updated", json!({ "uri": uri })),
            Event::Ended {
                reason,
                retry: Some(retry),
                ..
            } => {
                // Its subscriptions went with the connection.
                updates.forget();
                connection = None;
                away = true;
                let wait = retry
                    .at
                    .duration_since(SystemTime::now())
                    .unwrap_or_default();
                out.event(
                    &name,
                    "unavailable",
                    json!({
                        "error": reason.why,
                        "attempt": retry.attempt,
                        "retryInMs": wait.as_millis() as u64,
                    }),
                );
            }
            Event::Ended {
                reason,
                listed,
                retry: None,
            } => {
                if std::mem::take(&mut first) {
                    connecting.done(index, if listed { "closed" } else { "failed" });
                }
                let (kind, error) = match listed {
                    true => ("closed", reason.why),
                    false if connection.is_none() => (
                        "failed",
                        sanitize::text(&format!(
                            "server `{}`: {reason}",
                            sanitize::line(&name, 200)
                        )),
                    ),
                    false => ("failed", reason.why),
                };
                out.event(&name, kind, json!({ "error": error }));
            }
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

/// Makes `listing` (URIs in listing order) the one a re-list's change reached.
fn apply(listing: &mut Vec<String>, change: ListingChange) {
    match change {
        ListingChange::Replaced(resources) => {
            *listing = resources.into_iter().map(|r| r.uri).collect();
        }
        ListingChange::Edited(edit) => {
            // Changed entries keep their URI and place; removed positions are ascending.
            let mut gone = edit.removed.iter().peekable();
            let mut position = 0u32;
            listing.retain(|_| {
                let keep = gone.next_if_eq(&&position).is_none();
                position += 1;
                keep
            });
            listing.extend(edit.added.into_iter().map(|r| r.uri));
        }
    }
}

/// Prints what differs between two listings: the URIs that appeared, then those that went.
fn changes(name: &str, before: &BTreeSet<String>, now: &BTreeSet<String>, out: &Printer) {
    for uri in now.difference(before) {
        out.event(name, "added", json!({ "uri": uri }));
    }
    for uri in before.difference(now) {
        out.event(name, "removed", json!({ "uri": uri }));
    }
}

/// The progress line while the servers connect and list for the first time (as the other
/// commands show theirs); gone once each has listed or failed, when `watch` settles into
/// printing what changes.
struct Connecting {
    line: Mutex<Option<crate::progress::Servers>>,
    left: AtomicUsize,
}

impl Connecting {
    fn new(names: impl ExactSizeIterator<Item = String>) -> Connecting {
        let left = names.len();
        let line = crate::progress::Servers::new("connecting", names);
        for i in 0..left {
            line.set(i, "connecting");
        }
        Connecting {
            line: Mutex::new(Some(line)),
            left: AtomicUsize::new(left),
        }
    }

    /// Server `index` is now at `status`.
    fn set(&self, index: usize, status: &str) {
        if let Some(line) = &*self.line.locked() {
            line.set(index, status);
        }
    }

    /// Server `index` has listed or failed, as `status` says (told once per server).
    fn done(&self, index: usize, status: &str) {
        self.set(index, status);
        if self.left.fetch_sub(1, Ordering::Relaxed) == 1 {
            // Dropped: the line is cleared.
            self.line.locked().take();
        }
    }
}

/// The updates `watch` asks one server for (its supervisor asks for list changes): of the
/// `--uri`s, else of the listed resources up to `--max-subscriptions`. Asked in full on each
/// connection; after list changes, once their burst is over ([`Burst`]: at most once a
/// second), only the difference ([`Connection::rewatch_updates`]: legacy, a subscribe per
/// resource added and an unsubscribe per one gone; 2026-07-28, one new listen).
#[derive(Default)]
struct Updates {
    /// `None` until asked on this connection.
    watch: Option<Watch>,
    /// The URIs `watch` was last asked for, as [`wanted`] gives them; cleared when asking
    /// failed, so that the next change asks again.
    following: Vec<String>,
    /// List changes not followed up yet.
    burst: Burst,
}

impl Updates {
    /// The connection ended, or is new: nothing is followed on it.
    fn forget(&mut self) {
        drop(self.watch.take());
        self.following.clear();
        self.burst = Burst::default();
    }

    /// The list is now `uris`: what it changes in the updates wanted is asked for once the
    /// burst is over.
    fn list_changed(&mut self, uris: &BTreeSet<String>, args: &WatchArgs) {
        if wanted(uris, args) != self.following {
            self.burst.changed(Instant::now());
        }
    }

    /// The burst is over: asks for what it changed.
    async fn follow_up(
        &mut self,
        connection: Option<&Connection>,
        uris: &BTreeSet<String>,
        args: &WatchArgs,
        out: &Printer,
    ) {
        self.burst.done(Instant::now());
        if self.watch.is_none() || wanted(uris, args) != self.following {
            self.ask(connection, uris, args, out).await;
        }
    }

    /// Makes the watch follow the updates wanted of `uris` (asked in full when there is no
    /// watch yet), and says so.
    async fn ask(
        &mut self,
        connection: Option<&Connection>,
        uris: &BTreeSet<String>,
        args: &WatchArgs,
        out: &Printer,
    ) {
        let Some(connection) = connection else {
            return;
        };
        let wanted = wanted(uris, args);
        let asked = match &mut self.watch {
            Some(watch) => connection.rewatch_updates(watch, &wanted).await,
            None => connection
                .watch_updates(&wanted)
                .await
                .map(|watch| self.watch = Some(watch)),
        };
        let name = connection.name();
        if let Err(e) = asked {
            // The watch knows what it follows; the next change asks for the rest.
            self.following.clear();
            return out.event(name, "error", json!({ "error": connection.explain(&e) }));
        }
        let caps = connection.resource_capabilities();
        let subscribed = if caps.subscribe { wanted.len() } else { 0 };
        self.following = wanted;
        out.event(
            name,
            "watching",
            json!({ "listChanged": caps.list_changed, "subscribed": subscribed }),
        );
    }
}

/// The URIs whose updates are wanted: the `--uri`s, else the first `--max-subscriptions` of
/// the listing.
fn wanted(uris: &BTreeSet<String>, args: &WatchArgs) -> Vec<String> {
    if args.uris.is_empty() {
        uris.iter().take(args.max_subscriptions).cloned().collect()
    } else {
        args.uris.clone()
    }
}

/// Prints events as text or JSON Lines; every server string is cleaned first.
struct Printer {
    json: bool,
}

impl Printer {
    fn event(&self, server: &str, event: &str, fields: Value) {
        // Stdout and stderr may be one terminal: the progress line goes first.
        crate::progress::clear();
        if self.json {
            let mut object = json!({ "server": server, "event": event });
            if let (Some(o), Value::Object(f)) = (object.as_object_mut(), fields) {
                o.extend(f);
            }
            if let Ok(line) = crate::safe_json::to_line(&object) {
                crate::outln!("{line}");
            }
            return;
        }
        let server = sanitize::line(server, 200);
        let field = |k: &str| fields.get(k).cloned().unwrap_or(Value::Null);
        let text = |k: &str| sanitize::line(field(k).as_str().unwrap_or(""), 2000);
        let resources =
            |k: &str| crate::units::count(field(k).as_u64().unwrap_or(0), "resource", "resources");
        let line = match event {
            "listed" => format!("{server}: {}", resources("count")),
            "watching" => format!(
                "{server}: watching · list changes {} · {} subscribed for updates",
                if field("listChanged") == Value::Bool(true) {
                    "announced"
                } else {
                    "not announced by the server"
                },
                resources("subscribed")
            ),
            "added" => format!("{server}: + {}", text("uri")),
            "removed" => format!("{server}: - {}", text("uri")),
            "updated" => format!("{server}: updated {}", text("uri")),
            "unavailable" => format!(
                "{server}: unavailable: {} · trying again in {}",
                text("error"),
                crate::units::duration_words(
                    field("retryInMs").as_u64().unwrap_or(0).div_ceil(1000)
                )
            ),
            "back" => format!("{server}: back · {}", resources("count")),
            other => format!("{server}: {other}: {}", text("error")),
        };
        crate::outln!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::{Fingerprint, ListingEdit};
    use rmcp::model::Resource;

    fn listing(uris: &[&str]) -> Vec<Resource> {
        uris.iter().map(|u| Resource::new(*u, "r")).collect()
    }

    /// The URIs watch keeps follow a re-list's change: removed positions go, additions come
    /// at the end, and a duplicate URI stays one entry of its own.
    #[test]
    fn a_change_makes_the_kept_listing_the_new_one() {
        let old = ["x://a", "x://b", "x://a", "x://c", "x://d"];
        let mut uris: Vec<String> = old.iter().map(|u| u.to_string()).collect();
        let edit = ListingEdit {
            removed: vec![1, 3],
            changed: Vec::new(),
            added: listing(&["x://e"]),
        };
        apply(&mut uris, ListingChange::Edited(edit));
        assert_eq!(uris, ["x://a", "x://a", "x://d", "x://e"]);
        // Agrees with what the diff tells for a real re-list.
        let new = ["x://a", "x://a", "x://e", "x://f"];
        let mut print = Fingerprint::default();
        print.reset(&listing(&["x://a", "x://a", "x://d", "x://e"]));
        apply(&mut uris, print.diff(listing(&new)));
        assert_eq!(uris, new);
    }
}
