//! `--violate RULE`: break exactly one rule of `mcpick check`, so each rule can be seen to
//! fail on its violation (and only there). Each variant names the rule it breaks; the
//! handler asks [`Violations::has`] at the one place the rule is about.

use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::model::{Annotations, ResourceContents};

/// One planted violation; the doc line says which `mcpick check` rule fails.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Violation {
    /// `capability`: serve resources without declaring the `resources` capability.
    Capability,
    /// `pagination.terminates`: the same `nextCursor` on every page, forever.
    CursorLoop,
    /// `pagination.invalid-cursor`: a cursor the server never sent gets the first page.
    InvalidCursor,
    /// `stable.connections`: each connection lists one extra resource of its own.
    Unstable,
    /// `stable.after-reads`: after the first read, the list grows by `demo://recent`.
    SideEffect,
    /// `not-found`: an unlisted URI reads as empty `contents` instead of an error.
    NotFoundEmpty,
    /// `read.matches-list`: contents come back under another URI.
    ReadUri,
    /// `read.mime`: text resources are read as blobs.
    WrongMime,
    /// `read.size`: every listed `size` is one byte too many (a warning).
    WrongSize,
    /// `annotations`: the first resource has priority 1.5 and lastModified "yesterday".
    BadAnnotations,
    /// `names-uris`: a relative URI, a duplicate URI and an empty name on the last page.
    BadUris,
    /// `templates.syntax`: a template with an unclosed `{`.
    BadTemplate,
    /// `templates.completion`: `completions` declared, every completion refused.
    NoCompletion,
    /// `traversal`: `file://` reads with `..`, `%2e%2e`, `%2f` or of /etc/ return
    /// a canned /etc/passwd (nothing is read from disk).
    Traversal,
    /// `caching`: list and read results without `ttlMs` and `cacheScope` (stdio only).
    NoCacheHints,
}

/// The planted violations of one server process, and what they remember.
#[derive(Debug, Default)]
pub(crate) struct Violations {
    planted: Vec<Violation>,
    /// A read happened (for [`Violation::SideEffect`]).
    read_once: AtomicBool,
}

/// What [`Violation::Traversal`] hands out: the shape of a password file, made up.
pub(crate) const FAKE_PASSWD: &str =
    "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n";
/// The resource [`Violation::SideEffect`] adds.
pub(crate) const RECENT_URI: &str = "demo://recent";
/// The prefix of the per-connection resource of [`Violation::Unstable`].
pub(crate) const SESSION_PREFIX: &str = "demo://session/";
/// The template [`Violation::BadTemplate`] adds.
pub(crate) const BAD_TEMPLATE: &str = "demo://broken/{id";

impl Violations {
    pub(crate) fn new(planted: &[Violation]) -> Self {
        Violations {
            planted: planted.to_vec(),
            read_once: AtomicBool::new(false),
        }
    }

    pub(crate) fn has(&self, v: Violation) -> bool {
        self.planted.contains(&v)
    }

    pub(crate) fn note_read(&self) {
        self.read_once.store(true, Ordering::SeqCst);
    }

    /// True once [`Violation::SideEffect`] should show.
    pub(crate) fn side_effect_due(&self) -> bool {
        self.has(Violation::SideEffect) && self.read_once.load(Ordering::SeqCst)
    }
}

/// [`Violation::BadAnnotations`]: out-of-range annotations, still typed.
pub(crate) fn bad_annotations() -> Annotations {
    let mut a = Annotations::default();
    a.priority = Some(1.5);
    a.last_modified = Some("yesterday".into());
    a
}

/// True for a `file://` URI that climbs out of `/project/` ([`Violation::Traversal`]).
pub(crate) fn escapes_project(uri: &str) -> bool {
    let Some(path) = uri.strip_prefix("file://") else {
        return false;
    };
    let lower = path.to_ascii_lowercase();
    lower.contains("..")
        || lower.contains("%2e")
        || lower.contains("%2f")
        || lower.starts_with("/etc/")
}

/// [`Violation::ReadUri`] and [`Violation::WrongMime`] applied to a read's contents.
pub(crate) fn spoil_contents(
    v: &Violations,
    contents: Vec<ResourceContents>,
) -> Vec<ResourceContents> {
    use base64::Engine;
    contents
        .into_iter()
        .map(|c| match c {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                meta,
            } if v.has(Violation::WrongMime) => ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob: base64::engine::general_purpose::STANDARD.encode(text),
                meta,
            },
            other => other,
        })
        .map(|c| {
            if !v.has(Violation::ReadUri) {
                return c;
            }
            match c {
                ResourceContents::TextResourceContents {
                    mime_type,
                    text,
                    meta,
                    ..
                } => ResourceContents::TextResourceContents {
                    uri: "demo://elsewhere".into(),
                    mime_type,
                    text,
                    meta,
                },
                ResourceContents::BlobResourceContents {
                    mime_type,
                    blob,
                    meta,
                    ..
                } => ResourceContents::BlobResourceContents {
                    uri: "demo://elsewhere".into(),
                    mime_type,
                    blob,
                    meta,
                },
                other => other,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traversal_spots_every_escape() {
        for bad in [
            "file:///project/../../etc/passwd",
            "file:///project/%2e%2e/etc/passwd",
            "file:///project/..%2fetc%2fpasswd",
            "file:///etc/passwd",
        ] {
            assert!(escapes_project(bad), "{bad}");
        }
        assert!(!escapes_project("file:///project/README.md"));
        assert!(
            !escapes_project("file:///mcpick-check-1234"),
            "a not-found probe"
        );
        assert!(!escapes_project("demo://x/.."));
    }
}
