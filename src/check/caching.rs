//! `caching`: in the 2026-07-28 era, list and read results carry `ttlMs` and `cacheScope`
//! (SEP-2549; required there). Skipped in the legacy era, which has no cache hints.

use super::observe::Listing;
use super::reads::ReadObs;
use super::{Finding, Judge};

pub const CACHING: &str = "caching";

pub fn caching(modern: bool, first: &Listing, reads: &[ReadObs]) -> Finding {
    if !modern {
        return Finding::skipped(
            CACHING,
            "legacy era: ttlMs and cacheScope belong to 2026-07-28",
        );
    }
    let mut judge = Judge::new(CACHING);
    let mut results = Vec::new();
    if let Some(page) = &first.first_page {
        results.push(("resources/list page 1".to_string(), page));
    }
    if let Some((uri, reply)) = reads
        .iter()
        .find_map(|r| Some((&r.uri, r.reply.as_ref().ok()?)))
    {
        results.push((format!("resources/read {uri}"), reply));
    }
    if results.is_empty() {
        return Finding::skipped(CACHING, "no list or read result to look at");
    }
    for (what, result) in &results {
        for field in ["ttlMs", "cacheScope"] {
            if result.get(field).is_none_or(serde_json::Value::is_null) {
                judge.fail(format!("{what}: no `{field}`"));
            }
        }
    }
    judge.note(format!(
        "{} carry ttlMs and cacheScope",
        results
            .iter()
            .map(|(w, _)| w.as_str())
            .collect::<Vec<_>>()
            .join(" and ")
    ));
    judge.finish()
}
