//! The shell around the core: one `tokio::select!` over terminal events, the message channel
//! and the redraw deadline. Effects go to the [`Executor`]; results come back on the channel.
//! Signals are not handled here: `crate::signals` ends the process (servers killed, terminal
//! restored) even while this loop is busy.

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::{Event, MouseEventKind};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::app::{App, Effect, Msg};
use super::executor::{Executor, Startable};
use super::keeper::Keeper;
use super::term::Term;
use super::trace::{self, Keys as Trace};
use super::ui;
use crate::catalog::{Search, SearchResults, SearchWorker};
use crate::context::SetFile;
use crate::mcp::ConnectOptions;

/// Shortest time between two frames.
const FRAME: Duration = Duration::from_millis(8);

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

/// The terminal's input, read by a thread of its own into a channel: the loop can then see a
/// key waiting while it drains a burst of messages (crossterm's `EventStream` cannot be asked
/// without waiting: a poll that is not awaited loses its wake-up). A thread, not a runtime
/// task, so that reading a key never waits for a worker busy with a listing.
struct InputReader {
    rx: mpsc::UnboundedReceiver<(std::time::Instant, std::io::Result<Event>)>,
    shared: Arc<Reading>,
    /// When the input last taken was read from the terminal.
    read_at: std::time::Instant,
}

/// What the loop and the reading thread share.
#[derive(Default)]
struct Reading {
    /// Asked to stop reading (the terminal is given away) or, with `end`, to end.
    pause: std::sync::atomic::AtomicBool,
    end: std::sync::atomic::AtomicBool,
    /// The thread is not reading (it saw `pause`).
    parked: std::sync::atomic::AtomicBool,
}

/// How long the reading thread waits for input before it looks at `pause` again.
const READ_TICK: Duration = Duration::from_millis(25);

impl InputReader {
    fn spawn() -> Self {
        use std::sync::atomic::Ordering::SeqCst;
        let (tx, rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Reading::default());
        let reading = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("mcpick-input".into())
            .spawn(move || {
                while !reading.end.load(SeqCst) {
                    if reading.pause.load(SeqCst) {
                        reading.parked.store(true, SeqCst);
                        std::thread::sleep(Duration::from_millis(5));
                        continue;
                    }
                    reading.parked.store(false, SeqCst);
                    let event = match crossterm::event::poll(READ_TICK) {
                        Ok(false) => continue,
                        Ok(true) => crossterm::event::read(),
                        Err(e) => Err(e),
                    };
                    let failed = event.is_err();
                    if tx.send((std::time::Instant::now(), event)).is_err() || failed {
                        break;
                    }
                }
            });
        if let Err(e) = spawned {
            // No input thread: the loop sees the error as the end of its input.
            let (tx, rx) = mpsc::unbounded_channel();
            let _ = tx.send((std::time::Instant::now(), Err(e)));
            return InputReader {
                rx,
                shared,
                read_at: std::time::Instant::now(),
            };
        }
        InputReader {
            rx,
            shared,
            read_at: std::time::Instant::now(),
        }
    }

    /// Stops reading (the terminal is given away: a stopped process's reader would hold the
    /// terminal, and take what it answers to the browser when it takes the terminal back).
    async fn pause(&mut self) {
        use std::sync::atomic::Ordering::SeqCst;
        self.shared.parked.store(false, SeqCst);
        self.shared.pause.store(true, SeqCst);
        let deadline = Instant::now() + READ_TICK * 8;
        while !self.shared.parked.load(SeqCst) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// Reads again after [`InputReader::pause`].
    fn resume(&mut self) {
        self.shared
            .pause
            .store(false, std::sync::atomic::Ordering::SeqCst);
    }

    /// The next input as a message (`Ok(None)`: an event the browser ignores); the end of
    /// input quits.
    async fn next(&mut self) -> std::io::Result<Option<Msg>> {
        let event = self.rx.recv().await;
        self.message(event)
    }

    /// Input already waiting, if any (as [`InputReader::next`]), without waiting.
    fn ready(&mut self) -> Option<std::io::Result<Option<Msg>>> {
        match self.rx.try_recv() {
            Ok(event) => Some(self.message(Some(event))),
            Err(mpsc::error::TryRecvError::Empty) => None,
            Err(mpsc::error::TryRecvError::Disconnected) => Some(Ok(Some(Msg::Quit))),
        }
    }

    fn message(
        &mut self,
        event: Option<(std::time::Instant, std::io::Result<Event>)>,
    ) -> std::io::Result<Option<Msg>> {
        match event {
            Some((read_at, event)) => {
                self.read_at = read_at;
                Ok(to_msg(event?))
            }
            None => Ok(Some(Msg::Quit)),
        }
    }
}

impl Drop for InputReader {
    fn drop(&mut self) {
        self.shared
            .end
            .store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Runs the loop until the person quits; returns why marks were not saved, if they were not.
pub async fn event_loop(
    terminal: &mut Term,
    mut app: App,
    first: Vec<Effect>,
    servers: Vec<Startable>,
    options: ConnectOptions,
    set_file: SetFile,
) -> std::io::Result<Option<String>> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let (search_tx, mut search_rx) = mpsc::unbounded_channel::<u64>();
    let worker = SearchWorker::spawn(Search::default(), move |generation| {
        let _ = search_tx.send(generation);
    });
    let keeper = Keeper::spawn(set_file, tx.clone());
    let mut executor = Executor::new(tx, servers, options, app.theme.color, worker, keeper);
    let size = terminal.size()?;
    app.size = (size.width, size.height);
    // The first frame, before any server answers.
    terminal.draw(|f| ui::render(&app, f))?;
    let mut last_draw = Instant::now();
    let mut dirty = false;
    let mut effects = app.start();
    effects.extend(first);
    executor.run(effects, terminal)?;

    let mut input = InputReader::spawn();
    let mut delivered: Option<Arc<SearchResults>> = None;
    // Input that came while a burst was being drained: taken next, before anything else.
    let mut early: Option<Msg> = None;
    // `MCPICK_TRACE_KEYS=FILE`: what the loop did between each key and its frame.
    let mut trace = Trace::from_env();

    loop {
        let msg = if let Some(msg) = early.take() {
            msg
        } else {
            tokio::select! {
            biased;
            _ = tokio::time::sleep_until(last_draw + FRAME), if dirty => {
                let begun = trace.begin();
                terminal.draw(|f| ui::render(&app, f))?;
                trace.end(begun, "draw", String::new);
                last_draw = Instant::now();
                dirty = false;
                continue;
            }
            event = input.next() => match event? {
                Some(msg) => msg,
                None => continue,
            },
            // Before the message channel: while a listing streams in, that channel is never
            // empty, and a search's results behind it waited until the listing ended (19 s
            // at a million). They cannot starve it: only the latest result is kept, at most
            // one every 40 ms while a search runs.
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
            Some(msg) = rx.recv() => msg,
            }
        };
        let is_input = matches!(msg, Msg::Key(_) | Msg::Mouse(_) | Msg::Resize(..));
        let (begun, kind) = (trace.begin(), trace::kind(&msg));
        if is_input {
            trace.key(&msg, input.read_at);
        }
        let mut effects = app.update(msg);
        trace.end(begun, kind, String::new);
        // Drain bursts (pages arriving fast) before drawing, for at most a frame's time; a
        // key's frame never waits for them, nor for the rest of the burst: it is taken as
        // soon as it comes (a key waited up to 9 ms behind a burst being drained).
        if !is_input {
            let until = Instant::now() + FRAME;
            let (begun, mut burst) = (trace.begin(), trace::Burst::default());
            while Instant::now() < until {
                if let Some(event) = input.ready() {
                    match event? {
                        Some(msg) => {
                            early = Some(msg);
                            break;
                        }
                        None => continue,
                    }
                }
                match rx.try_recv() {
                    Ok(m) if trace.on() => {
                        let (kind, started) = (trace::kind(&m), Instant::now());
                        effects.extend(app.update(m));
                        burst.add(kind, started.elapsed());
                    }
                    Ok(m) => effects.extend(app.update(m)),
                    Err(_) => break,
                }
            }
            trace.end_burst(begun, &burst);
        }
        let gives_terminal_away = effects.iter().any(|e| matches!(e, Effect::Suspend));
        if gives_terminal_away {
            input.pause().await;
        }
        let begun = trace.begin();
        let ran = trace.on().then(|| trace::effects(&effects));
        executor.run(effects, terminal)?;
        if let Some(ran) = ran.filter(|r| !r.is_empty()) {
            trace.end(begun, "effects", || ran.join(", "));
        }
        if gives_terminal_away {
            input.resume();
        }
        if app.quit {
            break;
        }
        dirty = true;
        if is_input {
            // Input is drawn at once, never at the next frame's deadline: that deadline is a
            // timer, fired by runtime threads that may be busy parsing pages (while a million
            // resources streamed in, keys waited up to 120 ms for it).
            let begun = trace.begin();
            terminal.draw(|f| ui::render(&app, f))?;
            trace.end(begun, "draw", String::new);
            trace.flushed();
            last_draw = Instant::now();
            dirty = false;
        }
    }
    drop(input);
    // Every save asked for is written (or has failed) before the browser ends.
    let mut not_saved = executor.keeper.finish();
    if app.context.saving.unsaved
        && let Some(e) = &app.context.saving.load_error
    {
        not_saved = Some(format!(
            "{e}: the changes made in this session were not saved"
        ));
    }
    // Dropping the executor aborts the tasks and drops the connections: servers are killed.
    drop(executor);
    Ok(not_saved)
}
