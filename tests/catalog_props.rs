//! Property tests of the catalogue engine: the URI tree, list orders, the matcher,
//! catalogue replacement and list changes applied as what changed, on random catalogues.

use std::collections::{BTreeSet, HashSet};

use mcpick::catalog::{
    Catalogue, ItemId, MatcherKind, Search, SortKey, SortedList, UriTree, order,
};
use mcpick::mcp::{Fingerprint, ListingChange};
use proptest::prelude::*;
use rmcp::model::{Annotations, Resource};

/// URIs built from a small alphabet so that prefixes, shared folders, trailing slashes,
/// queries and percent-escapes collide often.
fn uri() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        Just("file://"),
        Just("demo://h"),
        Just("x:"),
        Just("https://e.com")
    ];
    let segment = prop_oneof![
        Just("a"),
        Just("b"),
        Just("c"),
        Just("src"),
        Just("My%20Notes"),
        Just("")
    ];
    let tail = prop_oneof![Just(""), Just("/"), Just("?q=1"), Just("#f"), Just("?q=/x")];
    (scheme, prop::collection::vec(segment, 0..5), tail).prop_map(|(s, segs, t)| {
        let mut u = s.to_string();
        for seg in segs {
            u.push('/');
            u.push_str(seg);
        }
        u.push_str(t);
        u
    })
}

fn resource() -> impl Strategy<Value = Resource> {
    (
        uri(),
        prop::option::of(0u8..=4),
        prop::option::of(0u64..5000),
        prop::option::of(0u32..4),
        "[a-zA-Z]{1,6}",
    )
        .prop_map(|(uri, prio, size, day, name)| {
            let mut r = Resource::new(uri, name);
            if let Some(size) = size {
                r = r.with_size(size);
            }
            if prio.is_some() || day.is_some() {
                let mut a = Annotations::default();
                if let Some(p) = prio {
                    a = a.with_priority(f32::from(p) / 4.0);
                }
                a.last_modified = day.map(|d| format!("2026-01-0{}T00:00:00Z", d + 1));
                r = r.with_annotations(a);
            }
            r
        })
}

fn catalogue(servers: &[Vec<Resource>]) -> Catalogue {
    let mut cat = Catalogue::new();
    for (i, resources) in servers.iter().enumerate() {
        let s = cat.server(&format!("s{i}"));
        cat.append(s, resources);
    }
    cat
}

fn tree_items(tree: &UriTree) -> Vec<ItemId> {
    tree.window(0, tree.row_count())
        .iter()
        .filter_map(|&r| tree.view(r).item)
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_resource_appears_exactly_once_in_the_open_tree(
        servers in prop::collection::vec(prop::collection::vec(resource(), 0..40), 1..3)
    ) {
        let cat = catalogue(&servers);
        let mut tree = UriTree::build(&cat);
        tree.set_all_expanded(true);
        tree.refresh();
        let items = tree_items(&tree);
        let unique: HashSet<_> = items.iter().collect();
        prop_assert_eq!(unique.len(), items.len(), "an item shown twice");
        let all: HashSet<_> = cat.iter().map(|(id, _)| id).collect();
        prop_assert_eq!(unique, all.iter().collect::<HashSet<_>>(), "an item missing");
        // Folder counts add up: each server row counts all of its resources.
        for row in tree.window(0, tree.row_count()) {
            let view = tree.view(row);
            if view.server {
                let server = cat.iter().filter(|(id, _)| cat.server_name(id.server).as_ref() == view.label).count();
                prop_assert_eq!(view.count as usize, server);
            }
        }
    }

    #[test]
    fn a_filter_shows_exactly_the_matches_and_their_ancestors(
        resources in prop::collection::vec(resource(), 1..40),
        picks in prop::collection::vec(any::<bool>(), 40),
    ) {
        let cat = catalogue(&[resources]);
        let chosen: Vec<ItemId> = cat
            .iter()
            .map(|(id, _)| id)
            .filter(|id| picks[id.index as usize % picks.len()])
            .collect();
        let mut tree = UriTree::build(&cat);
        tree.set_filter(Some(&chosen));
        tree.refresh();
        let shown: HashSet<ItemId> = tree_items(&tree).into_iter().collect();
        let chosen_set: HashSet<ItemId> = chosen.iter().copied().collect();
        prop_assert!(shown.is_superset(&chosen_set), "a match is hidden");
        // Every row is a match or leads to one (a resource that is also the folder of a
        // match shows as that folder).
        for row in tree.window(0, tree.row_count()) {
            let view = tree.view(row);
            let is_match = view.item.is_some_and(|id| chosen_set.contains(&id));
            prop_assert!(is_match || view.count > 0, "row {:?} leads to no match", view.label);
            if let Some(id) = view.item.filter(|id| !chosen_set.contains(id)) {
                prop_assert!(view.folder && view.count > 0, "non-match {:?} shown as a leaf", id);
            }
        }
    }

    #[test]
    fn expand_state_round_trips(
        resources in prop::collection::vec(resource(), 1..40),
        toggles in prop::collection::vec((0usize..60, any::<bool>()), 0..20),
    ) {
        let cat = catalogue(&[resources]);
        let mut tree = UriTree::build(&cat);
        tree.refresh();
        for (at, open) in toggles {
            if tree.row_count() > 0 {
                let row = tree.window(at % tree.row_count(), 1)[0];
                tree.set_expanded(row, open);
                tree.refresh();
            }
        }
        let rows = |t: &UriTree| t.window(0, t.row_count()).iter().map(|&r| t.view(r)).collect::<Vec<_>>();
        let before = rows(&tree);
        let mut rebuilt = UriTree::build(&cat);
        rebuilt.restore_expanded(&tree.expanded_paths());
        rebuilt.refresh();
        prop_assert_eq!(rows(&rebuilt), before);
    }

    #[test]
    fn orders_are_sorted_permutations_with_stable_ties(
        resources in prop::collection::vec(resource(), 0..60),
        key in prop::sample::select(SortKey::ALL.to_vec()),
    ) {
        let cat = catalogue(&[resources]);
        let sorted = order::sorted(&cat, key);
        let all: BTreeSet<_> = cat.iter().map(|(id, _)| id).collect();
        prop_assert_eq!(sorted.iter().copied().collect::<BTreeSet<_>>(), all);
        for pair in sorted.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            let ord = key.compare(&cat, (a, cat.get(a).unwrap()), (b, cat.get(b).unwrap()));
            prop_assert!(ord != std::cmp::Ordering::Greater, "{:?} out of order", key);
            if ord == std::cmp::Ordering::Equal {
                prop_assert!(a.index < b.index, "ties keep catalogue order");
            }
        }
    }

    #[test]
    fn typed_results_equal_a_full_rescore(
        resources in prop::collection::vec(resource(), 0..80),
        keys in prop::collection::vec(prop_oneof![
            4 => "[a-cs/%2 ]".prop_map(Some),
            1 => Just(None::<String>), // backspace
        ], 1..10),
        kind in prop::sample::select(vec![MatcherKind::Nucleo, MatcherKind::Skim]),
    ) {
        let cat = catalogue(&[resources]);
        let snapshot = cat.snapshot();
        let search = Search { kind, threads: 2 };
        let mut query = String::new();
        let mut previous: Option<(String, Vec<mcpick::catalog::Match>)> = None;
        for key in keys {
            match key {
                Some(c) => query.push_str(&c),
                None => { query.pop(); }
            }
            let results = match &previous {
                Some((old, matches)) if kind.narrows(old, &query) => search.narrow(&snapshot, &query, matches),
                _ => search.find(&snapshot, &query),
            };
            prop_assert_eq!(&results, &search.find(&snapshot, &query), "query {:?}", query);
            previous = Some((query.clone(), results));
        }
    }

    #[test]
    fn replacing_a_server_reports_the_difference(
        old in prop::collection::vec(uri(), 0..30),
        new in prop::collection::vec(uri(), 0..30),
    ) {
        let res = |uris: &[String]| uris.iter().map(|u| Resource::new(u.clone(), "n")).collect::<Vec<_>>();
        let mut cat = Catalogue::new();
        let a = cat.server("a");
        let b = cat.server("b");
        cat.append(a, &res(&old));
        cat.append(b, &res(&old));
        let report = cat.replace(a, &res(&new));
        let old_set: BTreeSet<_> = old.iter().cloned().collect();
        let new_set: BTreeSet<_> = new.iter().cloned().collect();
        prop_assert_eq!(report.appeared.iter().cloned().collect::<BTreeSet<_>>(), &new_set - &old_set);
        prop_assert_eq!(report.disappeared.iter().cloned().collect::<BTreeSet<_>>(), &old_set - &new_set);
        prop_assert_eq!(cat.server_len(a), new_set.len());
        prop_assert_eq!(cat.server_len(b), old_set.len(), "the other server is untouched");
        for u in &new_set {
            prop_assert!(cat.find(a, u).is_some());
        }
    }

    #[test]
    fn a_list_change_applied_as_what_changed_is_the_listing(
        old in prop::collection::vec(resource(), 0..30),
        removed in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        moved in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 0..3),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u64..3), 0..4),
        added in prop::collection::vec((any::<prop::sample::Index>(), resource()), 0..5),
        other in prop::collection::vec(resource(), 0..30),
        replaced in any::<bool>(),
        unlisted in prop::option::of(resource()),
        changes in 1usize..4,
        key in prop::sample::select(SortKey::ALL.to_vec()),
    ) {
        // A server's listings one after another: the last one with entries removed, moved,
        // changed and added anywhere (sometimes another listing altogether), each diffed
        // against the one before and applied as what changed.
        let mut cat = Catalogue::new();
        let s = cat.server("a");
        cat.append(s, &old);
        // A resource the server does not list (a pinned expansion) stays through every change.
        let kept = unlisted.filter(|r| cat.find(s, &r.uri).is_none()).and_then(|r| {
            cat.add_unlisted(s, &r).map(|_| r)
        });
        let mut last = Fingerprint::default();
        last.reset(&old);
        let mut listing = old;
        // The list view's order, kept through the changes.
        let names: Vec<std::sync::Arc<str>> = vec!["a".into()];
        let mut sorted = SortedList::sort(&cat.snapshot(), &names, key);
        for round in 0..changes {
            let new = if replaced && round == 0 {
                other.clone()
            } else {
                let mut new = listing.clone();
                for at in &removed {
                    if !new.is_empty() {
                        new.remove(at.index(new.len()));
                    }
                }
                for (from, to) in &moved {
                    if !new.is_empty() {
                        let r = new.remove(from.index(new.len()));
                        new.insert(to.index(new.len() + 1), r);
                    }
                }
                for (at, size) in &edits {
                    if !new.is_empty() {
                        let i = at.index(new.len());
                        new[i].size = Some(*size);
                    }
                }
                for (at, r) in &added {
                    new.insert(at.index(new.len() + 1), r.clone());
                }
                new
            };
            match last.diff(new.clone()) {
                ListingChange::Edited(edit) => {
                    prop_assert!(edit.removed.windows(2).all(|w| w[0] < w[1]), "ascending");
                    prop_assert!(edit.removed.len() * 2 <= listing.len(), "most of the listing stayed");
                    let report = cat.apply(s, &edit);
                    prop_assert_eq!(report.removed.len(), report.removed.iter().filter(|(id, _)| cat.get(*id).is_none()).count());
                }
                ListingChange::Replaced(whole) => {
                    prop_assert_eq!(&whole, &new);
                    cat.replace(s, &whole);
                }
            }
            // A pinned expansion the server listed and then stopped listing is one again (the
            // browser adds the set's expansions after every list change that removed some).
            if let Some(r) = &kept
                && cat.find(s, &r.uri).is_none()
            {
                cat.add_unlisted(s, r);
            }
            // The same as the new listing appended afresh (and the unlisted one, unless the
            // server lists its URI now): every listed entry in order, the unlisted one where
            // it was added, each found by its URI.
            let mut fresh = Catalogue::new();
            let f = fresh.server("a");
            fresh.append(f, &new);
            if let Some(r) = &kept {
                fresh.add_unlisted(f, r);
            }
            let entries = |cat: &Catalogue, unlisted: bool| cat
                .iter()
                .filter(|(_, item)| item.is_unlisted() == unlisted)
                .map(|(id, _)| cat.entry(id))
                .collect::<Vec<_>>();
            prop_assert_eq!(entries(&cat, false), entries(&fresh, false));
            prop_assert_eq!(entries(&cat, true), entries(&fresh, true));
            prop_assert_eq!(cat.len(), fresh.len());
            for (id, item) in fresh.iter() {
                let found = cat.find(s, item.uri()).expect("found by its URI");
                prop_assert_eq!(cat.entry(found), fresh.entry(id));
            }
            // The kept list order, advanced by what changed, is the order a whole sort gives
            // (merged, unless the catalogue's record of changes started over).
            let snapshot = cat.snapshot();
            let touched = cat.touched_since(sorted.extent());
            let merges = touched.is_some();
            sorted = sorted.advance(&snapshot, &names, touched.as_deref());
            prop_assert_eq!(sorted.merged(), merges);
            let fresh = SortedList::sort(&snapshot, &names, key);
            prop_assert_eq!(sorted.ids(), fresh.ids(), "{:?}", key);
            // And the order of the catalogue's own stable sort (ties in catalogue order).
            prop_assert_eq!(sorted.ids(), &order::sorted(&cat, key)[..], "{:?}", key);
            listing = new;
        }
    }
}
