//! Writing and removing mcpick's entry in a host file, without losing anything else: the
//! edit is planned on the text ([`plan_install`], [`plan_uninstall`], pure), then committed
//! ([`commit`]): a file this user may not replace is refused by the rule the context-set
//! writer follows ([`crate::fsio::unwritable`]), the original is copied to
//! `NAME.mcpick-backup` before an install first changes it, the file is read again and
//! compared just before the atomic replace (another program's edit in between stops the
//! write instead of being lost), and the new text goes through
//! [`crate::fsio::write_atomic`].
//!
//! Uninstalling the last entry of a file that holds nothing else (what `install` makes of no
//! file) removes the file: the host's folder is left as it was before `install`.

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
    /// Without the entry the file holds nothing but an empty servers table (`text`), as
    /// `install` writes it where there was no file: remove the file when `install` created
    /// it (there is no backup, which every install that changed an existing file made),
    /// else write `text`.
    Delete { text: String },
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

/// Removes the entry `name` if mcpick wrote it. `original` is the file as it was before
/// mcpick first changed it (its backup): a servers object it did not have goes again once it
/// is empty.
pub fn plan_uninstall(
    dialect: &Dialect,
    before: Option<&str>,
    original: Option<&str>,
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
            if let Some(original) = original
                && let Ok(original) = Doc::parse(dialect.format, original)
                && doc
                    .entries(dialect.servers_key)
                    .is_ok_and(|left| left.is_empty())
                && let Some((last, parents)) = dialect.servers_key.split_last()
                && original
                    .entries(parents)
                    .is_ok_and(|o| !o.contains_key(*last))
            {
                doc.remove(parents, last).map_err(Refused::Unreadable)?;
            }
            let text = doc.text();
            if text == empty_file(dialect)? || (original.is_none() && only_marked(dialect, &doc)) {
                return Ok(Plan::Delete { text });
            }
            Ok(Plan::Change {
                text,
                replaced: true,
            })
        }
    }
}

/// True when `doc` holds nothing but an empty servers object and the keys the host adds by
/// itself ([`Dialect::host_keys`]).
fn only_marked(dialect: &Dialect, doc: &Doc) -> bool {
    if dialect.host_keys.is_empty() {
        return false;
    }
    let [servers] = dialect.servers_key else {
        return false;
    };
    doc.entries(&[]).is_ok_and(|root| {
        root.iter().all(|(key, value)| {
            dialect.host_keys.contains(&key.as_str())
                || (key == servers && value.as_object().is_some_and(|o| o.is_empty()))
        })
    })
}

/// What is left of a file `install` created once its entry is removed: an empty servers
/// table and nothing else.
fn empty_file(dialect: &Dialect) -> Result<String, Refused> {
    let mut doc = Doc::parse(dialect.format, "").map_err(Refused::Unreadable)?;
    doc.set(dialect.servers_key, "x", &Value::Object(Default::default()))
        .map_err(Refused::Unreadable)?;
    doc.remove(dialect.servers_key, "x")
        .map_err(Refused::Unreadable)?;
    Ok(doc.text())
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

/// Why `entry`, named `name` and running `mcpick serve` ([`is_ours`]), is not exactly what
/// `install` writes at `scope` for some set: `None` when it is. Running mcpick is not enough to
/// be mcpick's: an entry with an `env` (`LD_PRELOAD`), a `cwd` or arguments of its own does
/// something mcpick never wrote, and `install --list` must not vouch for it.
pub fn not_as_written(
    dialect: &Dialect,
    scope: super::Scope,
    name: &str,
    entry: &Value,
) -> Option<String> {
    let Some(fields) = (dialect.read)(entry) else {
        return Some("mcpick cannot read it as an entry".into());
    };
    let command = fields.get("command").and_then(Value::as_str).unwrap_or("");
    let all: Vec<String> = fields
        .get("args")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .map(|v| v.as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default();
    let words: Vec<&str> = std::iter::once(command)
        .chain(all.iter().map(String::as_str))
        .collect();
    let program = match our_program(&words, scope) {
        Ok(program) => program,
        Err(why) => return Some(why),
    };
    let args = all[program - 1..].to_vec();
    let wanted_rest: Vec<&str> = if name == "mcpick" {
        Vec::new()
    } else {
        vec!["--as", name]
    };
    match args.as_slice() {
        [serve, flag, _, rest @ ..] if serve == "serve" && flag == "--set" => {
            if rest
                .iter()
                .map(String::as_str)
                .ne(wanted_rest.iter().copied())
            {
                return Some(format!(
                    "its arguments are `{}`; mcpick writes `serve --set SET{}`",
                    args.join(" "),
                    wanted_rest
                        .iter()
                        .map(|w| format!(" {w}"))
                        .collect::<String>()
                ));
            }
        }
        _ => {
            return Some(format!(
                "its arguments are `{}`; mcpick writes `serve --set SET …`",
                args.join(" ")
            ));
        }
    }
    let wanted = (dialect.entry)(&Launch {
        command: command.to_string(),
        args: all,
    });
    (wanted != *entry).then(|| difference(&wanted, entry))
}

/// How many of `words` (a command line) are the program mcpick writes at `scope`, or why they
/// are not: `npx -y mcpick@VERSION` (what mcpick writes when npx ran it), else
/// [`not_our_program`] on the first word.
pub fn our_program(words: &[&str], scope: super::Scope) -> Result<usize, String> {
    match super::mcpick_words(words) {
        3 if words[2].starts_with("mcpick@") && words[0] == "npx" => Ok(3),
        _ => match not_our_program(words.first().copied().unwrap_or(""), scope) {
            Some(why) => Err(why),
            None => Ok(1),
        },
    }
}

/// Why `program` is not the one mcpick writes at `scope`: `mcpick` from PATH in a project
/// file (shared with the project), or this very binary by its path when no `mcpick` on PATH
/// is it (what `install` writes then); this binary by absolute path in the user's own.
fn not_our_program(program: &str, scope: super::Scope) -> Option<String> {
    let this_binary = || {
        let this = std::env::current_exe().and_then(std::fs::canonicalize).ok();
        Path::new(program).is_absolute()
            && this.is_some()
            && std::fs::canonicalize(program).ok() == this
    };
    let ours = match scope {
        super::Scope::Project => program == "mcpick" || this_binary(),
        super::Scope::User => {
            Path::new(program).is_absolute()
                && Path::new(program).file_name() == Some(std::ffi::OsStr::new("mcpick"))
        }
    };
    (!ours).then(|| {
        format!(
            "it runs `{program}`; mcpick writes {}",
            match scope {
                super::Scope::Project => {
                    "`mcpick` (from PATH) in a project file, or this binary by its path"
                }
                super::Scope::User => "the absolute path of its binary in a user file",
            }
        )
    })
}

/// How `found` differs from `wanted` (two entries), for a person: the fields mcpick does not
/// write, and those it writes otherwise.
fn difference(wanted: &Value, found: &Value) -> String {
    let (Some(wanted), Some(found)) = (wanted.as_object(), found.as_object()) else {
        return "it is not an object".into();
    };
    let mut parts = Vec::new();
    let extra: Vec<String> = found
        .keys()
        .filter(|k| !wanted.contains_key(*k))
        .map(|k| format!("`{k}`"))
        .collect();
    if !extra.is_empty() {
        parts.push(format!("it has {} (mcpick writes none)", extra.join(", ")));
    }
    for (key, value) in wanted {
        match found.get(key) {
            None => parts.push(format!("it has no `{key}`")),
            Some(other) if other != value => {
                parts.push(format!("its `{key}` is {other}; mcpick writes {value}"))
            }
            Some(_) => {}
        }
    }
    parts.join("; ")
}

/// A unified diff of an edit (`after` `None`: the file removed), labelled with the file's
/// path.
pub fn diff(path: &Path, before: Option<&str>, after: Option<&str>) -> String {
    let shown = path.display().to_string();
    let side = |text: Option<&str>| {
        if text.is_some() {
            shown.clone()
        } else {
            "/dev/null".into()
        }
    };
    similar::TextDiff::from_lines(before.unwrap_or(""), after.unwrap_or(""))
        .unified_diff()
        .context_radius(3)
        .header(&side(before), &side(after))
        .to_string()
}

/// The literal values in `text`'s server entries (a host file in `dialect`) that may be
/// secrets, named for a person (`` `db`: env `PGPASSWORD` ``): the backup an install keeps
/// copies them, so the person is told to keep it out of version control. A value written as
/// `${VAR}` is not one; an environment or header value counts when its name or its shape looks
/// like a credential, an argument or a URL when [`crate::redact`] would mask it.
pub fn literal_secrets(dialect: &Dialect, text: &str) -> Vec<String> {
    use crate::redact;
    let Ok(entries) = Doc::parse(dialect.format, text).and_then(|d| d.entries(dialect.servers_key))
    else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (name, entry) in &entries {
        let Some(fields) = (dialect.read)(entry) else {
            continue;
        };
        let name = crate::sanitize::line(name, 100);
        for (what, table) in [("env", "env"), ("header", "headers")] {
            let Some(map) = fields.get(table).and_then(Value::as_object) else {
                continue;
            };
            for (key, value) in map {
                let value = value.as_str().unwrap_or_default();
                if !value.is_empty()
                    && !value.contains("${")
                    && (redact::secret_name(key) || redact::looks_like_secret(value))
                {
                    found.push(format!(
                        "`{name}`: {what} `{}`",
                        crate::sanitize::line(key, 100)
                    ));
                }
            }
        }
        let args: Vec<String> = fields
            .get("args")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        if redact::args(&args) != args {
            found.push(format!("`{name}`: an argument"));
        }
        if let Some(url) = fields.get("url").and_then(Value::as_str)
            && redact::url(url) != url
        {
            found.push(format!("`{name}`: the URL"));
        }
    }
    found
}

/// The backup of `path`: `NAME.mcpick-backup` next to it.
pub fn backup_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(BACKUP_SUFFIX);
    path.with_file_name(name)
}

/// The real file an edit of `path` changes, through its symbolic links (and those of its
/// folders). `within` is the project at project scope: a file shared with the project must be
/// the project's own, so one whose real path leaves it (a committed `.mcp.json →
/// ~/.claude.json`, a `.claude` folder linked out) is refused, as the delivery's files are
/// ([`crate::fsio::inside`]). Every host file `install`, `uninstall` and `wrap` write, and
/// the backup kept beside it, is found through here.
pub fn real_target(path: &Path, within: Option<&Path>) -> std::io::Result<PathBuf> {
    match within {
        Some(root) => crate::fsio::inside(path, root).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!(
                    "{e}; a project-scope host file must be the project's own, so mcpick changed nothing (use --scope user to edit your own file)"
                ),
            )
        }),
        None => crate::fsio::target_of(path),
    }
}

/// The backup of the file `target` (a real path from [`real_target`]); at project scope
/// checked the same way (a planted `NAME.mcpick-backup` link out of the project is refused).
pub fn real_backup(target: &Path, within: Option<&Path>) -> std::io::Result<PathBuf> {
    let backup = backup_path(target);
    match within {
        Some(_) => real_target(&backup, within),
        None => Ok(backup),
    }
}

/// The file's text, `None` when it does not exist.
pub fn read(path: &Path) -> std::io::Result<Option<String>> {
    crate::fsio::read_capped(path)
}

/// Writes `after` over `path` (`None`: removes it), whose text was `before` when the edit
/// was planned. Follows a symbolic link to the real file. With `backup` (an install), keeps
/// the original as `NAME.mcpick-backup` unless a backup is already there (the first
/// original is the one worth keeping); an uninstall makes none (it would hold mcpick's own
/// entry). Returns the backup made, if any. A file this user may not replace is refused
/// ([`crate::fsio::unwritable`]) before anything is written. A removal also removes the
/// folders it leaves empty, up to (not including) the nearest of `roots` (the project, the
/// home folder) above the file. `within`: the project, at project scope ([`real_target`]):
/// checked again here, as the file and its backup are written.
pub fn commit(
    path: &Path,
    before: Option<&str>,
    after: Option<&str>,
    backup: bool,
    roots: &[&Path],
    within: Option<&Path>,
) -> std::io::Result<Option<PathBuf>> {
    let target = real_target(path, within)?;
    if let Some(why) = crate::fsio::unwritable(&target) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "the file is read-only ({why}); mcpick will not replace it and changed nothing: make it writable (chmod u+w), or edit it as its owner"
            ),
        ));
    }
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
    let Some(after) = after else {
        std::fs::remove_file(&target)?;
        // The host folders it was made in, when nothing else is in them.
        crate::fsio::remove_left_empty(&target, roots);
        return Ok(None);
    };
    let mut made = None;
    if let Some(before) = before.filter(|_| backup) {
        let backup = real_backup(&target, within)?;
        if !backup.exists() {
            // The backup gets the original's permissions before it gets its contents (a
            // private file stays private).
            crate::fsio::write_with(
                &backup,
                before.as_bytes(),
                crate::fsio::Perms::KeepOrLike(&target),
            )?;
            made = Some(backup);
        }
    }
    crate::fsio::write_atomic(&target, after.as_bytes())?;
    // Taken back (an uninstall, an unwrap) to exactly what the backup holds: the backup
    // `install` made has done its job, and would only be left behind.
    if !backup
        && let Ok(kept) = real_backup(&target, within)
        && read(&kept).ok().flatten().as_deref() == Some(after)
    {
        let _ = std::fs::remove_file(&kept);
    }
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
            Plan::Delete { .. } => panic!("delete"),
        }
    }

    /// What `install` writes, in every dialect and both scopes, is mcpick's as written; an
    /// `env`, another argument or another program is not.
    #[test]
    fn every_dialects_entry_is_mcpicks_only_as_written() {
        for host in Host::ALL {
            let dialect = host.dialect();
            for (scope, program) in [
                (crate::hosts::Scope::Project, "mcpick"),
                (crate::hosts::Scope::User, "/usr/local/bin/mcpick"),
            ] {
                for name in ["mcpick", "ctx"] {
                    let mut launch = launch();
                    launch.command = program.into();
                    if name != "mcpick" {
                        launch.args.extend(["--as".into(), name.into()]);
                    }
                    let entry = (dialect.entry)(&launch);
                    assert_eq!(
                        not_as_written(dialect, scope, name, &entry),
                        None,
                        "{}: {entry}",
                        dialect.name
                    );
                    let mut extra = entry.clone();
                    extra["env"] = serde_json::json!({"LD_PRELOAD": "/tmp/x.so"});
                    extra["environment"] = extra["env"].clone();
                    assert!(not_as_written(dialect, scope, name, &extra).is_some());
                    let mut more = launch.clone();
                    more.args.push("--http=0.0.0.0:80".into());
                    let more = (dialect.entry)(&more);
                    assert!(not_as_written(dialect, scope, name, &more).is_some());
                    let mut other = launch.clone();
                    other.command = "/tmp/evil/mcpick-not".into();
                    let other = (dialect.entry)(&other);
                    assert!(not_as_written(dialect, scope, name, &other).is_some());
                }
            }
        }
    }

    #[test]
    fn every_dialect_installs_once_and_removes_back_to_the_original() {
        // A host that takes no servers has no file to write them in.
        for host in Host::ALL.into_iter().filter(|h| h.dialect().mcp) {
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
                plan_uninstall(d, Some(&installed), None, "a"),
                Err(Refused::Foreign { .. })
            ));
            let removed =
                changed(plan_uninstall(d, Some(&installed), Some(&original), "mcpick").unwrap());
            assert_eq!(removed, original, "{}", d.name);
            assert_eq!(ours(d, &installed).unwrap().len(), 1);
        }
    }

    #[test]
    fn a_servers_object_install_added_to_a_file_goes_with_the_entry() {
        for host in Host::ALL {
            let d = host.dialect();
            let original = match d.format {
                crate::hosts::FileFormat::Toml => "# mine\nmodel = \"x\"\n".to_string(),
                _ => "{\n  // mine\n  \"theme\": \"dark\"\n}\n".to_string(),
            };
            let installed =
                changed(plan_install(d, Some(&original), "mcpick", &launch(), false).unwrap());
            let removed =
                changed(plan_uninstall(d, Some(&installed), Some(&original), "mcpick").unwrap());
            assert_eq!(removed, original, "{}", d.name);
        }
    }

    #[test]
    fn uninstalling_what_install_created_removes_the_file() {
        for host in Host::ALL {
            let d = host.dialect();
            let created = changed(plan_install(d, None, "mcpick", &launch(), false).unwrap());
            assert!(
                matches!(
                    plan_uninstall(d, Some(&created), None, "mcpick").unwrap(),
                    Plan::Delete { .. }
                ),
                "{}: {created}",
                d.name
            );
            // A file with anything else in it stays.
            let two = changed(plan_install(d, Some(&created), "other", &launch(), false).unwrap());
            assert!(matches!(
                plan_uninstall(d, Some(&two), None, "mcpick").unwrap(),
                Plan::Change { .. }
            ));
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

#[cfg(test)]
mod npx_tests {
    use serde_json::json;

    use super::super::{Scope, is_ours, mcpick_words};
    use super::our_program;

    /// `npx -y mcpick@VERSION` is mcpick as `mcpick` is; another package through npx is not.
    #[test]
    fn npx_form_is_mcpick() {
        assert_eq!(mcpick_words(&["npx", "-y", "mcpick@0.1.0", "serve"]), 3);
        assert_eq!(
            mcpick_words(&["/usr/bin/npx", "--yes", "mcpick", "serve"]),
            3
        );
        assert_eq!(mcpick_words(&["npx", "-y", "mcpick-evil@1", "serve"]), 0);
        assert_eq!(mcpick_words(&["npx", "mcpick", "serve"]), 0);
        assert_eq!(mcpick_words(&["/opt/mcpick", "serve"]), 1);
        assert!(is_ours(
            &json!({"command": "npx", "args": ["-y", "mcpick@0.1.0", "serve", "--set", "s.json"]})
        ));
        assert!(!is_ours(
            &json!({"command": "npx", "args": ["-y", "other", "serve"]})
        ));
        for scope in [Scope::Project, Scope::User] {
            assert_eq!(
                our_program(&["npx", "-y", "mcpick@0.1.0", "serve"], scope),
                Ok(3)
            );
            assert!(our_program(&["npx", "-y", "mcpick", "serve"], scope).is_err());
        }
    }
}
