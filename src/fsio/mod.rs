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

/// The most bytes [`read_text`] reads: a context set with a million marks fits.
pub const SET_READ_CAP: u64 = 256 * 1024 * 1024;

/// The file's text, `None` when there is no file; read through [`SET_READ_CAP`] (a FIFO,
/// device or bigger file is an error naming it, never a hang or the machine's memory).
pub fn read_text(path: &Path) -> std::io::Result<Option<String>> {
    read_limited(path, SET_READ_CAP)
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

/// Why what `path` holds must not be believed, as ssh refuses an `authorized_keys` that
/// others can change: it (file or folder) can be written by its group or by everyone, or it
/// is owned by another user (who can change its mode). `None` when only this user can
/// change it, or when it does not exist. The message names the path, its mode and the fix.
pub fn loose(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let meta = std::fs::metadata(path).ok()?;
        let mode = meta.permissions().mode() & 0o7777;
        let who = match (mode & 0o020 != 0, mode & 0o002 != 0) {
            (_, true) => Some("everyone"),
            (true, false) => Some("its group"),
            _ => None,
        };
        if let Some(who) = who {
            return Some(format!(
                "{} is writable by {who} (mode {mode:04o}), so another user could change it: run `chmod go-w {}`",
                path.display(),
                path.display()
            ));
        }
        // SAFETY: geteuid() has no preconditions.
        let me = unsafe { libc::geteuid() };
        if meta.uid() != me && meta.uid() != 0 {
            return Some(format!(
                "{} is owned by user {} and not by this user ({me}), who could change it: make it yours (chown)",
                path.display(),
                meta.uid()
            ));
        }
        None
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The most bytes [`read_capped`] reads: far over any instructions file or record mcpick edits.
pub const READ_CAP: u64 = 8 * 1024 * 1024;

/// The file's text read through a size cap (a file over it is an error naming it), `None`
/// when there is no file. A FIFO or device is refused before it is opened for reading.
pub fn read_capped(path: &Path) -> std::io::Result<Option<String>> {
    read_limited(path, READ_CAP)
}

fn read_limited(path: &Path, cap: u64) -> std::io::Result<Option<String>> {
    use std::io::Read;
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
        Ok(meta) if !meta.is_file() => {
            return Err(std::io::Error::other(format!(
                "{} is {}, not a file",
                path.display(),
                kind_of(&meta)
            )));
        }
        Ok(_) => {}
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(cap + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > cap {
        return Err(std::io::Error::other(format!(
            "{} is over {} MiB: not read",
            path.display(),
            cap / (1024 * 1024)
        )));
    }
    Ok(Some(text))
}

/// What a non-file is, for messages.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if meta.is_dir() {
        "a folder"
    } else if meta.file_type().is_symlink() {
        "a symbolic link"
    } else {
        "not a regular file"
    }
}

/// After mcpick removed a file it had created: the folders between it and the nearest of
/// `roots` (a project, a home) that it leaves empty go too (`.codex/`, `~/.copilot/hooks/`),
/// deepest first, so an uninstall leaves no empty host folders behind. Never a root or
/// anything above one; nothing when the file is under none of them.
pub fn remove_left_empty(file: &Path, roots: &[&Path]) {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let Some(dir) = file.parent().map(real) else {
        return;
    };
    // A root of `/` (a command run there, no home known) would leave every folder in reach.
    let Some(root) = roots
        .iter()
        .map(|r| real(r))
        .filter(|r| r.parent().is_some() && dir.starts_with(r))
        .max_by_key(|r| r.components().count())
    else {
        return;
    };
    for folder in dir.ancestors().take_while(|f| *f != root) {
        if std::fs::remove_dir(folder).is_err() {
            break;
        }
    }
}

/// The file `path` names, checked to stay inside the folder `root`: every folder on the way
/// and, when `path` is a symbolic link, the file it leads to resolve (canonically) under
/// `root`, the folders that exist are folders, and what is at the end is a regular file or
/// nothing yet. So a link planted in a project (`.mcpick → ~/.ssh`, `CLAUDE.md → /dev/null`)
/// cannot turn a write meant for the project into one outside it: the caller writes, appends
/// to or removes the returned path (a link's target, so a link stays a link), or says the
/// error, which names the path, before anything is written.
pub fn inside(path: &Path, root: &Path) -> std::io::Result<PathBuf> {
    let refuse = |why: String| Err(std::io::Error::other(why));
    let root_real = std::fs::canonicalize(root)
        .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", root.display())))?;
    let target = target_of(path)?;
    // The deepest folder that exists, resolved; the rest cannot be links (it is not there).
    let mut existing = target.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut missing = Vec::new();
    loop {
        match std::fs::symlink_metadata(&existing) {
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let Some(name) = existing.file_name() else {
                    return refuse(format!("{}: no such folder", existing.display()));
                };
                missing.push(name.to_os_string());
                existing = match existing.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                    _ => PathBuf::from("."),
                };
            }
            Err(e) => return Err(e),
        }
    }
    let mut real = std::fs::canonicalize(&existing)?;
    if !real.is_dir() {
        return refuse(format!(
            "{} is {}, where a folder belongs",
            existing.display(),
            kind_of(&std::fs::metadata(&real)?)
        ));
    }
    for name in missing.into_iter().rev() {
        if name == ".." || name == "." {
            return refuse(format!("{}: a `..` in a path mcpick made", path.display()));
        }
        real.push(name);
    }
    real.push(target.file_name().unwrap_or_default());
    if !real.starts_with(&root_real) {
        return refuse(format!(
            "{} leads to {}, outside {}: mcpick writes there only inside it (a symbolic link?)",
            path.display(),
            real.display(),
            root_real.display()
        ));
    }
    match std::fs::symlink_metadata(&real) {
        Ok(meta) if !meta.is_file() => refuse(format!(
            "{} is {}, not a file: left as it is",
            path.display(),
            kind_of(&meta)
        )),
        _ => Ok(real),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Empty folders between the removed file and the nearest root go, deepest first; the root,
    /// a folder with something in it, and anything under no root (or only under `/`) stay.
    #[test]
    fn only_empty_folders_below_a_root_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let project = home.join("project");
        let deep = project.join(".host/hooks");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(home.join(".kept/sub")).unwrap();
        std::fs::write(home.join(".kept/mine"), "x").unwrap();

        remove_left_empty(&deep.join("gone.json"), &[&home, &project]);
        assert!(!project.join(".host").exists());
        assert!(project.is_dir(), "a root stays, even empty");

        remove_left_empty(&home.join(".kept/sub/gone.json"), &[&home]);
        assert!(!home.join(".kept/sub").exists());
        assert!(home.join(".kept").is_dir(), "the user's file is in it");

        let lone = dir.path().join("elsewhere/.x");
        std::fs::create_dir_all(&lone).unwrap();
        remove_left_empty(&lone.join("f"), &[&project]);
        remove_left_empty(&lone.join("f"), &[Path::new("/")]);
        assert!(lone.is_dir(), "under no root but /: left alone");
    }
}
