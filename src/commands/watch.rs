//! `mcpick watch`: stays connected and prints what the servers change as it happens: list
//! changes as the URIs that appeared and disappeared (a burst of notifications costs one
//! re-list), updates of subscribed resources, and a server that goes away. Text for a person,
//! or one JSON object per line (`--json`) for scripts and tests.

use std::collections::BTreeSet;

use futures::future::join_all;
use serde_json::{Value, json};

use super::{Exit, Session, close_all, connect_all, take_selection};
use crate::cli::WatchArgs;
use crate::config::select::select_servers;
use crate::mcp::{Change, Connection};
use crate::sanitize;

pub async fn run(args: WatchArgs) -> Exit {
    let specs = match take_selection(select_servers(&args.servers.choice())) {
        Ok(specs) => specs,
        Err(exit) => return exit,
    };
    let options = crate::mcp::ConnectOptions {
        follow_updates: true,
        ..args.servers.connect_options()
    };
    let sessions = connect_all(specs, &options).await;
    let out = Printer { json: args.json };
    // Runs until every server is gone (status 1, as a failed server is elsewhere), or until
    // a signal ends mcpick (see `crate::signals`: the servers are killed there).
    join_all(sessions.iter().map(|s| follow(s, &args, &out))).await;
    close_all(sessions).await;
    Exit::ServerFailed
}

/// Follows one server until it goes away (or forever).
async fn follow(session: &Session, args: &WatchArgs, out: &Printer) {
    let name = session.spec.name.as_str();
    let connection = match &session.connection {
        Ok(c) => c,
        Err(e) => {
            return out.event(
                name,
                "failed",
                json!({ "error": session.describe_error(e) }),
            );
        }
    };
    // Subscribed before listing, so a change during the listing is not missed.
    let mut changes = connection.changes();
    let mut uris = match list(connection).await {
        Ok(uris) => uris,
        Err(e) => return out.event(name, "failed", json!({ "error": e })),
    };
    out.event(name, "listed", json!({ "count": uris.len() }));
    let mut watch = subscribe(connection, &uris, args, out).await;
    loop {
        let change = tokio::select! {
            change = changes.next() => change,
            why = connection.closed("") => {
                return out.event(name, "closed", json!({ "error": why }));
            }
        };
        match change {
            Some(Change::Updated(uri)) => out.event(name, "updated", json!({ "uri": uri })),
            // A burst of notifications: one re-list for all of it.
            Some(Change::Relist { updated }) => {
                match list(connection).await {
                    Ok(now) => {
                        for uri in now.difference(&uris) {
                            out.event(name, "added", json!({ "uri": uri }));
                        }
                        for uri in uris.difference(&now) {
                            out.event(name, "removed", json!({ "uri": uri }));
                        }
                        let grew = now.difference(&uris).next().is_some();
                        uris = now;
                        if grew && args.uris.is_empty() {
                            drop(watch);
                            watch = subscribe(connection, &uris, args, out).await;
                        }
                    }
                    Err(e) => out.event(name, "error", json!({ "error": e })),
                }
                for uri in updated {
                    out.event(name, "updated", json!({ "uri": uri }));
                }
            }
            None => return,
        }
    }
}

/// Every URI the server lists now, or why not (for a person).
async fn list(connection: &Connection) -> Result<BTreeSet<String>, String> {
    connection
        .list_uris()
        .await
        .map_err(|e| connection.explain(&e))
}

/// Asks for list changes and updates: of `--uri`s, else of every listed resource up to
/// `--max-subscriptions`.
async fn subscribe(
    connection: &Connection,
    uris: &BTreeSet<String>,
    args: &WatchArgs,
    out: &Printer,
) -> Option<crate::mcp::Watch> {
    let name = connection.name();
    let wanted: Vec<String> = if args.uris.is_empty() {
        uris.iter().take(args.max_subscriptions).cloned().collect()
    } else {
        args.uris.clone()
    };
    let caps = connection.resource_capabilities();
    let subscribed = if caps.subscribe { wanted.len() } else { 0 };
    match connection.watch(&wanted).await {
        Ok(watch) => {
            out.event(
                name,
                "watching",
                json!({ "listChanged": caps.list_changed, "subscribed": subscribed }),
            );
            Some(watch)
        }
        Err(e) => {
            out.event(name, "error", json!({ "error": connection.explain(&e) }));
            None
        }
    }
}

/// Prints events as text or JSON Lines; every server string is cleaned first.
struct Printer {
    json: bool,
}

impl Printer {
    fn event(&self, server: &str, event: &str, fields: Value) {
        if self.json {
            let mut object = json!({ "server": server, "event": event });
            if let (Some(o), Value::Object(f)) = (object.as_object_mut(), fields) {
                o.extend(f);
            }
            if let Ok(line) = crate::safe_json::to_line(&object) {
                println!("{line}");
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
            other => format!("{server}: {other}: {}", text("error")),
        };
        println!("{line}");
    }
}
