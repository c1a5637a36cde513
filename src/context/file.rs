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
//! [`ContextSet::load`], [`ContextSet::update`] and [`SetFile`] touch the disk.
//!
//! # Sharing the file with other processes
//!
//! Two `mcpick pin`s, or the browser and a headless command, may change one set at once.
//! Every change is a read-modify-write under an advisory lock ([`ContextSet::update`]): take
//! the lock, read the file again, apply the *change* (not a whole set held in memory), write,
//! release. The lock is `flock` on a separate, stable file next to the set (`.NAME.lock`,
//! empty, never removed): the set itself is replaced by a rename on every save, so a lock on
//! it would be a lock on a file that is no longer there.
//!
//! A save is atomic: a temporary file (`.NAME.PID.N.tmp`) in the same folder, written and
//! fsynced, then renamed over the old file (and the folder fsynced), so a crash leaves the old
//! file or the new one, never a mix. Temporary files of that set left by a killed save (their
//! process is gone, or they are older than [`crate::fsio::STALE_AFTER`]) are removed by the next
//! save. All of that is [`crate::fsio`], which every file mcpick keeps is written through.
//!
//! The path is followed through symbolic links: a save writes the link's target (the link
//! stays a link), with its temporary file in the target's folder. A set file without write
//! permission is refused ([`SetError::ReadOnly`]), never replaced.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::mark::{Mark, Marks, Pattern, Target};
use super::policy::Policy;
use crate::fsio::{Lock, read_text, target_of, unwritable, write_atomic};
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
    #[error(
        "{path}: the context set is read-only ({why}); mcpick will not replace it and changed nothing: make it writable (chmod u+w) or use another --set"
    )]
    ReadOnly { path: PathBuf, why: String },
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
    /// The folder of the file it was loaded from (absolute; through symbolic links): relative
    /// paths in its server definitions are relative to it (see [`crate::config::relative`]). Not
    /// part of the file.
    pub folder: Option<PathBuf>,
    /// The set was read from a file (false: there was no file, this is the empty set a
    /// first change would create). Not part of the file.
    pub on_disk: bool,
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
    /// What the set records for choosing its servers ([`crate::config::select::choose`]).
    pub fn set_servers(&self) -> crate::config::select::SetServers<'_> {
        crate::config::select::SetServers {
            servers: &self.servers,
            folder: self.folder.as_deref(),
            on_disk: self.on_disk,
        }
    }

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
            folder: None,
            on_disk: false,
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

    /// Loads `path` (through symbolic links); a missing file is an empty set (created by
    /// the first change), with [`ContextSet::on_disk`] false. Reading needs no lock: saves
    /// replace the file atomically.
    pub fn load(path: &Path) -> Result<ContextSet, SetError> {
        let target = target_of(path).map_err(|source| SetError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let text = read_text(&target).map_err(|source| SetError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        let mut set = match text {
            Some(text) => ContextSet {
                on_disk: true,
                ..ContextSet::parse(&text, path)?
            },
            None => ContextSet::default(),
        };
        set.folder = Some(folder_of(&target));
        Ok(set)
    }

    /// Changes the set on disk: under the set's lock, reads the file again, applies `change`
    /// to what is there now (so changes others saved meanwhile are kept), and saves
    /// atomically if anything changed. Returns the set as saved and what `change` returned.
    /// A read-only file is refused before `change` runs.
    pub fn update<R>(
        path: &Path,
        change: impl FnOnce(&mut ContextSet) -> R,
    ) -> Result<(ContextSet, R), SetError> {
        let (set, _, value) = locked_update(path, |_, set| change(set))?;
        Ok((set, value))
    }
}

/// One read-modify-write under the lock. `change` sees the text read (`None`: no file) and
/// the parsed set. Returns the set, its text on disk afterwards, and `change`'s value.
fn locked_update<R>(
    path: &Path,
    change: impl FnOnce(Option<&str>, &mut ContextSet) -> R,
) -> Result<(ContextSet, Option<String>, R), SetError> {
    let write_error = |source| SetError::Write {
        path: path.to_path_buf(),
        source,
    };
    let target = target_of(path).map_err(write_error)?;
    // Removed after use: no `.NAME.lock` stays next to the set (issue 45).
    let _lock = Lock::passing(&target).map_err(write_error)?;
    if let Some(why) = unwritable(&target) {
        return Err(SetError::ReadOnly {
            path: path.to_path_buf(),
            why,
        });
    }
    let text = read_text(&target).map_err(|source| SetError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut set = match &text {
        Some(text) => ContextSet::parse(text, path)?,
        None => ContextSet::default(),
    };
    set.folder = Some(folder_of(&target));
    set.on_disk = text.is_some();
    let unchanged = set.to_json();
    let value = change(text.as_deref(), &mut set);
    let new = set.to_json();
    if new == unchanged {
        // Nothing to save (and no file created for nothing).
        return Ok((set, text, value));
    }
    write_atomic(&target, new.as_bytes()).map_err(write_error)?;
    set.on_disk = true;
    Ok((set, Some(new), value))
}

/// A set file as a long-running front end (the browser) holds it: it remembers the text it
/// last read or wrote, so it can tell changes others made from its own.
#[derive(Debug)]
pub struct SetFile {
    path: PathBuf,
    /// The file's text as last seen (`None`: there was no file).
    known: Option<String>,
    /// Size, modification time and inode as last seen: a cheap "did it change?".
    stamp: Option<Stamp>,
}

/// What [`SetFile::update`] did.
#[derive(Debug)]
pub struct Updated<R> {
    /// The set as saved.
    pub set: ContextSet,
    /// The file held changes this front end had not seen (another process saved).
    pub others_changed: bool,
    pub value: R,
}

impl SetFile {
    /// Loads `path`. The set is an error when the file cannot be used (it is then never
    /// written by this front end).
    pub fn open(path: &Path) -> (SetFile, Result<ContextSet, SetError>) {
        let mut file = SetFile {
            path: path.to_path_buf(),
            known: None,
            stamp: None,
        };
        let loaded = file.read();
        (file, loaded)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&mut self) -> Result<ContextSet, SetError> {
        let read_error = |source| SetError::Read {
            path: self.path.clone(),
            source,
        };
        let target = target_of(&self.path).map_err(read_error)?;
        self.stamp = Stamp::of(&target);
        self.known = read_text(&target).map_err(read_error)?;
        let mut set = match &self.known {
            Some(text) => ContextSet {
                on_disk: true,
                ..ContextSet::parse(text, &self.path)?
            },
            None => ContextSet::default(),
        };
        set.folder = Some(folder_of(&target));
        Ok(set)
    }

    /// The set as another process left it, when the file changed since this front end last
    /// read or wrote it; `None` when it did not.
    pub fn poll(&mut self) -> Result<Option<ContextSet>, SetError> {
        let target = target_of(&self.path).map_err(|source| SetError::Read {
            path: self.path.clone(),
            source,
        })?;
        if Stamp::of(&target) == self.stamp {
            return Ok(None);
        }
        let before = self.known.clone();
        let set = self.read()?;
        Ok((self.known != before).then_some(set))
    }

    /// [`ContextSet::update`], remembering the text written.
    pub fn update<R>(
        &mut self,
        change: impl FnOnce(&mut ContextSet) -> R,
    ) -> Result<Updated<R>, SetError> {
        let known = self.known.clone();
        let mut others_changed = false;
        let (set, text, value) = locked_update(&self.path, |text, set| {
            others_changed = text != known.as_deref();
            change(set)
        })?;
        self.known = text;
        self.stamp = target_of(&self.path).ok().and_then(|t| Stamp::of(&t));
        Ok(Updated {
            set,
            others_changed,
            value,
        })
    }
}

/// Enough of a file's metadata to notice that it was replaced or changed.
#[derive(Debug, Clone, PartialEq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    inode: u64,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let inode = std::os::unix::fs::MetadataExt::ino(&meta);
        #[cfg(not(unix))]
        let inode = 0;
        Some(Stamp {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
        })
    }
}

/// The absolute folder of a file (symbolic links resolved when it exists).
fn folder_of(target: &Path) -> PathBuf {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::canonicalize(&dir).unwrap_or_else(|_| {
        std::env::current_dir()
            .map(|cwd| cwd.join(&dir))
            .unwrap_or(dir)
    })
}

/// Why a command that hands a set on stops when the file is missing.
pub fn missing_set(path: &str) -> String {
    format!(
        "{path}: no such context set; nothing is handed on. Make one with `mcpick pin`, `mcpick exclude`, `mcpick policy` or the browser, or pass the right --set FILE (naming servers, e.g. --demo, uses them under the default policy)"
    )
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
        set.policy.budget = crate::context::Budget::Tokens(8000);
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

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn replace_with(set: &ContextSet) -> impl FnOnce(&mut ContextSet) + '_ {
        move |s: &mut ContextSet| {
            s.marks = set.marks.clone();
            s.policy = set.policy;
            s.servers = set.servers.clone();
        }
    }

    #[test]
    fn save_is_atomic_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("set.json");
        let empty = ContextSet::load(&path).unwrap();
        assert!(empty.marks.is_empty());
        assert!(empty.folder.is_some());
        ContextSet::update(&path, replace_with(&sample())).unwrap();
        let loaded = ContextSet::load(&path).unwrap();
        assert_eq!(loaded.marks, sample().marks);
        assert_eq!(names(dir.path()), ["set.json"]);
    }

    #[test]
    fn concurrent_updates_keep_every_change() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("set.json");
        std::thread::scope(|scope| {
            for t in 0..4 {
                let path = &path;
                scope.spawn(move || {
                    for i in 0..25 {
                        ContextSet::update(path, |set| {
                            set.marks
                                .set(Target::exact("s", format!("r{t}-{i}")), Some(Mark::Pin))
                        })
                        .unwrap();
                    }
                });
            }
        });
        assert_eq!(ContextSet::load(&path).unwrap().marks.len(), 100);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_set_is_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let target = real.join("team.json");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink("real/team.json", &link).unwrap();
        // A link to a file not created yet, then to an existing one.
        for _ in 0..2 {
            ContextSet::update(&link, replace_with(&sample())).unwrap();
            assert!(
                std::fs::symlink_metadata(&link)
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(ContextSet::load(&target).unwrap().marks, sample().marks);
        }
        assert_eq!(
            ContextSet::load(&link).unwrap().folder.unwrap(),
            std::fs::canonicalize(&real).unwrap()
        );
        assert_eq!(names(&real), ["team.json"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_read_only_set_is_refused_and_unchanged() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("set.json");
        ContextSet::update(&path, replace_with(&sample())).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        let before = std::fs::read(&path).unwrap();
        let mut ran = false;
        let err = ContextSet::update(&path, |s| {
            ran = true;
            s.marks.set(Target::exact("s", "x"), Some(Mark::Pin));
        })
        .unwrap_err();
        assert!(!ran);
        assert!(matches!(err, SetError::ReadOnly { .. }), "{err}");
        assert!(err.to_string().contains("read-only (mode 0444)"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn stale_temp_files_of_the_set_are_cleaned() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let path = d.join("set.json");
        // A pid that is not running (pid_max is below 2^22 on Linux).
        let dead = 4_194_301u32;
        let live = std::process::id();
        let stale = format!(".set.json.{dead}.0.tmp");
        let keep = [
            format!(".set.json.{live}.99.tmp"),  // a save of a live process
            format!(".other.json.{dead}.0.tmp"), // another file's
            format!(".set.json.{dead}.x.tmp"),   // not our naming
            format!("set.json.{dead}.0.tmp"),    // not our naming
        ];
        // A lock a killed save left (or an older mcpick's) is taken and removed after use.
        std::fs::write(d.join(".set.json.lock"), "").unwrap();
        std::fs::write(d.join(&stale), "partial").unwrap();
        for k in &keep {
            std::fs::write(d.join(k), "").unwrap();
        }
        ContextSet::update(&path, replace_with(&sample())).unwrap();
        let left = names(d);
        assert!(!left.contains(&stale), "{left:?}");
        assert!(!left.contains(&".set.json.lock".to_string()), "{left:?}");
        for k in &keep {
            assert!(left.contains(k), "{k} removed: {left:?}");
        }
    }

    #[test]
    fn a_set_file_tells_others_changes_from_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("set.json");
        let (mut file, set) = SetFile::open(&path);
        assert!(set.unwrap().marks.is_empty());
        assert!(file.poll().unwrap().is_none());
        let pin = |uri: &str| {
            let target = Target::exact("s", uri);
            move |set: &mut ContextSet| set.marks.set(target, Some(Mark::Pin))
        };
        let ours = file.update(pin("mine")).unwrap();
        assert!(!ours.others_changed);
        assert!(file.poll().unwrap().is_none(), "its own save is not news");
        ContextSet::update(&path, pin("theirs")).unwrap();
        let seen = file.poll().unwrap().expect("another process saved");
        assert_eq!(seen.marks.len(), 2);
        assert!(file.poll().unwrap().is_none());
        ContextSet::update(&path, pin("again")).unwrap();
        let merged = file.update(pin("mine-2")).unwrap();
        assert!(merged.others_changed);
        assert_eq!(merged.set.marks.len(), 4);
    }
}
