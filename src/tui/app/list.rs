//! The list view's order: sorted off the UI thread ([`sort_snapshot`]), later arrivals
//! appended until the next sort.

use super::{App, Effect, View};
use crate::catalog::{ItemId, ServerId, SortKey};

impl App {
    /// Asks for a sort when the list view is shown and its order is out of date.
    pub(super) fn ensure_sorted(&mut self) -> Vec<Effect> {
        if self.browse.view != View::List || self.browse.sort.in_flight() {
            return Vec::new();
        }
        if self.browse.list_key == Some(self.browse.order) && !self.browse.list_stale {
            return Vec::new();
        }
        self.browse.list_stale = false;
        vec![Effect::Sort {
            generation: self.browse.sort.start(),
            key: self.browse.order,
            snapshot: self.catalogue.snapshot(),
            names: (0..self.catalogue.server_count())
                .map(|s| self.catalogue.server_name(s as ServerId).clone())
                .collect(),
        }]
    }

    pub(super) fn on_sorted(
        &mut self,
        generation: u64,
        key: SortKey,
        mut ids: Vec<ItemId>,
        lens: Vec<usize>,
    ) -> Vec<Effect> {
        if self.browse.sort.finish(generation).is_none() {
            return Vec::new();
        }
        // Sorted on a snapshot from before a list change: what it removed since is left out.
        if self.catalogue.removed_count() > 0 {
            ids.retain(|&id| self.catalogue.get(id).is_some());
        }
        // Resources that arrived while sorting go at the end until the next sort.
        for s in 0..self.catalogue.server_count() {
            let from = lens.get(s).copied().unwrap_or(0) as u32;
            let to = self.catalogue.server_end(s as ServerId);
            if to > from {
                self.browse.list_stale = true;
                ids.extend(
                    (from..to)
                        .map(|index| ItemId {
                            server: s as ServerId,
                            index,
                        })
                        .filter(|&id| self.catalogue.get(id).is_some()),
                );
            }
        }
        self.browse.list = ids;
        self.browse.list_holds_removed = false;
        self.browse.list_key = Some(key);
        self.clamp();
        self.ensure_sorted()
    }
}
