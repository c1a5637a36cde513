//! `not-found`: a read of a URI nobody listed is a JSON-RPC error (`-32602` in the 2026-07-28
//! era, `-32002` before), never a success.
//! `read.matches-list`: each sampled listed resource reads, with contents under its URI.
//! `read.mime`: text or blob as the listed `mimeType` says.
//! `read.size`: the listed `size` is the bytes read (a SHOULD-level rule: it warns).

use std::collections::BTreeSet;
use std::hash::{BuildHasher, Hasher};

use base64::Engine;
use serde_json::Value;

use super::{Finding, Judge};
use crate::mcp::{Connection, McpError};

pub const NOT_FOUND: &str = "not-found";
pub const MATCHES_LIST: &str = "read.matches-list";
pub const MIME: &str = "read.mime";
pub const SIZE: &str = "read.size";

/// Distinct scheme/authority bases probed at most.
const MAX_BASES: usize = 8;

/// A random number, fresh per call (probe URIs nobody could have listed).
pub(crate) fn random() -> u64 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// One read of a listed resource.
pub struct ReadObs {
    pub uri: String,
    /// The entry as listed.
    pub listed: Value,
    /// The reply, or the error's code (when it had one) and text.
    pub reply: Result<Value, (Option<i32>, String)>,
}

fn error_of(conn: &Connection, e: &McpError) -> (Option<i32>, String) {
    let code = match e {
        McpError::Server { code, .. } => Some(*code),
        _ => None,
    };
    (code, conn.explain(e))
}

/// Reads at most `n` of `valid` (listed URI, entry), spread evenly over the list.
pub async fn sample_reads(conn: &Connection, valid: &[(&str, &Value)], n: usize) -> Vec<ReadObs> {
    let picked: BTreeSet<usize> = if valid.len() <= n {
        (0..valid.len()).collect()
    } else {
        (0..n).map(|i| i * valid.len() / n).collect()
    };
    let mut out = Vec::with_capacity(picked.len());
    for i in picked {
        let (uri, listed) = valid[i];
        let reply = conn.probe_read(uri).await.map_err(|e| error_of(conn, &e));
        out.push(ReadObs {
            uri: uri.to_string(),
            listed: listed.clone(),
            reply,
        });
    }
    out
}

/// `scheme://authority/` (or `scheme:`) of an absolute URI.
pub(crate) fn base(uri: &str) -> Option<String> {
    let (scheme, rest) = uri.split_once(':')?;
    if scheme.is_empty() {
        return None;
    }
    match rest.strip_prefix("//") {
        Some(rest) => {
            let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
            Some(format!("{scheme}://{}/", &rest[..end]))
        }
        None => Some(format!("{scheme}:")),
    }
}

/// A URI nobody listed, in the shape of those listed under `base`: the first one with a
/// made-up `name` in place of one segment, its last unless every one of them ends in the same
/// segment (`…/widget/README.md`, `…/gadget/README.md`: then the one before it), so that a
/// server which parses its URIs answers "not found", not "invalid". `base` and `name` alone
/// when nothing listed has a path below it.
fn probe_uri(base: &str, listed: &[&str], name: &str) -> String {
    let paths: Vec<Vec<&str>> = listed
        .iter()
        .filter_map(|u| u.strip_prefix(base))
        .map(|rest| rest.split(['?', '#']).next().unwrap_or(""))
        .filter(|rest| !rest.is_empty())
        .map(|rest| rest.split('/').collect())
        .collect();
    let Some(first) = paths.first() else {
        return format!("{base}{name}");
    };
    let last = first.len() - 1;
    let shared_last =
        first.len() >= 2 && paths.len() >= 2 && paths.iter().all(|p| p.last() == first.last());
    let at = if shared_last { last - 1 } else { last };
    let segments: Vec<&str> = first
        .iter()
        .enumerate()
        .map(|(i, s)| if i == at { name } else { s })
        .collect();
    format!("{base}{}", segments.join("/"))
}

pub async fn not_found(conn: &Connection, valid: &[(&str, &Value)], modern: bool) -> Finding {
    let bases: BTreeSet<String> = valid.iter().filter_map(|(u, _)| base(u)).collect();
    if bases.is_empty() {
        return Finding::skipped(NOT_FOUND, "no listed resource with an absolute URI");
    }
    let (expected, era) = if modern {
        (-32602, "2026-07-28")
    } else {
        (-32002, "legacy")
    };
    let listed: BTreeSet<&str> = valid.iter().map(|(u, _)| *u).collect();
    let mut judge = Judge::new(NOT_FOUND);
    for base in bases.iter().take(MAX_BASES) {
        let shaped: Vec<&str> = valid
            .iter()
            .map(|(u, _)| *u)
            .filter(|u| self::base(u).as_deref() == Some(base.as_str()))
            .collect();
        let uri = probe_uri(base, &shaped, &format!("mcpick-check-{:016x}", random()));
        if listed.contains(uri.as_str()) {
            continue;
        }
        match conn.probe_read(&uri).await {
            Err(McpError::Server { code, message, .. }) if code == expected => {
                judge.note(format!("resources/read {uri}: error {code}: {message}"));
            }
            Err(McpError::Server { code, message, .. }) => judge.fail(format!(
                "resources/read {uri}: error {code} ({expected} expected in the {era} era): {message}"
            )),
            Err(e) => judge.warn(format!(
                "resources/read {uri}: not a JSON-RPC error: {}",
                conn.explain(&e)
            )),
            Ok(reply) => match reply.get("contents").and_then(Value::as_array) {
                Some(items) if items.is_empty() => judge.fail(format!(
                    "resources/read {uri} (never listed) succeeded with empty `contents`; \
                     a missing resource is an error, not an empty result"
                )),
                Some(items) => judge.fail(format!(
                    "resources/read {uri} (never listed) succeeded with {} contents item(s), first {}",
                    items.len(),
                    super::quote(&items[0])
                )),
                None => judge.fail(format!(
                    "resources/read {uri} (never listed) succeeded: {}",
                    super::quote(&reply)
                )),
            },
        }
    }
    judge.finish()
}

/// Whether a MIME type means text (`Some(true)`), binary (`Some(false)`) or either.
fn wants_text(mime: &str) -> Option<bool> {
    let mime = mime
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if mime.starts_with("text/")
        || mime.ends_with("+json")
        || mime.ends_with("+xml")
        || matches!(
            mime.as_str(),
            "application/json" | "application/xml" | "application/javascript" | "application/yaml"
        )
    {
        Some(true)
    } else if mime.starts_with("image/")
        || mime.starts_with("audio/")
        || mime.starts_with("video/")
        || matches!(
            mime.as_str(),
            "application/octet-stream" | "application/pdf" | "application/zip"
        )
    {
        Some(false)
    } else {
        None
    }
}

/// The bytes of one contents item: its UTF-8 text or its decoded blob.
fn item_bytes(item: &Value) -> Option<usize> {
    if let Some(text) = item.get("text").and_then(Value::as_str) {
        return Some(text.len());
    }
    let blob = item.get("blob").and_then(Value::as_str)?;
    base64::engine::general_purpose::STANDARD
        .decode(blob)
        .ok()
        .map(|b| b.len())
}

/// True when `item_uri` is the requested URI or a part of it (a multi-part read): the
/// definition `serve`, `preview` and `export` keep contents parts by.
fn under(item_uri: &str, uri: &str) -> bool {
    crate::mcp::read::is_part_of(item_uri, uri)
}

/// The read rule on each contents part of the read of `uri`: under the requested URI, and
/// carrying `text` or `blob`.
fn judge_parts(matches: &mut Judge, uri: &str, items: &[Value]) {
    for (i, item) in items.iter().enumerate() {
        match item.get("uri").and_then(Value::as_str) {
            Some(got) if under(got, uri) => {}
            Some(got) => matches.fail(format!(
                "resources/read {uri}: contents[{i}].uri is `{got}`, not the requested URI"
            )),
            None => matches.fail(format!("resources/read {uri}: contents[{i}] has no `uri`")),
        }
        if item.get("text").and_then(Value::as_str).is_none()
            && item.get("blob").and_then(Value::as_str).is_none()
        {
            matches.fail(format!(
                "resources/read {uri}: contents[{i}] has neither `text` nor `blob`"
            ));
        }
    }
}

/// The three read rules over the sampled reads.
pub fn judge(reads: &[ReadObs]) -> [Finding; 3] {
    if reads.is_empty() {
        let why = "no listed resource with a usable URI to read";
        return [
            Finding::skipped(MATCHES_LIST, why),
            Finding::skipped(MIME, why),
            Finding::skipped(SIZE, why),
        ];
    }
    let mut matches = Judge::new(MATCHES_LIST);
    let mut mime = Judge::new(MIME);
    let mut size = Judge::new(SIZE);
    let (mut mime_checked, mut size_checked) = (0, 0);
    for read in reads {
        let uri = &read.uri;
        let reply = match &read.reply {
            Ok(reply) => reply,
            Err((_, error)) => {
                matches.fail(format!("resources/read {uri} (listed) failed: {error}"));
                continue;
            }
        };
        let Some(items) = reply.get("contents").and_then(Value::as_array) else {
            matches.fail(format!(
                "resources/read {uri}: no `contents` array in {}",
                super::quote(reply)
            ));
            continue;
        };
        judge_parts(&mut matches, uri, items);
        let own: Vec<&Value> = items
            .iter()
            .filter(|i| i["uri"].as_str() == Some(uri.as_str()))
            .collect();
        if let Some(listed_mime) = read.listed.get("mimeType").and_then(Value::as_str)
            && let Some(text) = wants_text(listed_mime)
            && !own.is_empty()
        {
            mime_checked += 1;
            for item in &own {
                let (has_text, has_blob) = (item.get("text").is_some(), item.get("blob").is_some());
                if text && has_blob && !has_text {
                    mime.fail(format!(
                        "resources/read {uri}: listed as {listed_mime} (text) but read as a blob"
                    ));
                } else if !text && has_text && !has_blob {
                    mime.fail(format!(
                        "resources/read {uri}: listed as {listed_mime} (binary) but read as text"
                    ));
                }
            }
        }
        if let Some(listed_size) = read.listed.get("size").and_then(Value::as_u64)
            && !items.is_empty()
        {
            size_checked += 1;
            let bytes: usize = items.iter().filter_map(item_bytes).sum();
            if bytes as u64 != listed_size {
                size.fail(format!(
                    "resources/read {uri}: listed size {}, read {} bytes",
                    crate::units::thousands(listed_size),
                    crate::units::thousands(bytes as u64)
                ));
            }
        }
    }
    matches.note(format!(
        "{} listed resources read; contents under the requested URI",
        reads.len()
    ));
    mime.note(format!(
        "{mime_checked} reads with a text or binary mimeType matched it"
    ));
    size.note(format!(
        "{size_checked} reads with a listed size matched it"
    ));
    let or_skip = |judge: Judge, checked: usize, why: &str| {
        if checked == 0 {
            Finding::skipped(judge.rule, why)
        } else {
            judge.finish()
        }
    };
    [
        matches.finish(),
        or_skip(
            mime,
            mime_checked,
            "no read resource's own contents with a text or binary mimeType listed",
        ),
        or_skip(size, size_checked, "no read resource with a listed size"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probe keeps the listed URIs' shape: one segment made up, a last segment they all
    /// share kept.
    #[test]
    fn the_not_found_probe_has_the_listed_shape() {
        let base = "github://repos/";
        let shared = [
            "github://repos/acme/widget/README.md",
            "github://repos/acme/gadget/README.md",
        ];
        assert_eq!(
            probe_uri(base, &shared, "X"),
            "github://repos/acme/X/README.md"
        );
        let plain = ["demo://notes/1", "demo://notes/2"];
        assert_eq!(probe_uri("demo://notes/", &plain, "X"), "demo://notes/X");
        let deep = ["file:///project/docs/a.md", "file:///project/b.md"];
        assert_eq!(probe_uri("file:///", &deep, "X"), "file:///project/docs/X");
        assert_eq!(probe_uri("urn:", &[], "X"), "urn:X");
    }

    #[test]
    fn bases_and_parts() {
        assert_eq!(base("file:///project/a.md").as_deref(), Some("file:///"));
        assert_eq!(base("demo://notes/1").as_deref(), Some("demo://notes/"));
        assert_eq!(base("urn:isbn:1").as_deref(), Some("urn:"));
        assert_eq!(base("relative/path"), None);
        assert!(under(
            "demo://multi/bundle/part-1.txt",
            "demo://multi/bundle"
        ));
        assert!(!under("demo://multi/bundler", "demo://multi/bundle"));
        assert_eq!(wants_text("text/markdown; charset=utf-8"), Some(true));
        assert_eq!(wants_text("image/png"), Some(false));
        assert_eq!(wants_text("application/x-thing"), None);
    }
}
