//! The one way from a catalogue and a set to the agent's preview, for every front end
//! (`preview`, `export`, `lock`, `serve`, the browser's agent view, bundle and host view, and
//! session-start delivery): [`Sources`] holds the candidates and what is known of their
//! servers; [`Sources::resolve`] ranks with what is measured so far, and
//! [`Sources::resolve_reading`] reads what would make the preview exact
//! ([`Preview::to_measure`]), counts, and ranks again until nothing unread is left above the
//! cut line. The read is the caller's (this module does no I/O, and tests drive it with a
//! closure), but its result is [`crate::mcp::Connection::read_for_agent`]'s, so every front
//! end words a failed read the same way.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;

use crate::catalog::{ItemId, Snapshot};

use super::content::measure;
use super::mark::Marks;
use super::own::OwnOutputs;
use super::policy::Policy;
use super::ranking::{RankOrder, compare};
use super::resolve::{
    Candidate, Input, Measures, Preview, ServerMarksSeen, Verdict, judge, judge_all, resolve_judged,
};

/// The agent text of every resource that was read, by candidate index.
pub type Texts = HashMap<usize, String>;

pub use crate::mcp::read::AgentRead;

/// What a resolution takes besides the set: the candidates, the servers whose listing
/// completed (a mark on one that matches nothing is missing) and those that could not be
/// listed, with why (their marks are unavailable).
#[derive(Debug, Clone)]
pub struct Sources<'a> {
    pub candidates: Vec<Candidate<'a>>,
    listed: Vec<&'a str>,
    unavailable: Vec<(&'a str, &'a str)>,
    /// The candidates are in rank-key order ([`Sources::ranked`]), not catalogue order.
    ranked: bool,
    /// That order, when they are in one.
    order: Option<Arc<RankOrder>>,
    /// The paths mcpick writes, left out wherever a server lists them
    /// ([`Sources::leaving_out`]).
    own: Arc<OwnOutputs>,
}

/// Every candidate's [`Verdict`] from one resolution over a kept rank order, kept for the
/// next: a refresh after a few resources changed judges only those again
/// ([`Sources::resolve_keeping`]) instead of looking at every resource's item wherever it lies
/// in memory. They hold while the marks, the policy and the measures stay as they were.
#[derive(Debug, Clone)]
pub struct Judged {
    order: Arc<RankOrder>,
    verdicts: Vec<Verdict>,
    marks: Marks,
    policy: Policy,
    /// [`Measures::stamp`] when judged.
    measures: u64,
    /// The own outputs left out when judged.
    own: Arc<OwnOutputs>,
    /// How many of them this resolution judged (the rest were kept).
    judged: usize,
}

impl Judged {
    /// How many verdicts the resolution that made these judged (tests and benches: a refresh
    /// after a small change must not judge everything again).
    pub fn judged(&self) -> usize {
        self.judged
    }

    fn holds(&self, marks: &Marks, policy: &Policy, measures: &Measures, own: &OwnOutputs) -> bool {
        self.marks == *marks
            && self.policy == *policy
            && self.measures == measures.stamp()
            && *self.own == *own
    }
}

/// What an earlier resolution left to keep: its verdicts, and every id removed or changed in
/// place since its rank order was made (as [`RankOrder::advance`] was given them).
#[derive(Debug, Clone, Copy)]
pub struct Keep<'k> {
    pub judged: &'k Judged,
    pub touched: &'k [ItemId],
}

/// A resolution read to a fixed point.
#[derive(Debug)]
pub struct Resolution {
    pub preview: Preview,
    /// The agent text of every resource read, by candidate index.
    pub texts: Texts,
    /// Contents parts of other resources dropped from the reads: (candidate index, part URI).
    pub dropped: Vec<(usize, String)>,
}

impl<'a> Sources<'a> {
    pub fn new(
        candidates: Vec<Candidate<'a>>,
        listed: impl IntoIterator<Item = &'a str>,
        unavailable: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Self {
        Sources {
            candidates,
            listed: listed.into_iter().collect(),
            unavailable: unavailable.into_iter().collect(),
            ranked: false,
            order: None,
            own: Arc::default(),
        }
    }

    /// These sources with mcpick's own outputs left out wherever a server lists them (the
    /// front end knows them: [`crate::handoff::own_outputs`]).
    pub fn leaving_out(self, own: Arc<OwnOutputs>) -> Self {
        Sources { own, ..self }
    }

    /// Sources whose candidates are the resources of `snapshot` in the kept rank order
    /// `order` (made for that snapshot), so resolving walks them without sorting. The
    /// preview's indices are positions in `order` ([`RankOrder::get`]); it is the preview
    /// [`Sources::new`] over the same snapshot's candidates in catalogue order gives, once
    /// indices are mapped to ids.
    pub fn ranked(
        order: &Arc<RankOrder>,
        snapshot: &'a Snapshot,
        listed: &'a [String],
        unavailable: &'a [(String, String)],
    ) -> Self {
        assert!(
            order.extent() == &snapshot.extent(),
            "a rank order resolves the snapshot it was made for"
        );
        // Index for index: the preview's indices are the order's positions.
        let candidates = order
            .ids()
            .iter()
            .map(|&id| {
                let item = snapshot.get(id).expect("a rank order holds live resources");
                Candidate::from_item(id, snapshot.server_name(id.server), item)
            })
            .collect();
        Sources {
            ranked: true,
            order: Some(Arc::clone(order)),
            ..Sources::from_lists(candidates, listed, unavailable)
        }
    }

    /// [`Sources::ranked`], with `extra` candidates that are not in the order (a refresh's
    /// expansions, added to its catalogue after the order was made) put in at their places
    /// by the rank key, so the order is kept instead of everything sorted again. Nothing is
    /// kept of the verdicts: their positions are not the order's.
    pub fn ranked_with(
        order: &Arc<RankOrder>,
        snapshot: &'a Snapshot,
        mut extra: Vec<Candidate<'a>>,
        listed: &'a [String],
        unavailable: &'a [(String, String)],
    ) -> Self {
        let ranked = Sources::ranked(order, snapshot, listed, unavailable);
        if extra.is_empty() {
            return ranked;
        }
        let key = |a: &Candidate, b: &Candidate| {
            compare((a.server, a.item), (b.server, b.item)).then_with(|| a.id.cmp(&b.id))
        };
        extra.sort_by(key);
        let mut candidates = Vec::with_capacity(ranked.candidates.len() + extra.len());
        let mut rest = ranked.candidates.as_slice();
        for e in extra {
            let at = rest.partition_point(|c| key(c, &e).is_lt());
            candidates.extend_from_slice(&rest[..at]);
            candidates.push(e);
            rest = &rest[at..];
        }
        candidates.extend_from_slice(rest);
        Sources {
            candidates,
            order: None,
            ..ranked
        }
    }

    /// [`Sources::new`] from owned server lists, as front ends keep them.
    pub fn from_lists(
        candidates: Vec<Candidate<'a>>,
        listed: &'a [String],
        unavailable: &'a [(String, String)],
    ) -> Self {
        Sources::new(
            candidates,
            listed.iter().map(String::as_str),
            unavailable.iter().map(|(s, e)| (s.as_str(), e.as_str())),
        )
    }

    fn input<'b>(
        &'b self,
        marks: &'b Marks,
        policy: &'b Policy,
        measures: &'b Measures,
    ) -> Input<'b> {
        Input {
            candidates: &self.candidates,
            listed: &self.listed,
            unavailable: &self.unavailable,
            marks,
            policy,
            measures,
            ranked: self.ranked,
            own: &self.own,
        }
    }

    /// Ranks and cuts with what `measures` knows (estimates from sizes for the rest).
    pub fn resolve(&self, marks: &Marks, policy: &Policy, measures: &Measures) -> Preview {
        self.resolve_keeping(marks, policy, measures, None).0
    }

    /// [`Sources::resolve`], keeping what `keep` judged of the resources that did not change
    /// since; gives the verdicts to keep for the next one (when the candidates are in a kept
    /// rank order, [`Sources::ranked`]).
    pub fn resolve_keeping(
        &self,
        marks: &Marks,
        policy: &Policy,
        measures: &Measures,
        keep: Option<Keep<'_>>,
    ) -> (Preview, Option<Judged>) {
        let input = self.input(marks, policy, measures);
        let (verdicts, judged) = self.verdicts(&input, keep);
        let preview = resolve_judged(&input, &verdicts);
        (
            preview,
            self.judged(verdicts, judged, marks, policy, measures),
        )
    }

    /// Every candidate's verdict, and how many were judged: those `keep` holds for the
    /// resources that did not change, kept; the others judged. The candidates are in a rank
    /// order advanced from `keep`'s by the touched ids, so walking both orders at once meets
    /// each kept resource in the same turn (the touched ones skipped): any candidate that is
    /// not the next kept one is new or changed. When that does not hold (another order), or
    /// the marks, policy or measures changed, everything is judged.
    fn verdicts(&self, input: &Input, keep: Option<Keep<'_>>) -> (Vec<Verdict>, usize) {
        let every = || (judge_all(input), input.candidates.len());
        let Some(Keep { judged, touched }) = keep.filter(|k| {
            self.order.is_some()
                && k.judged
                    .holds(input.marks, input.policy, input.measures, input.own)
        }) else {
            return every();
        };
        let mut touched = touched.to_vec();
        touched.sort_unstable();
        touched.dedup();
        let (old, mut j) = (judged.order.ids(), 0);
        let gone = |id: &ItemId| touched.binary_search(id).is_ok();
        let mut verdicts = Vec::with_capacity(self.candidates.len());
        let (mut server, mut new) = (ServerMarksSeen::default(), 0);
        for c in &self.candidates {
            while old.get(j).is_some_and(gone) {
                j += 1;
            }
            if old.get(j) == Some(&c.id) {
                verdicts.push(judged.verdicts[j]);
                j += 1;
            } else {
                verdicts.push(judge(input, c, &mut server));
                new += 1;
            }
        }
        while old.get(j).is_some_and(gone) {
            j += 1;
        }
        match j == old.len() {
            true => (verdicts, new),
            false => every(),
        }
    }

    /// Judges the candidates at `indices` again (their measures changed); how many.
    fn judge_again(
        &self,
        verdicts: &mut [Verdict],
        indices: &[usize],
        marks: &Marks,
        policy: &Policy,
        measures: &Measures,
    ) -> usize {
        let input = self.input(marks, policy, measures);
        let mut server = ServerMarksSeen::default();
        for &index in indices {
            verdicts[index] = judge(&input, &self.candidates[index], &mut server);
        }
        indices.len()
    }

    fn judged(
        &self,
        verdicts: Vec<Verdict>,
        judged: usize,
        marks: &Marks,
        policy: &Policy,
        measures: &Measures,
    ) -> Option<Judged> {
        Some(Judged {
            order: self.order.clone()?,
            verdicts,
            marks: marks.clone(),
            policy: *policy,
            measures: measures.stamp(),
            own: Arc::clone(&self.own),
            judged,
        })
    }

    /// Resolves to a fixed point: reads (at most `jobs` at once) what [`Preview::to_measure`]
    /// asks for through `read` and records each count in `measures`. Keeps what `keep`
    /// judged as [`Sources::resolve_keeping`] does (after each read only the resources read
    /// are judged again: a (server, URI) is one resource of the catalogue), and gives the
    /// verdicts to keep.
    pub async fn resolve_reading<R, Fut>(
        &self,
        marks: &Marks,
        policy: &Policy,
        measures: &mut Measures,
        jobs: usize,
        read: R,
        keep: Option<Keep<'_>>,
    ) -> (Resolution, Option<Judged>)
    where
        R: Fn(&Candidate<'a>) -> Fut,
        Fut: Future<Output = AgentRead>,
    {
        let (mut texts, mut dropped) = (Texts::new(), Vec::new());
        let (mut verdicts, mut judged) = self.verdicts(&self.input(marks, policy, measures), keep);
        loop {
            let preview = resolve_judged(&self.input(marks, policy, measures), &verdicts);
            let wanted = preview.to_measure();
            if wanted.is_empty() {
                let judged = self.judged(verdicts, judged, marks, policy, measures);
                let resolution = Resolution {
                    preview,
                    texts,
                    dropped,
                };
                return (resolution, judged);
            }
            // Owned: a borrowed iterator held across the await trips the `Send` check of
            // the futures that spawn this.
            let reads = futures::stream::iter(wanted.clone().into_iter().map(|index| {
                let read = &read;
                let c = &self.candidates[index];
                async move { (index, read(c).await) }
            }))
            .buffer_unordered(jobs.max(1))
            .collect::<Vec<_>>()
            .await;
            for (index, outcome) in reads {
                let c = &self.candidates[index];
                let outcome = outcome.map(|read| {
                    let outcome = read.outcome;
                    dropped.extend(read.dropped.into_iter().map(|uri| (index, uri)));
                    let (outcome, excluded) =
                        super::content::without_excluded(marks, c.server, c.uri(), outcome);
                    dropped.extend(excluded.into_iter().map(|uri| (index, uri)));
                    outcome
                });
                let label = super::content::label(c.name(), c.uri());
                let (m, text) = measure(outcome, policy.tokenizer, &label);
                if let Some(text) = text {
                    texts.insert(index, text);
                }
                measures.insert(c.server, c.uri(), m);
            }
            judged += self.judge_again(&mut verdicts, &wanted, marks, policy, measures);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Item, ItemId};
    use crate::context::{Candidate, Marks, Policy};
    use crate::mcp::ReadOutcome;
    use rmcp::model::ResourceContents;

    fn cand(uri: &'static str, size: u64) -> Candidate<'static> {
        let item = Item::ranked(uri, uri, None, None, None, Some(size));
        let id = ItemId {
            server: 0,
            index: 0,
        };
        Candidate::from_item(id, "s", Box::leak(Box::new(item)))
    }

    #[tokio::test]
    async fn reads_until_exact_and_keeps_texts() {
        let cands = [cand("a://1", 10), cand("a://2", 10)];
        let marks = Marks::default();
        let policy = Policy {
            budget: crate::context::Budget::All,
            ..Policy::default()
        };
        let mut measures = Measures::new();
        let sources = Sources::new(cands.to_vec(), ["s"], []);
        let done = sources
            .resolve_reading(
                &marks,
                &policy,
                &mut measures,
                2,
                |c| {
                    let uri = c.uri();
                    async move {
                        let parts = vec![ResourceContents::text(format!("text {uri}"), uri)];
                        Ok(crate::mcp::read::Read {
                            dropped: vec![format!("{uri}-other")],
                            ..crate::mcp::read::Read::of(ReadOutcome::Contents(parts))
                        })
                    }
                },
                None,
            )
            .await
            .0;
        let (preview, texts) = (&done.preview, &done.texts);
        assert_eq!(preview.included.len(), 2);
        assert!(!preview.is_estimated(), "every included count is exact");
        assert_eq!(texts.len(), 2);
        assert_eq!(texts[&1], "text a://2");
        let mut dropped = done.dropped.clone();
        dropped.sort();
        assert_eq!(
            dropped,
            [
                (0, "a://1-other".to_string()),
                (1, "a://2-other".to_string())
            ]
        );
    }
}
