//! Every rule of `mcpick check`, with the level the specification gives it and its words.
//!
//! A rule's checks only say what was broken ([`super::Judge::fail`]); how much that weighs is
//! the specification's, not the check's: a MUST broken is `fail`, a SHOULD broken is `warn`
//! ([`Level`]). Where a revision words a rule differently (2026-07-28 made some SHOULDs
//! MUSTs, and some rules exist only there), the level follows the era the server speaks.
//! Where the specification defines a shape (the schema, a declared capability) without a
//! keyword, a message that breaks the definition is not what it claims to be: MUST.

use serde::Serialize;

use super::{
    annotations, caching, capability, pagination, reads, skills, stable, templates, traversal,
};

/// How binding a rule is, in the specification's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Broken: `fail`.
    Must,
    /// Broken: `warn`.
    Should,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Must => "must",
            Level::Should => "should",
        }
    }
}

/// One rule: its id, its level in each era and the words it rests on.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    pub id: &'static str,
    /// With a 2026-07-28 server.
    pub modern: Level,
    /// With a legacy (2025-11-25 and older) server.
    pub legacy: Level,
    /// The specification's words (and where they are).
    pub words: &'static str,
}

impl Rule {
    pub fn level(&self, modern: bool) -> Level {
        if modern { self.modern } else { self.legacy }
    }
}

const fn both(id: &'static str, level: Level, words: &'static str) -> Rule {
    Rule {
        id,
        modern: level,
        legacy: level,
        words,
    }
}

use Level::{Must, Should};

/// Every rule, in the order the report shows them.
pub const RULES: [Rule; 17] = [
    both(
        capability::RESOURCES,
        Must,
        "\"Servers that support resources MUST declare the resources capability\" (server/resources)",
    ),
    both(
        capability::SUBSCRIBE,
        Must,
        "a declared capability is what the server supports: `subscribe` is \"whether the client can subscribe to be notified of changes to individual resources\" (server/resources)",
    ),
    both(
        pagination::TERMINATES,
        Must,
        "each page is a list result, and `nextCursor` is sent \"if more results exist\" (server/utilities/pagination, schema)",
    ),
    both(
        pagination::INVALID_CURSOR,
        Should,
        "\"Invalid cursors SHOULD result in an error with code -32602 (Invalid params)\" (server/utilities/pagination)",
    ),
    Rule {
        id: stable::CONNECTIONS,
        modern: Must,
        legacy: Should,
        words: "2026-07-28: the resources/list set \"MUST NOT vary per connection\" (it may vary by authorization); earlier revisions have no such rule, so a legacy server is warned",
    },
    Rule {
        id: stable::AFTER_READS,
        modern: Must,
        legacy: Should,
        words: "2026-07-28: the resources/list set \"MUST NOT vary ... as a side effect of other requests\"; earlier revisions have no such rule, so a legacy server is warned",
    },
    Rule {
        id: reads::NOT_FOUND,
        modern: Must,
        legacy: Should,
        words: "2026-07-28 (SEP-2164): a missing resource MUST be error -32602, never empty `contents`; earlier: \"Servers SHOULD return standard JSON-RPC errors ... Resource not found: -32002\" (server/resources)",
    },
    both(
        reads::MATCHES_LIST,
        Must,
        "every contents item is text or blob contents with the `uri` it is the contents of (schema: ReadResourceResult)",
    ),
    both(
        reads::MIME,
        Must,
        "\"Servers MUST ... properly encode binary data\" (server/resources, security)",
    ),
    both(
        reads::SIZE,
        Should,
        "`size` is \"the size of the raw resource content, in bytes ... if known\", for hosts to estimate context use; no keyword, so a mismatch warns (schema)",
    ),
    both(
        annotations::ANNOTATIONS,
        Must,
        "`priority` is a number from 0 to 1, `audience` an array of \"user\" and \"assistant\", `lastModified` an ISO 8601 string (schema: Annotations)",
    ),
    both(
        annotations::NAMES_URIS,
        Must,
        "every resource has a `name` and a `uri`; \"each resource is uniquely identified by a URI\" (server/resources, schema)",
    ),
    both(
        templates::SYNTAX,
        Must,
        "`uriTemplate` is \"a URI template (according to RFC 6570)\", and a template has a `name` (schema: ResourceTemplate)",
    ),
    both(
        templates::COMPLETION,
        Must,
        "a declared `completions` capability is what the server supports: completion/complete answers for resource template arguments (server/utilities/completion)",
    ),
    both(
        traversal::TRAVERSAL,
        Must,
        "\"Servers MUST validate all resource URIs\" (server/resources, security); 2026-07-28: servers MUST sanitise file:// paths against traversal",
    ),
    both(
        caching::CACHING,
        Must,
        "2026-07-28: list and read results carry `ttlMs` and `cacheScope` (required, server/utilities/caching); skipped for legacy servers",
    ),
    both(
        skills::MANIFEST_RULE,
        Must,
        "a skill's `_manifest` lists \"every file's path, size and SHA-256\" of the skill, at most 512 files and 16 MiB (the skills convention FastMCP and SkillsDotNet serve, and the MCP Skills extension's limits); skipped when no skill is listed",
    ),
];

/// The rule with this id.
pub fn rule(id: &str) -> &'static Rule {
    RULES
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("unknown check rule {id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_once_with_words() {
        let mut ids: Vec<&str> = RULES.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), RULES.len());
        assert!(RULES.iter().all(|r| !r.words.is_empty()));
        assert_eq!(rule(pagination::INVALID_CURSOR).level(true), Should);
        assert_eq!(rule(reads::NOT_FOUND).level(false), Should);
        assert_eq!(rule(reads::NOT_FOUND).level(true), Must);
    }
}
