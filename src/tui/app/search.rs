//! The search: the query, its generation, the matches (partial while the worker scans), and
//! how results filter the tree and reset the list.

use std::sync::Arc;

use super::job::Job;
use super::{App, Cursor, Effect};
use crate::catalog::{ItemId, Search, SearchResults};

/// The search state: the query and what it matched.
#[derive(Default)]
pub struct SearchState {
    pub query: String,
    /// Where typing goes in `query`: a byte index on a character boundary (see the editing
    /// methods, which keep it there).
    pub cursor: usize,
    /// The search on the worker (latest wins; pages that arrive while it runs ask for one
    /// more, made when it completes).
    pub(super) job: Job,
    /// The matches of the current query, best first (partial while searching).
    pub matched: Option<Vec<ItemId>>,
    /// (scanned, total) of the search in progress.
    pub progress: (usize, usize),
    /// The generation whose matches filter the tree.
    pub(super) filter_generation: u64,
    /// The query whose complete result filters the tree: the partial results of its re-runs
    /// (pages arrived) leave the tree as it is until the complete one.
    pub(super) filtered_complete: Option<String>,
    /// The query whose best match the tree cursor last jumped to, and whether that result was
    /// complete: a search re-run because pages arrived does not move the cursor again.
    pub(super) jumped: Option<(String, bool)>,
    /// The query whose complete result last reset the list cursor.
    pub(super) list_reset_for: Option<String>,
    /// The matcher (also used to highlight matched characters of visible rows).
    pub matcher: Search,
}

/// One edit of the search line (the keys a line editor has).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEdit {
    Left,
    Right,
    Home,
    End,
    /// Delete the character before the cursor.
    Backspace,
    /// Delete the character under the cursor.
    Delete,
    /// Delete the word before the cursor (and the spaces after it), as ctrl-w does.
    DeleteWord,
    /// Delete the whole query.
    Clear,
}

impl SearchState {
    /// The generation of the latest search asked for.
    pub fn generation(&self) -> u64 {
        self.job.generation()
    }

    /// A search is running (or one more is due when it completes).
    pub fn searching(&self) -> bool {
        self.job.busy()
    }

    /// Inserts `text` at the cursor.
    pub fn insert(&mut self, text: &str) {
        let at = self.cursor.min(self.query.len());
        self.query.insert_str(at, text);
        self.cursor = at + text.len();
    }

    /// Applies one edit; true when the query changed (the cursor alone moving is not).
    pub fn edit(&mut self, edit: LineEdit) -> bool {
        let q = &self.query;
        let at = self.cursor.min(q.len());
        let before = |i: usize| q[..i].char_indices().next_back().map_or(0, |(j, _)| j);
        let after = |i: usize| q[i..].chars().next().map_or(i, |c| i + c.len_utf8());
        let (cursor, cut) = match edit {
            LineEdit::Left => (before(at), None),
            LineEdit::Right => (after(at), None),
            LineEdit::Home => (0, None),
            LineEdit::End => (q.len(), None),
            LineEdit::Backspace => (before(at), Some(before(at)..at)),
            LineEdit::Delete => (at, Some(at..after(at))),
            LineEdit::DeleteWord => {
                let trimmed = q[..at].trim_end_matches(' ');
                let start = trimmed.rfind(' ').map_or(0, |i| i + 1);
                (start, Some(start..at))
            }
            LineEdit::Clear => (0, Some(0..q.len())),
        };
        self.cursor = cursor;
        match cut {
            Some(range) if !range.is_empty() => {
                self.query.replace_range(range, "");
                true
            }
            _ => false,
        }
    }

    /// The matches while a query is typed (`None` without a query).
    pub fn results(&self) -> Option<&[ItemId]> {
        match &self.matched {
            Some(m) if !self.query.is_empty() => Some(m),
            _ => None,
        }
    }

    /// How many resources match, while a query is typed.
    pub fn matching(&self) -> Option<usize> {
        (!self.query.is_empty()).then(|| self.matched.as_ref().map_or(0, Vec::len))
    }

    /// Characters of `text` the query matches (char indices), for highlighting.
    pub fn highlights(&self, text: &str) -> Vec<u32> {
        if self.query.is_empty() {
            Vec::new()
        } else {
            self.matcher.highlight(&self.query, text)
        }
    }
}

impl App {
    pub(super) fn query_changed(&mut self) -> Vec<Effect> {
        self.search.job.cancel();
        self.search.jumped = None;
        self.search.filtered_complete = None;
        self.search.list_reset_for = None;
        if self.search.query.is_empty() {
            // The resource under the cursor stays under it in the whole catalogue. (The query
            // is empty already, so the list's row is read from the matches it showed.)
            let selected = match self.browse.view {
                super::View::List => self
                    .search
                    .matched
                    .as_ref()
                    .and_then(|m| m.get(self.browse.list_cursor.index).copied()),
                super::View::Tree => match self.selection() {
                    super::Selection::Item(id) => Some(id),
                    _ => None,
                },
            };
            self.search.matched = None;
            self.browse.tree.set_filter(None);
            self.search.filter_generation = self.search.job.generation();
            self.reanchor();
            self.browse.list_cursor = Cursor::default();
            if let Some(id) = selected {
                self.keep_cursor_on(id);
            }
            self.clamp();
            return Vec::new();
        }
        vec![self.search_effect()]
    }

    /// Starts a search of the query now (a running one's answers become stale).
    pub(super) fn search_effect(&mut self) -> Effect {
        let generation = self.search.job.start();
        self.search_request(generation)
    }

    /// The search of the query as request `generation`.
    pub(super) fn search_request(&self, generation: u64) -> Effect {
        Effect::Search {
            generation,
            snapshot: self.catalogue.snapshot(),
            query: self.search.query.clone(),
        }
    }

    pub(super) fn on_results(&mut self, results: Arc<SearchResults>) -> Vec<Effect> {
        if !self.search.job.is_current(results.generation) || self.search.query.is_empty() {
            return Vec::new(); // stale
        }
        // Searched on a snapshot from before a list change: what it removed since is left out.
        let removed = self.catalogue.removed_count() > 0;
        let first = self.search.matched.is_none();
        // Into the last result's buffer: partial results come every 40 ms while a search
        // runs, and fresh memory for half a million ids is slow to touch on the UI thread.
        let mut ids = self.search.matched.take().unwrap_or_default();
        ids.clear();
        ids.reserve(results.matches.len());
        ids.extend(
            results
                .matches
                .iter()
                .map(|m| m.id)
                .filter(|&id| !removed || self.catalogue.get(id).is_some()),
        );
        let best = ids.first().copied();
        self.search.matched = Some(ids);
        let again = results.complete && self.search.job.finish(results.generation) == Some(true);
        self.search.progress = (results.scanned, results.total);
        // The tree takes the first partial result of a query and the complete one of each
        // run (re-filtering a big tree costs the UI thread a pass over its nodes: not on every
        // partial result, nor on the partial results of a re-run that pages asked for, whose
        // complete result comes soon and shows at least as much).
        let shows_complete = self.search.filtered_complete.as_deref() == Some(&*results.query);
        if results.complete
            || (self.search.filter_generation != results.generation && !shows_complete)
        {
            if results.complete {
                self.search.filtered_complete = Some(results.query.clone());
            }
            self.browse.tree.set_filter(self.search.matched.as_deref());
            self.search.filter_generation = results.generation;
            // In a filtered tree, start on the best match: once per query typed (and once more
            // when its complete result replaces a partial one), not on every re-run.
            let jump = match &self.search.jumped {
                Some((query, complete)) if *query == results.query => results.complete && !complete,
                _ => true,
            };
            if jump {
                self.search.jumped = Some((results.query.clone(), results.complete));
            }
            if let Some(best) = best.filter(|_| jump) {
                self.browse.tree.refresh();
                if let Some(row) = self.browse.tree.row_of(best) {
                    self.browse.tree_cursor.index = row;
                    self.browse.tree_anchor = None;
                }
            }
            self.reanchor();
        }
        // The list starts at the best match for each new query, not again for a re-run.
        if first
            || (results.complete && self.search.list_reset_for.as_deref() != Some(&*results.query))
        {
            self.browse.list_cursor.index = 0;
            self.browse.list_cursor.offset = 0;
            if results.complete {
                self.search.list_reset_for = Some(results.query.clone());
            }
        }
        self.clamp();
        if again {
            // Pages arrived while this search ran: include them now.
            return vec![self.search_effect()];
        }
        Vec::new()
    }

    pub fn matching(&self) -> Option<usize> {
        self.search.matching()
    }

    /// Puts both views' cursors on `id`: the tree opens its folders, the list finds its row.
    fn keep_cursor_on(&mut self, id: ItemId) {
        self.browse.tree.reveal(id);
        self.browse.tree.refresh();
        if let Some(row) = self.browse.tree.row_of(id) {
            self.browse.tree_cursor.index = row;
            self.browse.tree_anchor = None;
        }
        if let Some(row) = self.browse.list.iter().position(|&i| i == id) {
            self.browse.list_cursor.index = row;
        }
    }
}
