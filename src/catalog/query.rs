//! The search syntax (fzf's) and what each term matches in a resource.
//!
//! A query is space-separated terms (`\ ` is a literal space); a resource matches when every
//! term holds. Each term applies to the resource as a whole, field by field:
//!
//! | term | holds when |
//! |---|---|
//! | `abc` | fuzzy: the letters in order in the title, name or URI path; or `abc` as one run in the URI, the server name or the description |
//! | `'abc` | `abc` as one run in any field: title, name, URI, server name, description |
//! | `^abc` | the title, name or URI starts with `abc` (the URI with its scheme: `^https`) |
//! | `abc$` | the title, name or URI ends with `abc` |
//! | `^abc$` | the title, name or URI is exactly `abc` |
//! | `!abc`, `!'abc` | no field contains `abc` (title, name, URI, server name, description) |
//! | `!^abc`, `!abc$`, `!^abc$` | no title, name or URI starts with / ends with / is `abc` |
//!
//! A fuzzy term's letters do not scatter over a URI's `scheme://authority` (`/order` would match
//! any `…://…/…errors`): there it holds only as a run, unless it names a scheme (holds a `:`).
//!
//! Smart case per term: a term with an upper-case letter matches case exactly, any other term
//! ignores case; accents are ignored unless the term has one.
//!
//! Ranking: each term counts its best field. A term that holds in the title, name or URI
//! ranks above one that needed the server name, which ranks above one that needed the
//! description; the resource's rank is decided by how many of its terms needed the
//! description, then the server name, then by the matcher's scores. So a match in a title,
//! name or URI always ranks above a description-only match.

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use nucleo_matcher::pattern::{Atom, AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use super::item::Item;

/// A resource field, as far as search is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Title,
    Name,
    Uri,
    /// The name of the server that listed the resource.
    Server,
    Description,
}

impl Field {
    /// Title, name and URI: the fields fuzzy terms and anchors apply to.
    fn is_primary(self) -> bool {
        matches!(self, Field::Title | Field::Name | Field::Uri)
    }
}

/// One parsed term.
#[derive(Debug, Clone)]
struct Term {
    /// Kind, needle and case of the term, never negated (see `negative`).
    atom: Atom,
    negative: bool,
    /// A fuzzy term's needle as a substring: how it matches a server name or a description.
    run: Option<Atom>,
    /// An anchored term's needle as an exact match, and its length in characters.
    anchor: Option<(Atom, usize)>,
    /// The needle as text (escapes resolved), for the skim engine.
    needle: String,
    /// The needle holds a `:`: a fuzzy term that may match across a URI's scheme and
    /// authority (`https:gh`).
    names_scheme: bool,
    /// The needle's length in characters.
    chars: usize,
}

/// A parsed query.
#[derive(Debug, Clone, Default)]
pub struct Query {
    terms: Vec<Term>,
}

impl Query {
    pub fn parse(query: &str) -> Self {
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let terms = pattern
            .atoms
            .into_iter()
            .map(|mut atom| {
                let negative = std::mem::take(&mut atom.negative);
                let needle: String = atom.needle_text().chars().collect();
                let as_kind = |kind| {
                    Atom::new(
                        &needle,
                        CaseMatching::Smart,
                        Normalization::Smart,
                        kind,
                        false,
                    )
                };
                let run = (atom.kind == AtomKind::Fuzzy).then(|| as_kind(AtomKind::Substring));
                let anchor = matches!(
                    atom.kind,
                    AtomKind::Prefix | AtomKind::Postfix | AtomKind::Exact
                )
                .then(|| (as_kind(AtomKind::Exact), atom.needle_text().len()));
                Term {
                    atom,
                    negative,
                    run,
                    anchor,
                    names_scheme: needle.contains(':'),
                    chars: needle.chars().count(),
                    needle,
                }
            })
            .collect();
        Query { terms }
    }

    /// No terms: every resource matches.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// Which fuzzy matcher scores fuzzy terms in titles, names and URIs. (Every other kind of
/// match is a substring, prefix or suffix test, the same for both.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatcherKind {
    /// `nucleo-matcher` (helix's matcher), with Unicode normalisation.
    #[default]
    Nucleo,
    /// `fuzzy-matcher`'s skim algorithm.
    Skim,
}

/// A fuzzy term in a title, name or URI with the skim engine.
fn skim_match(
    skim: &SkimMatcherV2,
    text: &str,
    needle: &str,
    indices: Option<&mut Vec<u32>>,
) -> Option<u16> {
    let clamp = |score: i64| score.clamp(0, i64::from(u16::MAX)) as u16;
    match indices {
        None => skim.fuzzy_match(text, needle).map(clamp),
        Some(out) => {
            let (score, idx) = skim.fuzzy_indices(text, needle)?;
            out.extend(idx.into_iter().map(|i| i as u32));
            Some(clamp(score))
        }
    }
}

/// The byte length of `uri`'s `scheme://authority` (0 when it has no `scheme://`): where its
/// path starts. Reads only the prefix, so it costs nothing per item worth counting.
pub(crate) fn authority_end(uri: &str) -> usize {
    let bytes = uri.as_bytes();
    let scheme = bytes
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b"+-.".contains(&b)));
    let Some(colon) = scheme.filter(|&n| n > 0 && bytes[0].is_ascii_alphabetic()) else {
        return 0;
    };
    if !bytes[colon..].starts_with(b"://") {
        return 0;
    }
    let authority = colon + 3;
    bytes[authority..]
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#'))
        .map_or(bytes.len(), |n| authority + n)
}

/// What a server's name does for each term of a query: computed once per server, not per
/// resource, since every resource of a server shares it.
#[derive(Debug, Clone, Default)]
pub struct ServerHits {
    /// A negative term matches the server name: none of its resources match.
    pub excluded: bool,
    /// Per term, the score of a positive term in the server name.
    scores: Vec<Option<u16>>,
}

/// Scores resources against one query. Not shared between threads: each has its own.
pub struct Scorer {
    query: Query,
    skim: Option<SkimMatcherV2>,
    matcher: Matcher,
    buf: Vec<char>,
}

/// The rank a resource gets: terms that needed the description, then terms that needed the
/// server name, then the sum of the matcher's scores (higher is better).
fn rank(description_terms: u32, server_terms: u32, total: u32) -> u32 {
    let tiers = (description_terms.min(15) << 4) | server_terms.min(15);
    ((255 - tiers) << 24) | total.min(0x00FF_FFFF)
}

impl Scorer {
    pub fn new(kind: MatcherKind, query: &str) -> Self {
        Scorer {
            query: Query::parse(query),
            skim: (kind == MatcherKind::Skim).then(|| SkimMatcherV2::default().smart_case()),
            matcher: Matcher::new(Config::DEFAULT),
            buf: Vec::new(),
        }
    }

    /// Score of term `t` in `text` taken as `field` (ignoring the term's negation).
    fn term_score(&mut self, t: usize, field: Field, text: &str) -> Option<u16> {
        self.matched(t, field, text, None)
    }

    /// Like [`Scorer::term_score`], adding the matched character positions to `out`.
    fn term_indices(&mut self, t: usize, field: Field, text: &str, out: &mut Vec<u32>) -> bool {
        self.matched(t, field, text, Some(out)).is_some()
    }

    fn matched(
        &mut self,
        t: usize,
        field: Field,
        text: &str,
        indices: Option<&mut Vec<u32>>,
    ) -> Option<u16> {
        if text.is_empty() {
            return None;
        }
        let term = &self.query.terms[t];
        if term.atom.kind == AtomKind::Fuzzy && field.is_primary() {
            return if field == Field::Uri && !term.names_scheme {
                self.fuzzy_uri(t, text, indices)
            } else {
                self.fuzzy(t, text, indices)
            };
        }
        let haystack = Utf32Str::new(text, &mut self.buf);
        let (atom, haystack, shift) = match (term.atom.kind, field.is_primary()) {
            (AtomKind::Fuzzy, false) => (term.run.as_ref()?, haystack, 0),
            (AtomKind::Substring, _) => (&term.atom, haystack, 0),
            (_, false) => return None,
            // Anchors: the exact needle on a slice of its length at the start or end.
            // (nucleo-matcher 0.3.1's own prefix and suffix matches compare the whole
            // haystack when the case must match, so `^Project` would never match.)
            (kind, true) => {
                let (exact, n) = term.anchor.as_ref()?;
                let len = haystack.len();
                let start = match kind {
                    AtomKind::Prefix => 0,
                    AtomKind::Postfix => len.checked_sub(*n)?,
                    _ if len == *n => 0,
                    _ => return None,
                };
                if len < start + n {
                    return None;
                }
                (exact, haystack.slice(start..start + n), start as u32)
            }
        };
        match indices {
            None => atom.score(haystack, &mut self.matcher),
            Some(out) => {
                let from = out.len();
                let score = atom.indices(haystack, &mut self.matcher, out)?;
                out[from..].iter_mut().for_each(|i| *i += shift);
                Some(score)
            }
        }
    }

    /// Term `t` (fuzzy) fuzzily in `text`, by the chosen engine.
    fn fuzzy(&mut self, t: usize, text: &str, indices: Option<&mut Vec<u32>>) -> Option<u16> {
        if text.is_empty() {
            return None;
        }
        let term = &self.query.terms[t];
        if let Some(skim) = &self.skim {
            return skim_match(skim, text, &term.needle, indices);
        }
        let haystack = Utf32Str::new(text, &mut self.buf);
        match indices {
            None => term.atom.score(haystack, &mut self.matcher),
            Some(out) => term.atom.indices(haystack, &mut self.matcher, out),
        }
    }

    /// Term `t` (fuzzy) in a URI. Its `scheme://authority` is not where the term's letters
    /// may scatter (`/order` matched `…://…/audit_errors` through the `/` and `r` of `://`
    /// and the authority): the term holds fuzzily in the path, or as one run that starts in
    /// the scheme or authority (`github.com/x`). A term that names a scheme (holds a `:`)
    /// stays fuzzy over the whole URI.
    fn fuzzy_uri(&mut self, t: usize, uri: &str, indices: Option<&mut Vec<u32>>) -> Option<u16> {
        let split = authority_end(uri);
        if split == 0 {
            return self.fuzzy(t, uri, indices);
        }
        let (head, path) = uri.split_at(split);
        // A run that starts in the head ends within the needle's length past it.
        let past = self.query.terms[t].chars.saturating_sub(1);
        let reach = path
            .char_indices()
            .nth(past)
            .map_or(uri.len(), |(i, _)| split + i);
        let Some(out) = indices else {
            let in_path = self.fuzzy(t, path, None);
            return in_path.max(self.run(t, &uri[..reach], None));
        };
        let from = out.len();
        if let Some(score) = self.fuzzy(t, path, Some(out)) {
            let shift = head.chars().count() as u32;
            out[from..].iter_mut().for_each(|i| *i += shift);
            return Some(score);
        }
        self.run(t, &uri[..reach], Some(out))
    }

    /// Term `t` (fuzzy) as one run of its letters in `text`.
    fn run(&mut self, t: usize, text: &str, indices: Option<&mut Vec<u32>>) -> Option<u16> {
        let run = self.query.terms[t].run.as_ref()?;
        let haystack = Utf32Str::new(text, &mut self.buf);
        match indices {
            None => run.score(haystack, &mut self.matcher),
            Some(out) => run.indices(haystack, &mut self.matcher, out),
        }
    }

    /// What the server name `name` does for each term.
    pub fn server(&mut self, name: &str) -> ServerHits {
        let mut hits = ServerHits {
            excluded: false,
            scores: Vec::with_capacity(self.query.terms.len()),
        };
        for t in 0..self.query.terms.len() {
            let score = self.term_score(t, Field::Server, name);
            if self.query.terms[t].negative {
                hits.excluded |= score.is_some();
                hits.scores.push(None);
            } else {
                hits.scores.push(score);
            }
        }
        hits
    }

    /// The rank of `item` (listed by a server with `server` hits), or `None` when some term
    /// does not hold.
    pub fn score(&mut self, item: &Item, server: &ServerHits) -> Option<u32> {
        if server.excluded {
            return None;
        }
        let fields = [
            (Field::Title, item.title().unwrap_or("")),
            (Field::Name, item.name()),
            (Field::Uri, item.uri()),
        ];
        let description = item.description_haystack();
        let (mut in_description, mut in_server, mut total) = (0u32, 0u32, 0u32);
        for t in 0..self.query.terms.len() {
            if self.query.terms[t].negative {
                let hit = fields
                    .iter()
                    .any(|&(field, text)| self.term_score(t, field, text).is_some())
                    || self
                        .term_score(t, Field::Description, description)
                        .is_some();
                if hit {
                    return None;
                }
                continue;
            }
            let mut best = None;
            for &(field, text) in &fields {
                best = best.max(self.term_score(t, field, text));
            }
            let score = match best {
                Some(score) => score,
                None => match server.scores.get(t).copied().flatten() {
                    Some(score) => {
                        in_server += 1;
                        score
                    }
                    None => {
                        in_description += 1;
                        self.term_score(t, Field::Description, description)?
                    }
                },
            };
            total = total.saturating_add(u32::from(score));
        }
        Some(rank(in_description, in_server, total))
    }

    /// Matched character positions (sorted, unique) of every positive term that holds in
    /// `text` taken as `field`, for highlighting.
    pub fn highlight(&mut self, field: Field, text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for t in 0..self.query.terms.len() {
            if !self.query.terms[t].negative {
                let mut found = Vec::new();
                if self.term_indices(t, field, text, &mut found) {
                    out.extend(found);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::item::MimeTable;
    use rmcp::model::Resource;

    fn item(uri: &str, name: &str, title: Option<&str>, description: Option<&str>) -> Item {
        let mut r = Resource::new(uri, name);
        if let Some(t) = title {
            r = r.with_title(t);
        }
        if let Some(d) = description {
            r = r.with_description(d);
        }
        Item::new(&r, &mut MimeTable::default())
    }

    fn score(query: &str, server: &str, item: &Item) -> Option<u32> {
        let mut s = Scorer::new(MatcherKind::Nucleo, query);
        let hits = s.server(server);
        s.score(item, &hits)
    }

    #[test]
    fn every_term_applies_to_the_resource_as_a_whole() {
        let readme = item(
            "file:///project/README.md",
            "README.md",
            Some("Project README"),
            Some("Start here."),
        );
        assert!(score("!readme", "demo", &readme).is_none());
        assert!(score("!start", "demo", &readme).is_none(), "description");
        assert!(score("!dem", "demo", &readme).is_none(), "server name");
        assert!(score("!^file", "demo", &readme).is_none());
        assert!(score("!zzz", "demo", &readme).is_some());
        assert!(score("^file", "demo", &readme).is_some(), "URI with scheme");
        assert!(score("^Project", "demo", &readme).is_some(), "title");
        assert!(score("^README", "demo", &readme).is_some(), "name");
        assert!(score("^project", "demo", &readme).is_some(), "smart case");
        assert!(
            score("^Start", "demo", &readme).is_none(),
            "anchors skip descriptions"
        );
        assert!(score(".md$", "demo", &readme).is_some());
        assert!(score("^README.md$", "demo", &readme).is_some());
        assert!(score("'here", "demo", &readme).is_some());
        assert!(score("'emo", "demo", &readme).is_some(), "exact in server");
        assert!(
            score("^demo", "demo", &readme).is_none(),
            "anchors skip servers"
        );
        assert!(
            score("readme here", "demo", &readme).is_some(),
            "terms ANDed"
        );
        assert!(score("readme zzz", "demo", &readme).is_none());
    }

    #[test]
    fn descriptions_need_a_run_of_the_term_and_rank_last() {
        let described = item("x://a", "a", None, Some("no text of interest"));
        assert!(
            score("note", "s", &described).is_none(),
            "scattered letters"
        );
        assert!(score("text", "s", &described).is_some());
        let named = item("x://b", "text.md", None, None);
        assert!(score("text", "s", &named) > score("text", "s", &described));
        let scattered = item("x://h/t/e/x/t", "q", None, None);
        assert!(
            score("text", "s", &scattered) > score("text", "s", &described),
            "even a weak match in a URI ranks above a description"
        );
    }

    #[test]
    fn server_names_match_and_rank_between() {
        let plain = item("x://a", "a", None, Some("about github"));
        let named = item("x://g", "github.md", None, None);
        assert!(score("github", "github", &plain) > score("github", "other", &plain));
        assert!(score("github", "other", &named) > score("github", "github", &plain));
        assert!(score("ghb", "github", &plain).is_none(), "a run, not fuzzy");
    }

    #[test]
    fn both_engines_highlight_the_field_that_matched() {
        for kind in [MatcherKind::Nucleo, MatcherKind::Skim] {
            let mut s = Scorer::new(kind, "main ^file !zzz");
            assert_eq!(s.highlight(Field::Name, "main.rs"), [0, 1, 2, 3]);
            assert_eq!(s.highlight(Field::Uri, "file:///x"), [0, 1, 2, 3]);
            assert_eq!(s.highlight(Field::Description, "the main"), [4, 5, 6, 7]);
            assert!(
                s.highlight(Field::Description, "file").is_empty(),
                "anchors"
            );
            assert!(s.highlight(Field::Description, "m a i n").is_empty());
        }
    }
}
