//! Runs the core's effects: server connections, reads, searches, sorts, resolutions and
//! saves become tasks, and their results come back as `Msg`s. Connections live in tasks owned
//! here, never in the core; dropping the executor aborts them and kills every server process.
//!
//! The CPU-bound effects (search, sort, resolve) are answered by one pure function,
//! [`compute`], which the runtime runs on a blocking thread and tests and benchmarks call
//! directly. The contents pane reads through `read_fresh` (what the server sent, all of
//! it); token counts and the bundle through `read_text`, which hands on only the resource's
//! own contents parts, as `mcpick preview` does.

mod handoff;

use crate::sync::Locked;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::agent::ResolveRequest;
use crate::config::select::Held;

use super::app::{Bundled, Effect, ExpansionRead, Msg, ServerEvent};
use super::contents::{self, ContentsDoc};
use super::follow::{Connections, connection_of, run_server};
use super::keeper::Keeper;
use super::reader::read_resolution;
use super::term::{self, Term};
use crate::catalog::{ItemId, Search, SearchResults, SearchWorker, ServerId, SortedList};
use crate::context::TokenizerKind;
use crate::export::Format;
use crate::mcp::log::ServerLog;
use crate::mcp::{
    ConnectOptions, Connection, Failure, FailureKind, McpError, ReadOutcome, ServerSpec,
};

/// How long the cursor must rest on a resource before it is read.
const READ_REST: Duration = Duration::from_millis(120);
/// How long a log change waits for more before it is sent to the core.
const LOG_BATCH: Duration = Duration::from_millis(50);
/// Reads at once when counting tokens for the agent view (as `mcpick preview --jobs`).
const MEASURE_JOBS: usize = 8;

/// The answer to a CPU-bound effect, computed synchronously: `Ok(msg)` for a search (complete,
/// in one pass), a sort or a resolution; `Err(effect)` for every other effect (it needs I/O).
/// The runtime runs sorts and resolutions through here on a blocking thread (searches go to
/// the incremental worker); tests and benchmarks run all three through here.
pub fn compute(effect: Effect) -> Result<Msg, Effect> {
    match effect {
        Effect::Search {
            generation,
            snapshot,
            query,
        } => {
            let matches = Search::default().find(&snapshot, &query);
            Ok(Msg::SearchResults(Arc::new(SearchResults {
                generation,
                query,
                matches,
                complete: true,
                scanned: snapshot.len(),
                total: snapshot.len(),
            })))
        }
        Effect::Sort {
            generation,
            key,
            snapshot,
            names,
            from,
        } => {
            let order = match from {
                Some(from) => from
                    .last
                    .advance(&snapshot, &names, from.touched.as_deref()),
                None => SortedList::sort(&snapshot, &names, key),
            };
            Ok(Msg::Sorted {
                generation,
                ids: order.ids().to_vec(),
                lens: order.extent().lens().to_vec(),
                order: Arc::new(order),
            })
        }
        Effect::Resolve(request) => Ok(Msg::Resolved(Arc::new(super::agent::resolve_snapshot(
            &request,
        )))),
        other => Err(other),
    }
}

/// Why a read gave no outcome.
enum ReadFailure {
    NotConnected,
    /// No answer within the connection's timeout plus a second.
    TimedOut,
    /// The read failed: the error, and the connection's explanation of it for a person.
    Failed {
        error: McpError,
        explained: String,
    },
}

/// One `resources/read` for the contents pane, with how long the answer may be kept (the
/// server's `ttlMs`); given up a second after the connection's own timeout (`limit`) so a
/// hung transport cannot hold a slot.
async fn read_fresh(
    connection: Option<Arc<Connection>>,
    uri: &str,
    limit: Duration,
) -> Result<(ReadOutcome, Option<Duration>), ReadFailure> {
    let Some(c) = connection else {
        return Err(ReadFailure::NotConnected);
    };
    match tokio::time::timeout(limit + Duration::from_secs(1), c.read(uri)).await {
        Err(_) => Err(ReadFailure::TimedOut),
        Ok(Ok(read)) => Ok((read.outcome, read.fresh_for)),
        Ok(Err(error)) => {
            let explained = c.explain_gone(&error).await;
            Err(ReadFailure::Failed { error, explained })
        }
    }
}

/// A read for the agent (token counts, the bundle, the host view), whose failure is only
/// told, never shown as a pane: the read every front end hands on
/// ([`crate::mcp::read::for_agent`]: the resource's own contents parts only, what is dropped
/// written to the server's log).
async fn read_text(connection: Option<Arc<Connection>>, uri: &str) -> crate::mcp::read::AgentRead {
    crate::mcp::read::for_agent(connection.as_deref(), uri).await
}

/// Memory is handed back at most this often.
const RELEASE_EVERY: std::time::Duration = std::time::Duration::from_secs(2);

/// Sends a server's log to the core each time it changes, a batch at a time: the core holds
/// its own copy, so drawing never locks the log the connection writes to.
fn forward_log(server: ServerId, log: ServerLog, tx: mpsc::UnboundedSender<Msg>) -> AbortHandle {
    tokio::spawn(async move {
        loop {
            log.changed().await;
            // Lines come in bursts (a stack trace on stderr): one message for the burst.
            tokio::time::sleep(LOG_BATCH).await;
            let entries = log.entries();
            if tx.send(Msg::Log { server, entries }).is_err() {
                return;
            }
        }
    })
    .abort_handle()
}

/// A server the browser may start: its definition, and, when it comes from a project's files
/// and was not approved at start, the project whose approval it waits for.
pub struct Startable {
    pub spec: ServerSpec,
    pub needs_approval: Option<Held>,
}

/// Whether the person has approved `spec` for `project` by now (`mcpick trust`): a server held
/// at start is never started otherwise, whatever key asks for it.
fn approved(
    store: Option<crate::config::trust::Store>,
    project: &std::path::Path,
    spec: &ServerSpec,
) -> Result<(), Failure> {
    let not = |why: String| Failure::new(FailureKind::NotApproved, why);
    let store = store.ok_or_else(|| not("no user data directory to keep approvals in".into()))?;
    let approvals = store
        .load()
        .map_err(|e| not(format!("approvals cannot be read: {e}")))?;
    let verdict = approvals.check(project, &spec.transport);
    match verdict.why_held(&crate::sanitize::line(&spec.name, 200)) {
        None => Ok(()),
        Some(why) => Err(not(format!(
            "not started: {why}; review and approve it with `{}`, then press R",
            crate::config::trust::HOW_TO_APPROVE
        ))),
    }
}

/// Runs effects: owns the connections and the tasks.
pub struct Executor {
    tx: mpsc::UnboundedSender<Msg>,
    specs: Vec<ServerSpec>,
    /// Per server, the project whose approval it needs before it is started (see
    /// [`Startable`]); checked again at every connect, so `mcpick trust` then `R` starts it.
    needs_approval: Vec<Option<Held>>,
    options: ConnectOptions,
    color: bool,
    connections: Connections,
    tasks: Vec<AbortHandle>,
    /// Each server's connect-list-follow task (ended when it is connected again).
    servers: std::collections::HashMap<ServerId, AbortHandle>,
    read: Latest,
    measure: Latest,
    completing: Latest,
    /// The host delivery being made for the agent view (latest wins).
    host_preview: Latest,
    /// Held by the redelivery being written: one at a time, a later one after it.
    redelivering: Arc<tokio::sync::Mutex<()>>,
    pub worker: SearchWorker,
    /// Saves the set and watches it for others' changes.
    pub keeper: Keeper,
    /// Each server's connection log; its changes reach the core as `Msg::Log`.
    logs: Vec<ServerLog>,
    /// When memory is (or was last) handed back: resolutions come in runs while counts
    /// arrive, so releases are at least [`RELEASE_EVERY`] apart, the last one of a run late.
    release_at: Option<tokio::time::Instant>,
}

impl Executor {
    pub fn new(
        tx: mpsc::UnboundedSender<Msg>,
        servers: Vec<Startable>,
        options: ConnectOptions,
        color: bool,
        worker: SearchWorker,
        keeper: Keeper,
    ) -> Self {
        let (specs, needs_approval): (Vec<ServerSpec>, Vec<_>) = servers
            .into_iter()
            .map(|s| (s.spec, s.needs_approval))
            .unzip();
        let logs: Vec<ServerLog> = specs
            .iter()
            .map(|_| ServerLog::new(options.log_lines))
            .collect();
        let tasks = logs
            .iter()
            .enumerate()
            .map(|(server, log)| forward_log(server as ServerId, log.clone(), tx.clone()))
            .collect();
        Executor {
            tx,
            specs,
            needs_approval,
            options,
            color,
            connections: Arc::new(Mutex::new(Vec::new())),
            tasks,
            servers: std::collections::HashMap::new(),
            read: Latest::default(),
            measure: Latest::default(),
            completing: Latest::default(),
            host_preview: Latest::default(),
            redelivering: Arc::default(),
            worker,
            keeper,
            logs,
            release_at: None,
        }
    }

    pub fn run(&mut self, effects: Vec<Effect>, terminal: &mut Term) -> std::io::Result<()> {
        for effect in effects {
            match effect {
                Effect::Connect {
                    server,
                    generation,
                    relist,
                } => self.connect(server, generation, relist),
                Effect::Search {
                    generation,
                    snapshot,
                    query,
                } => self.worker.search(generation, snapshot, &query),
                effect @ (Effect::Sort { .. } | Effect::Resolve(_)) => {
                    let tx = self.tx.clone();
                    tokio::task::spawn_blocking(move || {
                        // The pool's threads only ever do background work.
                        crate::sched::background();
                        let _span = super::trace::other(match &effect {
                            Effect::Sort { .. } => "sort",
                            _ => "resolve",
                        });
                        if let Ok(msg) = compute(effect) {
                            let _ = tx.send(msg);
                        }
                    });
                }
                Effect::Read {
                    generation,
                    item,
                    uri,
                } => self.read(generation, item, uri),
                Effect::CancelRead => {
                    self.read.cancel();
                }
                Effect::Suspend => term::suspend(terminal)?,
                Effect::Approve(servers) => self.approve(servers),
                Effect::Measure {
                    generation,
                    tokenizer,
                    items,
                } => self.measure(generation, tokenizer, items),
                Effect::CancelMeasure => {
                    self.measure.cancel();
                }
                Effect::Save { seq, change } => self.keeper.save(seq, change),
                Effect::Copy { what, text } => self.copy(what, &text, terminal)?,
                Effect::Bundle(request) => self.bundle(*request),
                Effect::HostPreview { host, set, request } => {
                    self.host_preview(host, set, *request)
                }
                Effect::PlanInstall {
                    host,
                    scope,
                    set,
                    name,
                } => self.plan_install(host, scope, set, name),
                Effect::Install { plan, request } => self.install(plan, *request),
                Effect::Redeliver { set, request } => self.redeliver(set, *request),
                Effect::SignIn { server } => self.sign_in(server),
                Effect::ReleaseMemory => self.release_memory(),
                Effect::ReadExpansion { server, uri } => self.read_expansion(server, uri),
                Effect::Complete {
                    generation,
                    server,
                    template,
                    argument,
                    value,
                    context,
                } => self.complete(generation, server, template, argument, value, context),
            }
        }
        Ok(())
    }

    /// Copies through the terminal (OSC 52), so it works over SSH; the core hears of it with
    /// a note for tmux.
    fn copy(&mut self, what: String, text: &str, terminal: &mut Term) -> std::io::Result<()> {
        use std::io::Write;
        let out = terminal.backend_mut();
        out.write_all(crate::export::clipboard::osc52(text).as_bytes())?;
        out.flush()?;
        let tmux = std::env::var("TMUX").ok();
        let note = crate::export::clipboard::tmux_note(tmux.as_deref());
        let _ = self.tx.send(Msg::Copied { what, note });
        Ok(())
    }

    /// Hands freed memory back to the system, at most once per [`RELEASE_EVERY`].
    fn release_memory(&mut self) {
        let now = tokio::time::Instant::now();
        // One is already due later: it covers this memory too.
        if self.release_at.is_none_or(|at| at <= now) {
            let at = self
                .release_at
                .map_or(now, |last| (last + RELEASE_EVERY).max(now));
            self.release_at = Some(at);
            tokio::spawn(async move {
                tokio::time::sleep_until(at).await;
                let _ = tokio::task::spawn_blocking(|| {
                    crate::sched::background();
                    let _span = super::trace::other("malloc_trim");
                    crate::heap::release()
                })
                .await;
            });
        }
    }

    fn connect(&mut self, server: ServerId, generation: u64, relist: bool) {
        let Some(spec) = self.specs.get(server as usize).cloned() else {
            return;
        };
        let Some(log) = self.logs.get(server as usize).cloned() else {
            return;
        };
        if let Some(Some(held)) = self.needs_approval.get(server as usize) {
            let store = crate::config::trust::Store::system();
            if let Err(why) = approved(store, &held.project, &spec) {
                let _ = self.tx.send(Msg::Server {
                    server,
                    generation,
                    event: ServerEvent::Failed(why),
                });
                return;
            }
            self.needs_approval[server as usize] = None;
        }
        // Connecting again (`R`): the old connection ends first, its process too, even
        // while a read (waiting on its subscription) or a count still holds it.
        if let Some(old) = self.servers.remove(&server) {
            old.abort();
        }
        let old = self
            .connections
            .locked()
            .get_mut(server as usize)
            .and_then(Option::take);
        if let Some(old) = old {
            old.end();
        }
        let options = self.options.clone();
        let tx = self.tx.clone();
        let connections = self.connections.clone();
        let send = move |event| {
            let _ = tx.send(Msg::Server {
                server,
                generation,
                event,
            });
        };
        let task = tokio::spawn(run_server(
            spec,
            options,
            log,
            connections,
            server,
            relist,
            send,
        ));
        self.servers.insert(server, task.abort_handle());
    }

    /// Remembers the person's approval of the held `servers` (as `mcpick trust` would), so the
    /// next connect starts them.
    fn approve(&mut self, servers: Vec<ServerId>) {
        let result = match crate::config::trust::Store::system() {
            None => Err("no user data directory to keep approvals in".to_string()),
            Some(store) => store.update(|approvals| {
                for &server in &servers {
                    let (Some(Some(held)), Some(spec)) = (
                        self.needs_approval.get(server as usize),
                        self.specs.get(server as usize),
                    ) else {
                        continue;
                    };
                    approvals.approve(&held.project, &held.name, &spec.transport, &held.shown);
                }
            }),
        };
        let _ = self.tx.send(Msg::Approved { servers, result });
    }

    /// Latest wins: the read in flight is dropped (rmcp cancels it), and the new one starts
    /// after the cursor has rested a moment.
    fn read(&mut self, generation: u64, item: ItemId, uri: String) {
        let connection = connection_of(&self.connections, item.server);
        let tx = self.tx.clone();
        let color = self.color;
        let limit = self.options.timeout;
        let watched = connection.clone();
        let task = tokio::spawn(async move {
            tokio::time::sleep(READ_REST).await;
            let mut fresh_for = None;
            let doc = match read_fresh(connection, &uri, limit).await {
                Err(ReadFailure::NotConnected) => {
                    ContentsDoc::Error(crate::mcp::read::NOT_CONNECTED.into())
                }
                Err(ReadFailure::TimedOut)
                | Err(ReadFailure::Failed {
                    error: McpError::Timeout { .. },
                    ..
                }) => ContentsDoc::TimedOut(limit.as_secs_f32()),
                Err(ReadFailure::Failed { explained, .. }) => {
                    contents::build(Err(explained), color)
                }
                Ok((outcome, ttl)) => {
                    fresh_for = ttl;
                    tokio::task::spawn_blocking(move || contents::build(Ok(outcome), color))
                        .await
                        .unwrap_or_else(|e| ContentsDoc::Error(e.to_string()))
                }
            };
            let _ = tx.send(Msg::Contents {
                generation,
                item,
                doc: Arc::new(doc),
                fresh_for,
            });
            // While the pane shows it, its updates are asked for; the next read (or moving
            // off it) ends this task, which unsubscribes.
            if let Some(c) = watched
                && let Ok(_watch) = c.watch_updates(std::slice::from_ref(&uri)).await
            {
                std::future::pending::<()>().await;
            }
        });
        self.read.start(task);
    }

    /// Reads and counts a batch for the agent view, `MEASURE_JOBS` at a time, through the
    /// same connections and read as the contents pane; latest wins (the batch in flight is
    /// dropped).
    fn measure(
        &mut self,
        generation: u64,
        tokenizer: TokenizerKind,
        items: Vec<(ItemId, String, String)>,
    ) {
        let connections = self.connections.clone();
        let tx = self.tx.clone();
        let task = tokio::spawn(async move {
            let reads = futures::stream::iter(items.into_iter().map(|(item, uri, label)| {
                let connection = connection_of(&connections, item.server);
                async move {
                    let read = read_text(connection, &uri).await.map(|r| r.outcome);
                    (item, read, label)
                }
            }))
            .buffer_unordered(MEASURE_JOBS);
            futures::pin_mut!(reads);
            while let Some((item, outcome, label)) = reads.next().await {
                let measure = tokio::task::spawn_blocking(move || {
                    crate::context::measure(outcome, tokenizer, &label).0
                })
                .await;
                let Ok(measure) = measure else { continue };
                let _ = tx.send(Msg::Measured {
                    generation,
                    tokenizer,
                    item,
                    measure,
                });
            }
        });
        self.measure.start(task);
    }
}

/// How long a sign-in started from the browser waits for the browser to come back.
const SIGN_IN_WAIT: Duration = Duration::from_secs(300);

/// Completion requests wait this long for the next keystroke (newest wins).
const COMPLETE_DEBOUNCE: Duration = Duration::from_millis(150);

impl Executor {
    /// Reads a template expansion for the form; only a read that succeeds lets it join the
    /// catalogue (the core decides on the answer).
    fn read_expansion(&mut self, server: ServerId, uri: String) {
        let connection = connection_of(&self.connections, server);
        let tx = self.tx.clone();
        let color = self.color;
        let limit = self.options.timeout;
        let task = tokio::spawn(async move {
            let result = match read_fresh(connection, &uri, limit).await {
                Ok((ReadOutcome::NotFound(not_found), _)) => Err(format!(
                    "the server says it does not exist: {} (code {})",
                    not_found.message, not_found.code
                )),
                Ok((outcome, fresh_for)) => {
                    tokio::task::spawn_blocking(move || contents::build(Ok(outcome), color))
                        .await
                        .map(|doc| ExpansionRead {
                            doc: Arc::new(doc),
                            fresh_for,
                        })
                        .map_err(|e| e.to_string())
                }
                Err(ReadFailure::NotConnected) => Err(crate::mcp::read::NOT_CONNECTED.into()),
                Err(ReadFailure::TimedOut) => {
                    Err(format!("timed out after {:.0} s", limit.as_secs_f32()))
                }
                Err(ReadFailure::Failed { explained, .. }) => Err(explained),
            };
            let _ = tx.send(Msg::ExpansionRead {
                server,
                uri,
                result,
            });
        });
        self.tasks.push(task.abort_handle());
    }

    /// `completion/complete` for the template form, debounced; the request in flight is
    /// dropped when a newer one comes.
    fn complete(
        &mut self,
        generation: u64,
        server: ServerId,
        template: String,
        argument: String,
        value: String,
        context: Vec<(String, String)>,
    ) {
        let connection = connection_of(&self.connections, server);
        let tx = self.tx.clone();
        let task = tokio::spawn(async move {
            tokio::time::sleep(COMPLETE_DEBOUNCE).await;
            let Some(c) = connection else { return };
            let context = context.into_iter().collect();
            // A server without completions answers with an error: no suggestions.
            let values = c
                .complete_template(&template, &argument, &value, context)
                .await
                .unwrap_or_default();
            let _ = tx.send(Msg::Completions { generation, values });
        });
        self.completing.start(task);
    }

    /// The OAuth sign-in for an HTTP server, in the background: its notes (the URL) and its
    /// end reach the core as messages.
    fn sign_in(&mut self, server: ServerId) {
        let url = match self.specs.get(server as usize).map(|s| &s.transport) {
            Some(crate::mcp::TransportSpec::Http { url, .. }) => url.clone(),
            _ => {
                let _ = self.tx.send(Msg::SignedIn {
                    server,
                    result: Err("only a Streamable HTTP server can be signed in to".into()),
                });
                return;
            }
        };
        let tx = self.tx.clone();
        let task = tokio::spawn(async move {
            let notes = tx.clone();
            let mut say = move |line: &str| {
                let _ = notes.send(Msg::SignInNote {
                    server,
                    line: line.to_string(),
                });
            };
            let options = crate::mcp::oauth::LoginOptions {
                client: Default::default(),
                wait: SIGN_IN_WAIT,
                say: &mut say,
            };
            let result = crate::mcp::oauth::login(&url, options).await;
            let _ = tx.send(Msg::SignedIn { server, result });
        });
        self.tasks.push(task.abort_handle());
    }

    /// Reads what the request's resolution includes and renders the bundle, as
    /// `mcpick export` does (same resolution loop, same Markdown), off the UI thread.
    fn bundle(&mut self, request: ResolveRequest) {
        let connections = self.connections.clone();
        let tx = self.tx.clone();
        let task = tokio::spawn(async move {
            let (preview, texts, cands, _) = read_resolution(&request, &connections).await;
            let text = crate::export::bundle::bundle(Format::Markdown, &preview, &cands, &texts);
            let _ = tx.send(Msg::Bundle(Ok(Bundled {
                text,
                resources: preview.included.len(),
                tokens: preview.total_tokens,
                estimated: preview.is_estimated(),
            })));
        });
        self.tasks.push(task.abort_handle());
    }
}

/// Runs CPU-bound work from a task without holding up the tasks sharing its thread (the
/// browser's runtime has several; a runtime with one runs it in place).
pub(super) fn off_the_loop<R>(work: impl FnOnce() -> R) -> R {
    match tokio::runtime::Handle::current().runtime_flavor() {
        tokio::runtime::RuntimeFlavor::CurrentThread => work(),
        _ => tokio::task::block_in_place(work),
    }
}

/// The runtime's side of a latest-wins job (see [`crate::tui::app::job`]): starting one
/// aborts the one in flight, and dropping the slot aborts it too.
#[derive(Default)]
struct Latest(Option<AbortHandle>);

impl Latest {
    fn start(&mut self, task: tokio::task::JoinHandle<()>) {
        self.cancel();
        self.0 = Some(task.abort_handle());
    }

    fn cancel(&mut self) {
        if let Some(h) = self.0.take() {
            h.abort();
        }
    }
}

impl Drop for Latest {
    fn drop(&mut self) {
        self.cancel();
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        // The latest-wins jobs end themselves when dropped.
        for t in self.tasks.iter().chain(self.servers.values()) {
            t.abort();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::TransportSpec;

    /// The check every connect of a held server passes through: whatever key asked for the
    /// start, an unapproved command is not started, and once `mcpick trust` approved this
    /// exact command it is. A changed command is held again.
    #[test]
    fn a_held_server_starts_only_once_its_exact_command_is_approved() {
        let dir = tempfile::tempdir().unwrap();
        let store = || {
            Some(crate::config::trust::Store::at(
                dir.path().join("approvals.json"),
            ))
        };
        let project = dir.path().join("project");
        let spec = |arg: &str| ServerSpec {
            name: "repo-server".into(),
            transport: TransportSpec::Stdio {
                command: "node".into(),
                args: vec![arg.into()],
                env: Default::default(),
                cwd: None,
            },
        };

        let held = approved(store(), &project, &spec("server.js")).unwrap_err();
        assert_eq!(held.kind, FailureKind::NotApproved);
        assert!(held.why.contains("mcpick trust"), "{}", held.why);
        let nowhere = approved(None, &project, &spec("server.js")).unwrap_err();
        assert_eq!(nowhere.kind, FailureKind::NotApproved);

        store()
            .unwrap()
            .update(|a| {
                a.approve(
                    &project,
                    "repo-server",
                    &spec("server.js").transport,
                    "node server.js",
                )
            })
            .unwrap();
        assert!(approved(store(), &project, &spec("server.js")).is_ok());
        assert_eq!(
            approved(store(), &project, &spec("evil.js"))
                .unwrap_err()
                .kind,
            FailureKind::NotApproved
        );
        assert!(approved(store(), &dir.path().join("other"), &spec("server.js")).is_err());
    }
}
