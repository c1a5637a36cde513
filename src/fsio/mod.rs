//! The one way mcpick writes a file it keeps: context sets, host configs and their backups,
//! wrap records, delivery pieces, locks and exports, the era memory and the token store.
//!
//! - [`write_atomic`] / [`write_with`]: a temporary file (`.NAME.PID.N.tmp`) in the target's
//!   folder, written and fsynced, renamed over the target, the folder fsynced (Unix), so a
//!   crash leaves the old file or the new one, never a mix. Temporary files a killed write
//!   left are removed by the next write of that file ([`clean_stale`]). [`Perms`] says whose
//!   permissions the file gets.
//! - [`Lock`]: an advisory `flock` on a separate, stable lock file, for read-modify-write.
//! - [`target_of`] and [`unwritable`]: which file a path names (through symbolic links), and
//!   the one rule for refusing to replace a file.
//!
//! Plain `std` and `libc`: it imports nothing else of the crate, so every layer may use it.

mod lock;
mod write;

use std::path::{Path, PathBuf};

pub use lock::Lock;
pub use write::{Perms, STALE_AFTER, clean_stale, private_dir, write_atomic, write_with};

/// A file's folder (`.` for a bare name) and name.
fn split(path: &Path) -> std::io::Result<(PathBuf, String)> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?
        .to_string_lossy()
        .into_owned();
    Ok((dir, name))
}

/// The file's text, `None` when there is no file.
pub fn read_text(path: &Path) -> std::io::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The file a path names, following symbolic links (also a link to a file not created yet).
pub fn target_of(path: &Path) -> std::io::Result<PathBuf> {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        match std::fs::symlink_metadata(&current) {
            Ok(meta) if meta.file_type().is_symlink() => {
                let next = std::fs::read_link(&current)?;
                current = match current.parent() {
                    Some(parent) if next.is_relative() => parent.join(next),
                    _ => next,
                };
            }
            _ => return Ok(current),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Why an existing file must not be replaced, by the one rule every file mcpick edits in
/// place follows (context sets, host configs): no write permission bit (decided by the mode,
/// so it holds for root too, who may write anything), no permission for this user, or owned
/// by another user (an atomic replace would hand the file to this user). `None` for a
/// writable (or missing) file.
pub fn unwritable(target: &Path) -> Option<String> {
    let meta = std::fs::metadata(target).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let mode = meta.permissions().mode() & 0o7777;
        if meta.permissions().readonly() {
            return Some(format!("mode {mode:04o}"));
        }
        let c = std::ffi::CString::new(target.as_os_str().as_bytes()).ok()?;
        // SAFETY: a valid NUL-terminated path; access() only reads it.
        if unsafe { libc::access(c.as_ptr(), libc::W_OK) } != 0 {
            return Some(format!(
                "mode {mode:04o}, not writable by this user: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: geteuid() has no preconditions.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me {
            return Some(format!(
                "owned by user {} and not by this user ({me}): replacing it would change its owner",
                meta.uid()
            ));
        }
        None
    }
    #[cfg(not(unix))]
    {
        meta.permissions()
            .readonly()
            .then(|| "the read-only attribute is set".to_string())
    }
}
