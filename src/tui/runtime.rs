//! The shell around the core: one `tokio::select!` over terminal events, the message channel
//! and the redraw deadline. It turns `Effect`s into tasks (server connections, searches, sorts,
//! preview reads) and their results into `Msg`s. Server connections live in tasks owned here,
//! never in the core; dropping them at exit kills every server process. Signals are not
//! handled here: `crate::signals` ends the process (servers killed, terminal restored) even
//! while this loop is busy.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crossterm::event::{Event, EventStream, MouseEventKind};
use futures::StreamExt;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::app::{
    App, Effect, Msg, SaveFailure, SaveReport, ServerEvent, ServerSetup, sort_snapshot,
};
use super::keymap::Keymap;
use super::preview::{self, PreviewDoc};
use super::term::{self, Term};
use super::theme::{ColorChoice, Theme};
use super::ui;
use crate::catalog::{ItemId, Search, SearchResults, SearchWorker, ServerId};
use crate::cli::ServerArgs;
use crate::commands::context::choose;
use crate::context::{ContextSet, SetChange, SetFile, TokenizerKind};
use crate::mcp::{ConnectOptions, Connection, ListOptions, McpError, ServerSpec};
use crate::sanitize;

/// Shortest time between two frames.
const FRAME: Duration = Duration::from_millis(8);
/// How long the cursor must rest on a resource before it is read.
const PREVIEW_REST: Duration = Duration::from_millis(120);
/// Reads at once when counting tokens for the agent view (as `mcpick preview --jobs`).
const MEASURE_JOBS: usize = 8;

/// Runs the browser until the person quits. Returns the process exit status.
pub async fn run(args: ServerArgs, color: ColorChoice, set_path: PathBuf) -> ExitCode {
    if let Some(file) = &args.config.file
        && !file.is_file()
    {
        eprintln!("mcpick: --config {}: no such file", file.display());
        return ExitCode::from(2);
    }
    // The context set: a file that cannot be used is shown in the UI and never overwritten.
    let (set_file, loaded) = SetFile::open(&set_path);
    let (mut set, load_error) = match loaded {
        Ok(set) => (set, None),
        Err(e) => (ContextSet::default(), Some(e.to_string())),
    };
    // The same servers `mcpick preview --set FILE` would use.
    let chosen = match choose(&args, &set) {
        Ok(c) => c,
        Err(e) => {
            crate::commands::report(&e);
            return ExitCode::from(2);
        }
    };
    for c in &chosen {
        set.servers
            .insert(c.selected.spec.name.clone(), c.shown.clone());
    }
    let selected: Vec<_> = chosen.into_iter().map(|c| c.selected).collect();
    let (keymap, warnings) = Keymap::load(args.config.file.as_deref());
    let theme = Theme::choose(color, std::env::var("NO_COLOR").ok().as_deref());
    let options = args.connect_options();
    let setups = selected
        .iter()
        .map(|s| ServerSetup {
            name: s.spec.name.clone(),
            error: s.error.clone(),
        })
        .collect();
    let mut app = App::new(setups, keymap, theme, options.log_lines);
    if !warnings.is_empty() {
        app.notice = Some(sanitize::line(
            &format!("config: {}", warnings.join("; ")),
            300,
        ));
    }
    let specs: Vec<ServerSpec> = selected.into_iter().map(|s| s.spec).collect();
    let first = app.set_context(set, load_error);

    let (mut terminal, guard) = match term::init() {
        Ok(t) => t,
        Err(e) => {
            term::restore();
            eprintln!("mcpick: cannot set up the terminal: {e}");
            return ExitCode::from(1);
        }
    };
    let result = event_loop(&mut terminal, app, first, specs, options, set_file).await;
    drop(guard);
    match result {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(not_saved)) => {
            // A mark is never lost without saying so, and a non-zero status.
            eprintln!("mcpick: {}", sanitize::line(&not_saved, 2000));
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("mcpick: terminal error: {e}");
            ExitCode::from(1)
        }
    }
}

/// Runs effects: owns the connections and the tasks.
struct Executor {
    tx: mpsc::UnboundedSender<Msg>,
    specs: Vec<ServerSpec>,
    options: ConnectOptions,
    color: bool,
    connections: Arc<Mutex<Vec<Option<Arc<Connection>>>>>,
    tasks: Vec<AbortHandle>,
    read: Option<AbortHandle>,
    measure: Option<AbortHandle>,
    worker: SearchWorker,
    /// Saves the set and watches it for others' changes.
    keeper: Keeper,
}

impl Executor {
    fn run(&mut self, app: &App, effects: Vec<Effect>, terminal: &mut Term) -> std::io::Result<()> {
        for effect in effects {
            match effect {
                Effect::Connect { server, generation } => self.connect(app, server, generation),
                Effect::Search {
                    generation,
                    snapshot,
                    query,
                } => self.worker.search(generation, snapshot, &query),
                Effect::Sort {
                    generation,
                    key,
                    snapshot,
                    names,
                } => {
                    let tx = self.tx.clone();
                    tokio::task::spawn_blocking(move || {
                        let (ids, lens) = sort_snapshot(&snapshot, &names, key);
                        let _ = tx.send(Msg::Sorted {
                            generation,
                            key,
                            ids,
                            lens,
                        });
                    });
                }
                Effect::Read {
                    generation,
                    item,
                    uri,
                } => self.read(generation, item, uri),
                Effect::CancelRead => {
                    if let Some(h) = self.read.take() {
                        h.abort();
                    }
                }
                Effect::Suspend => term::suspend(terminal)?,
                Effect::Resolve(request) => {
                    let tx = self.tx.clone();
                    tokio::task::spawn_blocking(move || {
                        let agent = super::agent::resolve_snapshot(&request);
                        let _ = tx.send(Msg::Resolved(Arc::new(agent)));
                    });
                }
                Effect::Measure {
                    generation,
                    tokenizer,
                    items,
                } => self.measure(generation, tokenizer, items),
                Effect::CancelMeasure => {
                    if let Some(h) = self.measure.take() {
                        h.abort();
                    }
                }
                Effect::Save { seq, change } => self.keeper.save(seq, change),
            }
        }
        Ok(())
    }

    fn connect(&mut self, app: &App, server: ServerId, generation: u64) {
        let Some(spec) = self.specs.get(server as usize).cloned() else {
            return;
        };
        let log = app.logs[server as usize].clone();
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
        let task = tokio::spawn(async move {
            let connection = match Connection::connect(&spec, &options, log).await {
                Ok(c) => Arc::new(c),
                Err(e) => return send(ServerEvent::Failed(e.to_string())),
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
                protocol: summary.protocol_version,
                transport: connection.transport().to_string(),
                resources: connection.has_resources(),
            });
            if !connection.has_resources() {
                return;
            }
            let listed = connection
                .list_resources(&ListOptions::default(), |page| {
                    send(ServerEvent::Page {
                        number: page.number,
                        received: page.received,
                        resources: page.items.to_vec(),
                    })
                })
                .await;
            match listed {
                Ok(outcome) => send(ServerEvent::Listed {
                    count: outcome.count,
                    capped: outcome.capped,
                }),
                Err(e) => send(ServerEvent::Failed(connection.explain(&e))),
            }
        });
        self.tasks.push(task.abort_handle());
    }

    /// Latest wins: the read in flight is dropped (rmcp cancels it), and the new one starts
    /// after the cursor has rested a moment.
    fn read(&mut self, generation: u64, item: crate::catalog::ItemId, uri: String) {
        if let Some(h) = self.read.take() {
            h.abort();
        }
        let connection = self
            .connections
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(item.server as usize)
            .cloned()
            .flatten();
        let tx = self.tx.clone();
        let color = self.color;
        let limit = self.options.timeout;
        let task = tokio::spawn(async move {
            tokio::time::sleep(PREVIEW_REST).await;
            let doc = match connection {
                None => PreviewDoc::Error("the server is not connected".into()),
                Some(c) => {
                    match tokio::time::timeout(limit + Duration::from_secs(1), c.read(&uri)).await {
                        Err(_) | Ok(Err(McpError::Timeout { .. })) => {
                            PreviewDoc::TimedOut(limit.as_secs_f32())
                        }
                        Ok(Ok(outcome)) => {
                            tokio::task::spawn_blocking(move || preview::build(Ok(outcome), color))
                                .await
                                .unwrap_or_else(|e| PreviewDoc::Error(e.to_string()))
                        }
                        Ok(Err(e)) => preview::build(Err(c.explain(&e)), color),
                    }
                }
            };
            let _ = tx.send(Msg::Preview {
                generation,
                item,
                doc: Arc::new(doc),
            });
        });
        self.read = Some(task.abort_handle());
    }
}

impl Executor {
    /// Reads and counts a batch for the agent view, `MEASURE_JOBS` at a time, through the
    /// same connections and read as the preview pane; latest wins (the batch in flight is
    /// dropped).
    fn measure(&mut self, generation: u64, tokenizer: TokenizerKind, items: Vec<(ItemId, String)>) {
        if let Some(h) = self.measure.take() {
            h.abort();
        }
        let connections = self.connections.clone();
        let tx = self.tx.clone();
        let limit = self.options.timeout;
        let task = tokio::spawn(async move {
            let reads = futures::stream::iter(items.into_iter().map(|(item, uri)| {
                let connection = connections
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(item.server as usize)
                    .cloned()
                    .flatten();
                async move {
                    let outcome = match connection {
                        None => Err("the server is not connected".to_string()),
                        Some(c) => {
                            match tokio::time::timeout(limit + Duration::from_secs(1), c.read(&uri))
                                .await
                            {
                                Err(_) => {
                                    Err(format!("timed out after {:.0} s", limit.as_secs_f32()))
                                }
                                Ok(Ok(outcome)) => Ok(outcome),
                                Ok(Err(e)) => Err(c.explain(&e)),
                            }
                        }
                    };
                    (item, outcome)
                }
            }))
            .buffer_unordered(MEASURE_JOBS);
            futures::pin_mut!(reads);
            while let Some((item, outcome)) = reads.next().await {
                let measure = tokio::task::spawn_blocking(move || {
                    crate::context::measure(outcome, tokenizer).0
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
        self.measure = Some(task.abort_handle());
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        if let Some(m) = &self.measure {
            m.abort();
        }
        for t in &self.tasks {
            t.abort();
        }
        if let Some(r) = &self.read {
            r.abort();
        }
    }
}

fn to_msg(event: Event) -> Option<Msg> {
    match event {
        Event::Key(k) => Some(Msg::Key(k)),
        Event::Mouse(m) => match m.kind {
            MouseEventKind::Moved | MouseEventKind::Drag(_) => None,
            _ => Some(Msg::Mouse(m)),
        },
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        Event::Paste(s) => Some(Msg::Paste(s)),
        _ => None,
    }
}

async fn event_loop(
    terminal: &mut Term,
    mut app: App,
    first: Vec<Effect>,
    specs: Vec<ServerSpec>,
    options: ConnectOptions,
    set_file: SetFile,
) -> std::io::Result<Option<String>> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let (search_tx, mut search_rx) = mpsc::unbounded_channel::<u64>();
    let worker = SearchWorker::spawn(Search::default(), move |generation| {
        let _ = search_tx.send(generation);
    });
    let mut executor = Executor {
        tx: tx.clone(),
        specs,
        options,
        color: app.theme.color,
        connections: Arc::new(Mutex::new(Vec::new())),
        tasks: Vec::new(),
        read: None,
        measure: None,
        worker,
        keeper: Keeper::spawn(set_file, tx.clone()),
    };
    let size = terminal.size()?;
    app.size = (size.width, size.height);
    // The first frame, before any server answers.
    terminal.draw(|f| ui::render(&app, f))?;
    let mut last_draw = Instant::now();
    let mut dirty = false;
    let mut effects = app.start();
    effects.extend(first);
    executor.run(&app, effects, terminal)?;

    let mut input = EventStream::new();
    let mut delivered: Option<Arc<SearchResults>> = None;

    loop {
        let msg = tokio::select! {
            biased;
            _ = tokio::time::sleep_until(last_draw + FRAME), if dirty => {
                terminal.draw(|f| ui::render(&app, f))?;
                last_draw = Instant::now();
                dirty = false;
                continue;
            }
            event = input.next() => match event {
                Some(Ok(event)) => match to_msg(event) {
                    Some(msg) => msg,
                    None => continue,
                },
                Some(Err(e)) => return Err(e),
                None => Msg::Quit,
            },
            Some(msg) = rx.recv() => msg,
            Some(_) = search_rx.recv() => {
                while search_rx.try_recv().is_ok() {}
                match executor.worker.latest() {
                    Some(results) if !delivered.as_ref().is_some_and(|d| Arc::ptr_eq(d, &results)) => {
                        delivered = Some(results.clone());
                        Msg::SearchResults(results)
                    }
                    _ => continue,
                }
            }
        };
        let is_input = matches!(msg, Msg::Key(_) | Msg::Mouse(_) | Msg::Resize(..));
        let mut effects = app.update(msg);
        // Drain bursts (pages arriving fast) before drawing, for at most a frame's time; a
        // key's frame never waits for them.
        if !is_input {
            let until = Instant::now() + FRAME;
            while Instant::now() < until {
                match rx.try_recv() {
                    Ok(m) => effects.extend(app.update(m)),
                    Err(_) => break,
                }
            }
        }
        executor.run(&app, effects, terminal)?;
        if app.quit {
            break;
        }
        dirty = true;
        if is_input && last_draw.elapsed() >= FRAME {
            // Input is drawn at once.
            terminal.draw(|f| ui::render(&app, f))?;
            last_draw = Instant::now();
            dirty = false;
        }
    }
    // Every save asked for is written (or has failed) before the browser ends.
    let mut not_saved = executor.keeper.finish();
    if app.context.unsaved
        && let Some(e) = &app.context.load_error
    {
        not_saved = Some(format!(
            "{e}: the changes made in this session were not saved"
        ));
    }
    // Dropping the executor aborts the tasks and drops the connections: servers are killed.
    drop(executor);
    Ok(not_saved)
}

/// How often the set file is checked for changes another process saved.
const WATCH_EVERY: Duration = Duration::from_millis(500);

/// The set file's keeper: one thread that applies the browser's changes in order, each under
/// the set's lock on the file as it is then ([`SetFile::update`]), and between saves watches
/// the file for changes other processes save ([`SetFile::poll`], answered as
/// [`Msg::SetOnDisk`]).
struct Keeper {
    tx: Option<std::sync::mpsc::Sender<(u64, SetChange)>>,
    msgs: mpsc::UnboundedSender<Msg>,
    thread: Option<std::thread::JoinHandle<Option<String>>>,
}

impl Keeper {
    fn spawn(mut file: SetFile, msgs: mpsc::UnboundedSender<Msg>) -> Keeper {
        let (tx, rx) = std::sync::mpsc::channel::<(u64, SetChange)>();
        let to_app = msgs.clone();
        let thread = std::thread::Builder::new()
            .name("mcpick-set".into())
            .spawn(move || {
                let msgs = to_app;
                use std::sync::mpsc::RecvTimeoutError;
                let mut last_error = None;
                loop {
                    match rx.recv_timeout(WATCH_EVERY) {
                        Ok((seq, change)) => {
                            let result = match file.update(|set| change.apply(set)) {
                                Ok(updated) => {
                                    last_error = None;
                                    Ok(SaveReport {
                                        set: Box::new(updated.set),
                                        others_changed: updated.others_changed,
                                        applied: updated.value,
                                    })
                                }
                                Err(e) => {
                                    let error = e.to_string();
                                    last_error = Some(format!("marks not saved: {error}"));
                                    Err(SaveFailure { error, change })
                                }
                            };
                            let _ = msgs.send(Msg::Saved { seq, result });
                        }
                        Err(RecvTimeoutError::Timeout) => {
                            if let Ok(Some(set)) = file.poll() {
                                let _ = msgs.send(Msg::SetOnDisk(Box::new(set)));
                            }
                        }
                        Err(RecvTimeoutError::Disconnected) => return last_error,
                    }
                }
            })
            .ok();
        Keeper {
            tx: Some(tx),
            msgs,
            thread,
        }
    }

    fn save(&self, seq: u64, change: SetChange) {
        let Some(tx) = &self.tx else { return };
        if let Err(std::sync::mpsc::SendError((seq, change))) = tx.send((seq, change)) {
            // No keeper thread: nothing is saved, and the browser must say so.
            let _ = self.msgs.send(Msg::Saved {
                seq,
                result: Err(SaveFailure {
                    error: "cannot save: the saving thread is not running".into(),
                    change,
                }),
            });
        }
    }

    /// Waits for every save asked for; the last save's error, if it failed.
    fn finish(&mut self) -> Option<String> {
        self.tx.take();
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(error)) => error,
            Some(Err(_)) => Some("marks may not be saved: the saving thread failed".into()),
            None => None,
        }
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.finish();
    }
}
