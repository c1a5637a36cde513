//! List orders. Every order is total and stable: ties keep catalogue order (servers in order,
//! each in the order it listed its resources), so the same catalogue always lists the same way.

use std::cmp::{Ordering, Reverse};
use std::sync::Arc;

use super::item::Item;
use super::store::{Catalogue, Extent, ItemId, Snapshot};

/// Natural order for names with numbers in them: runs of ASCII digits compare as numbers
/// (`v2` before `v10`, `page-9` before `page-10`), everything else by character. Total and
/// consistent with equality: strings that compare equal as numbers (`v01`, `v1`) fall back
/// to byte order. No allocation; O(length).
pub fn natural(a: &str, b: &str) -> Ordering {
    let (x, y) = (a.as_bytes(), b.as_bytes());
    let (mut i, mut j) = (0, 0);
    while i < x.len() && j < y.len() {
        if x[i].is_ascii_digit() && y[j].is_ascii_digit() {
            let run = |s: &[u8], mut k: usize| {
                while k < s.len() && s[k] == b'0' {
                    k += 1;
                }
                let start = k;
                while k < s.len() && s[k].is_ascii_digit() {
                    k += 1;
                }
                (start, k)
            };
            let (si, ei) = run(x, i);
            let (sj, ej) = run(y, j);
            let by_number = (ei - si)
                .cmp(&(ej - sj))
                .then_with(|| x[si..ei].cmp(&y[sj..ej]));
            if by_number != Ordering::Equal {
                return by_number;
            }
            i = ei;
            j = ej;
        } else {
            // Bytes of UTF-8 compare as their characters do.
            match x[i].cmp(&y[j]) {
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                }
                other => return other,
            }
        }
    }
    (x.len() - i).cmp(&(y.len() - j)).then_with(|| a.cmp(b))
}

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
            SortKey::Server => catalogue
                .server_name(a.0.server)
                .cmp(catalogue.server_name(b.0.server)),
            key => key.compare_items(a.1, b.1),
        }
    }

    /// Compares two items by this key, which is not [`SortKey::Server`] (that one orders by
    /// the server's name, not by anything of the item: `Equal` here).
    fn compare_items(self, a: &Item, b: &Item) -> Ordering {
        match self {
            SortKey::Server => Ordering::Equal,
            SortKey::Priority => {
                let key = |i: &Item| i.priority().map(|p| Reverse(ordered(p)));
                none_last(key(a), key(b))
            }
            SortKey::LastModified => {
                none_last(a.modified_ms().map(Reverse), b.modified_ms().map(Reverse))
            }
            SortKey::Name => caseless(a.display_name(), b.display_name()),
            SortKey::Uri => a.uri().cmp(b.uri()),
            SortKey::Size => none_last(a.size().map(Reverse), b.size().map(Reverse)),
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

/// Two live resources of a snapshot in `key` order, ties in catalogue order (which is id
/// order): a total order, so a sort and a merge by it agree.
fn compare_in(
    snapshot: &Snapshot,
    names: &[Arc<str>],
    key: SortKey,
    a: ItemId,
    b: ItemId,
) -> Ordering {
    let by_key = match key {
        SortKey::Server => names[a.server as usize].cmp(&names[b.server as usize]),
        // The other orders look only at the items, never at the catalogue.
        key => match (snapshot.get(a), snapshot.get(b)) {
            (Some(ia), Some(ib)) => key.compare_items(ia, ib),
            _ => Ordering::Equal,
        },
    };
    by_key.then_with(|| a.cmp(&b))
}

/// A list order of a snapshot's live resources, kept to be advanced to a later snapshot in
/// proportion to what changed ([`super::kept`]) instead of sorted again.
#[derive(Debug, Clone)]
pub struct SortedList {
    key: SortKey,
    ids: Vec<ItemId>,
    extent: Extent,
    /// Whether it was advanced from an earlier order (else sorted whole).
    merged: bool,
}

impl SortedList {
    /// Every live resource of `snapshot` in `key` order, ties in catalogue order.
    /// (A front end runs this off its event loop.)
    pub fn sort(snapshot: &Snapshot, names: &[Arc<str>], key: SortKey) -> SortedList {
        let mut ids = Vec::with_capacity(snapshot.len());
        for block in snapshot.blocks() {
            ids.extend(block.live().map(|(id, _)| id));
        }
        ids.sort_unstable_by(|&a, &b| compare_in(snapshot, names, key, a, b));
        SortedList {
            key,
            ids,
            extent: snapshot.extent(),
            merged: false,
        }
    }

    /// The same order for `snapshot`, a later snapshot of the same catalogue, given the ids
    /// touched since this order's extent (`touched`, as
    /// [`Catalogue::touched_since`] gives it): merged in proportion to the change, or sorted
    /// whole when `touched` is `None`.
    pub fn advance(
        &self,
        snapshot: &Snapshot,
        names: &[Arc<str>],
        touched: Option<&[ItemId]>,
    ) -> SortedList {
        let cmp = |a: ItemId, b: ItemId| compare_in(snapshot, names, self.key, a, b);
        match super::kept::advance(&self.ids, &self.extent, snapshot, touched, cmp) {
            Some(merged) => SortedList {
                key: self.key,
                ids: merged.ids,
                extent: snapshot.extent(),
                merged: true,
            },
            None => SortedList::sort(snapshot, names, self.key),
        }
    }

    pub fn key(&self) -> SortKey {
        self.key
    }

    pub fn ids(&self) -> &[ItemId] {
        &self.ids
    }

    /// How far the snapshot it orders reached.
    pub fn extent(&self) -> &Extent {
        &self.extent
    }

    /// Whether it was advanced from an earlier order rather than sorted whole.
    pub fn merged(&self) -> bool {
        self.merged
    }
}

#[cfg(test)]
mod tests {
    use super::natural;
    use std::cmp::Ordering;

    #[test]
    fn numbers_compare_as_numbers() {
        let mut names = vec![
            "v10", "v2", "v1", "a", "v02b", "v2a", "10", "9", "v", "ü", "b",
        ];
        names.sort_by(|a, b| natural(a, b));
        assert_eq!(
            names,
            [
                "9", "10", "a", "b", "v", "v1", "v2", "v2a", "v02b", "v10", "ü"
            ]
        );
    }

    #[test]
    fn the_order_is_total() {
        // Equal as numbers, different as text: never Equal, and antisymmetric.
        assert_eq!(natural("v01", "v1"), natural("v01", "v1"));
        assert_ne!(natural("v01", "v1"), Ordering::Equal);
        assert_eq!(natural("v01", "v1"), natural("v1", "v01").reverse());
        assert_eq!(natural("x", "x"), Ordering::Equal);
        // Long numbers do not overflow.
        assert_eq!(
            natural("n99999999999999999999999", "n100000000000000000000000"),
            Ordering::Less
        );
    }
}
