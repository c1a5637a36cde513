//! The browser's side of context sets: the set being edited, what is known about token
//! counts, and the latest resolution (the agent view and the budget meter read it).
//!
//! Resolution runs off the UI thread on a catalogue snapshot ([`resolve_snapshot`], the same
//! [`crate::context::resolve`] `mcpick preview` calls); one request is in flight at a time and
//! changes made meanwhile ask for one more (coalesced, latest wins). Each resolution keeps its
//! rank order ([`crate::context::RankOrder`], in [`AgentPreview::ids`]) and the next request
//! carries it with the ids the catalogue touched since, so a list change, a count or a mark
//! costs a walk over the order, not a sort of the catalogue. While the agent view is
//! open, the resources [`Preview::to_measure`] names are read and counted in the background
//! ([`crate::context::measure`], as `mcpick preview` does) and resolution runs again as counts
//! arrive, until nothing unread is left above the cut line.

use std::path::Path;
use std::sync::Arc;

use crate::catalog::{IdRuns, ItemId, Snapshot};
use crate::context::{
    Audience, Budget, Marks, Measures, Policy, Preview, RankOrder, Reason, Sources,
};
use crate::hosts::Host;

/// The budget steps `[` and `]` move through; below the first: none set (pinned only);
/// above the last: all (no limit).
pub const BUDGET_STEPS: &[u64] = &[
    500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 128_000, 200_000, 1_000_000,
];

/// The next budget up (`up`) or down from `budget`: none set, the steps, then all.
pub fn step_budget(budget: Budget, up: bool) -> Budget {
    let tokens = |b: Option<u64>| b.map_or(Budget::All, Budget::Tokens);
    match (budget, up) {
        (Budget::Unset, true) => Budget::Tokens(BUDGET_STEPS[0]),
        (Budget::Unset, false) => Budget::Unset,
        (Budget::All, true) => Budget::All,
        (Budget::All, false) => tokens(BUDGET_STEPS.last().copied()),
        (Budget::Tokens(b), true) => tokens(BUDGET_STEPS.iter().copied().find(|&s| s > b)),
        (Budget::Tokens(b), false) => BUDGET_STEPS
            .iter()
            .rev()
            .copied()
            .find(|&s| s < b)
            .map_or(Budget::Unset, Budget::Tokens),
    }
}

pub fn next_audience(a: Audience) -> Audience {
    match a {
        Audience::Assistant => Audience::User,
        Audience::User => Audience::Any,
        Audience::Any => Audience::Assistant,
    }
}

/// The catalogue id of each candidate of a resolution, by candidate index.
#[derive(Debug, Clone)]
pub enum CandidateIds {
    /// Candidates in catalogue order, as runs (a few bytes, not 8 an id).
    Runs(IdRuns),
    /// Candidates in the kept rank order: its ids, shared with it (the next resolution
    /// advances it).
    Ranked(Arc<RankOrder>),
}

impl CandidateIds {
    pub fn get(&self, index: usize) -> Option<ItemId> {
        match self {
            CandidateIds::Runs(runs) => runs.get(index),
            CandidateIds::Ranked(order) => order.get(index),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            CandidateIds::Runs(runs) => runs.len(),
            CandidateIds::Ranked(order) => order.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every id, by candidate index.
    pub fn iter(&self) -> impl Iterator<Item = ItemId> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// One resolution, self-contained: candidate indices of `preview` map to `ids`.
#[derive(Debug, Clone)]
pub struct AgentPreview {
    pub generation: u64,
    pub preview: Preview,
    pub ids: CandidateIds,
}

impl AgentPreview {
    pub fn id(&self, index: usize) -> Option<ItemId> {
        self.ids.get(index)
    }

    /// The rank order this resolution walked, to be advanced by the next one.
    pub fn order(&self) -> Option<&Arc<RankOrder>> {
        match &self.ids {
            CandidateIds::Ranked(order) => Some(order),
            CandidateIds::Runs(_) => None,
        }
    }

    /// Scrolling rows of the agent view: the included resources, the cut line, the left-out
    /// heading and entries, the missing-marks heading and entries (see [`row`]).
    pub fn row_count(&self) -> usize {
        row_count(&self.preview)
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

/// One scrolling row of the agent view, in the order the view shows them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Row<'a> {
    /// An included resource; `rank` counts from 0 in the order the agent receives them.
    Included {
        rank: usize,
        entry: &'a crate::context::Included,
    },
    /// The cut line (or the end, without a budget), after the included resources.
    CutLine,
    /// The heading over what is left out (shown when anything is).
    LeftOutHeading,
    LeftOut(&'a crate::context::LeftOut),
    /// A mark on a server that could not be listed, with the left-out resources.
    Unavailable(&'a crate::context::Unavailable),
    /// The heading over the marks that match nothing (shown when any do).
    MissingHeading,
    Missing(&'a crate::context::Missing),
}

/// The kinds of row with how many of each `p` has, in the order the view shows them.
fn sections(p: &Preview) -> [(RowKind, usize); 7] {
    let left_out = p.left_out.len() + p.unavailable.len() > 0;
    [
        (RowKind::Included, p.included.len()),
        (RowKind::CutLine, 1),
        (RowKind::LeftOutHeading, usize::from(left_out)),
        (RowKind::LeftOut, p.left_out.len()),
        (RowKind::Unavailable, p.unavailable.len()),
        (RowKind::MissingHeading, usize::from(!p.missing.is_empty())),
        (RowKind::Missing, p.missing.len()),
    ]
}

/// [`Row`] without its data.
#[derive(Debug, Clone, Copy)]
enum RowKind {
    Included,
    CutLine,
    LeftOutHeading,
    LeftOut,
    Unavailable,
    MissingHeading,
    Missing,
}

/// How many rows the agent view has for `p`.
pub fn row_count(p: &Preview) -> usize {
    sections(p).iter().map(|(_, n)| n).sum()
}

/// The agent view's row `index` for `p` (`None` past the last).
pub fn row(p: &Preview, index: usize) -> Option<Row<'_>> {
    let mut i = index;
    for (kind, n) in sections(p) {
        if i >= n {
            i -= n;
            continue;
        }
        return match kind {
            RowKind::Included => p
                .included
                .get(i)
                .map(|entry| Row::Included { rank: i, entry }),
            RowKind::CutLine => Some(Row::CutLine),
            RowKind::LeftOutHeading => Some(Row::LeftOutHeading),
            RowKind::LeftOut => p.left_out.get(i).map(Row::LeftOut),
            RowKind::Unavailable => p.unavailable.get(i).map(Row::Unavailable),
            RowKind::MissingHeading => Some(Row::MissingHeading),
            RowKind::Missing => p.missing.get(i).map(Row::Missing),
        };
    }
    None
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
    /// The last resolution's rank order, to advance rather than sort again.
    pub ranking: Option<Ranking>,
    /// mcpick's own outputs, left out ([`crate::context::OwnOutputs`]).
    pub own: Arc<crate::context::OwnOutputs>,
}

/// A kept rank order and what the catalogue changed since its snapshot besides appends.
#[derive(Debug, Clone)]
pub struct Ranking {
    pub order: Arc<RankOrder>,
    /// The ids removed, changed in place or superseded since
    /// ([`crate::catalog::Catalogue::touched_since`] for the order's extent).
    pub touched: Vec<ItemId>,
}

impl ResolveRequest {
    /// The rank order of the request's snapshot: the last one advanced through what changed
    /// since, or (none kept, or the catalogue's record does not reach back) a whole sort.
    pub fn rank_order(&self) -> Arc<RankOrder> {
        match &self.ranking {
            Some(r) => r.order.advance(&self.snapshot, Some(&r.touched)),
            None => Arc::new(RankOrder::of(&self.snapshot)),
        }
    }
}

/// Resolves a request: the same [`resolve`] `mcpick preview` runs, on a snapshot, over the
/// candidates in the kept rank order (so it walks them, not sorts them).
pub fn resolve_snapshot(req: &ResolveRequest) -> AgentPreview {
    let order = req.rank_order();
    let sources = Sources::ranked(&order, &req.snapshot, &req.listed, &req.unavailable)
        .leaving_out(Arc::clone(&req.own));
    let preview = sources.resolve(&req.marks, &req.policy, &req.measures);
    drop(sources);
    AgentPreview {
        generation: req.generation,
        preview,
        ids: CandidateIds::Ranked(order),
    }
}

/// The next host choice after `host` (`None`: the plain preview): the hosts with a
/// session-start channel, in the hand-off library's order, then back to the plain preview.
pub fn next_host(host: Option<Host>) -> Option<Host> {
    let mut hosts = crate::handoff::profiles::with_session_channel();
    match host {
        None => hosts.next(),
        Some(h) => hosts.skip_while(|&x| x != h).nth(1),
    }
}

/// What one host's model receives at session start: the same delivery `mcpick preview
/// --host` shows (its channel, its cut at whole resources, its wrapper warnings), made from the
/// agent view's resolution read whole.
#[derive(Debug, Clone)]
pub struct HostPreview {
    pub host: Host,
    /// `included`: what the channel carries; `left_out` starts with what it could not
    /// (`host limit`, with where else to reach it). `generation`: the resolution it was made
    /// from.
    pub agent: AgentPreview,
    /// What carries the text ("a `CLAUDE.md` import").
    pub what: &'static str,
    /// Where the channel's figures come from, when not measured ([`Channel::provenance`]).
    ///
    /// [`Channel::provenance`]: crate::handoff::Channel::provenance
    pub provenance: &'static str,
    /// Bytes of the file the host reads.
    pub bytes: usize,
    /// Resources holding the host's wrapper tags; a `context` tool answer over the host's cut.
    pub warnings: Vec<String>,
    /// What the next turn of the host's running sessions will be given ("next turn: +2 −1"),
    /// when it has running sessions ([`crate::handoff::live::next_turns`]).
    pub next_turn: Option<String>,
    /// What goes to the host as skills, not inline (`as a skill: NAME …`, one line each).
    pub skills: Vec<String>,
    /// The host on `PATH` is another version than its facts were measured on (as `install`
    /// and `preview --host` say it).
    pub drift: Option<String>,
}

impl HostPreview {
    /// Resources of the resolution the channel could not carry.
    pub fn cut(&self) -> usize {
        self.agent
            .preview
            .left_out
            .iter()
            .filter(|l| matches!(l.reason, Reason::HostLimit(_)))
            .count()
    }
}

/// `host`'s delivery of a resolution read whole (`contents`, over the request's candidates
/// in the rank order `order`: built once, for the reads and for this), for the set file
/// `set`, served under the default name.
pub fn host_preview(
    host: Host,
    set: &Path,
    request: &ResolveRequest,
    order: Arc<RankOrder>,
    contents: crate::handoff::Contents<'_, '_>,
) -> Result<HostPreview, String> {
    let (channel, delivered) = crate::handoff::start::for_host(
        host,
        None,
        super::app::handoff::DEFAULT_NAME,
        set,
        contents,
    )?;
    Ok(HostPreview {
        host,
        agent: AgentPreview {
            generation: request.generation,
            preview: delivered.preview,
            ids: CandidateIds::Ranked(order),
        },
        what: channel.what,
        provenance: channel.provenance(),
        bytes: delivered.file.len(),
        skills: delivered
            .skills
            .iter()
            .map(crate::handoff::skills::line)
            .collect(),
        // A skill held back (it carries behaviour, or changed since it was accepted) is said
        // here as `preview --host` says it.
        warnings: delivered
            .warnings
            .into_iter()
            .chain(delivered.refused_skills)
            .collect(),
        next_turn: next_turn(host, set),
        drift: crate::handoff::version::drift(host).map(|d| d.said()),
    })
}

/// "next turn: +2 −1 ~0" for the running sessions of `host` over `set` (the largest of
/// them, and how many there are), `None` when none runs; for a host that reads its file again
/// before every model call, that its next turn gets the file whole.
fn next_turn(host: Host, set: &Path) -> Option<String> {
    if crate::handoff::live::every_call_channel(host).is_some() {
        return Some("next turn: the same, whole (read again before every model call)".into());
    }
    let turns =
        crate::handoff::live::next_turns(host, set, super::app::handoff::DEFAULT_NAME).ok()?;
    let running: Vec<_> = turns.iter().filter(|t| t.session.is_some()).collect();
    let most = running
        .iter()
        .max_by_key(|t| t.added + t.withdrawn + t.changed)?;
    Some(format!(
        "next turn{}: +{} −{} ~{}",
        if running.len() > 1 {
            format!(" (of {} running sessions, the most)", running.len())
        } else {
            String::new()
        },
        most.added,
        most.withdrawn,
        most.changed
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_steps() {
        use Budget::{All, Tokens, Unset};
        assert_eq!(step_budget(Unset, false), Unset);
        assert_eq!(step_budget(Unset, true), Tokens(500));
        assert_eq!(step_budget(All, true), All);
        assert_eq!(step_budget(All, false), Tokens(1_000_000));
        assert_eq!(step_budget(Tokens(1_000_000), true), All);
        assert_eq!(step_budget(Tokens(8_000), true), Tokens(16_000));
        assert_eq!(step_budget(Tokens(5_000), true), Tokens(8_000));
        assert_eq!(step_budget(Tokens(5_000), false), Tokens(4_000));
        assert_eq!(step_budget(Tokens(500), false), Unset);
        assert_eq!(step_budget(Tokens(10), false), Unset);
    }

    #[test]
    fn rows_follow_the_sections_and_skip_empty_headings() {
        use crate::context::{Included, LeftOut, Mark, Missing, Target, Unavailable};
        let included = |index| Included {
            index,
            tokens: 10,
            estimated: false,
            running_total: 10,
            pinned: false,
            priority: 0.5,
            priority_defaulted: true,
        };
        let mut p = Preview {
            budget: Budget::Unset,
            tokenizer: Default::default(),
            included: vec![included(0), included(1)],
            total_tokens: 20,
            left_out: Vec::new(),
            pins_over_budget: false,
            missing: Vec::new(),
            unavailable: Vec::new(),
        };
        // Without anything left out or missing: the resources and the end line only.
        assert_eq!(row_count(&p), 3);
        assert!(matches!(row(&p, 1), Some(Row::Included { rank: 1, .. })));
        assert_eq!(row(&p, 2), Some(Row::CutLine));
        assert_eq!(row(&p, 3), None);
        p.left_out.push(LeftOut {
            index: 2,
            reason: Reason::Excluded,
            tokens: None,
            estimated: false,
        });
        let target = Target::exact("demo", "demo://gone");
        p.unavailable.push(Unavailable {
            target: target.clone(),
            mark: Mark::Pin,
            error: "down".into(),
        });
        p.missing.push(Missing {
            target,
            mark: Mark::Exclude,
        });
        let kinds: Vec<_> = (0..row_count(&p))
            .map(|i| match row(&p, i) {
                Some(Row::Included { rank, entry }) => format!("included {rank} {}", entry.index),
                Some(Row::LeftOut(l)) => format!("left out {}", l.index),
                Some(Row::Unavailable(u)) => format!("unavailable {}", u.error),
                Some(Row::Missing(m)) => format!("missing {}", m.mark.name()),
                Some(other) => format!("{other:?}"),
                None => "none".into(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "included 0 0",
                "included 1 1",
                "CutLine",
                "LeftOutHeading",
                "left out 2",
                "unavailable down",
                "MissingHeading",
                "missing exclude",
            ]
        );
        assert_eq!(row(&p, row_count(&p)), None);
    }

    #[test]
    fn host_choice_steps_through_every_channel_then_back() {
        let mut seen = Vec::new();
        let mut h = next_host(None);
        while let Some(host) = h {
            seen.push(host);
            h = next_host(Some(host));
        }
        assert_eq!(
            seen,
            [
                Host::ClaudeCode,
                Host::Gemini,
                Host::Codex,
                Host::OpenCode,
                Host::CopilotCli,
                Host::QwenCode,
                Host::Kilo,
                Host::Cline,
                Host::Pi,
                Host::VsCode,
                Host::Cursor,
                Host::Windsurf
            ]
        );
        for &host in &seen {
            assert!(
                crate::handoff::profiles::of(host).start.is_some(),
                "{host:?}"
            );
        }
    }
}
