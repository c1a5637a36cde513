//! Atomic replacement of a file, and the cleanup of what a killed write left.

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::split;

/// How old a temporary file of a live process must be before a write removes it anyway (its
/// process id may have been reused).
pub const STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// Whose permissions a written file gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Perms<'a> {
    /// The file's own when it exists; a new file gets the process default (umask).
    Keep,
    /// The file's own when it exists; a new one gets those of this other file (a backup or
    /// side record of a private host file stays private), else the default.
    KeepOrLike(&'a Path),
    /// Owner-only (0600) whatever the file had: tokens, the era memory.
    Private,
}

/// Writes `bytes` to `path` atomically, keeping an existing file's permissions
/// ([`Perms::Keep`]). See [`write_with`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(path, bytes, Perms::Keep)
}

/// Writes `bytes` to `path` through a temporary file in the same folder: write, fsync,
/// rename, fsync the folder. The temporary file has its final permissions before it holds a
/// byte. Stale temporary files of the same file are removed first ([`clean_stale`]). On any
/// failure the old file is as it was and the temporary file is gone.
pub fn write_with(path: &Path, bytes: &[u8], perms: Perms<'_>) -> std::io::Result<()> {
    replace(path, perms, |file| file.write_all(bytes))
}

/// [`write_with`], the contents written by `fill`.
fn replace(
    path: &Path,
    perms: Perms<'_>,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let (dir, name) = split(path)?;
    clean_stale(&dir, &name);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let result = (|| {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        if perms == Perms::Private {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        let mut file = options.open(&tmp)?;
        // Only a regular file's own mode is kept: a link (to `/dev/null`, say) or a device
        // would hand its mode (0666) to the file written in its place.
        let own = |p: &Path| std::fs::symlink_metadata(p).ok().filter(|m| m.is_file());
        let model = match perms {
            Perms::Keep => own(path),
            Perms::KeepOrLike(like) => own(path).or_else(|| own(like)),
            Perms::Private => None,
        };
        if let Some(meta) = model {
            file.set_permissions(meta.permissions())?;
        }
        fill(&mut file)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result?;
    // The rename is durable once the folder is; not every platform can open a folder.
    if let Ok(dir) = std::fs::File::open(&dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Creates `dir` and its missing parents owner-only (0700); an existing folder is left as
/// it is.
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Removes the temporary files [`write_with`] left for `name` in `dir` when a write was
/// killed: exactly `.NAME.PID.N.tmp` (both numbers), whose process is gone or which are
/// older than [`STALE_AFTER`]. Another process's write in progress is left alone. Best effort.
pub fn clean_stale(dir: &Path, name: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    let own = std::process::id();
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(file_name) = file_name.to_str() else {
            continue;
        };
        let Some(pid) = file_name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.strip_suffix(".tmp"))
            .and_then(temp_pid)
        else {
            continue;
        };
        let old = entry
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_AFTER);
        if (pid != own && !process_alive(pid)) || old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// `PID.N` → PID, for the middle of a temporary file's name.
fn temp_pid(middle: &str) -> Option<u32> {
    let (pid, n) = middle.split_once('.')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(pid) || !digits(n) {
        return None;
    }
    pid.parse().ok()
}

fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = i32::try_from(pid) else {
            return false;
        };
        // SAFETY: signal 0 only checks that the process exists.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A file written where a link to `/dev/null` was gets the default mode, not the
    /// device's 0666; a regular file keeps its own.
    #[cfg(unix)]
    #[test]
    fn a_link_to_a_device_hands_on_no_mode() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("CLAUDE.md");
        std::os::unix::fs::symlink("/dev/null", &link).unwrap();
        write_atomic(&link, b"text").unwrap();
        let mode = std::fs::metadata(&link).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode & 0o002, 0, "world-writable: {mode:o}");
        let own = dir.path().join("own.md");
        std::fs::write(&own, "x").unwrap();
        std::fs::set_permissions(&own, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&own, b"y").unwrap();
        let mode = std::fs::metadata(&own).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }

    /// A pid that is not running (pid_max is below 2^22 on Linux).
    const DEAD: u32 = 4_194_301;

    #[test]
    fn a_crash_left_temp_is_cleaned_and_a_live_one_kept() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let live = std::process::id();
        let stale = format!(".f.json.{DEAD}.7.tmp");
        let keep = [
            format!(".f.json.{live}.99.tmp"),    // a write of a live process
            format!(".other.json.{DEAD}.0.tmp"), // another file's
            format!(".f.json.{DEAD}.x.tmp"),     // not our naming
            format!("f.json.{DEAD}.0.tmp"),      // not our naming
        ];
        std::fs::write(d.join(&stale), "half a file").unwrap();
        for k in &keep {
            std::fs::write(d.join(k), "").unwrap();
        }
        write_atomic(&d.join("f.json"), b"new").unwrap();
        let left = names(d);
        assert!(!left.contains(&stale), "{left:?}");
        for k in &keep {
            assert!(left.contains(k), "{k} removed: {left:?}");
        }
        assert_eq!(std::fs::read(d.join("f.json")).unwrap(), b"new");
        assert_eq!(temp_pid("12.3"), Some(12));
        assert_eq!(temp_pid("12.3.4"), None);
        assert_eq!(temp_pid(".3"), None);
    }

    #[test]
    fn an_old_temp_of_a_live_process_is_cleaned_too() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let old = d.join(format!(".f.{}.0.tmp", std::process::id()));
        std::fs::write(&old, "").unwrap();
        let long_ago = std::time::SystemTime::now() - STALE_AFTER - Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        write_atomic(&d.join("f"), b"x").unwrap();
        assert_eq!(names(d), ["f"]);
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept_borrowed_or_private() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        let set = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        // Keep: an existing file's mode survives the replace.
        let kept = d.join("kept");
        std::fs::write(&kept, "old").unwrap();
        set(&kept, 0o640);
        write_atomic(&kept, b"new").unwrap();
        assert_eq!(
            (mode(&kept), std::fs::read(&kept).unwrap()),
            (0o640, b"new".to_vec())
        );
        // KeepOrLike: a new file borrows the other file's mode; an existing one keeps its own.
        let host = d.join("host.json");
        std::fs::write(&host, "{}").unwrap();
        set(&host, 0o600);
        let backup = d.join("host.json.bak");
        write_with(&backup, b"{}", Perms::KeepOrLike(&host)).unwrap();
        assert_eq!(mode(&backup), 0o600);
        set(&backup, 0o644);
        write_with(&backup, b"{}", Perms::KeepOrLike(&host)).unwrap();
        assert_eq!(mode(&backup), 0o644);
        // Private: owner-only, even over a file that was readable by others.
        let token = d.join("token");
        std::fs::write(&token, "old").unwrap();
        set(&token, 0o644);
        write_with(&token, b"secret", Perms::Private).unwrap();
        assert_eq!(mode(&token), 0o600);
        write_with(&d.join("new-token"), b"secret", Perms::Private).unwrap();
        assert_eq!(mode(&d.join("new-token")), 0o600);
        private_dir(&d.join("a/b")).unwrap();
        assert_eq!(mode(&d.join("a")), 0o700);
        assert_eq!(mode(&d.join("a/b")), 0o700);
        assert!(
            !names(d).iter().any(|n| n.ends_with(".tmp")),
            "{:?}",
            names(d)
        );
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let path = d.join("f.json");
        std::fs::write(&path, "old").unwrap();
        // Failing half way through the contents (a full disk, a killed pipe).
        let err = replace(&path, Perms::Keep, |file| {
            file.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(std::fs::read(&path).unwrap(), b"old");
        assert_eq!(names(d), ["f.json"]);
        // Failing at the rename: a folder is in the way.
        let blocked = d.join("blocked");
        std::fs::create_dir(&blocked).unwrap();
        std::fs::write(blocked.join("inside"), "mine").unwrap();
        assert!(write_atomic(&blocked, b"new").is_err());
        assert_eq!(std::fs::read(blocked.join("inside")).unwrap(), b"mine");
        assert_eq!(names(d), ["blocked", "f.json"]);
    }
}
