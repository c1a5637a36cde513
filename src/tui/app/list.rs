//! The list view's order: sorted off the UI thread ([`sort_snapshot`]), later arrivals
//! appended until the next sort.

use std::sync::Arc;

use super::{App, Effect, View};
use crate::catalog::{Catalogue, ItemId, ServerId, Snapshot, SortKey};

impl App {
    /// Asks for a sort when the list view is shown and its order is out of date.
    pub(super) fn ensure_sorted(&mut self) -> Vec<Effect> {
        if self.browse.view != View::List || self.browse.sort_in_flight {
            return Vec::new();
        }
        if self.browse.list_key == Some(self.browse.order) && !self.browse.list_stale {
            return Vec::new();
        }
        self.browse.sort_in_flight = true;
        self.browse.list_stale = false;
        self.browse.sort_generation += 1;
        vec![Effect::Sort {
            generation: self.browse.sort_generation,
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
        if generation != self.browse.sort_generation {
            return Vec::new();
        }
        self.browse.sort_in_flight = false;
        // Resources that arrived while sorting go at the end until the next sort.
        for s in 0..self.catalogue.server_count() {
            let from = lens.get(s).copied().unwrap_or(0);
            let to = self.catalogue.server_len(s as ServerId);
            if to > from {
                self.browse.list_stale = true;
                ids.extend((from..to).map(|i| ItemId {
                    server: s as ServerId,
                    index: i as u32,
                }));
            }
        }
        self.browse.list = ids;
        self.browse.list_key = Some(key);
        self.clamp();
        self.ensure_sorted()
    }
}

/// Sorts every resource of a snapshot by `key`, ties in catalogue order (the runtime runs
/// this on a blocking thread). Returns the ids and the per-server lengths covered.
pub fn sort_snapshot(
    snapshot: &Snapshot,
    names: &[Arc<str>],
    key: SortKey,
) -> (Vec<ItemId>, Vec<usize>) {
    let mut lens = Vec::new();
    let mut ids = Vec::with_capacity(snapshot.len());
    for block in snapshot.blocks() {
        let s = block.server as usize;
        if lens.len() <= s {
            lens.resize(s + 1, 0);
        }
        lens[s] = lens[s].max(block.first as usize + block.items.len());
        ids.extend((0..block.items.len()).map(|i| ItemId {
            server: block.server,
            index: block.first + i as u32,
        }));
    }
    lens.resize(names.len().max(lens.len()), 0);
    match key {
        SortKey::Server => {
            // Stable: by name, then catalogue order.
            ids.sort_by(|a, b| names[a.server as usize].cmp(&names[b.server as usize]));
        }
        _ => {
            // The other orders look only at the items, never at the catalogue.
            let empty = Catalogue::new();
            ids.sort_by(|&a, &b| match (snapshot.get(a), snapshot.get(b)) {
                (Some(ia), Some(ib)) => key.compare(&empty, (a, ia), (b, ib)),
                _ => std::cmp::Ordering::Equal,
            });
        }
    }
    (ids, lens)
}
