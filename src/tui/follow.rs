//! A server's connection over time, for the browser: connect and list (page by page, or as
//! one re-list after a reconnect), send the templates, then follow its list changes and
//! updates until it is gone (a stdio server that exited; an HTTP server that stops answering
//! `ping`). The executor runs this in a task per server and retries HTTP servers.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::app::ServerEvent;
use crate::catalog::{Fingerprint, ListingChange, ServerId};
use crate::mcp::log::ServerLog;
use crate::mcp::{ConnectOptions, Connection, ListOptions, ServerSpec};

/// The connection of each server, once connected (shared with the tasks that read).
pub(super) type Connections = Arc<Mutex<Vec<Option<Arc<Connection>>>>>;

pub(super) fn connection_of(
    connections: &Connections,
    server: ServerId,
) -> Option<Arc<Connection>> {
    connections
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(server as usize)
        .cloned()
        .flatten()
}

/// Follows a listed server's changes for as long as it is connected: asks for list changes,
/// re-lists on each burst ([`crate::mcp::Changes`] coalesces them) and compares the new
/// listing with `last` here, off the UI thread: what only grew (or changed in place) is sent
/// as what changed, anything else as the whole new listing. Passes updates on.
async fn follow(
    connection: &Connection,
    mut changes: crate::mcp::Changes,
    mut last: Fingerprint,
    send: &(impl Fn(ServerEvent) + Sync),
) {
    use crate::mcp::Change;
    let _watch = match connection.watch(&[]).await {
        Ok(watch) => Some(watch),
        Err(e) => {
            connection.log().push(
                crate::mcp::log::LogSource::Client,
                &format!("cannot watch for list changes: {}", connection.explain(&e)),
            );
            None
        }
    };
    while let Some(change) = changes.next().await {
        let updated = match change {
            Change::Updated(uri) => {
                send(ServerEvent::Updated(uri));
                continue;
            }
            Change::Relist { updated } => updated,
        };
        let mut resources = Vec::new();
        let listed = connection
            .list_resources(&ListOptions::default(), |page| resources.extend(page.items))
            .await;
        match listed {
            Ok(_) => match last.diff(resources) {
                ListingChange::Edited(edit) => {
                    if !edit.is_empty() {
                        send(ServerEvent::Edited(edit))
                    }
                }
                ListingChange::Replaced(resources) => send(ServerEvent::Relisted { resources }),
            },
            Err(e) => connection.log().push(
                crate::mcp::log::LogSource::Client,
                &format!(
                    "re-listing after a list change failed: {}",
                    connection.explain(&e)
                ),
            ),
        }
        for uri in updated {
            send(ServerEvent::Updated(uri));
        }
    }
}

/// How an HTTP server is tried again after its connection dropped: after this, doubling.
pub(super) const RETRY_FIRST: Duration = Duration::from_secs(1);
pub(super) const RETRY_MAX: Duration = Duration::from_secs(60);

/// How one connection ended.
pub(super) enum Ended {
    /// It never worked (connect or list failed), said for a person.
    Failed(String),
    /// It worked, then went away.
    Dropped(String),
}

/// Connects, lists (page by page the first time; as one re-list after a reconnect, so what
/// vanished meanwhile goes), sends the templates, then follows the server until it ends.
pub(super) async fn run_server(
    spec: &ServerSpec,
    options: &ConnectOptions,
    log: &ServerLog,
    connections: &Connections,
    server: ServerId,
    relist: bool,
    send: &(impl Fn(ServerEvent) + Sync),
) -> Ended {
    let connection = match Connection::connect(spec, options, log.clone()).await {
        Ok(c) => Arc::new(c),
        Err(e) => return Ended::Failed(e.to_string()),
    };
    {
        let mut slots = connections.lock().unwrap_or_else(|e| e.into_inner());
        if slots.len() <= server as usize {
            slots.resize(server as usize + 1, None);
        }
        slots[server as usize] = Some(connection.clone());
    }
    let summary = connection.summary();
    send(ServerEvent::Connected {
        protocol: summary.protocol_version.clone(),
        transport: connection.transport().to_string(),
        resources: connection.has_resources(),
        info: super::server_info::ServerInfo::from_summary(&summary),
    });
    if !connection.has_resources() {
        return Ended::Dropped(connection.closed("").await);
    }
    // Taken before listing, so a change announced meanwhile is not missed.
    let changes = connection.changes();
    let mut resources = Vec::new();
    // What was listed, for telling later listings apart from it.
    let mut last = Fingerprint::default();
    let listed = connection
        .list_resources(&ListOptions::default(), |page| {
            for resource in &page.items {
                last.push(resource);
            }
            if relist {
                resources.extend(page.items);
                send(ServerEvent::Relisting {
                    number: page.number,
                    received: page.received,
                });
            } else {
                send(ServerEvent::Page {
                    number: page.number,
                    received: page.received,
                    resources: page.items,
                })
            }
        })
        .await;
    match listed {
        Ok(outcome) => {
            if relist {
                send(ServerEvent::Relisted { resources });
            }
            send(ServerEvent::Listed {
                count: outcome.count,
                capped: outcome.capped,
            })
        }
        Err(e) => return Ended::Failed(connection.explain(&e)),
    }
    // Its templates, for `T` (a server without them answers an empty list).
    let mut templates = Vec::new();
    if connection
        .list_templates(&ListOptions::default(), |page| templates.extend(page.items))
        .await
        .is_ok()
        && !templates.is_empty()
    {
        send(ServerEvent::Templates(templates));
    }
    // Then keep up with it: list changes re-list it, updates are passed on, and a server
    // that goes away after listing is shown as failed (or retrying), not ready.
    tokio::select! {
        _ = follow(&connection, changes, last, send) => Ended::Dropped("the server stopped sending changes".into()),
        reason = connection.closed(" after listing") => Ended::Dropped(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::spec::TransportSpec;

    /// A demo server with `--churn`: each tick appends `demo://live/N` at the end of its
    /// listing, which the per-server task sends as that one resource, not the whole listing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_resource_the_server_appends_is_sent_as_what_changed() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let args = crate::demo::DemoArgs {
            count: 30,
            churn: Some(150),
            ..Default::default()
        };
        tokio::spawn(crate::demo::serve_http(args, addr));
        while tokio::net::TcpStream::connect(addr).await.is_err() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let spec = ServerSpec {
            name: "demo".into(),
            transport: TransportSpec::Http {
                url: format!("http://{addr}/mcp"),
                headers: Default::default(),
            },
        };
        let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(async move {
            let send = move |event| {
                let _ = tx.send(event);
            };
            let connections = Connections::default();
            let options = ConnectOptions::default();
            run_server(
                &spec,
                &options,
                &ServerLog::new(10),
                &connections,
                0,
                false,
                &send,
            )
            .await
        });
        let mut listed = 0;
        let mut grown = Vec::new();
        while grown.len() < 2 {
            let event = tokio::time::timeout(Duration::from_secs(20), events.recv())
                .await
                .expect("the server's changes arrive")
                .expect("the task runs");
            match event {
                ServerEvent::Page { resources, .. } => listed += resources.len(),
                ServerEvent::Edited(edit) => {
                    assert!(edit.changed.is_empty(), "nothing listed changed: {edit:?}");
                    assert!(edit.removed.is_empty(), "nothing removed: {edit:?}");
                    grown.extend(edit.added.into_iter().map(|r| r.uri));
                }
                ServerEvent::Relisted { resources } => {
                    panic!("the whole listing sent ({} resources)", resources.len())
                }
                _ => {}
            }
        }
        assert_eq!(listed, 31, "the catalogue and demo://live/0");
        assert_eq!(grown[..2], ["demo://live/1", "demo://live/2"]);
    }
}
