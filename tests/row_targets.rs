//! The row is the truth: a model-based property test of what a mark key records on a tree
//! row. Random catalogues (deep, flat, chains of single-child folders, a server whose root
//! joins a folder, several schemes) go through random filters, folds and list changes; after
//! each step, for every visible row, the target the browser marks (`row_target`, which the
//! mark keys and the contents pane's `prefix` line use) equals the one computed from the row's
//! own node alone (its path of raw segments, brute force over the catalogue), covers exactly
//! what the row holds, and reads back through `mcpick pin`'s parsing as the same target.

use std::collections::BTreeSet;

use mcpick::catalog::tree::{percent_decode, split_uri};
use mcpick::catalog::{Catalogue, ItemId, UriTree};
use mcpick::commands::marks::parse_target;
use mcpick::context::{Mark, Marks, Pattern, Target};
use mcpick::mcp::ListingEdit;
use mcpick::tui::app::tree::row_target;
use proptest::prelude::*;
use rmcp::model::Resource;

/// The path separator of `UriTree::row_path` (server, then raw segments).
const PATH_SEP: char = '\u{1f}';

/// Marks an `ALONE` leaf (a URI sharing its tree position with another) in a row path.
const ALONE: char = '\u{0}';

/// A few prefixes that families of URIs grow from: a scheme with an authority and a
/// project folder (the demo's shape: the server root joins `file:///project` under a
/// search), and schemes without one.
fn base() -> impl Strategy<Value = String> {
    let scheme = prop_oneof![
        Just("file://"),
        Just("file:///project"),
        Just("demo://h"),
        // (Not `x:` alone: `x:` + a segment is `x://…`, an authority.)
        Just("x:/p"),
        Just("https://e.com"),
    ];
    let segment = prop_oneof![
        Just("a"),
        Just("b"),
        Just("src"),
        Just("scripts"),
        Just("My%20Notes"),
    ];
    (scheme, prop::collection::vec(segment, 0..4)).prop_map(|(s, segs)| {
        let mut u = s.to_string();
        for seg in segs {
            u.push('/');
            u.push_str(seg);
        }
        u
    })
}

/// One resource under a base: a few more segments (none: the base itself), a tail that is
/// nothing, a trailing slash, a query or a fragment; sometimes a directory.
fn resource_under(base: String) -> impl Strategy<Value = Resource> {
    let segment = prop_oneof![
        Just("a"),
        Just("b"),
        Just("c.md"),
        Just("Cargo.toml"),
        Just("x%2Fy"),
    ];
    let tail = prop_oneof![
        6 => Just(""),
        1 => Just("/"),
        1 => Just("?q=/x"),
        1 => Just("#f"),
    ];
    (
        prop::collection::vec(segment, 0..4),
        tail,
        prop::bool::weighted(0.1),
    )
        .prop_map(move |(segs, tail, directory)| {
            let mut u = base.clone();
            for seg in segs {
                u.push('/');
                u.push_str(seg);
            }
            u.push_str(tail);
            let r = Resource::new(u, "n");
            // (A directory with a query is no folder anyone publishes.)
            if directory && !tail.starts_with(['?', '#']) {
                r.with_mime_type("inode/directory")
            } else {
                r
            }
        })
}

/// A server's listing: families of resources around a few bases (so folders are shared,
/// deep, flat or single-child chains).
fn listing() -> impl Strategy<Value = Vec<Resource>> {
    prop::collection::vec(
        base().prop_flat_map(|b| prop::collection::vec(resource_under(b), 1..8)),
        0..5,
    )
    .prop_map(|families| families.into_iter().flatten().collect())
}

/// What happens to the tree between two looks at it.
#[derive(Debug, Clone)]
enum Step {
    /// A search's hits (`None`: the search is cleared).
    Filter(Option<Vec<prop::sample::Index>>),
    /// A fold or unfold of the row at an index.
    Fold(prop::sample::Index, bool),
    /// Every folder opened or closed.
    FoldAll(bool),
    /// The server at an index lists one more resource.
    Insert(prop::sample::Index, Box<Resource>),
    /// The server at an index stops listing the entry at a position.
    Remove(prop::sample::Index, prop::sample::Index),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => prop::option::of(prop::collection::vec(any::<prop::sample::Index>(), 0..6))
            .prop_map(Step::Filter),
        3 => (any::<prop::sample::Index>(), any::<bool>()).prop_map(|(i, o)| Step::Fold(i, o)),
        1 => any::<bool>().prop_map(Step::FoldAll),
        2 => (any::<prop::sample::Index>(), base().prop_flat_map(resource_under))
            .prop_map(|(s, r)| Step::Insert(s, Box::new(r))),
        2 => (any::<prop::sample::Index>(), any::<prop::sample::Index>())
            .prop_map(|(s, at)| Step::Remove(s, at)),
    ]
}

/// The catalogue, its tree, and each server's listing as the server last sent it (list
/// changes name positions in it).
struct World {
    cat: Catalogue,
    tree: UriTree,
    listings: Vec<Vec<Resource>>,
}

fn is_directory(resource: &Resource) -> bool {
    resource.mime_type.as_deref() == Some("inode/directory")
}

/// A URI's position in the tree: its segments.
fn position(uri: &str) -> Vec<String> {
    split_uri(uri).into_iter().map(String::from).collect()
}

impl World {
    fn new(servers: &[Vec<Resource>]) -> World {
        // Each tree position once per server: two URIs at one position (`x:/a` and
        // `x:/a/`) are filed apart by listing order, which the tree's own tests cover.
        let servers: Vec<Vec<Resource>> = servers
            .iter()
            .map(|listing| {
                let mut seen = BTreeSet::new();
                listing
                    .iter()
                    .filter(|r| seen.insert(position(&r.uri)))
                    .cloned()
                    .collect()
            })
            .collect();
        let servers = &servers[..];
        let mut cat = Catalogue::new();
        for (i, listing) in servers.iter().enumerate() {
            let s = cat.server(&format!("s{i}"));
            cat.append(s, listing);
        }
        let mut tree = UriTree::default();
        for i in 0..servers.len() {
            tree.add_server(&format!("s{i}"));
        }
        for (id, item) in cat.iter() {
            let listed = &servers[id.server as usize];
            let directory = listed
                .iter()
                .any(|r| r.uri == item.uri() && is_directory(r));
            tree.insert(id, item.uri(), directory);
        }
        World {
            cat,
            tree,
            listings: servers.to_vec(),
        }
    }

    /// A list change applied as the browser follows one: the catalogue edited, then the
    /// tree told what went and what came.
    fn change(&mut self, server: usize, edit: ListingEdit) {
        let s = server as u16;
        let report = self.cat.apply(s, &edit);
        for (id, _) in &report.removed {
            self.tree.remove(*id);
        }
        for index in report.added_from..self.cat.server_end(s) {
            let id = ItemId { server: s, index };
            if let Some(item) = self.cat.get(id) {
                let directory = edit
                    .added
                    .iter()
                    .any(|r| r.uri == item.uri() && is_directory(r));
                self.tree.insert(id, item.uri(), directory);
            }
        }
        let listing = &mut self.listings[server];
        for &at in edit.removed.iter().rev() {
            listing.remove(at as usize);
        }
        listing.extend(edit.added);
    }

    fn apply(&mut self, step: Step) {
        match step {
            Step::Filter(picks) => {
                let live: Vec<ItemId> = self.cat.iter().map(|(id, _)| id).collect();
                let hits: Option<Vec<ItemId>> = picks.map(|picks| {
                    if live.is_empty() {
                        Vec::new()
                    } else {
                        picks.iter().map(|p| live[p.index(live.len())]).collect()
                    }
                });
                self.tree.set_filter(hits.as_deref());
            }
            Step::Fold(at, open) => {
                let rows = self.tree.window(0, self.tree.row_count());
                if !rows.is_empty() {
                    self.tree.set_expanded(rows[at.index(rows.len())], open);
                }
            }
            Step::FoldAll(open) => self.tree.set_all_expanded(open),
            Step::Insert(server, resource) => {
                let server = server.index(self.listings.len());
                if self.listings[server]
                    .iter()
                    .any(|r| position(&r.uri) == position(&resource.uri))
                {
                    return;
                }
                self.change(
                    server,
                    ListingEdit {
                        removed: Vec::new(),
                        changed: Vec::new(),
                        added: vec![*resource],
                    },
                );
            }
            Step::Remove(server, at) => {
                let server = server.index(self.listings.len());
                let len = self.listings[server].len();
                if len > 0 {
                    self.change(
                        server,
                        ListingEdit {
                            removed: vec![at.index(len) as u32],
                            changed: Vec::new(),
                            added: Vec::new(),
                        },
                    );
                }
            }
        }
        self.tree.refresh();
    }

    /// The live resources of a server whose URI's segments begin with `segments`.
    fn under<'a>(&'a self, server: &'a str, segments: &'a [&'a str]) -> Vec<(ItemId, &'a str)> {
        self.cat
            .iter()
            .filter(|(id, _)| self.cat.server_name(id.server).as_ref() == server)
            .map(|(id, item)| (id, item.uri()))
            .filter(|(_, uri)| split_uri(uri).starts_with(segments))
            .collect()
    }
}

/// The target a row should have, from the row's own node alone: its path (server, then the
/// raw segments down to the node the row ends on), never the tree's items or prefixes.
/// `None` where no mark key acts (a leaf under the folder keys).
fn expected(world: &World, path: &str, folder_keys: bool) -> Result<Option<Target>, TestCaseError> {
    let mut parts = path.split(PATH_SEP);
    let server = parts.next().unwrap_or_default();
    let segments: Vec<&str> = parts.collect();
    if segments.is_empty() {
        let any = world
            .cat
            .iter()
            .any(|(id, _)| world.cat.server_name(id.server).as_ref() == server);
        return Ok(any.then(|| Target::prefix(server, "")));
    }
    if let Some(uri) = segments.last().and_then(|s| s.strip_prefix(ALONE)) {
        // A URI that shares its position with another: a leaf of its own, by that URI (a
        // directory: a folder by that URI).
        let directory = world.listings[server[1..].parse::<usize>().unwrap()]
            .iter()
            .any(|r| r.uri == uri && is_directory(r));
        return Ok(match (folder_keys, directory) {
            (false, _) => Some(Target::exact(server, uri)),
            (true, true) => Some(Target::prefix(
                server,
                format!("{}/", uri.strip_suffix('/').unwrap_or(uri)),
            )),
            (true, false) => None,
        });
    }
    let here = world.under(server, &segments);
    let own: Vec<&str> = here
        .iter()
        .filter(|(_, uri)| split_uri(uri).len() == segments.len())
        .map(|&(_, uri)| uri)
        .collect();
    let deeper = here.len() > own.len();
    let directory = world.listings[server[1..].parse::<usize>().unwrap()]
        .iter()
        .any(|r| own.contains(&r.uri.as_str()) && is_directory(r));
    let is_folder = deeper || directory;
    if is_folder && (folder_keys || own.is_empty()) {
        // The folder's segments as published, joined: the prefix that names it.
        let mut prefix = segments.join("/");
        prefix.push('/');
        return Ok(Some(Target::prefix(server, prefix)));
    }
    if folder_keys {
        return Ok(None);
    }
    // The node's own resource (of two URIs at one position, the tree's is one of them).
    prop_assert!(!own.is_empty(), "leaf {path:?} holds no resource");
    Ok(Some(Target::exact(server, own[0])))
}

/// Checks every visible row; `case` names the step for the failure message.
fn check_rows(world: &World, step: usize) -> Result<(), TestCaseError> {
    let tree = &world.tree;
    for (index, &row) in tree.window(0, tree.row_count()).iter().enumerate() {
        let view = tree.view(row);
        let path = tree.row_path(index).expect("a visible row has a path");
        for folder_keys in [false, true] {
            let got = row_target(tree, &world.cat, row, folder_keys);
            let want = expected(world, &path, folder_keys)?;
            let same = got == want
                || match (&got, &want) {
                    // Of two URIs at one tree position the node holds one: any of them is fine
                    // as long as its segments are the row's.
                    (Some(g), Some(w)) if !g.pattern.is_prefix() && !w.pattern.is_prefix() => {
                        g.server == w.server
                            && path.split(PATH_SEP).skip(1).eq(split_uri(g.pattern.text()))
                    }
                    _ => false,
                };
            prop_assert!(
                same,
                "step {step}, row {index} {:?} (path {path:?}, folder keys {folder_keys}): \
                 marks {got:?}, its node says {want:?}",
                view.label
            );
            let Some(target) = got else { continue };
            if let Pattern::Prefix(prefix) = &target.pattern
                && !view.server
            {
                // What the row shows is what the prefix names: its label ends the prefix.
                let shown = percent_decode(prefix.strip_suffix('/').unwrap_or(prefix)).into_owned();
                prop_assert!(
                    shown.ends_with(&view.label) || format!("{shown}/").ends_with(&view.label),
                    "row {:?} marks {prefix:?}",
                    view.label
                );
                // The prefix holds every resource under the row's node and nothing beside it.
                let segments: Vec<&str> = path.split(PATH_SEP).skip(1).collect();
                for (id, uri) in world.cat.iter().map(|(id, i)| (id, i.uri())) {
                    if world.cat.server_name(id.server).as_ref() != target.server {
                        continue;
                    }
                    let split = split_uri(uri);
                    let inside = split.starts_with(&segments);
                    if inside && split.len() > segments.len() {
                        prop_assert!(
                            target.matches(&target.server, uri),
                            "{uri} is under {:?}, not under {prefix:?}",
                            view.label
                        );
                    }
                    // (The prefix itself as a URI is the folder as a resource, wherever an
                    // empty segment put it.)
                    if !inside && uri != prefix {
                        prop_assert!(
                            !target.matches(&target.server, uri),
                            "{uri} is beside {:?}, yet under {prefix:?}",
                            view.label
                        );
                    }
                }
            }
            check_cli(world, &target)?;
        }
    }
    Ok(())
}

/// The same mark typed as `mcpick pin --server S TEXT` (the pattern as the browser shows it)
/// parses to the same target and marks the same resources.
fn check_cli(world: &World, target: &Target) -> Result<(), TestCaseError> {
    let typed = target.pattern.to_string();
    let cli = Target {
        server: target.server.clone(),
        pattern: parse_target(&typed, false),
    };
    prop_assert_eq!(&cli, target, "typed as {:?}", typed);
    let pinned = |t: &Target| -> BTreeSet<ItemId> {
        let mut marks = Marks::new();
        marks.set(t.clone(), Some(Mark::Pin));
        world
            .cat
            .iter()
            .filter(|(id, item)| {
                marks
                    .effective(world.cat.server_name(id.server), item.uri())
                    .is_some_and(|e| e.mark == Mark::Pin)
            })
            .map(|(id, _)| id)
            .collect()
    };
    prop_assert_eq!(pinned(&cli), pinned(target));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn every_row_marks_what_its_own_node_names(
        servers in prop::collection::vec(listing(), 1..3),
        steps in prop::collection::vec(step(), 0..12),
    ) {
        let mut world = World::new(&servers);
        world.tree.refresh();
        check_rows(&world, 0)?;
        for (i, step) in steps.into_iter().enumerate() {
            world.apply(step);
            check_rows(&world, i + 1)?;
        }
    }
}
