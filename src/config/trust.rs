//! Approvals: which servers named by a project's own files this user allowed mcpick to start.
//!
//! A cloned repository can name any command in its `.mcp.json`, `.vscode/mcp.json`,
//! `.cursor/mcp.json`, `.zed/settings.json`, `mcpick.toml` or context set. The hosts that own
//! those files ask before they start one, and so does mcpick: such a server is started (or,
//! over HTTP, connected to, with headers that may carry the user's tokens) only once the user
//! approved it with `mcpick trust`. A server the user gave themselves (on the command line, in
//! their own config outside the project, in a `--config` file they named) needs no approval.
//!
//! An approval is remembered per user (in [`crate::places::data_dir`], never in the project,
//! where a repository could plant one), per project (its canonical path) and per exact server:
//! the SHA-256 of what would be started, after `${VAR}` expansion (a stdio server's command,
//! arguments, working directory and environment names and values; an HTTP server's transport,
//! URL, header names and values). Anything that changes is a different server and is asked
//! about again; the server's name is not part of it. Only digests are kept, so the file holds
//! no secret an env value or header carried, beside a masked form for `--list`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::mcp::TransportSpec;
use crate::sanitize;

/// The store's file name in the data directory.
pub const FILE: &str = "trust.json";

/// What the user should run to review and approve a project's servers.
pub const HOW_TO_APPROVE: &str = "mcpick trust";

/// Every approval of this user: project (canonical path) → digest → what was approved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Approvals {
    #[serde(default)]
    projects: BTreeMap<String, BTreeMap<String, Approval>>,
}

/// One approved server, as a person recognises it (the digest is the key).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Approval {
    /// The server's name when it was approved.
    pub name: String,
    /// Its definition as written (placeholders kept, literal secrets masked), one line.
    pub shown: String,
}

/// The digest that identifies one server definition: what would be started, exactly.
pub fn fingerprint(transport: &TransportSpec) -> String {
    // TransportSpec's maps are BTreeMaps, so its JSON is one text for one definition.
    let json = serde_json::to_vec(transport).unwrap_or_default();
    let digest = Sha256::digest(&json);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A project's key: its canonical path (links resolved), else the path made absolute.
pub fn project_key(dir: &Path) -> String {
    let path = std::fs::canonicalize(dir)
        .unwrap_or_else(|_| std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf()));
    path.to_string_lossy().into_owned()
}

impl Approvals {
    /// True when this exact definition was approved for `project`.
    pub fn is_approved(&self, project: &Path, transport: &TransportSpec) -> bool {
        self.projects
            .get(&project_key(project))
            .is_some_and(|approved| approved.contains_key(&fingerprint(transport)))
    }

    /// Remembers `transport` as approved for `project`, shown in `--list` as `shown` (the
    /// definition as written, placeholders kept: never the expanded one, which may hold
    /// secrets); false when it already was approved.
    pub fn approve(
        &mut self,
        project: &Path,
        name: &str,
        transport: &TransportSpec,
        shown: &str,
    ) -> bool {
        self.projects
            .entry(project_key(project))
            .or_default()
            .insert(
                fingerprint(transport),
                Approval {
                    name: name.to_string(),
                    shown: shown.to_string(),
                },
            )
            .is_none()
    }

    /// Forgets every approval for `project`; how many there were.
    pub fn revoke(&mut self, project: &Path) -> usize {
        self.projects
            .remove(&project_key(project))
            .map_or(0, |approved| approved.len())
    }

    /// Every approval: (project, approval), projects in path order.
    pub fn list(&self) -> impl Iterator<Item = (&str, &Approval)> {
        self.projects
            .iter()
            .flat_map(|(project, approved)| approved.values().map(move |a| (project.as_str(), a)))
    }
}

/// The approval file of this user.
pub type Store = super::private::Private<Approvals>;

impl Store {
    /// The store in the user data directory (`$MCPICK_DATA_DIR` in tests); `None` when no home
    /// is known (then nothing is approved).
    pub fn system() -> Option<Store> {
        Store::in_data_dir(FILE, "approvals")
    }

    /// The store at `path`.
    pub fn at(path: PathBuf) -> Store {
        Store::new(path, "approvals")
    }

    /// Changes the approvals under the store's lock and writes them back (see
    /// [`super::private`]).
    pub fn update<T>(&self, change: impl FnOnce(&mut Approvals) -> T) -> Result<T, String> {
        self.change_with(|approvals| (change(approvals), true))
    }
}

/// What a server runs, whole, one part a line: the parts written in the file as they are
/// (literal values included: they are in the project for anyone to read), and the parts
/// that take a value from this person's environment as written (`${TOKEN}`), so no secret of
/// theirs is printed. Shown for a decision ([`sanitize::for_decision`]): a newline, an
/// invisible character or a long run of spaces is shown as an escape, never hidden, and a
/// last line says how to read the escapes when there are any.
pub fn describe(selected: &super::select::Selected) -> Vec<String> {
    let shown = selected.shown.as_ref().unwrap_or(&selected.spec.transport);
    let escapes = std::cell::Cell::new(false);
    let show = |value: &str| {
        let shown = sanitize::for_decision(value);
        escapes.set(escapes.get() || sanitize::has_escapes(&shown));
        shown
    };
    let pick = |written: &str, expanded: &str| {
        let value = if written.contains("${") {
            written
        } else {
            expanded
        };
        show(value)
    };
    let pairs = |written: &std::collections::BTreeMap<String, String>,
                 expanded: &std::collections::BTreeMap<String, String>| {
        expanded
            .iter()
            .map(|(k, v)| {
                let w = written.get(k).map_or(v.as_str(), String::as_str);
                format!("{}={}", show(k), pick(w, v))
            })
            .collect::<Vec<_>>()
    };
    let mut lines = Vec::new();
    match (&selected.spec.transport, shown) {
        (
            TransportSpec::Stdio {
                command,
                args,
                env,
                cwd,
            },
            written,
        ) => {
            let (w_command, w_args, w_env) = match written {
                TransportSpec::Stdio {
                    command, args, env, ..
                } => (command.as_str(), args.as_slice(), Some(env)),
                _ => (command.as_str(), args.as_slice(), None),
            };
            let mut words = vec![quote(&pick(w_command, command))];
            for (i, arg) in args.iter().enumerate() {
                let w = if w_args.len() == args.len() {
                    &w_args[i]
                } else {
                    arg
                };
                words.push(quote(&pick(w, arg)));
            }
            lines.push(format!("runs: {}", words.join(" ")));
            if !env.is_empty() {
                let empty = Default::default();
                lines.push(format!(
                    "environment: {}",
                    pairs(w_env.unwrap_or(&empty), env).join(" ")
                ));
            }
            if let Some(cwd) = cwd {
                lines.push(format!("in: {}", show(&cwd.display().to_string())));
            }
        }
        (TransportSpec::Http { url, headers } | TransportSpec::Sse { url, headers }, written) => {
            let (w_url, w_headers) = match written {
                TransportSpec::Http { url, headers } | TransportSpec::Sse { url, headers } => {
                    (url.as_str(), Some(headers))
                }
                _ => (url.as_str(), None),
            };
            lines.push(format!("connects to: {}", pick(w_url, url)));
            if !headers.is_empty() {
                let empty = Default::default();
                lines.push(format!(
                    "headers: {}",
                    pairs(w_headers.unwrap_or(&empty), headers).join(" ")
                ));
            }
        }
    }
    if escapes.get() {
        lines.push(ESCAPES_SHOWN.to_string());
    }
    lines
}

/// Said under a definition shown with escapes: how to read them.
pub const ESCAPES_SHOWN: &str = "(shown escaped: \\n a line break, \\t a tab, \\u{…} an invisible or control character, \\{N spaces} a run of spaces, \\\\ one backslash)";

/// A word as a shell would need it to stay one word.
fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,${}".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stdio(command: &str, args: &[&str], env: &[(&str, &str)]) -> TransportSpec {
        TransportSpec::Stdio {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            cwd: None,
        }
    }

    #[test]
    fn approved_per_project_and_per_exact_definition() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let server = stdio("node", &["server.js"], &[("MODE", "x")]);
        let mut approvals = Approvals::default();
        assert!(!approvals.is_approved(&a, &server));
        assert!(approvals.approve(&a, "s", &server, "node server.js"));
        assert!(
            !approvals.approve(&a, "s", &server, "node server.js"),
            "already approved"
        );
        assert!(approvals.is_approved(&a, &server));
        // The same project through another spelling of its path.
        assert!(approvals.is_approved(&a.join("../a"), &server));
        // Another project, another argument, another env value: not approved.
        assert!(!approvals.is_approved(&b, &server));
        for changed in [
            stdio("node", &["server.js", "--evil"], &[("MODE", "x")]),
            stdio("nodejs", &["server.js"], &[("MODE", "x")]),
            stdio("node", &["server.js"], &[("MODE", "y")]),
            stdio("node", &["server.js"], &[("LD_PRELOAD", "x")]),
            stdio(
                "node",
                &["server.js"],
                &[("MODE", "x"), ("LD_PRELOAD", "/x.so")],
            ),
        ] {
            assert!(!approvals.is_approved(&a, &changed), "{changed:?}");
        }
        let http = |url: &str, auth: &str| TransportSpec::Http {
            url: url.into(),
            headers: [("Authorization".to_string(), auth.to_string())].into(),
        };
        approvals.approve(&a, "web", &http("https://a.example/mcp", "Bearer 1"), "web");
        assert!(approvals.is_approved(&a, &http("https://a.example/mcp", "Bearer 1")));
        assert!(!approvals.is_approved(&a, &http("https://b.example/mcp", "Bearer 1")));
        assert!(!approvals.is_approved(&a, &http("https://a.example/mcp", "Bearer 2")));
        assert_eq!(approvals.revoke(&a), 2);
        assert!(!approvals.is_approved(&a, &server));
        assert_eq!(approvals.revoke(&a), 0);
    }

    #[test]
    fn the_store_keeps_digests_and_masked_forms_only() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().join("data/trust.json"));
        assert_eq!(store.load().unwrap(), Approvals::default());
        let server = stdio("db-server", &[], &[("DB_PASSWORD", "hunter2-secret")]);
        let project = dir.path();
        assert!(
            store
                .update(|a| a.approve(project, "db", &server, "db-server"))
                .unwrap()
        );
        let text = std::fs::read_to_string(store.path()).unwrap();
        assert!(!text.contains("hunter2-secret"), "{text}");
        assert!(text.contains(&fingerprint(&server)), "{text}");
        let loaded = store.load().unwrap();
        assert!(loaded.is_approved(project, &server));
        let listed: Vec<_> = loaded.list().collect();
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].1.name, "db");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(store.path()), 0o600);
            assert_eq!(mode(store.path().parent().unwrap()), 0o700);
        }
        assert_eq!(store.update(|a| a.revoke(project)).unwrap(), 1);
        assert!(!store.load().unwrap().is_approved(project, &server));
    }

    #[test]
    fn an_unreadable_store_is_an_error_and_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().join("trust.json"));
        std::fs::write(store.path(), "not json").unwrap();
        let error = store.load().unwrap_err();
        assert!(error.contains("trust.json"), "{error}");
        assert!(store.update(|a| a.revoke(dir.path())).is_err());
        assert_eq!(std::fs::read_to_string(store.path()).unwrap(), "not json");
    }
}
