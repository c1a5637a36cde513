//! `annotations`: `priority` a number in [0, 1], `audience` only `user`/`assistant`,
//! `lastModified` ISO 8601.
//! `names-uris`: every resource has a name, and an absolute URI no other entry has.

use std::collections::HashMap;

use serde_json::Value;

use super::observe::Listing;
use super::{Finding, Judge, quote};

pub const ANNOTATIONS: &str = "annotations";
pub const NAMES_URIS: &str = "names-uris";

/// True for an absolute URI: a scheme (a letter, then letters, digits, `+`, `-`, `.`) and `:`.
pub(crate) fn is_absolute(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// The entries the read rules may use: a string URI that is absolute and listed once, and a
/// name. Entries `names-uris` flags are left out, so one broken entry fails one rule.
pub fn valid_uris(listing: &Listing) -> Vec<(&str, &Value)> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for uri in listing.uris() {
        *count.entry(uri).or_default() += 1;
    }
    listing
        .items
        .iter()
        .filter_map(|item| {
            let uri = item.get("uri")?.as_str()?;
            let named = item
                .get("name")
                .and_then(Value::as_str)
                .is_some_and(|n| !n.is_empty());
            (named && is_absolute(uri) && count[uri] == 1).then_some((uri, item))
        })
        .collect()
}

fn label(i: usize, item: &Value) -> String {
    match item.get("uri").and_then(Value::as_str) {
        Some(uri) => format!("entry {i} ({uri})"),
        None => format!("entry {i}"),
    }
}

pub fn annotations(listing: &Listing) -> Finding {
    let items = super::items(listing);
    let mut judge = Judge::new(ANNOTATIONS);
    let mut annotated = 0;
    for (i, item) in items.iter().enumerate() {
        let Some(annotations) = item.get("annotations") else {
            continue;
        };
        let at = || label(i, item);
        let Value::Object(a) = annotations else {
            if !annotations.is_null() {
                judge.fail(format!("{}: `annotations` is {}", at(), quote(annotations)));
            }
            continue;
        };
        annotated += 1;
        if let Some(p) = a.get("priority")
            && !p.is_null()
            && !p.as_f64().is_some_and(|p| (0.0..=1.0).contains(&p))
        {
            judge.fail(format!(
                "{}: priority {} is not a number in [0, 1]",
                at(),
                quote(p)
            ));
        }
        match a.get("audience") {
            None | Some(Value::Null) => {}
            Some(Value::Array(roles)) => {
                for role in roles {
                    if !matches!(role.as_str(), Some("user" | "assistant")) {
                        judge.fail(format!(
                            "{}: audience has {}; only \"user\" and \"assistant\" are roles",
                            at(),
                            quote(role)
                        ));
                    }
                }
            }
            Some(other) => judge.fail(format!(
                "{}: audience {} is not an array",
                at(),
                quote(other)
            )),
        }
        if let Some(m) = a.get("lastModified")
            && !m.is_null()
            && m.as_str()
                .is_none_or(|s| crate::catalog::time::parse_timestamp(s).is_none())
        {
            judge.fail(format!(
                "{}: lastModified {} is not an ISO 8601 timestamp",
                at(),
                quote(m)
            ));
        }
    }
    judge.note(format!(
        "{annotated} of {} entries annotated, every annotation in range",
        items.len()
    ));
    judge.finish()
}

pub fn names_uris(listing: &Listing) -> Finding {
    let items = super::items(listing);
    let mut judge = Judge::new(NAMES_URIS);
    let mut first_at: HashMap<&str, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        match item.get("name") {
            Some(Value::String(n)) if !n.is_empty() => {}
            other => judge.fail(format!(
                "{}: name is {}",
                label(i, item),
                other.map_or("missing".into(), quote)
            )),
        }
        match item.get("uri") {
            Some(Value::String(uri)) => {
                if !is_absolute(uri) {
                    judge.fail(format!(
                        "entry {i}: uri `{uri}` is not absolute (no scheme)"
                    ));
                }
                if let Some(first) = first_at.insert(uri, i) {
                    first_at.insert(uri, first);
                    judge.fail(format!(
                        "entry {i}: uri `{uri}` is listed again (first at entry {first})"
                    ));
                }
            }
            other => judge.fail(format!(
                "entry {i}: uri is {}",
                other.map_or("missing".into(), quote)
            )),
        }
    }
    judge.note(format!(
        "{} entries, each named, with a unique absolute URI",
        items.len()
    ));
    judge.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing(items: Vec<Value>) -> Listing {
        Listing {
            method: "resources/list",
            pages: 1,
            items,
            ..Listing::default()
        }
    }

    #[test]
    fn out_of_range_annotations_fail_with_their_entry() {
        let l = listing(vec![
            json!({"uri": "a://1", "name": "1", "annotations": {"priority": 0.5, "audience": ["user"], "lastModified": "2025-01-12T15:00:58Z"}}),
            json!({"uri": "a://2", "name": "2", "annotations": {"priority": 1.5, "audience": ["robot"], "lastModified": "yesterday"}}),
        ]);
        let f = annotations(&l);
        assert_eq!(f.verdict, super::super::Verdict::Fail);
        assert_eq!(f.evidence.len(), 3, "{:?}", f.evidence);
        assert!(
            f.evidence[0].contains("entry 1 (a://2): priority 1.5"),
            "{:?}",
            f.evidence
        );
    }

    #[test]
    fn names_and_uris() {
        let l = listing(vec![
            json!({"uri": "a://1", "name": "1"}),
            json!({"uri": "a://1", "name": "again"}),
            json!({"uri": "rel/x", "name": "rel"}),
            json!({"uri": "a://3", "name": ""}),
        ]);
        let f = names_uris(&l);
        assert_eq!(f.evidence.len(), 3, "{:?}", f.evidence);
        assert_eq!(
            valid_uris(&l).len(),
            0,
            "duplicates, relative and nameless are all left out"
        );
        assert!(is_absolute("file:///x") && is_absolute("urn:x") && !is_absolute("1a:x"));
    }
}
