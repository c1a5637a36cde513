//! The progress line: one line on stderr, redrawn in place, while a headless command does
//! something long: connecting, listing, reading what a budget includes, checking, and `serve`
//! connecting to its upstreams.
//!
//! Drawn only when stderr is a terminal and `--quiet` was not given ([`set_quiet`]): logs,
//! pipes and hosts reading `serve`'s stderr get no progress bytes at all. Every other line
//! mcpick writes to stderr clears it first ([`clear`]), so the two never mix. Redrawn at most
//! ten times a second; the first state of each step is drawn at once. It is redrawn with a
//! carriage return and overwritten with spaces, never with an escape sequence: what reaches
//! the terminal stays plain text (as every message mcpick prints does).
//!
//! Two trackers say what is going on: [`Servers`] (one status per server, for work done on
//! several at once) and [`Counter`] (a count, with a total when it is known). Each clears the
//! line when it is dropped.

use crate::sync::Locked;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Longest time between two redraws a steady stream of updates gets.
const REDRAW: Duration = Duration::from_millis(100);

static QUIET: AtomicBool = AtomicBool::new(false);

struct Line {
    /// Characters on the line now (0: nothing drawn).
    drawn: usize,
    last: Option<Instant>,
}

static LINE: Mutex<Line> = Mutex::new(Line {
    drawn: 0,
    last: None,
});

/// `--quiet`: no progress for the rest of the process.
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether progress is drawn: stderr is a terminal and `--quiet` was not given.
pub fn enabled() -> bool {
    static TERMINAL: OnceLock<bool> = OnceLock::new();
    !QUIET.load(Ordering::Relaxed) && *TERMINAL.get_or_init(|| std::io::stderr().is_terminal())
}

fn line() -> std::sync::MutexGuard<'static, Line> {
    LINE.locked()
}

/// Draws `text()` as the progress line (cleaned, cut to fit a line), unless it was drawn
/// less than [`REDRAW`] ago; `now` draws regardless (a new step).
fn show(now: bool, text: impl FnOnce() -> String) {
    if !enabled() {
        return;
    }
    let mut line = line();
    if !now && line.last.is_some_and(|t| t.elapsed() < REDRAW) {
        return;
    }
    line.last = Some(Instant::now());
    let text = crate::sanitize::line(&text(), width());
    let len = text.chars().count();
    // Spaces over what the last one left beyond this one.
    let pad = " ".repeat(line.drawn.saturating_sub(len));
    line.drawn = len;
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "\r{text}{pad}");
    let _ = err.flush();
}

/// Removes the progress line, if one is drawn: before any other stderr output, and when a
/// step ends.
pub fn clear() {
    if !enabled() {
        return;
    }
    let mut line = line();
    if line.drawn > 0 {
        let blank = " ".repeat(line.drawn);
        line.drawn = 0;
        line.last = None;
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{blank}\r");
        let _ = err.flush();
    }
}

/// Characters that fit on one terminal line (`$COLUMNS`, else 80), so a redraw in place
/// never wraps.
fn width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse::<usize>().ok())
        .filter(|&c| c > 10)
        .unwrap_or(80)
        - 1
}

/// A step done on several servers at once; the line shows each server's latest status:
/// `listing… demo: 3,000 in 30 pages · docs: connecting`.
pub struct Servers {
    label: String,
    entries: Mutex<Vec<(String, String)>>,
}

impl Servers {
    pub fn new(label: &str, names: impl IntoIterator<Item = String>) -> Servers {
        let servers = Servers {
            label: label.to_string(),
            entries: Mutex::new(names.into_iter().map(|n| (n, String::new())).collect()),
        };
        servers.draw(true);
        servers
    }

    /// Server `index` is now at `status`.
    pub fn set(&self, index: usize, status: impl Into<String>) {
        if !enabled() {
            return;
        }
        let first = {
            let mut entries = self.entries.locked();
            let Some(entry) = entries.get_mut(index) else {
                return;
            };
            let first = entry.1.is_empty();
            entry.1 = status.into();
            first
        };
        self.draw(first);
    }

    fn draw(&self, now: bool) {
        show(now, || {
            let entries = self.entries.locked();
            let parts: Vec<String> = entries
                .iter()
                .filter(|(_, status)| !status.is_empty())
                .map(|(name, status)| format!("{}: {status}", crate::sanitize::line(name, 40)))
                .collect();
            if parts.is_empty() {
                format!("{}…", self.label)
            } else {
                format!("{}… {}", self.label, parts.join(" · "))
            }
        });
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        clear();
    }
}

/// Something counted as it happens: `connecting… 2 of 3 servers`, `reading… 120 resources`.
pub struct Counter {
    label: String,
    noun: (&'static str, &'static str),
    total: Option<usize>,
    done: AtomicUsize,
}

impl Counter {
    /// `noun`: singular and plural (`("server", "servers")`).
    pub fn new(label: &str, noun: (&'static str, &'static str), total: Option<usize>) -> Counter {
        let counter = Counter {
            label: label.to_string(),
            noun,
            total,
            done: AtomicUsize::new(0),
        };
        counter.draw(true);
        counter
    }

    /// One more done.
    pub fn tick(&self) {
        self.done.fetch_add(1, Ordering::Relaxed);
        self.draw(false);
    }

    fn draw(&self, now: bool) {
        show(now, || {
            let done = self.done.load(Ordering::Relaxed);
            let (one, many) = self.noun;
            match self.total {
                Some(total) => format!(
                    "{}… {done} of {}",
                    self.label,
                    crate::units::count(total as u64, one, many)
                ),
                None => format!(
                    "{}… {}",
                    self.label,
                    crate::units::count(done as u64, one, many)
                ),
            }
        });
    }
}

impl Drop for Counter {
    fn drop(&mut self) {
        clear();
    }
}
