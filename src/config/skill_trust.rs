//! The user's yes for skills: which version of each pinned skill this user accepted, per
//! project, and the versions held back waiting for a yes (`mcpick trust --skills`).
//!
//! A server publishes data; a skill's `SKILL.md` frontmatter can make a host act (Claude Code
//! runs a skill's `hooks` and lets `allowed-tools` run without asking). So a skill is handed to
//! a host only at a version the user accepted: pinning a skill accepts it as it is the first
//! time mcpick reads it, if nothing in it carries behaviour
//! ([`crate::skills::Skill::behaviour`]); a skill that carries behaviour, or whose files
//! changed since it was accepted, waits for `mcpick trust --skills`. Kept per user in the data
//! directory, never in the project (a repository could plant a yes there), like the server
//! approvals ([`super::trust`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::trust::project_key;

/// The store's file name in the data directory.
pub const FILE: &str = "skills-trust.json";

/// What the user runs to review held skills and say yes.
pub const HOW_TO_ACCEPT: &str = "mcpick trust --skills";

/// Every project's skills: project (canonical path) → `SERVER/NAME` → record.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillApprovals {
    #[serde(default)]
    projects: BTreeMap<String, BTreeMap<String, SkillRecord>>,
}

/// One skill of one server in one project.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SkillRecord {
    pub server: String,
    pub name: String,
    /// The digest the user accepted, and what it carried then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accepted: Option<Version>,
    /// The version seen last and held back, waiting for a yes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<Version>,
}

/// One version of a skill: its digest ([`crate::skills::Skill::digest`]), what in it may carry
/// behaviour, its frontmatter (for the person deciding), and why it was held.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Version {
    pub digest: String,
    #[serde(default)]
    pub behaviour: Vec<String>,
    #[serde(default)]
    pub frontmatter: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub why: String,
}

fn key(server: &str, name: &str) -> String {
    format!("{server}/{name}")
}

impl SkillApprovals {
    /// The record of `server`'s skill `name` in `project`, if any.
    pub fn get(&self, project: &Path, server: &str, name: &str) -> Option<&SkillRecord> {
        self.projects
            .get(&project_key(project))?
            .get(&key(server, name))
    }

    fn entry(&mut self, project: &Path, server: &str, name: &str) -> &mut SkillRecord {
        self.projects
            .entry(project_key(project))
            .or_default()
            .entry(key(server, name))
            .or_insert_with(|| SkillRecord {
                server: server.to_string(),
                name: name.to_string(),
                ..Default::default()
            })
    }

    /// Accepts `version`; false when it was already the accepted one.
    pub fn accept(&mut self, project: &Path, server: &str, name: &str, version: Version) -> bool {
        let record = self.entry(project, server, name);
        if record
            .held
            .as_ref()
            .is_some_and(|h| h.digest == version.digest)
        {
            record.held = None;
        }
        let accepted = Version {
            why: String::new(),
            ..version
        };
        let changed = record.accepted.as_ref() != Some(&accepted);
        record.accepted = Some(accepted);
        changed
    }

    /// Remembers `version` as held, waiting for a yes; false when it already was.
    pub fn hold(&mut self, project: &Path, server: &str, name: &str, version: Version) -> bool {
        let record = self.entry(project, server, name);
        let changed = record.held.as_ref() != Some(&version);
        record.held = Some(version);
        changed
    }

    /// Every record held back in `project`, waiting for a yes.
    pub fn held(&self, project: &Path) -> Vec<&SkillRecord> {
        self.projects
            .get(&project_key(project))
            .map(|records| records.values().filter(|r| r.held.is_some()).collect())
            .unwrap_or_default()
    }

    /// Every accepted skill: (project, record), projects in path order.
    pub fn accepted(&self) -> impl Iterator<Item = (&str, &SkillRecord)> {
        self.projects.iter().flat_map(|(project, records)| {
            records
                .values()
                .filter(|r| r.accepted.is_some())
                .map(move |r| (project.as_str(), r))
        })
    }

    /// Forgets every skill of `project`; how many there were.
    pub fn revoke(&mut self, project: &Path) -> usize {
        self.projects
            .remove(&project_key(project))
            .map_or(0, |records| records.len())
    }
}

/// The skills file of this user.
pub type Store = super::private::Private<SkillApprovals>;

impl Store {
    /// The store in the user data directory (`$MCPICK_DATA_DIR` in tests); `None` when no
    /// home is known (then nothing that needs a yes is handed on).
    pub fn system() -> Option<Store> {
        Store::in_data_dir(FILE, "skill approvals")
    }

    /// The store at `path`.
    pub fn at(path: PathBuf) -> Store {
        Store::new(path, "skill approvals")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn version(digest: &str) -> Version {
        Version {
            digest: digest.into(),
            behaviour: vec!["`hooks`".into()],
            frontmatter: "---\nname: x\n---\n".into(),
            why: "held".into(),
        }
    }

    #[test]
    fn accepted_and_held_per_project_server_and_skill() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let mut s = SkillApprovals::default();
        assert!(s.hold(&a, "docs", "x", version("1")));
        assert!(!s.hold(&a, "docs", "x", version("1")), "held already");
        assert_eq!(s.held(&a).len(), 1);
        assert!(s.held(&b).is_empty(), "another project holds nothing");
        assert!(s.accept(&a, "docs", "x", version("1")));
        assert!(s.held(&a).is_empty(), "a yes for the held digest clears it");
        let record = s.get(&a, "docs", "x").unwrap();
        assert_eq!(record.accepted.as_ref().unwrap().digest, "1");
        assert!(s.get(&a, "other", "x").is_none());
        assert!(s.get(&b, "docs", "x").is_none());
        // A yes for another digest keeps a different held one.
        s.hold(&a, "docs", "x", version("2"));
        s.accept(&a, "docs", "x", version("3"));
        assert_eq!(s.held(&a).len(), 1);
        assert_eq!(s.revoke(&a), 1);
        assert!(s.get(&a, "docs", "x").is_none());
    }
}
