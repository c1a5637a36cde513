//! One owner of a server's life, for every front end that follows a server (the browser,
//! `serve`, `watch`), and for the commands that report and stop (connected only,
//! [`Supervisor::connect`]: `read`, `check`; listed once, [`Supervisor::list_once`]: `ls`,
//! `preview`, `export`, `lock`, the mark commands, `check`'s per-credential listings):
//! it connects, lists page by page (each page handed on by value), lists
//! the templates when asked, follows the list's changes (a burst coalesced once, by
//! [`Changes`]) and re-lists, passes updates on, notices the server going away
//! ([`Connection::closed`]) and tries again by transport (HTTP: further apart each time;
//! stdio: failed until the person asks again). What happens is told as typed [`Event`]s,
//! each tagged with the generation of the connection it happened on, so a front end can tell
//! a reconnect's listing from the first and drop what an older connection said.
//!
//! A re-list is diffed against the connection's last listing as its pages arrive
//! ([`Fingerprint::relist`]) and told as what changed, so no re-list of a million resources is
//! held whole. Front ends decide what a change means to them (the browser applies it to what
//! it shows, `serve` resolves again, `watch` prints what appeared); none of them connects,
//! re-lists or waits for a closed connection itself.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use rmcp::model::{Resource, ResourceTemplate};

use super::connection::{ConnectOptions, Connection};
use super::diff::{Fingerprint, ListingChange};
use super::error::{Failure, FailureKind};
use super::follow::Change;
use super::list::{ListOptions, ListOutcome, Page};
use super::log::{LogSource, ServerLog};
use super::spec::ServerSpec;
use super::warning::Warnings;

/// How an HTTP server is tried again after its connection dropped: after this, doubling.
pub const RETRY_FIRST: Duration = Duration::from_secs(1);
/// The longest wait between two attempts.
pub const RETRY_MAX: Duration = Duration::from_secs(60);

/// What happened to a supervised server. Every event but [`Event::Ended`] belongs to the
/// connection of its generation.
#[derive(Debug)]
pub enum Event {
    /// Connected; reads and other requests go through this connection until it ends.
    Connected(Arc<Connection>),
    /// One page of this connection's first listing, as it arrived (its entries by value).
    Page(Page<Resource>),
    /// This connection's first listing ended (after its pages).
    Listed(ListOutcome),
    /// The server's resource templates, when asked for ([`Supervisor::templates`]) and its
    /// resources were listed.
    Templates(Templates),
    /// The server announced a list change (or notices were missed) and was listed again:
    /// what changed since this connection's last listing (as told before, in order).
    Relisted {
        change: ListingChange,
        outcome: ListOutcome,
    },
    /// Listing again after a change failed; the last listing stands.
    RelistFailed(Failure),
    /// The server announced that this resource changed.
    Updated(String),
    /// The connection ended, and why: `listed` when it got as far as a listing, `retry`
    /// when it will be tried again (a new generation), and when.
    Ended {
        reason: Failure,
        listed: bool,
        retry: Option<Retry>,
    },
}

impl Event {
    /// A connection that failed for good (no retry).
    pub fn failed(reason: Failure) -> Event {
        Event::Ended {
            reason,
            listed: false,
            retry: None,
        }
    }
}

/// A connection that ended by closing, said for a person.
fn closed(why: String) -> Failure {
    Failure::new(FailureKind::Closed, why)
}

/// A server's resource templates, listed whole after its resources.
#[derive(Debug, Default)]
pub struct Templates {
    pub templates: Vec<ResourceTemplate>,
    /// Problems with single entries (malformed fields dropped, entries skipped).
    pub warnings: Warnings,
    /// Why listing them failed, said for a person (what came before is kept). A front end
    /// that only shows templates may ignore it: many servers have none to list.
    pub failed: Option<String>,
}

/// The next attempt after a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    /// 1 for the first attempt after the connection last worked.
    pub attempt: u32,
    pub at: SystemTime,
}

/// What a front end wants followed, and how.
pub struct Supervisor {
    pub spec: ServerSpec,
    pub options: ConnectOptions,
    pub log: ServerLog,
    /// How much of a listing to take.
    pub list: ListOptions,
    /// List the templates after the first listing (the browser shows them; `serve` lists
    /// them only when a mark needs them).
    pub templates: bool,
    /// Try again after the connection ended, as its transport allows (HTTP only; a stdio
    /// server that exited stays failed). Off for front ends that report and stop.
    pub retry: bool,
    /// How a failed connect names the server (its definition as written, placeholders
    /// kept); `None` for the masked definition the connection layer knows.
    pub shown: Option<String>,
}

impl Supervisor {
    /// A supervisor for a command that reports and stops: the whole listing up to the
    /// default cap, no templates, no retry, a failed connect named by the masked definition
    /// (the fields are the command's to change).
    pub fn for_command(spec: ServerSpec, options: &ConnectOptions) -> Supervisor {
        Supervisor {
            spec,
            options: options.clone(),
            log: ServerLog::new(options.log_lines),
            list: ListOptions::default(),
            templates: false,
            retry: false,
            shown: None,
        }
    }

    /// Follows the server until it ends for good (or forever), telling `send` each event
    /// with its connection's generation (1, then 2 after the first retry, …).
    pub async fn run(self, mut send: impl FnMut(u64, Event) + Send) {
        let retried = self.retry && self.spec.transport.transport_kind().retried();
        let mut attempt = 0u32;
        // Reached once: from then on, a failed attempt is tried again too.
        let mut reached = false;
        for generation in 1.. {
            let (reason, listed) = self.once(&mut |event| send(generation, event)).await;
            let retry = retried && (reached || listed);
            if !retry {
                return send(
                    generation,
                    Event::Ended {
                        reason,
                        listed,
                        retry: None,
                    },
                );
            }
            if listed {
                attempt = 0;
            }
            reached = true;
            attempt += 1;
            let wait = RETRY_FIRST
                .saturating_mul(1 << (attempt - 1).min(6))
                .min(RETRY_MAX);
            let at = SystemTime::now() + wait;
            send(
                generation,
                Event::Ended {
                    reason,
                    listed,
                    retry: Some(Retry { attempt, at }),
                },
            );
            tokio::time::sleep(wait).await;
        }
    }

    /// Runs in a task of its own, for a front end that answers events with requests of its
    /// own (they arrive in order on the returned [`Followed`]; dropping it ends the task).
    pub fn spawn(self) -> Followed {
        let (tx, events) = tokio::sync::mpsc::unbounded_channel();
        let task = tokio::spawn(self.run(move |generation, event| {
            let _ = tx.send((generation, event));
        }));
        Followed { events, task }
    }

    /// Connects; a failure is said naming the server as [`Supervisor::shown`] says. Every
    /// front end's connection is made here.
    pub async fn connect(&self) -> Result<Connection, Failure> {
        Connection::connect(&self.spec, &self.options, self.log.clone())
            .await
            .map_err(|e| {
                let why = match &self.shown {
                    Some(shown) => e.to_string_as(shown),
                    None => e.to_string(),
                };
                Failure::new(e.kind(), why)
            })
    }

    /// For a command that reports and stops (`ls`, `preview`, `export`, `lock`, the mark
    /// commands): connects and lists once, telling `send` each event as [`Supervisor::run`]
    /// would (no [`Event::Connected`]: the connection is returned), and follows nothing. A
    /// failure ends with [`Event::Ended`] (no retry). The connection is returned whenever
    /// one was made, for reads and to be closed.
    pub async fn list_once(&self, mut send: impl FnMut(Event)) -> Option<Connection> {
        let connection = match self.connect().await {
            Ok(connection) => connection,
            Err(reason) => {
                send(Event::failed(reason));
                return None;
            }
        };
        if let Err(reason) = self.list_first(&connection, None, &mut send).await {
            send(Event::failed(reason));
        }
        Some(connection)
    }

    /// One connection: connect, list, follow until it ends. Returns why it ended and
    /// whether it got as far as a listing.
    async fn once(&self, send: &mut (impl FnMut(Event) + Send)) -> (Failure, bool) {
        let connection = match self.connect().await {
            Ok(c) => Arc::new(c),
            Err(reason) => return (reason, false),
        };
        send(Event::Connected(connection.clone()));
        if !connection.has_resources() {
            return (closed(connection.closed("").await), true);
        }
        // Taken before listing, so a change announced meanwhile is not missed.
        let changes = connection.changes();
        let mut last = Fingerprint::default();
        if let Err(reason) = self.list_first(&connection, Some(&mut last), send).await {
            return (reason, false);
        }
        // A server that goes away after listing ends this connection, not a silent one.
        tokio::select! {
            _ = self.follow(&connection, changes, &mut last, send) => {
                (closed("the server stopped sending changes".into()), true)
            }
            reason = connection.closed(" after listing") => (closed(reason), true),
        }
    }

    /// A connection's first listing, page by page (each page kept in `last` when the
    /// listing is followed), then its templates when asked for.
    async fn list_first(
        &self,
        connection: &Connection,
        mut last: Option<&mut Fingerprint>,
        send: &mut impl FnMut(Event),
    ) -> Result<(), Failure> {
        let listed = connection
            .list_resources(&self.list, |page| {
                if let Some(last) = last.as_deref_mut() {
                    for resource in &page.items {
                        last.push(resource);
                    }
                }
                send(Event::Page(page))
            })
            .await;
        match listed {
            Ok(outcome) => send(Event::Listed(outcome)),
            Err(e) => return Err(Failure::new(e.kind(), connection.explain_gone(&e).await)),
        }
        if self.templates && connection.has_resources() {
            let mut listed = Templates::default();
            let outcome = connection
                .list_templates(&self.list, |page| {
                    listed.warnings.extend(&page.warnings);
                    listed.templates.extend(page.items);
                })
                .await;
            listed.failed = match outcome {
                Ok(_) => None,
                // A server that does not offer templates has none: noted in its log
                // by the request, not a failure.
                Err(e) if e.is_optional_missing() => None,
                Err(e) => Some(connection.explain_gone(&e).await),
            };
            send(Event::Templates(listed));
        }
        Ok(())
    }

    /// Asks for list changes, then re-lists on each burst (diffed against `last`, the
    /// connection's last listing) and passes updates on.
    async fn follow(
        &self,
        connection: &Connection,
        mut changes: super::follow::Changes,
        last: &mut Fingerprint,
        send: &mut (impl FnMut(Event) + Send),
    ) {
        let _watch = match connection.watch(&[]).await {
            Ok(watch) => Some(watch),
            Err(e) => {
                connection.log().push(
                    LogSource::Client,
                    &format!("cannot watch for list changes: {}", connection.explain(&e)),
                );
                None
            }
        };
        while let Some(change) = changes.next().await {
            let updated = match change {
                Change::Updated(uri) => {
                    send(Event::Updated(uri));
                    continue;
                }
                Change::Relist { updated } => updated,
            };
            let started = Instant::now();
            match self.relist(connection, last).await {
                Ok((change, outcome)) => send(Event::Relisted { change, outcome }),
                Err(e) => {
                    let reason = format!(
                        "re-listing after a list change failed: {}",
                        connection.explain_gone(&e).await
                    );
                    connection.log().push(LogSource::Client, &reason);
                    send(Event::RelistFailed(Failure::new(e.kind(), reason)));
                }
            }
            for uri in updated {
                send(Event::Updated(uri));
            }
            // A re-list costs the whole listing however little changed: rest as long as it
            // took before the next one, so a server announcing changes faster than it can be
            // listed costs half the time, not all of it (what it announces meanwhile is
            // coalesced into that next re-list).
            tokio::time::sleep(rest_after(started.elapsed())).await;
        }
    }
}

impl Supervisor {
    /// Lists the server again and diffs the listing against `last` page by page (it becomes
    /// the new listing's). When most of the last listing went, what stayed was dropped on the
    /// way: listed once more, whole.
    async fn relist(
        &self,
        connection: &Connection,
        last: &mut Fingerprint,
    ) -> Result<(ListingChange, ListOutcome), super::McpError> {
        let mut relisting = last.relist();
        let outcome = connection
            .list_resources(&self.list, |page| relisting.page(last, page.items))
            .await?;
        if let Some(change) = relisting.finish(last) {
            return Ok((change, outcome));
        }
        let mut resources = Vec::new();
        let outcome = connection
            .list_resources(&self.list, |page| resources.extend(page.items))
            .await?;
        Ok((last.diff(resources), outcome))
    }
}

/// The longest rest between two re-lists.
const REST_MAX: Duration = Duration::from_secs(10);

/// How long to wait after a re-list that took `took`.
fn rest_after(took: Duration) -> Duration {
    took.min(REST_MAX)
}

/// A supervisor running in its own task ([`Supervisor::spawn`]).
pub struct Followed {
    events: tokio::sync::mpsc::UnboundedReceiver<(u64, Event)>,
    task: tokio::task::JoinHandle<()>,
}

impl Followed {
    /// The next event and its generation; `None` after the last ([`Event::Ended`] without a
    /// retry).
    pub async fn next(&mut self) -> Option<(u64, Event)> {
        self.events.recv().await
    }
}

impl Drop for Followed {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::spec::TransportSpec;

    fn supervisor(transport: TransportSpec) -> Supervisor {
        Supervisor {
            spec: ServerSpec {
                name: "s".into(),
                transport,
            },
            options: ConnectOptions::default(),
            log: ServerLog::new(10),
            list: ListOptions::default(),
            templates: false,
            retry: true,
            shown: None,
        }
    }

    async fn next(followed: &mut Followed) -> (u64, Event) {
        tokio::time::timeout(Duration::from_secs(30), followed.next())
            .await
            .expect("the supervisor tells on")
            .expect("the supervisor runs")
    }

    #[test]
    fn a_relist_rests_as_long_as_it_took_up_to_a_limit() {
        assert_eq!(
            rest_after(Duration::from_millis(3)),
            Duration::from_millis(3)
        );
        assert_eq!(rest_after(Duration::from_secs(2)), Duration::from_secs(2));
        assert_eq!(rest_after(Duration::from_secs(60)), REST_MAX);
    }

    /// A server that answers `resources/templates/list` with "method not found" has no
    /// templates: no failure, nothing in the log that reads as its last error, a note.
    #[tokio::test]
    async fn templates_not_offered_are_a_note_not_an_error() {
        let script = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    if m["method"] == "initialize":
        r = {"result": {"protocolVersion": m["params"]["protocolVersion"],
             "capabilities": {"resources": {}}, "serverInfo": {"name": "t", "version": "1"}}}
    elif m["method"] == "resources/list":
        r = {"result": {"resources": [{"uri": "x://a", "name": "a"}]}}
    else:
        r = {"error": {"code": -32601, "message": "Method not found"}}
    r.update(jsonrpc="2.0", id=m["id"])
    print(json.dumps(r), flush=True)
"#;
        let mut s = supervisor(TransportSpec::Stdio {
            command: "python3".into(),
            args: vec!["-c".into(), script.into()],
            env: Default::default(),
            cwd: None,
        });
        s.templates = true;
        s.retry = false;
        s.log = ServerLog::new(100);
        let log = s.log.clone();
        let mut followed = s.spawn();
        let listed = loop {
            match next(&mut followed).await.1 {
                Event::Templates(listed) => break listed,
                Event::Ended { reason, .. } => panic!("ended: {reason}"),
                _ => {}
            }
        };
        assert!(listed.templates.is_empty());
        assert_eq!(listed.failed, None);
        let entries = log.entries();
        let about = |source| {
            entries
                .iter()
                .filter(|e| e.source == source && e.text.contains("resources/templates/list"))
                .count()
        };
        assert_eq!(about(LogSource::Client), 0, "{entries:?}");
        assert_eq!(about(LogSource::Note), 1, "{entries:?}");
    }

    /// A stdio server that cannot start stays failed: one end, no retry, even when retrying
    /// is asked for.
    #[tokio::test]
    async fn a_stdio_server_that_fails_is_not_tried_again() {
        let mut followed = supervisor(TransportSpec::Stdio {
            command: "/nonexistent/mcpick-test-server".into(),
            args: vec![],
            env: Default::default(),
            cwd: None,
        })
        .spawn();
        let (generation, event) = next(&mut followed).await;
        assert_eq!(generation, 1);
        assert!(
            matches!(&event, Event::Ended { listed: false, retry: None, reason } if !reason.why.is_empty()),
            "{event:?}"
        );
        assert!(followed.next().await.is_none(), "nothing after the end");
    }
}
