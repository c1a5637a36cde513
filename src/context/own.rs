//! mcpick's own outputs: the paths it writes (deliveries, the host files `install` edits,
//! skills it placed, its folder beside the set). A server that publishes the project's files
//! lists them too, and a set that took them in would feed on itself: the next delivery would
//! hold a copy of the last one, the host's settings and inlined skill bodies. Resolution leaves
//! every `file://` resource naming one of them out, pinned or not, as
//! [`super::Reason::OwnOutput`] with why.
//!
//! Data only: the front ends, which know the set's deliveries ([`crate::handoff::own_outputs`]),
//! fill it in; resolution only compares paths (no disk).

use std::path::{Path, PathBuf};

/// One path mcpick writes: a file, or a folder and everything in it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Own {
    path: PathBuf,
    folder: bool,
    why: String,
}

/// The paths mcpick writes for one set; see the module documentation.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnOutputs {
    entries: Vec<Own>,
}

impl OwnOutputs {
    /// A file mcpick writes (`why`: what it is, for the preview's left-out line).
    pub fn file(&mut self, path: &Path, why: impl Into<String>) {
        self.add(path, false, why.into());
    }

    /// A folder mcpick writes, with everything in it.
    pub fn folder(&mut self, path: &Path, why: impl Into<String>) {
        self.add(path, true, why.into());
    }

    /// Both as given and with its folder's links resolved (the server may name either), each
    /// once.
    fn add(&mut self, path: &Path, folder: bool, why: String) {
        for path in [path.to_path_buf(), resolved(path)] {
            if !self.entries.iter().any(|e| e.path == path) {
                self.entries.push(Own {
                    path,
                    folder,
                    why: why.clone(),
                });
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Why `uri` is mcpick's own output, when it is a `file://` URI naming one.
    pub fn why(&self, uri: &str) -> Option<&str> {
        if self.entries.is_empty() {
            return None;
        }
        let path = file_path(uri)?;
        let path = Path::new(&path);
        self.entries
            .iter()
            .find(|e| {
                if e.folder {
                    path.starts_with(&e.path)
                } else {
                    path == e.path
                }
            })
            .map(|e| e.why.as_str())
    }
}

/// The path of a `file://` URI (no host, or `localhost`), percent-decoded, without a query or
/// fragment; `None` for other URIs.
fn file_path(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("file://")?;
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let end = rest.find(['?', '#']).unwrap_or(rest.len());
    Some(crate::catalog::tree::percent_decode(&rest[..end]).into_owned())
}

/// `path` with its folder's symbolic links resolved (the file itself may not exist yet).
fn resolved(path: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(path) {
        return real;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent)
            .map(|p| p.join(name))
            .unwrap_or_else(|_| path.to_path_buf()),
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_naming_an_output_are_found_with_why() {
        let mut own = OwnOutputs::default();
        own.file(Path::new("/p/AGENTS.override.md"), "Codex's delivery");
        own.folder(Path::new("/p/.mcpick"), "deliveries");
        assert_eq!(
            own.why("file:///p/AGENTS.override.md"),
            Some("Codex's delivery")
        );
        assert_eq!(
            own.why("file://localhost/p/.mcpick/a.md"),
            Some("deliveries")
        );
        assert_eq!(own.why("file:///p/.mcpick"), Some("deliveries"));
        assert_eq!(own.why("file:///p/%2Emcpick/x?v=1"), Some("deliveries"));
        assert_eq!(own.why("file:///p/.mcpickx/a.md"), None);
        assert_eq!(own.why("file:///p/AGENTS.md"), None);
        assert_eq!(own.why("demo:///p/AGENTS.override.md"), None);
    }
}
