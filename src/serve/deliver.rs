//! The set's session-start deliveries kept fresh while `serve` runs (the hosts start it at
//! every session), through the engine's own upstreams: the listings and rank order its last
//! refresh made, read through its connections. No server is started or listed again.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;

use super::engine::{Engine, expansion_candidates};
use super::upstream::{Listings, Upstreams};
use crate::catalog::Snapshot;
use crate::context::{Candidate, Expansion, RankOrder, Sources};
use crate::handoff::service::{self, Reader};
use crate::mcp::read::AgentRead;

/// A burst of changes waits this long before the next write (at most one per this time).
const AT_MOST_EVERY: Duration = Duration::from_secs(10);

/// The engine's [`Reader`]: its upstreams' listings as they are now, in the rank order its
/// last refresh made (advanced by what changed since), the set's expansions put in.
struct Published<'e> {
    upstreams: &'e Upstreams,
    listings: Listings,
    listed: Snapshot,
    with_expansions: Snapshot,
    expansions: Vec<Expansion>,
    order: Arc<RankOrder>,
}

impl<'e> Published<'e> {
    fn of(engine: &Engine, upstreams: &'e Upstreams, set: &crate::context::ContextSet) -> Self {
        let mut listings = upstreams.listings();
        let listed = listings.catalogue.snapshot();
        let order = engine.order_of(&listings, &listed);
        let expansions = listings.add_expansions(&set.marks);
        let with_expansions = listings.catalogue.snapshot();
        Published {
            upstreams,
            listings,
            listed,
            with_expansions,
            expansions,
            order,
        }
    }
}

impl<'e> Reader for Published<'e> {
    fn sources(&self) -> Sources<'_> {
        let extra = expansion_candidates(&self.expansions, &self.with_expansions, &self.listed);
        Sources::ranked_with(
            &self.order,
            &self.listed,
            extra,
            &self.listings.complete,
            &self.listings.unavailable,
        )
    }

    fn read<'s, 'c>(
        &'s self,
        candidate: &Candidate<'c>,
    ) -> impl Future<Output = AgentRead> + Send + use<'e, 's, 'c> {
        let (server, uri) = (candidate.server, candidate.uri());
        // Dropped parts are said by the read itself (`serve` reads in one place).
        async move {
            self.upstreams
                .read(server, uri)
                .await
                .map(crate::mcp::read::Read::of)
        }
    }

    fn fetch_skill(
        &self,
        candidate: &Candidate<'_>,
        name: &str,
    ) -> impl Future<Output = Option<crate::skills::Fetched>> + Send {
        let server = candidate.server;
        let connection = self
            .upstreams
            .iter()
            .find(|u| u.name == server)
            .and_then(|u| u.connection());
        async move {
            let connection = connection?;
            Some(crate::skills::fetch::fetch(&connection, server, name).await)
        }
    }
}

/// The set's deliveries written again from what the engine publishes now: what was written
/// and what could not be, each said through `say`.
pub async fn refresh(engine: &Engine, say: &(dyn Fn(&str) + Send + Sync)) {
    let upstreams = engine.ready().await;
    let set = engine.set().await;
    let published = Published::of(engine, upstreams, &set);
    let asked = service::Asked {
        marks: &set.marks,
        policy: &set.policy,
        jobs: 8,
    };
    let own = Arc::new(crate::handoff::own_outputs(&engine.set_path, None));
    let refreshed = service::refresh(
        &published,
        &engine.set_path,
        asked,
        own,
        set.folder.as_deref(),
    )
    .await;
    for line in refreshed.problems.iter().chain(&refreshed.written) {
        say(line);
    }
}

/// While `serve` runs: the set's deliveries written once it is ready, so the servers' contents
/// as they are now reach the next session, and again after the published list or a resource
/// changes (a burst waits; at most every [`AT_MOST_EVERY`]). Nothing when the set has no
/// delivery.
pub async fn keep_fresh(engine: Arc<Engine>, say: Arc<dyn Fn(&str) + Send + Sync>) {
    if service::recorded(&engine.set_path).is_err() {
        return;
    }
    engine.ready().await;
    let mut served = engine.served.subscribe();
    let mut updates = engine.updates.subscribe();
    loop {
        refresh(&engine, say.as_ref()).await;
        tokio::select! {
            changed = served.changed() => if changed.is_err() { return },
            update = updates.recv() => if matches!(update, Err(RecvError::Closed)) { return },
        }
        tokio::time::sleep(AT_MOST_EVERY).await;
        served.borrow_and_update();
        while updates.try_recv().is_ok() {}
    }
}
