//! A bounded per-server log: the server's stderr lines, its `notifications/message` entries and
//! protocol errors. Server output never reaches the terminal directly; it lands here, cleaned,
//! capped in line length and count, and is shown on demand (error messages, the log view).

use crate::sync::Locked;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::sanitize;

/// Where a log entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogSource {
    /// A line the server process wrote to stderr.
    Stderr,
    /// A `notifications/message` the server sent, with its level.
    Notification,
    /// Something the client noticed: a protocol error, a failed request, a disconnect.
    Client,
    /// Something the client notes that is information, not a fault (how the handshake
    /// went, a sign-in step): never shown as the server's last error.
    Note,
}

/// How much an entry matters: a warning is logged and shown, never taken for the server's
/// last error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Level {
    #[default]
    Error,
    Warning,
}

impl Level {
    /// What goes before the entry's words where people read it.
    pub fn prefix(self) -> &'static str {
        match self {
            Level::Error => "",
            Level::Warning => "warning: ",
        }
    }
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct LogEntry {
    #[serde(skip)]
    pub at: SystemTime,
    pub source: LogSource,
    #[serde(skip)]
    pub level: Level,
    /// Already cleaned and capped: safe to print.
    pub text: String,
}

impl LogEntry {
    /// An entry of now, its words cleaned and capped, a warning's said so.
    pub fn new(source: LogSource, level: Level, raw: &str) -> Self {
        let text = format!("{}{raw}", level.prefix());
        LogEntry {
            at: SystemTime::now(),
            source,
            level,
            text: sanitize::line(text.trim_end(), MAX_LINE_CHARS),
        }
    }
}

/// Lines kept per server unless told otherwise.
pub const DEFAULT_LOG_LINES: usize = 2000;
/// Longest log line kept, in characters.
const MAX_LINE_CHARS: usize = 2000;

/// A cheap-to-clone handle on one server's bounded log.
#[derive(Debug, Clone)]
pub struct ServerLog {
    inner: Arc<Mutex<Ring>>,
    /// Woken on every change, so a reader can wait for one instead of polling.
    changed: Arc<tokio::sync::Notify>,
    /// True once a stdio server's stderr reached its end (every line it wrote is here).
    stderr_ended: Arc<tokio::sync::watch::Sender<bool>>,
}

#[derive(Debug)]
struct Ring {
    capacity: usize,
    entries: VecDeque<LogEntry>,
    /// Entries ever pushed: the position after the newest entry.
    pushed: u64,
}

impl Default for ServerLog {
    fn default() -> Self {
        Self::new(DEFAULT_LOG_LINES)
    }
}

impl ServerLog {
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            inner: Arc::new(Mutex::new(Ring {
                capacity,
                entries: VecDeque::with_capacity(capacity.min(256)),
                pushed: 0,
            })),
            changed: Arc::new(tokio::sync::Notify::new()),
            stderr_ended: Arc::new(tokio::sync::watch::channel(false).0),
        }
    }

    /// Says the server's stderr reached its end: every line it wrote is in the log.
    pub fn end_stderr(&self) {
        self.stderr_ended.send_replace(true);
    }

    /// Waits until the server's stderr reached its end ([`ServerLog::end_stderr`]), at most
    /// `limit`: a server that died usually said why as it went, and its pipe may still hold
    /// those lines when the connection's end is noticed.
    pub async fn stderr_ended(&self, limit: std::time::Duration) {
        let mut ended = self.stderr_ended.subscribe();
        let _ = tokio::time::timeout(limit, ended.wait_for(|&e| e)).await;
    }

    /// Appends one entry; the oldest is dropped when the log is full.
    pub fn push(&self, source: LogSource, raw: &str) {
        self.push_at(source, Level::Error, raw);
    }

    /// Appends a warning the client noticed (said `warning: …`).
    pub fn warn(&self, raw: &str) {
        self.push_at(LogSource::Client, Level::Warning, raw);
    }

    fn push_at(&self, source: LogSource, level: Level, raw: &str) {
        let entry = LogEntry::new(source, level, raw);
        let mut ring = self.inner.locked();
        if ring.entries.len() == ring.capacity {
            ring.entries.pop_front();
        }
        ring.entries.push_back(entry);
        ring.pushed += 1;
        drop(ring);
        self.changed.notify_one();
    }

    /// Waits until the log changes (an entry pushed or marked) after the last wait ended; a
    /// change made while nobody waits is remembered once.
    pub async fn changed(&self) {
        self.changed.notified().await;
    }

    /// A position in the log (entries pushed so far) that stays valid as old entries drop.
    pub fn position(&self) -> u64 {
        self.inner.locked().pushed
    }

    /// Puts `prefix` before each stderr line pushed between two [`position`](Self::position)s
    /// (still kept), to say why they were written. Returns how many lines were marked.
    pub fn mark_stderr(&self, from: u64, to: u64, prefix: &str) -> usize {
        let mut ring = self.inner.locked();
        let first = ring.pushed - ring.entries.len() as u64;
        let mut marked = 0;
        for (i, entry) in ring.entries.iter_mut().enumerate() {
            let at = first + i as u64;
            if at >= from && at < to && entry.source == LogSource::Stderr {
                entry.text = format!("{prefix}{}", entry.text);
                marked += 1;
            }
        }
        drop(ring);
        if marked > 0 {
            self.changed.notify_one();
        }
        marked
    }

    /// A copy of every entry currently kept, oldest first.
    pub fn entries(&self) -> Vec<LogEntry> {
        let ring = self.inner.locked();
        ring.entries.iter().cloned().collect()
    }

    /// The newest of the last `n` stderr lines that states an error (see [`is_error_line`]):
    /// a dying server's stack trace ends in frames (Node) or wraps the error in context, and
    /// the line that says what went wrong is worth more than the tail.
    pub fn error_line(&self, n: usize) -> Option<String> {
        let ring = self.inner.locked();
        ring.entries
            .iter()
            .rev()
            .filter(|e| e.source == LogSource::Stderr)
            .take(n)
            .find(|e| is_error_line(&e.text))
            .map(|e| e.text.clone())
    }

    /// The last `n` lines of one source, oldest first (for error messages).
    pub fn tail(&self, source: LogSource, n: usize) -> Vec<String> {
        let ring = self.inner.locked();
        let mut lines: Vec<String> = ring
            .entries
            .iter()
            .rev()
            .filter(|e| e.source == source)
            .take(n)
            .map(|e| e.text.clone())
            .collect();
        lines.reverse();
        lines
    }
}

/// Whether a stderr line states an error, the way runtimes print one at the start of a line:
/// `RuntimeError: …`, `psycopg2.OperationalError: …`, Node's `Error: …` and
/// `TypeError [ERR_X]: …`, Java's `Exception in thread "main" …: …`, Rust's `error: …`.
/// Indented lines (stack frames, the source line that threw) never are.
pub fn is_error_line(line: &str) -> bool {
    let head = line
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .unwrap_or(line.len());
    let (name, rest) = line.split_at(head);
    let named = name.ends_with("Error") || name.ends_with("Exception");
    (named && rest.contains(':')) || line.starts_with("error:") || line.starts_with("error[")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A warning is said `warning: …` and known by its level, not its words.
    #[test]
    fn a_warning_is_said_so_and_known_by_its_level() {
        let log = ServerLog::new(4);
        log.warn("page 2: a duplicate URI ");
        log.push(LogSource::Client, "warning: a server's own words");
        let entries = log.entries();
        assert_eq!(entries[0].text, "warning: page 2: a duplicate URI");
        assert_eq!(entries[0].level, Level::Warning);
        assert_eq!(entries[1].level, Level::Error);
    }

    #[test]
    fn picks_the_line_that_states_the_error() {
        for yes in [
            "Error: DATABASE_URL is not set",
            "RuntimeError: no config",
            "psycopg2.OperationalError: connection refused",
            "TypeError [ERR_INVALID_ARG_TYPE]: The \"path\" argument must be a string",
            "Exception in thread \"main\" java.lang.IllegalStateException: boom",
            "error: unexpected argument '--x' found",
        ] {
            assert!(is_error_line(yes), "{yes}");
        }
        for no in [
            "    at Object.<anonymous> (/srv/index.js:3:9)",
            "    raise RuntimeError(\"no config\")",
            "Traceback (most recent call last):",
            "ErrorHandler: installed",
            "Error handling is on",
            "Node.js v20.11.0",
            "",
        ] {
            assert!(!is_error_line(no), "{no}");
        }
        let log = ServerLog::new(100);
        log.push(LogSource::Stderr, "Error: old trouble");
        log.push(LogSource::Stderr, "Error: DATABASE_URL is not set");
        log.push(LogSource::Stderr, "    at main (/srv/index.js:3:9)");
        log.push(LogSource::Client, "Error: not the server's");
        log.push(LogSource::Stderr, "Node.js v20.11.0");
        assert_eq!(
            log.error_line(40).as_deref(),
            Some("Error: DATABASE_URL is not set")
        );
        assert_eq!(log.error_line(2), None, "only the last lines are searched");
    }

    #[test]
    fn keeps_the_newest_lines_within_capacity() {
        let log = ServerLog::new(3);
        for i in 0..5 {
            log.push(LogSource::Stderr, &format!("line {i}\n"));
        }
        let texts: Vec<_> = log.entries().into_iter().map(|e| e.text).collect();
        assert_eq!(texts, ["line 2", "line 3", "line 4"]);
    }

    #[test]
    fn marks_stderr_lines_between_positions() {
        let log = ServerLog::new(3);
        log.push(LogSource::Stderr, "before");
        let from = log.position();
        log.push(LogSource::Stderr, "one");
        log.push(LogSource::Client, "note");
        log.push(LogSource::Stderr, "two");
        let to = log.position();
        log.push(LogSource::Stderr, "after");
        // "before" and "one" have dropped out of the ring; positions still line up.
        assert_eq!(log.mark_stderr(from, to, "(probe) "), 1);
        let texts: Vec<_> = log.entries().into_iter().map(|e| e.text).collect();
        assert_eq!(texts, ["note", "(probe) two", "after"]);
    }

    #[tokio::test]
    async fn a_change_wakes_a_waiting_reader() {
        let log = ServerLog::new(3);
        let reader = log.clone();
        let waiting = tokio::spawn(async move {
            reader.changed().await;
            reader.entries().len()
        });
        log.push(LogSource::Stderr, "hello");
        assert_eq!(waiting.await.unwrap(), 1);
        // A change while nobody waits is remembered for the next wait.
        log.push(LogSource::Stderr, "again");
        log.changed().await;
    }

    #[test]
    fn cleans_and_caps_lines() {
        let log = ServerLog::new(10);
        log.push(LogSource::Stderr, "\u{1b}[31mboom\u{1b}[0m");
        log.push(LogSource::Notification, &"x".repeat(10_000));
        assert_eq!(log.tail(LogSource::Stderr, 5), ["boom"]);
        assert_eq!(
            log.tail(LogSource::Notification, 1)[0].chars().count(),
            MAX_LINE_CHARS
        );
    }
}
