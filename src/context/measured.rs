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

use futures::StreamExt;

use crate::catalog::Snapshot;

use super::content::measure;
use super::mark::Marks;
use super::policy::Policy;
use super::ranking::RankOrder;
use super::resolve::{Candidate, Input, Measures, Preview, resolve};

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
        }
    }

    /// Sources whose candidates are the resources of `snapshot` in the kept rank order
    /// `order` (made for that snapshot), so resolving walks them without sorting. The
    /// preview's indices are positions in `order` ([`RankOrder::get`]); it is the preview
    /// [`Sources::new`] over the same snapshot's candidates in catalogue order gives, once
    /// indices are mapped to ids.
    pub fn ranked(
        order: &RankOrder,
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
            ..Sources::from_lists(candidates, listed, unavailable)
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
        }
    }

    /// Ranks and cuts with what `measures` knows (estimates from sizes for the rest).
    pub fn resolve(&self, marks: &Marks, policy: &Policy, measures: &Measures) -> Preview {
        resolve(&self.input(marks, policy, measures))
    }

    /// Resolves to a fixed point: reads (at most `jobs` at once) what [`Preview::to_measure`]
    /// asks for through `read` and records each count in `measures`.
    pub async fn resolve_reading<R, Fut>(
        &self,
        marks: &Marks,
        policy: &Policy,
        measures: &mut Measures,
        jobs: usize,
        read: R,
    ) -> Resolution
    where
        R: Fn(&Candidate<'a>) -> Fut,
        Fut: Future<Output = AgentRead>,
    {
        let (mut texts, mut dropped) = (Texts::new(), Vec::new());
        loop {
            let preview = self.resolve(marks, policy, measures);
            let wanted = preview.to_measure();
            if wanted.is_empty() {
                return Resolution {
                    preview,
                    texts,
                    dropped,
                };
            }
            let reads = futures::stream::iter(wanted.into_iter().map(|index| {
                let read = &read;
                let c = &self.candidates[index];
                async move { (index, read(c).await) }
            }))
            .buffer_unordered(jobs.max(1))
            .collect::<Vec<_>>()
            .await;
            for (index, outcome) in reads {
                let c = &self.candidates[index];
                let outcome = outcome.map(|(outcome, others)| {
                    dropped.extend(others.into_iter().map(|uri| (index, uri)));
                    outcome
                });
                let (m, text) = measure(outcome, policy.tokenizer);
                if let Some(text) = text {
                    texts.insert(index, text);
                }
                measures.insert(c.server, c.uri(), m);
            }
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
        let policy = Policy::default();
        let mut measures = Measures::new();
        let sources = Sources::new(cands.to_vec(), ["s"], []);
        let done = sources
            .resolve_reading(&marks, &policy, &mut measures, 2, |c| {
                let uri = c.uri();
                async move {
                    let parts = vec![ResourceContents::text(format!("text {uri}"), uri)];
                    Ok((ReadOutcome::Contents(parts), vec![format!("{uri}-other")]))
                }
            })
            .await;
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
