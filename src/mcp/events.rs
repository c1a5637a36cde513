//! Change notifications from a server, the same in both eras: `notifications/resources/
//! list_changed` and `notifications/resources/updated` arrive through the client handler
//! (legacy) or through a `subscriptions/listen` stream (2026-07-28); either way they reach
//! whoever holds [`Connection::events`].

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
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                for uri in uris {
                    #[allow(deprecated)] // the legacy era's way
                    let _ = peer.unsubscribe(UnsubscribeRequestParams::new(uri)).await;
                }
            });
        }
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
        if subscribe {
            for uri in uris {
                #[allow(deprecated)] // resources/subscribe is the legacy era's way
                self.request(
                    "resources/subscribe",
                    self.peer()
                        .subscribe(SubscribeRequestParams::new(uri.clone())),
                )
                .await?;
            }
            return Ok(Watch {
                stream: None,
                subscribed: Some((self.peer().clone(), uris.to_vec())),
            });
        }
        Ok(Watch::none())
    }
}
