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
//! 8. Until a budget is set ([`Budget::Unset`], the default), only pinned resources are
//!    included: every other one the filters admit is `no budget set`, so a person who pinned
//!    one file hands over that file, not everything the servers publish. `Budget::All` is
//!    rule 7 without a cut line.
//!
//! Each candidate is judged first (rules 1–4 and its tokens: a [`Verdict`]), then the budget
//! is spent over the verdicts in rank order (rules 5 and 7). A verdict depends on the
//! resource, its mark, the policy and its measure only, so a front end that keeps the rank
//! order keeps the verdicts too and judges again only what changed
//! ([`super::measured::Judged`], `serve`).
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
use super::own::OwnOutputs;
use super::policy::{Budget, Policy};
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
#[derive(Debug, Clone, Default)]
pub struct Measures {
    by_server: HashMap<String, HashMap<String, Measure>>,
    /// Which state these measures are in: a new stamp at every change, unique in the process
    /// (a clone shares it, and holds the same), so verdicts judged at one stamp hold while it
    /// stays ([`super::measured::Judged`]), whichever `Measures` they are checked against.
    stamp: u64,
}

/// The next [`Measures`] stamp (0 is every empty one's).
fn next_stamp() -> u64 {
    static STAMPS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    STAMPS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The same measures (however many changes led to them).
impl PartialEq for Measures {
    fn eq(&self, other: &Self) -> bool {
        self.by_server == other.by_server
    }
}

impl Measures {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn insert(&mut self, server: &str, uri: &str, measure: Measure) {
        self.stamp = next_stamp();
        self.by_server
            .entry(server.to_string())
            .or_default()
            .insert(uri.to_string(), measure);
    }

    pub fn get(&self, server: &str, uri: &str) -> Option<&Measure> {
        self.by_server.get(server)?.get(uri)
    }

    /// Whether anything of `server` is measured (see [`Marks::on_server`]).
    pub fn on_server(&self, server: &str) -> bool {
        self.by_server.get(server).is_some_and(|m| !m.is_empty())
    }

    /// Forgets a resource's measure (its content changed).
    pub fn remove(&mut self, server: &str, uri: &str) {
        if let Some(map) = self.by_server.get_mut(server)
            && map.remove(uri).is_some()
        {
            self.stamp = next_stamp();
        }
    }

    /// Forgets every measure (the tokenizer changed).
    pub fn clear(&mut self) {
        self.stamp = next_stamp();
        self.by_server.clear();
    }

    /// Which state these measures are in (see the field).
    pub(crate) fn stamp(&self) -> u64 {
        self.stamp
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
    /// The paths mcpick writes: left out wherever a server lists them.
    pub own: &'a OwnOutputs,
}

/// Why a resource is not handed over.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase", tag = "reason", content = "detail")]
pub enum Reason {
    /// Below the cut line.
    OverBudget,
    /// Not pinned, and no budget is set: only pins are handed over (rule 8).
    NoBudget,
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
    /// A file mcpick itself writes (a delivery, a host file `install` edits, a skill it
    /// placed), listed by a server that publishes the project: never fed back into the set,
    /// pinned or not. The detail says which ([`super::own`]).
    OwnOutput(Box<str>),
}

impl Reason {
    /// The short name used in JSON and text output.
    pub fn name(&self) -> &'static str {
        match self {
            Reason::OverBudget => "over budget",
            Reason::NoBudget => "not pinned (no budget set)",
            Reason::ReadFailed(_) => "read failed",
            Reason::Excluded => "excluded",
            Reason::Audience => "audience",
            Reason::UnderMinPriority => "under minimum priority",
            Reason::HostLimit(_) => "host limit",
            Reason::OwnOutput(_) => "mcpick's own output",
        }
    }

    fn rank(&self) -> u8 {
        match self {
            // Decided by the budget, not judged: never a verdict's.
            Reason::OverBudget | Reason::NoBudget => 0,
            Reason::ReadFailed(_) => 1,
            Reason::Excluded => 2,
            Reason::Audience => 3,
            Reason::UnderMinPriority => 4,
            Reason::HostLimit(_) => 5,
            Reason::OwnOutput(_) => 6,
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
    /// Its tokens when known or estimated (only for `over budget` and `no budget set`).
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
    pub budget: Budget,
    pub tokenizer: TokenizerKind,
    /// In the order the agent receives them.
    pub included: Vec<Included>,
    /// Tokens of everything included.
    pub total_tokens: u64,
    /// Over budget (or not pinned with no budget set) first, in rank order, right below the
    /// cut line; then read failed,
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

    /// What a browser reads, at most, to show this preview: with a token budget, everything
    /// [`Preview::to_measure`] names (the cut line depends on it); without one there is no
    /// cut line to place, so only the estimated included rows in `shown` (rows on screen, or
    /// asked for) are read and every other count stays an estimate from `size`. A million
    /// resources cost a screenful of reads, not a million.
    pub fn to_measure_shown(&self, shown: std::ops::Range<usize>) -> Vec<usize> {
        if self.budget.tokens().is_some() {
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

    /// Up to `at_most` pinned included resources whose count is still an estimate, when
    /// there is a budget (whether pins alone are over it rests on them); nothing without one,
    /// and nothing more once the pins counted already pass it ([`Preview::counted_over_budget`]:
    /// the rest cannot change that verdict). A batch at a time, so a folder of 100,000 pins
    /// is not read whole in one job behind a closed view.
    pub fn pins_to_measure(&self, at_most: usize) -> Vec<usize> {
        if self.budget.tokens().is_none() || self.counted_over_budget() {
            return Vec::new();
        }
        self.included
            .iter()
            .filter(|i| i.pinned && i.estimated)
            .take(at_most)
            .map(|i| i.index)
            .collect()
    }

    /// True when the pins counted so far (not estimated) pass the budget on their own: over
    /// budget for certain, whatever the estimates still turn out to be.
    pub fn counted_over_budget(&self) -> bool {
        let Some(budget) = self.budget.tokens() else {
            return false;
        };
        let counted: u64 = self
            .included
            .iter()
            .filter(|i| i.pinned && !i.estimated)
            .map(|i| i.tokens)
            .sum();
        counted > budget
    }

    /// (tokens used, token budget) for a budget meter.
    pub fn meter(&self) -> (u64, Option<u64>) {
        (self.total_tokens, self.budget.tokens())
    }

    /// How many resources are left out for each reason, in the order they are listed, for a
    /// summary (the marks on servers that could not be listed are [`Preview::unavailable`]).
    pub fn left_out_by_reason(&self) -> Vec<(&'static str, usize)> {
        let mut counts: Vec<(&'static str, usize)> = Vec::new();
        for name in self.left_out.iter().map(|l| l.reason.name()) {
            match counts.iter_mut().find(|(n, _)| *n == name) {
                Some((_, n)) => *n += 1,
                None => counts.push((name, 1)),
            }
        }
        counts
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

/// Resolves what the agent receives, given every candidate's [`Verdict`] (by candidate
/// index, as [`judge_all`] gives them, or kept from an earlier resolution for what did not
/// change). Pure: no I/O, no clock. See the module documentation for the rules; front ends
/// go through [`super::Sources`].
pub(crate) fn resolve_judged(input: &Input, verdicts: &[Verdict]) -> Preview {
    let candidates = input.candidates;
    assert_eq!(verdicts.len(), candidates.len(), "a verdict per candidate");
    assert!(
        u32::try_from(candidates.len()).is_ok(),
        "more candidates than resolution ranks"
    );
    if input.ranked {
        return cut(input, verdicts, 0..candidates.len());
    }
    // Catalogue order: ranked by the same key first (ties in the order given), so that the
    // cut sees what it would see over the same candidates already ranked.
    let mut keyed: Vec<Keyed> = candidates
        .iter()
        .enumerate()
        .map(|(i, c)| Keyed::new(i as u32, c.item))
        .collect();
    sort_keyed(&mut keyed, &Cell::new(0), |a, b| {
        let (a, b) = (&candidates[a as usize], &candidates[b as usize]);
        ranking::compare((a.server, a.item), (b.server, b.item))
    });
    cut(input, verdicts, keyed.iter().map(|k| k.at as usize))
}

/// What resolution decides about one candidate before any budget: left out by the set or a
/// failed read (and why), or admitted with its tokens. It depends on the candidate's item, its
/// mark, the policy and its measure only, so a front end that keeps the rank order across
/// changes keeps these too, and judges again only what changed
/// ([`super::measured::Judged`]). 16 bytes; the cut reads them in rank order, one after the
/// other, instead of every candidate's item wherever it lies in memory.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    tokens: u64,
    /// The priority used for ranking (the resource's, or the default).
    priority: f32,
    flags: u8,
    /// 0: admitted; else the [`Reason::rank`] of why it is left out.
    left_out: u8,
}

impl Verdict {
    const PINNED: u8 = 1;
    const ESTIMATED: u8 = 2;
    const DEFAULTED: u8 = 4;
    /// [`Reason::rank`] of a failed read.
    const READ_FAILED: u8 = 1;
    /// [`Reason::rank`] of mcpick's own output.
    const OWN: u8 = 6;

    fn pinned(&self) -> bool {
        self.flags & Self::PINNED != 0
    }

    fn estimated(&self) -> bool {
        self.flags & Self::ESTIMATED != 0
    }

    fn admitted(&self) -> bool {
        self.left_out == 0
    }

    /// Why it is left out, worded: a failed read's reason is the measure's (kept there, not
    /// here, so a verdict stays small).
    fn reason(&self, input: &Input, c: &Candidate) -> Reason {
        match self.left_out {
            Self::READ_FAILED => match input.measures.get(c.server, c.uri()) {
                Some(Measure::Failed(why)) => Reason::ReadFailed(why.as_str().into()),
                _ => Reason::ReadFailed("".into()),
            },
            2 => Reason::Excluded,
            3 => Reason::Audience,
            Self::OWN => Reason::OwnOutput(input.own.why(c.uri()).unwrap_or_default().into()),
            _ => Reason::UnderMinPriority,
        }
    }
}

/// Every candidate's verdict, by index.
pub(crate) fn judge_all(input: &Input) -> Vec<Verdict> {
    let mut server = ServerMarksSeen::default();
    let candidates = input.candidates.iter();
    candidates.map(|c| judge(input, c, &mut server)).collect()
}

/// One candidate's verdict (`server`: what is known of the server of the last one judged).
pub(crate) fn judge<'a>(
    input: &Input,
    c: &Candidate<'a>,
    server: &mut ServerMarksSeen<'a>,
) -> Verdict {
    let (marked, measured) = server.at(c.server, input);
    let mark = marked
        .then(|| input.marks.effective(c.server, c.uri()).map(|e| e.mark))
        .flatten();
    let measure = measured
        .then(|| input.measures.get(c.server, c.uri()))
        .flatten();
    let left_out = match filtered(mark, input.policy, c.priority(), c.audience()) {
        // Before any mark: a pin on a folder of the project must not take mcpick's own
        // outputs back in.
        _ if input.own.why(c.uri()).is_some() => Verdict::OWN,
        Some(reason) => reason.rank(),
        None if matches!(measure, Some(Measure::Failed(_))) => Verdict::READ_FAILED,
        None => 0,
    };
    let (tokens, estimated) = match measure {
        Some(Measure::Counted(n)) => (*n, false),
        _ => (tokens::estimate(c.size()), true),
    };
    let mut flags = 0;
    for (set, flag) in [
        (mark == Some(Mark::Pin), Verdict::PINNED),
        (estimated, Verdict::ESTIMATED),
        (c.priority().is_none(), Verdict::DEFAULTED),
    ] {
        if set {
            flags |= flag;
        }
    }
    Verdict {
        tokens,
        priority: Policy::priority(c.priority()),
        flags,
        left_out,
    }
}

/// The budget spent over the candidates taken in rank-key order (`order`: their indices),
/// by their verdicts: pinned ones first (a stable partition), then the rest in that order up
/// to the cut line, and every left-out one in that order within its reason.
fn cut(input: &Input, verdicts: &[Verdict], order: impl Iterator<Item = usize> + Clone) -> Preview {
    let (policy, candidates) = (input.policy, input.candidates);
    let fits = |total: u64, tokens: u64| {
        policy
            .budget
            .tokens()
            .is_none_or(|budget| total.saturating_add(tokens) <= budget)
    };
    let included_of = |index: usize, v: &Verdict, total: u64| Included {
        index,
        tokens: v.tokens,
        estimated: v.estimated(),
        running_total: total,
        pinned: v.pinned(),
        priority: v.priority,
        priority_defaulted: v.flags & Verdict::DEFAULTED != 0,
    };
    let (mut admitted, mut filtered) = (0, 0);
    for index in order.clone() {
        if verdicts[index].admitted() {
            admitted += 1;
        } else {
            filtered += 1;
        }
    }
    let mut included = Vec::with_capacity(admitted);
    let mut left_out = Vec::with_capacity(if policy.budget != Budget::All {
        admitted + filtered
    } else {
        filtered
    });
    // Pins first, in order: always included, even past the budget.
    let mut total: u64 = 0;
    let mut pins_over_budget = false;
    for index in order.clone() {
        let v = &verdicts[index];
        if v.admitted() && v.pinned() {
            pins_over_budget |= !fits(total, v.tokens);
            total = total.saturating_add(v.tokens);
            included.push(included_of(index, v, total));
        }
    }
    // By reason (read failed, excluded, audience, under minimum priority, mcpick's own
    // output: by rank), each in order.
    let mut filtered_out: [Vec<LeftOut>; Verdict::OWN as usize] = Default::default();
    let mut over = false;
    for index in order {
        let v = &verdicts[index];
        if !v.admitted() {
            let bucket = usize::from(v.left_out - 1).min(filtered_out.len() - 1);
            filtered_out[bucket].push(LeftOut {
                index: index as u32,
                reason: v.reason(input, &candidates[index]),
                tokens: None,
                estimated: false,
            });
        } else if v.pinned() {
            // Included above.
        } else if !policy.budget.admits_unpinned() {
            left_out.push(LeftOut {
                index: index as u32,
                reason: Reason::NoBudget,
                tokens: Some(v.tokens),
                estimated: v.estimated(),
            });
        } else if !over && fits(total, v.tokens) {
            total = total.saturating_add(v.tokens);
            included.push(included_of(index, v, total));
        } else {
            over = true;
            left_out.push(LeftOut {
                index: index as u32,
                reason: Reason::OverBudget,
                tokens: Some(v.tokens),
                estimated: v.estimated(),
            });
        }
    }
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

/// Whether the server of the candidate at hand has marks and measures, asked again only
/// when the server changes (candidates share their server's name, so it is compared by
/// address first): a server without marks or measures needs no candidate's URI looked at (a
/// million of them in rank order are a million cache misses).
#[derive(Default)]
pub(crate) struct ServerMarksSeen<'a> {
    server: Option<&'a str>,
    marked: bool,
    measured: bool,
}

impl<'a> ServerMarksSeen<'a> {
    fn at(&mut self, server: &'a str, input: &Input) -> (bool, bool) {
        let same = self
            .server
            .is_some_and(|s| std::ptr::eq(s, server) || s == server);
        if !same {
            self.server = Some(server);
            self.marked = input.marks.on_server(server);
            self.measured = input.measures.on_server(server);
        }
        (self.marked, self.measured)
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
        assert_eq!(size_of::<Verdict>(), 16);
        assert_eq!(size_of::<Included>(), 32);
        assert_eq!(size_of::<LeftOut>(), 48);
    }

    /// A policy with no limit: everything the filters admit (rule 8 aside).
    fn all() -> Policy {
        Policy {
            budget: Budget::All,
            ..Policy::default()
        }
    }

    /// Every candidate judged, then cut.
    fn resolve(input: &Input) -> Preview {
        resolve_judged(input, &judge_all(input))
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
            own: &OwnOutputs::default(),
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
        let p = run(&c, &marks, &all(), &Measures::new());
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
            ..all()
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
            ..all()
        };
        let p = run(&c, &marks, &any, &measures);
        assert!(uris(&c, &p).contains(&"user-only"));
        assert!(uris(&c, &p).contains(&"low"));
        let user = Policy {
            audience: Audience::User,
            ..all()
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
            budget: Budget::Tokens(200),
            ..all()
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
            budget: Budget::Tokens(10),
            ..all()
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
        assert!(p.counted_over_budget());
    }

    /// Pins are counted a batch at a time, and no more once the counted ones alone pass the
    /// budget (the verdict is certain).
    #[test]
    fn pins_are_counted_in_batches_until_the_verdict_is_certain() {
        let uris: Vec<String> = (0..1000).map(|i| format!("r{i:04}")).collect();
        let c: Vec<Candidate> = uris
            .iter()
            .enumerate()
            .map(|(i, u)| {
                cand(
                    i as u32,
                    Box::leak(u.clone().into_boxed_str()),
                    None,
                    None,
                    None,
                    40,
                )
            })
            .collect();
        let marks = Marks::from_list([(Target::prefix("s", "r"), Mark::Pin)]);
        let budget = |b| Policy {
            budget: Budget::Tokens(b),
            ..all()
        };
        let p = run(&c, &marks, &budget(100_000), &Measures::new());
        assert_eq!(p.pins_to_measure(256).len(), 256);
        assert!(!p.counted_over_budget());
        let p = run(&c, &marks, &all(), &Measures::new());
        assert!(
            p.pins_to_measure(256).is_empty(),
            "no budget, nothing to decide"
        );

        // Three counted pins of 50 tokens pass a budget of 120: the rest need no reading.
        let mut measures = Measures::new();
        for u in &uris[..3] {
            measures.insert("s", u, Measure::Counted(50));
        }
        let p = run(&c, &marks, &budget(120), &measures);
        assert!(p.counted_over_budget());
        assert!(p.pins_to_measure(256).is_empty());
        // Under the budget, the next batch is the estimated ones only.
        let p = run(&c, &marks, &budget(100_000), &measures);
        let next = p.pins_to_measure(256);
        assert_eq!(next.len(), 256);
        assert!(next.iter().all(|&i| i >= 3), "{next:?}");
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
        let p = run(&c, &marks, &all(), &Measures::new());
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

    /// Rule 8: until a budget is set, the pins and nothing else, each other resource left out
    /// as `no budget set` (not `over budget`: there is no cut line); `all` takes everything.
    #[test]
    fn no_budget_set_hands_over_the_pins_only() {
        let c = [
            cand(0, "readme", None, None, None, 40),
            cand(1, "high", Some(0.9), None, None, 40),
            cand(2, "excluded", None, None, None, 40),
            cand(3, "user-only", None, Some(AUDIENCE_USER), None, 40),
        ];
        let marks = Marks::from_list([
            (Target::exact("s", "readme"), Mark::Pin),
            (Target::exact("s", "excluded"), Mark::Exclude),
        ]);
        let p = run(&c, &marks, &Policy::default(), &Measures::new());
        assert_eq!(uris(&c, &p), ["readme"]);
        assert_eq!(p.budget, Budget::Unset);
        assert!(!p.has_cut() && !p.pins_over_budget);
        assert_eq!(reason_of(&c, &p, "high"), Some(Reason::NoBudget));
        assert_eq!(reason_of(&c, &p, "excluded"), Some(Reason::Excluded));
        assert_eq!(reason_of(&c, &p, "user-only"), Some(Reason::Audience));
        assert_eq!(Reason::NoBudget.name(), "not pinned (no budget set)");
        assert_eq!(
            p.left_out_by_reason(),
            [
                ("not pinned (no budget set)", 1),
                ("excluded", 1),
                ("audience", 1)
            ]
        );
        // Nothing to read for a cut line that is not there: only the pins' counts.
        assert_eq!(p.to_measure(), [0]);

        let p = run(&c, &marks, &all(), &Measures::new());
        assert_eq!(uris(&c, &p), ["readme", "high"]);
        // Nothing pinned and no budget: nothing at all.
        let p = run(&c, &Marks::default(), &Policy::default(), &Measures::new());
        assert!(p.included.is_empty());
        assert_eq!(reason_of(&c, &p, "readme"), Some(Reason::NoBudget));
    }

    proptest! {
        /// Whatever the input: every candidate is placed exactly once, totals add up, the
        /// budget holds for unpinned resources, and order respects the ranking.
        #[test]
        fn preview_invariants(
            items in prop::collection::vec(
                (prop::option::of(0.0f32..=1.0), prop::option::of(0u8..4),
                 prop::option::of(0i64..5), 0u64..400, any::<bool>(), 0u8..3), 0..40),
            budget in prop_oneof![
                Just(Budget::Unset), Just(Budget::All), (0u64..600).prop_map(Budget::Tokens)
            ],
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
            let policy = Policy { budget, min_priority: min, ..all() };
            let p = run(&c, &marks, &policy, &measures);
            let mut seen: Vec<usize> = p.included.iter().map(|i| i.index)
                .chain(p.left_out.iter().map(|l| l.index as usize)).collect();
            seen.sort();
            prop_assert_eq!(seen, (0..c.len()).collect::<Vec<_>>());
            let sum: u64 = p.included.iter().map(|i| i.tokens).sum();
            prop_assert_eq!(sum, p.total_tokens);
            if let (Some(b), false) = (budget.tokens(), p.pins_over_budget) {
                prop_assert!(p.total_tokens <= b);
            }
            if budget == Budget::Unset {
                prop_assert!(p.included.iter().all(|i| i.pinned));
            } else {
                prop_assert!(p.left_out.iter().all(|l| l.reason != Reason::NoBudget));
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
