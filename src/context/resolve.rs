//! Resolution: from the catalogue, the marks, the policy and whatever is known about token
//! counts to the [`Preview`]: what the agent receives, in order, where the budget cuts, and
//! what was left out and why. One pure function ([`resolve`]); the TUI's agent view and
//! `mcpick preview` both call it, so they cannot disagree.
//!
//! # Rules
//!
//! 1. An excluded resource (its own mark, or the longest marked prefix) is left out:
//!    `excluded`.
//! 2. A pinned resource skips the audience and minimum-priority filters.
//! 3. An unmarked resource is left out when its `audience` does not pass the policy's filter
//!    (`audience`; no annotation passes), or when its priority (or
//!    [`DEFAULT_PRIORITY`](super::policy::DEFAULT_PRIORITY)) is below the minimum
//!    (`under minimum priority`).
//! 4. A resource whose read failed is left out: `read failed` (pinned or not).
//! 5. The rest is ranked: pinned first, then by the rank key ([`super::ranking`]): priority
//!    high→low, then `lastModified` new→old (none last), then name, server, URI, then
//!    catalogue order. The key depends only on the resource and "pinned first" is a stable
//!    partition of its order, so a front end that keeps the key's order across changes
//!    ([`super::ranking::RankOrder`], the browser) hands the candidates over in it and
//!    resolution only walks them; the others hand them over in catalogue order and they are
//!    sorted by the same key first. Both give the same [`Preview`].
//! 6. A mark on a server that could not be listed ([`Input::unavailable`]) and that no
//!    candidate answers is reported as [`Unavailable`] (`server unavailable`, with the
//!    server's error): every mark shows somewhere, in `included`, `leftOut` or `missing`.
//! 7. The budget is spent in that order. Pinned resources count against it, and are always
//!    included, even when pins alone exceed it ([`Preview::pins_over_budget`] says so, and
//!    then no unpinned resource is included). For unpinned resources the budget is a cut
//!    line: the first one that does not fit, and every one after it, is `over budget` (a
//!    smaller resource further down is not pulled up over the line).
//!
//! Token counts come from [`Measures`]: a counted read, or a failed one. A resource not
//! measured yet is estimated from its `size` ([`super::tokens::estimate`]) and flagged as
//! estimated. [`Preview::to_measure`] names the resources whose reads would make the preview
//! exact; reading them and resolving again converges (the set of measured resources only
//! grows).

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;

use super::mark::{Mark, Marks, Pattern, Target};
use super::policy::Policy;
use super::ranking::{self, Keyed, sort_keyed};
use super::tokens::{self, TokenizerKind};
use crate::catalog::{Catalogue, Item, ItemId, Snapshot};

/// One resource as resolution sees it: its catalogue item, borrowed. Small on purpose (a
/// browser resolves a million of them at once): the fields are read through the item.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate<'a> {
    /// Where it is in the catalogue (tests may invent ids).
    pub id: ItemId,
    pub server: &'a str,
    pub item: &'a Item,
    /// For an expansion ([`super::expansion`]): the template it matches.
    pub expansion_of: Option<&'a str>,
}

impl<'a> Candidate<'a> {
    pub fn from_item(id: ItemId, server: &'a str, item: &'a Item) -> Self {
        Candidate {
            id,
            server,
            item,
            expansion_of: None,
        }
    }

    pub fn uri(&self) -> &'a str {
        self.item.uri()
    }

    /// The name shown: title, else name.
    pub fn name(&self) -> &'a str {
        self.item.display_name()
    }

    pub fn priority(&self) -> Option<f32> {
        self.item.priority()
    }

    /// Audience bits (`catalog::item::AUDIENCE_*`); `None` when not annotated.
    pub fn audience(&self) -> Option<u8> {
        self.item.audience()
    }

    pub fn modified_ms(&self) -> Option<i64> {
        self.item.modified_ms()
    }

    pub fn size(&self) -> Option<u64> {
        self.item.size()
    }
}

/// Every resource of the catalogue as candidates, in catalogue order.
pub fn candidates(catalogue: &Catalogue) -> Vec<Candidate<'_>> {
    catalogue
        .iter()
        .map(|(id, item)| Candidate::from_item(id, catalogue.server_name(id.server), item))
        .collect()
}

/// Every resource of a catalogue snapshot as candidates, in catalogue order: the same list as
/// [`candidates`] gives for the catalogue the snapshot was taken from (`names`: the server
/// names by id). The TUI resolves on a snapshot, off its UI thread.
pub fn candidates_in<'a>(snapshot: &'a Snapshot, names: &'a [Arc<str>]) -> Vec<Candidate<'a>> {
    let mut out = Vec::with_capacity(snapshot.len());
    for block in snapshot.blocks() {
        let server: &str = names.get(block.server as usize).map_or("", |n| n);
        out.extend(
            block
                .live()
                .map(|(id, item)| Candidate::from_item(id, server, item)),
        );
    }
    out
}

/// What is known about one resource's tokens after trying to read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Measure {
    /// Read; its agent text (see [`super::content::agent_text`]) counts this many tokens.
    Counted(u64),
    /// The read failed (or the server said "not found"); the reason, for people.
    Failed(String),
}

/// Token measures by server and URI.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measures {
    by_server: HashMap<String, HashMap<String, Measure>>,
}

impl Measures {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, server: &str, uri: &str, measure: Measure) {
        self.by_server
            .entry(server.to_string())
            .or_default()
            .insert(uri.to_string(), measure);
    }

    pub fn get(&self, server: &str, uri: &str) -> Option<&Measure> {
        self.by_server.get(server)?.get(uri)
    }

    /// Forgets a resource's measure (its content changed).
    pub fn remove(&mut self, server: &str, uri: &str) {
        if let Some(map) = self.by_server.get_mut(server) {
            map.remove(uri);
        }
    }

    /// Forgets every measure (the tokenizer changed).
    pub fn clear(&mut self) {
        self.by_server.clear();
    }
}

/// Everything resolution looks at.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Input<'a> {
    pub candidates: &'a [Candidate<'a>],
    /// Servers whose listing completed: a mark on one of them that matches no resource is
    /// reported as missing. Marks on other servers (failed, still listing) are not.
    pub listed: &'a [&'a str],
    /// Servers that could not be connected or listed, with why: their marks are reported
    /// as [`Unavailable`].
    pub unavailable: &'a [(&'a str, &'a str)],
    pub marks: &'a Marks,
    pub policy: &'a Policy,
    pub measures: &'a Measures,
    /// The candidates are in rank-key order already ([`super::ranking::RankOrder`]), so
    /// resolution only walks them; otherwise they are in catalogue order and ranked first.
    pub ranked: bool,
}

/// Why a resource is not handed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "reason", content = "detail")]
pub enum Reason {
    /// Below the cut line.
    OverBudget,
    /// Reading it failed; the detail says why.
    ReadFailed(Box<str>),
    /// Excluded by a mark.
    Excluded,
    /// Its `audience` does not pass the policy's audience filter.
    Audience,
    /// Its priority is below the policy's minimum.
    UnderMinPriority,
    /// Within the budget, but past what a host's session-start channel carries; the detail
    /// names the limit and where the resource can still be reached ([`crate::deliver`]).
    HostLimit(Box<str>),
}

impl Reason {
    /// The short name used in JSON and text output.
    pub fn name(&self) -> &'static str {
        match self {
            Reason::OverBudget => "over budget",
            Reason::ReadFailed(_) => "read failed",
            Reason::Excluded => "excluded",
            Reason::Audience => "audience",
            Reason::UnderMinPriority => "under minimum priority",
            Reason::HostLimit(_) => "host limit",
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Reason::OverBudget => 0,
            Reason::ReadFailed(_) => 1,
            Reason::Excluded => 2,
            Reason::Audience => 3,
            Reason::UnderMinPriority => 4,
            Reason::HostLimit(_) => 5,
        }
    }
}

/// One resource the agent receives.
#[derive(Debug, Clone, PartialEq)]
pub struct Included {
    /// Index into [`Input::candidates`].
    pub index: usize,
    pub tokens: u64,
    /// True while the count is an estimate from `size` (not read yet).
    pub estimated: bool,
    /// Tokens of this and every resource before it.
    pub running_total: u64,
    pub pinned: bool,
    /// The priority used for ranking (the resource's, or the default).
    pub priority: f32,
    /// True when the resource has no priority and the default was used.
    pub priority_defaulted: bool,
}

/// One resource the agent does not receive.
#[derive(Debug, Clone, PartialEq)]
pub struct LeftOut {
    /// Index into [`Input::candidates`].
    pub index: u32,
    pub reason: Reason,
    /// Its tokens when known or estimated (only for `over budget`).
    pub tokens: Option<u64>,
    pub estimated: bool,
}

/// A mark that matches no resource of a server that was listed completely. Kept in the set,
/// shown as missing.
#[derive(Debug, Clone, PartialEq)]
pub struct Missing {
    pub target: Target,
    pub mark: Mark,
}

/// A mark on a server that could not be connected or listed: the agent gets nothing for it
/// this time. Shown with the left-out resources (`server unavailable`).
#[derive(Debug, Clone, PartialEq)]
pub struct Unavailable {
    pub target: Target,
    pub mark: Mark,
    /// The server's error.
    pub error: String,
}

impl Unavailable {
    /// The reason's short name, as [`Reason::name`].
    pub const REASON: &'static str = "server unavailable";
}

/// What the agent would receive.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub budget: Option<u64>,
    pub tokenizer: TokenizerKind,
    /// In the order the agent receives them.
    pub included: Vec<Included>,
    /// Tokens of everything included.
    pub total_tokens: u64,
    /// Over budget first (in rank order, right below the cut line), then read failed,
    /// excluded, audience, under minimum priority (each in rank-key order, pins not put
    /// first: what the ranking would be if nothing were marked).
    pub left_out: Vec<LeftOut>,
    /// Pinned resources alone need more than the budget (they are all included anyway).
    pub pins_over_budget: bool,
    pub missing: Vec<Missing>,
    /// Marks on servers that could not be listed (pins first).
    pub unavailable: Vec<Unavailable>,
}

impl Preview {
    /// True when the budget cut something off: the cut line is drawn after `included`.
    pub fn has_cut(&self) -> bool {
        self.left_out
            .first()
            .is_some_and(|l| l.reason == Reason::OverBudget)
    }

    /// True when any included count is an estimate.
    pub fn is_estimated(&self) -> bool {
        self.included.iter().any(|i| i.estimated)
    }

    /// Candidates (indices) whose read would make the preview exact: every included
    /// resource not measured yet, and the first over-budget one if not measured (its real
    /// count may fit). Read them, record [`Measures`], resolve again; repeat until empty.
    pub fn to_measure(&self) -> Vec<usize> {
        let mut list: Vec<usize> = self
            .included
            .iter()
            .filter(|i| i.estimated)
            .map(|i| i.index)
            .collect();
        if let Some(first) = self.left_out.first()
            && first.reason == Reason::OverBudget
            && first.estimated
        {
            list.push(first.index as usize);
        }
        list
    }

    /// What a browser reads, at most, to show this preview: with a budget, everything
    /// [`Preview::to_measure`] names (the cut line depends on it); with no budget there is no
    /// cut line to place, so only the estimated included rows in `shown` (rows on screen, or
    /// asked for) are read and every other count stays an estimate from `size`. A million
    /// resources cost a screenful of reads, not a million.
    pub fn to_measure_shown(&self, shown: std::ops::Range<usize>) -> Vec<usize> {
        if self.budget.is_some() {
            return self.to_measure();
        }
        let end = shown.end.min(self.included.len());
        let start = shown.start.min(end);
        self.included[start..end]
            .iter()
            .filter(|i| i.estimated)
            .map(|i| i.index)
            .collect()
    }

    /// (tokens used, budget) for a budget meter.
    pub fn meter(&self) -> (u64, Option<u64>) {
        (self.total_tokens, self.budget)
    }
}

/// Why the set leaves a resource out before any budget: its mark (`effective` for a resource,
/// `effective_prefix` for a template's literal part) and the policy's audience and minimum
/// priority, which a pin overrides. `None`: the set allows it. The one rule `resolve` and
/// `wrap`'s proxy share.
pub fn filtered(
    mark: Option<Mark>,
    policy: &Policy,
    priority: Option<f32>,
    audience: Option<u8>,
) -> Option<Reason> {
    let pinned = mark == Some(Mark::Pin);
    if mark == Some(Mark::Exclude) {
        Some(Reason::Excluded)
    } else if !pinned && !policy.audience.admits(audience) {
        Some(Reason::Audience)
    } else if !pinned
        && policy
            .min_priority
            .is_some_and(|min| Policy::priority(priority) < min)
    {
        Some(Reason::UnderMinPriority)
    } else {
        None
    }
}

/// Resolves what the agent receives. Pure: no I/O, no clock. See the module documentation
/// for the rules.
pub(crate) fn resolve(input: &Input) -> Preview {
    let candidates = input.candidates;
    assert!(
        candidates.len() < Ranked::FLAGS as usize,
        "more candidates than resolution ranks"
    );
    if input.ranked {
        return walk(input, 0..candidates.len());
    }
    // Catalogue order: ranked by the same key first (ties in the order given), so that the
    // walk sees what it would see over the same candidates already ranked.
    let mut keyed: Vec<Keyed> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| Keyed::new(i as u32, c.item))
        .collect();
    sort_keyed(&mut keyed, &Cell::new(0), |a, b| {
        let (a, b) = (&candidates[a as usize], &candidates[b as usize]);
        ranking::compare((a.server, a.item), (b.server, b.item))
    });
    walk(input, keyed.iter().map(|k| k.at as usize))
}

/// Resolution over the candidates taken in rank-key order (`order`: their indices): pinned
/// ones first (a stable partition), the budget spent in that order, and every left-out one
/// in that order within its reason.
fn walk(input: &Input, order: impl Iterator<Item = usize>) -> Preview {
    let (policy, candidates) = (input.policy, input.candidates);
    // Sized for the worst case: the pages never written are not resident.
    let mut ranked = Vec::with_capacity(candidates.len());
    let mut pins = Vec::new();
    // By reason (read failed, excluded, audience, under minimum priority), each in order.
    let mut filtered_out: [Vec<LeftOut>; 4] = Default::default();
    for index in order {
        let c = &candidates[index];
        let mark = input.marks.effective(c.server, c.uri()).map(|e| e.mark);
        let pinned = mark == Some(Mark::Pin);
        let priority = Policy::priority(c.priority());
        let reason = filtered(mark, policy, c.priority(), c.audience());
        let measure = input.measures.get(c.server, c.uri());
        let reason = reason.or_else(|| match measure {
            Some(Measure::Failed(why)) => Some(Reason::ReadFailed(why.as_str().into())),
            _ => None,
        });
        if let Some(reason) = reason {
            let bucket = usize::from(reason.rank() - 1).min(filtered_out.len() - 1);
            filtered_out[bucket].push(LeftOut {
                index: index as u32,
                reason,
                tokens: None,
                estimated: false,
            });
            continue;
        }
        let (tokens, estimated) = match measure {
            Some(Measure::Counted(n)) => (*n, false),
            _ => (tokens::estimate(c.size()), true),
        };
        let r = Ranked::new(index, pinned, estimated, priority, tokens);
        if pinned {
            pins.push(r);
        } else {
            ranked.push(r);
        }
    }

    let filtered: usize = filtered_out.iter().map(Vec::len).sum();
    let mut included = Vec::with_capacity(pins.len() + ranked.len());
    let mut left_out = Vec::with_capacity(if policy.budget.is_some() {
        ranked.len() + filtered
    } else {
        filtered
    });
    let mut total: u64 = 0;
    let mut cut = false;
    let mut pins_over_budget = false;
    for r in pins.iter().chain(&ranked) {
        let fits = policy
            .budget
            .is_none_or(|budget| total.saturating_add(r.tokens) <= budget);
        if r.pinned() || (fits && !cut) {
            if r.pinned() && !fits {
                pins_over_budget = true;
            }
            total = total.saturating_add(r.tokens);
            included.push(Included {
                index: r.at(),
                tokens: r.tokens,
                estimated: r.estimated(),
                running_total: total,
                pinned: r.pinned(),
                priority: r.priority,
                priority_defaulted: candidates[r.at()].priority().is_none(),
            });
        } else {
            cut = true;
            left_out.push(LeftOut {
                index: r.at() as u32,
                reason: Reason::OverBudget,
                tokens: Some(r.tokens),
                estimated: r.estimated(),
            });
        }
    }
    drop((pins, ranked));
    left_out.extend(filtered_out.into_iter().flatten());
    included.shrink_to_fit();
    left_out.shrink_to_fit();

    Preview {
        budget: policy.budget,
        tokenizer: policy.tokenizer,
        included,
        total_tokens: total,
        left_out,
        pins_over_budget,
        missing: missing(input),
        unavailable: unavailable(input),
    }
}

/// One candidate being ranked. A browser ranks a million at once: 16 bytes each, sorted in
/// place; the flags sit in the index's top bits.
#[derive(Clone, Copy)]
struct Ranked {
    index_and_flags: u32,
    priority: f32,
    tokens: u64,
}

impl Ranked {
    const PINNED: u32 = 1 << 31;
    const ESTIMATED: u32 = 1 << 30;
    /// Indexes stay below this (the flags' bits).
    const FLAGS: u32 = Self::ESTIMATED;

    fn new(index: usize, pinned: bool, estimated: bool, priority: f32, tokens: u64) -> Self {
        let mut index_and_flags = index as u32;
        if pinned {
            index_and_flags |= Self::PINNED;
        }
        if estimated {
            index_and_flags |= Self::ESTIMATED;
        }
        Ranked {
            index_and_flags,
            priority,
            tokens,
        }
    }

    /// The candidate's index.
    fn at(&self) -> usize {
        (self.index_and_flags & !(Self::PINNED | Self::ESTIMATED)) as usize
    }

    fn pinned(&self) -> bool {
        self.index_and_flags & Self::PINNED != 0
    }

    fn estimated(&self) -> bool {
        self.index_and_flags & Self::ESTIMATED != 0
    }
}

/// Marks of unavailable servers that no candidate answers (a server that failed part way
/// through its listing may have some), pins first.
pub(crate) fn unavailable(input: &Input) -> Vec<Unavailable> {
    let mut out: Vec<Unavailable> = input
        .marks
        .iter()
        .filter_map(|(target, mark)| {
            let (_, error) = input
                .unavailable
                .iter()
                .find(|(server, _)| *server == target.server)?;
            let answered = input
                .candidates
                .iter()
                .any(|c| c.server == target.server && target.pattern.matches(c.uri()));
            (!answered).then(|| Unavailable {
                target,
                mark,
                error: error.to_string(),
            })
        })
        .collect();
    out.sort_by_key(|u| u.mark != Mark::Pin);
    out
}

/// Marks of listed servers that match no candidate.
pub(crate) fn missing(input: &Input) -> Vec<Missing> {
    input
        .marks
        .iter()
        .filter(|(target, _)| input.listed.contains(&target.server.as_str()))
        .filter(|(target, _)| {
            !input.candidates.iter().any(|c| {
                c.server == target.server
                    && match &target.pattern {
                        Pattern::Exact(uri) => c.uri() == uri,
                        Pattern::Prefix(prefix) => c.uri().starts_with(prefix.as_str()),
                    }
            })
        })
        .map(|(target, mark)| Missing { target, mark })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::item::{AUDIENCE_ASSISTANT, AUDIENCE_USER};
    use crate::context::policy::Audience;
    use proptest::prelude::*;

    fn cand<'a>(
        i: u32,
        uri: &'a str,
        priority: Option<f32>,
        audience: Option<u8>,
        modified: Option<i64>,
        size: u64,
    ) -> Candidate<'a> {
        let item = Item::ranked(uri, uri, priority, audience, modified, Some(size));
        let id = ItemId {
            server: 0,
            index: i,
        };
        Candidate::from_item(id, "s", Box::leak(Box::new(item)))
    }

    /// A browser resolves a million candidates at once (issue 22's memory budgets): these
    /// sizes are what one costs while it does, and what its preview keeps.
    #[test]
    fn what_a_million_candidates_cost_stays_small() {
        use std::mem::size_of;
        assert_eq!(size_of::<Candidate>(), 48);
        assert_eq!(size_of::<Ranked>(), 16);
        assert_eq!(size_of::<Included>(), 32);
        assert_eq!(size_of::<LeftOut>(), 48);
    }

    #[test]
    fn ranked_flags_do_not_touch_the_index() {
        let max = (Ranked::FLAGS - 1) as usize;
        for (pinned, estimated) in [(false, false), (true, false), (false, true), (true, true)] {
            let r = Ranked::new(max, pinned, estimated, 0.5, 7);
            assert_eq!(
                (r.at(), r.pinned(), r.estimated()),
                (max, pinned, estimated)
            );
        }
    }

    fn run(c: &[Candidate], marks: &Marks, policy: &Policy, measures: &Measures) -> Preview {
        resolve(&Input {
            candidates: c,
            listed: &["s"],
            unavailable: &[("down", "connection refused")],
            marks,
            policy,
            measures,
            ranked: false,
        })
    }

    fn uris<'a>(c: &[Candidate<'a>], p: &Preview) -> Vec<&'a str> {
        p.included.iter().map(|i| c[i.index].uri()).collect()
    }

    fn reason_of(c: &[Candidate], p: &Preview, uri: &str) -> Option<Reason> {
        p.left_out
            .iter()
            .find(|l| c[l.index as usize].uri() == uri)
            .map(|l| l.reason.clone())
    }

    #[test]
    fn order_is_pinned_priority_recency_name() {
        let c = [
            cand(0, "low", Some(0.1), None, None, 40),
            cand(1, "high-old", Some(0.9), None, Some(1), 40),
            cand(2, "high-new", Some(0.9), None, Some(2), 40),
            cand(3, "default-b", None, None, None, 40),
            cand(4, "default-a", None, None, None, 40),
            cand(5, "pinned-low", Some(0.0), None, None, 40),
            cand(6, "high-undated", Some(0.9), None, None, 40),
        ];
        let marks = Marks::from_list([(Target::exact("s", "pinned-low"), Mark::Pin)]);
        let p = run(&c, &marks, &Policy::default(), &Measures::new());
        assert_eq!(
            uris(&c, &p),
            [
                "pinned-low",
                "high-new",
                "high-old",
                "high-undated",
                "default-a",
                "default-b",
                "low"
            ]
        );
        assert!(p.included[0].pinned);
        assert!(p.included[4].priority_defaulted);
        assert_eq!(p.included[4].priority, 0.5);
        assert_eq!(p.total_tokens, 70);
        assert_eq!(p.included[6].running_total, 70);
        assert!(p.is_estimated());
        assert!(p.left_out.is_empty());
    }

    #[test]
    fn filters_and_reasons() {
        let c = [
            cand(0, "user-only", Some(0.9), Some(AUDIENCE_USER), None, 4),
            cand(1, "assistant", Some(0.9), Some(AUDIENCE_ASSISTANT), None, 4),
            cand(2, "unannotated", None, None, None, 4),
            cand(3, "low", Some(0.1), None, None, 4),
            cand(4, "x/excluded", Some(1.0), None, None, 4),
            cand(
                5,
                "pinned-user-low",
                Some(0.0),
                Some(AUDIENCE_USER),
                None,
                4,
            ),
            cand(6, "broken", Some(1.0), None, None, 4),
            cand(7, "x/pinned-but-broken", Some(1.0), None, None, 4),
        ];
        let marks = Marks::from_list([
            (Target::prefix("s", "x/"), Mark::Exclude),
            (Target::exact("s", "pinned-user-low"), Mark::Pin),
            (Target::exact("s", "x/pinned-but-broken"), Mark::Pin),
            (Target::exact("s", "gone"), Mark::Pin),
            (Target::prefix("s", "nothing/"), Mark::Exclude),
            (Target::exact("other", "gone-too"), Mark::Pin),
        ]);
        let policy = Policy {
            min_priority: Some(0.3),
            ..Policy::default()
        };
        let mut measures = Measures::new();
        measures.insert("s", "broken", Measure::Failed("boom".into()));
        measures.insert("s", "x/pinned-but-broken", Measure::Failed("gone".into()));
        measures.insert("s", "assistant", Measure::Counted(7));
        let p = run(&c, &marks, &policy, &measures);
        assert_eq!(
            uris(&c, &p),
            ["pinned-user-low", "assistant", "unannotated"]
        );
        assert!(!p.included[1].estimated);
        assert_eq!(p.included[1].tokens, 7);
        assert_eq!(reason_of(&c, &p, "user-only"), Some(Reason::Audience));
        assert_eq!(reason_of(&c, &p, "low"), Some(Reason::UnderMinPriority));
        assert_eq!(reason_of(&c, &p, "x/excluded"), Some(Reason::Excluded));
        assert_eq!(
            reason_of(&c, &p, "broken"),
            Some(Reason::ReadFailed("boom".into()))
        );
        assert!(matches!(
            reason_of(&c, &p, "x/pinned-but-broken"),
            Some(Reason::ReadFailed(_))
        ));
        // Ordered by reason.
        let ranks: Vec<u8> = p.left_out.iter().map(|l| l.reason.rank()).collect();
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{ranks:?}");
        // Missing marks: only for the listed server, prefix marks included.
        let missing: Vec<String> = p.missing.iter().map(|m| m.target.to_string()).collect();
        assert_eq!(missing, ["s: gone", "s: nothing/*"]);

        let any = Policy {
            audience: Audience::Any,
            ..Policy::default()
        };
        let p = run(&c, &marks, &any, &measures);
        assert!(uris(&c, &p).contains(&"user-only"));
        assert!(uris(&c, &p).contains(&"low"));
        let user = Policy {
            audience: Audience::User,
            ..Policy::default()
        };
        let p = run(&c, &marks, &user, &measures);
        assert_eq!(reason_of(&c, &p, "assistant"), Some(Reason::Audience));
        assert!(uris(&c, &p).contains(&"unannotated"));
    }

    #[test]
    fn budget_is_a_cut_line_and_pins_always_go_in() {
        let c = [
            cand(0, "a", Some(0.9), None, None, 400), // 100 tokens
            cand(1, "b", Some(0.8), None, None, 800), // 200
            cand(2, "c", Some(0.7), None, None, 4),   // 1: does not jump the line
            cand(3, "p", Some(0.1), None, None, 200), // 50, pinned
        ];
        let marks = Marks::from_list([(Target::exact("s", "p"), Mark::Pin)]);
        let policy = Policy {
            budget: Some(200),
            ..Policy::default()
        };
        let p = run(&c, &marks, &policy, &Measures::new());
        assert_eq!(uris(&c, &p), ["p", "a"]);
        assert_eq!(p.total_tokens, 150);
        assert!(p.has_cut());
        assert!(!p.pins_over_budget);
        assert_eq!(reason_of(&c, &p, "b"), Some(Reason::OverBudget));
        assert_eq!(reason_of(&c, &p, "c"), Some(Reason::OverBudget));
        assert_eq!(p.left_out[0].tokens, Some(200));
        // to_measure: both included (estimated) and the first below the line.
        assert_eq!(p.to_measure(), [3, 0, 1]);

        // A real count that is smaller lets more in.
        let mut measures = Measures::new();
        measures.insert("s", "b", Measure::Counted(40));
        measures.insert("s", "a", Measure::Counted(100));
        measures.insert("s", "p", Measure::Counted(50));
        let p = run(&c, &marks, &policy, &measures);
        assert_eq!(uris(&c, &p), ["p", "a", "b", "c"]);
        assert_eq!(p.total_tokens, 191);
        assert!(!p.has_cut());
        assert_eq!(p.to_measure(), [2]);

        // Pins alone over the budget: all pins in, nothing else, flagged.
        let tight = Policy {
            budget: Some(10),
            ..Policy::default()
        };
        let marks = Marks::from_list([
            (Target::exact("s", "p"), Mark::Pin),
            (Target::exact("s", "a"), Mark::Pin),
        ]);
        let p = run(&c, &marks, &tight, &measures);
        assert_eq!(uris(&c, &p), ["a", "p"]);
        assert!(p.pins_over_budget);
        assert_eq!(p.total_tokens, 150);
        assert_eq!(p.left_out.len(), 2);
    }

    #[test]
    fn marks_on_an_unavailable_server_are_reported() {
        let c = [cand(0, "here", None, None, None, 4)];
        let marks = Marks::from_list([
            (Target::exact("down", "file:///a"), Mark::Exclude),
            (Target::exact("down", "file:///b"), Mark::Pin),
            (Target::prefix("down", "file:///docs/"), Mark::Pin),
            (Target::exact("s", "here"), Mark::Pin),
            (Target::exact("elsewhere", "x"), Mark::Pin),
        ]);
        let p = run(&c, &marks, &Policy::default(), &Measures::new());
        let shown: Vec<String> = p
            .unavailable
            .iter()
            .map(|u| format!("{} {} {}", u.mark.name(), u.target, u.error))
            .collect();
        assert_eq!(
            shown,
            [
                "pin down: file:///b connection refused",
                "pin down: file:///docs/* connection refused",
                "exclude down: file:///a connection refused",
            ]
        );
        assert!(p.missing.is_empty());
        assert_eq!(p.included.len(), 1);
    }

    proptest! {
        /// Whatever the input: every candidate is placed exactly once, totals add up, the
        /// budget holds for unpinned resources, and order respects the ranking.
        #[test]
        fn preview_invariants(
            items in prop::collection::vec(
                (prop::option::of(0.0f32..=1.0), prop::option::of(0u8..4),
                 prop::option::of(0i64..5), 0u64..400, any::<bool>(), 0u8..3), 0..40),
            budget in prop::option::of(0u64..600),
            min in prop::option::of(0.0f32..=1.0),
        ) {
            let names: Vec<String> = (0..items.len()).map(|i| format!("r{i:02}")).collect();
            let c: Vec<Candidate> = items.iter().enumerate().map(|(i, (p, a, m, size, _, _))| {
                cand(i as u32, &names[i], *p, *a, *m, *size)
            }).collect();
            let marks = Marks::from_list(items.iter().enumerate().filter_map(|(i, it)| {
                match it.5 { 1 => Some(Mark::Pin), 2 => Some(Mark::Exclude), _ => None }
                    .map(|m| (Target::exact("s", names[i].clone()), m))
            }));
            let mut measures = Measures::new();
            for (i, it) in items.iter().enumerate() {
                if it.4 { measures.insert("s", &names[i], Measure::Counted(it.3 / 3)); }
            }
            let policy = Policy { budget, min_priority: min, ..Policy::default() };
            let p = run(&c, &marks, &policy, &measures);
            let mut seen: Vec<usize> = p.included.iter().map(|i| i.index)
                .chain(p.left_out.iter().map(|l| l.index as usize)).collect();
            seen.sort();
            prop_assert_eq!(seen, (0..c.len()).collect::<Vec<_>>());
            let sum: u64 = p.included.iter().map(|i| i.tokens).sum();
            prop_assert_eq!(sum, p.total_tokens);
            if let (Some(b), false) = (budget, p.pins_over_budget) {
                prop_assert!(p.total_tokens <= b);
            }
            for w in p.included.windows(2) {
                prop_assert!(w[0].pinned >= w[1].pinned);
                if w[0].pinned == w[1].pinned {
                    prop_assert!(w[0].priority >= w[1].priority);
                }
                prop_assert_eq!(w[1].running_total, w[0].running_total + w[1].tokens);
            }
            for i in &p.included {
                prop_assert!(marks.effective("s", c[i.index].uri()).map(|e| e.mark) != Some(Mark::Exclude));
            }
        }
    }
}
