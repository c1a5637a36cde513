//! Every live stdio server's process group, in one process-wide registry, so that every way
//! mcpick ends kills them: a dropped connection kills its own group, and a signal (which ends
//! the process without running destructors) kills all of them through [`kill_all`]. What
//! kills mcpick without letting it act (SIGKILL) is covered by [`super::reaper`].
//!
//! Servers are spawned from one thread that lives as long as mcpick, never from a runtime
//! worker that may end first: Linux's parent-death signal fires when the *thread* that forked
//! ends, not the process.

use crate::sync::Locked;
use std::sync::{Mutex, OnceLock, mpsc};

use super::reaper;

/// The registered groups, and whether mcpick is exiting (then nothing new may start).
struct Registry {
    groups: Vec<libc::pid_t>,
    closing: bool,
}

static LIVE: Mutex<Registry> = Mutex::new(Registry {
    groups: Vec::new(),
    closing: false,
});

fn live() -> std::sync::MutexGuard<'static, Registry> {
    LIVE.locked()
}

/// A stdio server's process group (the server is its leader, so a server started through
/// `npx` or a shell, and whatever it forks, are all in it). Dropping it kills the group.
pub(crate) struct ProcessGroup(libc::pid_t);

impl ProcessGroup {
    /// Runs `spawn` on the spawning thread, inside the caller's runtime, with the registry
    /// locked, and registers the group whose leader's pid it returns (here and with the
    /// reaper). Holding the lock across the spawn means a signal arriving meanwhile waits for
    /// the registration, then kills the new group too: no server slips through. If the caller
    /// stops waiting, the result is dropped, which kills the new group.
    pub(crate) async fn spawn<T: Send + 'static>(
        spawn: impl FnOnce() -> std::io::Result<(T, Option<u32>)> + Send + 'static,
    ) -> std::io::Result<(T, Option<ProcessGroup>)> {
        let runtime = tokio::runtime::Handle::current();
        let (tx, rx) = tokio::sync::oneshot::channel();
        on_spawning_thread(Box::new(move || {
            let _entered = runtime.enter();
            let _ = tx.send(Self::spawn_registered(spawn));
        }))?;
        rx.await
            .map_err(|_| std::io::Error::other("the thread that starts servers has ended"))?
    }

    fn spawn_registered<T>(
        spawn: impl FnOnce() -> std::io::Result<(T, Option<u32>)>,
    ) -> std::io::Result<(T, Option<ProcessGroup>)> {
        let mut live = live();
        if live.closing {
            return Err(std::io::Error::other("mcpick is exiting"));
        }
        let (value, pid) = spawn()?;
        let group = pid
            .and_then(|pid| libc::pid_t::try_from(pid).ok())
            .map(|pgid| {
                live.groups.push(pgid);
                reaper::watch(pgid);
                ProcessGroup(pgid)
            });
        Ok((value, group))
    }
}

/// Starts `command` as the leader of its own registered group, stdin and stdout piped, its
/// stderr as given, killed with mcpick whatever way mcpick ends (dropped, signalled, killed):
/// for a process mcpick talks to directly rather than through rmcp (`wrap`'s upstream).
pub(crate) async fn spawn_child(
    mut command: tokio::process::Command,
) -> std::io::Result<(
    Box<dyn process_wrap::tokio::ChildWrapper>,
    Option<ProcessGroup>,
)> {
    command
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    reaper::parent_death_signal(&mut command);
    let mut wrap = process_wrap::tokio::CommandWrap::from(command);
    wrap.wrap(process_wrap::tokio::ProcessGroup::leader())
        .wrap(process_wrap::tokio::KillOnDrop);
    ProcessGroup::spawn(move || {
        let child = wrap.spawn()?;
        let pid = child.id();
        Ok((child, pid))
    })
    .await
}

type Job = Box<dyn FnOnce() + Send>;

/// Runs `job` on the spawning thread (started on first use; it never ends).
fn on_spawning_thread(job: Job) -> std::io::Result<()> {
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
    let sender = match SPAWNER.get() {
        Some(sender) => sender,
        None => {
            let (tx, rx) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("mcpick-spawner".into())
                .spawn(move || {
                    for job in rx {
                        job();
                    }
                })?;
            // Two first callers may race: the loser's thread ends with its unused channel.
            SPAWNER.get_or_init(|| Mutex::new(tx))
        }
    };
    sender
        .locked()
        .send(job)
        .map_err(|_| std::io::Error::other("the thread that starts servers has ended"))
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        let mut live = live();
        live.groups.retain(|&g| g != self.0);
        kill(self.0);
        reaper::forget(self.0);
    }
}

/// Kills every registered group and refuses new ones from now on. Returns how many groups
/// were killed. Called when mcpick is about to exit without unwinding (a signal) and as a
/// last step of a normal exit.
pub fn kill_all() -> usize {
    kill_registered(true)
}

fn kill_registered(close: bool) -> usize {
    let mut live = live();
    live.closing |= close;
    let groups = std::mem::take(&mut live.groups);
    for &group in &groups {
        kill(group);
    }
    groups.len()
}

#[cfg(test)]
fn is_registered(pgid: libc::pid_t) -> bool {
    live().groups.contains(&pgid)
}

fn kill(pgid: libc::pid_t) {
    if pgid <= 1 {
        return; // never "every process" or init
    }
    // SAFETY: killpg only sends a signal; a group that is gone yields ESRCH, ignored.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    /// Running (a zombie, dead but not yet reaped by its new parent, does not count).
    fn alive(pid: libc::pid_t) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])),
            Err(_) => false,
        }
    }

    fn wait_gone(pid: libc::pid_t) -> bool {
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(5) {
            if !alive(pid) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    /// A shell leading its own group, with a grandchild that writes its pid and sleeps.
    fn spawn_family(dir: &std::path::Path) -> (std::process::Child, libc::pid_t) {
        let pidfile = dir.join("grandchild.pid");
        let script = format!("sleep 300 & echo $! > '{}'; wait", pidfile.display());
        let child = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let start = Instant::now();
        let grandchild = loop {
            if let Ok(text) = std::fs::read_to_string(&pidfile)
                && let Ok(pid) = text.trim().parse()
            {
                break pid;
            }
            assert!(start.elapsed() < Duration::from_secs(5), "no pid file");
            std::thread::sleep(Duration::from_millis(10));
        };
        (child, grandchild)
    }

    #[test]
    fn drop_and_kill_all_kill_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();

        // Dropping one group kills its grandchild and unregisters it.
        let a = dir.path().join("a");
        std::fs::create_dir(&a).unwrap();
        let ((mut child, grandchild), group) = ProcessGroup::spawn_registered(|| {
            let (child, grandchild) = spawn_family(&a);
            let id = child.id();
            Ok(((child, grandchild), Some(id)))
        })
        .unwrap();
        let pgid = group.as_ref().unwrap().0;
        assert!(is_registered(pgid));
        drop(group);
        assert!(!is_registered(pgid));
        let _ = child.wait();
        assert!(wait_gone(grandchild), "the grandchild outlived its group");

        // Killing every registered group (as a signal does) reaches the grandchild too.
        let b = dir.path().join("b");
        std::fs::create_dir(&b).unwrap();
        let ((mut child, grandchild), group) = ProcessGroup::spawn_registered(|| {
            let (child, grandchild) = spawn_family(&b);
            let id = child.id();
            Ok(((child, grandchild), Some(id)))
        })
        .unwrap();
        // (Without closing the registry: other tests of this binary may still spawn.)
        assert!(kill_registered(false) >= 1);
        let _ = child.wait();
        assert!(
            wait_gone(grandchild),
            "killing the groups left the grandchild running"
        );
        drop(group);
    }
}
