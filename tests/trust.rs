//! What a repository's files name runs only once the user approved it (`mcpick trust`): a
//! project `.mcp.json` or a context set whose command would leave a marker file is not run
//! by `ls` or `preview` until `mcpick trust --yes`, runs after, and a changed command is held
//! back again. The user's own servers (the command line) need no approval.

mod common;

use std::path::{Path, PathBuf};

use common::{exit_code, mcpick_bin, mcpick_in, stderr, stdout};
use serde_json::json;

/// A project folder, a home and a data directory of its own (approvals live there).
struct Setup {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
    data: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let home = dir.path().join("home");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        Setup {
            data: dir.path().join("data"),
            _dir: dir,
            project,
            home,
        }
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        let env = [
            ("HOME", self.home.to_str().unwrap()),
            (
                "XDG_CONFIG_HOME",
                &self.home.join(".config").to_string_lossy(),
            ),
            ("MCPICK_DATA_DIR", self.data.to_str().unwrap()),
        ]
        .map(|(k, v)| (k, v.to_string()));
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        mcpick_in(&self.project, &env, args)
    }

    fn marker(&self, name: &str) -> PathBuf {
        self.project.join(name)
    }
}

/// A stdio server that leaves `marker` behind, then is the demo server.
fn marking_server(marker: &Path) -> serde_json::Value {
    json!({
        "type": "stdio",
        "command": "sh",
        "args": ["-c", format!("touch '{}'; exec '{}' demo-server --count 3", marker.display(), mcpick_bin())],
    })
}

#[test]
fn a_project_mcp_json_runs_only_after_mcpick_trust_and_a_change_asks_again() {
    let setup = Setup::new();
    let marker = setup.marker("ran");
    let write = |marker: &Path| {
        std::fs::write(
            setup.project.join(".mcp.json"),
            json!({"mcpServers": {"repo": marking_server(marker)}}).to_string(),
        )
        .unwrap();
    };
    write(&marker);

    let out = setup.run(&["ls"]);
    assert_ne!(exit_code(&out), 0, "nothing could be used");
    assert!(!marker.exists(), "the project's command ran unapproved");
    let err = stderr(&out);
    assert!(
        err.contains("`repo`") && err.contains("mcpick trust"),
        "{err}"
    );

    // No terminal to ask on: nothing is approved without --yes.
    let out = setup.run(&["trust"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("touch"),
        "the command is shown whole: {}",
        stdout(&out)
    );
    assert!(stderr(&out).contains("--yes"), "{}", stderr(&out));
    assert!(!setup.run(&["ls"]).status.success());
    assert!(!marker.exists());

    let out = setup.run(&["trust", "--yes"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!marker.exists(), "trust shows, it does not run");
    let out = setup.run(&["ls"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(marker.exists(), "approved, it runs");
    let listed = stdout(&setup.run(&["trust", "--list"]));
    assert!(listed.contains("repo"), "{listed}");

    // The repository changes the command: held back again.
    let changed = setup.marker("ran-changed");
    write(&changed);
    let out = setup.run(&["ls"]);
    assert_ne!(exit_code(&out), 0);
    assert!(
        !changed.exists(),
        "a changed command ran on the old approval"
    );
    assert!(stderr(&out).contains("mcpick trust"), "{}", stderr(&out));

    // Revoked: the first command is held back too.
    write(&marker);
    std::fs::remove_file(&marker).unwrap();
    assert_eq!(exit_code(&setup.run(&["trust", "--revoke"])), 0);
    assert!(!setup.run(&["ls"]).status.success());
    assert!(!marker.exists());

    // Approvals are owner-only and hold no command, only digests and the shown form.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(setup.data.join("trust.json")).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }
}

#[test]
fn a_set_files_servers_wait_for_approval_and_the_users_own_do_not() {
    let setup = Setup::new();
    let marker = setup.marker("set-ran");
    std::fs::write(
        setup.project.join("mcpick.context.json"),
        json!({"version": 1, "servers": {"repo": marking_server(&marker)}}).to_string(),
    )
    .unwrap();
    let out = setup.run(&["preview"]);
    assert_ne!(exit_code(&out), 0);
    assert!(!marker.exists(), "the set's command ran unapproved");
    assert!(stderr(&out).contains("mcpick trust"), "{}", stderr(&out));

    // A command the user types runs at once, whatever the project holds.
    let out = setup.run(&["ls", "--", mcpick_bin(), "demo-server", "--count", "2"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));

    assert_eq!(exit_code(&setup.run(&["trust", "--yes"])), 0);
    let out = setup.run(&["preview"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(marker.exists());
}

#[test]
fn a_server_the_user_records_in_a_set_needs_no_trust_afterwards() {
    let setup = Setup::new();
    let out = setup.run(&[
        "pin",
        "--allow-missing",
        "demo://x",
        "--",
        mcpick_bin(),
        "demo-server",
        "--count",
        "2",
    ]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = setup.run(&["preview"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("not approved"), "{}", stderr(&out));
}

/// A project's `.mcp.json` entry that runs `mcpick wrap-serve` with a planted record: the
/// host would start it after approving `mcpick wrap-serve …`, which says nothing of the
/// command the record keeps. `wrap-serve` does not start that original until `mcpick trust`
/// shows it and the user approves it.
#[test]
fn a_planted_wrap_record_runs_nothing_until_approved() {
    let setup = Setup::new();
    let marker = setup.marker("wrapped-ran");
    std::fs::write(
        setup.project.join(".mcp.json"),
        serde_json::to_string(&json!({"mcpServers": {"docs": {
            "command": "mcpick",
            "args": ["wrap-serve", "--record", ".mcp.json.mcpick-wrap.json", "--name", "docs",
                     "--set", "mcpick.context.json"]
        }}}))
        .unwrap(),
    )
    .unwrap();
    std::fs::write(
        setup.project.join("mcpick.context.json"),
        r#"{"version": 1}"#,
    )
    .unwrap();
    let mut original = marking_server(&marker);
    original.as_object_mut().unwrap().remove("type");
    std::fs::write(
        setup.project.join(".mcp.json.mcpick-wrap.json"),
        serde_json::to_string(&json!({"version": 1, "entries": {"docs": {
            "host": "claude-code", "original": original, "replaced": "", "written": ""
        }}}))
        .unwrap(),
    )
    .unwrap();
    let serve = |setup: &Setup| {
        setup.run(&[
            "wrap-serve",
            "--record",
            ".mcp.json.mcpick-wrap.json",
            "--name",
            "docs",
            "--set",
            "mcpick.context.json",
        ])
    };
    let out = serve(&setup);
    assert_ne!(exit_code(&out), 0);
    assert!(stderr(&out).contains("mcpick trust"), "{}", stderr(&out));
    assert!(!marker.exists(), "the planted original ran");

    let listed = setup.run(&["trust", "--yes"]);
    assert_eq!(exit_code(&listed), 0, "{}", stderr(&listed));
    assert!(
        stdout(&listed).contains("wrap record"),
        "{}",
        stdout(&listed)
    );
    let _ = serve(&setup);
    assert!(marker.exists(), "approved, the original starts");
}

/// The entry `install` writes into the project's `.mcp.json` (it runs `mcpick serve`) is the
/// person's own doing: it is approved, and nothing waits for `mcpick trust`.
#[test]
fn the_entry_install_writes_is_approved() {
    let setup = Setup::new();
    let out = setup.run(&["pin", "--demo", "file:///project/README.md"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = setup.run(&["install", "claude-code", "--deliver", "on-demand"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let listed = setup.run(&["trust", "--list"]);
    assert!(
        stdout(&listed).contains("mcpick serve"),
        "{}",
        stdout(&listed)
    );
    let out = setup.run(&["trust"]);
    assert!(
        stdout(&out).contains("approved already") || stdout(&out).contains("nothing to approve"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

/// The browser asks once before it starts a project's server it held back, showing what it
/// runs whole; "no" keeps it stopped, whatever key asks (`R` asks again); "yes" starts it and
/// is remembered as `mcpick trust` remembers it.
#[test]
fn the_browser_asks_before_it_starts_a_projects_server() {
    let setup = Setup::new();
    let marker = setup.marker("ran");
    std::fs::write(
        setup.project.join(".mcp.json"),
        json!({"mcpServers": {"repo": marking_server(&marker)}}).to_string(),
    )
    .unwrap();
    let env = [
        format!("HOME={}", setup.home.display()),
        format!("XDG_CONFIG_HOME={}", setup.home.join(".config").display()),
        format!("MCPICK_DATA_DIR={}", setup.data.display()),
    ];
    let env: Vec<&str> = env.iter().map(String::as_str).collect();
    let tmux = common::tmux::Tmux::bash(&env);
    tmux.type_text(&format!(
        "cd '{}' && {}\n",
        setup.project.display(),
        mcpick_bin()
    ));
    let asked = tmux.wait_for("the question", |s| {
        s.contains("Start this project's servers?")
    });
    assert!(
        asked.contains("repo") && asked.contains("touch") && asked.contains(".mcp.json"),
        "the server, what it runs and the file that defines it:\n{asked}"
    );
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(!marker.exists(), "it ran before anyone answered");

    tmux.keys(&["n"]);
    tmux.wait_for("the question closed", |s| {
        !s.contains("Start this project's servers?")
    });
    tmux.keys(&["R"]);
    let again = tmux.wait_for("asked again", |s| {
        s.contains("Start this project's servers?")
    });
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert!(
        !marker.exists(),
        "R ran the project's command unapproved:\n{again}"
    );

    tmux.keys(&["y"]);
    let listed = tmux.wait_for("the approved server listed", |s| s.contains("3 resources"));
    assert!(marker.exists(), "approved, it starts:\n{listed}");
    let remembered = stdout(&setup.run(&["trust", "--list"]));
    assert!(remembered.contains("repo"), "{remembered}");
    let out = setup.run(&["ls"]);
    assert_eq!(
        exit_code(&out),
        0,
        "approved once, for every command: {}",
        stderr(&out)
    );
}

/// Another local user who can write this user's `trust.json` (a group- or world-writable file,
/// or data folder) can approve any command for them: mcpick refuses such a store, as ssh
/// refuses an `authorized_keys` others can write, says which and how to fix it, and starts
/// nothing on its say. The same approvals in an owner-only file are honoured.
#[test]
fn approvals_others_can_write_are_refused() {
    use std::os::unix::fs::PermissionsExt;
    let setup = Setup::new();
    let marker = setup.marker("ran");
    std::fs::write(
        setup.project.join(".mcp.json"),
        json!({"mcpServers": {"repo": marking_server(&marker)}}).to_string(),
    )
    .unwrap();
    // The approval, written by someone else: `mcpick trust --yes` with another data folder.
    let elsewhere = Setup {
        _dir: tempfile::tempdir().unwrap(),
        project: setup.project.clone(),
        home: setup.home.clone(),
        data: setup.data.with_file_name("other-data"),
    };
    assert_eq!(exit_code(&elsewhere.run(&["trust", "--yes"])), 0);
    let planted = std::fs::read(elsewhere.data.join("trust.json")).unwrap();
    let store = setup.data.join("trust.json");
    let mode = |path: &Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    std::fs::create_dir_all(&setup.data).unwrap();
    std::fs::write(&store, &planted).unwrap();
    for (file, folder, what) in [
        (0o666, 0o700, "trust.json"),
        (0o620, 0o700, "trust.json"),
        (0o600, 0o777, "data"),
        (0o600, 0o770, "data"),
    ] {
        mode(&store, file);
        mode(&setup.data, folder);
        let out = setup.run(&["ls"]);
        let said = stderr(&out);
        assert!(
            !marker.exists(),
            "{file:o}/{folder:o}: ran on a store others can write: {said}"
        );
        assert!(
            said.contains("writable by") && said.contains(what) && said.contains("chmod go-w"),
            "{file:o}/{folder:o}: {said}"
        );
        assert_ne!(exit_code(&out), 0, "{said}");
    }
    mode(&store, 0o600);
    mode(&setup.data, 0o700);
    let out = setup.run(&["ls"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(marker.exists(), "an owner-only store is honoured");
}
