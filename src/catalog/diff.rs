//! A server's new listing against its last one, so a list change costs what changed: the
//! common case (entries appended at the end, some changed in place) is told apart from
//! anything else (removals, reorders), which replaces the listing whole.
//!
//! The last listing is kept as two hashes an entry (16 bytes, not the entries): the URI's,
//! and that of every field the catalogue keeps. Hashes are seeded per listing, so a server
//! cannot choose URIs that collide.

use std::hash::{BuildHasher, Hash, Hasher};

use rmcp::model::Resource;

/// The last listing of one server, in listing order.
#[derive(Debug, Clone, Default)]
pub struct Fingerprint {
    /// (hash of the URI, hash of every kept field), one per listed entry.
    entries: Vec<(u64, u64)>,
    state: foldhash::fast::RandomState,
}

/// How a new listing differs from the last one.
#[derive(Debug, Clone, PartialEq)]
pub enum ListingChange {
    /// The last listing in the same order, then `added` at its end; `changed` are entries
    /// whose URI stayed where it was but whose fields changed (in listing order).
    Grew {
        changed: Vec<Resource>,
        added: Vec<Resource>,
    },
    /// Anything else (an entry removed, moved or renamed): the whole new listing.
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

    /// Compares `listing` with the last one and keeps it as the last one: O(listing).
    pub fn diff(&mut self, listing: Vec<Resource>) -> ListingChange {
        let new: Vec<(u64, u64)> = listing.iter().map(|r| self.hashes(r)).collect();
        let old = std::mem::replace(&mut self.entries, new);
        let kept = old.len();
        let grew = listing.len() >= kept
            && old
                .iter()
                .zip(&self.entries)
                .all(|((old_uri, _), (new_uri, _))| old_uri == new_uri);
        let changed_at = |i: usize| old[i].1 != self.entries[i].1;
        if !grew || ((0..kept).any(changed_at) && self.changes_a_later_copy(kept, changed_at)) {
            return ListingChange::Replaced(listing);
        }
        let mut changed = Vec::new();
        let mut added = Vec::with_capacity(listing.len() - kept);
        for (i, resource) in listing.into_iter().enumerate() {
            if i >= kept {
                added.push(resource);
            } else if changed_at(i) {
                changed.push(resource);
            }
        }
        ListingChange::Grew { changed, added }
    }

    /// Whether an entry changed among the first `kept` is a later copy of a URI listed
    /// before it: the catalogue keeps the first copy, so the change cannot be applied by URI.
    /// O(listing), only when something changed in place.
    fn changes_a_later_copy(&self, kept: usize, changed_at: impl Fn(usize) -> bool) -> bool {
        let mut seen = std::collections::HashSet::with_capacity(kept);
        (0..kept).any(|i| !seen.insert(self.entries[i].0) && changed_at(i))
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

    #[test]
    fn entries_appended_at_the_end_are_the_only_change() {
        let mut print = after(&["x://a", "x://b"]);
        match print.diff(listing(&["x://a", "x://b", "x://c", "x://d"])) {
            ListingChange::Grew { changed, added } => {
                assert!(changed.is_empty(), "{changed:?}");
                assert_eq!(uris(&added), ["x://c", "x://d"]);
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(print.len(), 4, "the new listing is the last one now");
        // The same listing again: nothing changed.
        assert_eq!(
            print.diff(listing(&["x://a", "x://b", "x://c", "x://d"])),
            ListingChange::Grew {
                changed: Vec::new(),
                added: Vec::new()
            }
        );
    }

    #[test]
    fn an_entry_changed_in_place_is_reported_with_its_new_fields() {
        let mut print = after(&["x://a", "x://b", "x://c"]);
        let mut new = listing(&["x://a", "x://b", "x://c", "x://d"]);
        new[1].size = Some(42);
        new[2].annotations = Some(rmcp::model::Annotations::default().with_priority(0.5));
        match print.diff(new) {
            ListingChange::Grew { changed, added } => {
                assert_eq!(uris(&changed), ["x://b", "x://c"]);
                assert_eq!(changed[0].size, Some(42));
                assert_eq!(uris(&added), ["x://d"]);
            }
            other => panic!("{other:?}"),
        }
        // Changed fields only count once: listed the same again, nothing changed.
        let mut same = listing(&["x://a", "x://b", "x://c", "x://d"]);
        same[1].size = Some(42);
        same[2].annotations = Some(rmcp::model::Annotations::default().with_priority(0.5));
        assert!(matches!(
            print.diff(same),
            ListingChange::Grew { changed, added } if changed.is_empty() && added.is_empty()
        ));
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
        assert!(
            matches!(print.diff(new), ListingChange::Grew { changed, .. } if changed.len() == 1)
        );
    }

    #[test]
    fn a_removal_a_reorder_or_a_rename_replaces_the_listing() {
        let mut print = after(&["x://a", "x://b", "x://c"]);
        let removed = listing(&["x://a", "x://c"]);
        assert_eq!(
            print.diff(removed.clone()),
            ListingChange::Replaced(removed)
        );
        // The removal is the last listing now.
        let reordered = listing(&["x://c", "x://a", "x://d"]);
        assert_eq!(
            print.diff(reordered.clone()),
            ListingChange::Replaced(reordered)
        );
        // One removed and one added: as long as before, yet not the same URIs.
        let renamed = listing(&["x://c", "x://a", "x://e"]);
        assert_eq!(
            print.diff(renamed.clone()),
            ListingChange::Replaced(renamed)
        );
    }
}
