//! A server's connection over time, for the browser: what its [`Supervisor`] tells, as the
//! app's events (page by page, or as one re-list after a reconnect; list changes as what
//! changed). The executor runs this in a task per server.

use crate::sync::Locked;
use std::sync::{Arc, Mutex};

use rmcp::model::Resource;

use super::app::ServerEvent;
use crate::catalog::ServerId;
use crate::mcp::ListingChange;
use crate::mcp::log::ServerLog;
use crate::mcp::supervisor::{Event, Supervisor};
use crate::mcp::{ConnectOptions, Connection, ListOptions, ServerSpec};

/// The connection of each server, once connected (shared with the tasks that read).
pub(super) type Connections = Arc<Mutex<Vec<Option<Arc<Connection>>>>>;

pub(super) fn connection_of(
    connections: &Connections,
    server: ServerId,
) -> Option<Arc<Connection>> {
    connections.locked().get(server as usize).cloned().flatten()
}

/// Follows server `server` for the browser, as long as it lasts (retries included): its
/// [`Supervisor`] connects, lists, follows and retries (a re-list told as what changed since
/// the connection's last listing, diffed off the UI thread); this turns what it tells into
/// the app's events: what changed (removed, changed, added), or, when most of it changed, the
/// whole new listing. A reconnect's listing (and every listing when `relist`) arrives whole,
/// as one [`ServerEvent::Relisted`], so what vanished meanwhile goes.
pub(super) async fn run_server(
    spec: ServerSpec,
    options: ConnectOptions,
    log: ServerLog,
    connections: Connections,
    server: ServerId,
    relist: bool,
    send: impl Fn(ServerEvent) + Send,
) {
    let supervisor = Supervisor {
        spec,
        options,
        log,
        list: ListOptions::default(),
        templates: true,
        retry: true,
        shown: None,
    };
    // Per connection: a listing told whole, page by page until it ends.
    let mut generation = 0;
    let mut pages: Vec<Resource> = Vec::new();
    supervisor
        .run(move |at, event| {
            if at != generation {
                generation = at;
                pages = Vec::new();
            }
            let whole = relist || generation > 1;
            match event {
                Event::Connected(connection) => {
                    let summary = connection.summary();
                    send(ServerEvent::Connected {
                        protocol: summary.protocol_version.clone(),
                        transport: connection.transport().to_string(),
                        resources: connection.has_resources(),
                        info: super::server_info::ServerInfo::from_summary(&summary),
                    });
                    let mut slots = connections.locked();
                    if slots.len() <= server as usize {
                        slots.resize(server as usize + 1, None);
                    }
                    slots[server as usize] = Some(connection);
                }
                Event::Page(page) => {
                    let (number, received) = (page.number, page.received);
                    if whole {
                        pages.extend(page.items);
                        send(ServerEvent::Relisting { number, received });
                    } else {
                        send(ServerEvent::Page {
                            number,
                            received,
                            resources: page.items,
                        })
                    }
                }
                Event::Listed(outcome) => {
                    if whole {
                        send(ServerEvent::Relisted {
                            resources: std::mem::take(&mut pages),
                        });
                    }
                    send(ServerEvent::Listed {
                        count: outcome.count,
                        capped: outcome.capped,
                    })
                }
                // A server without templates (or that cannot list them) shows none.
                Event::Templates(listed) => {
                    if !listed.templates.is_empty() {
                        send(ServerEvent::Templates(listed.templates))
                    }
                }
                Event::Relisted { change, .. } => match change {
                    ListingChange::Edited(edit) => {
                        if !edit.is_empty() {
                            send(ServerEvent::Edited(edit))
                        }
                    }
                    ListingChange::Replaced(resources) => send(ServerEvent::Relisted { resources }),
                },
                // Already in the server's log; the last listing stays shown.
                Event::RelistFailed(_) => {}
                Event::Updated(uri) => send(ServerEvent::Updated(uri)),
                Event::Ended {
                    reason,
                    retry: Some(retry),
                    ..
                } => send(ServerEvent::Retrying {
                    reason: reason.why,
                    attempt: retry.attempt,
                    at: retry.at,
                }),
                Event::Ended { reason, .. } => send(ServerEvent::Failed(reason)),
            }
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::spec::TransportSpec;
    use std::time::Duration;

    /// The test fixture's demo server with `--churn`: each tick appends `demo://live/N` at the end of its
    /// listing, which the per-server task sends as that one resource, not the whole listing.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_resource_the_server_appends_is_sent_as_what_changed() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let at = addr.to_string();
        let args = [
            "mcpick-fixture",
            "--http",
            &at,
            "--count",
            "30",
            "--churn",
            "150",
        ];
        tokio::spawn(mcpick_fixture::serve(mcpick_fixture::parse(args)));
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
            run_server(
                spec,
                ConnectOptions::default(),
                ServerLog::new(10),
                Connections::default(),
                0,
                false,
                send,
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
        // The server adds `demo://live/0` at once and one more each tick: on a loaded
        // machine the first listing may already hold more than the first.
        let live = listed - 30;
        assert!(live >= 1, "the catalogue and demo://live/0: {listed}");
        assert_eq!(
            grown[..2],
            [
                format!("demo://live/{live}"),
                format!("demo://live/{}", live + 1)
            ],
            "what came after the first listing, one by one ({listed} listed)"
        );
    }
}
