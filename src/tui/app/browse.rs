//! The browse state: the tree or the list, each with its cursor, and what the cursor is on.
//! Row counts live here, with the rows.

use super::{App, SearchState};
use std::sync::Arc;

use crate::catalog::{ItemId, SortKey, SortedList, UriTree};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Tree,
    List,
}

/// Cursor and first visible row of a pane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub index: usize,
    pub offset: usize,
}

/// What the cursor is on.
#[derive(Debug, Clone, PartialEq)]
pub enum Selection {
    None,
    Item(ItemId),
    /// A folder or server row of the tree: its label and resource count.
    Folder {
        label: String,
        count: u32,
        server: bool,
    },
}

/// The tree and the list: which is shown, their cursors, and the list's order.
pub struct Browse {
    pub view: View,
    pub tree: UriTree,
    pub tree_cursor: Cursor,
    pub list_cursor: Cursor,
    /// The node the tree cursor is on, to keep it there while rows come and go.
    pub(super) tree_anchor: Option<u32>,
    pub order: SortKey,
    /// Every resource: sorted by `list_key` (a tail of later arrivals unsorted).
    pub list: Vec<ItemId>,
    pub list_key: Option<SortKey>,
    /// The last order sorted (as sorted: no arrivals appended, no removal taken out), for the
    /// next sort to advance in proportion to what changed since.
    pub sorted: Option<Arc<SortedList>>,
    /// The list's sort in flight (latest wins).
    pub(super) sort: super::job::Job,
    pub(super) list_stale: bool,
    /// A list change removed resources while the tree was shown: `list` still holds their
    /// ids until it is shown ([`Browse::prune_list`]).
    pub(super) list_holds_removed: bool,
}

impl Browse {
    pub fn new(tree: UriTree) -> Self {
        Browse {
            view: View::Tree,
            tree,
            tree_cursor: Cursor::default(),
            list_cursor: Cursor::default(),
            tree_anchor: None,
            order: SortKey::default(),
            list: Vec::new(),
            list_key: None,
            sorted: None,
            sort: Default::default(),
            list_stale: false,
            list_holds_removed: false,
        }
    }

    /// Takes the removed resources' ids out of the list before it is shown: one pass, once
    /// for any number of removals made while the tree was shown.
    pub(super) fn prune_list(&mut self, catalogue: &crate::catalog::Catalogue) {
        if std::mem::take(&mut self.list_holds_removed) {
            self.list.retain(|&id| catalogue.get(id).is_some());
        }
    }

    /// The ids the list view shows: the matches (best first) while searching, else every
    /// resource in the chosen order.
    pub fn list_ids<'a>(&'a self, search: &'a SearchState) -> &'a [ItemId] {
        search.results().unwrap_or(&self.list)
    }

    /// Rows of the view shown.
    pub fn row_count(&self, search: &SearchState) -> usize {
        match self.view {
            View::Tree => self.tree.row_count(),
            View::List => self.list_ids(search).len(),
        }
    }

    pub fn cursor(&self) -> Cursor {
        match self.view {
            View::Tree => self.tree_cursor,
            View::List => self.list_cursor,
        }
    }

    pub fn cursor_mut(&mut self) -> &mut Cursor {
        match self.view {
            View::Tree => &mut self.tree_cursor,
            View::List => &mut self.list_cursor,
        }
    }
}

impl App {
    /// The ids the list view shows (see [`Browse::list_ids`]).
    pub fn list_ids(&self) -> &[ItemId] {
        self.browse.list_ids(&self.search)
    }

    pub fn row_count(&self) -> usize {
        self.browse.row_count(&self.search)
    }

    pub fn cursor(&self) -> Cursor {
        self.browse.cursor()
    }

    pub fn selection(&self) -> Selection {
        let index = self.cursor().index;
        match self.browse.view {
            View::List => self
                .list_ids()
                .get(index)
                .map_or(Selection::None, |&id| Selection::Item(id)),
            View::Tree => match self.browse.tree.window(index, 1).first() {
                None => Selection::None,
                Some(&row) => {
                    let view = self.browse.tree.view(row);
                    match view.item {
                        // A resource (also one that is a folder too): its contents are shown.
                        Some(id) => Selection::Item(id),
                        None => Selection::Folder {
                            label: view.label,
                            count: view.count,
                            server: view.server,
                        },
                    }
                }
            },
        }
    }

    /// Keeps the cursor within the rows and visible.
    pub(super) fn clamp(&mut self) {
        let rows = self.row_count();
        let page = self.page_rows();
        let c = self.browse.cursor_mut();
        c.index = c.index.min(rows.saturating_sub(1));
        if c.index < c.offset {
            c.offset = c.index;
        }
        if c.index >= c.offset + page {
            c.offset = c.index + 1 - page;
        }
        c.offset = c.offset.min(rows.saturating_sub(page));
        if self.browse.view == View::Tree {
            self.browse.tree_anchor = self
                .browse
                .tree
                .window(self.browse.tree_cursor.index, 1)
                .first()
                // The node the row stands for (a row's head changes when a folder it shares
                // gets or loses children).
                .map(|r| r.tail);
        }
    }

    /// After the tree's rows changed: puts the cursor back on the node it was on.
    pub(super) fn reanchor(&mut self) {
        self.browse.tree.refresh();
        if let Some(i) = self
            .browse
            .tree_anchor
            .and_then(|a| self.browse.tree.row_of_node(a))
        {
            self.browse.tree_cursor.index = i;
        }
        if self.browse.view == View::Tree {
            self.clamp();
        }
    }

    pub(super) fn move_to(&mut self, index: usize) {
        self.browse.cursor_mut().index = index;
        self.clamp();
    }

    pub(super) fn move_by(&mut self, delta: isize) {
        let i = self.cursor().index;
        let rows = self.row_count();
        let target = if delta < 0 {
            i.saturating_sub(delta.unsigned_abs())
        } else {
            (i + delta as usize).min(rows.saturating_sub(1))
        };
        self.move_to(target);
    }
}
