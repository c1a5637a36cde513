//! `traversal`: for `file://` resources and templates, reads that climb out of the listed
//! roots (`..`, `%2e%2e`, an encoded slash, an absolute path) must fail; contents that look
//! like a system file are quoted as evidence.

use std::collections::BTreeSet;

use base64::Engine;
use serde_json::Value;

use super::observe::Listing;
use super::{Finding, Judge};
use crate::mcp::Connection;

pub const TRAVERSAL: &str = "traversal";

/// Roots probed at most.
const MAX_ROOTS: usize = 3;

/// The folders `file://` resources and templates live in (`file:///project/`).
fn roots(resources: &Listing, templates: &Listing) -> BTreeSet<String> {
    let folder = |s: &str| s.rfind('/').map(|i| s[..=i].to_string());
    let mut roots: BTreeSet<String> = resources
        .uris()
        .into_iter()
        .filter(|u| u.starts_with("file://"))
        .filter_map(folder)
        .collect();
    for t in templates
        .uris()
        .into_iter()
        .filter(|t| t.starts_with("file://"))
    {
        let literal = &t[..t.find('{').unwrap_or(t.len())];
        roots.extend(folder(literal));
    }
    // Keep the shortest roots: probes from a parent also leave its children.
    let all: Vec<String> = roots.iter().cloned().collect();
    roots.retain(|r| !all.iter().any(|o| o != r && r.starts_with(o.as_str())));
    roots
}

/// The attempts for one root.
fn attempts(root: &str) -> Vec<String> {
    vec![
        format!("{root}../../../../../../../../etc/passwd"),
        format!("{root}%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd"),
        format!("{root}..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd"),
        format!("{root}%2fetc%2fpasswd"),
        "file:///etc/passwd".to_string(),
    ]
}

/// The first line of `text` when it reads like a Unix password file.
fn system_file(text: &str) -> Option<&str> {
    text.lines().find(|l| {
        let fields: Vec<&str> = l.split(':').collect();
        fields.len() >= 7 && fields[2].parse::<u32>().is_ok() && fields[3].parse::<u32>().is_ok()
    })
}

pub async fn traversal(conn: &Connection, resources: &Listing, templates: &Listing) -> Finding {
    let roots = roots(resources, templates);
    if roots.is_empty() {
        return Finding::skipped(TRAVERSAL, "no file:// resources or templates");
    }
    let listed: BTreeSet<&str> = resources.uris().into_iter().collect();
    let mut judge = Judge::new(TRAVERSAL);
    let mut tried = BTreeSet::new();
    for root in roots.iter().take(MAX_ROOTS) {
        for uri in attempts(root) {
            if listed.contains(uri.as_str()) || !tried.insert(uri.clone()) {
                continue;
            }
            let Ok(reply) = conn.probe_read(&uri).await else {
                continue; // refused: what the rule wants
            };
            let items = reply
                .get("contents")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            if items.is_empty() {
                judge.warn(format!(
                    "resources/read {uri} (outside {root}) succeeded with empty contents, not an error"
                ));
                continue;
            }
            let texts = items.iter().filter_map(|i| {
                i["text"].as_str().map(str::to_owned).or_else(|| {
                    let blob = i["blob"].as_str()?;
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(blob)
                        .ok()?;
                    Some(String::from_utf8_lossy(&bytes).into_owned())
                })
            });
            let leaked: Vec<String> = texts
                .filter_map(|t| system_file(&t).map(str::to_owned))
                .collect();
            match leaked.first() {
                Some(line) => judge.fail(format!(
                    "resources/read {uri} returned what looks like /etc/passwd: `{line}`"
                )),
                None => judge.fail(format!(
                    "resources/read {uri} (outside {root}) succeeded with {} contents item(s)",
                    items.len()
                )),
            }
        }
    }
    judge.note(format!(
        "{} reads outside {} refused",
        tried.len(),
        roots.iter().cloned().collect::<Vec<_>>().join(", ")
    ));
    judge.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn roots_and_system_files() {
        let resources = Listing {
            method: "resources/list",
            items: vec![
                json!({"uri": "file:///project/README.md"}),
                json!({"uri": "file:///project/docs/a.md"}),
                json!({"uri": "demo://x"}),
            ],
            ..Listing::default()
        };
        let templates = Listing {
            method: "resources/templates/list",
            items: vec![json!({"uriTemplate": "file:///srv/{path}"})],
            ..Listing::default()
        };
        let roots: Vec<String> = roots(&resources, &templates).into_iter().collect();
        assert_eq!(roots, ["file:///project/", "file:///srv/"]);
        assert_eq!(
            system_file("x\nroot:x:0:0:root:/root:/bin/bash\n"),
            Some("root:x:0:0:root:/root:/bin/bash")
        );
        assert_eq!(system_file("a: b: c"), None);
    }
}
