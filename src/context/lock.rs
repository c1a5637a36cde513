//! The lock: what the agent got when a set was reviewed (`mcpick.context.lock.json`), and
//! the drift between two locks. Pure: [`Lock::from_preview`] records a resolved preview,
//! [`drift`] compares the reviewed lock with a fresh one; the commands do the I/O.
//!
//! The file is diff-friendly like the set: pretty JSON, fields in a fixed order, resources
//! in the agent's order (included) and in the preview's order (left out).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::measured::Texts;
use super::resolve::{Candidate, Preview};

/// The lock format's version; a newer one is refused rather than misread.
pub const LOCK_VERSION: u32 = 1;

/// The lock file of `set`: `NAME.lock.json` beside `NAME.json` (so the default set
/// `mcpick.context.json` locks into `mcpick.context.lock.json`).
pub fn lock_path(set: &Path) -> PathBuf {
    let name = set
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| super::DEFAULT_FILE.to_string());
    let stem = name.strip_suffix(".json").unwrap_or(&name);
    set.with_file_name(format!("{stem}.lock.json"))
}

/// What the agent is handed, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Lock {
    pub version: u32,
    /// The budget in force (`null`: none).
    pub budget: Option<u64>,
    pub tokenizer: String,
    pub total_tokens: u64,
    /// In the agent's order.
    pub included: Vec<Locked>,
    /// Everything left out, with why, in the preview's order (over budget first).
    pub left_out: Vec<LeftOutEntry>,
}

/// One resource the agent receives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Locked {
    pub server: String,
    pub uri: String,
    pub tokens: u64,
    /// SHA-256 (hex) of the text the agent is handed.
    pub sha256: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pinned: bool,
}

/// One resource left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftOutEntry {
    pub server: String,
    pub uri: String,
    pub reason: String,
}

/// The reason [`LeftOutEntry::reason`] gives below the cut line.
pub const OVER_BUDGET: &str = "over budget";

/// The hex SHA-256 of `text`.
pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl Lock {
    /// Records an exact preview (see [`super::Sources::resolve_reading`]): every included
    /// resource with its tokens and the hash of its text.
    pub fn from_preview(preview: &Preview, cands: &[Candidate<'_>], texts: &Texts) -> Lock {
        Lock {
            version: LOCK_VERSION,
            budget: preview.budget.tokens(),
            tokenizer: preview.tokenizer.name().to_string(),
            total_tokens: preview.total_tokens,
            included: preview
                .included
                .iter()
                .map(|i| {
                    let c = &cands[i.index];
                    Locked {
                        server: c.server.to_string(),
                        uri: c.uri().to_string(),
                        tokens: i.tokens,
                        sha256: sha256_hex(texts.get(&i.index).map_or("", String::as_str)),
                        pinned: i.pinned,
                    }
                })
                .collect(),
            left_out: preview
                .left_out
                .iter()
                .map(|l| LeftOutEntry {
                    server: cands[l.index as usize].server.to_string(),
                    uri: cands[l.index as usize].uri().to_string(),
                    reason: l.reason.name().to_string(),
                })
                .collect(),
        }
    }

    /// Parses a lock file's text; a newer format is an error, not a guess.
    pub fn parse(text: &str) -> Result<Lock, String> {
        let lock: Lock = serde_json::from_str(text).map_err(|e| format!("not a lock file: {e}"))?;
        if lock.version > LOCK_VERSION {
            return Err(format!(
                "written by a newer mcpick (lock version {}, this one reads {LOCK_VERSION})",
                lock.version
            ));
        }
        Ok(lock)
    }
}

/// One change in what the agent is handed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub enum Change {
    /// Handed over now, not before (`was`: why it was left out, if it was listed).
    Added {
        server: String,
        uri: String,
        tokens: u64,
        was: Option<String>,
    },
    /// Handed over before, not now (`now`: why it is left out, if it is still listed).
    Removed {
        server: String,
        uri: String,
        tokens: u64,
        now: Option<String>,
    },
    /// Crossed the cut line: from below it into the context (`into: true`) or out of it.
    CrossedCut {
        server: String,
        uri: String,
        into: bool,
        tokens: u64,
    },
    /// Another place in the agent's order (1-based, among the resources in both).
    Moved {
        server: String,
        uri: String,
        from: usize,
        to: usize,
    },
    /// Different contents (the text's hash changed), with the token counts.
    ContentsChanged {
        server: String,
        uri: String,
        tokens_before: u64,
        tokens_now: u64,
    },
}

type Key<'a> = (&'a str, &'a str);

fn key(l: &Locked) -> Key<'_> {
    (l.server.as_str(), l.uri.as_str())
}

/// What changed from `before` (the reviewed lock) to `now`: additions and crossings in the
/// new order, then removals in the old order, then moves and contents changes in the new
/// order. Empty when the agent would be handed exactly the same.
pub fn drift(before: &Lock, now: &Lock) -> Vec<Change> {
    let old: HashMap<Key, &Locked> = before.included.iter().map(|l| (key(l), l)).collect();
    let new: HashMap<Key, &Locked> = now.included.iter().map(|l| (key(l), l)).collect();
    let reason = |lock: &Lock, k: Key| {
        lock.left_out
            .iter()
            .find(|l| (l.server.as_str(), l.uri.as_str()) == k)
            .map(|l| l.reason.clone())
    };
    let mut changes = Vec::new();
    for l in now.included.iter().filter(|l| !old.contains_key(&key(l))) {
        let was = reason(before, key(l));
        changes.push(if was.as_deref() == Some(OVER_BUDGET) {
            Change::CrossedCut {
                server: l.server.clone(),
                uri: l.uri.clone(),
                into: true,
                tokens: l.tokens,
            }
        } else {
            Change::Added {
                server: l.server.clone(),
                uri: l.uri.clone(),
                tokens: l.tokens,
                was,
            }
        });
    }
    for l in before
        .included
        .iter()
        .filter(|l| !new.contains_key(&key(l)))
    {
        let reason_now = reason(now, key(l));
        changes.push(if reason_now.as_deref() == Some(OVER_BUDGET) {
            Change::CrossedCut {
                server: l.server.clone(),
                uri: l.uri.clone(),
                into: false,
                tokens: l.tokens,
            }
        } else {
            Change::Removed {
                server: l.server.clone(),
                uri: l.uri.clone(),
                tokens: l.tokens,
                now: reason_now,
            }
        });
    }
    // Places among the resources in both, so one addition does not "move" everything after it.
    let (old_rank, new_rank) = (rank(before, &new), rank(now, &old));
    for l in now.included.iter() {
        let Some(was) = old.get(&key(l)) else {
            continue;
        };
        let (from, to) = (old_rank[&key(l)], new_rank[&key(l)]);
        if from != to {
            changes.push(Change::Moved {
                server: l.server.clone(),
                uri: l.uri.clone(),
                from,
                to,
            });
        }
        if was.sha256 != l.sha256 {
            changes.push(Change::ContentsChanged {
                server: l.server.clone(),
                uri: l.uri.clone(),
                tokens_before: was.tokens,
                tokens_now: l.tokens,
            });
        }
    }
    changes
}

/// Places (1-based) of `lock`'s included resources among those `other` includes too.
fn rank<'a>(lock: &'a Lock, other: &HashMap<Key, &Locked>) -> HashMap<Key<'a>, usize> {
    lock.included
        .iter()
        .filter(|l| other.contains_key(&key(l)))
        .enumerate()
        .map(|(i, l)| (key(l), i + 1))
        .collect()
}

impl Change {
    /// One line for a person (server strings still need [`crate::sanitize`]).
    pub fn describe(&self) -> String {
        match self {
            Change::Added {
                server,
                uri,
                tokens,
                was,
            } => match was {
                Some(was) => format!("added     {server}  {uri}  ({tokens} tokens; was {was})"),
                None => format!("added     {server}  {uri}  ({tokens} tokens)"),
            },
            Change::Removed {
                server,
                uri,
                tokens,
                now,
            } => match now {
                Some(now) => format!("removed   {server}  {uri}  ({tokens} tokens; now {now})"),
                None => format!("removed   {server}  {uri}  ({tokens} tokens; no longer listed)"),
            },
            Change::CrossedCut {
                server,
                uri,
                into,
                tokens,
            } => {
                let way = if *into {
                    "above the cut line (now handed over)"
                } else {
                    "below the cut line (no longer handed over)"
                };
                format!("crossed   {server}  {uri}  {way}, {tokens} tokens")
            }
            Change::Moved {
                server,
                uri,
                from,
                to,
            } => format!("moved     {server}  {uri}  from #{from} to #{to}"),
            Change::ContentsChanged {
                server,
                uri,
                tokens_before,
                tokens_now,
            } => {
                let delta = *tokens_now as i64 - *tokens_before as i64;
                format!(
                    "changed   {server}  {uri}  contents changed, {tokens_before} → {tokens_now} tokens ({delta:+})"
                )
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locked(uri: &str, tokens: u64, sha: &str) -> Locked {
        Locked {
            server: "s".into(),
            uri: uri.into(),
            tokens,
            sha256: sha.into(),
            pinned: false,
        }
    }

    fn lock(included: Vec<Locked>, left_out: &[(&str, &str)]) -> Lock {
        Lock {
            version: LOCK_VERSION,
            budget: Some(100),
            tokenizer: "o200k".into(),
            total_tokens: included.iter().map(|l| l.tokens).sum(),
            included,
            left_out: left_out
                .iter()
                .map(|(uri, reason)| LeftOutEntry {
                    server: "s".into(),
                    uri: (*uri).into(),
                    reason: (*reason).into(),
                })
                .collect(),
        }
    }

    #[test]
    fn the_same_lock_has_no_drift_and_round_trips() {
        let a = lock(vec![locked("a://1", 5, "x")], &[("a://2", OVER_BUDGET)]);
        assert!(drift(&a, &a.clone()).is_empty());
        let text = crate::safe_json::to_string_pretty(&a).unwrap();
        assert_eq!(Lock::parse(&text).unwrap(), a);
        let newer = text.replace("\"version\": 1", "\"version\": 99");
        assert!(Lock::parse(&newer).unwrap_err().contains("newer"));
    }

    #[test]
    fn each_kind_of_drift_is_told_apart() {
        let before = lock(
            vec![
                locked("a://1", 5, "x"),
                locked("a://2", 5, "y"),
                locked("a://3", 5, "z"),
                locked("a://gone", 1, "g"),
            ],
            &[("a://below", OVER_BUDGET), ("a://ex", "excluded")],
        );
        let now = lock(
            vec![
                locked("a://new", 2, "n"),
                locked("a://2", 5, "y"),
                locked("a://1", 5, "x"),
                locked("a://below", 3, "b"),
                locked("a://ex", 3, "e"),
            ],
            &[("a://3", OVER_BUDGET)],
        );
        let kinds: Vec<String> = drift(&before, &now).iter().map(Change::describe).collect();
        assert_eq!(
            kinds,
            [
                "added     s  a://new  (2 tokens)",
                "crossed   s  a://below  above the cut line (now handed over), 3 tokens",
                "added     s  a://ex  (3 tokens; was excluded)",
                "crossed   s  a://3  below the cut line (no longer handed over), 5 tokens",
                "removed   s  a://gone  (1 tokens; no longer listed)",
                "moved     s  a://2  from #2 to #1",
                "moved     s  a://1  from #1 to #2",
            ]
        );
        let mut edited = before.clone();
        edited.included[1] = locked("a://2", 9, "y2");
        assert_eq!(
            drift(&before, &edited),
            [Change::ContentsChanged {
                server: "s".into(),
                uri: "a://2".into(),
                tokens_before: 5,
                tokens_now: 9
            }]
        );
    }

    #[test]
    fn the_lock_sits_beside_the_set() {
        assert_eq!(
            lock_path(Path::new("dir/mcpick.context.json")),
            Path::new("dir/mcpick.context.lock.json")
        );
        assert_eq!(
            lock_path(Path::new("team.set")),
            Path::new("team.set.lock.json")
        );
    }
}
