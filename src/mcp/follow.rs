//! Following a connected server over time, one way for every front end (the browser,
//! `serve`, `watch`): its changes, a burst of notifications coalesced into one re-list
//! ([`Changes`]), and the moment it is gone ([`Connection::closed`]). No front end waits out a
//! burst or polls a connection itself.

use std::time::Duration;

use tokio::sync::broadcast::{self, error::RecvError};

use super::connection::Connection;
use super::error::McpError;
use super::events::ServerEvent;

/// Notifications arriving within this window after a list change are handled with it: a
/// burst costs one re-list.
pub const COALESCE: Duration = Duration::from_millis(100);

/// How often a connection is looked at for having closed (rmcp offers a flag, not a future).
const CLOSED_POLL: Duration = Duration::from_millis(250);

/// How often a server over HTTP is asked whether it still answers (`ping`): one that went
/// away leaves no closed pipe behind, only requests that fail.
const HTTP_ALIVE: Duration = Duration::from_secs(5);

/// What a burst of a server's notifications asks of a front end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The list changed (or notices were missed): list again, then read these again (updated
    /// in the same burst, each once).
    Relist { updated: Vec<String> },
    /// One resource changed, the list did not.
    Updated(String),
}

/// A server's changes from the moment it was taken ([`Connection::changes`]).
pub struct Changes {
    events: broadcast::Receiver<ServerEvent>,
    window: Duration,
}

impl Changes {
    /// The next change, a burst coalesced; `None` once the connection is gone.
    pub async fn next(&mut self) -> Option<Change> {
        match self.events.recv().await {
            Ok(ServerEvent::Updated(uri)) => Some(Change::Updated(uri)),
            Ok(ServerEvent::ListChanged) | Err(RecvError::Lagged(_)) => {
                tokio::time::sleep(self.window).await;
                let mut updated: Vec<String> = Vec::new();
                loop {
                    match self.events.try_recv() {
                        Ok(ServerEvent::Updated(uri)) => {
                            if !updated.contains(&uri) {
                                updated.push(uri);
                            }
                        }
                        Ok(ServerEvent::ListChanged)
                        | Err(broadcast::error::TryRecvError::Lagged(_)) => {}
                        Err(_) => break,
                    }
                }
                Some(Change::Relist { updated })
            }
            Err(RecvError::Closed) => None,
        }
    }
}

impl Connection {
    /// Its changes from now on; take them before listing, so a change announced meanwhile
    /// is not missed.
    pub fn changes(&self) -> Changes {
        Changes {
            events: self.events(),
            window: COALESCE,
        }
    }

    /// Returns once the server is gone, saying why for a person (with its last stderr
    /// lines): its side closed (a process that exited, a stream that ended; `when` follows
    /// "the server closed the connection", e.g. " after listing") or, over HTTP, a `ping`
    /// failed for another reason than a slow answer.
    pub async fn closed(&self, when: &str) -> String {
        let mut alive = tokio::time::interval(HTTP_ALIVE);
        alive.tick().await;
        let stdio = self.kind() == super::spec::Transport::Stdio;
        loop {
            tokio::select! {
                _ = tokio::time::sleep(CLOSED_POLL) => {
                    if self.is_closed() {
                        return self.closed_reason(when);
                    }
                }
                _ = alive.tick(), if !stdio => match self.ping().await {
                    Ok(()) | Err(McpError::Timeout { .. }) => {}
                    // A server may not implement `ping`; only a failed connection counts.
                    Err(e @ (McpError::Transport { .. } | McpError::Closed { .. })) => {
                        return format!("the connection dropped: {}", self.explain(&e));
                    }
                    Err(_) => {}
                },
            }
        }
    }

    fn closed_reason(&self, when: &str) -> String {
        let error = McpError::Closed {
            method: "the session",
        };
        let explained = self.explain(&error);
        let tail = explained.strip_prefix(&error.to_string()).unwrap_or("");
        format!("the server closed the connection{when}{tail}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_burst_is_one_relist_with_its_updates_once() {
        let (tx, rx) = broadcast::channel(16);
        let mut changes = Changes {
            events: rx,
            window: COALESCE,
        };
        tx.send(ServerEvent::Updated("a://1".into())).unwrap();
        assert_eq!(changes.next().await, Some(Change::Updated("a://1".into())));
        for e in [
            ServerEvent::ListChanged,
            ServerEvent::Updated("a://2".into()),
            ServerEvent::ListChanged,
            ServerEvent::Updated("a://2".into()),
            ServerEvent::Updated("a://3".into()),
        ] {
            tx.send(e).unwrap();
        }
        assert_eq!(
            changes.next().await,
            Some(Change::Relist {
                updated: vec!["a://2".into(), "a://3".into()]
            })
        );
        // Arriving after the window: its own change.
        let sender = tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(COALESCE * 2).await;
            sender.send(ServerEvent::ListChanged).unwrap();
        });
        assert_eq!(
            changes.next().await,
            Some(Change::Relist { updated: vec![] })
        );
        drop(tx);
        assert_eq!(changes.next().await, None, "gone");
    }

    #[tokio::test(start_paused = true)]
    async fn missed_notices_are_a_relist() {
        let (tx, rx) = broadcast::channel(2);
        let mut changes = Changes {
            events: rx,
            window: COALESCE,
        };
        for n in 0..5 {
            tx.send(ServerEvent::Updated(format!("a://{n}"))).unwrap();
        }
        // The receiver lagged: what it missed is unknown, so list again.
        assert!(matches!(changes.next().await, Some(Change::Relist { .. })));
    }
}
