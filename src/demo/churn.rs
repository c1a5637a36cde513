//! `--churn MS`: a catalogue that changes while clients watch it, so list-change and update
//! handling can be tried and tested (mcpick serve's re-listing, the browser's live view).
//!
//! With churn on, `demo://live/0` is listed after the generated catalogue from the start.
//! Every tick adds the next `demo://live/N` (N = 1, 2, …) and touches `demo://live/0` (its
//! revision goes up). Clients hear of it the way they asked: legacy clients get
//! `notifications/resources/list_changed` always and `notifications/resources/updated` for
//! URIs they subscribed to; 2026-07-28 clients get the same through `subscriptions/listen`,
//! as their filter says (as the clock does).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{Resource, ResourceContents};
use tokio::sync::broadcast;

/// The URI prefix of every churned resource.
pub(crate) const LIVE_PREFIX: &str = "demo://live/";

/// The resource that is listed from the start and touched on every tick.
pub(crate) const LIVE_TOUCHED: &str = "demo://live/0";

/// What one tick tells connected clients.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum ChurnEvent {
    ListChanged,
    Updated(String),
}

/// The live part of the catalogue: `demo://live/0 ..= demo://live/{added}`.
#[derive(Debug)]
pub(crate) struct Churn {
    /// (resources added so far, revision of `demo://live/0`)
    state: Mutex<(usize, u64)>,
    events: broadcast::Sender<ChurnEvent>,
}

impl Default for Churn {
    fn default() -> Self {
        Churn {
            state: Mutex::new((0, 0)),
            events: broadcast::channel(64).0,
        }
    }
}

fn uri(n: usize) -> String {
    format!("{LIVE_PREFIX}{n}")
}

fn resource(n: usize) -> Resource {
    Resource::new(uri(n), format!("live-{n}"))
        .with_title(format!("Live resource {n}"))
        .with_description(if n == 0 {
            "Changes on every --churn tick (notifications/resources/updated).".to_string()
        } else {
            format!("Added by the demo server's --churn, tick {n}.")
        })
        .with_mime_type("text/plain")
}

impl Churn {
    fn state(&self) -> (usize, u64) {
        *self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many live resources are listed.
    pub(crate) fn len(&self) -> usize {
        self.state().0 + 1
    }

    /// Live resources `offset..offset + limit`.
    pub(crate) fn page(&self, offset: usize, limit: usize) -> Vec<Resource> {
        let end = offset.saturating_add(limit).min(self.len());
        (offset.min(end)..end).map(resource).collect()
    }

    /// Whether `uri` is a listed live resource.
    pub(crate) fn contains(&self, uri: &str) -> bool {
        self.number(uri).is_some()
    }

    fn number(&self, uri: &str) -> Option<usize> {
        let digits = uri.strip_prefix(LIVE_PREFIX)?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: usize = digits.parse().ok()?;
        (n < self.len() && uri == self::uri(n)).then_some(n)
    }

    /// The contents of a listed live resource.
    pub(crate) fn read(&self, uri: &str) -> Option<Vec<ResourceContents>> {
        let n = self.number(uri)?;
        let (added, revision) = self.state();
        let text = if n == 0 {
            format!("Live resource 0, revision {revision} ({added} resources added so far).\n")
        } else {
            format!("Live resource {n}, added on tick {n}.\n")
        };
        Some(vec![
            ResourceContents::text(text, uri).with_mime_type("text/plain"),
        ])
    }

    /// Tells every connection of the process about ticks from now on.
    pub(crate) fn events(&self) -> broadcast::Receiver<ChurnEvent> {
        self.events.subscribe()
    }

    /// One tick: add the next resource, touch `demo://live/0`.
    pub(crate) fn tick(&self) {
        {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            state.0 += 1;
            state.1 += 1;
        }
        let _ = self.events.send(ChurnEvent::ListChanged);
        let _ = self
            .events
            .send(ChurnEvent::Updated(LIVE_TOUCHED.to_string()));
    }

    /// Ticks every `period` until the process ends.
    pub(crate) fn run(churn: Arc<Churn>, period: Duration) {
        tokio::spawn(async move {
            let mut interval =
                tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            loop {
                interval.tick().await;
                churn.tick();
            }
        });
    }
}

/// The next event for a connection; never resolves without churn. A connection that fell
/// behind is told the list changed (re-listing covers whatever it missed).
pub(crate) async fn next(events: &mut Option<broadcast::Receiver<ChurnEvent>>) -> ChurnEvent {
    let Some(rx) = events else {
        return std::future::pending().await;
    };
    match rx.recv().await {
        Ok(event) => event,
        Err(broadcast::error::RecvError::Lagged(_)) => ChurnEvent::ListChanged,
        Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tick_adds_one_resource_and_touches_the_first() {
        let churn = Churn::default();
        let mut events = churn.events();
        assert_eq!(churn.len(), 1);
        assert!(churn.contains(LIVE_TOUCHED) && !churn.contains("demo://live/1"));
        let before = churn.read(LIVE_TOUCHED).unwrap();
        churn.tick();
        assert_eq!(churn.len(), 2);
        assert!(churn.contains("demo://live/1"));
        assert!(
            !churn.contains("demo://live/01"),
            "one spelling per resource"
        );
        assert_ne!(churn.read(LIVE_TOUCHED).unwrap(), before, "touched");
        let uris: Vec<String> = churn
            .page(0, 10)
            .into_iter()
            .map(|r| r.uri.clone())
            .collect();
        assert_eq!(uris, ["demo://live/0", "demo://live/1"]);
        assert_eq!(events.try_recv().unwrap(), ChurnEvent::ListChanged);
        assert_eq!(
            events.try_recv().unwrap(),
            ChurnEvent::Updated(LIVE_TOUCHED.into())
        );
    }
}
