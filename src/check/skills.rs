//! `skills.manifest`: every skill the server lists (`skill://NAME/SKILL.md` or
//! `skill://NAME/_manifest`) serves each file its manifest names (from the Skills extension's
//! `skills/get`, else the `_manifest` resource), with that size and SHA-256, within the skills
//! format's limits, so a host given the skill gets what the server vouched for
//! ([`crate::skills`]).

use super::observe::Listing;
use super::{Finding, Judge};
use crate::mcp::Connection;
use crate::skills::{self, MAIN, MANIFEST};

pub const MANIFEST_RULE: &str = "skills.manifest";

/// The most skills read whole (each is every file of it).
const MAX_SKILLS: usize = 20;

pub async fn manifest(conn: &Connection, first: &Listing) -> Finding {
    let mut names: Vec<&str> = Vec::new();
    for uri in first.uris() {
        if let Some((name, path)) = skills::split(uri)
            && (path == MANIFEST || path == MAIN)
            && !names.contains(&name)
        {
            names.push(name);
        }
    }
    if names.is_empty() {
        return Finding::skipped(
            MANIFEST_RULE,
            "the server lists no skill://NAME/SKILL.md or skill://NAME/_manifest",
        );
    }
    let mut judge = Judge::new(MANIFEST_RULE);
    if names.len() > MAX_SKILLS {
        judge.note(format!(
            "{} skills listed; the first {MAX_SKILLS} read",
            names.len()
        ));
    }
    for name in names.into_iter().take(MAX_SKILLS) {
        let fetched = skills::fetch::fetch(conn, "", name).await;
        match fetched.outcome {
            Ok(skill) => judge.note(format!(
                "skill `{name}`: {} files, {} bytes, each as its manifest says",
                crate::units::thousands(skill.files.len() as u64),
                crate::units::thousands(skill.total() as u64)
            )),
            Err(why) => judge.fail(format!("skill `{name}`: {why}")),
        }
    }
    judge.finish()
}
