//! The browser's side of context sets: the set being edited, what is known about token
//! counts, and the latest resolution (the agent view and the budget meter read it).
//!
//! Resolution runs off the UI thread on a catalogue snapshot ([`resolve_snapshot`], the same
//! [`crate::context::resolve`] `mcpick preview` calls); one request is in flight at a time and
//! changes made meanwhile ask for one more (coalesced, latest wins). While the agent view is
//! open, the resources [`Preview::to_measure`] names are read and counted in the background
//! ([`crate::context::measure`], as `mcpick preview` does) and resolution runs again as counts
//! arrive, until nothing unread is left above the cut line.

use std::collections::HashSet;
use std::sync::Arc;

use crate::catalog::{ItemId, Snapshot};
use crate::context::{
    Audience, ContextSet, Input, Marks, Measures, Policy, Preview, candidates_in, resolve,
};

/// The budget steps `[` and `]` move through; above the last: no budget.
pub const BUDGET_STEPS: &[u64] = &[
    500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 200_000, 1_000_000,
];

/// The next budget up (`up`) or down from `budget` (`None`: no budget).
pub fn step_budget(budget: Option<u64>, up: bool) -> Option<u64> {
    match (budget, up) {
        (None, true) => None,
        (None, false) => BUDGET_STEPS.last().copied(),
        (Some(b), true) => BUDGET_STEPS.iter().copied().find(|&s| s > b),
        (Some(b), false) => BUDGET_STEPS
            .iter()
            .rev()
            .copied()
            .find(|&s| s < b)
            .or(Some(BUDGET_STEPS[0])),
    }
}

pub fn next_audience(a: Audience) -> Audience {
    match a {
        Audience::Assistant => Audience::User,
        Audience::User => Audience::Any,
        Audience::Any => Audience::Assistant,
    }
}

/// One resolution, self-contained: candidate indices of `preview` map to `ids`.
#[derive(Debug, Clone)]
pub struct AgentPreview {
    pub generation: u64,
    pub preview: Preview,
    /// Catalogue id of each candidate, by candidate index.
    pub ids: Vec<ItemId>,
}

impl AgentPreview {
    pub fn id(&self, index: usize) -> Option<ItemId> {
        self.ids.get(index).copied()
    }

    /// The included resources' ids, in the order the agent receives them.
    pub fn included_ids(&self) -> Vec<ItemId> {
        self.preview
            .included
            .iter()
            .filter_map(|i| self.id(i.index))
            .collect()
    }
}

/// What resolution needs, owned (sent to a blocking thread).
#[derive(Debug, Clone)]
pub struct ResolveRequest {
    pub generation: u64,
    pub snapshot: Snapshot,
    pub names: Vec<Arc<str>>,
    /// Servers whose listing completed (missing marks are reported for them only).
    pub listed: Vec<String>,
    /// Servers that failed, with why (their marks are reported as unavailable).
    pub unavailable: Vec<(String, String)>,
    pub marks: Marks,
    pub policy: Policy,
    pub measures: Measures,
}

/// Resolves a request: the same [`resolve`] `mcpick preview` runs, on a snapshot.
pub fn resolve_snapshot(req: &ResolveRequest) -> AgentPreview {
    let cands = candidates_in(&req.snapshot, &req.names);
    let listed: Vec<&str> = req.listed.iter().map(String::as_str).collect();
    let unavailable: Vec<(&str, &str)> = req
        .unavailable
        .iter()
        .map(|(s, e)| (s.as_str(), e.as_str()))
        .collect();
    let preview = resolve(&Input {
        candidates: &cands,
        listed: &listed,
        unavailable: &unavailable,
        marks: &req.marks,
        policy: &req.policy,
        measures: &req.measures,
    });
    AgentPreview {
        generation: req.generation,
        preview,
        ids: cands.iter().map(|c| c.id).collect(),
    }
}

/// The context set being edited, and everything derived from it.
#[derive(Debug, Default)]
pub struct ContextState {
    pub set: ContextSet,
    /// Why the set file could not be loaded: saving is off so the file is never overwritten.
    pub load_error: Option<String>,
    /// The last save failed: why (marks are kept in memory).
    pub save_error: Option<String>,
    /// The set as last seen on disk plus the changes this browser sent since: a change's
    /// "before" comes from here (see [`crate::context::SetChange::between`]).
    pub base: ContextSet,
    /// Changes whose save failed, sent again with the next one.
    pub failed_change: Option<crate::context::SetChange>,
    /// Another process changed the file while a save of ours was on its way: take the
    /// file's state from the next save's answer.
    pub others_pending: bool,
    /// Changes were made while saving is off (the file could not be loaded).
    pub unsaved: bool,
    /// Saves asked for / confirmed (by sequence number).
    pub save_seq: u64,
    pub saved_seq: u64,
    pub measures: Measures,
    /// The latest resolution.
    pub agent: Option<Arc<AgentPreview>>,
    pub resolve_generation: u64,
    pub resolve_in_flight: bool,
    pub resolve_dirty: bool,
    /// Catalogue size at the last resolution requested (see `App::on_server`'s pages).
    pub resolved_len: usize,
    /// Reads for token counts in flight (the current batch).
    pub measuring: HashSet<ItemId>,
    pub measure_generation: u64,
    /// Size of the current batch (for progress).
    pub measure_batch: usize,
}

impl ContextState {
    pub fn new(set: ContextSet, load_error: Option<String>) -> Self {
        ContextState {
            set,
            load_error,
            ..Default::default()
        }
    }

    pub fn can_save(&self) -> bool {
        self.load_error.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_steps() {
        assert_eq!(step_budget(None, true), None);
        assert_eq!(step_budget(None, false), Some(1_000_000));
        assert_eq!(step_budget(Some(1_000_000), true), None);
        assert_eq!(step_budget(Some(8_000), true), Some(16_000));
        assert_eq!(step_budget(Some(5_000), true), Some(8_000));
        assert_eq!(step_budget(Some(5_000), false), Some(4_000));
        assert_eq!(step_budget(Some(500), false), Some(500));
        assert_eq!(step_budget(Some(10), false), Some(500));
    }
}
