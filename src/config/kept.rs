//! Secrets a context set does not record, kept for the user who typed them.
//!
//! A set is meant to be committed, so a server given on the command line is recorded with
//! its literal secrets masked (`postgres://***@host/db`, see [`super::written`]). Without
//! the secret the set could not be used, not even by the person who just made it. So the
//! values masked out are kept here, in the user data directory ([`crate::places::data_dir`],
//! owner-only, never in the project), and put back when this user's runs connect with that
//! set: `preview`, `install`, `serve`, the browser.
//!
//! An entry is keyed by the set's project (canonical path, as approvals are) and the
//! server's name, and holds the digest of the masked definition it belongs to: a set whose
//! definition was changed (by hand, or by a pull request) gets no secret back, so a kept
//! password never reaches another command or host. Values are stored per field (`url`,
//! `arg.N`, `env.NAME`, `header.NAME`), as typed; they are never expanded.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::trust::{fingerprint, project_key};
use crate::mcp::TransportSpec;
use crate::redact;

/// The store's file name in the data directory.
pub const FILE: &str = "secrets.json";

/// The masked fields of one definition and their values as typed: `url`, `arg.N`,
/// `env.NAME`, `header.NAME` → value.
pub type Fields = BTreeMap<String, String>;

/// Every kept secret of this user: project → server name → entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeptSecrets {
    #[serde(default)]
    projects: BTreeMap<String, BTreeMap<String, Entry>>,
}

/// The secrets of one recorded server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Entry {
    /// [`fingerprint`] of the masked definition the set records.
    written: String,
    values: Fields,
}

/// The values `written` (the masked form of `raw`) lost, by field; empty when nothing was
/// masked.
pub fn fields(raw: &TransportSpec, written: &TransportSpec) -> Fields {
    let mut out = Fields::new();
    fn map(
        out: &mut Fields,
        what: &str,
        raw: &BTreeMap<String, String>,
        written: &BTreeMap<String, String>,
    ) {
        for (name, value) in written {
            if let Some(typed) = raw
                .get(name)
                .filter(|t| *t != value && redact::is_masked(value))
            {
                out.insert(format!("{what}.{name}"), typed.clone());
            }
        }
    }
    match (raw, written) {
        (
            TransportSpec::Stdio { args, env, .. },
            TransportSpec::Stdio {
                args: w_args,
                env: w_env,
                ..
            },
        ) => {
            map(&mut out, "env", env, w_env);
            if args.len() == w_args.len() {
                for (i, (typed, shown)) in args.iter().zip(w_args).enumerate() {
                    if typed != shown && redact::is_masked(shown) {
                        out.insert(format!("arg.{i}"), typed.clone());
                    }
                }
            }
        }
        (
            TransportSpec::Http { url, headers } | TransportSpec::Sse { url, headers },
            TransportSpec::Http {
                url: w_url,
                headers: w_headers,
            }
            | TransportSpec::Sse {
                url: w_url,
                headers: w_headers,
            },
        ) => {
            if url != w_url && redact::is_masked(w_url) {
                out.insert("url".into(), url.clone());
            }
            map(&mut out, "header", headers, w_headers);
        }
        _ => {}
    }
    out
}

/// True when `written` holds a masked value (only then is the store read).
pub fn holds_mask(written: &TransportSpec) -> bool {
    match written {
        TransportSpec::Stdio { args, env, .. } => args
            .iter()
            .chain(env.values())
            .any(|v| redact::is_masked(v)),
        TransportSpec::Http { url, headers } | TransportSpec::Sse { url, headers } => {
            redact::is_masked(url) || headers.values().any(|v| redact::is_masked(v))
        }
    }
}

impl KeptSecrets {
    /// The values kept for server `name` of the set in `project`, when its definition is
    /// still `written`; empty otherwise.
    pub fn get(&self, project: &Path, name: &str, written: &TransportSpec) -> Fields {
        self.projects
            .get(&project_key(project))
            .and_then(|servers| servers.get(name))
            .filter(|entry| entry.written == fingerprint(written))
            .map(|entry| entry.values.clone())
            .unwrap_or_default()
    }

    /// Keeps `values` for server `name` recorded as `written` (replacing what was kept for
    /// that name); no values forgets the entry. False when nothing changed.
    pub fn keep(
        &mut self,
        project: &Path,
        name: &str,
        written: &TransportSpec,
        values: Fields,
    ) -> bool {
        let key = project_key(project);
        if values.is_empty() {
            let Some(servers) = self.projects.get_mut(&key) else {
                return false;
            };
            let removed = servers.remove(name).is_some();
            if servers.is_empty() {
                self.projects.remove(&key);
            }
            return removed;
        }
        let entry = Entry {
            written: fingerprint(written),
            values,
        };
        let servers = self.projects.entry(key).or_default();
        servers.insert(name.to_string(), entry.clone()) != Some(entry)
    }
}

/// The kept secrets of this user.
pub type Store = super::private::Private<KeptSecrets>;

impl Store {
    /// The store in the user data directory (`$MCPICK_DATA_DIR` in tests); `None` when no home
    /// is known (then nothing is kept).
    pub fn system() -> Option<Store> {
        Store::in_data_dir(FILE, "kept secrets")
    }

    pub fn at(path: PathBuf) -> Store {
        Store::new(path, "kept secrets")
    }

    /// Changes what is kept under the store's lock; written back only when `change` says it
    /// changed something (see [`super::private`]).
    pub fn update(&self, change: impl FnOnce(&mut KeptSecrets) -> bool) -> Result<(), String> {
        self.change_with(|kept| ((), change(kept)))
    }
}

/// What the person is told when a set records `name` without the secrets `parts` (see
/// [`super::written::masked_parts`]) and they are kept on this machine.
pub fn kept_note(name: &str, parts: &[String]) -> String {
    format!(
        "the secret in `{name}`'s definition ({}) is kept in your data folder, not in the set; on other machines write it as `${{VAR}}` (set VAR in the environment)",
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::written::written_form;

    fn stdio(args: &[&str]) -> TransportSpec {
        TransportSpec::Stdio {
            command: "db-server".into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: Default::default(),
            cwd: None,
        }
    }

    #[test]
    fn the_masked_fields_are_kept_by_position_and_only_for_their_definition() {
        let raw = stdio(&["--port", "80", "postgres://user:hunter2@h/db"]);
        let written = written_form(&raw);
        let values = fields(&raw, &written);
        assert_eq!(
            values,
            Fields::from([("arg.2".into(), "postgres://user:hunter2@h/db".into())])
        );
        assert!(holds_mask(&written));
        assert!(fields(&stdio(&["x"]), &stdio(&["x"])).is_empty());

        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().join("data/secrets.json"));
        let project = dir.path();
        store
            .update(|k| k.keep(project, "db", &written, values.clone()))
            .unwrap();
        let kept = store.load().unwrap();
        assert_eq!(kept.get(project, "db", &written), values);
        // Another name, another project, a changed definition: nothing.
        assert!(kept.get(project, "other", &written).is_empty());
        assert!(kept.get(&project.join("data"), "db", &written).is_empty());
        let changed = stdio(&["--evil", "80", "postgres://***@h/db"]);
        assert!(kept.get(project, "db", &changed).is_empty());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(store.path()), 0o600);
            assert_eq!(mode(store.path().parent().unwrap()), 0o700);
        }
        // Recorded again without a secret: forgotten.
        store
            .update(|k| k.keep(project, "db", &written, Fields::new()))
            .unwrap();
        assert_eq!(store.load().unwrap(), KeptSecrets::default());
    }

    #[test]
    fn an_unreadable_store_names_the_file_not_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().join("secrets.json"));
        std::fs::write(store.path(), "hunter2 not json").unwrap();
        let error = store.load().unwrap_err();
        assert!(
            error.contains("secrets.json") && !error.contains("hunter2"),
            "{error}"
        );
    }
}
