//! Fuzzy search over title, name, URI and description.
//!
//! A matcher hides behind [`Scorer`] so the engines can be compared in one benchmark run.
//! `nucleo-matcher` is the default: `fuzzy-matcher` is about 3× slower per item and cannot
//! finish a broad query over 100k resources within the 50 ms budget on two cores (figures in
//! the README). Matching runs on every core over the catalogue's chunks; a query that extends
//! the previous one only re-scores the previous matches. Results are ordered by score, ties
//! by catalogue order, so they never depend on thread timing.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use super::item::Item;
use super::store::{ItemId, Snapshot};

/// Which fuzzy matcher scores items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatcherKind {
    /// `nucleo-matcher` (helix's matcher): fzf syntax (`'exact`, `^prefix`, `suffix$`,
    /// `!not`), smart case, Unicode normalisation.
    #[default]
    Nucleo,
    /// `fuzzy-matcher`'s skim algorithm; whitespace separates words that must all match.
    Skim,
}

/// Scores haystacks against one query. Not shared between threads: each has its own.
pub trait Scorer: Send {
    fn score(&mut self, haystack: &str) -> Option<u32>;
    /// Score and the matched character positions (sorted, unique).
    fn indices(&mut self, haystack: &str, out: &mut Vec<u32>) -> Option<u32>;
}

impl MatcherKind {
    pub fn scorer(self, query: &str) -> Box<dyn Scorer> {
        match self {
            MatcherKind::Nucleo => Box::new(NucleoScorer {
                pattern: Pattern::parse(query, CaseMatching::Smart, Normalization::Smart),
                matcher: Matcher::new(Config::DEFAULT),
                buf: Vec::new(),
            }),
            MatcherKind::Skim => Box::new(SkimScorer {
                words: query.split_whitespace().map(str::to_string).collect(),
                matcher: SkimMatcherV2::default().smart_case(),
            }),
        }
    }

    /// Whether every item matching `new` also matches `old`, so a search for `new` may
    /// re-score only `old`'s matches. True when `new` only appends plain characters.
    ///
    /// Only for nucleo: skim's scoring is not monotone (the property tests found an item that
    /// matches `ss/` but not `ss`), so its searches always re-scan.
    pub fn narrows(self, old: &str, new: &str) -> bool {
        if self == MatcherKind::Skim {
            return false;
        }
        let Some(added) = new.strip_prefix(old) else {
            return false;
        };
        !old.is_empty()
            && !old.contains(['!', '\\'])
            && added
                .chars()
                .all(|c| c.is_alphanumeric() || "-_./:".contains(c))
            && !old.ends_with(char::is_whitespace)
            && !old.ends_with(['\'', '^', '$'])
    }
}

struct NucleoScorer {
    pattern: Pattern,
    matcher: Matcher,
    buf: Vec<char>,
}

impl Scorer for NucleoScorer {
    fn score(&mut self, haystack: &str) -> Option<u32> {
        self.pattern
            .score(Utf32Str::new(haystack, &mut self.buf), &mut self.matcher)
    }

    fn indices(&mut self, haystack: &str, out: &mut Vec<u32>) -> Option<u32> {
        out.clear();
        let score = self.pattern.indices(
            Utf32Str::new(haystack, &mut self.buf),
            &mut self.matcher,
            out,
        )?;
        out.sort_unstable();
        out.dedup();
        Some(score)
    }
}

struct SkimScorer {
    words: Vec<String>,
    matcher: SkimMatcherV2,
}

impl Scorer for SkimScorer {
    fn score(&mut self, haystack: &str) -> Option<u32> {
        let mut total: u32 = 0;
        for word in &self.words {
            let s = self.matcher.fuzzy_match(haystack, word)?;
            total = total.saturating_add(s.max(0) as u32);
        }
        Some(total)
    }

    fn indices(&mut self, haystack: &str, out: &mut Vec<u32>) -> Option<u32> {
        out.clear();
        let mut total: u32 = 0;
        for word in &self.words {
            let (s, idx) = self.matcher.fuzzy_indices(haystack, word)?;
            total = total.saturating_add(s.max(0) as u32);
            out.extend(idx.into_iter().map(|i| i as u32));
        }
        out.sort_unstable();
        out.dedup();
        Some(total)
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
        mut on_block: impl FnMut(usize, &[Match]),
    ) -> Option<Vec<Match>> {
        if query.trim().is_empty() {
            return Some(all(snapshot));
        }
        let blocks = snapshot.blocks();
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
                        for (offset, item) in block.items.iter().enumerate() {
                            if let Some(score) = score_item(&mut *scorer, item) {
                                found.push(Match {
                                    id: ItemId {
                                        server: block.server,
                                        index: block.first + offset as u32,
                                    },
                                    score,
                                });
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
                        part.iter()
                            .filter_map(|m| {
                                let item = snapshot.get(m.id)?;
                                let score = score_item(&mut *scorer, item)?;
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

    /// Matched character positions in `haystack`, for highlighting rows on screen.
    pub fn highlight(&self, query: &str, haystack: &str) -> Vec<u32> {
        let mut out = Vec::new();
        self.kind.scorer(query).indices(haystack, &mut out);
        out
    }

    /// Matched character positions in [`Item::haystack`] (as [`score_item`] matched it).
    pub fn highlight_item(&self, query: &str, item: &Item) -> Vec<u32> {
        let mut scorer = self.kind.scorer(query);
        let mut out = Vec::new();
        if scorer.indices(item.primary_haystack(), &mut out).is_some() {
            return out;
        }
        if scorer
            .indices(item.description_haystack(), &mut out)
            .is_some()
        {
            let shift = item.primary_haystack().chars().count() as u32 + 1;
            out.iter_mut().for_each(|i| *i += shift);
            return out;
        }
        Vec::new()
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
    /// Where the query matched in each field of `item`, for drawing highlights. Computed
    /// only for rows on screen.
    pub fn highlight_fields(&self, query: &str, item: &Item) -> FieldHighlights {
        let mut out = FieldHighlights::default();
        if query.trim().is_empty() {
            return out;
        }
        let haystack = item.haystack();
        // Char offsets where each field starts in the haystack.
        let starts: Vec<u32> = item
            .haystack_fields()
            .iter()
            .map(|r| haystack[..r.start].chars().count() as u32)
            .collect();
        let lens: Vec<u32> = item
            .haystack_fields()
            .iter()
            .map(|r| haystack[r.clone()].chars().count() as u32)
            .collect();
        for pos in self.highlight_item(query, item) {
            for (f, (&start, &len)) in starts.iter().zip(&lens).enumerate() {
                if pos >= start && pos < start + len {
                    let field = match f {
                        0 => &mut out.title,
                        1 => &mut out.name,
                        2 => &mut out.uri,
                        _ => &mut out.description,
                    };
                    field.push(pos - start);
                }
            }
        }
        out
    }
}

/// An item's score: its title, name and uri first; its description only when those miss.
pub fn score_item(scorer: &mut dyn Scorer, item: &Item) -> Option<u32> {
    scorer
        .score(item.primary_haystack())
        .or_else(|| scorer.score(item.description_haystack()))
}

/// Every item, in catalogue order, as the result of an empty query.
fn all(snapshot: &Snapshot) -> Vec<Match> {
    snapshot
        .blocks()
        .iter()
        .flat_map(|b| {
            (0..b.items.len()).map(move |i| Match {
                id: ItemId {
                    server: b.server,
                    index: b.first + i as u32,
                },
                score: 0,
            })
        })
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
        assert!(
            !k.narrows("ma ", "ma b"),
            "a new word starts: still a subset, but keep it simple"
        );
    }
}
