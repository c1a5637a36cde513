//! Context-set files shared with other processes and other folders: concurrent writers keep
//! every mark, symbolic links are written through, read-only files are refused, temporary
//! files of killed saves are cleaned, relative commands work from another folder, marks on
//! unreachable servers are reported, and `--budget` has one meaning.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::*;
use serde_json::Value;

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    mcpick_in(dir, &[], args)
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = run(dir, args);
    assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
    stdout(&out)
}

fn marks(path: &Path) -> Vec<Value> {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    doc["marks"].as_array().unwrap().clone()
}

/// A project config naming server `x` (never started: marks are recorded offline).
fn offline_server(dir: &Path) {
    std::fs::write(
        dir.join("mcpick.toml"),
        "[servers.x]\ncommand = \"does-not-run\"\n",
    )
    .unwrap();
}

#[test]
fn twenty_rounds_of_two_concurrent_pins_keep_all_forty_marks() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    offline_server(d);
    for round in 0..20 {
        let children: Vec<_> = (0..2)
            .map(|who| {
                Command::new(mcpick_bin())
                    .args([
                        "pin",
                        "--server",
                        "x",
                        "--allow-missing",
                        &format!("x://round-{round}/writer-{who}"),
                    ])
                    .current_dir(d)
                    .env("HOME", isolated_home())
                    .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let marks = marks(&d.join("mcpick.context.json"));
    assert_eq!(marks.len(), 40, "marks lost: {} of 40 kept", marks.len());
}

#[cfg(unix)]
#[test]
fn a_symlinked_set_is_written_through_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    offline_server(d);
    std::fs::create_dir(d.join("shared")).unwrap();
    std::fs::write(
        d.join("shared/team.json"),
        "{\"version\": 1, \"comment\": \"kept\"}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("shared/team.json", d.join("link.json")).unwrap();
    ok(
        d,
        &[
            "pin",
            "--set",
            "link.json",
            "--server",
            "x",
            "--allow-missing",
            "x://a",
        ],
    );
    ok(d, &["policy", "--set", "link.json", "--budget", "7"]);
    let meta = std::fs::symlink_metadata(d.join("link.json")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    let text = std::fs::read_to_string(d.join("shared/team.json")).unwrap();
    assert!(text.contains("x://a"), "{text}");
    assert!(text.contains("\"budget\": 7"), "{text}");
    assert!(text.contains("\"comment\": \"kept\""), "{text}");
    let leftovers: Vec<_> = std::fs::read_dir(d.join("shared"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[cfg(unix)]
#[test]
fn a_read_only_set_is_refused_with_the_reason_and_left_unchanged() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    offline_server(d);
    let path = d.join("mcpick.context.json");
    ok(d, &["pin", "--server", "x", "--allow-missing", "x://a"]);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let before = std::fs::read(&path).unwrap();
    for args in [
        vec!["pin", "--server", "x", "--allow-missing", "x://b"],
        vec!["exclude", "--server", "x", "--allow-missing", "x://c"],
        vec!["unmark", "x://a"],
        vec!["policy", "--budget", "5"],
    ] {
        let out = run(d, &args);
        assert_eq!(exit_code(&out), 1, "{args:?}");
        let err = stderr(&out);
        assert!(err.contains("read-only (mode 0444)"), "{args:?}: {err}");
        assert!(err.contains("mcpick.context.json"), "{err}");
        assert!(!stdout(&out).contains("x://"), "no mark reported as made");
        assert_eq!(std::fs::read(&path).unwrap(), before, "{args:?}");
    }
    // Reading is fine.
    ok(d, &["marks"]);
}

#[test]
fn temp_files_of_a_killed_save_are_cleaned_by_the_next_save() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    offline_server(d);
    // As a killed save leaves them: a process that is gone (no Linux pid is this high).
    let stale = ".mcpick.context.json.4194301.0.tmp";
    let other = ".other.json.4194301.0.tmp";
    std::fs::write(d.join(stale), "{\"version\": 1, \"marks\": [").unwrap();
    std::fs::write(d.join(other), "").unwrap();
    ok(d, &["pin", "--server", "x", "--allow-missing", "x://a"]);
    assert!(
        !d.join(stale).exists(),
        "the stale temp file is still there"
    );
    assert!(
        d.join(other).exists(),
        "another file's temp file was removed"
    );
}

#[test]
fn relative_commands_are_stored_relative_to_the_set_and_work_from_elsewhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = std::fs::canonicalize(dir.path()).unwrap();
    for sub in ["work", "sets", "elsewhere"] {
        std::fs::create_dir(d.join(sub)).unwrap();
    }
    std::fs::write(
        d.join("work/srv.sh"),
        format!(
            "#!/bin/sh\nexec '{}' demo-server --count 20\n",
            mcpick_bin()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            d.join("work/srv.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    let work = d.join("work");
    ok(
        &work,
        &[
            "pin",
            "--set",
            "../sets/a.json",
            "--name",
            "script",
            "file:///project/README.md",
            "--",
            "./srv.sh",
        ],
    );
    ok(
        &work,
        &[
            "pin",
            "--set",
            "../sets/a.json",
            "--name",
            "viash",
            "demo://assets/logo.png",
            "--",
            "sh",
            "srv.sh",
        ],
    );
    let text = std::fs::read_to_string(d.join("sets/a.json")).unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        doc["servers"]["script"]["command"], "../work/srv.sh",
        "{text}"
    );
    assert_eq!(doc["servers"]["viash"]["command"], "sh", "{text}");
    assert_eq!(
        doc["servers"]["viash"]["args"][0], "../work/srv.sh",
        "{text}"
    );
    assert!(
        !text.contains(&*d.to_string_lossy()),
        "no absolute path: {text}"
    );

    // From another folder, through the set's own folder.
    let (code, doc, err) = mcpick_json_in(
        &d.join("elsewhere"),
        &[],
        &["preview", "--set", "../sets/a.json", "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let pinned: Vec<&str> = doc["included"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["pinned"] == true)
        .map(|i| i["uri"].as_str().unwrap())
        .collect();
    assert!(pinned.contains(&"file:///project/README.md"), "{doc}");
    assert!(pinned.contains(&"demo://assets/logo.png"), "{doc}");
}

#[test]
fn pins_on_an_unreachable_server_are_left_out_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let set = serde_json::json!({
        "version": 1,
        "marks": [
            { "server": "demo", "uri": "file:///project/README.md", "mark": "pin" },
            { "server": "down", "uri": "file:///gone/notes.md", "mark": "pin" },
            { "server": "down", "prefix": "file:///gone/docs/", "mark": "pin" },
            { "server": "down", "uri": "file:///gone/secret.md", "mark": "exclude" }
        ],
        "servers": {
            "demo": { "type": "stdio", "command": "mcpick", "args": ["demo-server", "--count", "20"] },
            "down": { "type": "stdio", "command": "/nonexistent/mcp-server" }
        }
    });
    std::fs::write(d.join("mcpick.context.json"), set.to_string()).unwrap();
    trust_in(d, &[]);
    let (code, doc, err) = mcpick_json_in(d, &[], &["preview", "--format", "json"]);
    assert_eq!(code, 1, "a server failed: {err}");
    assert!(err.contains("server unavailable"), "{err}");
    let left = doc["leftOut"].as_array().unwrap();
    let down: Vec<&Value> = left.iter().filter(|l| l["server"] == "down").collect();
    assert_eq!(down.len(), 3, "every mark shows: {left:?}");
    for l in &down {
        assert_eq!(l["reason"], "server unavailable", "{l}");
        assert!(l["detail"].as_str().unwrap().contains("nonexistent"), "{l}");
    }
    assert_eq!(down[0]["uri"], "file:///gone/notes.md");
    assert_eq!(down[0]["mark"], "pin");
    assert_eq!(down[1]["prefix"], "file:///gone/docs/");
    assert_eq!(down[2]["mark"], "exclude");
    assert_eq!(doc["included"][0]["uri"], "file:///project/README.md");

    let out = run(d, &["preview"]);
    let md = stdout(&out);
    assert!(
        md.contains("`down` · `file:///gone/notes.md`: server unavailable (pin mark)"),
        "{md}"
    );
    assert!(
        md.contains("`file:///gone/docs/*`: server unavailable"),
        "{md}"
    );
    let xml = stdout(&run(d, &["preview", "--format", "xml"]));
    assert!(
        xml.contains("<mark server=\"down\" prefix=\"file:///gone/docs/\" mark=\"pin\" reason=\"server unavailable\""),
        "{xml}"
    );
}

#[test]
fn budget_zero_is_zero_tokens_all_is_no_limit_and_none_is_pins_only_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let policy = |args: &[&str]| -> Value {
        let mut all = vec!["policy", "--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&ok(d, &all)).unwrap()
    };
    assert_eq!(policy(&["--budget", "0"])["budget"], 0);
    assert_eq!(policy(&["--budget", "none"])["budget"], Value::Null);
    assert_eq!(policy(&["--budget", "all"])["budget"], "all");
    assert_eq!(policy(&["--budget", "ALL"])["budget"], "all");
    assert_eq!(policy(&["--budget", "300"])["budget"], 300);
    assert_eq!(policy(&["--no-budget"])["budget"], Value::Null);

    let preview = |budget: &str| -> Value {
        let (code, doc, err) = mcpick_json_in(
            d,
            &[],
            &["preview", "--demo", "--format", "json", "--budget", budget],
        );
        assert_eq!(code, 0, "{err}");
        doc
    };
    let zero = preview("0");
    assert_eq!(zero["budget"], 0);
    assert_eq!(zero["included"].as_array().unwrap().len(), 0, "{zero}");
    assert!(
        zero["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["reason"] == "over budget")
    );
    // Nothing is pinned: `none` (unset) hands over nothing, `all` everything admitted.
    let none = preview("none");
    assert_eq!(none["budget"], Value::Null);
    assert_eq!(none["included"].as_array().unwrap().len(), 0, "{none}");
    assert!(
        none["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["reason"] == "not pinned (no budget set)")
    );
    let all = preview("all");
    assert_eq!(all["budget"], "all");
    assert!(all["included"].as_array().unwrap().len() > 10, "{all}");

    for command in ["policy", "preview"] {
        let out = run(d, &[command, "--budget", "lots"]);
        assert_eq!(exit_code(&out), 2);
        assert!(
            stderr(&out).contains("or `all` for no limit, `none` for pinned only"),
            "{}",
            stderr(&out)
        );
    }
}

/// Every command that hands a set on refuses a missing set file: an error naming the path,
/// nothing on stdout (no bundle, no preview, nothing published), no file written. A host
/// started in the wrong folder must not feed its agent the demo's made-up catalogue.
#[test]
fn a_missing_set_is_an_error_for_every_command_that_hands_a_set_on() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for command in [
        &["serve"][..],
        &["preview"],
        &["preview", "--format", "json"],
        &["export"],
        &["export", "--format", "xml"],
        &["export", "--mentions"],
        &["lock"],
        &["diff"],
        &["install", "claude-code"],
    ] {
        let args = [command, &["--set", "nothere.json"]].concat();
        let out = run(d, &args);
        let err = stderr(&out);
        assert_eq!(exit_code(&out), 2, "{args:?}: {err}");
        assert!(
            err.contains("nothere.json: no such context set"),
            "{args:?}: {err}"
        );
        assert_eq!(stdout(&out), "", "{args:?}: nothing handed on");
        assert!(!err.contains("publishing"), "{args:?}: {err}");
    }
    // The default set too, with servers defined: still not what the person chose.
    offline_server(d);
    let out = run(d, &["preview"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("mcpick.context.json: no such context set"),
        "{}",
        stderr(&out)
    );
    let left: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["mcpick.toml"], "nothing written");
}

/// The demo is used when asked for, or on a first run with no set and no server at all,
/// and then it says so; a set file with no server anywhere is an error, never the demo.
#[test]
fn the_demo_is_used_only_when_asked_or_on_a_first_run_and_it_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Asked for: the servers named, under the default policy, and said.
    let out = run(d, &["preview", "--demo", "--set", "nothere.json"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("file:///project/README.md"));
    assert!(
        stderr(&out)
            .contains("no context set at nothere.json: the default policy over the servers named"),
        "{}",
        stderr(&out)
    );
    // A first run: no set, no server defined.
    let out = run(d, &["ls"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("using the built-in demo server (made-up resources)"),
        "{}",
        stderr(&out)
    );
    let out = run(d, &["ls", "--demo"]);
    assert!(!stderr(&out).contains("made-up"), "{}", stderr(&out));
    // `pin` may create the set; on a first run it marks the demo, and says so.
    let out = run(d, &["pin", "file:///project/README.md"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("built-in demo"), "{}", stderr(&out));
    assert!(d.join("mcpick.context.json").is_file());
    // A set with a policy only (no server) and none defined: not a first run any more.
    ok(d, &["policy", "--budget", "500", "--set", "policy.json"]);
    let out = run(d, &["preview", "--set", "policy.json"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--demo"), "{}", stderr(&out));
    assert_eq!(stdout(&out), "");
}
