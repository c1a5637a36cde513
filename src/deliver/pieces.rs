//! The files session-start delivery writes, and how each is taken back byte for byte.
//!
//! - The delivered text: `.mcpick/NAME.HOST.md` beside the set (Claude Code, Gemini CLI), in a
//!   folder whose own `.gitignore` ignores it whole, so resource contents are never committed
//!   (Gemini CLI's user scope: `~/.gemini/mcpick/`, the only place its user file imports from);
//!   for Codex, `AGENTS.override.md` in the project (or `$CODEX_HOME`), kept out of git through
//!   the repository's local `.git/info/exclude`.
//! - The import: two lines appended to `CLAUDE.md` / `GEMINI.md` (a comment and `@PATH`);
//!   they hold no contents and are what a project commits.
//! - The record: `.mcpick/deliver.json` beside the set lists every piece with the exact
//!   bytes added, so that `uninstall` removes exactly those, and `pin`, the browser and
//!   `serve` know which deliveries to refresh when the set changes.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{CODEX_MARKER, Channel, Placement};
use crate::fsio::write_atomic;
use crate::hosts::{Host, Places, Scope};

/// The folder beside a set that holds its deliveries.
pub const FOLDER: &str = ".mcpick";
const RECORD: &str = "deliver.json";
const IGNORE: &str =
    "# Written by mcpick: delivered resource contents stay out of version control.\n*\n";

/// Text appended to a file, and whether the file was created for it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Added {
    pub path: PathBuf,
    pub text: String,
    pub created: bool,
}

/// One host's delivery of one set.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Delivery {
    pub host: String,
    pub scope: String,
    /// The served entry's name (`mcpick`, or `install --as`).
    pub name: String,
    /// The file mcpick writes whole.
    pub file: PathBuf,
    /// The import lines in `CLAUDE.md` / `GEMINI.md`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<Added>,
    /// Codex: the `AGENTS.md` the override carries first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agents_md: Option<PathBuf>,
    /// Codex in a git repository: the line in `.git/info/exclude`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude: Option<Added>,
}

impl Delivery {
    pub fn host(&self) -> Option<Host> {
        Host::ALL.into_iter().find(|h| h.name() == self.host)
    }

    /// Where the text lands, for rendering it.
    pub fn placement(&self, set: &Path) -> Placement {
        // Claude Code names an imported file by its absolute path, Gemini CLI as imported.
        let shown_path = match (self.host(), &self.import) {
            (Some(Host::Gemini), Some(import)) => import
                .path
                .parent()
                .and_then(|base| relative(&self.file, base)),
            _ => None,
        }
        .unwrap_or_else(|| self.file.display().to_string());
        Placement {
            shown_path,
            folder: self
                .file
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            agents_md: self
                .agents_md
                .as_ref()
                .and_then(|p| std::fs::read_to_string(p).ok()),
            served_as: self.name.clone(),
            set_name: set
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }
    }

    /// Every file this delivery touches, for `install --list`.
    pub fn files(&self) -> Vec<(&'static str, &Path)> {
        let mut out = vec![("delivered text", self.file.as_path())];
        if let Some(i) = &self.import {
            out.push(("import lines", i.path.as_path()));
        }
        if let Some(e) = &self.exclude {
            out.push(("git exclude line", e.path.as_path()));
        }
        out
    }
}

/// The deliveries recorded beside a set.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Record {
    pub version: u32,
    pub deliveries: Vec<Delivery>,
}

fn folder_of(set: &Path) -> PathBuf {
    set.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join(FOLDER)
}

impl Record {
    /// The record beside `set`; none when there is no delivery (or it cannot be read).
    pub fn load(set: &Path) -> Record {
        std::fs::read(folder_of(set).join(RECORD))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    fn save(&self, set: &Path) -> std::io::Result<()> {
        let folder = folder_of(set);
        let path = folder.join(RECORD);
        if self.deliveries.is_empty() {
            remove_if_exists(&path)?;
            if std::fs::read_to_string(folder.join(".gitignore")).is_ok_and(|t| t == IGNORE) {
                remove_if_exists(&folder.join(".gitignore"))?;
            }
            // Only when nothing else is left in it.
            let _ = std::fs::remove_dir(&folder);
            return Ok(());
        }
        std::fs::create_dir_all(&folder)?;
        let ignore = folder.join(".gitignore");
        if !ignore.exists() {
            write_atomic(&ignore, IGNORE.as_bytes())?;
        }
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        write_atomic(&path, text.as_bytes())
    }
}

fn remove_if_exists(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Where `host`'s delivery of `set` goes, before anything is written. `set` is absolute.
pub fn plan(
    channel: &Channel,
    scope: Scope,
    places: &Places,
    set: &Path,
    name: &str,
) -> Result<Delivery, String> {
    let host = channel.host;
    let folder = folder_of(set);
    let home = || {
        places
            .home
            .clone()
            .ok_or_else(|| "cannot tell where the home directory is".to_string())
    };
    let mut delivery = Delivery {
        host: host.name().to_string(),
        scope: scope.name().to_string(),
        name: name.to_string(),
        file: folder.join(format!("{}.{}.md", file_safe(name), host.name())),
        import: None,
        agents_md: None,
        exclude: None,
    };
    let import_file = match (host, scope) {
        (Host::ClaudeCode, Scope::Project) => Some(places.project.join("CLAUDE.md")),
        (Host::ClaudeCode, Scope::User) => Some(home()?.join(".claude").join("CLAUDE.md")),
        (Host::Gemini, Scope::Project) => Some(places.project.join("GEMINI.md")),
        (Host::Gemini, Scope::User) => Some(home()?.join(".gemini").join("GEMINI.md")),
        _ => None,
    };
    if let Some(import_file) = import_file {
        // Gemini CLI imports only from under the importing file's folder (an absolute path
        // elsewhere is dropped silently, measured): a user delivery lives in `~/.gemini/mcpick/`.
        if (host, scope) == (Host::Gemini, Scope::User) {
            let folder = import_file
                .parent()
                .unwrap_or(Path::new("."))
                .join("mcpick");
            delivery.file = folder.join(format!("{}.gemini.md", file_safe(name)));
        }
        // Imports are relative to the importing file where they can be (what a project
        // commits); Claude Code's user file imports a set elsewhere by its absolute path.
        let base = import_file.parent().unwrap_or(Path::new("."));
        let target = match (scope, relative(&delivery.file, base)) {
            (_, Some(rel)) => rel,
            (Scope::User, None) => delivery.file.display().to_string(),
            (Scope::Project, None) => return Err("the set is outside the project".into()),
        };
        let block = format!(
            "<!-- mcpick: the context set, delivered at session start (`mcpick uninstall {}{}` removes these two lines) -->\n@{target}\n",
            host.name(),
            if scope == Scope::User {
                " --scope user"
            } else {
                ""
            }
        );
        delivery.import = Some(addition(&import_file, &block));
    }
    if host == Host::Codex {
        let dir = match scope {
            Scope::Project => places.project.clone(),
            Scope::User => places
                .codex_home
                .clone()
                .map_or_else(|| home().map(|h| h.join(".codex")), Ok)?,
        };
        delivery.file = dir.join("AGENTS.override.md");
        delivery.agents_md = Some(dir.join("AGENTS.md"));
        if let Ok(existing) = std::fs::read_to_string(&delivery.file)
            && !existing.starts_with(CODEX_MARKER)
        {
            return Err(format!(
                "{} exists and is not mcpick's: Codex reads it in place of AGENTS.md, so mcpick cannot deliver there (use --deliver on-demand)",
                delivery.file.display()
            ));
        }
        if scope == Scope::Project && places.project.join(".git").is_dir() {
            let exclude = places.project.join(".git").join("info").join("exclude");
            delivery.exclude = Some(addition(&exclude, "/AGENTS.override.md\n"));
        }
    }
    Ok(delivery)
}

/// A name as a file name part: letters, digits, `-`, `_`, `.`; anything else `_`.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `path` relative to `base` (both absolute), with `/` separators.
fn relative(path: &Path, base: &Path) -> Option<String> {
    let rel = path.strip_prefix(base).ok()?;
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// What appending `block` to `path` adds: a blank line first when the file has text, and a
/// newline when its last line has none.
fn addition(path: &Path, block: &str) -> Added {
    match std::fs::read_to_string(path) {
        Ok(text) if text.contains(block) => Added {
            path: path.to_path_buf(),
            text: String::new(),
            created: false,
        },
        Ok(text) if text.is_empty() => Added {
            path: path.to_path_buf(),
            text: block.to_string(),
            created: false,
        },
        Ok(text) => Added {
            path: path.to_path_buf(),
            text: format!("{}\n{block}", if text.ends_with('\n') { "" } else { "\n" }),
            created: false,
        },
        Err(_) => Added {
            path: path.to_path_buf(),
            text: block.to_string(),
            created: true,
        },
    }
}

/// Writes `delivery`'s pieces (the delivered `text`, the import or exclude lines) and records
/// it beside `set`, replacing an earlier record of the same host, scope and name.
pub fn write(set: &Path, delivery: &Delivery, text: &str) -> std::io::Result<()> {
    let mut record = Record::load(set);
    let earlier = record.deliveries.iter().position(|d| {
        d.host == delivery.host && d.scope == delivery.scope && d.name == delivery.name
    });
    let mut delivery = delivery.clone();
    if let Some(at) = earlier {
        // Installed before: its lines are already there; keep what was added then.
        let old = record.deliveries.remove(at);
        delivery.import = old.import.or(delivery.import);
        delivery.exclude = old.exclude.or(delivery.exclude);
    }
    record.version = 1;
    // The folder and its .gitignore first: the text never lands in a folder git would see.
    record.deliveries.push(delivery.clone());
    record.save(set)?;
    if let Some(parent) = delivery.file.parent() {
        std::fs::create_dir_all(parent)?;
    }
    if let Some(e) = &delivery.exclude {
        append(e)?;
    }
    write_atomic(&delivery.file, text.as_bytes())?;
    if let Some(i) = &delivery.import {
        append(i)?;
    }
    Ok(())
}

fn append(added: &Added) -> std::io::Result<()> {
    if added.text.is_empty() {
        return Ok(());
    }
    let mut text = std::fs::read_to_string(&added.path).unwrap_or_default();
    if text.contains(&added.text) && !added.created {
        return Ok(());
    }
    if let Some(parent) = added.path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    text.push_str(&added.text);
    write_atomic(&added.path, text.as_bytes())
}

/// Rewrites the delivered text of a recorded delivery.
pub fn refresh(delivery: &Delivery, text: &str) -> std::io::Result<()> {
    if let Some(parent) = delivery.file.parent() {
        std::fs::create_dir_all(parent)?;
    }
    write_atomic(&delivery.file, text.as_bytes())
}

/// What [`remove`] could not take back as it was written.
pub type Notes = Vec<String>;

/// Takes back every piece of the delivery of `host`/`scope`/`name` recorded beside `set`:
/// the delivered file, exactly the lines added (a file created for them is removed), the
/// record. `None` when there was no such delivery.
pub fn remove(
    set: &Path,
    host: Host,
    scope: Scope,
    name: &str,
) -> std::io::Result<Option<(Delivery, Notes)>> {
    let mut record = Record::load(set);
    let Some(at) = record
        .deliveries
        .iter()
        .position(|d| d.host == host.name() && d.scope == scope.name() && d.name == name)
    else {
        return Ok(None);
    };
    let delivery = record.deliveries.remove(at);
    let mut notes = Vec::new();
    let ours = match std::fs::read_to_string(&delivery.file) {
        Ok(text) => host != Host::Codex || text.starts_with(CODEX_MARKER),
        Err(_) => false,
    };
    if ours {
        remove_if_exists(&delivery.file)?;
    }
    for added in [&delivery.import, &delivery.exclude].into_iter().flatten() {
        if let Some(note) = take_back(added)? {
            notes.push(note);
        }
    }
    record.save(set)?;
    Ok(Some((delivery, notes)))
}

fn take_back(added: &Added) -> std::io::Result<Option<String>> {
    if added.text.is_empty() {
        return Ok(None);
    }
    let Ok(text) = std::fs::read_to_string(&added.path) else {
        return Ok(None);
    };
    if added.created && text == added.text {
        remove_if_exists(&added.path)?;
        return Ok(None);
    }
    match text.rfind(&added.text) {
        Some(at) => {
            let mut kept = text[..at].to_string();
            kept.push_str(&text[at + added.text.len()..]);
            write_atomic(&added.path, kept.as_bytes())?;
            Ok(None)
        }
        None => Ok(Some(format!(
            "{}: the lines mcpick added were changed since; left as they are",
            added.path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Appending the import and taking it back leaves every kind of file as it was: missing
    /// (removed again), empty, with or without a last newline, with the user's text after.
    #[test]
    fn an_addition_is_taken_back_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let block = "<!-- mcpick -->\n@.mcpick/x.md\n";
        for before in [
            None,
            Some(""),
            Some("# Rules\n"),
            Some("# Rules"),
            Some("a\n\n"),
        ] {
            let path = dir.path().join("CLAUDE.md");
            let _ = std::fs::remove_file(&path);
            if let Some(text) = before {
                std::fs::write(&path, text).unwrap();
            }
            let added = addition(&path, block);
            append(&added).unwrap();
            let with = std::fs::read_to_string(&path).unwrap();
            assert!(with.ends_with(block), "{before:?}: {with:?}");
            assert!(
                with.lines().any(|l| l == "@.mcpick/x.md"),
                "on a line of its own"
            );
            // Appending again adds nothing.
            append(&addition(&path, block)).unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), with);
            assert_eq!(take_back(&added).unwrap(), None);
            assert_eq!(
                std::fs::read_to_string(&path).ok().as_deref(),
                before,
                "{before:?}"
            );
        }
    }

    /// A user who edited the added lines keeps the file as it is, and is told.
    #[test]
    fn changed_lines_are_left_alone_and_said() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("GEMINI.md");
        std::fs::write(&path, "mine\n").unwrap();
        let added = addition(&path, "@x.md\n");
        append(&added).unwrap();
        std::fs::write(&path, "mine\n\n@y.md\n").unwrap();
        assert!(take_back(&added).unwrap().is_some());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "mine\n\n@y.md\n");
    }
}
