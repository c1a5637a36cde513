//! Writing and removing mcpick's entry in a host file, without losing anything else: the
//! edit is planned on the text ([`plan_install`], [`plan_uninstall`], pure), then committed
//! ([`commit`]): the original is copied to `NAME.mcpick-backup` before the first change, the
//! file is read again and compared just before the atomic replace (another program's edit
//! in between stops the write instead of being lost), and the new text goes through
//! [`crate::context::file::write_atomic`].

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::doc::Doc;
use super::{Dialect, Launch, is_ours};

/// The suffix of the backup kept next to a host file.
pub const BACKUP_SUFFIX: &str = ".mcpick-backup";

/// Why an edit was not made.
#[derive(Debug, Clone, PartialEq)]
pub enum Refused {
    /// The file cannot be parsed, or its servers are not where the dialect says.
    Unreadable(String),
    /// An entry of that name exists and mcpick did not write it.
    Foreign { name: String, entry: Value },
}

/// What an edit does: the text after it, or nothing to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// The file already says this.
    Unchanged,
    /// The new text; `replaced` when an entry of that name was there before.
    Change { text: String, replaced: bool },
}

/// Adds or updates the entry `name` running `launch`. `before` is the file's text (`None`:
/// no file yet). An entry mcpick did not write is replaced only with `force`.
pub fn plan_install(
    dialect: &Dialect,
    before: Option<&str>,
    name: &str,
    launch: &Launch,
    force: bool,
) -> Result<Plan, Refused> {
    let mut doc = Doc::parse(dialect.format, before.unwrap_or("")).map_err(Refused::Unreadable)?;
    let wanted = (dialect.entry)(launch);
    let existing = doc
        .get(dialect.servers_key, name)
        .map_err(Refused::Unreadable)?;
    match &existing {
        Some(entry) if *entry == wanted => return Ok(Plan::Unchanged),
        Some(entry) if !is_ours(entry) && !force => {
            return Err(Refused::Foreign {
                name: name.to_string(),
                entry: entry.clone(),
            });
        }
        _ => {}
    }
    doc.set(dialect.servers_key, name, &wanted)
        .map_err(Refused::Unreadable)?;
    Ok(Plan::Change {
        text: doc.text(),
        replaced: existing.is_some(),
    })
}

/// Removes the entry `name` if mcpick wrote it.
pub fn plan_uninstall(
    dialect: &Dialect,
    before: Option<&str>,
    name: &str,
) -> Result<Plan, Refused> {
    let Some(before) = before else {
        return Ok(Plan::Unchanged);
    };
    let mut doc = Doc::parse(dialect.format, before).map_err(Refused::Unreadable)?;
    match doc
        .get(dialect.servers_key, name)
        .map_err(Refused::Unreadable)?
    {
        None => Ok(Plan::Unchanged),
        Some(entry) if !is_ours(&entry) => Err(Refused::Foreign {
            name: name.to_string(),
            entry,
        }),
        Some(_) => {
            doc.remove(dialect.servers_key, name)
                .map_err(Refused::Unreadable)?;
            Ok(Plan::Change {
                text: doc.text(),
                replaced: true,
            })
        }
    }
}

/// mcpick's entries in a file (`install`'s and `wrap`'s): name and entry.
pub fn ours(dialect: &Dialect, text: &str) -> Result<Vec<(String, Value)>, String> {
    let doc = Doc::parse(dialect.format, text)?;
    Ok(doc
        .entries(dialect.servers_key)?
        .into_iter()
        .filter(|(_, entry)| is_ours(entry) || super::wrap::is_wrapped(entry))
        .collect())
}

/// A unified diff of an edit, labelled with the file's path.
pub fn diff(path: &Path, before: Option<&str>, after: &str) -> String {
    let shown = path.display().to_string();
    similar::TextDiff::from_lines(before.unwrap_or(""), after)
        .unified_diff()
        .context_radius(3)
        .header(
            &if before.is_some() {
                shown.clone()
            } else {
                "/dev/null".into()
            },
            &shown,
        )
        .to_string()
}

/// The backup of `path`: `NAME.mcpick-backup` next to it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(BACKUP_SUFFIX);
    path.with_file_name(name)
}

/// The file's text, `None` when it does not exist.
pub fn read(path: &Path) -> std::io::Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes `after` over `path`, whose text was `before` when the edit was planned. Follows a
/// symbolic link to the real file; keeps the original as `NAME.mcpick-backup` unless a
/// backup is already there (the first original is the one worth keeping). Returns the backup
/// made, if any.
pub fn commit(path: &Path, before: Option<&str>, after: &str) -> std::io::Result<Option<PathBuf>> {
    let target = crate::context::file::target_of(path)?;
    if let Some(dir) = target.parent()
        && !dir.as_os_str().is_empty()
    {
        std::fs::create_dir_all(dir)?;
    }
    let now = read(&target)?;
    if now.as_deref() != before {
        return Err(std::io::Error::other(format!(
            "{} changed while mcpick was editing it; nothing was written, run the command again",
            path.display()
        )));
    }
    let mut made = None;
    if let Some(before) = before {
        let backup = backup_path(&target);
        if !backup.exists() {
            // The backup gets the original's permissions before it gets its contents (a
            // private file stays private): write_atomic keeps an existing file's mode.
            if let Ok(meta) = std::fs::metadata(&target)
                && std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&backup)
                    .is_ok()
            {
                std::fs::set_permissions(&backup, meta.permissions())?;
            }
            crate::context::file::write_atomic(&backup, before.as_bytes())?;
            made = Some(backup);
        }
    }
    crate::context::file::write_atomic(&target, after.as_bytes())?;
    Ok(made)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hosts::Host;

    fn launch() -> Launch {
        Launch {
            command: "mcpick".into(),
            args: vec!["serve".into(), "--set".into(), "mcpick.context.json".into()],
        }
    }

    fn changed(plan: Plan) -> String {
        match plan {
            Plan::Change { text, .. } => text,
            Plan::Unchanged => panic!("unchanged"),
        }
    }

    #[test]
    fn every_dialect_installs_once_and_removes_back_to_the_original() {
        for host in Host::ALL {
            let d = host.dialect();
            let original = match d.format {
                crate::hosts::FileFormat::Toml => {
                    "# mine\n[mcp_servers.a]\ncommand = \"a\" # keep\n".to_string()
                }
                _ => {
                    let key = d.servers_key[0];
                    format!(
                        "{{\n  // mine\n  \"{key}\": {{\n    \"a\": {{ \"command\": \"a\" }} // keep\n  }},\n  \"x\": 1\n}}\n"
                    )
                }
            };
            let installed =
                changed(plan_install(d, Some(&original), "mcpick", &launch(), false).unwrap());
            assert!(
                installed.contains("// keep") || installed.contains("# keep"),
                "{}: {installed}",
                d.name
            );
            assert_eq!(
                plan_install(d, Some(&installed), "mcpick", &launch(), false).unwrap(),
                Plan::Unchanged,
                "{}",
                d.name
            );
            assert!(matches!(
                plan_install(d, Some(&installed), "a", &launch(), false),
                Err(Refused::Foreign { .. })
            ));
            assert!(matches!(
                plan_uninstall(d, Some(&installed), "a"),
                Err(Refused::Foreign { .. })
            ));
            let removed = changed(plan_uninstall(d, Some(&installed), "mcpick").unwrap());
            assert_eq!(removed, original, "{}", d.name);
            assert_eq!(ours(d, &installed).unwrap().len(), 1);
        }
    }

    #[test]
    fn a_missing_file_is_created_and_a_bad_one_refused() {
        let d = Host::ClaudeCode.dialect();
        let text = changed(plan_install(d, None, "mcpick", &launch(), false).unwrap());
        let doc = crate::hosts::json::parse(&text).unwrap();
        assert_eq!(doc["mcpServers"]["mcpick"]["type"], "stdio");
        assert!(matches!(
            plan_install(d, Some("{ \"mcpServers\": 3 }"), "mcpick", &launch(), false),
            Err(Refused::Unreadable(_))
        ));
        assert!(matches!(
            plan_install(d, Some("[1]"), "mcpick", &launch(), false),
            Err(Refused::Unreadable(_))
        ));
    }
}
