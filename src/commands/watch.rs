//! `mcpick watch`: stays connected and prints what the servers change as it happens: list
//! changes as the URIs that appeared and disappeared (a burst of notifications costs one
//! re-list), updates of subscribed resources, and a server that goes away. Text for a person,
//! or one JSON object per line (`--json`) for scripts and tests.

use std::collections::BTreeSet;

use std::sync::Arc;

use futures::future::join_all;
use serde_json::{Value, json};

use super::{Exit, take_selection};
use crate::cli::WatchArgs;
use crate::config::select::{Selected, select_servers};
use crate::mcp::log::ServerLog;
use crate::mcp::supervisor::{Event, Supervisor};
use crate::mcp::{ConnectOptions, Connection, ListOptions};
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
    // Runs until every server is gone (status 1, as a failed server is elsewhere), or until
    // a signal ends mcpick (see `crate::signals`: the servers are killed there).
    join_all(
        selected
            .into_iter()
            .map(|selected| follow(selected, &options, &args, &out)),
    )
    .await;
    Exit::ServerFailed
}

/// Follows one server until it goes away (or forever): what its [`Supervisor`] tells, as
/// events. A stdio server that exited is not started again; `watch` reports and ends.
async fn follow(selected: Selected, options: &ConnectOptions, args: &WatchArgs, out: &Printer) {
    let name = selected.spec.name.clone();
    if let Some(reason) = &selected.error {
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
        retry: false,
    };
    let mut followed = supervisor.spawn();
    let mut connection: Option<Arc<Connection>> = None;
    let mut uris = BTreeSet::new();
    let mut watch = None;
    while let Some((_, event)) = followed.next().await {
        match event {
            Event::Connected(c) => connection = Some(c),
            Event::Page { resources, .. } => uris.extend(resources.into_iter().map(|r| r.uri)),
            Event::Listed(_) => {
                out.event(&name, "listed", json!({ "count": uris.len() }));
                watch = subscribe(connection.as_deref(), &uris, args, out).await;
            }
            Event::Templates(_) => {}
            // A burst of notifications: one re-list for all of it.
            Event::Relisted { resources, .. } => {
                let now: BTreeSet<String> = resources.into_iter().map(|r| r.uri).collect();
                for uri in now.difference(&uris) {
                    out.event(&name, "added", json!({ "uri": uri }));
                }
                for uri in uris.difference(&now) {
                    out.event(&name, "removed", json!({ "uri": uri }));
                }
                let grew = now.difference(&uris).next().is_some();
                uris = now;
                if grew && args.uris.is_empty() {
                    drop(watch);
                    watch = subscribe(connection.as_deref(), &uris, args, out).await;
                }
            }
            Event::RelistFailed(error) => out.event(&name, "error", json!({ "error": error })),
            Event::Updated(uri) => out.event(&name, "updated", json!({ "uri": uri })),
            Event::Ended { reason, listed, .. } => {
                let (kind, error) = match listed {
                    true => ("closed", reason),
                    false if connection.is_none() => (
                        "failed",
                        sanitize::text(&format!(
                            "server `{}`: {reason}",
                            sanitize::line(&name, 200)
                        )),
                    ),
                    false => ("failed", reason),
                };
                out.event(&name, kind, json!({ "error": error }));
            }
        }
    }
    drop(watch);
}
/// Asks for updates (the supervisor asks for list changes): of `--uri`s, else of every
/// listed resource up to `--max-subscriptions`.
async fn subscribe(
    connection: Option<&Connection>,
    uris: &BTreeSet<String>,
    args: &WatchArgs,
    out: &Printer,
) -> Option<crate::mcp::Watch> {
    let connection = connection?;
    let name = connection.name();
    let wanted: Vec<String> = if args.uris.is_empty() {
        uris.iter().take(args.max_subscriptions).cloned().collect()
    } else {
        args.uris.clone()
    };
    let caps = connection.resource_capabilities();
    let subscribed = if caps.subscribe { wanted.len() } else { 0 };
    match connection.watch_updates(&wanted).await {
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
