//! Following a connected server over time, one way for every front end (the browser,
//! `serve`, `watch`): its changes, a burst of notifications coalesced into one re-list
//! ([`Changes`]), and the moment it is gone ([`Connection::closed`]). No front end waits out a
//! burst or polls a connection itself.

use std::time::Duration;

use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::Instant;

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
                        return self.closed_reason(when).await;
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

    async fn closed_reason(&self, when: &str) -> String {
        let error = McpError::Closed {
            method: "the session",
        };
        let explained = self.explain_gone(&error).await;
        let tail = explained.strip_prefix(&error.to_string()).unwrap_or("");
        format!("the server closed the connection{when}{tail}")
    }
}

/// When to follow up a server's changes (ask it again for updates, say), shared by `serve`
/// and `watch`: [`Burst::GATHER`] after the first change not
/// followed up yet (the others of its burst join it), and never sooner than
/// [`Burst::APART`] after the last follow-up, so a server that never stops changing costs one
/// follow-up a second. A change waits at most the longer of the two.
#[derive(Debug, Default)]
pub struct Burst {
    first: Option<Instant>,
    followed_up: Option<Instant>,
}

impl Burst {
    /// How long a change waits for the rest of its burst.
    pub const GATHER: Duration = Duration::from_millis(250);
    /// The least time between two follow-ups.
    pub const APART: Duration = Duration::from_secs(1);

    /// One more change, at `now`.
    pub fn changed(&mut self, now: Instant) {
        self.first.get_or_insert(now);
    }

    /// When the follow-up is due; `None` with nothing to follow up.
    pub fn due(&self) -> Option<Instant> {
        let first = self.first?;
        let gathered = first + Self::GATHER;
        Some(match self.followed_up {
            Some(last) => gathered.max(last + Self::APART),
            None => gathered,
        })
    }

    /// Followed up at `now`: the next change starts a new burst.
    pub fn done(&mut self, now: Instant) {
        self.first = None;
        self.followed_up = Some(now);
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

    #[test]
    fn a_burst_is_followed_up_once_and_follow_ups_are_a_second_apart() {
        let start = Instant::now();
        let ms = |n: u64| start + Duration::from_millis(n);
        let mut burst = Burst::default();
        assert_eq!(burst.due(), None, "nothing to follow up");
        burst.changed(start);
        burst.changed(ms(100));
        burst.changed(ms(200));
        assert_eq!(
            burst.due(),
            Some(start + Burst::GATHER),
            "one for the burst"
        );
        burst.done(ms(250));
        assert_eq!(burst.due(), None);
        // A change every 300 ms from then on: followed up a second after the last time.
        burst.changed(ms(550));
        assert_eq!(burst.due(), Some(ms(1250)));
        burst.changed(ms(850));
        burst.changed(ms(1150));
        assert_eq!(burst.due(), Some(ms(1250)));
        burst.done(ms(1250));
        // After a pause: as soon as its burst is gathered.
        burst.changed(ms(5000));
        assert_eq!(burst.due(), Some(ms(5000) + Burst::GATHER));
    }
}
