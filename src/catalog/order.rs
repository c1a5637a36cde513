//! List orders. Every order is total and stable: ties keep catalogue order (servers in order,
//! each in the order it listed its resources), so the same catalogue always lists the same way.

use std::cmp::{Ordering, Reverse};

use super::item::Item;
use super::store::{Catalogue, ItemId};

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
