//! SIGINT, SIGTERM and SIGHUP end mcpick the same way: every stdio server's process group is
//! killed, the terminal is restored (when the browser has it), a line says why, and the
//! process exits with 128 + the signal number.
//!
//! The signals are watched on a thread of their own with its own small runtime, so a busy
//! main runtime (the browser digesting a million resources) cannot delay the exit.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

use tokio::signal::unix::{SignalKind, signal};

use crate::mcp::group;

/// Starts watching the signals; returns once they are caught (from then on their default
/// action no longer applies). `before_exit` runs after the servers are killed and before the
/// message is printed: the browser passes the terminal restore.
pub fn install(before_exit: fn()) -> std::io::Result<()> {
    let (ready_tx, ready_rx) = mpsc::channel::<std::io::Result<()>>();
    std::thread::Builder::new()
        .name("mcpick-signals".into())
        .spawn(move || {
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .build()
            {
                Ok(r) => r,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            runtime.block_on(async move {
                let streams = (|| {
                    Ok::<_, std::io::Error>((
                        signal(SignalKind::interrupt())?,
                        signal(SignalKind::terminate())?,
                        signal(SignalKind::hangup())?,
                    ))
                })();
                let (mut int, mut term, mut hup) = match streams {
                    Ok(s) => {
                        let _ = ready_tx.send(Ok(()));
                        s
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let signo = tokio::select! {
                    _ = int.recv() => libc::SIGINT,
                    _ = term.recv() => libc::SIGTERM,
                    _ = hup.recv() => libc::SIGHUP,
                };
                exit(signo, before_exit);
            });
        })?;
    ready_rx
        .recv()
        .unwrap_or_else(|_| Err(std::io::Error::other("the signal thread did not start")))
}

/// Set once a signal is being acted on: from then on only the signal's exit ends mcpick.
static EXITING: AtomicBool = AtomicBool::new(false);

/// Whether mcpick is on its way out because of a signal. The main thread checks it before
/// returning its own status: killing the servers makes the work in flight fail, and that
/// failure must not end the process first with another status.
pub fn exiting() -> bool {
    EXITING.load(Ordering::SeqCst)
}

fn exit(signo: libc::c_int, before_exit: fn()) -> ! {
    EXITING.store(true, Ordering::SeqCst);
    group::kill_all();
    // The terminal may be gone (a closed window hangs up): restoring it and saying why must
    // never keep the process alive. They run on a thread of their own, given a second.
    let (done_tx, done_rx) = mpsc::channel::<()>();
    let restore = std::thread::Builder::new()
        .name("mcpick-exit".into())
        .spawn(move || {
            // Holding stdout keeps a frame being drawn on another thread from landing after
            // the terminal is restored.
            let stdout = std::io::stdout();
            let mut out = stdout.lock();
            before_exit();
            let _ = out.flush();
            // Not `eprintln!`: it panics when stderr is gone.
            let _ = writeln!(std::io::stderr(), "mcpick: {}", describe(signo));
            let _ = done_tx.send(());
        });
    if restore.is_ok() {
        let _ = done_rx.recv_timeout(std::time::Duration::from_secs(1));
    }
    std::process::exit(128 + signo);
}

/// The line printed on the way out.
fn describe(signo: libc::c_int) -> &'static str {
    match signo {
        libc::SIGINT => "interrupted",
        libc::SIGTERM => "terminated (SIGTERM)",
        libc::SIGHUP => "hung up (SIGHUP)",
        _ => "stopped by a signal",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_signal_has_its_own_line() {
        assert_eq!(describe(libc::SIGINT), "interrupted");
        assert!(describe(libc::SIGTERM).contains("SIGTERM"));
        assert!(describe(libc::SIGHUP).contains("SIGHUP"));
    }
}
