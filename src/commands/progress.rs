//! A one-line progress display on stderr while servers page through large catalogues.
//! Only drawn when stderr is a terminal, so logs and pipes stay clean.

use std::cell::RefCell;
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Shared by the listing futures of one command (they run on one task, hence `RefCell`).
pub struct Progress {
    enabled: bool,
    state: RefCell<State>,
}

struct State {
    counts: Vec<(String, usize, usize)>,
    last_draw: Option<Instant>,
    drawn: bool,
}

impl Progress {
    pub fn new(servers: impl IntoIterator<Item = String>) -> Self {
        Self {
            enabled: std::io::stderr().is_terminal(),
            state: RefCell::new(State {
                counts: servers.into_iter().map(|s| (s, 0, 0)).collect(),
                last_draw: None,
                drawn: false,
            }),
        }
    }

    /// Records that server `index` has received `received` entries in `pages` pages.
    pub fn update(&self, index: usize, pages: usize, received: usize) {
        if !self.enabled {
            return;
        }
        let mut state = self.state.borrow_mut();
        if let Some(entry) = state.counts.get_mut(index) {
            entry.1 = pages;
            entry.2 = received;
        }
        // Redraw at most ten times a second.
        if state
            .last_draw
            .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        state.last_draw = Some(Instant::now());
        state.drawn = true;
        let line = state
            .counts
            .iter()
            .filter(|(_, pages, _)| *pages > 0)
            .map(|(name, pages, n)| {
                format!("{}: {n} in {pages} pages", crate::sanitize::line(name, 40))
            })
            .collect::<Vec<_>>()
            .join(", ");
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r\x1b[Klisting… {line}");
        let _ = err.flush();
    }

    /// Clears the progress line.
    pub fn finish(&self) {
        if self.enabled && self.state.borrow().drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}
