//! The tree view's moves (open, close, parent) and what a mark key on a tree row targets.

use super::super::keymap::Mode;
use super::context::mark_of;
use super::{App, Effect, Selection, View};
use crate::catalog::tree::Row;
use crate::catalog::{Catalogue, ItemId, UriTree};
use crate::context::{Mark, Marks, Target};

impl App {
    pub(super) fn tree_anchor_server(&self) -> usize {
        // The server row above the cursor (depth 0).
        let index = self
            .browse
            .tree_cursor
            .index
            .min(self.browse.tree.row_count().saturating_sub(1));
        let mut server = 0;
        let anchor = self.browse.tree_anchor;
        for (i, row) in self
            .browse
            .tree
            .window(0, self.browse.tree.row_count())
            .iter()
            .enumerate()
        {
            if row.depth == 0 {
                server = i;
            }
            if i >= index || Some(row.head) == anchor {
                break;
            }
        }
        server
    }

    /// Opens the folder at the cursor (`only_open`: never closes); on a resource, focuses
    /// the contents pane.
    pub(super) fn expand(&mut self, only_open: bool) -> Vec<Effect> {
        if self.browse.view == View::List {
            self.focus = Mode::Contents;
            return Vec::new();
        }
        let Some(&row) = self
            .browse
            .tree
            .window(self.browse.tree_cursor.index, 1)
            .first()
        else {
            return Vec::new();
        };
        let view = self.browse.tree.view(row);
        if view.folder {
            if self.search.matched.is_some() && !self.search.query.is_empty() {
                // A filtered tree is always open.
                return Vec::new();
            }
            if only_open && view.expanded {
                // Already open: step onto its first child.
                self.move_by(1);
            } else {
                self.browse
                    .tree
                    .set_expanded(row, !view.expanded || only_open);
                self.reanchor();
            }
        } else if view.item.is_some() {
            self.focus = Mode::Contents;
        }
        Vec::new()
    }

    pub(super) fn collapse(&mut self) {
        if self.browse.view == View::List {
            return;
        }
        let Some(&row) = self
            .browse
            .tree
            .window(self.browse.tree_cursor.index, 1)
            .first()
        else {
            return;
        };
        let view = self.browse.tree.view(row);
        if view.folder && view.expanded && self.search.query.is_empty() {
            self.browse.tree.set_expanded(row, false);
            self.reanchor();
        } else {
            self.parent();
        }
    }

    pub(super) fn parent(&mut self) {
        if self.browse.view == View::Tree
            && let Some(p) = self.browse.tree.parent_row(self.browse.tree_cursor.index)
        {
            self.move_to(p);
        }
    }

    /// What a mark key applies to: on a tree folder its URI prefix (a server row: the whole
    /// server), on a resource its exact URI. A row that is both (`•`) is the resource's
    /// unless `folder` (the folder keys, `F` / `ctrl-x`): then its URI prefix.
    pub fn mark_target(&self, folder: bool) -> Option<Target> {
        let exact = |id: ItemId| {
            let item = self.catalogue.get(id)?;
            Some(Target::exact(
                self.catalogue.server_name(id.server).as_ref(),
                item.uri(),
            ))
        };
        match self.browse.view {
            View::List if folder => None,
            View::List => match self.selection() {
                Selection::Item(id) => exact(id),
                _ => None,
            },
            View::Tree => {
                let &row = self
                    .browse
                    .tree
                    .window(self.browse.tree_cursor.index, 1)
                    .first()?;
                let view = self.browse.tree.view(row);
                if view.server && self.browse.tree.first_item_under(row).is_none() {
                    // A server with no resources yet: its name is the row's.
                    let name = &self.servers.iter().find(|s| s.name == view.label)?.name;
                    return Some(Target::prefix(name.clone(), ""));
                }
                row_target(&self.browse.tree, &self.catalogue, row, folder)
            }
        }
    }

    /// The marks a tree row shows (see [`row_marks`]).
    pub fn row_marks(&self, row: Row) -> RowMarks {
        row_marks(
            &self.browse.tree,
            &self.catalogue,
            &self.context.set.marks,
            row,
        )
    }
}

/// What a mark key applies to on a tree row: a server row the whole server, a folder the URI
/// prefix of the node the row stands for (its tail: on a row joining folders, the innermost
/// one it names), a resource its exact URI; on a row that is both (`•`) the resource's unless
/// `folder` (`F` / `ctrl-x`). One function for the mark keys, the contents pane's `prefix`
/// line and the property tests, so what a row shows and what a key marks cannot drift apart.
/// `None` on a server row without resources (the browser names it from its server list).
pub fn row_target(tree: &UriTree, catalogue: &Catalogue, row: Row, folder: bool) -> Option<Target> {
    let view = tree.view(row);
    if view.server {
        let id = tree.first_item_under(row)?;
        Some(Target::prefix(
            catalogue.server_name(id.server).as_ref(),
            "",
        ))
    } else if view.folder && (folder || view.item.is_none()) {
        let (server, prefix) = tree.uri_prefix(catalogue, row)?;
        Some(Target::prefix(
            catalogue.server_name(server).as_ref(),
            prefix,
        ))
    } else if folder {
        None
    } else {
        let id = view.item?;
        let item = catalogue.get(id)?;
        Some(Target::exact(
            catalogue.server_name(id.server).as_ref(),
            item.uri(),
        ))
    }
}

/// A mark as a row shows it: `true` when it is set on exactly this row's target, `false` when
/// inherited from a shorter prefix.
pub type ShownMark = Option<(Mark, bool)>;

/// The marks a tree row shows: `own` in the mark column (a resource's, or a folder's prefix
/// mark), and on a row that is both a resource and a folder (`•`) the folder's prefix mark in
/// `folder`, so neither hides the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RowMarks {
    pub own: ShownMark,
    pub folder: ShownMark,
}

/// See [`RowMarks`].
pub fn row_marks(tree: &UriTree, catalogue: &Catalogue, marks: &Marks, row: Row) -> RowMarks {
    let view = tree.view(row);
    if marks.is_empty() {
        return RowMarks::default();
    }
    let prefix_mark = || {
        let (server, prefix) = if view.server {
            let id = tree.first_item_under(row)?;
            (id.server, String::new())
        } else {
            tree.uri_prefix(catalogue, row)?
        };
        let e = marks.effective_prefix(catalogue.server_name(server), &prefix)?;
        Some((e.mark, e.prefix == Some(prefix.as_str())))
    };
    let item_mark = |id| mark_of(catalogue, marks, id).map(|e| (e.mark, e.is_direct()));
    match (view.item, view.folder) {
        (Some(id), true) => RowMarks {
            own: item_mark(id),
            folder: prefix_mark(),
        },
        (Some(id), false) => RowMarks {
            own: item_mark(id),
            folder: None,
        },
        (None, _) => RowMarks {
            own: prefix_mark(),
            folder: None,
        },
    }
}
