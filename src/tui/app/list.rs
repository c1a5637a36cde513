//! The list view's order: sorted off the UI thread, the last order advanced by what changed
//! since ([`SortedList::advance`]) rather than sorted again; later arrivals appended until
//! the next sort.

use std::collections::HashSet;
use std::sync::Arc;

use super::msg::SortFrom;
use super::{App, Effect, View};
use crate::catalog::{ItemId, ServerId, SortedList};

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
        // The last order of this key, advanced by what changed since (off the UI thread).
        let from = self
            .browse
            .sorted
            .as_ref()
            .filter(|last| last.key() == self.browse.order)
            .map(|last| {
                Box::new(SortFrom {
                    last: last.clone(),
                    touched: self.catalogue.touched_since(last.extent()),
                })
            });
        vec![Effect::Sort {
            generation: self.browse.sort.start(),
            key: self.browse.order,
            snapshot: self.catalogue.snapshot(),
            names: (0..self.catalogue.server_count())
                .map(|s| self.catalogue.server_name(s as ServerId).clone())
                .collect(),
            from,
        }]
    }

    pub(super) fn on_sorted(
        &mut self,
        generation: u64,
        order: Arc<SortedList>,
        mut ids: Vec<ItemId>,
        lens: Vec<usize>,
    ) -> Vec<Effect> {
        if self.browse.sort.finish(generation).is_none() {
            return Vec::new();
        }
        let key = order.key();
        // Sorted on a snapshot from before a list change: what it removed since is left out
        // (the ids touched since, when the catalogue's record reaches back; else every id
        // looked at).
        match self.catalogue.touched_since(order.extent()) {
            Some(touched) => {
                let gone: HashSet<ItemId> = touched
                    .into_iter()
                    .filter(|&id| self.catalogue.get(id).is_none())
                    .collect();
                if !gone.is_empty() {
                    ids.retain(|id| !gone.contains(id));
                }
            }
            None if self.catalogue.removed_count() > 0 => {
                ids.retain(|&id| self.catalogue.get(id).is_some());
            }
            None => {}
        }
        self.browse.sorted = Some(order);
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
