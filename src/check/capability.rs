//! `capability`: resources are served only with the `resources` capability.
//! `capability.subscribe`: a declared `subscribe` is honoured (`resources/subscribe` accepted).

use serde_json::Value;

use super::observe::Listing;
use super::{Finding, Judge, Verdict};
use crate::mcp::Connection;

pub const RESOURCES: &str = "capability";
pub const SUBSCRIBE: &str = "capability.subscribe";

/// The capability is declared: resources may be served.
pub fn declared() -> Finding {
    let mut judge = Judge::new(RESOURCES);
    judge.note("the `resources` capability is declared");
    judge.finish()
}

/// No capability declared: `resources/list` must not hand out resources anyway.
pub async fn undeclared(conn: &Connection) -> Finding {
    let mut judge = Judge::new(RESOURCES);
    match conn.probe_list(false, None).await {
        Ok(page) => {
            let n = page
                .get("resources")
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            if n > 0 {
                judge.fail(format!(
                    "resources/list answered with {n} resources, but the server declares no \
                     `resources` capability"
                ));
            } else {
                judge.note("no `resources` capability and resources/list serves none");
            }
        }
        Err(e) => judge.note(format!(
            "no `resources` capability; resources/list is refused: {}",
            conn.explain(&e)
        )),
    }
    judge.finish()
}

/// `subscribe: true` means `resources/subscribe` works (legacy era; the 2026-07-28 era
/// subscribes through `subscriptions/listen`, which this rule does not probe).
pub async fn subscribe(conn: &Connection, caps: &Value, first: &Listing, modern: bool) -> Finding {
    let declared = caps["resources"]["subscribe"].as_bool() == Some(true);
    if !declared {
        return Finding::skipped(SUBSCRIBE, "`subscribe` is not declared");
    }
    if modern {
        return Finding::skipped(
            SUBSCRIBE,
            "2026-07-28 era: subscriptions go through subscriptions/listen, not probed",
        );
    }
    let Some(uri) = first.uris().first().map(|u| u.to_string()) else {
        return Finding::skipped(SUBSCRIBE, "no listed resource to subscribe to");
    };
    let mut judge = Judge::new(SUBSCRIBE);
    match conn.probe_subscribe(&uri).await {
        Ok(_) => judge.note(format!("resources/subscribe {uri}: accepted")),
        Err(e) => judge.fail(format!(
            "`subscribe` is declared, but resources/subscribe {uri} failed: {}",
            conn.explain(&e)
        )),
    }
    let finding = judge.finish();
    debug_assert!(finding.verdict != Verdict::Warn);
    finding
}
