//! `mcpick check` against the demo server (clean: every rule passes; each `--violate` mode:
//! exactly its rule fails, with evidence) and against real third-party servers; `mcpick
//! lock` / `mcpick diff` on the demo server with its catalogue and contents varied by flags.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

/// `mcpick check --json` on the demo server started with `demo_flags` (the test fixture for
/// `--violate`).
fn check_demo(demo_flags: &[&str]) -> (i32, Value) {
    let mut args = vec!["check", "--json", "--name", "demo", "--"];
    args.extend(demo_command(demo_flags));
    let (code, doc, err) = mcpick_json(&args);
    assert!(doc["servers"][0]["error"].is_null(), "{err}\n{doc:#}");
    (code, doc)
}

fn findings(doc: &Value) -> &Vec<Value> {
    doc["servers"][0]["findings"].as_array().expect("findings")
}

fn verdict<'a>(doc: &'a Value, rule: &str) -> &'a Value {
    findings(doc)
        .iter()
        .find(|f| f["rule"] == rule)
        .unwrap_or_else(|| panic!("no rule {rule}: {doc:#}"))
}

#[test]
fn the_clean_demo_passes_every_rule() {
    let (code, doc) = check_demo(&[]);
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(findings(&doc).len(), 17);
    for f in findings(&doc) {
        let v = f["verdict"].as_str().unwrap();
        // The demo speaks 2026-07-28, where resources/subscribe is not the way to subscribe,
        // and publishes no skill (tests/skills.rs checks skills against FastMCP's).
        if f["rule"] == "capability.subscribe" || f["rule"] == "skills.manifest" {
            assert_eq!(v, "skipped", "{f:#}");
        } else {
            assert_eq!(v, "pass", "{f:#}");
        }
    }
    assert!(!doc["failed"].as_bool().unwrap());
}

#[test]
fn each_violation_fails_exactly_its_rule_with_evidence() {
    let cases = [
        (
            "capability",
            "capability",
            "declares no `resources` capability",
        ),
        ("cursor-loop", "pagination.terminates", "cursor"),
        ("unstable", "stable.connections", "demo://session/"),
        ("side-effect", "stable.after-reads", "demo://recent"),
        ("not-found-empty", "not-found", "empty `contents`"),
        ("read-uri", "read.matches-list", "demo://elsewhere"),
        ("wrong-mime", "read.mime", "read as a blob"),
        ("bad-annotations", "annotations", "priority 1.5"),
        ("bad-uris", "names-uris", "notes/relative.md"),
        ("bad-template", "templates.syntax", "demo://broken/{id"),
        (
            "no-completion",
            "templates.completion",
            "completion is refused",
        ),
        ("traversal", "traversal", "root:x:0:0"),
        ("no-cache-hints", "caching", "ttlMs"),
    ];
    for (flag, rule, evidence) in cases {
        let (code, doc) = check_demo(&["--violate", flag]);
        assert_eq!(code, 1, "--violate {flag}: {doc:#}");
        let failed: Vec<&str> = findings(&doc)
            .iter()
            .filter(|f| f["verdict"] == "fail")
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        assert_eq!(failed, [rule], "--violate {flag}");
        let f = verdict(&doc, rule);
        assert_eq!(f["level"], "must", "a failure breaks a MUST: {f:#}");
        let text = f["evidence"].to_string();
        assert!(text.contains(evidence), "--violate {flag}: {f:#}");
    }
}

/// The specification's own words grade a rule: "Invalid cursors SHOULD result in an error
/// with code -32602", so a server that answers a made-up cursor with a page passes with a
/// warning; a listed size that is not the bytes read likewise.
#[test]
fn a_broken_should_is_a_warning_not_a_failure() {
    for (flag, rule, evidence) in [
        (
            "invalid-cursor",
            "pagination.invalid-cursor",
            "the first page again",
        ),
        ("wrong-size", "read.size", "read"),
    ] {
        let (code, doc) = check_demo(&["--violate", flag]);
        assert_eq!(code, 0, "--violate {flag}: warnings exit 0: {doc:#}");
        assert!(!doc["failed"].as_bool().unwrap());
        let warned: Vec<&str> = findings(&doc)
            .iter()
            .filter(|f| f["verdict"] != "pass" && f["verdict"] != "skipped")
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        assert_eq!(warned, [rule], "--violate {flag}");
        let f = verdict(&doc, rule);
        assert_eq!(f["verdict"], "warn", "{f:#}");
        assert_eq!(f["level"], "should", "{f:#}");
        assert!(f["evidence"].to_string().contains(evidence), "{f:#}");
    }
}

#[test]
fn every_rule_has_its_level_and_the_specifications_words_in_json() {
    let (_, doc) = check_demo(&[]);
    let rules = doc["rules"].as_array().expect("rules");
    assert_eq!(rules.len(), 17);
    for r in rules {
        for era in ["2026-07-28", "legacy"] {
            let level = r["levels"][era]
                .as_str()
                .unwrap_or_else(|| panic!("{era}: {r:#}"));
            assert!(level == "must" || level == "should", "{r:#}");
        }
        assert!(r["specification"].as_str().is_some_and(|w| !w.is_empty()));
    }
    let cursor = rules
        .iter()
        .find(|r| r["id"] == "pagination.invalid-cursor")
        .unwrap();
    assert!(
        cursor["specification"]
            .as_str()
            .unwrap()
            .contains("SHOULD result in an error with code -32602"),
        "{cursor:#}"
    );
    for f in findings(&doc) {
        let rule = rules.iter().find(|r| r["id"] == f["rule"]).unwrap();
        // The demo speaks 2026-07-28: each finding carries that era's level.
        assert_eq!(f["level"], rule["levels"]["2026-07-28"], "{f:#}");
    }
}

#[test]
fn the_table_names_every_rule_and_exits_1_on_a_failure() {
    let out = mcpick(&[
        "check",
        "--name",
        "demo",
        "--",
        fixture_bin(),
        "--violate",
        "traversal",
    ]);
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    for rule in [
        "capability",
        "pagination.terminates",
        "traversal",
        "caching",
    ] {
        assert!(text.contains(rule), "{text}");
    }
    assert!(text.contains("1 fail"), "{text}");
    let row = |rule: &str| {
        text.lines()
            .find(|l| l.split_whitespace().next() == Some(rule))
            .unwrap_or_else(|| panic!("no row for {rule}: {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(row("traversal")[1..3], ["must", "fail"], "{text}");
    assert_eq!(row("pagination.invalid-cursor")[1..3], ["should", "pass"]);
}

/// server-everything (legacy era): what it does is recorded in the README. Facts asserted
/// here are the stable ones: it declares `subscribe` and honours it, its catalogue is the
/// same on every connection, and reads match the list.
#[test]
fn server_everything_verdicts() {
    let js = everything_js();
    let (_, doc, err) = mcpick_json(&["check", "--json", "--", "node", &js, "stdio"]);
    assert!(doc["servers"][0]["error"].is_null(), "{err}\n{doc:#}");
    for rule in [
        "capability",
        "capability.subscribe",
        "pagination.terminates",
        "stable.connections",
        "stable.after-reads",
        "read.matches-list",
        "names-uris",
        "templates.syntax",
    ] {
        assert_eq!(verdict(&doc, rule)["verdict"], "pass", "{rule}: {doc:#}");
    }
    assert_eq!(verdict(&doc, "caching")["verdict"], "skipped", "legacy era");
    // It answers a made-up cursor with its first page: a broken SHOULD, so a warning.
    let cursor = verdict(&doc, "pagination.invalid-cursor");
    assert_eq!(cursor["verdict"], "warn", "{cursor:#}");
    assert_eq!(cursor["level"], "should", "{cursor:#}");
    assert_eq!(
        verdict(&doc, "traversal")["verdict"],
        "skipped",
        "no file://"
    );
}

/// The Python SDK test server (2026-07-28): pages cleanly, refuses made-up cursors, reports
/// unknown URIs with -32602 and sends cache hints.
#[test]
fn python_sdk_server_verdicts() {
    let script = py_server();
    let (code, doc, err) = mcpick_json(&["check", "--json", "--", &python(), &script]);
    assert!(doc["servers"][0]["error"].is_null(), "{err}\n{doc:#}");
    for rule in [
        "pagination.terminates",
        "pagination.invalid-cursor",
        "stable.connections",
        "not-found",
        "read.matches-list",
        "annotations",
        "caching",
    ] {
        assert_eq!(verdict(&doc, rule)["verdict"], "pass", "{rule}: {doc:#}");
    }
    assert_eq!(code, 0, "{doc:#}");
}

// ---- lock / diff ----

/// The demo server as a server named `demo` in the project's mcpick.toml (which wins over
/// the set's record of it), so the set's marks and the lock name it the same way every
/// time; `flags` vary its catalogue and contents.
fn with_demo(dir: &Path, flags: &[&str]) {
    let mut all = Vec::new();
    if !flags.contains(&"--count") {
        all.extend(["--count", "40"]);
    }
    all.extend_from_slice(flags);
    let command = demo_command(&all);
    let args: Vec<String> = command[1..].iter().map(|a| format!("{a:?}")).collect();
    let toml = format!(
        "[servers.demo]\ncommand = {:?}\nargs = [{}]\n",
        command[0],
        args.join(", ")
    );
    std::fs::write(dir.join("mcpick.toml"), toml).unwrap();
    common::trust_in(dir, &[]);
}

fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    mcpick_in(dir, &[], args)
}

/// A set on the demo with the changing clock excluded and a budget that cuts the list.
fn locked_dir(budget: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    with_demo(dir.path(), &[]);
    let out = run_in(dir.path(), &["exclude", "-s", "demo", "demo://clock/now"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = run_in(
        dir.path(),
        &["policy", "--budget", budget, "--audience", "any"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = run_in(dir.path(), &["lock"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    dir
}

fn diff_json(dir: &Path) -> (i32, Value) {
    let (code, doc, err) = mcpick_json_in(dir, &[], &["diff", "--json"]);
    assert!(code == 0 || code == 1, "{code}: {err}");
    (code, doc)
}

fn kinds(doc: &Value) -> Vec<String> {
    doc["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn no_drift_right_after_lock_and_the_lock_is_stable_json() {
    let dir = locked_dir("all");
    let lock_path = dir.path().join("mcpick.context.lock.json");
    let text = std::fs::read_to_string(&lock_path).unwrap();
    let lock: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(lock["version"], 1);
    let included = lock["included"].as_array().unwrap();
    assert!(included.len() > 10, "{lock:#}");
    assert!(
        included
            .iter()
            .all(|l| l["sha256"].as_str().unwrap().len() == 64)
    );
    assert!(
        lock["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .any(|l| l["uri"] == "demo://clock/now" && l["reason"] == "excluded")
    );
    let (code, doc) = diff_json(dir.path());
    assert_eq!(code, 0, "{doc:#}");
    assert_eq!(doc["drift"], false);
    // Locking again writes the same bytes: a stable order, nothing time-dependent.
    let out = run_in(dir.path(), &["lock"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&lock_path).unwrap(), text);
    let out = run_in(dir.path(), &["diff"]);
    assert_eq!(exit_code(&out), 0);
    assert!(stdout(&out).starts_with("no drift"), "{}", stdout(&out));
}

#[test]
fn added_and_removed_resources_are_drift() {
    let dir = locked_dir("all");
    with_demo(dir.path(), &["--count", "41"]);
    let (code, doc) = diff_json(dir.path());
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(kinds(&doc), ["added"], "{doc:#}");
    with_demo(dir.path(), &["--count", "39"]);
    let (code, doc) = diff_json(dir.path());
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(kinds(&doc), ["removed"], "{doc:#}");
}

#[test]
fn contents_changes_and_moves_are_drift() {
    let dir = locked_dir("all");
    with_demo(dir.path(), &["--edit", "file:///project/README.md"]);
    let (code, doc) = diff_json(dir.path());
    assert_eq!(code, 1, "{doc:#}");
    assert_eq!(kinds(&doc), ["contentsChanged"], "{doc:#}");
    let change = &doc["changes"][0];
    assert_eq!(change["uri"], "file:///project/README.md");
    assert!(
        change["tokensNow"].as_u64() > change["tokensBefore"].as_u64(),
        "{change:#}"
    );

    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("mcpick.context.lock.json")).unwrap(),
    )
    .unwrap();
    let last = lock["included"].as_array().unwrap().last().unwrap()["uri"]
        .as_str()
        .unwrap()
        .to_string();
    with_demo(dir.path(), &["--bump", &last]);
    let (code, doc) = diff_json(dir.path());
    assert_eq!(code, 1, "{doc:#}");
    assert!(kinds(&doc).iter().all(|k| k == "moved"), "{doc:#}");
    assert!(
        doc["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["uri"] == last)
    );
    let out = run_in(dir.path(), &["diff"]);
    assert_eq!(exit_code(&out), 1);
    assert!(stdout(&out).contains("moved"), "{}", stdout(&out));
}

#[test]
fn a_resource_crossing_the_cut_line_is_drift() {
    // A budget of exactly what everything needs, then one resource grows: the last one in
    // the agent's order no longer fits.
    let dir = locked_dir("all");
    let read_lock = || -> Value {
        serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("mcpick.context.lock.json")).unwrap(),
        )
        .unwrap()
    };
    let total = read_lock()["totalTokens"].as_u64().unwrap().to_string();
    let out = run_in(dir.path(), &["policy", "--budget", &total]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = run_in(dir.path(), &["lock"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let lock = read_lock();
    assert!(
        lock["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["reason"] != "over budget")
    );
    let last = lock["included"].as_array().unwrap().last().unwrap()["uri"].clone();
    with_demo(dir.path(), &["--edit", "file:///project/README.md"]);
    let (code, doc) = diff_json(dir.path());
    assert_eq!(code, 1, "{doc:#}");
    let out_of = doc["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "crossedCut")
        .unwrap_or_else(|| panic!("{doc:#}"));
    assert_eq!(out_of["uri"], last, "{doc:#}");
    assert_eq!(out_of["into"], false);
    assert!(
        kinds(&doc).contains(&"contentsChanged".to_string()),
        "{doc:#}"
    );
    let out = run_in(dir.path(), &["diff"]);
    assert!(
        stdout(&out).contains("below the cut line"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn diff_without_a_lock_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    with_demo(dir.path(), &[]);
    // A set, so that the lock is what is missing.
    let out = run_in(dir.path(), &["policy", "--budget", "1000"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = run_in(dir.path(), &["diff"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("mcpick lock"), "{}", stderr(&out));
}

/// `--as`: the catalogue under each credential, compared with the one without it, with the
/// credential's value never shown; a credential the server refuses is said, not fatal.
#[test]
fn each_credential_lists_its_own_catalogue_with_the_value_masked() {
    let server =
        Background::fixture_http(&["--count", "5", "--private-for", "X-Role: admin-secret-42"]);
    let (code, doc, err) = mcpick_json(&[
        "check",
        "--json",
        "--url",
        &server.url,
        "--as",
        "X-Role: admin-secret-42",
        "--as",
        "X-Role: guest",
    ]);
    assert_eq!(code, 0, "{err}");
    let creds = doc["servers"][0]["credentials"]
        .as_array()
        .expect("credentials");
    assert_eq!(creds.len(), 2, "{doc}");
    assert_eq!(creds[0]["count"], 6);
    assert_eq!(
        creds[0]["onlyHere"],
        serde_json::json!(["demo://private/report"])
    );
    assert_eq!(creds[0]["missingHereCount"], 0);
    assert_eq!(creds[1]["count"], 5);
    assert_eq!(creds[1]["onlyHereCount"], 0);
    let out = mcpick(&[
        "check",
        "--url",
        &server.url,
        "--as",
        "X-Role: admin-secret-42",
    ]);
    let text = format!("{}{}{doc}", stdout(&out), stderr(&out));
    assert!(!text.contains("admin-secret-42"), "{text}");
    assert!(stdout(&out).contains("as #1 X-Role: ***: 6 resources, 1 listed only with it"));

    // A server that refuses a credential: that credential is not listed, the check goes on.
    let locked = Background::fixture_http(&[
        "--count",
        "5",
        "--require-header",
        "Authorization: Bearer good-token-1",
    ]);
    let (code, doc, err) = mcpick_json(&[
        "check",
        "--json",
        "--url",
        &locked.url,
        "-H",
        "Authorization: Bearer good-token-1",
        "--as",
        "Authorization: Bearer wrong-token-2",
    ]);
    assert_eq!(code, 0, "{err}");
    let cred = &doc["servers"][0]["credentials"][0];
    assert!(
        cred["error"].as_str().is_some_and(|e| e.contains("401")),
        "{cred}"
    );
    assert!(!doc.to_string().contains("wrong-token-2"));
}
