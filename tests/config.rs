//! Server definitions end to end: a project `.mcp.json` and a user-level Claude Desktop file
//! in a temporary project and home, `mcpick servers` showing both with their origin, and
//! `mcpick ls --server NAME` talking to each (the fixture server as the real server).

mod common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::{Value, json};

/// A project directory and a home directory, both temporary.
struct Setup {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

/// The fixture server as a host config entry: `mcpick demo-server --count N`.
fn demo_entry(count: u32) -> Value {
    json!({"command": mcpick_bin(), "args": ["demo-server", "--count", count.to_string()]})
}

impl Setup {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        // The path mcpick sees as its working directory (no symlinks in between).
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        let home = root.join("home");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let setup = Setup {
            _dir: dir,
            project,
            home,
        };
        setup.write(
            &setup.project.join(".mcp.json"),
            &json!({"mcpServers": {
                "fortytwo": demo_entry(42),
                "broken": {
                    "command": mcpick_bin(),
                    "args": ["demo-server"],
                    "env": {"TOKEN": "${MCPICK_E2E_UNSET_TOKEN}"}
                }
            }}),
        );
        setup.write(
            &setup.desktop_file(),
            &json!({"mcpServers": {"seven": demo_entry(7)}}),
        );
        setup.trust();
        setup
    }

    /// Approves the project's servers, as a user does once (`mcpick trust --yes`).
    fn trust(&self) {
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        trust_in(&self.project, &env);
    }

    fn desktop_file(&self) -> PathBuf {
        self.home.join(".config/Claude/claude_desktop_config.json")
    }

    fn write(&self, path: &Path, doc: &Value) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, serde_json::to_string_pretty(doc).unwrap()).unwrap();
    }

    fn env(&self) -> Vec<(&'static str, String)> {
        vec![
            ("HOME", self.home.to_str().unwrap().to_string()),
            (
                "XDG_CONFIG_HOME",
                self.home.join(".config").to_str().unwrap().to_string(),
            ),
            // Codex's user file is `~/.codex/config.toml`, not the tester's `$CODEX_HOME`.
            ("CODEX_HOME", String::new()),
            // Named by the other hosts' files (`other_host_files`).
            ("MCPICK_E2E_CODEX_TOKEN", "codex-token".into()),
            ("MCPICK_E2E_GEMINI_KEY", "gemini-key".into()),
            ("MCPICK_E2E_WINDSURF_TOKEN", "windsurf-token".into()),
        ]
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        mcpick_in(&self.project, &env, args)
    }

    fn run_json(&self, args: &[&str]) -> (i32, Value, String) {
        let env = self.env();
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        mcpick_json_in(&self.project, &env, args)
    }
}

fn server<'a>(doc: &'a Value, name: &str) -> &'a Value {
    doc["servers"]
        .as_array()
        .expect("servers array")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no server `{name}` in {doc:#}"))
}

#[test]
fn servers_shows_the_project_and_the_claude_desktop_servers_with_their_origin() {
    assert!(
        std::env::var_os("MCPICK_E2E_UNSET_TOKEN").is_none(),
        "the test needs MCPICK_E2E_UNSET_TOKEN unset"
    );
    let setup = Setup::new();
    let (code, doc, err) = setup.run_json(&["servers", "--json"]);
    assert_eq!(code, 1, "a failed definition makes the status 1; {err}");

    let names: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["broken", "fortytwo", "seven"], "{doc:#}");

    let fortytwo = server(&doc, "fortytwo");
    assert_eq!(fortytwo["transport"], "stdio");
    assert_eq!(
        fortytwo["target"],
        format!("{} demo-server --count 42", mcpick_bin())
    );
    assert_eq!(
        fortytwo["file"],
        setup.project.join(".mcp.json").to_str().unwrap()
    );
    assert_eq!(fortytwo["field"], "mcpServers.fortytwo");
    assert_eq!(fortytwo["scope"], "project");
    assert_eq!(fortytwo["format"], "claude-code");
    assert!(fortytwo["error"].is_null());

    let seven = server(&doc, "seven");
    assert_eq!(seven["file"], setup.desktop_file().to_str().unwrap());
    assert_eq!(seven["field"], "mcpServers.seven");
    assert_eq!(seven["scope"], "host");
    assert_eq!(seven["format"], "claude-desktop");
    assert!(seven["error"].is_null());

    let broken = server(&doc, "broken");
    let error = broken["error"].as_str().expect("broken has an error");
    assert!(
        error.contains(".mcp.json: mcpServers.broken.env.TOKEN"),
        "{error}"
    );
    assert!(error.contains("MCPICK_E2E_UNSET_TOKEN"), "{error}");
    assert_eq!(broken["env"]["TOKEN"], "${MCPICK_E2E_UNSET_TOKEN}");

    // The table names both files too.
    let out = setup.run(&["servers"]);
    let table = stdout(&out);
    assert!(table.contains("fortytwo"), "{table}");
    assert!(
        table.contains("./.mcp.json  mcpServers.fortytwo"),
        "{table}"
    );
    assert!(
        table.contains("~/.config/Claude/claude_desktop_config.json  mcpServers.seven"),
        "{table}"
    );
    assert!(table.contains("error: "), "{table}");
}

#[test]
fn ls_talks_to_each_named_server() {
    let setup = Setup::new();
    for (name, count) in [("fortytwo", 42), ("seven", 7)] {
        let (code, doc, err) = setup.run_json(&["ls", "--json", "--server", name]);
        assert_eq!(code, 0, "{name}: {err}");
        let servers = doc["servers"].as_array().unwrap();
        assert_eq!(servers.len(), 1, "only the named server: {doc:#}");
        assert_eq!(servers[0]["name"], name);
        assert_eq!(servers[0]["resourceCount"], count);
        assert_eq!(resources(&doc).len(), count);
        assert!(resources(&doc).iter().all(|r| r["server"] == name));
    }
}

#[test]
fn every_defined_server_by_default_and_a_failed_definition_fails_alone() {
    let setup = Setup::new();
    let (code, doc, err) = setup.run_json(&["ls", "--json"]);
    assert_eq!(code, 1, "one server failed: {err}");
    assert_eq!(server(&doc, "fortytwo")["resourceCount"], 42);
    assert_eq!(server(&doc, "seven")["resourceCount"], 7);
    assert!(server(&doc, "fortytwo")["error"].is_null());
    let broken = server(&doc, "broken");
    let error = broken["error"].as_str().expect("broken failed");
    assert!(
        error.contains("server `broken`") && error.contains("mcpServers.broken.env.TOKEN"),
        "{error}"
    );
    assert_eq!(broken["transport"], "stdio");
    assert_eq!(resources(&doc).len(), 49);
    assert!(err.contains("MCPICK_E2E_UNSET_TOKEN"), "{err}");

    // With the variable set, the same definition works.
    let env = setup.env();
    let mut env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    env.push(("MCPICK_E2E_UNSET_TOKEN", "now-set"));
    // Usable now, so approved now (nothing could start it before).
    trust_in(&setup.project, &env);
    let (code, doc, err) = mcpick_json_in(
        &setup.project,
        &env,
        &["ls", "--json", "--server", "broken"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(server(&doc, "broken")["error"].is_null());
}

#[test]
fn an_unknown_server_is_a_usage_error_listing_the_known_ones() {
    let setup = Setup::new();
    let out = setup.run(&["ls", "--server", "nope"]);
    assert_eq!(exit_code(&out), 2);
    let err = stderr(&out);
    assert!(err.contains("`nope`"), "{err}");
    assert!(err.contains("broken, fortytwo, seven"), "{err}");
}

#[test]
fn a_malformed_file_is_a_warning_and_the_others_still_work() {
    let setup = Setup::new();
    let cursor = setup.home.join(".cursor/mcp.json");
    std::fs::create_dir_all(cursor.parent().unwrap()).unwrap();
    std::fs::write(&cursor, "{\"mcpServers\": {\"x\": }").unwrap();

    let (code, doc, err) = setup.run_json(&["ls", "--json", "--server", "seven"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(server(&doc, "seven")["resourceCount"], 7);
    assert!(
        err.contains(&format!("warning: {}: not valid JSON", cursor.display())),
        "{err}"
    );

    let (code, doc, _) = setup.run_json(&["servers", "--json"]);
    assert_eq!(code, 1);
    let failed: Vec<&Value> = doc["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["state"] == "failed")
        .collect();
    assert_eq!(failed.len(), 1, "{doc:#}");
    assert_eq!(failed[0]["file"], cursor.to_str().unwrap());
    assert!(failed[0]["error"].as_str().unwrap().contains("line 1"));
}

#[test]
fn a_config_file_and_ad_hoc_servers_work_beside_the_defined_ones() {
    let setup = Setup::new();
    let toml = setup.project.join("extra.toml");
    std::fs::write(
        &toml,
        format!(
            "[servers.three]\ncommand = {}\nargs = [\"demo-server\", \"--count\", \"3\"]\n",
            json!(mcpick_bin())
        ),
    )
    .unwrap();
    let (code, doc, err) = setup.run_json(&[
        "ls",
        "--json",
        "--config",
        "extra.toml",
        "--server",
        "three",
        "--server",
        "seven",
        "--name",
        "adhoc",
        "--",
        mcpick_bin(),
        "demo-server",
        "--count",
        "5",
    ]);
    assert_eq!(code, 0, "{err}");
    let names: Vec<&str> = doc["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["three", "seven", "adhoc"]);
    assert_eq!(resources(&doc).len(), 3 + 7 + 5);

    let (code, doc, _) = setup.run_json(&["servers", "--json", "--config", "extra.toml"]);
    assert_eq!(code, 1, "broken is still broken");
    assert_eq!(server(&doc, "three")["scope"], "explicit");

    let out = setup.run(&["ls", "--config", "missing.toml"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
}

#[test]
fn with_nothing_defined_the_demo_is_used() {
    let dir = tempfile::tempdir().unwrap();
    let (code, doc, err) = mcpick_json_in(dir.path(), &[], &["ls", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["servers"][0]["name"], "demo");
    assert_eq!(doc["servers"].as_array().unwrap().len(), 1);

    let out = mcpick_in(dir.path(), &[], &["servers"]);
    assert_eq!(exit_code(&out), 0);
    assert!(
        stdout(&out).contains("No servers are defined"),
        "{}",
        stdout(&out)
    );
}

/// The browser's key table comes from the run's one config load: an entry it cannot use is
/// returned by the key map's loader, and a file that cannot be parsed at all is returned by
/// the config loader, whatever servers were asked for (nothing is dropped either way).
#[test]
fn key_table_errors_come_back_from_the_one_config_load() {
    use mcpick::config::select::load_config_at;
    use mcpick::places::Places;
    use mcpick::tui::keymap::Keymap;

    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let places = Places::linux_like(&project, dir.path().join("home"));

    std::fs::write(
        project.join("mcpick.toml"),
        "[keys.browse]\nj = \"fly\"\nk = \"up\"\n",
    )
    .unwrap();
    let (config, file_errors) = load_config_at(&places, None);
    assert!(file_errors.is_empty(), "{file_errors:?}");
    let (_, warnings) = Keymap::load(&config);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("mcpick.toml"), "{warnings:?}");
    assert!(
        warnings[0].contains("keys.browse.j: unknown action `fly`"),
        "{warnings:?}"
    );

    std::fs::write(project.join("mcpick.toml"), "[keys.browse\nj = \"up\"\n").unwrap();
    let (config, file_errors) = load_config_at(&places, None);
    assert_eq!(file_errors.len(), 1, "{file_errors:?}");
    assert!(file_errors[0].contains("not valid TOML"), "{file_errors:?}");
    assert!(config.keys.is_empty());
}

/// Writes `text` at `path`, creating its folder.
fn write_text(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The other hosts' files as people have them: other settings, comments where the format
/// allows them, every transport each host has, and one broken entry per file.
fn other_host_files(setup: &Setup) {
    let bin = mcpick_bin();
    write_text(
        &setup.project.join(".codex/config.toml"),
        &format!(
            r#"# Codex settings for this project
model = "o3"
approval_policy = "on-request"

[mcp_servers.codex-stdio]   # the fixture server
command = "{bin}"
args = ["demo-server", "--count", "3"]
env = {{ MODE = "test" }}
startup_timeout_sec = 20

[mcp_servers.codex-http]
url = "https://codex.example.com/mcp"
bearer_token_env_var = "MCPICK_E2E_CODEX_TOKEN"
http_headers = {{ "X-Team" = "tools" }}

[mcp_servers.codex-broken]
args = ["no", "command"]

[profiles.fast]
model = "o4-mini"
"#
        ),
    );
    write_text(
        &setup.home.join(".codex/config.toml"),
        r#"# user-wide
[mcp_servers.codex-stdio]
command = "from-user-codex"

[mcp_servers.codex-user]
command = "user-tool"
args = ["--flag"]
"#,
    );
    write_text(
        &setup.project.join(".gemini/settings.json"),
        &serde_json::to_string_pretty(&json!({
            "theme": "Default",
            "mcp": {"allowed": ["gemini-stdio"]},
            "mcpServers": {
                "gemini-stdio": {
                    "command": bin,
                    "args": ["demo-server", "--count", "4"],
                    "env": {"API_KEY": "$MCPICK_E2E_GEMINI_KEY"},
                    "cwd": "./tools",
                    "timeout": 30000,
                    "trust": false
                },
                "gemini-sse": {"url": "https://gemini.example.com/sse"},
                "gemini-http": {
                    "httpUrl": "https://gemini.example.com/mcp",
                    "headers": {"Authorization": "Bearer literal-gemini-secret-0123"}
                },
                "gemini-broken": {"command": "x", "args": "not a list"}
            }
        }))
        .unwrap(),
    );
    write_text(
        &setup.home.join(".codeium/windsurf/mcp_config.json"),
        &serde_json::to_string_pretty(&json!({
            "mcpServers": {
                "windsurf-stdio": {"command": bin, "args": ["demo-server", "--count", "5"], "disabled": false},
                "windsurf-remote": {
                    "serverUrl": "https://windsurf.example.com/mcp",
                    "headers": {"Authorization": "Bearer ${env:MCPICK_E2E_WINDSURF_TOKEN}"}
                },
                "windsurf-broken": "not an object"
            }
        }))
        .unwrap(),
    );
    write_text(
        &setup.project.join(".zed/settings.json"),
        &format!(
            r#"// Zed project settings
{{
  "tab_size": 2,
  "context_servers": {{
    // today's shape
    "zed-new": {{ "source": "custom", "command": "{bin}", "args": ["demo-server", "--count", "6"], "env": {{}} }},
    /* the older shape */
    "zed-old": {{ "command": {{ "path": "{bin}", "args": ["demo-server", "--count", "8"], "env": {{ "A": "b" }} }}, "settings": {{}} }},
    "zed-remote": {{ "url": "https://zed.example.com/mcp", "headers": {{ "Authorization": "Bearer literal-zed-secret-0123" }} }},
    "zed-extension": {{ "source": "extension", "enabled": true, "settings": {{ "key": 1 }} }},
    "zed-broken": {{ "command": {{ "args": [] }} }},
  }},
}}
"#
        ),
    );
    write_text(
        &setup.home.join(".config/zed/settings.json"),
        r#"{
  // user settings
  "ui_font_size": 16,
  "context_servers": { "zed-new": { "command": "from-user-zed" }, "zed-user": { "command": "zed-tool" } },
}
"#,
    );
}

#[test]
fn codex_gemini_windsurf_and_zed_servers_are_read_from_their_own_files() {
    let setup = Setup::new();
    other_host_files(&setup);
    setup.trust();
    let (code, doc, err) = setup.run_json(&["servers", "--json"]);
    assert_eq!(code, 1, "the broken entries fail; {err}");
    let bin = mcpick_bin();
    let expect = |name: &str, transport: &str, target: &str, format: &str, scope: &str| {
        let entry = server(&doc, name);
        assert_eq!(entry["transport"], transport, "{name}: {entry:#}");
        assert_eq!(entry["target"], target, "{name}: {entry:#}");
        assert_eq!(entry["format"], format, "{name}");
        assert_eq!(entry["scope"], scope, "{name}");
        assert!(entry["error"].is_null(), "{name}: {entry:#}");
        entry.clone()
    };
    let codex = expect(
        "codex-stdio",
        "stdio",
        &format!("{bin} demo-server --count 3"),
        "codex",
        "project",
    );
    assert_eq!(
        codex["env"]["MODE"], "***",
        "env values without a placeholder are masked"
    );
    assert_eq!(codex["field"], "mcp_servers.codex-stdio");
    let codex_http = expect(
        "codex-http",
        "http",
        "https://codex.example.com/mcp",
        "codex",
        "project",
    );
    assert_eq!(
        codex_http["headers"]["Authorization"],
        "Bearer ${MCPICK_E2E_CODEX_TOKEN}"
    );
    assert_eq!(codex_http["headers"]["X-Team"], "***");
    expect("codex-user", "stdio", "user-tool --flag", "codex", "host");

    let gemini = expect(
        "gemini-stdio",
        "stdio",
        &format!("{bin} demo-server --count 4"),
        "gemini",
        "project",
    );
    assert_eq!(gemini["env"]["API_KEY"], "${MCPICK_E2E_GEMINI_KEY}");
    assert_eq!(gemini["cwd"], "./tools");
    expect(
        "gemini-sse",
        "sse",
        "https://gemini.example.com/sse",
        "gemini",
        "project",
    );
    let gemini_http = expect(
        "gemini-http",
        "http",
        "https://gemini.example.com/mcp",
        "gemini",
        "project",
    );
    assert_ne!(
        gemini_http["headers"]["Authorization"],
        "Bearer literal-gemini-secret-0123"
    );

    expect(
        "windsurf-stdio",
        "stdio",
        &format!("{bin} demo-server --count 5"),
        "windsurf",
        "host",
    );
    let windsurf = expect(
        "windsurf-remote",
        "http",
        "https://windsurf.example.com/mcp",
        "windsurf",
        "host",
    );
    assert_eq!(
        windsurf["headers"]["Authorization"],
        "Bearer ${env:MCPICK_E2E_WINDSURF_TOKEN}"
    );

    expect(
        "zed-new",
        "stdio",
        &format!("{bin} demo-server --count 6"),
        "zed",
        "project",
    );
    let old = expect(
        "zed-old",
        "stdio",
        &format!("{bin} demo-server --count 8"),
        "zed",
        "project",
    );
    assert_eq!(old["env"]["A"], "***");
    expect(
        "zed-remote",
        "http",
        "https://zed.example.com/mcp",
        "zed",
        "project",
    );
    expect("zed-user", "stdio", "zed-tool", "zed", "host");
    assert!(
        doc["servers"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["name"] != "zed-extension"),
        "an extension's entry is not a server mcpick can start: {doc:#}"
    );

    // The project's definition wins over the user's, which is kept as shadowed.
    for (name, user) in [
        ("codex-stdio", "from-user-codex"),
        ("zed-new", "from-user-zed"),
    ] {
        let shadowed = server(&doc, name)["shadowed"].as_array().unwrap().clone();
        assert_eq!(shadowed.len(), 1, "{name}: {shadowed:?}");
        assert_eq!(shadowed[0]["target"], user);
        assert_eq!(shadowed[0]["scope"], "host");
    }

    // One broken entry per file fails alone, naming its file and field.
    for (name, file, field) in [
        (
            "codex-broken",
            ".codex/config.toml",
            "mcp_servers.codex-broken",
        ),
        (
            "gemini-broken",
            ".gemini/settings.json",
            "mcpServers.gemini-broken.args",
        ),
        (
            "windsurf-broken",
            ".codeium/windsurf/mcp_config.json",
            "mcpServers.windsurf-broken",
        ),
        (
            "zed-broken",
            ".zed/settings.json",
            "context_servers.zed-broken.command",
        ),
    ] {
        let error = server(&doc, name)["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{name} has no error: {doc:#}"));
        assert!(
            error.contains(file) && error.contains(field),
            "{name}: {error}"
        );
    }
    assert!(
        doc["sources"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["state"] != "failed"),
        "a broken entry is not a broken file: {doc:#}"
    );

    // Literal secrets are never printed, in JSON or in the table.
    let table = stdout(&setup.run(&["servers"]));
    for shown in [doc.to_string(), table.clone()] {
        assert!(!shown.contains("literal-gemini-secret"), "{shown}");
        assert!(!shown.contains("literal-zed-secret"), "{shown}");
        for value in ["codex-token", "gemini-key", "windsurf-token"] {
            assert!(!shown.contains(value), "{value} printed: {shown}");
        }
    }
    assert!(
        table.contains("./.zed/settings.json  context_servers.zed-old"),
        "{table}"
    );
    assert!(
        table.contains("~/.codex/config.toml  mcp_servers.codex-user"),
        "{table}"
    );
}

#[test]
fn servers_from_other_hosts_files_connect_by_name() {
    let setup = Setup::new();
    other_host_files(&setup);
    setup.trust();
    for (name, count) in [
        ("codex-stdio", 3),
        ("windsurf-stdio", 5),
        ("zed-new", 6),
        ("zed-old", 8),
    ] {
        let (code, doc, err) = setup.run_json(&["ls", "--json", "--server", name]);
        assert_eq!(code, 0, "{name}: {err}");
        assert_eq!(server(&doc, name)["resourceCount"], count, "{name}");
    }
}

/// A command's messages go through the one output helper, which does not panic when
/// stderr is a pipe nobody reads any more (`eprintln!` does: exit 101 and a panic message).
#[cfg(unix)]
#[test]
fn a_message_to_a_closed_stderr_pipe_is_no_crash() {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: pipe() fills two descriptors this test then owns.
    assert_eq!(unsafe { libc::pipe(fds.as_mut_ptr()) }, 0);
    // SAFETY: both descriptors were just created and are owned here alone.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    drop(read);
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(common::mcpick_bin())
        .current_dir(dir.path())
        .args(["servers", "--config", "no-such-file.toml"])
        .stderr(std::process::Stdio::from(write))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// A stdio server whose program is not there (an entry naming `mcpick` where it is not on
/// `PATH`, a path to no file) is said in `servers`, in words and in JSON, before anything tries
/// to start it; a program that is there is not.
#[test]
fn servers_says_which_programs_are_not_there() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("servers-missing-program");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join(".mcp.json"),
        json!({"mcpServers": {
            "mcpick": {"command": "mcpick", "args": ["serve"]},
            "gone": {"command": "./bin/no-such-server"},
            "here": {"command": "sh", "args": ["-c", "true"]},
        }})
        .to_string(),
    )
    .unwrap();
    let env = [("PATH", "/usr/bin:/bin")];
    let (_, doc, err) = mcpick_json_in(&dir, &env, &["servers", "--json"]);
    assert_eq!(
        server(&doc, "mcpick")["missing"],
        "`mcpick` is not on PATH: the server cannot start",
        "{err}"
    );
    assert_eq!(
        server(&doc, "gone")["missing"],
        "`./bin/no-such-server` is not an executable file: the server cannot start"
    );
    assert!(server(&doc, "here")["missing"].is_null(), "{doc:#}");
    let table = stdout(&mcpick_in(&dir, &env, &["servers"]));
    assert!(
        table.contains("    not found: `mcpick` is not on PATH: the server cannot start"),
        "{table}"
    );
}

/// A project's server waits for `mcpick trust`: `servers` says so until it is approved, and
/// says nothing of a server the person defined themselves.
#[test]
fn servers_says_which_project_servers_wait_for_trust() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("servers-held");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("data")).unwrap();
    std::fs::write(
        dir.join(".mcp.json"),
        json!({"mcpServers": {"docs": {"command": "sh", "args": ["-c", "true"]}}}).to_string(),
    )
    .unwrap();
    let data = dir.join("data");
    let env = [("MCPICK_DATA_DIR", data.to_str().unwrap())];
    let (_, doc, err) = mcpick_json_in(&dir, &env, &["servers", "--json"]);
    let held = server(&doc, "docs")["held"]
        .as_str()
        .unwrap_or_else(|| panic!("{doc:#} {err}"));
    assert!(
        held.contains("you have not approved") && held.ends_with("(`mcpick trust`)"),
        "{held}"
    );
    let table = stdout(&mcpick_in(&dir, &env, &["servers"]));
    assert!(
        table.contains("    waits: `docs` runs a command"),
        "{table}"
    );

    let out = mcpick_in(&dir, &env, &["trust", "--yes"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let (_, doc, _) = mcpick_json_in(&dir, &env, &["servers", "--json"]);
    assert!(server(&doc, "docs")["held"].is_null(), "{doc:#}");
    assert!(!stdout(&mcpick_in(&dir, &env, &["servers"])).contains("waits:"));
}
