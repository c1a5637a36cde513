//! The agent's ranking by what each resource says of itself, and that ranking kept across
//! changes of the catalogue.
//!
//! Resolution ranks pinned resources first, then by the **rank key**: priority (or
//! [`DEFAULT_PRIORITY`](super::policy::DEFAULT_PRIORITY)) high→low, `lastModified` new→old
//! (none last), then name, server and URI, then catalogue order. The key depends only on
//! the resource, and "pinned first" is a stable partition of the key's order, so an order by
//! the key can be kept from one resolution to the next: [`RankOrder`] is that order for a
//! snapshot, and [`RankOrder::advance`] makes it the order of a later snapshot in proportion
//! to what changed (the appended resources sorted among themselves and merged in, the
//! removed ones skipped, the changed ones taken out and put back), so that a browser that
//! resolves a million resources after every list change, measure or mark does not sort them
//! again each time. Pure: no I/O.

use std::cell::Cell;
use std::cmp::Ordering;
use std::sync::Arc;

use super::policy::Policy;
use crate::catalog::{Extent, Item, ItemId, Snapshot};

/// The numeric head of the rank key with a position, 16 bytes: what most comparisons of a
/// sort read (no item, no string), falling back to the rest of the key only on a tie.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Keyed {
    /// `lastModified` in ms; `i64::MIN` for none (a tie with a real `i64::MIN` goes on to
    /// [`compare`], which tells them apart).
    modified: i64,
    priority: f32,
    /// The position of the item in whatever is being sorted.
    pub at: u32,
}

impl Keyed {
    pub fn new(at: u32, item: &Item) -> Self {
        Keyed {
            modified: item.modified_ms().unwrap_or(i64::MIN),
            priority: Policy::priority(item.priority()),
            at,
        }
    }

    /// Priority high→low, then `lastModified` new→old: consistent with [`compare`] wherever
    /// it is not `Equal`.
    fn head(&self, other: &Keyed) -> Ordering {
        other
            .priority
            .total_cmp(&self.priority)
            .then_with(|| other.modified.cmp(&self.modified))
    }
}

/// Sorts `keyed` by the rank key, `rest(a, b)` comparing the items at positions `a` and `b`
/// by the whole key ([`compare`]) where the numeric head ties, the positions breaking the
/// last ties; `compares` counts the comparisons. Unstable (no scratch copy of a million
/// entries), yet deterministic.
pub(crate) fn sort_keyed(
    keyed: &mut [Keyed],
    compares: &Cell<usize>,
    rest: impl Fn(u32, u32) -> Ordering,
) {
    keyed.sort_unstable_by(|a, b| {
        compares.set(compares.get() + 1);
        a.head(b)
            .then_with(|| rest(a.at, b.at))
            .then_with(|| a.at.cmp(&b.at))
    });
}

/// The rank key of two resources, each as (its server's name, its item), catalogue order
/// aside: priority (or the default) high→low, `lastModified` new→old (none last), name
/// (title, else name), server, URI.
pub fn compare(a: (&str, &Item), b: (&str, &Item)) -> Ordering {
    let ((sa, a), (sb, b)) = (a, b);
    Policy::priority(b.priority())
        .total_cmp(&Policy::priority(a.priority()))
        .then_with(|| compare_modified(a.modified_ms(), b.modified_ms()))
        .then_with(|| a.display_name().cmp(b.display_name()))
        .then_with(|| sa.cmp(sb))
        .then_with(|| a.uri().cmp(b.uri()))
}

/// Newest first; a resource without `lastModified` after every one with it.
fn compare_modified(a: Option<i64>, b: Option<i64>) -> Ordering {
    match (a, b) {
        (Some(a), Some(b)) => b.cmp(&a),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// How a [`RankOrder`] was made (for tests and benchmarks: an advance that should have been
/// proportional must not silently sort everything).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Made {
    /// Every resource sorted.
    Sorted,
    /// The earlier order kept: `inserted` resources (appended, or changed in place) put in,
    /// `taken_out` skipped (removed, or changed in place).
    Merged { inserted: usize, taken_out: usize },
}

/// The live resources of a snapshot in rank-key order, and how far that snapshot reached.
#[derive(Debug, Clone)]
pub struct RankOrder {
    ids: Vec<ItemId>,
    extent: Extent,
    made: Made,
    /// Comparisons of two resources it took (the whole key, or its numeric head).
    compares: usize,
}

impl RankOrder {
    /// Every live resource of `snapshot`, sorted.
    pub fn of(snapshot: &Snapshot) -> RankOrder {
        let blocks = snapshot.blocks();
        let mut ids: Vec<ItemId> = Vec::with_capacity(snapshot.len());
        let mut keyed: Vec<Keyed> = Vec::with_capacity(snapshot.len());
        for block in &blocks {
            for (id, item) in block.live() {
                keyed.push(Keyed::new(ids.len() as u32, item));
                ids.push(id);
            }
        }
        let compares = Cell::new(0);
        // Positions are in catalogue order, so they break ties as the ids would.
        sort_keyed(&mut keyed, &compares, |a, b| {
            compare_ids(snapshot, ids[a as usize], ids[b as usize])
        });
        let sorted = keyed.iter().map(|k| ids[k.at as usize]).collect();
        RankOrder {
            ids: sorted,
            extent: snapshot.extent(),
            made: Made::Sorted,
            compares: compares.get(),
        }
    }

    /// The order of `snapshot`, a later snapshot of the same catalogue, given every id
    /// removed, changed in place or superseded in between (`touched`, as
    /// [`crate::catalog::Catalogue::touched_since`] gives it for this order's
    /// [`RankOrder::extent`]): the resources appended since are sorted among themselves and
    /// each put in by binary search, the touched ones that are still there too, and one copy
    /// pass skips what went. `None` for `touched` (the catalogue's record does not reach
    /// back), or a snapshot that does not reach as far as this order's: everything sorted.
    /// The same `Arc` when nothing changed.
    pub fn advance(
        self: &Arc<Self>,
        snapshot: &Snapshot,
        touched: Option<&[ItemId]>,
    ) -> Arc<RankOrder> {
        let later = snapshot.extent();
        let Some(touched) = touched.filter(|_| self.extent.within(&later)) else {
            return Arc::new(RankOrder::of(snapshot));
        };
        if touched.is_empty() && later == self.extent {
            return Arc::clone(self);
        }
        let compares = Cell::new(0);
        let cmp = |a: ItemId, b: ItemId| {
            compares.set(compares.get() + 1);
            compare_ids(snapshot, a, b)
        };
        // In id order, each once, whatever the caller gave.
        let mut touched = touched.to_vec();
        touched.sort_unstable();
        touched.dedup();
        let mut newcomers: Vec<ItemId> = touched
            .iter()
            .copied()
            .filter(|&id| self.held(id) && snapshot.get(id).is_some())
            .collect();
        for block in snapshot.blocks_after(&self.extent) {
            newcomers.extend(block.live().map(|(id, _)| id));
        }
        newcomers.sort_unstable_by(|&a, &b| cmp(a, b));

        let mut ids: Vec<ItemId> = Vec::with_capacity(self.ids.len() + newcomers.len());
        let before = self.ids.len();
        if touched.is_empty() {
            ids.extend_from_slice(&self.ids);
        } else {
            ids.extend(self.ids.iter().copied().filter(|&id| {
                touched.binary_search(&id).is_err() && snapshot.get(id).is_some()
            }));
        }
        let taken_out = before - ids.len();
        // Where each goes among the kept (in order, so each search starts at the last).
        let mut at = Vec::with_capacity(newcomers.len());
        let mut from = 0;
        for &new in &newcomers {
            from += ids[from..].partition_point(|&kept| cmp(kept, new) == Ordering::Less);
            at.push(from);
        }
        // One pass from the back: each kept run moves once, each newcomer is written once.
        let kept = ids.len();
        ids.resize(kept + newcomers.len(), ItemId { server: 0, index: 0 });
        let (mut src, mut dst) = (kept, ids.len());
        for (&new, &p) in newcomers.iter().zip(&at).rev() {
            let run = src - p;
            ids.copy_within(p..src, dst - run);
            dst -= run + 1;
            ids[dst] = new;
            src = p;
        }
        Arc::new(RankOrder {
            ids,
            extent: later,
            made: Made::Merged {
                inserted: newcomers.len(),
                taken_out,
            },
            compares: compares.get(),
        })
    }

    /// Whether `id` was within this order's snapshot (so, if live there, in the order).
    fn held(&self, id: ItemId) -> bool {
        self.extent.reaches(id)
    }

    /// The resources, best first (pins aside).
    pub fn ids(&self) -> &[ItemId] {
        &self.ids
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The id at a position.
    pub fn get(&self, position: usize) -> Option<ItemId> {
        self.ids.get(position).copied()
    }

    /// How far the snapshot it orders reached.
    pub fn extent(&self) -> &Extent {
        &self.extent
    }

    pub fn made(&self) -> Made {
        self.made
    }

    /// Comparisons of two resources it took to make.
    pub fn compares(&self) -> usize {
        self.compares
    }
}

/// The whole rank key of two live resources of a snapshot, the ids breaking the last ties.
fn compare_ids(snapshot: &Snapshot, a: ItemId, b: ItemId) -> Ordering {
    match (snapshot.get(a), snapshot.get(b)) {
        (Some(ia), Some(ib)) => compare(
            (snapshot.server_name(a.server), ia),
            (snapshot.server_name(b.server), ib),
        )
        .then_with(|| a.cmp(&b)),
        _ => a.cmp(&b),
    }
}
