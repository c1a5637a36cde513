//! A server's new listing against its last one, so a list change costs what changed: entries
//! removed (wherever they were), changed in place and appended at the end are told apart from
//! a listing that is mostly new, which replaces the listing whole.
//!
//! The last listing is kept as two hashes an entry (16 bytes, not the entries): the URI's,
//! and that of every field the catalogue keeps. Hashes are seeded per listing, so a server
//! cannot choose URIs that collide. A removed entry is named by its position in the last
//! listing (the catalogue keeps each listed position's item, [`crate::catalog::Catalogue::apply`]), so
//! no URI has to be kept here.
//!
//! The catalogue keeps its items in listing order and adds new ones at the end, so the kept
//! entries must be the new listing's first ones: an entry moved (or inserted) before others
//! is told as those others removed and listed again after it. A move to the end costs one
//! entry; an insertion near the front costs what follows it, and is a replacement once that
//! is most of the listing.
//!
//! A re-list is diffed as its pages arrive ([`Relisting`]): an entry kept unchanged is dropped
//! with its page, so a re-list of a million resources with one added holds that one, not the
//! million (holding the whole listing cost the browser 400 MB at each re-list).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher};

use rmcp::model::Resource;

/// The last listing of one server, in listing order.
#[derive(Debug, Clone, Default)]
pub struct Fingerprint {
    /// (hash of the URI, hash of every kept field), one per listed entry.
    entries: Vec<(u64, u64)>,
    state: foldhash::fast::RandomState,
    /// Whether the listing has a URI twice, once known: a re-list's diff tells it for the
    /// new listing from what it added, so only the first re-list of a connection builds a
    /// set of every URI (18 MB at a million) to find out.
    duplicates: Option<bool>,
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
        self.duplicates = None;
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
        self.duplicates = None;
    }

    /// Starts diffing a re-list page by page ([`Relisting::page`], then
    /// [`Relisting::finish`]); this fingerprint stays the last listing's until then.
    pub fn relist(&mut self) -> Relisting {
        let entries = &self.entries;
        let duplicates = *self.duplicates.get_or_insert_with(|| {
            let mut seen = HashSet::with_capacity(entries.len());
            !entries.iter().all(|(uri, _)| seen.insert(*uri))
        });
        Relisting {
            received: 0,
            rehashed: Vec::new(),
            new: Vec::new(),
            kept: 0,
            position: None,
            last_kept: None,
            broken: false,
            changed: Vec::new(),
            added: Vec::new(),
            whole: duplicates.then(Vec::new),
        }
    }

    /// Compares `listing` with the last one and keeps it as the last one: O(listing), off
    /// the UI thread.
    pub fn diff(&mut self, listing: Vec<Resource>) -> ListingChange {
        let new: Vec<(u64, u64)> = listing.iter().map(|r| self.hashes(r)).collect();
        let old = std::mem::replace(&mut self.entries, new);
        self.duplicates = None;
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

    /// The URI's hash, and the hash of what [`crate::catalog::Item`] keeps of the entry (icons and
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

/// A re-list being diffed as its pages arrive, against the [`Fingerprint`] it started from
/// ([`Fingerprint::relist`]). Its outcome is [`Fingerprint::diff`]'s for the whole listing;
/// only the entries that outcome sends are kept on the way.
#[derive(Debug)]
pub struct Relisting {
    /// Entries of the new listing so far.
    received: usize,
    /// How many of its first entries are entries of the last listing in their old order.
    kept: usize,
    /// While every kept entry is in its old place (`position` unused), the new listing's
    /// hashes are the last listing's first `kept`, with these field hashes changed (old
    /// position, new hash), followed by `new`: the common re-list (a few entries appended
    /// or changed) holds no second copy of the listing's hashes.
    rehashed: Vec<(u32, u64)>,
    /// The new listing's hashes that the above does not tell: those after the kept entries,
    /// or every one once `position` is in use.
    new: Vec<(u64, u64)>,
    /// Old position by URI hash, built at the first entry not in its old place.
    position: Option<HashMap<u64, u32>>,
    /// The old position of the last kept entry, once `position` is in use.
    last_kept: Option<u32>,
    /// The kept prefix ended: every later entry is added.
    broken: bool,
    changed: Vec<Resource>,
    added: Vec<Resource>,
    /// The last listing has a URI twice, so positions do not name one entry each: the whole
    /// listing is kept and diffed at the end, as [`Fingerprint::diff`] does.
    whole: Option<Vec<Resource>>,
}

impl Relisting {
    /// The next page of the re-list, diffed against `last` (the fingerprint this started
    /// from); what stayed as it was is dropped here.
    pub fn page(&mut self, last: &Fingerprint, page: Vec<Resource>) {
        if let Some(whole) = &mut self.whole {
            return whole.extend(page);
        }
        let old = &last.entries;
        for resource in page {
            let entry = last.hashes(&resource);
            let at = (!self.broken)
                .then(|| self.old_position(old, entry.0))
                .flatten();
            self.received += 1;
            if self.position.is_some() || at.is_none() {
                self.new.push(entry);
            }
            match at {
                Some(i) => {
                    self.kept += 1;
                    if old[i as usize].1 != entry.1 {
                        if self.position.is_none() {
                            self.rehashed.push((i, entry.1));
                        }
                        self.changed.push(resource);
                    }
                }
                None => {
                    self.broken = true;
                    self.added.push(resource);
                }
            }
        }
    }

    /// Where the entry with URI hash `uri`, next in the new listing, was in the last one, if
    /// it is still in the kept prefix: in its own place while every entry so far is, else
    /// after the last kept one.
    fn old_position(&mut self, old: &[(u64, u64)], uri: u64) -> Option<u32> {
        let j = self.received;
        if self.position.is_none() {
            if j >= old.len() {
                return None;
            }
            if old[j].0 == uri {
                return Some(j as u32);
            }
            // Out of place: from here on, every new hash is kept in `new`, the kept
            // ones (all in place so far) first.
            let mut new = old[..j].to_vec();
            for &(i, hash) in &std::mem::take(&mut self.rehashed) {
                new[i as usize].1 = hash;
            }
            self.new = new;
            let mut position = HashMap::with_capacity(old.len());
            for (i, (u, _)) in old.iter().enumerate() {
                position.insert(*u, i as u32);
            }
            self.position = Some(position);
            self.last_kept = j.checked_sub(1).map(|i| i as u32);
        }
        let &i = self.position.as_ref()?.get(&uri)?;
        if self.last_kept.is_some_and(|last| i <= last) {
            return None;
        }
        self.last_kept = Some(i);
        Some(i)
    }

    /// The re-list ended: what changed, and `last` becomes the new listing's fingerprint.
    /// `None` when most of the last listing went: what stayed was dropped on the way, so the
    /// whole listing has to be listed again and given to [`Fingerprint::diff`] (`last` is left
    /// as it was for that).
    pub fn finish(mut self, last: &mut Fingerprint) -> Option<ListingChange> {
        if let Some(whole) = self.whole {
            return Some(last.diff(whole));
        }
        let old_len = last.entries.len();
        let removed_count = old_len - self.kept;
        if removed_count * 2 > old_len {
            return None;
        }
        let removed = match &self.position {
            // Every old entry kept in its place: nothing removed.
            None => (self.kept as u32..old_len as u32).collect(),
            Some(_) => {
                let mut stays = vec![false; old_len];
                let mut kept_positions = self.new[..self.kept].iter().map(|(uri, _)| uri);
                // The kept entries are in old order: one pass over the old listing.
                let mut next = kept_positions.next();
                for (i, (uri, _)) in last.entries.iter().enumerate() {
                    if next == Some(uri) {
                        stays[i] = true;
                        next = kept_positions.next();
                    }
                }
                (0..old_len as u32)
                    .filter(|&i| !stays[i as usize])
                    .collect()
            }
        };
        let entries = match self.position {
            // The kept entries are the last listing's first, in place: changed there.
            None => {
                let mut entries = std::mem::take(&mut last.entries);
                entries.truncate(self.kept);
                for &(i, hash) in &self.rehashed {
                    entries[i as usize].1 = hash;
                }
                entries.extend_from_slice(&self.new);
                entries
            }
            Some(_) => std::mem::take(&mut self.new),
        };
        // The kept entries are unique (the last listing was): a URI is listed twice only if
        // one of its entries was added. O(listing), in memory O(added).
        let added: HashSet<u64> = entries[self.kept..].iter().map(|(uri, _)| *uri).collect();
        let mut seen = HashSet::new();
        let duplicates = !added.is_empty()
            && entries
                .iter()
                .any(|(uri, _)| added.contains(uri) && !seen.insert(*uri));
        last.entries = entries;
        last.duplicates = Some(duplicates);
        Some(ListingChange::Edited(ListingEdit {
            removed,
            changed: self.changed,
            added: self.added,
        }))
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

    /// The whole diff of `new` against `old` both ways: at once, and page by page (pages of
    /// `page` entries); a page-by-page `None` listed again whole.
    fn both(old: &[Resource], new: &[Resource], page: usize) -> (ListingChange, ListingChange) {
        let mut at_once = Fingerprint::default();
        at_once.reset(old);
        let mut paged = at_once.clone();
        let whole = at_once.diff(new.to_vec());
        let mut relisting = paged.relist();
        for chunk in new.chunks(page) {
            relisting.page(&paged, chunk.to_vec());
        }
        let streamed = relisting
            .finish(&mut paged)
            .unwrap_or_else(|| paged.diff(new.to_vec()));
        assert_eq!(paged.entries, at_once.entries, "the same fingerprint after");
        if let Some(duplicates) = paged.duplicates {
            let mut seen = std::collections::HashSet::new();
            let twice = !paged.entries.iter().all(|(uri, _)| seen.insert(*uri));
            assert_eq!(
                duplicates, twice,
                "what it knows of URIs listed twice holds"
            );
        }
        (whole, streamed)
    }

    #[test]
    fn a_relist_diffed_page_by_page_keeps_only_what_it_sends() {
        let old = listing(&["x://a", "x://b", "x://c", "x://d"]);
        let mut print = Fingerprint::default();
        print.reset(&old);
        let mut relisting = print.relist();
        relisting.page(&print, listing(&["x://a", "x://b"]));
        relisting.page(&print, listing(&["x://c", "x://d", "x://e"]));
        assert_eq!(
            relisting.changed.len() + relisting.added.len(),
            1,
            "{relisting:?}"
        );
        let e = edit(relisting.finish(&mut print).expect("an edit"));
        assert_eq!(uris(&e.added), ["x://e"]);
        // Most of it gone: listed again whole.
        let relisting = print.relist();
        assert!(relisting.finish(&mut print).is_none());
        assert_eq!(print.len(), 5, "left as it was for the whole listing");
    }

    fn resources(entries: &[(u8, u8)]) -> Vec<Resource> {
        entries
            .iter()
            .map(|&(uri, size)| {
                let mut r = res(&format!("x://{uri}"));
                r.size = Some(size.into());
                r
            })
            .collect()
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        /// Diffed page by page, a re-list comes to what diffing it whole does: the last listing
        /// with entries removed, changed, inserted anywhere and appended, URIs listed twice,
        /// or a listing unlike it, in pages of any size.
        #[test]
        fn a_relist_page_by_page_is_the_whole_diff(
            old in prop::collection::vec((0u8..12, 0u8..2), 0..24),
            keep in prop::collection::vec(any::<bool>(), 24),
            bump in prop::collection::vec(any::<bool>(), 24),
            inserted in prop::collection::vec((any::<prop::sample::Index>(), 0u8..16, 0u8..2), 0..4),
            unlike in prop::option::of(prop::collection::vec((0u8..12, 0u8..2), 0..24)),
            page in 1usize..8,
        ) {
            let mut new: Vec<(u8, u8)> = match unlike {
                Some(unlike) => unlike,
                None => old
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| keep[i] || i % 3 != 0)
                    .map(|(i, &(uri, size))| (uri, size ^ u8::from(bump[i] && i % 4 == 0)))
                    .collect(),
            };
            for (at, uri, size) in inserted {
                let at = at.index(new.len() + 1);
                new.insert(at, (uri, size));
            }
            let (whole, streamed) = both(&resources(&old), &resources(&new), page);
            prop_assert_eq!(streamed, whole);
        }
    }
}
