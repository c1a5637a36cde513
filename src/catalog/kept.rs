//! An order of a snapshot's live resources kept through later changes of the catalogue, in
//! proportion to what changed: the resources appended since, and the ones touched (removed,
//! changed in place or superseded: [`Catalogue::touched_since`]), are sorted among themselves
//! and each put in by binary search; one copy pass skips what went. The agent view's ranking
//! ([`crate::context::ranking::RankOrder`]) and the list view's orders keep theirs this way, so
//! a list change at a million resources costs a merge, not a sort. Pure: no I/O.

use std::cmp::Ordering;

#[cfg(doc)]
use super::Catalogue;
use super::{Extent, ItemId, Snapshot};

/// An order advanced to a later snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    pub ids: Vec<ItemId>,
    /// Resources put in (appended, or changed in place).
    pub inserted: usize,
    /// Resources skipped (removed, or changed in place).
    pub taken_out: usize,
}

/// `ids`, the live resources of a snapshot that reached `extent` in the total order `cmp`
/// (ties broken by id), as the order of `snapshot`, a later snapshot of the same catalogue,
/// given every id touched in between (`touched`, as [`Catalogue::touched_since`] gives it for
/// `extent`). `None` when `touched` is (the catalogue's record does not reach back) or
/// `snapshot` does not reach as far as `extent`: the caller sorts whole.
pub fn advance(
    ids: &[ItemId],
    extent: &Extent,
    snapshot: &Snapshot,
    touched: Option<&[ItemId]>,
    cmp: impl Fn(ItemId, ItemId) -> Ordering,
) -> Option<Merged> {
    let touched = touched.filter(|_| extent.within(&snapshot.extent()))?;
    // In id order, each once, whatever the caller gave.
    let mut touched = touched.to_vec();
    touched.sort_unstable();
    touched.dedup();
    let mut newcomers: Vec<ItemId> = touched
        .iter()
        .copied()
        .filter(|&id| extent.reaches(id) && snapshot.get(id).is_some())
        .collect();
    for block in snapshot.blocks_after(extent) {
        newcomers.extend(block.live().map(|(id, _)| id));
    }
    newcomers.sort_unstable_by(|&a, &b| cmp(a, b));

    let mut merged: Vec<ItemId> = Vec::with_capacity(ids.len() + newcomers.len());
    if touched.is_empty() {
        merged.extend_from_slice(ids);
    } else {
        // Every removal is among the touched, so the kept ones are live without a look at
        // the snapshot.
        merged.extend(
            ids.iter()
                .copied()
                .filter(|id| touched.binary_search(id).is_err()),
        );
    }
    let taken_out = ids.len() - merged.len();
    // Where each goes among the kept (in order, so each search starts at the last).
    let mut at = Vec::with_capacity(newcomers.len());
    let mut from = 0;
    for &new in &newcomers {
        from += merged[from..].partition_point(|&kept| cmp(kept, new) == Ordering::Less);
        at.push(from);
    }
    // One pass from the back: each kept run moves once, each newcomer is written once.
    let kept = merged.len();
    merged.resize(
        kept + newcomers.len(),
        ItemId {
            server: 0,
            index: 0,
        },
    );
    let (mut src, mut dst) = (kept, merged.len());
    for (&new, &p) in newcomers.iter().zip(&at).rev() {
        let run = src - p;
        merged.copy_within(p..src, dst - run);
        dst -= run + 1;
        merged[dst] = new;
        src = p;
    }
    Some(Merged {
        ids: merged,
        inserted: newcomers.len(),
        taken_out,
    })
}
