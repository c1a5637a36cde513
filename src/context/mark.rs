//! Marks: pin (always include), exclude (never include), or none (left to the policy), on one
//! resource (server + exact URI) or on a URI prefix of one server (`PREFIX*`, which also
//! catches resources that appear later).
//!
//! The most specific mark wins: an exact mark beats every prefix mark, and a longer prefix
//! beats a shorter one. Pin and exclude on the same target replace each other. Every change
//! (one mark, or many at once such as "all search results") is one step of a small undo
//! history.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// What a mark says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mark {
    /// Always included (it skips the audience and minimum-priority filters, not the budget
    /// count: see [`crate::context::resolve`]).
    Pin,
    /// Never included.
    Exclude,
}

impl Mark {
    pub fn name(self) -> &'static str {
        match self {
            Mark::Pin => "pin",
            Mark::Exclude => "exclude",
        }
    }
}

/// What a mark applies to, within one server.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Pattern {
    /// One resource, by its exact URI.
    Exact(String),
    /// Every resource whose URI starts with this text (the empty prefix: the whole server),
    /// including resources that appear later.
    Prefix(String),
}

impl Pattern {
    /// Parses what a person types: `PREFIX*` is a prefix (only a trailing `*` counts), anything
    /// else an exact URI. `exact` forces an exact URI (for a URI that really ends in `*`).
    pub fn parse(text: &str, exact: bool) -> Pattern {
        match text.strip_suffix('*') {
            Some(prefix) if !exact => Pattern::Prefix(prefix.to_string()),
            _ => Pattern::Exact(text.to_string()),
        }
    }

    pub fn matches(&self, uri: &str) -> bool {
        match self {
            Pattern::Exact(exact) => exact == uri,
            Pattern::Prefix(prefix) => uri.starts_with(prefix.as_str()),
        }
    }

    pub fn is_prefix(&self) -> bool {
        matches!(self, Pattern::Prefix(_))
    }

    /// The URI or the prefix, without the `*`.
    pub fn text(&self) -> &str {
        match self {
            Pattern::Exact(s) | Pattern::Prefix(s) => s,
        }
    }
}

impl fmt::Display for Pattern {
    /// As a person types it: the URI, or the prefix followed by `*`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pattern::Exact(uri) => f.write_str(uri),
            Pattern::Prefix(prefix) => write!(f, "{prefix}*"),
        }
    }
}

/// A mark's target: a pattern on one server.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Target {
    pub server: String,
    pub pattern: Pattern,
}

impl Target {
    pub fn exact(server: impl Into<String>, uri: impl Into<String>) -> Self {
        Target {
            server: server.into(),
            pattern: Pattern::Exact(uri.into()),
        }
    }

    pub fn prefix(server: impl Into<String>, prefix: impl Into<String>) -> Self {
        Target {
            server: server.into(),
            pattern: Pattern::Prefix(prefix.into()),
        }
    }

    pub fn matches(&self, server: &str, uri: &str) -> bool {
        self.server == server && self.pattern.matches(uri)
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.server, self.pattern)
    }
}

/// The mark that decides one resource, and where it comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Effective<'a> {
    pub mark: Mark,
    /// The prefix the mark was inherited from; `None` when the resource itself is marked.
    pub prefix: Option<&'a str>,
}

impl Effective<'_> {
    /// True when the mark is on the resource itself (not inherited from a prefix).
    pub fn is_direct(&self) -> bool {
        self.prefix.is_none()
    }
}

/// One server's marks.
#[derive(Debug, Clone, Default, PartialEq)]
struct ServerMarks {
    exact: BTreeMap<String, Mark>,
    prefix: BTreeMap<String, Mark>,
}

impl ServerMarks {
    fn is_empty(&self) -> bool {
        self.exact.is_empty() && self.prefix.is_empty()
    }
}

/// One undo step: each target's mark before the change.
#[derive(Debug, Clone, PartialEq)]
struct Step(Vec<(Target, Option<Mark>)>);

/// Undo steps kept; older ones are forgotten.
pub const UNDO_DEPTH: usize = 100;

/// Every mark of a context set, with an undo history of changes made since it was loaded.
///
/// Iteration ([`Marks::iter`]) is sorted by server, then exact marks before prefix marks,
/// then by text: the order the context-set file uses. Equality compares the marks, not the
/// undo history.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    servers: BTreeMap<String, ServerMarks>,
    history: Vec<Step>,
}

impl PartialEq for Marks {
    fn eq(&self, other: &Self) -> bool {
        self.servers == other.servers
    }
}

impl Marks {
    pub fn new() -> Self {
        Self::default()
    }

    /// The mark set on exactly this target (not an inherited one).
    pub fn get(&self, target: &Target) -> Option<Mark> {
        let server = self.servers.get(&target.server)?;
        match &target.pattern {
            Pattern::Exact(uri) => server.exact.get(uri).copied(),
            Pattern::Prefix(prefix) => server.prefix.get(prefix).copied(),
        }
    }

    /// The mark that decides resource `uri` of `server`: an exact mark, else the longest
    /// marked prefix of the URI, else none.
    pub fn effective(&self, server: &str, uri: &str) -> Option<Effective<'_>> {
        let marks = self.servers.get(server)?;
        if let Some(&mark) = marks.exact.get(uri) {
            return Some(Effective { mark, prefix: None });
        }
        longest_prefix(marks, uri)
    }

    /// Whether any mark is on `server`: when none is, no resource of it needs its URI looked
    /// at (a million in rank order are a million cache misses).
    pub fn on_server(&self, server: &str) -> bool {
        self.servers
            .get(server)
            .is_some_and(|m| !m.exact.is_empty() || !m.prefix.is_empty())
    }

    /// The mark that decides a tree node standing for `prefix`: the mark on that prefix
    /// itself (`prefix: Some(prefix)`), else the longest marked prefix above it.
    pub fn effective_prefix(&self, server: &str, prefix: &str) -> Option<Effective<'_>> {
        longest_prefix(self.servers.get(server)?, prefix)
    }

    /// Sets (`Some`) or clears (`None`) the mark on one target, as one undo step. Returns
    /// whether anything changed.
    pub fn set(&mut self, target: Target, mark: Option<Mark>) -> bool {
        self.set_many([target], mark) > 0
    }

    /// Sets or clears the same mark on many targets (all search results, say) as one undo
    /// step. Returns how many targets changed.
    pub fn set_many(
        &mut self,
        targets: impl IntoIterator<Item = Target>,
        mark: Option<Mark>,
    ) -> usize {
        let mut step = Vec::new();
        for target in targets {
            let before = self.put(&target, mark);
            if before != mark && !step.iter().any(|(t, _)| *t == target) {
                step.push((target, before));
            }
        }
        let changed = step.len();
        if changed > 0 {
            self.history.push(Step(step));
            if self.history.len() > UNDO_DEPTH {
                self.history.remove(0);
            }
        }
        changed
    }

    /// The TUI's key press: sets `mark` on the target, or clears it when the target already
    /// has exactly that mark. Returns the target's mark afterwards.
    pub fn toggle(&mut self, target: Target, mark: Mark) -> Option<Mark> {
        let next = if self.get(&target) == Some(mark) {
            None
        } else {
            Some(mark)
        };
        self.set(target, next);
        next
    }

    /// Undoes the last change (one [`Marks::set`] or [`Marks::set_many`]). Returns the
    /// targets it touched, or `None` when there is nothing to undo.
    pub fn undo(&mut self) -> Option<Vec<Target>> {
        let Step(step) = self.history.pop()?;
        let mut touched = Vec::with_capacity(step.len());
        for (target, before) in step.into_iter().rev() {
            self.put(&target, before);
            touched.push(target);
        }
        Some(touched)
    }

    pub fn can_undo(&self) -> bool {
        !self.history.is_empty()
    }

    /// Takes `other`'s marks (the file as another process saved it), keeping this undo
    /// history: undo still reverts this front end's own steps.
    pub fn adopt(&mut self, other: Marks) {
        self.servers = other.servers;
    }

    /// Forgets the undo history (after loading, say).
    pub fn clear_history(&mut self) {
        self.history.clear();
    }

    /// Sets a mark without recording history; returns the previous one.
    fn put(&mut self, target: &Target, mark: Option<Mark>) -> Option<Mark> {
        let before = self.get(target);
        if before == mark {
            return before;
        }
        let server = self.servers.entry(target.server.clone()).or_default();
        let map = match &target.pattern {
            Pattern::Exact(_) => &mut server.exact,
            Pattern::Prefix(_) => &mut server.prefix,
        };
        let key = target.pattern.text().to_string();
        match mark {
            Some(mark) => {
                map.insert(key, mark);
            }
            None => {
                map.remove(&key);
            }
        }
        if server.is_empty() {
            self.servers.remove(&target.server);
        }
        before
    }

    /// Every mark, in file order (server, exact before prefix, text).
    pub fn iter(&self) -> impl Iterator<Item = (Target, Mark)> + '_ {
        self.servers.iter().flat_map(|(server, marks)| {
            let exact = marks
                .exact
                .iter()
                .map(move |(uri, &m)| (Target::exact(server.as_str(), uri.as_str()), m));
            let prefix = marks
                .prefix
                .iter()
                .map(move |(p, &m)| (Target::prefix(server.as_str(), p.as_str()), m));
            exact.chain(prefix)
        })
    }

    /// Number of marks.
    pub fn len(&self) -> usize {
        self.servers
            .values()
            .map(|s| s.exact.len() + s.prefix.len())
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// (pins, excludes): for the status line.
    pub fn counts(&self) -> (usize, usize) {
        let mut counts = (0, 0);
        for server in self.servers.values() {
            for mark in server.exact.values().chain(server.prefix.values()) {
                match mark {
                    Mark::Pin => counts.0 += 1,
                    Mark::Exclude => counts.1 += 1,
                }
            }
        }
        counts
    }

    /// The servers that have marks, sorted.
    pub fn servers(&self) -> impl Iterator<Item = &str> {
        self.servers.keys().map(String::as_str)
    }

    /// Builds marks from a list (as loaded from a file), with no undo history. A target
    /// listed twice keeps its last mark.
    pub fn from_list(list: impl IntoIterator<Item = (Target, Mark)>) -> Self {
        let mut marks = Marks::new();
        for (target, mark) in list {
            marks.put(&target, Some(mark));
        }
        marks
    }
}

fn longest_prefix<'a>(marks: &'a ServerMarks, uri: &str) -> Option<Effective<'a>> {
    marks
        .prefix
        .iter()
        .filter(|(prefix, _)| uri.starts_with(prefix.as_str()))
        .max_by_key(|(prefix, _)| prefix.len())
        .map(|(prefix, &mark)| Effective {
            mark,
            prefix: Some(prefix.as_str()),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn parse_patterns() {
        assert_eq!(
            Pattern::parse("file:///a/*", false),
            Pattern::Prefix("file:///a/".into())
        );
        assert_eq!(Pattern::parse("*", false), Pattern::Prefix(String::new()));
        assert_eq!(
            Pattern::parse("file:///a*", true),
            Pattern::Exact("file:///a*".into())
        );
        assert_eq!(
            Pattern::parse("x://y", false),
            Pattern::Exact("x://y".into())
        );
        assert_eq!(Pattern::Prefix("a/".into()).to_string(), "a/*");
    }

    #[test]
    fn most_specific_mark_wins() {
        let mut marks = Marks::new();
        marks.set(Target::prefix("s", "file:///p/"), Some(Mark::Pin));
        marks.set(Target::prefix("s", "file:///p/docs/"), Some(Mark::Exclude));
        marks.set(
            Target::exact("s", "file:///p/docs/keep.md"),
            Some(Mark::Pin),
        );
        let eff = |uri: &str| marks.effective("s", uri).map(|e| e.mark);
        assert_eq!(eff("file:///p/src/a.rs"), Some(Mark::Pin));
        assert_eq!(eff("file:///p/docs/x.md"), Some(Mark::Exclude));
        assert_eq!(eff("file:///p/docs/keep.md"), Some(Mark::Pin));
        assert_eq!(eff("file:///q"), None);
        // Another server is not affected.
        assert_eq!(marks.effective("t", "file:///p/src/a.rs"), None);
        let inherited = marks.effective("s", "file:///p/docs/x.md").unwrap();
        assert_eq!(inherited.prefix, Some("file:///p/docs/"));
        assert!(
            marks
                .effective("s", "file:///p/docs/keep.md")
                .unwrap()
                .is_direct()
        );
        assert_eq!(
            marks
                .effective_prefix("s", "file:///p/docs/deep/")
                .unwrap()
                .mark,
            Mark::Exclude
        );
    }

    #[test]
    fn pin_and_exclude_replace_each_other_and_undo() {
        let mut marks = Marks::new();
        let t = Target::exact("s", "u");
        assert!(marks.set(t.clone(), Some(Mark::Pin)));
        assert!(marks.set(t.clone(), Some(Mark::Exclude)));
        assert_eq!(marks.len(), 1);
        assert_eq!(marks.get(&t), Some(Mark::Exclude));
        // Setting the same mark again is no change and no undo step.
        assert!(!marks.set(t.clone(), Some(Mark::Exclude)));
        assert_eq!(marks.undo(), Some(vec![t.clone()]));
        assert_eq!(marks.get(&t), Some(Mark::Pin));
        assert!(marks.undo().is_some());
        assert_eq!(marks.get(&t), None);
        assert!(marks.is_empty());
        assert_eq!(marks.undo(), None);
    }

    #[test]
    fn many_marks_are_one_undo_step_and_toggle_clears() {
        let mut marks = Marks::new();
        marks.set(Target::exact("s", "a"), Some(Mark::Exclude));
        let targets = ["a", "b", "c", "b"].map(|u| Target::exact("s", u));
        assert_eq!(marks.set_many(targets, Some(Mark::Pin)), 3);
        assert_eq!(marks.counts(), (3, 0));
        marks.undo();
        assert_eq!(marks.counts(), (0, 1));
        assert_eq!(marks.toggle(Target::exact("s", "a"), Mark::Exclude), None);
        assert!(marks.is_empty());
        assert_eq!(
            marks.toggle(Target::exact("s", "a"), Mark::Pin),
            Some(Mark::Pin)
        );
    }

    #[test]
    fn iteration_is_sorted_for_the_file() {
        let marks = Marks::from_list([
            (Target::prefix("b", "x"), Mark::Pin),
            (Target::exact("b", "z"), Mark::Pin),
            (Target::exact("a", "y"), Mark::Exclude),
            (Target::exact("b", "a"), Mark::Pin),
        ]);
        let order: Vec<String> = marks.iter().map(|(t, _)| t.to_string()).collect();
        assert_eq!(order, ["a: y", "b: a", "b: z", "b: x*"]);
        assert!(!marks.can_undo());
    }

    fn arb_target() -> impl Strategy<Value = Target> {
        (
            prop::sample::select(vec!["s", "t"]),
            "[ab/]{0,4}",
            any::<bool>(),
        )
            .prop_map(|(server, text, prefix)| {
                if prefix {
                    Target::prefix(server, text)
                } else {
                    Target::exact(server, text)
                }
            })
    }

    fn arb_mark() -> impl Strategy<Value = Option<Mark>> {
        prop::sample::select(vec![None, Some(Mark::Pin), Some(Mark::Exclude)])
    }

    proptest! {
        /// Undoing every change returns to the start, step by step.
        #[test]
        fn undo_restores_every_state(changes in prop::collection::vec(
            prop::collection::vec((arb_target(), arb_mark()), 1..4), 0..20))
        {
            let mut marks = Marks::new();
            let mut states = vec![marks.iter().collect::<Vec<_>>()];
            for change in changes {
                for (target, mark) in &change {
                    // One step per target group: use set_many when the mark is shared.
                    if marks.set(target.clone(), *mark) {
                        states.push(marks.iter().collect());
                    }
                }
            }
            while marks.can_undo() {
                states.pop();
                marks.undo();
                prop_assert_eq!(&marks.iter().collect::<Vec<_>>(), states.last().unwrap());
            }
            prop_assert!(states.len() == 1 || states.len() > UNDO_DEPTH - 1);
        }

        /// The effective mark is the one of the most specific matching target.
        #[test]
        fn effective_is_most_specific(list in prop::collection::vec((arb_target(), arb_mark()), 0..12),
                                      uri in "[ab/]{0,5}")
        {
            let mut marks = Marks::new();
            for (t, m) in list { marks.set(t, m); }
            let expected = marks.iter()
                .filter(|(t, _)| t.matches("s", &uri))
                .max_by_key(|(t, _)| match &t.pattern {
                    Pattern::Exact(_) => usize::MAX,
                    Pattern::Prefix(p) => p.len(),
                })
                .map(|(_, m)| m);
            prop_assert_eq!(marks.effective("s", &uri).map(|e| e.mark), expected);
        }
    }
}
