//! The context set being edited and what is derived from it: marks (keys that set them, what
//! they target), the policy, saves and merges with other processes, resolution into the
//! agent's preview, token counts, and the agent view.

use std::collections::HashSet;
use std::sync::Arc;

use super::super::agent::{AgentPreview, HostPreview, Ranking, ResolveRequest, next_host};
use super::super::keymap::{Action, Mode};
use super::super::text::thousands;
use super::job::Job;
use super::{App, Effect, SaveFailure, SaveReport, Status};
use crate::catalog::{Catalogue, ItemId, ServerId};
use crate::context::{
    ContextSet, Effective, Mark, Marks, Measure, Measures, SetChange, Target, TokenizerKind,
};
use crate::hosts::Host;
use crate::sanitize;

/// Counts of a batch recorded between two resolutions of the agent view.
const RESOLVE_EVERY_COUNTS: usize = 16;

/// The context set being edited, and everything derived from it: each job its own small
/// state, owning its fields.
#[derive(Debug, Default)]
pub struct ContextState {
    pub set: ContextSet,
    /// Where the set lives and how changes reach the file.
    pub saving: Saving,
    /// Token counts known, and the batch being read.
    pub counts: Counts,
    /// The latest resolution.
    pub agent: Option<Arc<AgentPreview>>,
    /// The agent view's resolution (latest wins).
    pub resolve: Job,
    /// Catalogue size at the last resolution requested (see `App::on_server`'s pages).
    pub resolved_len: usize,
    /// The agent view on screen: open, scrolled, the host chosen.
    pub view: AgentView,
    /// What mcpick writes for this set (its deliveries, the host files install edits), left
    /// out wherever a server lists them; read from the delivery record at start.
    pub own: Arc<crate::context::OwnOutputs>,
    /// The set file whose deliveries are due to be written again once every server is
    /// listed ([`App::redeliver_when_listed`]).
    pub redeliver: Option<std::path::PathBuf>,
}

/// The save protocol: what the file held, what this browser sent, what failed.
#[derive(Debug, Default)]
pub struct Saving {
    /// Why the set file could not be loaded: saving is off so the file is never overwritten.
    pub load_error: Option<String>,
    /// The last save failed: why (marks are kept in memory).
    pub save_error: Option<String>,
    /// The set as last seen on disk plus the changes this browser sent since: a change's
    /// "before" comes from here (see [`crate::context::SetChange::between`]).
    pub base: ContextSet,
    /// Changes whose save failed, sent again with the next one.
    pub failed_change: Option<SetChange>,
    /// Another process changed the file while a save of ours was on its way: take the
    /// file's state from the next save's answer.
    pub others_pending: bool,
    /// Changes were made while saving is off (the file could not be loaded).
    pub unsaved: bool,
    /// Saves asked for / confirmed (by sequence number).
    pub save_seq: u64,
    pub saved_seq: u64,
    /// The set file as a person would type it (`./mcpick.context.json`), for the one
    /// message saying where the first change was saved.
    pub path: Option<String>,
    /// The set file itself (what the hand-off installs).
    pub file: Option<std::path::PathBuf>,
    /// That message was shown.
    pub announced: bool,
    /// Said with that message: the secrets the set records masked, kept on this machine.
    pub secrets_note: Option<String>,
}

/// Pins counted per background job with the agent view closed: the next batch follows the
/// resolution the last one brings, so a huge folder of pins is read a batch at a time and
/// stops once the verdict is certain.
const PIN_BATCH: usize = 256;
/// The most included resources the browser reads in the background, with the agent view
/// closed, to count their tokens: above it the status line's figure stays an estimate (and
/// says how much of it is counted); the agent view counts what it shows.
pub const BACKGROUND_COUNT_MAX: usize = 2_000;

impl Saving {
    pub fn can_save(&self) -> bool {
        self.load_error.is_none()
    }

    /// The save of what changed in `set` at `touched` since the last one (with a failed
    /// one's change), or none when nothing changed or saving is off; the base moves on.
    fn record(&mut self, set: &ContextSet, touched: Vec<Target>) -> Option<Effect> {
        let change = SetChange::between(&self.base, set, touched.iter().cloned());
        for target in touched {
            let now = set.marks.get(&target);
            self.base.marks.set(target, now);
        }
        self.base.marks.clear_history();
        self.base.policy = set.policy;
        if change.is_empty() {
            return None;
        }
        if !self.can_save() {
            self.unsaved = true;
            return None;
        }
        let change = match self.failed_change.take() {
            Some(failed) => failed.then(change),
            None => change,
        };
        self.save_seq += 1;
        Some(Effect::Save {
            seq: self.save_seq,
            change,
        })
    }

    /// A save of ours is on its way or must be sent again: its answer brings the file's
    /// state, so another process's change waits for it.
    fn in_flight(&self) -> bool {
        self.save_seq != self.saved_seq || self.failed_change.is_some()
    }
}

/// Token counts: what is known, and the batch of reads in flight.
#[derive(Debug, Default)]
pub struct Counts {
    pub measures: Measures,
    /// Reads for token counts in flight (the current batch).
    pub measuring: HashSet<ItemId>,
    /// The batch in flight (a new batch replaces it).
    pub job: Job,
    /// Counts recorded since the last resolution was asked for.
    pub unresolved: usize,
    /// Size of the current batch (for progress).
    pub batch: usize,
}

impl Counts {
    /// (done, total) of the batch in flight; `None` when nothing is read.
    pub fn progress(&self) -> Option<(usize, usize)> {
        (!self.measuring.is_empty()).then(|| (self.batch - self.measuring.len(), self.batch))
    }

    /// Records a count; true when a resolution should follow now: the batch is done, or
    /// enough counts came in since the last one (a resolution costs the whole catalogue).
    fn record(&mut self, generation: u64, item: ItemId) -> bool {
        if generation == self.job.generation() {
            self.measuring.remove(&item);
        }
        self.unresolved += 1;
        self.measuring.is_empty() || self.unresolved >= RESOLVE_EVERY_COUNTS
    }
}

/// The agent view on screen.
#[derive(Debug, Default)]
pub struct AgentView {
    /// The agent view is open.
    pub open: bool,
    /// First row shown.
    pub scroll: usize,
    /// The host whose session-start delivery the view shows (`H`); `None`: the plain
    /// preview.
    pub host: Option<Host>,
    /// The latest delivery made for a host (maybe for an earlier resolution or host).
    pub host_preview: Option<Arc<HostPreview>>,
    /// Why the last one could not be made.
    pub host_error: Option<String>,
    /// The (resolution generation, host) last asked for.
    pub host_asked: Option<(u64, Host)>,
}

impl AgentView {
    /// The delivery shown for the chosen host: the latest one made for it (for an earlier
    /// resolution until the next arrives).
    pub fn host_view(&self) -> Option<&HostPreview> {
        let host = self.host?;
        self.host_preview.as_deref().filter(|p| p.host == host)
    }
}

impl ContextState {
    pub fn new(set: ContextSet, load_error: Option<String>) -> Self {
        ContextState {
            set,
            saving: Saving {
                load_error,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    /// The delivery the agent view shows for the chosen host.
    pub fn host_view(&self) -> Option<&HostPreview> {
        self.view.host_view()
    }

    /// The host's delivery is for an earlier resolution than the latest (or not made yet).
    pub fn host_stale(&self) -> bool {
        match (self.host_view(), &self.agent) {
            (Some(h), Some(a)) => h.agent.generation != a.generation,
            _ => self.view.host.is_some(),
        }
    }

    /// The rows the agent view shows: the chosen host's delivery, or the plain preview.
    pub fn shown_agent(&self) -> Option<&AgentPreview> {
        match self.view.host {
            Some(_) => self.host_view().map(|h| &h.agent),
            None => self.agent.as_deref(),
        }
    }

    pub fn can_save(&self) -> bool {
        self.saving.can_save()
    }
}

impl App {
    /// The mark that decides a resource (its own or inherited).
    pub fn mark_of(&self, id: ItemId) -> Option<Effective<'_>> {
        mark_of(&self.catalogue, &self.context.set.marks, id)
    }

    /// A mark key: `folder` for the folder keys (a `•` row's URI prefix rather than the
    /// resource).
    pub(super) fn mark_selected(&mut self, mark: Option<Mark>, folder: bool) -> Vec<Effect> {
        let Some(target) = self.mark_target(folder) else {
            self.info = Some(if folder {
                "not a folder: the folder keys mark a tree folder's URI prefix".into()
            } else {
                "nothing to mark here".into()
            });
            return Vec::new();
        };
        let shown = sanitize::line(&target.pattern.to_string(), 200);
        let marks = &mut self.context.set.marks;
        let changed = match mark {
            Some(m) => {
                let now = marks.toggle(target.clone(), m);
                self.info = Some(match now {
                    Some(Mark::Pin) => format!("pinned {shown}"),
                    Some(Mark::Exclude) => format!("excluded {shown}"),
                    None => format!("unmarked {shown}"),
                });
                true
            }
            None => {
                let changed = marks.set(target.clone(), None);
                self.info = Some(if changed {
                    format!("unmarked {shown}")
                } else if let crate::context::Pattern::Exact(uri) = &target.pattern
                    && let Some(e) = marks.effective(&target.server, uri)
                    && let Some(p) = e.prefix
                {
                    format!(
                        "{shown}: the {} mark comes from {}*; unmark that folder",
                        e.mark.name(),
                        sanitize::line(p, 200)
                    )
                } else {
                    format!("{shown} has no mark")
                });
                changed
            }
        };
        if changed {
            self.context_changed(vec![target])
        } else {
            Vec::new()
        }
    }

    /// `P`/`X`: every current search result at once, once the person has seen how many (the
    /// first press says it; the same key again, on the same results, marks them: `said`).
    pub(super) fn mark_results(
        &mut self,
        mark: Mark,
        said: Option<(Mark, String, usize)>,
    ) -> Vec<Effect> {
        let ids: Vec<ItemId> = match &self.search.matched {
            Some(m) if !self.search.query.is_empty() => m.clone(),
            _ => {
                self.info = Some("no search results to mark: search first".into());
                return Vec::new();
            }
        };
        let now = (mark, self.search.query.clone(), ids.len());
        if said.as_ref() != Some(&now) {
            let action = match mark {
                Mark::Pin => Action::PinResults,
                Mark::Exclude => Action::ExcludeResults,
            };
            let key = self.keymap.hint(Mode::Browse, action).unwrap_or_default();
            self.info = Some(format!(
                "{key} again {} {} search result{} (any other key leaves them)",
                if mark == Mark::Pin {
                    "pins"
                } else {
                    "excludes"
                },
                thousands(ids.len()),
                if ids.len() == 1 { "" } else { "s" }
            ));
            self.bulk = Some(now);
            return Vec::new();
        }
        let targets: Vec<Target> = ids
            .iter()
            .filter_map(|&id| {
                let item = self.catalogue.get(id)?;
                Some(Target::exact(
                    self.catalogue.server_name(id.server).as_ref(),
                    item.uri(),
                ))
            })
            .collect();
        let n = self.context.set.marks.set_many(targets.clone(), Some(mark));
        self.info = Some(format!(
            "{} {} search result{} (u undoes)",
            if mark == Mark::Pin {
                "pinned"
            } else {
                "excluded"
            },
            thousands(n),
            if n == 1 { "" } else { "s" }
        ));
        if n > 0 {
            self.context_changed(targets)
        } else {
            Vec::new()
        }
    }

    pub(super) fn undo(&mut self) -> Vec<Effect> {
        match self.context.set.marks.undo() {
            Some(targets) => {
                self.info = Some(format!(
                    "undone: {} mark{}",
                    targets.len(),
                    if targets.len() == 1 { "" } else { "s" }
                ));
                self.context_changed(targets)
            }
            None => {
                self.info = Some("nothing to undo".into());
                Vec::new()
            }
        }
    }

    pub(super) fn toggle_agent(&mut self) -> Vec<Effect> {
        self.context.view.open = !self.context.view.open;
        self.context.view.scroll = 0;
        if self.context.view.open {
            // The view's rows first: a background batch (the pins, or the whole set for the
            // status line) gives way, latest wins, and goes on after the view's counts.
            let mut fx = Vec::new();
            if !self.context.counts.measuring.is_empty() {
                self.context.counts.measuring.clear();
                fx.push(Effect::CancelMeasure);
            }
            fx.extend(self.sync_measure());
            fx.extend(self.sync_host());
            fx
        } else if !self.context.counts.measuring.is_empty() {
            self.context.counts.measuring.clear();
            // The view's counts stop; the background's (the status line's) go on.
            let mut fx = vec![Effect::CancelMeasure];
            fx.extend(self.sync_measure());
            fx
        } else {
            Vec::new()
        }
    }

    /// `H` in the agent view: the next host's session-start delivery, then the plain preview.
    pub(super) fn cycle_host(&mut self) -> Vec<Effect> {
        let c = &mut self.context;
        c.view.host = next_host(c.view.host);
        c.view.host_error = None;
        c.view.scroll = 0;
        self.sync_host()
    }

    /// Asks for the chosen host's delivery of the latest resolution once its figures are
    /// final (it reads every included resource: not for each step of a resolution on its way).
    pub(super) fn sync_host(&mut self) -> Vec<Effect> {
        let c = &self.context;
        let Some(host) = c.view.host else {
            return Vec::new();
        };
        let Some(agent) = &c.agent else {
            return Vec::new();
        };
        let generation = agent.generation;
        if !c.view.open
            || !c.counts.measuring.is_empty()
            || c.view.host_asked == Some((generation, host))
            || self.figures_pending().is_some()
        {
            return Vec::new();
        }
        let set = c
            .saving
            .file
            .clone()
            .unwrap_or_else(|| super::handoff::DEFAULT_SET.into());
        self.context.view.host_asked = Some((generation, host));
        vec![Effect::HostPreview {
            host,
            set,
            request: Box::new(self.resolve_request(generation)),
        }]
    }

    pub(super) fn on_host_previewed(
        &mut self,
        host: Host,
        result: Result<HostPreview, String>,
    ) -> Vec<Effect> {
        let c = &mut self.context;
        if c.view.host != Some(host) {
            return Vec::new();
        }
        match result {
            Ok(p) => {
                c.view.host_error = None;
                c.view.host_preview = Some(Arc::new(p));
            }
            Err(why) => c.view.host_error = Some(sanitize::line(&why, 500)),
        }
        let rows = self.context.shown_agent().map_or(1, |a| a.row_count());
        self.context.view.scroll = self.context.view.scroll.min(rows.saturating_sub(1));
        Vec::new()
    }

    pub(super) fn scroll_agent(&mut self, action: Action, page: isize) {
        let rows = self.context.shown_agent().map_or(1, |a| a.row_count());
        let delta = match action {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -page,
            Action::PageDown => page,
            Action::Top => isize::MIN / 2,
            Action::Bottom => isize::MAX / 2,
            _ => 0,
        };
        let s = self.context.view.scroll as isize;
        self.context.view.scroll = s
            .saturating_add(delta)
            .clamp(0, rows.saturating_sub(1) as isize) as usize;
    }

    /// After a mark or policy change (`touched`: the targets whose marks may have changed):
    /// save the change and resolve again. The save carries the change, not the set: it is
    /// applied to the file as other processes left it.
    pub(super) fn context_changed(&mut self, touched: Vec<Target>) -> Vec<Effect> {
        self.forget_unmarked_expansions(&touched);
        let c = &mut self.context;
        let mut fx: Vec<Effect> = c.saving.record(&c.set, touched).into_iter().collect();
        fx.extend(self.request_resolve());
        fx
    }

    /// Expansions read in the browser (resources no server lists) whose exact mark `touched`
    /// took away leave the catalogue: `preview` knows an expansion only by its exact mark
    /// ([`crate::context::expansion::expansions`]), and the agent view resolves what the
    /// catalogue holds, so both see the same expansions.
    pub(super) fn forget_unmarked_expansions(&mut self, touched: &[Target]) {
        let mut gone = false;
        for t in touched {
            let crate::context::Pattern::Exact(uri) = &t.pattern else {
                continue;
            };
            if self.context.set.marks.get(t).is_some() {
                continue;
            }
            let Some(server) = (0..self.catalogue.server_count())
                .map(|s| s as ServerId)
                .find(|&s| **self.catalogue.server_name(s) == *t.server)
            else {
                continue;
            };
            let Some(id) = self.catalogue.find(server, uri) else {
                continue;
            };
            if let Some(uri) = self.catalogue.remove_unlisted(id) {
                self.take_out(server, &[(id, uri)]);
                gone = true;
            }
        }
        if gone {
            self.browse.list_stale = true;
            self.reanchor();
            self.clamp();
        }
    }

    /// Takes the set as another process left it (merged with this browser's saves): marks,
    /// policy and their definitions; the undo history stays.
    pub(super) fn adopt(&mut self, disk: ContextSet) -> Vec<Effect> {
        let c = &mut self.context;
        if disk.policy.tokenizer != c.set.policy.tokenizer {
            c.counts.measures.clear();
        }
        // Exact marks the other process took away: an expansion they held leaves the tree.
        let exact: Vec<Target> = c
            .set
            .marks
            .iter()
            .map(|(t, _)| t)
            .filter(|t| !t.pattern.is_prefix() && disk.marks.get(t).is_none())
            .collect();
        c.set.marks.adopt(disk.marks.clone());
        c.set.policy = disk.policy;
        for (name, spec) in &disk.servers {
            c.set
                .servers
                .entry(name.clone())
                .or_insert_with(|| spec.clone());
        }
        c.set.extra = disk.extra.clone();
        c.saving.base = disk;
        c.saving.others_pending = false;
        self.forget_unmarked_expansions(&exact);
        self.request_resolve()
    }

    /// The runtime saw another process save the set file.
    pub(super) fn on_set_on_disk(&mut self, disk: ContextSet) -> Vec<Effect> {
        let c = &self.context;
        if !c.can_save() {
            return Vec::new();
        }
        if c.saving.in_flight() {
            // A save of ours is on its way (or must be sent again): it merges, and its
            // answer brings the file's state.
            self.context.saving.others_pending = true;
            return Vec::new();
        }
        let n = disk.marks.len();
        self.info = Some(format!(
            "reloaded: another process changed the set ({n} mark{})",
            if n == 1 { "" } else { "s" }
        ));
        self.adopt(disk)
    }

    /// Why the agent view's figures (the meter, the counts, the cut line) are not final yet:
    /// a resolution still to come for the marks, policy or resources as they are now, or a
    /// listing still arriving. `None`: they are final (counts may still be estimates, `~`).
    pub fn figures_pending(&self) -> Option<&'static str> {
        let c = &self.context;
        if c.agent.is_none() || c.resolve.busy() || c.resolved_len != self.catalogue.len() {
            return Some("resolving…");
        }
        if self
            .servers
            .iter()
            .any(|s| matches!(s.status, Status::Connecting | Status::Loading { .. }))
        {
            return Some("listing…");
        }
        None
    }

    /// The marks settled and the set at `set` has a delivery: it is written again through the
    /// browser's own connections and catalogue ([`Effect::Redeliver`]) once every server is
    /// listed, so no delivery is made of a half-listed catalogue.
    pub(super) fn on_redeliver(&mut self, set: std::path::PathBuf) -> Vec<Effect> {
        self.context.redeliver = Some(set);
        self.redeliver_when_listed()
    }

    /// [`Effect::Redeliver`] for a due delivery, when no server is connecting or listing.
    pub(super) fn redeliver_when_listed(&mut self) -> Vec<Effect> {
        if self.context.redeliver.is_none()
            || self
                .servers
                .iter()
                .any(|s| matches!(s.status, Status::Connecting | Status::Loading { .. }))
        {
            return Vec::new();
        }
        let Some(set) = self.context.redeliver.take() else {
            return Vec::new();
        };
        vec![Effect::Redeliver {
            set,
            request: Box::new(self.resolve_request(0)),
        }]
    }

    /// Asks for a resolution, or (one in flight) for one more after it.
    pub(super) fn request_resolve(&mut self) -> Vec<Effect> {
        let c = &mut self.context;
        let Some(generation) = c.resolve.request() else {
            return Vec::new();
        };
        c.resolved_len = self.catalogue.len();
        c.counts.unresolved = 0;
        vec![Effect::Resolve(Box::new(self.resolve_request(generation)))]
    }

    /// What a resolution of the current catalogue, marks and policy needs (the agent view's,
    /// and the bundle `Y` copies).
    pub(super) fn resolve_request(&self, generation: u64) -> ResolveRequest {
        let listed = self
            .servers
            .iter()
            .filter(|s| matches!(s.status, Status::Ready { .. } | Status::NoResources))
            .map(|s| s.name.clone())
            .collect();
        let unavailable = self
            .servers
            .iter()
            .filter_map(|s| match &s.status {
                Status::Failed(why) => Some((s.name.clone(), why.why.clone())),
                _ => None,
            })
            .collect();
        ResolveRequest {
            generation,
            snapshot: self.catalogue.snapshot(),
            names: (0..self.catalogue.server_count())
                .map(|s| self.catalogue.server_name(s as ServerId).clone())
                .collect(),
            listed,
            unavailable,
            marks: self.context.set.marks.clone(),
            policy: self.context.set.policy,
            measures: self.context.counts.measures.clone(),
            own: Arc::clone(&self.context.own),
            ranking: self.context.agent.as_ref().and_then(|agent| {
                let order = agent.order()?;
                Some(Ranking {
                    touched: self.catalogue.touched_since(order.extent())?,
                    order: Arc::clone(order),
                })
            }),
        }
    }

    pub(super) fn on_resolved(&mut self, agent: Arc<AgentPreview>) -> Vec<Effect> {
        let Some(again) = self.context.resolve.finish(agent.generation) else {
            return Vec::new(); // stale
        };
        // Resolving a big catalogue came and went through the allocator on another thread
        // (a row per resource, ranked): hand that memory back, as after a big listing.
        let mut fx = Vec::new();
        if agent.ids.len() >= super::servers::RELEASE_AFTER {
            fx.push(Effect::ReleaseMemory);
        }
        self.context.agent = Some(agent);
        if again {
            fx.extend(self.request_resolve());
        } else {
            fx.extend(self.sync_measure());
        }
        if self.context.view.open {
            let rows = self.context.shown_agent().map_or(1, |a| a.row_count());
            self.context.view.scroll = self.context.view.scroll.min(rows.saturating_sub(1));
            fx.extend(self.sync_host());
        }
        fx
    }

    /// Starts reads for the counts the latest resolution still estimates (what
    /// [`crate::context::Preview::to_measure_shown`] names for the rows on screen), unless
    /// they are all in flight.
    pub(super) fn sync_measure(&mut self) -> Vec<Effect> {
        let Some(agent) = &self.context.agent else {
            return Vec::new();
        };
        if self.context.view.host.is_some() {
            // A host's delivery is made from the resolution read whole: nothing to count.
            return Vec::new();
        }
        let wanted: Vec<usize> = if self.context.view.open {
            // The agent view's rows on screen (and a screenful either side, read ahead).
            let page = self.page_rows();
            let scroll = self.context.view.scroll;
            agent
                .preview
                .to_measure_shown(scroll.saturating_sub(page)..scroll + 2 * page)
        } else {
            // Closed: what the budget meter's `!` rests on first, the pins (a guess from
            // `size`, or none, must not say "over budget"); then the rest of what is included,
            // so the status line's figure becomes the counted one (a guess for a server that
            // gives no `size` was off by half), when the set is small enough to read whole.
            let pins = agent.preview.pins_to_measure(PIN_BATCH);
            if !pins.is_empty() || agent.preview.included.len() > BACKGROUND_COUNT_MAX {
                pins
            } else {
                agent
                    .preview
                    .to_measure()
                    .into_iter()
                    .take(PIN_BATCH)
                    .collect()
            }
        };
        let mut items = Vec::new();
        for index in wanted {
            let Some(id) = agent.id(index) else { continue };
            let Some(item) = self.catalogue.get(id) else {
                continue;
            };
            let server = self.catalogue.server_name(id.server);
            if self
                .context
                .counts
                .measures
                .get(server, item.uri())
                .is_none()
            {
                let label = crate::context::content::label(item.display_name(), item.uri());
                items.push((id, item.uri().to_string(), label));
            }
        }
        if items.is_empty()
            || items
                .iter()
                .all(|(id, _, _)| self.context.counts.measuring.contains(id))
        {
            return Vec::new();
        }
        let c = &mut self.context;
        let generation = c.counts.job.start();
        c.counts.measuring = items.iter().map(|(id, _, _)| *id).collect();
        c.counts.batch = items.len();
        vec![Effect::Measure {
            generation,
            tokenizer: c.set.policy.tokenizer,
            items,
        }]
    }

    pub(super) fn on_measured(
        &mut self,
        generation: u64,
        tokenizer: TokenizerKind,
        item: ItemId,
        measure: Measure,
    ) -> Vec<Effect> {
        if tokenizer != self.context.set.policy.tokenizer {
            return Vec::new();
        }
        let resolve_now = self.context.counts.record(generation, item);
        let Some(resource) = self.catalogue.get(item) else {
            return Vec::new();
        };
        let server = self.catalogue.server_name(item.server).clone();
        self.context
            .counts
            .measures
            .insert(&server, resource.uri(), measure);
        // A resolution costs the whole catalogue: one per batch of counts (and every few
        // counts of a long one, so the view moves), not one per count.
        if resolve_now {
            self.request_resolve()
        } else {
            Vec::new()
        }
    }

    pub(super) fn on_saved(
        &mut self,
        seq: u64,
        result: Result<SaveReport, SaveFailure>,
    ) -> Vec<Effect> {
        let c = &mut self.context;
        let report = match result {
            Err(failure) => {
                c.saving.save_error = Some(sanitize::line(&failure.error, 500));
                // Sent again with the next change (marks stay in memory meanwhile).
                c.saving.failed_change = Some(match c.saving.failed_change.take() {
                    Some(earlier) => earlier.then(failure.change),
                    None => failure.change,
                });
                return Vec::new();
            }
            Ok(report) => report,
        };
        if seq >= c.saving.saved_seq {
            c.saving.saved_seq = seq;
            if c.saving.failed_change.is_none() {
                c.saving.save_error = None;
            }
        }
        if !c.saving.announced
            && let Some(path) = &c.saving.path
        {
            // Once a session: where marks go.
            let mut note = format!("saved to {path}");
            if let Some(secrets) = &c.saving.secrets_note {
                note.push_str(&format!(" · {secrets}"));
            }
            c.saving.announced = true;
            self.info = Some(match self.info.take() {
                Some(info) => format!("{info} · {note}"),
                None => note,
            });
        }
        let conflicts = report.applied.conflicts.len() + report.applied.policy_conflicts.len();
        if conflicts > 0 {
            self.info = Some(format!(
                "{conflicts} change{} also made differently by another process: yours kept (the last save wins)",
                if conflicts == 1 { " was" } else { "s were" }
            ));
        }
        let c = &mut self.context;
        if !(report.others_changed || c.saving.others_pending) {
            return Vec::new();
        }
        if seq != c.saving.save_seq || c.saving.failed_change.is_some() {
            c.saving.others_pending = true;
            return Vec::new();
        }
        if conflicts == 0 {
            self.info = Some(format!(
                "merged: another process changed the set too ({} marks now)",
                report.set.marks.len()
            ));
        }
        self.adopt(*report.set)
    }

    /// (done, total) of the measuring batch in flight; `None` when nothing is measured.
    pub fn measure_progress(&self) -> Option<(usize, usize)> {
        self.context.counts.progress()
    }
}

/// The mark that decides a resource (its own or inherited).
pub fn mark_of<'a>(catalogue: &Catalogue, marks: &'a Marks, id: ItemId) -> Option<Effective<'a>> {
    let item = catalogue.get(id)?;
    marks.effective(catalogue.server_name(id.server), item.uri())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_saved_once_and_a_failed_one_rides_with_the_next() {
        let mut saving = Saving::default();
        let mut set = ContextSet::default();
        let t = Target::exact("s", "a://1");
        set.marks.set(t.clone(), Some(Mark::Pin));
        let Some(Effect::Save { seq: 1, change }) = saving.record(&set, vec![t.clone()]) else {
            panic!("a save")
        };
        assert!(!change.is_empty());
        assert!(saving.in_flight(), "not answered yet");
        assert!(
            saving.record(&set, vec![t.clone()]).is_none(),
            "nothing new"
        );
        saving.saved_seq = 1;
        saving.failed_change = Some(change);
        let u = Target::exact("s", "a://2");
        set.marks.set(u.clone(), Some(Mark::Exclude));
        let Some(Effect::Save { seq: 2, change }) = saving.record(&set, vec![u]) else {
            panic!("a save")
        };
        assert!(saving.failed_change.is_none(), "sent again with this one");
        let mut applied = ContextSet::default();
        change.apply(&mut applied);
        assert_eq!(applied.marks.len(), 2, "both changes");
        // Saving off: nothing is sent, the change is remembered as unsaved.
        let mut off = Saving {
            load_error: Some("corrupt".into()),
            ..Default::default()
        };
        assert!(off.record(&set, vec![t]).is_none());
        assert!(off.unsaved);
    }

    #[test]
    fn counts_ask_for_a_resolution_per_batch() {
        let mut counts = Counts::default();
        let generation = counts.job.start();
        let ids: Vec<ItemId> = (0..20).map(|index| ItemId { server: 0, index }).collect();
        counts.measuring = ids.iter().copied().collect();
        counts.batch = ids.len();
        let asked: Vec<bool> = ids
            .iter()
            .map(|&id| counts.record(generation, id))
            .collect();
        assert_eq!(counts.progress(), None, "all counted");
        // The 16th count and the last one.
        assert_eq!(asked.iter().filter(|a| **a).count(), 5, "{asked:?}");
        assert!(asked[15] && asked[19]);
    }
}
