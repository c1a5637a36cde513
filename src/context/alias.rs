//! One resource, many spellings: the canonical form of a URI, as a server that normalises
//! paths reads it. A filesystem server given `file:///proj//secret.env`,
//! `file:////proj/secret.env`, `file://localhost/proj/secret.env`,
//! `FILE:///proj/%73ecret.env` or `file:///proj/docs/../secret.env` opens the one file
//! `file:///proj/secret.env` names; so a filter that compares the text as written lets an
//! excluded resource out under another name. Whoever decides a read of a URI no listing gave
//! (`wrap`'s proxy) compares canonical forms on both sides: the URI asked for and every mark
//! ([`canonical_marks`]).
//!
//! The canonical form: scheme and host in lower case, every `%XX` decoded (a reserved `%2F`
//! too: a server that decodes before it splits reads a `/`), no query or fragment, `localhost`
//! (or no authority) as the empty host of a `file:` URI, empty path segments and `.` dropped,
//! `..` resolved (never above the root), and no trailing slash. It is for comparing only:
//! two URIs with one canonical form may still be two resources to some server, and then the
//! filter refuses a little more than it must, never less.

use super::mark::{Mark, Marks, Pattern, Target};

/// The canonical form of `uri` (see the module doc).
pub fn canonical(uri: &str) -> String {
    let cut = uri.find(['?', '#']).unwrap_or(uri.len());
    let decoded = crate::redact::percent_decode(&uri[..cut]);
    let (scheme, rest) = match decoded.find(':') {
        Some(at) => (decoded[..at].to_ascii_lowercase(), &decoded[at + 1..]),
        None => (String::new(), decoded.as_str()),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(after[..end].to_ascii_lowercase()), &after[end..])
        }
        None => (None, rest),
    };
    let authority = if scheme == "file" {
        // RFC 8089: `file:/p`, `file:///p` and `file://localhost/p` name one file.
        Some(authority.filter(|a| a != "localhost").unwrap_or_default())
    } else {
        authority
    };
    let segments = path_segments(path);
    let mut form = String::with_capacity(uri.len());
    if !scheme.is_empty() {
        form.push_str(&scheme);
        form.push(':');
    }
    if let Some(authority) = &authority {
        form.push_str("//");
        form.push_str(authority);
    }
    if path.starts_with('/') || (authority.is_some() && !segments.is_empty()) {
        form.push('/');
    }
    form.push_str(&segments.join("/"));
    form
}

/// The path's segments with the empty ones and `.` dropped and `..` resolved against the
/// ones before it (RFC 3986 5.2.4, plus the collapsing of `//` that file systems do).
fn path_segments(path: &str) -> Vec<&str> {
    let mut segments: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop();
            }
            other => segments.push(other),
        }
    }
    segments
}

/// The canonical form of a prefix mark's text: a prefix that ends a folder (`…/docs/`) keeps
/// its slash, so it still stops at the folder's end (`…/docsX` is not under it).
pub fn canonical_prefix(prefix: &str) -> String {
    let form = canonical(prefix);
    let path_end = prefix.find(['?', '#']).unwrap_or(prefix.len());
    let folder = crate::redact::percent_decode(&prefix[..path_end]).ends_with('/');
    if folder && !form.ends_with('/') {
        form + "/"
    } else {
        form
    }
}

/// The forms to look up for a URI asked for: its canonical form, and that form as a folder
/// (`…/docs/`) when it was written as one, so a prefix mark on the folder catches it.
pub fn forms(uri: &str) -> Vec<String> {
    let form = canonical(uri);
    let folder = canonical_prefix(uri);
    if folder == form {
        vec![form]
    } else {
        vec![form, folder]
    }
}

/// `server`'s marks with every target in its canonical form. Where two marks meet in one
/// form (a pin on one spelling, an exclude on another), the exclude wins.
pub fn canonical_marks(marks: &Marks, server: &str) -> Marks {
    let mut list: Vec<(Target, Mark)> = marks
        .iter()
        .filter(|(target, _)| target.server == server)
        .map(|(target, mark)| {
            let pattern = match &target.pattern {
                Pattern::Exact(uri) => Pattern::Exact(canonical(uri)),
                Pattern::Prefix(prefix) => Pattern::Prefix(canonical_prefix(prefix)),
            };
            (
                Target {
                    server: target.server,
                    pattern,
                },
                mark,
            )
        })
        .collect();
    // Excludes last: the later of two marks on one target is the one kept.
    list.sort_by_key(|(_, mark)| *mark == Mark::Exclude);
    let mut canonical = Marks::new();
    for (target, mark) in list {
        canonical.set(target, Some(mark));
    }
    canonical.clear_history();
    canonical
}

/// True when the set excludes `uri` under any spelling: the URI as written in `marks`, or its
/// canonical forms in `canonical` (from [`canonical_marks`]).
pub fn excluded(marks: &Marks, canonical: &Marks, server: &str, uri: &str) -> bool {
    let is_exclude = |marks: &Marks, form: &str| {
        marks
            .effective(server, form)
            .is_some_and(|e| e.mark == Mark::Exclude)
    };
    is_exclude(marks, uri) || forms(uri).iter().any(|form| is_exclude(canonical, form))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_aliases_a_path_normalising_server_reads_as_one_file_have_one_form() {
        let aliases = [
            "file:///proj/secret.env",
            "file:///proj//secret.env",
            "file:////proj/secret.env",
            "file://localhost/proj/secret.env",
            "file://LOCALHOST/proj/secret.env",
            "FILE:///proj/%73ecret.env",
            "file:///proj/./secret.env",
            "file:///proj/docs/../secret.env",
            "file:///proj%2Fsecret.env",
            "file:/proj/secret.env",
            "file:///proj/secret.env?x=1#top",
            "file:///proj/secret.env/",
        ];
        for alias in aliases {
            assert_eq!(canonical(alias), "file:///proj/secret.env", "{alias}");
        }
    }

    #[test]
    fn other_uris_keep_their_shape() {
        assert_eq!(canonical("py://items/beta/1"), "py://items/beta/1");
        assert_eq!(canonical("py://items"), "py://items");
        assert_eq!(
            canonical("HTTPS://Example.COM/A/b"),
            "https://example.com/A/b"
        );
        assert_eq!(canonical("urn:isbn:0451450523"), "urn:isbn:0451450523");
        assert_eq!(canonical("file://server/share/x"), "file://server/share/x");
        assert_eq!(canonical("file:///../../etc/passwd"), "file:///etc/passwd");
        assert_eq!(canonical("file:///"), "file:///");
        // Case in a path is the server's business: kept.
        assert_ne!(canonical("file:///p/A"), canonical("file:///p/a"));
    }

    #[test]
    fn a_folder_prefix_keeps_its_slash() {
        assert_eq!(
            canonical_prefix("file:///proj//docs/"),
            "file:///proj/docs/"
        );
        assert_eq!(canonical_prefix("file:///proj/doc"), "file:///proj/doc");
        assert_eq!(
            forms("file://localhost/proj/docs/"),
            vec!["file:///proj/docs", "file:///proj/docs/"]
        );
    }

    #[test]
    fn an_exclude_holds_under_every_spelling_and_wins_over_a_pin_on_another() {
        let mut marks = Marks::new();
        marks.set(
            Target::exact("fs", "file://localhost/proj/secret.env"),
            Some(Mark::Exclude),
        );
        marks.set(
            Target::prefix("fs", "file:///proj/private/"),
            Some(Mark::Exclude),
        );
        marks.set(Target::exact("fs", "file:///proj//a.md"), Some(Mark::Pin));
        marks.set(
            Target::exact("fs", "file:///proj/a.md"),
            Some(Mark::Exclude),
        );
        let canonical = canonical_marks(&marks, "fs");
        let excluded = |uri: &str| excluded(&marks, &canonical, "fs", uri);
        assert!(excluded("file:///proj/secret.env"));
        assert!(excluded("file:////proj//secret.env"));
        assert!(excluded("file:///proj//private/key"));
        assert!(excluded("file://localhost/proj/private/../private/key"));
        assert!(excluded("file:///proj/a.md"));
        assert!(!excluded("file:///proj/README.md"));
        assert!(!excluded("file:///proj/privateer"));
        // Another server's marks are not this one's.
        assert!(!super::excluded(
            &marks,
            &canonical,
            "other",
            "file:///proj/secret.env"
        ));
    }

    /// A spelling a path-normalising server reads as the same file: `/` doubled, `./`
    /// inserted, `x/../` inserted, a character percent-encoded, `localhost` as the host.
    fn respell(path: &[String], edits: &[(usize, u8)], localhost: bool) -> String {
        let mut out = String::from(if localhost {
            "file://localhost"
        } else {
            "file://"
        });
        for (i, segment) in path.iter().enumerate() {
            out.push('/');
            for &(_, edit) in edits.iter().filter(|(at, _)| *at == i) {
                match edit % 3 {
                    0 => out.push('/'),
                    1 => out.push_str("./"),
                    _ => out.push_str("x/../"),
                }
            }
            for (j, c) in segment.chars().enumerate() {
                if edits.iter().any(|&(at, e)| at == i && e as usize % 5 == j) {
                    out.push_str(&format!("%{:02X}", c as u32));
                } else {
                    out.push(c);
                }
            }
        }
        out
    }

    proptest! {
        #[test]
        fn every_respelling_of_an_excluded_file_is_excluded(
            path in prop::collection::vec("[a-z0-9_.-]{1,8}", 1..5)
                .prop_filter("no dot segments", |p| p.iter().all(|s| s != "." && s != "..")),
            edits in prop::collection::vec((0usize..5, any::<u8>()), 0..6),
            localhost: bool,
        ) {
            let plain = format!("file:///{}", path.join("/"));
            let mut marks = Marks::new();
            marks.set(Target::exact("fs", plain.clone()), Some(Mark::Exclude));
            let canonical = canonical_marks(&marks, "fs");
            let alias = respell(&path, &edits, localhost);
            prop_assert_eq!(super::canonical(&alias), plain.clone());
            prop_assert!(excluded(&marks, &canonical, "fs", &alias), "{}", alias);
        }

        #[test]
        fn canonical_is_idempotent(uri in "[a-zA-Z]{1,5}:(//[a-zA-Z.]{0,9})?(/[a-z0-9.]{0,6}){0,5}") {
            let once = canonical(&uri);
            prop_assert_eq!(canonical(&once), once.clone());
        }
    }
}
