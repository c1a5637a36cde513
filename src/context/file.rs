//! The context-set file: marks, policy, and the definitions of the servers the marks refer
//! to, as JSON (format documented in the README, "Context sets").
//!
//! ```json
//! {
//!   "version": 1,
//!   "marks": [
//!     { "server": "demo", "uri": "file:///project/README.md", "mark": "pin" },
//!     { "server": "demo", "prefix": "file:///project/docs/", "mark": "exclude" }
//!   ],
//!   "policy": { "audience": "assistant", "budget": 8000, "tokenizer": "o200k_base" },
//!   "servers": { "demo": { "type": "stdio", "command": "mcpick", "args": ["demo-server"] } }
//! }
//! ```
//!
//! The order is stable and diff-friendly: `version` first, then the other keys sorted; marks
//! sorted by server, exact marks before prefix marks, then by text; server definitions by
//! name. Unknown top-level keys are kept as they were. Server definitions keep placeholders
//! (`${VAR}`) as written and never a value taken from the environment.
//!
//! Parsing and serialising ([`ContextSet::parse`], [`ContextSet::to_json`]) are pure; only
//! [`ContextSet::load`] and [`ContextSet::save`] touch the disk. A save is atomic: a
//! temporary file in the same folder, written and fsynced, then renamed over the old file
//! (and the folder fsynced), so a crash leaves the old file or the new one, never a mix.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::mark::{Mark, Marks, Pattern, Target};
use super::policy::Policy;
use crate::mcp::TransportSpec;

/// The format version this mcpick writes and reads up to.
pub const VERSION: u64 = 1;

/// The file used when `--set` is not given, in the working directory.
pub const DEFAULT_FILE: &str = "mcpick.context.json";

/// Why a context-set file cannot be used. The file is never overwritten after one of these.
#[derive(Debug, thiserror::Error)]
pub enum SetError {
    #[error("{path}: cannot read the context set: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{path}: not a valid context set ({detail}); fix or move the file: mcpick will not overwrite it"
    )]
    Corrupt { path: PathBuf, detail: String },
    #[error(
        "{path}: written by a newer mcpick (format version {version}; this mcpick reads up to version {VERSION}); it is left untouched"
    )]
    Newer { path: PathBuf, version: u64 },
    #[error("{path}: cannot save the context set: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// A context set: marks + policy + the server definitions the marks refer to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContextSet {
    pub marks: Marks,
    pub policy: Policy,
    /// Server definitions as written (placeholders kept, secrets masked), by name.
    pub servers: BTreeMap<String, TransportSpec>,
    /// Unknown top-level keys, kept as they were.
    pub extra: BTreeMap<String, Value>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct MarkEntry {
    server: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prefix: Option<String>,
    mark: Mark,
}

#[derive(Serialize, Deserialize)]
struct Document {
    version: u64,
    #[serde(default)]
    marks: Vec<MarkEntry>,
    #[serde(default)]
    policy: Policy,
    #[serde(default)]
    servers: BTreeMap<String, TransportSpec>,
    #[serde(flatten)]
    extra: BTreeMap<String, Value>,
}

impl ContextSet {
    /// Parses a file's text; `path` only names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<ContextSet, SetError> {
        let corrupt = |detail: String| SetError::Corrupt {
            path: path.to_path_buf(),
            detail,
        };
        let value: Value = serde_json::from_str(text).map_err(|e| corrupt(e.to_string()))?;
        let version = match value.get("version") {
            Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64().unwrap_or(0),
            Some(_) => return Err(corrupt("`version` is not a whole number".into())),
            None if value.is_object() => return Err(corrupt("no `version` field".into())),
            None => return Err(corrupt("not a JSON object".into())),
        };
        if version > VERSION {
            return Err(SetError::Newer {
                path: path.to_path_buf(),
                version,
            });
        }
        if version == 0 {
            return Err(corrupt("`version` 0 does not exist".into()));
        }
        let doc: Document = serde_json::from_value(value).map_err(|e| corrupt(e.to_string()))?;
        let mut list = Vec::with_capacity(doc.marks.len());
        for (i, entry) in doc.marks.into_iter().enumerate() {
            let pattern = match (entry.uri, entry.prefix) {
                (Some(uri), None) => Pattern::Exact(uri),
                (None, Some(prefix)) => Pattern::Prefix(prefix),
                _ => {
                    return Err(corrupt(format!(
                        "marks[{i}] needs exactly one of `uri` and `prefix`"
                    )));
                }
            };
            list.push((
                Target {
                    server: entry.server,
                    pattern,
                },
                entry.mark,
            ));
        }
        if let Some(min) = doc.policy.min_priority
            && !(0.0..=1.0).contains(&min)
        {
            return Err(corrupt(format!(
                "policy.minPriority {min} is not between 0 and 1"
            )));
        }
        Ok(ContextSet {
            marks: Marks::from_list(list),
            policy: doc.policy,
            servers: doc.servers,
            extra: doc.extra,
        })
    }

    /// The file's text: pretty JSON in the stable order, with a final newline. Server
    /// definitions of servers without marks are left out.
    pub fn to_json(&self) -> String {
        let marks = self
            .marks
            .iter()
            .map(|(target, mark)| {
                let (uri, prefix) = match target.pattern {
                    Pattern::Exact(uri) => (Some(uri), None),
                    Pattern::Prefix(prefix) => (None, Some(prefix)),
                };
                MarkEntry {
                    server: target.server,
                    uri,
                    prefix,
                    mark,
                }
            })
            .collect();
        let referenced: Vec<&str> = self.marks.servers().collect();
        let doc = Document {
            version: VERSION,
            marks,
            policy: self.policy,
            servers: self
                .servers
                .iter()
                .filter(|(name, _)| referenced.contains(&name.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            extra: self.extra.clone(),
        };
        let mut text = crate::safe_json::to_string_pretty(&doc).expect("a context set serialises");
        text.push('\n');
        text
    }

    /// Loads `path`; a missing file is an empty set (created by the first save).
    pub fn load(path: &Path) -> Result<ContextSet, SetError> {
        match std::fs::read_to_string(path) {
            Ok(text) => ContextSet::parse(&text, path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ContextSet::default()),
            Err(source) => Err(SetError::Read {
                path: path.to_path_buf(),
                source,
            }),
        }
    }

    /// Saves atomically (see the module documentation).
    pub fn save(&self, path: &Path) -> Result<(), SetError> {
        write_atomic(path, self.to_json().as_bytes()).map_err(|source| SetError::Write {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder: write, fsync,
/// rename, fsync the folder. An existing file's permissions are kept.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("the path names no file"))?
        .to_string_lossy()
        .into_owned();
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        if let Ok(meta) = std::fs::metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result?;
    // The rename is durable once the folder is; not every platform can open a folder.
    if let Ok(dir) = std::fs::File::open(&dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::policy::Audience;

    fn sample() -> ContextSet {
        let mut set = ContextSet::default();
        set.marks.set(
            Target::prefix("demo", "file:///project/docs/"),
            Some(Mark::Exclude),
        );
        set.marks.set(
            Target::exact("demo", "file:///project/README.md"),
            Some(Mark::Pin),
        );
        set.policy.budget = Some(8000);
        set.policy.audience = Audience::Any;
        set.servers.insert(
            "demo".into(),
            TransportSpec::Stdio {
                command: "mcpick".into(),
                args: vec!["demo-server".into()],
                env: [("TOKEN".to_string(), "${TOKEN}".to_string())].into(),
                cwd: None,
            },
        );
        set.servers.insert(
            "unused".into(),
            TransportSpec::Http {
                url: "https://x".into(),
                headers: Default::default(),
            },
        );
        set
    }

    #[test]
    fn round_trip_in_stable_order() {
        let set = sample();
        let text = set.to_json();
        let expected = r#"{
  "version": 1,
  "marks": [
    {
      "server": "demo",
      "uri": "file:///project/README.md",
      "mark": "pin"
    },
    {
      "server": "demo",
      "prefix": "file:///project/docs/",
      "mark": "exclude"
    }
  ],
  "policy": {
    "audience": "any",
    "budget": 8000,
    "tokenizer": "o200k_base"
  },
  "servers": {
    "demo": {
      "type": "stdio",
      "command": "mcpick",
      "args": [
        "demo-server"
      ],
      "env": {
        "TOKEN": "${TOKEN}"
      }
    }
  }
}
"#;
        assert_eq!(text, expected);
        let back = ContextSet::parse(&text, Path::new("x")).unwrap();
        assert_eq!(back.marks, set.marks);
        assert_eq!(back.policy, set.policy);
        assert_eq!(back.to_json(), text);
    }

    #[test]
    fn unknown_keys_are_kept() {
        let text = r#"{"version":1,"zzz":{"a":1},"comment":"team set"}"#;
        let set = ContextSet::parse(text, Path::new("x")).unwrap();
        let out = set.to_json();
        assert!(out.contains("\"comment\": \"team set\""), "{out}");
        assert!(out.contains("\"zzz\""));
    }

    #[test]
    fn bad_files_are_refused() {
        let p = Path::new("f.json");
        for bad in [
            "",
            "{",
            "[]",
            "{}",
            r#"{"version":"1"}"#,
            r#"{"version":0}"#,
            r#"{"version":1,"marks":[{"server":"s","mark":"pin"}]}"#,
            r#"{"version":1,"marks":[{"server":"s","uri":"a","prefix":"b","mark":"pin"}]}"#,
            r#"{"version":1,"marks":[{"server":"s","uri":"a","mark":"maybe"}]}"#,
            r#"{"version":1,"policy":{"minPriority":2}}"#,
            r#"{"version":1,"policy":{"audience":"robots"}}"#,
        ] {
            assert!(
                matches!(ContextSet::parse(bad, p), Err(SetError::Corrupt { .. })),
                "{bad}"
            );
        }
        let newer = ContextSet::parse(r#"{"version":2,"whatever":true}"#, p);
        assert!(matches!(newer, Err(SetError::Newer { version: 2, .. })));
        assert!(newer.unwrap_err().to_string().contains("newer mcpick"));
    }

    #[test]
    fn save_is_atomic_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("set.json");
        assert_eq!(ContextSet::load(&path).unwrap(), ContextSet::default());
        sample().save(&path).unwrap();
        let loaded = ContextSet::load(&path).unwrap();
        assert_eq!(loaded.marks, sample().marks);
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["set.json"]);
    }
}
