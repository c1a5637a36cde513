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
        setup
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
    use mcpick::config::Locations;
    use mcpick::config::select::load_config_at;
    use mcpick::tui::keymap::Keymap;

    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    let locations = Locations::linux_like(&project, dir.path().join("home"));

    std::fs::write(
        project.join("mcpick.toml"),
        "[keys.browse]\nj = \"fly\"\nk = \"up\"\n",
    )
    .unwrap();
    let (config, file_errors) = load_config_at(&locations, None);
    assert!(file_errors.is_empty(), "{file_errors:?}");
    let (_, warnings) = Keymap::load(&config);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("mcpick.toml"), "{warnings:?}");
    assert!(
        warnings[0].contains("keys.browse.j: unknown action `fly`"),
        "{warnings:?}"
    );

    std::fs::write(project.join("mcpick.toml"), "[keys.browse\nj = \"up\"\n").unwrap();
    let (config, file_errors) = load_config_at(&locations, None);
    assert_eq!(file_errors.len(), 1, "{file_errors:?}");
    assert!(file_errors[0].contains("not valid TOML"), "{file_errors:?}");
    assert!(config.keys.is_empty());
}
