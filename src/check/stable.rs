//! `stable.connections`: two fresh connections list the same set.
//! `stable.after-reads`: listing again after reads gives the same set (no side effects).

use std::collections::BTreeSet;

use super::observe::Listing;
use super::{Finding, Judge};

pub const CONNECTIONS: &str = "stable.connections";
pub const AFTER_READS: &str = "stable.after-reads";

pub fn connections(first: &Listing, second: &Result<Listing, String>) -> Finding {
    match second {
        Ok(second) => compare(
            CONNECTIONS,
            (first, "on connection 1"),
            (second, "on connection 2"),
            "on both connections",
        ),
        Err(why) => Finding::skipped(CONNECTIONS, format!("no second connection: {why}")),
    }
}

pub fn after_reads(first: &Listing, again: &Listing) -> Finding {
    compare(
        AFTER_READS,
        (first, "before the reads"),
        (again, "after the reads"),
        "before and after the reads",
    )
}

/// Each listing with when it was taken, as it reads after "listed …"; `both` reads after
/// "the same N resources …".
fn compare(
    rule: &'static str,
    (a, a_name): (&Listing, &str),
    (b, b_name): (&Listing, &str),
    both: &str,
) -> Finding {
    let (sa, sb): (BTreeSet<&str>, BTreeSet<&str>) = (
        a.uris().into_iter().collect(),
        b.uris().into_iter().collect(),
    );
    let mut judge = Judge::new(rule);
    for uri in sa.difference(&sb) {
        judge.fail(format!("listed {a_name} only: {uri}"));
    }
    for uri in sb.difference(&sa) {
        judge.fail(format!("listed {b_name} only: {uri}"));
    }
    judge.note(format!(
        "the same {} {both}",
        crate::units::count(sa.len() as u64, "resource", "resources")
    ));
    judge.finish()
}
