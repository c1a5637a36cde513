//! The set file's keeper: one thread that saves the browser's changes in order and watches the
//! file for changes other processes save. It answers with `Msg::Saved` and `Msg::SetOnDisk`.

use std::time::Duration;

use tokio::sync::mpsc;

use super::app::{Msg, SaveFailure, SaveReport};
use crate::context::{SetChange, SetFile};

/// How often the set file is checked for changes another process saved.
const WATCH_EVERY: Duration = Duration::from_millis(500);

/// The set file's keeper: one thread that applies the browser's changes in order, each under
/// the set's lock on the file as it is then ([`SetFile::update`]), and between saves watches
/// the file for changes other processes save ([`SetFile::poll`], answered as
/// [`Msg::SetOnDisk`]).
pub struct Keeper {
    tx: Option<std::sync::mpsc::Sender<(u64, SetChange)>>,
    msgs: mpsc::UnboundedSender<Msg>,
    thread: Option<std::thread::JoinHandle<Option<String>>>,
}

impl Keeper {
    pub fn spawn(mut file: SetFile, msgs: mpsc::UnboundedSender<Msg>) -> Keeper {
        let (tx, rx) = std::sync::mpsc::channel::<(u64, SetChange)>();
        let to_app = msgs.clone();
        let thread = std::thread::Builder::new()
            .name("mcpick-set".into())
            .spawn(move || {
                let msgs = to_app;
                use std::sync::mpsc::RecvTimeoutError;
                let mut last_error = None;
                let mut delivery = Redeliver::default();
                loop {
                    match rx.recv_timeout(WATCH_EVERY) {
                        Ok((seq, change)) => {
                            let result = match file.update(|set| change.apply(set)) {
                                Ok(updated) => {
                                    last_error = None;
                                    delivery.changed(file.path());
                                    Ok(SaveReport {
                                        set: Box::new(updated.set),
                                        others_changed: updated.others_changed,
                                        applied: updated.value,
                                    })
                                }
                                Err(e) => {
                                    let error = e.to_string();
                                    last_error = Some(format!("marks not saved: {error}"));
                                    Err(SaveFailure { error, change })
                                }
                            };
                            let _ = msgs.send(Msg::Saved { seq, result });
                        }
                        Err(RecvTimeoutError::Timeout) => {
                            delivery.tick(file.path(), &msgs);
                            if let Ok(Some(set)) = file.poll() {
                                let _ = msgs.send(Msg::SetOnDisk(Box::new(set)));
                            }
                        }
                        Err(RecvTimeoutError::Disconnected) => return last_error,
                    }
                }
            })
            .ok();
        Keeper {
            tx: Some(tx),
            msgs,
            thread,
        }
    }

    pub fn save(&self, seq: u64, change: SetChange) {
        let Some(tx) = &self.tx else { return };
        if let Err(std::sync::mpsc::SendError((seq, change))) = tx.send((seq, change)) {
            // No keeper thread: nothing is saved, and the browser must say so.
            let _ = self.msgs.send(Msg::Saved {
                seq,
                result: Err(SaveFailure {
                    error: "cannot save: the saving thread is not running".into(),
                    change,
                }),
            });
        }
    }

    /// Waits for every save asked for; the last save's error, if it failed.
    pub fn finish(&mut self) -> Option<String> {
        self.tx.take();
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(error)) => error,
            Some(Err(_)) => Some("marks may not be saved: the saving thread failed".into()),
            None => None,
        }
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The set's session-start deliveries (`mcpick install`), written again after the browser's
/// marks settle: 2 s after the last save the core is told ([`Msg::Redeliver`]), and its
/// executor writes them through the browser's own connections and catalogue.
#[derive(Default)]
struct Redeliver {
    since: Option<std::time::Instant>,
}

impl Redeliver {
    const SETTLE: Duration = Duration::from_secs(2);

    fn changed(&mut self, set: &std::path::Path) {
        if crate::handoff::service::recorded(set).is_ok() {
            self.since = Some(std::time::Instant::now());
        }
    }

    fn tick(&mut self, set: &std::path::Path, msgs: &mpsc::UnboundedSender<Msg>) {
        let Some(since) = self.since else { return };
        if since.elapsed() < Self::SETTLE {
            return;
        }
        self.since = None;
        let _ = msgs.send(Msg::Redeliver(set.to_path_buf()));
    }
}
