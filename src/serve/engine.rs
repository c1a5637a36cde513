//! The state `serve` publishes and how it follows changes: the set file, upstream list
//! changes and updates all end in [`Engine::refresh`], which resolves again exactly as
//! `mcpick preview` does and tells connected clients only when their list really changed.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::{Mutex, broadcast, watch};

use super::exposed::{self, Expose, Served};
use super::upstream::Upstreams;
use crate::context::{ContextSet, Input, Measures, candidates, measured, resolve};

/// Everything one `serve` process shares between its clients and its upkeep.
pub struct Engine {
    pub upstreams: Upstreams,
    pub set_path: PathBuf,
    expose: Expose,
    jobs: usize,
    set: Mutex<ContextSet>,
    /// Token counts of reads so far, kept across refreshes (an update forgets one).
    measures: Mutex<Measures>,
    /// What is published now; every change wakes the clients' list-changed notifiers.
    pub served: watch::Sender<Arc<Served>>,
    /// Published URIs whose contents changed upstream.
    pub updates: broadcast::Sender<String>,
}

impl Engine {
    /// Resolves the set once against the connected upstreams.
    pub async fn new(
        upstreams: Upstreams,
        set: ContextSet,
        set_path: PathBuf,
        expose: Expose,
        jobs: usize,
    ) -> Engine {
        let engine = Engine {
            upstreams,
            set_path,
            expose,
            jobs,
            set: Mutex::new(set),
            measures: Mutex::new(Measures::new()),
            served: watch::channel(Arc::new(Served::default())).0,
            updates: broadcast::channel(256).0,
        };
        engine.refresh().await;
        engine
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

    /// A resource changed upstream: its count is stale; tell subscribed clients.
    pub async fn updated(&self, server: &str, uri: &str) -> bool {
        self.measures.lock().await.remove(server, uri);
        if let Some(published) = self.current().published_uri(server, uri) {
            let _ = self.updates.send(published.to_string());
        }
        self.refresh().await
    }

    /// Resolves again; publishes the result and returns true when the list changed. With a
    /// budget, what would be included is read and counted first (as `mcpick preview` does);
    /// without one, every admitted resource is included whatever it counts, so nothing is
    /// read and the totals are estimates.
    pub async fn refresh(&self) -> bool {
        let set = self.set.lock().await.clone();
        let listings = self.upstreams.listings();
        let cands = candidates(&listings.catalogue);
        let listed: Vec<&str> = listings.complete.iter().map(String::as_str).collect();
        let unavailable: Vec<(&str, &str)> = listings
            .unavailable
            .iter()
            .map(|(n, e)| (n.as_str(), e.as_str()))
            .collect();
        let mut measures = self.measures.lock().await;
        let base = Input {
            candidates: &cands,
            listed: &listed,
            unavailable: &unavailable,
            marks: &set.marks,
            policy: &set.policy,
            measures: &Measures::new(),
        };
        let preview = if set.policy.budget.is_some() {
            let upstreams = &self.upstreams;
            let cands = &cands;
            measured::resolve_measured(&base, &mut measures, self.jobs, |i| async move {
                upstreams.read(cands[i].server, cands[i].uri).await
            })
            .await
            .0
        } else {
            resolve(&Input {
                measures: &measures,
                ..base
            })
        };
        drop(measures);
        let index = listings.index();
        let mut served = exposed::build(
            &preview,
            &cands,
            |s, u| index.get(&(s, u)).copied(),
            self.expose,
        );
        served.unavailable = listings.unavailable.clone();
        served.cache = listings.cache;
        // Always keep the newest state; wake the clients' notifiers only for a new list.
        self.served.send_if_modified(|current| {
            let changed = current.list_differs(&served);
            *current = Arc::new(served);
            changed
        })
    }
}
