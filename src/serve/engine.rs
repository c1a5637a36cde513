//! The state `serve` publishes and how it follows changes: the set file, upstream list
//! changes and updates of a resource whose count was used end in [`Engine::refresh`], which
//! resolves again exactly as `mcpick preview` does and tells connected clients only when
//! their list really changed.
//!
//! The engine exists before its upstreams are connected ([`Engine::start`]), so clients get
//! their handshake at once; what needs the published set waits for [`Engine::ready`], which
//! comes when every upstream has connected and listed, or failed (each within its own
//! `--timeout`).

use crate::sync::Locked;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use futures::future::join_all;
use tokio::sync::{Mutex, broadcast, watch};

use super::exposed::{self, Expose, Publication, Served};
use super::listing::Origin;
use super::upstream::{Listings, Notice, UpstreamDef, Upstreams, WarningSink};
use crate::catalog::{ItemId, Snapshot};
use crate::context::ranking::RankUpdate;
use crate::context::{
    Candidate, ContextSet, Expansion, Judged, Keep, Measures, RankOrder, Sources,
};
use crate::mcp::{ConnectOptions, ReadOutcome};

/// Everything one `serve` process shares between its clients and its upkeep.
pub struct Engine {
    /// Set once, when every upstream has connected and listed or failed.
    upstreams: OnceLock<Upstreams>,
    /// True from the first resolution on.
    ready: watch::Sender<bool>,
    /// How many upstreams there are (known before they connect, for the instructions).
    pub upstream_count: usize,
    /// Before the first resolution: the upstreams unavailable now, as said, and why.
    failed_early: std::sync::Mutex<Vec<(String, String)>>,
    pub set_path: PathBuf,
    expose: Expose,
    jobs: usize,
    set: Mutex<ContextSet>,
    /// Token counts of reads so far, kept across refreshes (an update forgets one).
    measures: Mutex<Measures>,
    /// Resolutions done so far ([`Engine::resolutions`]).
    resolutions: AtomicU64,
    /// The last refresh's rank order and verdicts, so the next one puts in and judges what
    /// changed instead of sorting and judging every resource again.
    ranked: std::sync::Mutex<Option<LastRefresh>>,
    /// What is published now; every change wakes the clients' list-changed notifiers.
    pub served: watch::Sender<Arc<Served>>,
    /// Published URIs whose contents changed upstream.
    pub updates: broadcast::Sender<String>,
}

impl Engine {
    /// Returns at once; connects to the upstreams, lists them and resolves the set in the
    /// background, then becomes [ready](Engine::ready).
    #[allow(clippy::too_many_arguments)] // one call site; each is one setting of the run
    pub fn start(
        defs: Vec<UpstreamDef>,
        options: ConnectOptions,
        cap: usize,
        set: ContextSet,
        set_path: PathBuf,
        expose: Expose,
        jobs: usize,
        warn: WarningSink,
    ) -> Arc<Engine> {
        let engine = Arc::new(Engine::new(defs.len(), set, set_path, expose, jobs));
        let starting = engine.clone();
        tokio::spawn(async move {
            // Said as soon as it is known: a client may end `serve` right after its first
            // answer, before anything later is written.
            let say = warn.clone();
            let early = |name: &str, early: Notice<'_>| {
                let error = match early {
                    Notice::Unavailable(error) => {
                        say(&format!("server `{name}` is unavailable: {error}"));
                        Some(error)
                    }
                    Notice::Back => {
                        say(&format!("server `{name}` is back"));
                        None
                    }
                };
                let mut list = starting.failed_early.locked();
                list.retain(|(n, _)| n != name);
                list.extend(error.map(|e| (name.to_string(), e.to_string())));
            };
            let upstreams = Upstreams::connect(defs, &options, cap, &early, warn).await;
            let _ = starting.upstreams.set(upstreams);
            starting.refresh().await;
            starting.ready.send_replace(true);
        });
        engine
    }

    fn new(
        upstream_count: usize,
        set: ContextSet,
        set_path: PathBuf,
        expose: Expose,
        jobs: usize,
    ) -> Engine {
        Engine {
            upstreams: OnceLock::new(),
            ready: watch::channel(false).0,
            upstream_count,
            failed_early: std::sync::Mutex::default(),
            set_path,
            expose,
            jobs,
            set: Mutex::new(set),
            measures: Mutex::new(Measures::new()),
            resolutions: AtomicU64::new(0),
            ranked: std::sync::Mutex::default(),
            served: watch::channel(Arc::new(Served::default())).0,
            updates: broadcast::channel(256).0,
        }
    }

    /// An engine over upstreams already listed ([`Upstreams::already_listed`]), ready once this
    /// returns: what `serve` publishes and how it follows changes, for tests and benches.
    #[doc(hidden)]
    pub async fn over(upstreams: Upstreams, set: ContextSet, expose: Expose) -> Arc<Engine> {
        let count = upstreams.iter().count();
        let engine = Arc::new(Engine::new(count, set, PathBuf::new(), expose, 1));
        let _ = engine.upstreams.set(upstreams);
        engine.refresh().await;
        engine.ready.send_replace(true);
        engine
    }

    /// The upstreams, once the first resolution is published.
    /// Reads `uri` of `server` as it is handed on (the `resources/read` answer, the prompt,
    /// the tool): the upstream's own parts ([`Upstreams::read`]) less those the set excludes
    /// ([`crate::context::content::without_excluded`]), each one dropped said on stderr.
    pub async fn read(&self, server: &str, uri: &str) -> Result<ReadOutcome, String> {
        let upstreams = self.ready().await;
        let outcome = upstreams.read(server, uri).await?;
        let (outcome, dropped) = {
            let set = self.set.lock().await;
            crate::context::content::without_excluded(&set.marks, server, uri, outcome)
        };
        for part in dropped {
            upstreams.warn(&format!(
                "server `{}`: resources/read {}: dropped a contents part under `{}`, which the set excludes",
                crate::sanitize::line(server, 200),
                crate::sanitize::line(uri, 1000),
                crate::sanitize::line(&part, 1000)
            ));
        }
        Ok(outcome)
    }

    pub async fn ready(&self) -> &Upstreams {
        let mut ready = self.ready.subscribe();
        // The sender lives as long as `self`, so this only ends when ready.
        let _ = ready.wait_for(|&r| r).await;
        self.upstreams.get().expect("set before ready")
    }

    /// Before the first resolution: the upstreams unavailable now, as said, and why (one
    /// that came back since is not among them).
    pub fn failed_early(&self) -> Vec<(String, String)> {
        self.failed_early.locked().clone()
    }

    /// Whether the first resolution is published.
    pub fn is_ready(&self) -> bool {
        *self.ready.borrow()
    }

    /// What is published now.
    pub fn current(&self) -> Arc<Served> {
        self.served.borrow().clone()
    }

    /// Replaces the set (after the file changed) and resolves again.
    pub async fn set_changed(&self, set: ContextSet) -> bool {
        *self.set.lock().await = set;
        self.refresh().await
    }

    /// A resource changed upstream: subscribed clients are told, and its count, if it was
    /// read, is forgotten. True when there was one: the resolution used it, so it must be
    /// done again ([`Engine::refresh`]). An update of a resource never read (every one
    /// without a budget, when nothing is read) changes nothing the resolution looks at, so it
    /// costs no resolution.
    pub async fn updated(&self, server: &str, uri: &str) -> bool {
        let stale = {
            let mut measures = self.measures.lock().await;
            let measured = measures.get(server, uri).is_some();
            measures.remove(server, uri);
            measured
        };
        if let Some(published) = self.current().published_uri(server, uri) {
            let _ = self.updates.send(published.to_string());
        }
        stale
    }

    /// How many resolutions were done so far (each [`Engine::refresh`] once connected).
    pub fn resolutions(&self) -> u64 {
        self.resolutions.load(Ordering::Relaxed)
    }

    /// Resolves again; publishes the result and returns true when the list changed. The
    /// resources are ranked by advancing the last refresh's order by what the upstreams'
    /// listings changed since (sorted whole only when a listing was replaced, came or went),
    /// the set's expansions put in at their places, and only what changed is judged again
    /// (everything when the set or a count changed, or the set has expansions). With a
    /// budget, what would be included is read and counted first (as `mcpick preview` does);
    /// without one, every admitted resource is included whatever it counts, so nothing is
    /// read and the totals are estimates.
    pub async fn refresh(&self) -> bool {
        let Some(upstreams) = self.upstreams.get() else {
            return false; // not connected yet; the first resolution follows
        };
        self.resolutions.fetch_add(1, Ordering::Relaxed);
        let set = self.set.lock().await.clone();
        let mut listings = upstreams.listings();
        let needed = listings.templates_needed(&set.marks);
        if !needed.is_empty() {
            join_all(needed.iter().map(|server| upstreams.list_templates(server))).await;
            listings = upstreams.listings();
        }
        // Ranked over the upstreams' listings as the last refresh left them, what changed
        // since put in; the set's expansions (added to this refresh's catalogue only) are put
        // in at their places by the rank key.
        let listed = listings.catalogue.snapshot();
        let last = self.ranked.locked().take();
        let (kept, touched) = self.rank(last, &listings, &listed);
        let expansions = listings.add_expansions(&set.marks);
        let with_expansions = listings.catalogue.snapshot();
        let extra = expansion_candidates(&expansions, &with_expansions, &listed);
        let (complete, unavailable) = (&listings.complete, &listings.unavailable);
        // What mcpick writes for this set (a delivery installed since is in its record).
        let own = Arc::new(crate::handoff::own_outputs(&self.set_path, None));
        let sources = Sources::ranked_with(&kept.order, &listed, extra, complete, unavailable)
            .leaving_out(own);
        let keep = match (&kept.judged, &touched) {
            (Some(judged), Some(touched)) => Some(Keep { judged, touched }),
            _ => None,
        };
        let mut measures = self.measures.lock().await;
        let (preview, judged) = if set.policy.budget.tokens().is_some() {
            let (resolution, judged) = sources
                .resolve_reading(
                    &set.marks,
                    &set.policy,
                    &mut measures,
                    self.jobs,
                    |c| {
                        let (server, uri) = (c.server, c.uri());
                        // Dropped parts are said by the read itself (`serve` reads in one place).
                        async move {
                            upstreams
                                .read(server, uri)
                                .await
                                .map(crate::mcp::read::Read::of)
                        }
                    },
                    keep,
                )
                .await;
            (resolution.preview, judged)
        } else {
            sources.resolve_keeping(&set.marks, &set.policy, &measures, keep)
        };
        *self.ranked.locked() = Some(LastRefresh { judged, ..kept });
        let inputs = listings.publishing(&sources.candidates, listed.clone());
        drop(measures);
        let previous = self.current();
        let publication =
            exposed::publish(&previous, touched.as_deref(), &preview, inputs, self.expose);
        // A list built whole is compared here, not while clients wait on the channel.
        let whole_differs = match &publication {
            Publication::Whole(served) => previous.list_differs(served),
            Publication::Edit(_) => false,
        };
        // Edited in place below when no client holds the list now (else a copy is edited).
        drop(previous);
        let (unavailable, cache) = (listings.unavailable.clone(), listings.cache);
        // Always keep the newest state; wake the clients' notifiers only for a new list (the
        // upkeep is the only writer after the first resolution).
        self.served.send_if_modified(|current| {
            let changed = match publication {
                Publication::Whole(served) => {
                    *current = Arc::new(served);
                    whole_differs
                }
                Publication::Edit(edit) => Arc::make_mut(current).apply(edit),
            };
            let served = Arc::make_mut(current);
            served.unavailable = unavailable;
            served.cache = cache;
            changed
        })
    }
}

impl Engine {
    /// The rank order of `snapshot` (of `listings`' merged catalogue): the `last` refresh's,
    /// advanced by what each upstream's listing changed since; every resource sorted when
    /// there is none, or an upstream's listing was replaced or came or went. What the last
    /// refresh judged goes along, with the ids touched since, to be kept for what did not
    /// change.
    fn rank(
        &self,
        last: Option<LastRefresh>,
        listings: &Listings,
        snapshot: &Snapshot,
    ) -> (LastRefresh, Option<Vec<ItemId>>) {
        let origins = listings.origins();
        match last {
            Some(last) => {
                let touched = listings.touched_since(&last.origins);
                let order = last.order.advance(snapshot, touched.as_deref());
                let kept = LastRefresh {
                    order,
                    origins,
                    judged: last.judged,
                };
                (kept, touched)
            }
            None => {
                let order = Arc::new(RankOrder::of(snapshot));
                let kept = LastRefresh {
                    order,
                    origins,
                    judged: None,
                };
                (kept, None)
            }
        }
    }

    /// The set as the engine holds it now (after the file's last change).
    pub(super) async fn set(&self) -> ContextSet {
        self.set.lock().await.clone()
    }

    /// The rank order of `snapshot` (of `listings`' merged catalogue) from the last
    /// refresh's, advanced by what changed since: what a delivery resolves over without
    /// sorting again ([`super::deliver`]).
    pub(super) fn order_of(&self, listings: &Listings, snapshot: &Snapshot) -> Arc<RankOrder> {
        // Taken out of the lock first: advancing a big order must not hold up a refresh.
        let last = self
            .ranked
            .locked()
            .as_ref()
            .map(|last| (Arc::clone(&last.order), last.origins.clone()));
        match last {
            Some((order, origins)) => {
                let touched = listings.touched_since(&origins);
                order.advance(snapshot, touched.as_deref())
            }
            None => Arc::new(RankOrder::of(snapshot)),
        }
    }

    /// How the last refresh's rank order was made (tests and benches: a refresh after a
    /// small change must not sort everything again).
    #[doc(hidden)]
    pub fn rank_made(&self) -> Option<RankUpdate> {
        self.ranked.locked().as_ref().map(|kept| kept.order.made())
    }

    /// How many resources the last refresh judged (the rest it kept from the one before).
    #[doc(hidden)]
    pub fn judged(&self) -> Option<usize> {
        let kept = self.ranked.locked();
        kept.as_ref()?.judged.as_ref().map(Judged::judged)
    }
}

/// A refresh's rank order, the upstream listings (by server id) it was made from, and what
/// its resolution judged.
struct LastRefresh {
    order: Arc<RankOrder>,
    origins: Vec<Option<Origin>>,
    judged: Option<Judged>,
}

/// The candidates that are `expansions`: the items `with` (a snapshot of the catalogue they
/// were added to) holds beyond `listed` (one taken before), each told which template it came
/// from.
pub(super) fn expansion_candidates<'a>(
    expansions: &'a [Expansion],
    with: &'a Snapshot,
    listed: &Snapshot,
) -> Vec<Candidate<'a>> {
    let mut out = Vec::new();
    for block in with.blocks_after(&listed.extent()) {
        let server = with.server_name(block.server);
        for (id, item) in block.live() {
            let template = expansions
                .iter()
                .find(|e| e.server == server && e.resource.uri == item.uri());
            let mut c = Candidate::from_item(id, server, item);
            c.expansion_of = template.map(|e| e.template.as_str());
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Audience, Mark, Target};
    use crate::context::{candidates, expansion};
    use rmcp::model::Resource;

    fn resources(n: usize) -> Vec<Resource> {
        (0..n)
            .map(|i| Resource::new(format!("x://{i}"), format!("r{i}")).with_size(40))
            .collect()
    }

    fn set(budget: Option<u64>) -> ContextSet {
        let mut set = ContextSet::default();
        set.policy.audience = Audience::Any;
        set.policy.budget =
            budget.map_or(crate::context::Budget::All, crate::context::Budget::Tokens);
        set
    }

    /// Pinned expansions are put in among the ranked resources at their places, tagged, and
    /// published as a sort of every candidate in catalogue order publishes them; a refresh
    /// after a change keeps the rank order though the set has expansions.
    #[tokio::test]
    async fn pinned_expansions_are_put_in_the_kept_order_and_published_as_a_whole_sort_would() {
        let listing = |n: u32| ranked(&(0..n).collect::<Vec<_>>());
        let upstreams =
            Upstreams::already_listed(vec![("a".into(), listing(30)), ("b".into(), listing(50))]);
        for server in ["a", "b"] {
            let template = rmcp::model::ResourceTemplate::new("y://{id}", "made");
            upstreams.set_templates(server, vec![template]);
        }
        let mut set = set(None);
        for (server, uri) in [("a", "y://1"), ("b", "y://2"), ("b", "y://3")] {
            set.marks.set(Target::exact(server, uri), Some(Mark::Pin));
        }
        // A listed pin the expansions rank before (priority 0 against their default), and
        // an excluded one.
        set.marks.set(Target::exact("a", "x://5"), Some(Mark::Pin));
        set.marks
            .set(Target::exact("a", "x://4"), Some(Mark::Exclude));
        let published = |served: &Served| -> Vec<(String, bool)> {
            let list = served.iter();
            list.map(|r| (r.uri().to_string(), r.pinned())).collect()
        };
        // Every candidate in catalogue order, tagged by a pass over all, sorted by resolving.
        let whole_sort = |upstreams: &Upstreams, set: &ContextSet| {
            let mut listings = upstreams.listings();
            let expansions = listings.add_expansions(&set.marks);
            let mut cands = candidates(&listings.catalogue);
            expansion::tag(&mut cands, &expansions);
            let tags = cands.iter().filter(|c| c.expansion_of.is_some()).count();
            let sources = Sources::from_lists(cands, &listings.complete, &listings.unavailable);
            let preview = sources.resolve(&set.marks, &set.policy, &Measures::new());
            let inputs = listings.publishing(&sources.candidates, listings.catalogue.snapshot());
            let served = exposed::build(&preview, inputs, Expose::Allowed);
            (published(&served), tags)
        };
        let (expected, tags) = whole_sort(&upstreams, &set);
        assert_eq!(tags, 3, "three expansions");
        let engine = Engine::over(upstreams, set.clone(), Expose::Allowed).await;
        let served = engine.current();
        assert_eq!(published(&served), expected);
        assert_eq!(served.len(), 79 + 3);
        assert!(served.get("y://1").is_some_and(|r| r.pinned()));
        assert!(!engine.refresh().await, "nothing changed");

        // `b` appends two: the order is advanced, not sorted again.
        let upstreams = engine.ready().await;
        let mut last = crate::mcp::Fingerprint::default();
        last.reset(&listing(50));
        let change = last.diff(listing(52));
        relist(upstreams, 1, change);
        assert!(engine.refresh().await, "two more published");
        assert!(
            matches!(
                engine.rank_made(),
                Some(RankUpdate::Merged { inserted: 2, .. })
            ),
            "{:?}",
            engine.rank_made()
        );
        assert_eq!(published(&engine.current()), whole_sort(upstreams, &set).0);
    }

    /// Applies a re-list of upstream `i`, as its supervisor tells it.
    fn relist(upstreams: &Upstreams, i: usize, change: crate::mcp::ListingChange) {
        let outcome = Default::default();
        upstreams.apply(
            i,
            crate::mcp::supervisor::Event::Relisted { change, outcome },
        );
    }

    /// Resources of varied rank (priorities and names that tie and do not).
    fn ranked(uris: &[u32]) -> Vec<Resource> {
        uris.iter()
            .map(|&i| {
                let priority = f32::from((i * 7 % 5) as u8) / 4.0;
                Resource::new(format!("x://{i}"), format!("r{}", i % 9))
                    .with_size(40)
                    .with_annotations(rmcp::model::Annotations::default().with_priority(priority))
            })
            .collect()
    }

    /// A re-list that changes a little is ranked by putting in what changed, and what is
    /// published is what an engine over the new listings from scratch publishes; a listing
    /// replaced whole is sorted again.
    #[tokio::test]
    async fn a_refresh_after_a_small_change_advances_the_rank_order_and_publishes_the_same() {
        let (a, b): (Vec<u32>, Vec<u32>) = ((0..60).collect(), (100..130).collect());
        let upstreams =
            Upstreams::already_listed(vec![("a".into(), ranked(&a)), ("b".into(), ranked(&b))]);
        let mut set = set(Some(600));
        set.marks
            .set(Target::exact("b", "x://105"), Some(Mark::Pin));
        let engine = Engine::over(upstreams, set.clone(), Expose::Allowed).await;
        assert_eq!(
            engine.rank_made(),
            Some(RankUpdate::Sorted),
            "the first is sorted"
        );
        let upstreams = engine.ready().await;

        // `a` loses two, one changes its priority, three are appended.
        let mut last = crate::mcp::Fingerprint::default();
        last.reset(&ranked(&a));
        let mut new: Vec<u32> = a.iter().copied().filter(|&i| i != 3 && i != 40).collect();
        new.extend([200, 201, 202]);
        let mut relisted = ranked(&new);
        relisted[10].annotations.as_mut().unwrap().priority = Some(1.0);
        let change = last.diff(relisted.clone());
        assert!(matches!(change, crate::mcp::ListingChange::Edited(_)));
        relist(upstreams, 0, change);
        engine.refresh().await;
        assert!(
            matches!(engine.rank_made(), Some(RankUpdate::Merged { inserted, taken_out })
                if inserted == 4 && taken_out == 3),
            "{:?}",
            engine.rank_made()
        );
        // The four put in are judged again, and what reading them took; not the other 87.
        let judged = engine.judged().expect("a kept order keeps its verdicts");
        assert!((4..20).contains(&judged), "{judged} judged again");
        let published = |engine: &Engine| -> Vec<(String, bool)> {
            let served = engine.current();
            let list = served.iter();
            list.map(|r| (r.uri().to_string(), r.pinned())).collect()
        };
        let fresh = Engine::over(
            Upstreams::already_listed(vec![("a".into(), relisted), ("b".into(), ranked(&b))]),
            set,
            Expose::Allowed,
        )
        .await;
        assert_eq!(published(&engine), published(&fresh));
        assert_eq!(engine.current().bundle, fresh.current().bundle);

        // Every URI new: the listing is built again, and so is the order.
        last.reset(&ranked(&new));
        let change = last.diff(ranked(&(300..350).collect::<Vec<_>>()));
        assert!(matches!(change, crate::mcp::ListingChange::Replaced(_)));
        relist(upstreams, 0, change);
        engine.refresh().await;
        assert_eq!(engine.rank_made(), Some(RankUpdate::Sorted));
    }

    #[tokio::test]
    async fn an_update_without_a_budget_is_told_and_costs_no_resolution() {
        let upstreams = Upstreams::already_listed(vec![("up".into(), resources(3))]);
        let engine = Engine::over(upstreams, set(None), Expose::Allowed).await;
        let resolved = engine.resolutions();
        assert_eq!(resolved, 1, "the first resolution");
        let mut told = engine.updates.subscribe();
        assert!(!engine.updated("up", "x://1").await, "no count was used");
        assert_eq!(
            told.recv().await.unwrap(),
            "x://1",
            "subscribed clients are told"
        );
        assert_eq!(engine.resolutions(), resolved, "nothing resolved again");
        assert_eq!(engine.current().len(), 3);
    }

    #[tokio::test]
    async fn with_a_budget_only_an_update_of_a_resource_read_needs_a_resolution() {
        let upstreams = Upstreams::already_listed(vec![("up".into(), resources(3))]);
        let mut set = set(Some(1000));
        set.marks
            .set(Target::exact("up", "x://2"), Some(Mark::Exclude));
        let engine = Engine::over(upstreams, set, Expose::Allowed).await;
        // Offline upstreams cannot be read: what was tried is measured (as failed).
        assert!(engine.updated("up", "x://0").await, "its read was counted");
        assert!(!engine.updated("up", "x://2").await, "excluded: never read");
        assert!(!engine.updated("up", "x://0").await, "forgotten already");
    }
}
