//! Change notifications from a server, the same in both eras: `notifications/resources/
//! list_changed` and `notifications/resources/updated` arrive through the client handler
//! (legacy) or through a `subscriptions/listen` stream (2026-07-28); either way they reach
//! whoever holds [`Connection::events`].

use std::collections::HashSet;

use rmcp::model::{
    ServerNotification, SubscribeRequestParams, SubscriptionFilter, UnsubscribeRequestParams,
};
use rmcp::service::{Peer, RoleClient};
use tokio::sync::broadcast;
use tokio::task::AbortHandle;

use super::connection::Connection;
use super::error::McpError;

/// Something changed on the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerEvent {
    /// The resource list changed: list again.
    ListChanged,
    /// One resource changed: read it again.
    Updated(String),
}

/// The sender every source of events of one connection shares. Slow receivers lose old
/// events (a lagged receiver should re-list), never block the connection.
pub(crate) fn channel() -> broadcast::Sender<ServerEvent> {
    broadcast::channel(1024).0
}

/// An open watch; dropping it ends the `subscriptions/listen` stream (modern era) or sends
/// `resources/unsubscribe` for what it subscribed (legacy era).
#[derive(Debug)]
pub struct Watch {
    stream: Option<AbortHandle>,
    subscribed: Option<(Peer<RoleClient>, Vec<String>)>,
}

impl Watch {
    fn none() -> Watch {
        Watch {
            stream: None,
            subscribed: None,
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(task) = self.stream.take() {
            task.abort();
        }
        if let Some((peer, uris)) = self.subscribed.take()
            && !uris.is_empty()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(unsubscribe(peer, uris));
        }
    }
}

/// Asks the server to stop reporting updates of `uris` (legacy era); answers are not waited
/// for by the watch's owner, and a failure leaves at most updates nobody asked for.
async fn unsubscribe(peer: Peer<RoleClient>, uris: Vec<String>) {
    for uri in uris {
        #[allow(deprecated)] // the legacy era's way
        let _ = peer.unsubscribe(UnsubscribeRequestParams::new(uri)).await;
    }
}

impl Connection {
    /// Every change notification of this server from now on.
    pub fn events(&self) -> broadcast::Receiver<ServerEvent> {
        self.event_sender().subscribe()
    }

    /// Asks the server to report list changes and updates of `uris`, as far as it
    /// advertises them: one `subscriptions/listen` (modern era) or `resources/subscribe` per
    /// URI (legacy era; list changes need no request there).
    pub async fn watch(&self, uris: &[String]) -> Result<Watch, McpError> {
        self.watch_for(true, uris).await
    }

    /// Like [`Connection::watch`], for updates of `uris` only (the list's changes are
    /// watched elsewhere, e.g. for the resource a pane shows).
    pub async fn watch_updates(&self, uris: &[String]) -> Result<Watch, McpError> {
        self.watch_for(false, uris).await
    }

    /// Makes `watch` (from [`Connection::watch_updates`]) follow updates of `uris` instead,
    /// asking only for what differs where the era allows: legacy, a `resources/subscribe` for
    /// each URI it did not follow and a `resources/unsubscribe` for each it no longer should
    /// (unanswered, as when a watch is dropped); 2026-07-28, a new `subscriptions/listen`,
    /// the old one ended only once the new one is open. On failure the watch follows what it
    /// did (legacy: and what was subscribed before the failure).
    pub async fn rewatch_updates(
        &self,
        watch: &mut Watch,
        uris: &[String],
    ) -> Result<(), McpError> {
        match watch.subscribed.as_mut() {
            Some((peer, followed)) => self.subscribe_only(peer, followed, uris).await,
            None => {
                *watch = self.watch_updates(uris).await?;
                Ok(())
            }
        }
    }

    /// Makes `followed` (subscribed through `peer`) `uris`: subscribes those it lacks (each
    /// added to it once answered), unsubscribes the others.
    async fn subscribe_only(
        &self,
        peer: &Peer<RoleClient>,
        followed: &mut Vec<String>,
        uris: &[String],
    ) -> Result<(), McpError> {
        let wanted: HashSet<&str> = uris.iter().map(String::as_str).collect();
        let gone: Vec<String> = followed
            .iter()
            .filter(|u| !wanted.contains(u.as_str()))
            .cloned()
            .collect();
        if !gone.is_empty() {
            followed.retain(|u| wanted.contains(u.as_str()));
            let peer = peer.clone();
            tokio::spawn(unsubscribe(peer, gone));
        }
        let fresh: Vec<&String> = {
            let mut had: HashSet<&str> = followed.iter().map(String::as_str).collect();
            uris.iter().filter(|u| had.insert(u.as_str())).collect()
        };
        for uri in fresh {
            #[allow(deprecated)] // resources/subscribe is the legacy era's way
            self.request(
                "resources/subscribe",
                peer.subscribe(SubscribeRequestParams::new(uri.clone())),
            )
            .await?;
            followed.push(uri.clone());
        }
        Ok(())
    }

    async fn watch_for(&self, lists: bool, uris: &[String]) -> Result<Watch, McpError> {
        let Some(caps) = self
            .peer()
            .peer_info()
            .and_then(|i| i.capabilities.resources.clone())
        else {
            return Ok(Watch::none());
        };
        let list_changed = lists && caps.list_changed == Some(true);
        let subscribe = caps.subscribe == Some(true) && !uris.is_empty();
        if self.is_modern() {
            if !list_changed && !subscribe {
                return Ok(Watch::none());
            }
            let mut filter = SubscriptionFilter::new();
            if list_changed {
                filter.resources_list_changed = Some(true);
            }
            if subscribe {
                filter.resource_subscriptions = Some(uris.to_vec());
            }
            const METHOD: &str = "subscriptions/listen";
            let mut subscription = self.request(METHOD, self.peer().listen(filter)).await?;
            let sender = self.event_sender().clone();
            let task = tokio::spawn(async move {
                while let Ok(Some(notification)) = subscription.next().await {
                    let event = match notification {
                        ServerNotification::ResourceListChangedNotification(_) => {
                            ServerEvent::ListChanged
                        }
                        ServerNotification::ResourceUpdatedNotification(n) => {
                            ServerEvent::Updated(n.params.uri)
                        }
                        _ => continue,
                    };
                    let _ = sender.send(event);
                }
            });
            return Ok(Watch {
                stream: Some(task.abort_handle()),
                subscribed: None,
            });
        }
        if caps.subscribe == Some(true) {
            // Kept even when empty, so that a rewatch subscribes only what it adds.
            let (peer, mut followed) = (self.peer().clone(), Vec::with_capacity(uris.len()));
            let subscribed = self.subscribe_only(&peer, &mut followed, uris).await;
            let watch = Watch {
                stream: None,
                subscribed: Some((peer, followed)),
            };
            // What was subscribed before a failure is unsubscribed as the watch is dropped.
            return subscribed.map(|()| watch);
        }
        Ok(Watch::none())
    }
}
