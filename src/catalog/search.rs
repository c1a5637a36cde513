//! Search over every resource: the fzf syntax of [`super::query`] (title, name, URI, server
//! name and description), run on every core.
//!
//! The fuzzy matcher is chosen by [`MatcherKind`] so the engines can be compared in one
//! benchmark run. `nucleo-matcher` is the default: `fuzzy-matcher` is about 3× slower per item
//! and cannot finish a broad query over 100k resources within the 50 ms budget on two cores
//! (figures in the README). Matching runs on every core over the catalogue's chunks; a query
//! that extends the previous one only re-scores the previous matches. Results are ordered by
//! rank, ties by catalogue order, so they never depend on thread timing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use super::item::Item;
pub use super::query::MatcherKind;
use super::query::{Field, Scorer, ServerHits};
use super::store::{ItemId, ServerId, Snapshot};

impl MatcherKind {
    /// A scorer for `query` (each thread makes its own).
    pub fn scorer(self, query: &str) -> Scorer {
        Scorer::new(self, query)
    }

    /// Whether every item matching `new` also matches `old`, so a search for `new` may
    /// re-score only `old`'s matches. True when `new` only appends plain characters to the
    /// last term (a fuzzy term, a substring, a prefix: each only gets stricter).
    ///
    /// Only for nucleo: skim's scoring is not monotone (the property tests found an item that
    /// matches `ss/` but not `ss`), so its searches always re-scan. Nor is a term's first `:`
    /// (it lets the term scatter over a URI's scheme and authority).
    pub fn narrows(self, old: &str, new: &str) -> bool {
        if self == MatcherKind::Skim {
            return false;
        }
        let Some(added) = new.strip_prefix(old) else {
            return false;
        };
        let last = old.rsplit(char::is_whitespace).next().unwrap_or(old);
        if added.contains(':') && !last.contains(':') {
            return false;
        }
        !old.is_empty()
            && !old.contains(['!', '\\'])
            && added
                .chars()
                .all(|c| c.is_alphanumeric() || "-_./:".contains(c))
            && !old.ends_with(char::is_whitespace)
            && !old.ends_with(['\'', '^', '$'])
    }
}

/// Server hits per server id, computed the first time a server comes up.
struct ServerCache(Vec<Option<ServerHits>>);

impl ServerCache {
    fn get(&mut self, scorer: &mut Scorer, snapshot: &Snapshot, server: ServerId) -> &ServerHits {
        let i = server as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, None);
        }
        self.0[i].get_or_insert_with(|| scorer.server(snapshot.server_name(server)))
    }
}

/// One search hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    pub id: ItemId,
    pub score: u32,
}

/// Runs searches over a snapshot on several threads.
#[derive(Debug, Clone, Copy)]
pub struct Search {
    pub kind: MatcherKind,
    pub threads: usize,
}

impl Default for Search {
    fn default() -> Self {
        Self {
            kind: MatcherKind::default(),
            threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }
}

impl Search {
    /// Scores every item of `snapshot`. `on_block(scanned, partial)` is called on this thread
    /// after each block with the matches so far (unsorted); returning `false` from `keep_going`
    /// abandons the search (a newer query arrived) and yields `None`.
    pub fn run(
        &self,
        snapshot: &Snapshot,
        query: &str,
        keep_going: &(dyn Fn() -> bool + Sync),
        on_block: impl FnMut(usize, &[Match]),
    ) -> Option<Vec<Match>> {
        if query.trim().is_empty() {
            return Some(all(snapshot));
        }
        self.run_blocks(snapshot, snapshot.blocks(), query, keep_going, on_block)
    }

    /// [`Search::run`] over only the items after `earlier` (a catalogue still loading: the
    /// earlier items' matches are already known). Sorted like `run`'s, unmerged.
    pub fn run_after(
        &self,
        snapshot: &Snapshot,
        earlier: &crate::catalog::store::Extent,
        query: &str,
        keep_going: &(dyn Fn() -> bool + Sync),
        on_block: impl FnMut(usize, &[Match]),
    ) -> Option<Vec<Match>> {
        let blocks = snapshot.blocks_after(earlier);
        self.run_blocks(snapshot, blocks, query, keep_going, on_block)
    }

    fn run_blocks(
        &self,
        snapshot: &Snapshot,
        blocks: Vec<crate::catalog::store::Block<'_>>,
        query: &str,
        keep_going: &(dyn Fn() -> bool + Sync),
        mut on_block: impl FnMut(usize, &[Match]),
    ) -> Option<Vec<Match>> {
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<(usize, Vec<Match>)>();
        let mut matches = Vec::new();
        let completed = std::thread::scope(|scope| {
            for _ in 0..self.threads.clamp(1, blocks.len().max(1)) {
                let tx = tx.clone();
                let (blocks, next) = (&blocks, &next);
                scope.spawn(move || {
                    let mut scorer = self.kind.scorer(query);
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(block) = blocks.get(i) else { break };
                        if !keep_going() {
                            break;
                        }
                        let mut found = Vec::new();
                        let server = scorer.server(snapshot.server_name(block.server));
                        for (id, item) in block.live() {
                            if let Some(score) = scorer.score(item, &server) {
                                found.push(Match { id, score });
                            }
                        }
                        if tx.send((block.items.len(), found)).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            let mut done = 0;
            let mut scanned = 0;
            for (len, found) in rx {
                done += 1;
                scanned += len;
                matches.extend(found);
                on_block(scanned, &matches);
            }
            done == blocks.len()
        });
        if !completed || !keep_going() {
            return None;
        }
        sort(snapshot, &mut matches);
        Some(matches)
    }

    /// Re-scores only `candidates` (the matches of a query that `query` narrows).
    pub fn narrow(&self, snapshot: &Snapshot, query: &str, candidates: &[Match]) -> Vec<Match> {
        let parts = self.threads.clamp(1, 16);
        let per = candidates.len().div_ceil(parts).max(1024);
        let mut matches: Vec<Match> = std::thread::scope(|scope| {
            let handles: Vec<_> = candidates
                .chunks(per)
                .map(|part| {
                    scope.spawn(move || {
                        let mut scorer = self.kind.scorer(query);
                        let mut servers = ServerCache(Vec::new());
                        part.iter()
                            .filter_map(|m| {
                                let item = snapshot.get(m.id)?;
                                let server = servers.get(&mut scorer, snapshot, m.id.server);
                                let score = scorer.score(item, server)?;
                                Some(Match { id: m.id, score })
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap_or_default())
                .collect()
        });
        sort(snapshot, &mut matches);
        matches
    }

    /// Convenience: a whole search on this thread's terms, with no cancellation.
    pub fn find(&self, snapshot: &Snapshot, query: &str) -> Vec<Match> {
        self.run(snapshot, query, &|| true, |_, _| {})
            .unwrap_or_default()
    }

    /// Matched character positions in `text`, a title, name or URI (or a part of one, such
    /// as a tree row's path segment), for highlighting rows on screen: where each term of
    /// `query` holds in it.
    pub fn highlight(&self, query: &str, text: &str) -> Vec<u32> {
        self.kind.scorer(query).highlight(Field::Name, text)
    }
}

/// Matched character positions per field, each relative to the start of that field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FieldHighlights {
    pub title: Vec<u32>,
    pub name: Vec<u32>,
    pub uri: Vec<u32>,
    pub description: Vec<u32>,
}

impl Search {
    /// Where the query's terms hold in each field of `item`, for drawing highlights.
    /// Computed only for rows on screen.
    pub fn highlight_fields(&self, query: &str, item: &Item) -> FieldHighlights {
        let mut scorer = self.kind.scorer(query);
        FieldHighlights {
            title: scorer.highlight(Field::Title, item.title().unwrap_or("")),
            name: scorer.highlight(Field::Name, item.name()),
            uri: scorer.highlight(Field::Uri, item.uri()),
            description: scorer.highlight(Field::Description, item.description_haystack()),
        }
    }
}

/// Every item, in catalogue order, as the result of an empty query.
fn all(snapshot: &Snapshot) -> Vec<Match> {
    snapshot
        .blocks()
        .iter()
        .flat_map(|b| b.live().map(|(id, _)| Match { id, score: 0 }))
        .collect()
}

/// Best score first; equal scores in catalogue order.
pub fn sort(snapshot: &Snapshot, matches: &mut [Match]) {
    let offsets = snapshot.server_offsets();
    matches.sort_unstable_by_key(|m| {
        let ordinal = offsets[m.id.server as usize] + m.id.index as u64;
        (std::cmp::Reverse(m.score), ordinal)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::store::Catalogue;
    use rmcp::model::Resource;

    fn catalogue(uris: &[&str]) -> Catalogue {
        let mut cat = Catalogue::new();
        let s = cat.server("s");
        let resources: Vec<_> = uris
            .iter()
            .map(|u| Resource::new(*u, u.rsplit('/').next().unwrap()))
            .collect();
        cat.append(s, &resources);
        cat
    }

    #[test]
    fn finds_and_ranks() {
        let cat = catalogue(&[
            "file:///src/main.rs",
            "file:///docs/readme.md",
            "file:///src/mcp/mod.rs",
        ]);
        for kind in [MatcherKind::Nucleo, MatcherKind::Skim] {
            let search = Search { kind, threads: 2 };
            let hits = search.find(&cat.snapshot(), "main");
            assert_eq!(hits.len(), 1, "{kind:?}");
            assert_eq!(cat.get(hits[0].id).unwrap().name(), "main.rs");
            assert!(search.find(&cat.snapshot(), "zzzqqq").is_empty());
            assert_eq!(search.find(&cat.snapshot(), "").len(), 3);
        }
    }

    #[test]
    fn smart_case() {
        let cat = catalogue(&["x://Alpha", "x://alpha"]);
        let search = Search::default();
        assert_eq!(search.find(&cat.snapshot(), "alpha").len(), 2);
        assert_eq!(search.find(&cat.snapshot(), "Alpha").len(), 1);
    }

    #[test]
    fn highlight_positions_point_at_the_query() {
        let search = Search::default();
        let hay = "main.rs file:///src/main.rs";
        let idx = search.highlight("main", hay);
        assert_eq!(idx.len(), 4);
        let chars: Vec<char> = hay.chars().collect();
        let picked: String = idx.iter().map(|&i| chars[i as usize]).collect();
        assert_eq!(picked, "main");
    }

    #[test]
    fn highlights_split_by_field() {
        let mut cat = Catalogue::new();
        let s = cat.server("s");
        cat.append(
            s,
            &[Resource::new("file:///src/main.rs", "main.rs").with_description("entry point")],
        );
        let item = cat
            .get(ItemId {
                server: s,
                index: 0,
            })
            .unwrap();
        let h = Search::default().highlight_fields("main", item);
        assert_eq!(h.name, [0, 1, 2, 3]);
        assert!(h.description.is_empty());
        let h = Search::default().highlight_fields("entry", item);
        assert_eq!(
            h.description,
            [0, 1, 2, 3, 4],
            "description matched when the rest does not"
        );
    }

    #[test]
    fn fuzzy_letters_do_not_scatter_over_scheme_and_authority() {
        let cat = catalogue(&[
            "scheme://records/audit_errors",
            "scheme://records/orders",
            "https://github.com/acme/widgets",
        ]);
        let snap = cat.snapshot();
        for kind in [MatcherKind::Nucleo, MatcherKind::Skim] {
            let search = Search { kind, threads: 2 };
            let uris = |q: &str| {
                let hits = search.find(&snap, q);
                hits.iter()
                    .map(|m| cat.get(m.id).unwrap().uri().to_string())
                    .collect::<Vec<_>>()
            };
            assert_eq!(uris("/order"), ["scheme://records/orders"], "{kind:?}");
            assert_eq!(uris("github"), ["https://github.com/acme/widgets"]);
            assert_eq!(uris("hub.com/acme"), ["https://github.com/acme/widgets"]);
            assert_eq!(uris("acwid"), ["https://github.com/acme/widgets"]);
            assert_eq!(uris("https:wid"), ["https://github.com/acme/widgets"]);
            assert!(
                uris("ghwid").is_empty(),
                "{kind:?}: letters across the authority"
            );
        }
        let item = cat
            .get(ItemId {
                server: 0,
                index: 1,
            })
            .unwrap();
        let h = Search::default().highlight_fields("/order", item);
        assert_eq!(
            h.uri,
            [16, 17, 18, 19, 20, 21],
            "the path's letters, shifted"
        );
        let h = Search::default().highlight_fields("records", item);
        assert_eq!(h.uri, [9, 10, 11, 12, 13, 14, 15], "a run in the authority");
    }

    #[test]
    fn cancelled_search_yields_nothing() {
        let cat = catalogue(&["x://a", "x://b"]);
        let search = Search::default();
        assert!(
            search
                .run(&cat.snapshot(), "a", &|| false, |_, _| {})
                .is_none()
        );
    }

    #[test]
    fn narrowing_rules() {
        let k = MatcherKind::Nucleo;
        assert!(k.narrows("ma", "mai"));
        assert!(!k.narrows("", "m"));
        assert!(!k.narrows("ma", "m"));
        assert!(!k.narrows("ma !x", "ma !xy"));
        assert!(!k.narrows("ma", "ma !"));
        assert!(!k.narrows("ab", "ab:"), "a scheme named: wider");
        assert!(k.narrows("ab:", "ab:/"));
        assert!(
            !k.narrows("ma ", "ma b"),
            "a new word starts: still a subset, but keep it simple"
        );
    }
}
