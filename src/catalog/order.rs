//! List orders. Every order is total and stable: ties keep catalogue order (servers in order,
//! each in the order it listed its resources), so the same catalogue always lists the same way.

use std::cmp::{Ordering, Reverse};
use std::sync::Arc;

use super::item::Item;
use super::store::{Catalogue, ItemId, Snapshot};

/// How the list view orders resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum SortKey {
    /// Highest `priority` first; resources without one last.
    #[default]
    Priority,
    /// Most recently modified first; resources without a date last.
    #[value(name = "lastModified", alias = "modified", alias = "last-modified")]
    LastModified,
    /// By title (or name), case-insensitively.
    Name,
    /// By URI.
    Uri,
    /// Largest first; resources without a size last.
    Size,
    /// By server name, then catalogue order.
    Server,
}

impl SortKey {
    pub const ALL: [SortKey; 6] = [
        SortKey::Priority,
        SortKey::LastModified,
        SortKey::Name,
        SortKey::Uri,
        SortKey::Size,
        SortKey::Server,
    ];

    /// The order after this one (the list view's "cycle order" key).
    pub fn next(self) -> SortKey {
        let i = Self::ALL.iter().position(|&k| k == self).unwrap_or(0);
        Self::ALL[(i + 1) % Self::ALL.len()]
    }

    pub fn label(self) -> &'static str {
        match self {
            SortKey::Priority => "priority",
            SortKey::LastModified => "lastModified",
            SortKey::Name => "name",
            SortKey::Uri => "uri",
            SortKey::Size => "size",
            SortKey::Server => "server",
        }
    }

    /// Compares two items by this key only (ties are `Equal`).
    pub fn compare(
        self,
        catalogue: &Catalogue,
        a: (ItemId, &Item),
        b: (ItemId, &Item),
    ) -> Ordering {
        match self {
            SortKey::Priority => {
                let key = |i: &Item| i.priority().map(|p| Reverse(ordered(p)));
                none_last(key(a.1), key(b.1))
            }
            SortKey::LastModified => none_last(
                a.1.modified_ms().map(Reverse),
                b.1.modified_ms().map(Reverse),
            ),
            SortKey::Name => caseless(a.1.display_name(), b.1.display_name()),
            SortKey::Uri => a.1.uri().cmp(b.1.uri()),
            SortKey::Size => none_last(a.1.size().map(Reverse), b.1.size().map(Reverse)),
            SortKey::Server => catalogue
                .server_name(a.0.server)
                .cmp(catalogue.server_name(b.0.server)),
        }
    }
}

/// `f32` priorities as a total order (server values are finite; NaN never gets here).
fn ordered(p: f32) -> i64 {
    (f64::from(p) * 1e6).round() as i64
}

fn none_last<T: Ord>(a: Option<T>, b: Option<T>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => a.cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

fn caseless(a: &str, b: &str) -> Ordering {
    a.chars()
        .flat_map(char::to_lowercase)
        .cmp(b.chars().flat_map(char::to_lowercase))
}

/// `ids` sorted by `key`, ties in the order given (callers pass catalogue order).
pub fn sort_ids(catalogue: &Catalogue, ids: &mut [ItemId], key: SortKey) {
    ids.sort_by(|&a, &b| match (catalogue.get(a), catalogue.get(b)) {
        (Some(ia), Some(ib)) => key.compare(catalogue, (a, ia), (b, ib)),
        _ => Ordering::Equal,
    });
}

/// Every item of the catalogue in `key` order.
pub fn sorted(catalogue: &Catalogue, key: SortKey) -> Vec<ItemId> {
    let mut ids: Vec<ItemId> = catalogue.iter().map(|(id, _)| id).collect();
    sort_ids(catalogue, &mut ids, key);
    ids
}

/// Sorts every resource of a snapshot by `key`, ties in catalogue order (a front end runs this
/// off its event loop). Returns the ids and the per-server lengths covered.
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
