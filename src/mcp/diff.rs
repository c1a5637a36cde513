//! A server's new listing against its last one, so a list change costs what changed: entries
//! removed (wherever they were), changed in place and appended at the end are told apart from
//! a listing that is mostly new, which replaces the listing whole.
//!
//! The last listing is kept as two hashes an entry (16 bytes, not the entries): the URI's,
//! and that of every field the catalogue keeps. Hashes are seeded per listing, so a server
//! cannot choose URIs that collide. A removed entry is named by its position in the last
//! listing (the catalogue keeps each listed position's item, [`super::Catalogue::apply`]), so
//! no URI has to be kept here.
//!
//! The catalogue keeps its items in listing order and adds new ones at the end, so the kept
//! entries must be the new listing's first ones: an entry moved (or inserted) before others
//! is told as those others removed and listed again after it. A move to the end costs one
//! entry; an insertion near the front costs what follows it, and is a replacement once that
//! is most of the listing.

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};

use rmcp::model::Resource;

/// The last listing of one server, in listing order.
#[derive(Debug, Clone, Default)]
pub struct Fingerprint {
    /// (hash of the URI, hash of every kept field), one per listed entry.
    entries: Vec<(u64, u64)>,
    state: foldhash::fast::RandomState,
}

/// What to do to the last listing to make it the new one: take out `removed`, change
/// `changed` in place, then append `added`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListingEdit {
    /// Positions in the last listing of the entries that went (or moved), ascending.
    pub removed: Vec<u32>,
    /// Entries that kept their URI and their place among the kept ones but whose fields
    /// changed, in listing order.
    pub changed: Vec<Resource>,
    /// The new listing's entries after the last kept one, in listing order.
    pub added: Vec<Resource>,
}

impl ListingEdit {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.changed.is_empty() && self.added.is_empty()
    }
}

/// How a new listing differs from the last one.
#[derive(Debug, Clone, PartialEq)]
pub enum ListingChange {
    /// What changed, when most of the last listing stayed (see [`ListingEdit`]).
    Edited(ListingEdit),
    /// Most of the last listing went (or a listing with one URI twice changed other than at
    /// its end): the whole new listing.
    Replaced(Vec<Resource>),
}

impl Fingerprint {
    /// Adds the next entry of a listing being received.
    pub fn push(&mut self, resource: &Resource) {
        let entry = self.hashes(resource);
        self.entries.push(entry);
    }

    /// Entries in the last listing.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets the last listing and keeps `listing`'s instead.
    pub fn reset(&mut self, listing: &[Resource]) {
        self.entries = listing.iter().map(|r| self.hashes(r)).collect();
    }

    /// Compares `listing` with the last one and keeps it as the last one: O(listing), off
    /// the UI thread.
    pub fn diff(&mut self, listing: Vec<Resource>) -> ListingChange {
        let new: Vec<(u64, u64)> = listing.iter().map(|r| self.hashes(r)).collect();
        let old = std::mem::replace(&mut self.entries, new);
        let new = &self.entries;
        // The common case first, without a map: the last listing, then entries appended.
        let grew = new.len() >= old.len()
            && old
                .iter()
                .zip(new)
                .all(|((old_uri, _), (new_uri, _))| old_uri == new_uri);
        if grew {
            let changed_at = |i: usize| old[i].1 != new[i].1;
            if (0..old.len()).any(changed_at) && changes_a_later_copy(&old, changed_at) {
                return ListingChange::Replaced(listing);
            }
            return ListingChange::Edited(split(listing, old.len(), changed_at, Vec::new()));
        }
        let Some(kept) = kept_prefix(&old, new) else {
            return ListingChange::Replaced(listing);
        };
        let mut stays = vec![false; old.len()];
        for &i in &kept {
            stays[i as usize] = true;
        }
        let removed = (0..old.len() as u32)
            .filter(|&i| !stays[i as usize])
            .collect();
        let changed_at = |i: usize| old[kept[i] as usize].1 != new[i].1;
        ListingChange::Edited(split(listing, kept.len(), changed_at, removed))
    }

    /// The URI's hash, and the hash of what [`super::Item`] keeps of the entry (icons and
    /// `_meta` are not shown, so their changes are not changes here).
    fn hashes(&self, r: &Resource) -> (u64, u64) {
        let mut h = self.state.build_hasher();
        r.uri.hash(&mut h);
        let uri = h.finish();
        r.name.hash(&mut h);
        r.title.hash(&mut h);
        r.description.hash(&mut h);
        r.mime_type.hash(&mut h);
        r.size.hash(&mut h);
        match &r.annotations {
            None => 0u8.hash(&mut h),
            Some(a) => {
                1u8.hash(&mut h);
                a.audience.as_ref().map(Vec::len).hash(&mut h);
                for role in a.audience.iter().flatten() {
                    matches!(role, rmcp::model::Role::User).hash(&mut h);
                }
                a.priority.map(f32::to_bits).hash(&mut h);
                a.last_modified.hash(&mut h);
            }
        }
        (uri, h.finish())
    }
}

/// Whether an entry changed among the first ones (those `changed_at` says changed) is a
/// later copy of a URI listed before it: the catalogue keeps the first copy, so the change
/// cannot be applied by URI. O(listing), only when something changed in place.
fn changes_a_later_copy(old: &[(u64, u64)], changed_at: impl Fn(usize) -> bool) -> bool {
    let mut seen = std::collections::HashSet::with_capacity(old.len());
    (0..old.len()).any(|i| !seen.insert(old[i].0) && changed_at(i))
}

/// The new listing's first entries that are entries of the last one in their old order:
/// the old position of each. `None` when the last listing has a URI twice (its positions
/// would not name one entry each) or when most of it would go.
fn kept_prefix(old: &[(u64, u64)], new: &[(u64, u64)]) -> Option<Vec<u32>> {
    let mut position = HashMap::with_capacity(old.len());
    for (i, (uri, _)) in old.iter().enumerate() {
        if position.insert(*uri, i as u32).is_some() {
            return None;
        }
    }
    let mut kept: Vec<u32> = Vec::new();
    for (uri, _) in new {
        match position.get(uri) {
            Some(&i) if kept.last().is_none_or(|&last| i > last) => kept.push(i),
            _ => break,
        }
    }
    let removed = old.len() - kept.len();
    (removed * 2 <= old.len()).then_some(kept)
}

/// The new listing as an edit: its first `cut` entries are kept (those `changed_at` says
/// changed are sent), the rest added.
fn split(
    listing: Vec<Resource>,
    cut: usize,
    changed_at: impl Fn(usize) -> bool,
    removed: Vec<u32>,
) -> ListingEdit {
    let mut edit = ListingEdit {
        removed,
        changed: Vec::new(),
        added: Vec::with_capacity(listing.len() - cut),
    };
    for (i, resource) in listing.into_iter().enumerate() {
        if i >= cut {
            edit.added.push(resource);
        } else if changed_at(i) {
            edit.changed.push(resource);
        }
    }
    edit
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(uri: &str) -> Resource {
        Resource::new(uri, uri.rsplit('/').next().unwrap())
    }

    fn listing(uris: &[&str]) -> Vec<Resource> {
        uris.iter().map(|u| res(u)).collect()
    }

    fn uris(resources: &[Resource]) -> Vec<&str> {
        resources.iter().map(|r| r.uri.as_str()).collect()
    }

    fn after(old: &[&str]) -> Fingerprint {
        let mut print = Fingerprint::default();
        for r in listing(old) {
            print.push(&r);
        }
        print
    }

    fn edit(change: ListingChange) -> ListingEdit {
        match change {
            ListingChange::Edited(edit) => edit,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn entries_appended_at_the_end_are_the_only_change() {
        let mut print = after(&["x://a", "x://b"]);
        let e = edit(print.diff(listing(&["x://a", "x://b", "x://c", "x://d"])));
        assert!(e.changed.is_empty() && e.removed.is_empty(), "{e:?}");
        assert_eq!(uris(&e.added), ["x://c", "x://d"]);
        assert_eq!(print.len(), 4, "the new listing is the last one now");
        // The same listing again: nothing changed.
        let e = edit(print.diff(listing(&["x://a", "x://b", "x://c", "x://d"])));
        assert!(e.is_empty(), "{e:?}");
    }

    #[test]
    fn an_entry_changed_in_place_is_reported_with_its_new_fields() {
        let mut print = after(&["x://a", "x://b", "x://c"]);
        let mut new = listing(&["x://a", "x://b", "x://c", "x://d"]);
        new[1].size = Some(42);
        new[2].annotations = Some(rmcp::model::Annotations::default().with_priority(0.5));
        let e = edit(print.diff(new));
        assert_eq!(uris(&e.changed), ["x://b", "x://c"]);
        assert_eq!(e.changed[0].size, Some(42));
        assert_eq!(uris(&e.added), ["x://d"]);
        // Changed fields only count once: listed the same again, nothing changed.
        let mut same = listing(&["x://a", "x://b", "x://c", "x://d"]);
        same[1].size = Some(42);
        same[2].annotations = Some(rmcp::model::Annotations::default().with_priority(0.5));
        assert!(edit(print.diff(same)).is_empty());
    }

    #[test]
    fn a_change_to_a_later_copy_of_a_uri_replaces_the_listing() {
        let mut print = after(&["x://a", "x://b", "x://a"]);
        let mut new = listing(&["x://a", "x://b", "x://a"]);
        new[2].size = Some(1);
        assert_eq!(print.diff(new.clone()), ListingChange::Replaced(new));
        // The first copy changed: applied to the one the catalogue kept.
        let mut new = listing(&["x://a", "x://b", "x://a", "x://c"]);
        new[0].size = Some(2);
        new[2].size = Some(1);
        assert_eq!(edit(print.diff(new)).changed.len(), 1);
        // A removal from a listing with a URI twice: positions would not name one entry.
        let without = listing(&["x://b", "x://a", "x://c"]);
        assert_eq!(
            print.diff(without.clone()),
            ListingChange::Replaced(without)
        );
    }

    #[test]
    fn a_removal_is_named_by_its_position_wherever_it_was() {
        let mut print = after(&["x://a", "x://b", "x://c", "x://d"]);
        let e = edit(print.diff(listing(&["x://a", "x://c", "x://d"])));
        assert_eq!(e.removed, [1]);
        assert!(e.changed.is_empty() && e.added.is_empty(), "{e:?}");
        // Positions are in the last listing, which is the new one now; with an addition.
        let mut new = listing(&["x://a", "x://c", "x://e"]);
        new[1].size = Some(3);
        let e = edit(print.diff(new));
        assert_eq!(e.removed, [2]);
        assert_eq!(uris(&e.changed), ["x://c"]);
        assert_eq!(uris(&e.added), ["x://e"]);
    }

    #[test]
    fn a_move_is_the_entries_it_passed_removed_and_listed_again() {
        let mut print = after(&["x://a", "x://b", "x://c", "x://d", "x://e"]);
        // b moved to the end: one removed, one added.
        let e = edit(print.diff(listing(&["x://a", "x://c", "x://d", "x://e", "x://b"])));
        assert_eq!(e.removed, [1]);
        assert_eq!(uris(&e.added), ["x://b"]);
        // A newcomer before the last two: they go and come again after it.
        let e = edit(print.diff(listing(&[
            "x://a", "x://c", "x://d", "x://n", "x://e", "x://b",
        ])));
        assert_eq!(e.removed, [3, 4]);
        assert_eq!(uris(&e.added), ["x://n", "x://e", "x://b"]);
    }

    #[test]
    fn a_listing_mostly_new_replaces_the_listing() {
        let mut print = after(&["x://a", "x://b", "x://c"]);
        let reordered = listing(&["x://c", "x://a", "x://b"]);
        assert_eq!(
            print.diff(reordered.clone()),
            ListingChange::Replaced(reordered),
            "all but one would go"
        );
        let renamed = listing(&["x://d", "x://e", "x://f"]);
        assert_eq!(
            print.diff(renamed.clone()),
            ListingChange::Replaced(renamed)
        );
        assert_eq!(print.diff(Vec::new()), ListingChange::Replaced(Vec::new()));
    }
}
