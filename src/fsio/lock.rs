//! Advisory locks for read-modify-write of a shared file.
//!
//! The lock is `flock` on a separate, stable file, never on the file it guards: that one is
//! replaced by a rename on every write, so a lock on it would be a lock on a file that is no
//! longer there. The lock file is created once and never removed by a writer (removing it
//! would let two processes lock two different files), except a lock [`Lock::passing`] takes:
//! its file is removed by the holder before it lets go, and a taker checks, once it holds
//! the lock, that the file it locked is still the one at the path (else it takes it again).

use std::path::Path;

/// An exclusive `flock`, released when dropped (with its file).
#[derive(Debug)]
pub struct Lock {
    _file: std::fs::File,
    /// Removed while still held, when dropped ([`Lock::passing`]).
    remove: Option<std::path::PathBuf>,
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Still held here (the file closes after this): a taker waiting on this file finds
        // it gone from the path once it gets the lock, and takes the path's new file.
        if let Some(path) = self.remove.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Lock {
    /// Waits for the lock of `target`: `.NAME.lock` in the same folder.
    pub fn beside(target: &Path) -> std::io::Result<Lock> {
        let (dir, name) = super::split(target)?;
        Lock::take(&dir.join(format!(".{name}.lock")), false)
    }

    /// Waits for the lock of `target` that leaves nothing behind: `.NAME.lock` beside it while
    /// held, removed before it is let go (no lock file sits next to a context set between
    /// two saves: issue 45). Safe with other takers: one that waited on the removed file
    /// sees, once it holds that file's lock, that the path no longer names it, and takes the
    /// path again, so two takers never hold locks on two different files at once.
    pub fn passing(target: &Path) -> std::io::Result<Lock> {
        let (dir, name) = super::split(target)?;
        let path = dir.join(format!(".{name}.lock"));
        loop {
            let mut lock = Lock::take(&path, false)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                let held = lock._file.metadata()?;
                match std::fs::metadata(&path) {
                    Ok(now) if now.ino() == held.ino() && now.dev() == held.dev() => {}
                    // Removed (or replaced) by the holder before us: take the path again.
                    _ => continue,
                }
                lock.remove = Some(path);
                return Ok(lock);
            }
            #[cfg(not(unix))]
            return Ok(lock);
        }
    }

    /// Waits for the lock on the file `path`, creating it (owner-only when `private`) if it
    /// is not there. Errors name the lock file.
    pub fn take(path: &Path, private: bool) -> std::io::Result<Lock> {
        let named = |e: std::io::Error| {
            std::io::Error::new(e.kind(), format!("cannot lock {}: {e}", path.display()))
        };
        let mut options = std::fs::OpenOptions::new();
        options.read(true).write(true).create(true).truncate(false);
        #[cfg(unix)]
        if private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        #[cfg(not(unix))]
        let _ = private;
        let file = options.open(path).map_err(named)?;
        #[cfg(unix)]
        loop {
            use std::os::fd::AsRawFd;
            // SAFETY: flock on a file descriptor this function owns.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
                break;
            }
            let e = std::io::Error::last_os_error();
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(named(e));
            }
        }
        Ok(Lock {
            _file: file,
            remove: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("set.json");
        let first = Lock::beside(&target).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let target = target.clone();
            std::thread::spawn(move || {
                let _second = Lock::beside(&target).unwrap();
                tx.send(()).unwrap();
            })
        };
        // flock locks belong to the open file: a second open in this process waits too.
        assert!(
            rx.recv_timeout(std::time::Duration::from_millis(200))
                .is_err(),
            "the second lock was granted while the first was held"
        );
        drop(first);
        rx.recv_timeout(std::time::Duration::from_secs(5))
            .expect("the second lock after the first was released");
        waiter.join().unwrap();
        assert!(
            dir.path().join(".set.json.lock").exists(),
            "the lock file stays"
        );
    }

    /// A passing lock leaves no file, and takers that queue on it still take turns: each
    /// holder sees the count it left, none two at once.
    #[cfg(unix)]
    #[test]
    fn a_passing_lock_leaves_nothing_and_takers_still_take_turns() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("set.json");
        let inside = std::sync::atomic::AtomicUsize::new(0);
        let total = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| {
                    for _ in 0..50 {
                        let _lock = Lock::passing(&target).unwrap();
                        use std::sync::atomic::Ordering::SeqCst;
                        assert_eq!(inside.fetch_add(1, SeqCst), 0, "two holders at once");
                        total.fetch_add(1, SeqCst);
                        std::thread::yield_now();
                        inside.fetch_sub(1, SeqCst);
                    }
                });
            }
        });
        assert_eq!(total.into_inner(), 400);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_private_lock_file_is_owner_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        drop(Lock::take(&path, true).unwrap());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
    }
}
