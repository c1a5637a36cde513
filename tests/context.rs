//! Context sets end to end: marks, policy and `mcpick preview` against the fixture server,
//! server-everything and the Python SDK server; the file's atomic save, refusal of corrupt
//! and newer files, and no environment secret in a saved set.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

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

fn included_uris(doc: &Value) -> Vec<String> {
    doc["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["uri"].as_str().unwrap().to_string())
        .collect()
}

fn reason<'a>(doc: &'a Value, uri: &str) -> Option<&'a str> {
    doc["leftOut"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["uri"] == uri)
        .and_then(|l| l["reason"].as_str())
}

/// Order and token invariants every preview must hold.
fn assert_well_formed(doc: &Value) {
    let included = doc["included"].as_array().unwrap();
    let mut total = 0;
    for pair in included.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        assert!(a["pinned"].as_bool() >= b["pinned"].as_bool(), "{a} {b}");
        if a["pinned"] == b["pinned"] {
            assert!(
                a["priority"].as_f64() >= b["priority"].as_f64(),
                "priority order: {a} then {b}"
            );
        }
    }
    for i in included {
        total += i["tokens"].as_u64().unwrap();
        assert_eq!(i["runningTotal"].as_u64().unwrap(), total);
        assert_eq!(
            i["tokensEstimated"], false,
            "everything included is read: {i}"
        );
        assert!(i["contents"].is_string());
    }
    assert_eq!(doc["totalTokens"].as_u64().unwrap(), total);
    if let (Some(budget), false) = (doc["budget"].as_u64(), doc["pinsOverBudget"] == true) {
        assert!(total <= budget);
    }
}

#[test]
fn fixture_order_audience_min_priority_and_budget_cut() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The ranking itself: everything the filters admit (`all`), no cut.
    let doc = preview(d, &["--demo", "--budget", "all"]);
    assert_well_formed(&doc);
    assert_eq!(doc["tokenizer"], "o200k_base");
    assert_eq!(doc["budget"], "all");
    let uris = included_uris(&doc);
    // Priority 1.0 first (README among them); user-only resources are out by default.
    assert_eq!(doc["included"][0]["priority"], 1.0);
    let readme = uris
        .iter()
        .position(|u| u == "file:///project/README.md")
        .unwrap();
    assert_eq!(doc["included"][readme]["priority"], 1.0);
    assert!(uris[..readme].iter().all(|u| u != "demo://notes"));
    assert_eq!(reason(&doc, "demo://assets/logo.png"), Some("audience"));
    assert_eq!(reason(&doc, "demo://notes/1"), Some("audience"));
    // Unannotated audience counts for the assistant.
    assert!(uris.contains(&"demo://notes".to_string()));

    let any = preview(
        d,
        &[
            "--demo",
            "--budget",
            "all",
            "--audience",
            "any",
            "--min-priority",
            "0.3",
        ],
    );
    assert_well_formed(&any);
    assert!(
        included_uris(&any).contains(&"demo://notes/1".to_string()),
        "no priority = 0.5"
    );
    assert_eq!(
        reason(&any, "demo://assets/logo.png"),
        Some("under minimum priority")
    );
    assert_eq!(
        reason(&any, "demo://search?q=budget"),
        Some("under minimum priority")
    );

    let cut = preview(d, &["--demo", "--budget", "1500"]);
    assert_well_formed(&cut);
    assert!(cut["totalTokens"].as_u64().unwrap() <= 1500);
    let over: Vec<&Value> = cut["leftOut"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["reason"] == "over budget")
        .collect();
    assert!(!over.is_empty());
    // The cut line: included is a prefix of the uncut order.
    let full = included_uris(&doc);
    let part = included_uris(&cut);
    assert_eq!(&full[..part.len()], &part[..]);
    assert_eq!(over[0]["uri"].as_str().unwrap(), full[part.len()]);

    // Markdown and XML carry the same figures and the tokenizer note.
    let md = ok(d, &["preview", "--demo", "--budget", "1500"]);
    assert!(md.contains("cut line"), "{md}");
    assert!(md.contains("estimates of the host model's tokenizer"));
    // Figures for people carry thousands separators.
    let used = thousands(cut["totalTokens"].as_u64().unwrap());
    assert!(md.contains(&format!("{used} tokens used")), "{md}");
    let xml = ok(
        d,
        &["preview", "--demo", "--budget", "1500", "--format", "xml"],
    );
    assert!(xml.starts_with("<context tokenizer=\"o200k_base\""));
    assert!(!xml.contains('\u{1b}'));
}

/// Issue 45's demo case: a person who pinned one file and set no budget hands over that
/// file, and `preview` says why the rest is left out, sums it up and says the rule.
#[test]
fn one_pin_and_no_budget_is_that_one_resource() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["pin", "--demo", "file:///project/README.md"]);
    let doc = preview(d, &[]);
    assert_eq!(included_uris(&doc), ["file:///project/README.md"]);
    assert_eq!(doc["budget"], Value::Null);
    assert_eq!(
        reason(&doc, "file:///project/docs/architecture.md"),
        Some("not pinned (no budget set)")
    );
    let left = doc["leftOut"].as_array().unwrap();
    assert!(left.len() > 100, "{}", left.len());
    // Neither the ranking nor the audience filter decides what is left: nothing unpinned is in.
    assert!(
        left.iter()
            .all(|l| ["not pinned (no budget set)", "audience"]
                .contains(&l["reason"].as_str().unwrap())),
        "{doc}"
    );

    // The summary `preview` ends with, and the rule it rests on.
    let out = run(d, &["preview"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("summary: 1 resource included, "), "{err}");
    assert!(err.contains("tokens, no budget set"), "{err}");
    let not_pinned = left
        .iter()
        .filter(|l| l["reason"] == "not pinned (no budget set)")
        .count();
    assert!(
        err.contains(&format!("{not_pinned} not pinned (no budget set)")),
        "{err}"
    );
    assert!(
        err.contains("no budget set: only pinned resources are delivered; `mcpick policy --budget N` adds the rest, ranked, up to N tokens; `--budget all` adds everything"),
        "{err}"
    );
    let md = stdout(&out);
    assert!(md.contains("no budget set (pinned resources only)"), "{md}");

    // `--budget all`: everything the filters admit, the pin first; stored as "all".
    ok(d, &["policy", "--budget", "all"]);
    let text = std::fs::read_to_string(d.join("mcpick.context.json")).unwrap();
    assert!(text.contains("\"budget\": \"all\""), "{text}");
    let all = preview(d, &[]);
    assert_eq!(all["included"][0]["uri"], "file:///project/README.md");
    assert!(all["included"].as_array().unwrap().len() > 100);
    assert!(
        all["leftOut"]
            .as_array()
            .unwrap()
            .iter()
            .all(|l| l["reason"] == "audience"),
        "{all}"
    );
    let policy = ok(d, &["policy"]);
    assert!(policy.contains("budget all (no limit)"), "{policy}");
    // And unset again: the pin only.
    ok(d, &["policy", "--no-budget"]);
    assert_eq!(
        included_uris(&preview(d, &[])),
        ["file:///project/README.md"]
    );
}

/// Nothing pinned, no budget: an empty set, said plainly, not an error.
#[test]
fn nothing_pinned_and_no_budget_is_an_empty_set_said_plainly() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["preview", "--demo"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("summary: 0 resources included"), "{err}");
    assert!(
        err.contains("nothing is pinned and no budget is set: the set is empty"),
        "{err}"
    );
}

#[test]
fn marks_pin_exclude_and_the_saved_set_agree_with_preview() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &[
            "pin",
            "--demo",
            "demo://assets/logo.png",
            "file:///project/docs/guides/*",
        ],
    );
    // The set's lock is gone after use: nothing but the set sits beside it (issue 45).
    let beside: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(beside, ["mcpick.context.json"], "after pin");
    ok(d, &["exclude", "--demo", "file:///project/README.md"]);
    ok(d, &["policy", "--budget", "4000"]);
    assert!(!d.join(".mcpick.context.json.lock").exists());
    // An unknown exact URI is refused and not recorded.
    let out = run(d, &["pin", "--demo", "demo://no/such"]);
    assert_eq!(exit_code(&out), 3, "{}", stderr(&out));
    let text = std::fs::read_to_string(d.join("mcpick.context.json")).unwrap();
    assert!(!text.contains("demo://no/such"));
    assert!(text.contains("\"command\": \"mcpick\""), "{text}");

    // The set names its server: no server flag needed.
    let doc = preview(d, &[]);
    assert_well_formed(&doc);
    let uris = included_uris(&doc);
    assert!(
        uris.contains(&"demo://assets/logo.png".to_string()),
        "pinned beats audience"
    );
    assert_eq!(reason(&doc, "file:///project/README.md"), Some("excluded"));
    assert_eq!(doc["budget"], 4000);
    assert!(doc["included"][0]["pinned"] == true);

    let (code, marks, _) = mcpick_json_in(d, &[], &["marks", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(marks["marks"].as_array().unwrap().len(), 3);
    ok(d, &["unmark", "file:///project/README.md"]);
    let out = run(d, &["unmark", "file:///project/README.md"]);
    assert_eq!(exit_code(&out), 3);
    let doc = preview(d, &[]);
    assert_ne!(reason(&doc, "file:///project/README.md"), Some("excluded"));
}

#[test]
fn a_prefix_mark_catches_resources_that_appear_later_and_missing_marks_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let bin = mcpick_bin();
    let small = ["--name", "demo", "--", bin, "demo-server", "--count", "40"];
    let big = ["--name", "demo", "--", bin, "demo-server", "--count", "300"];
    let mut args = vec!["pin", "file:///project/src/*"];
    args.extend_from_slice(&small);
    ok(d, &args);
    // Not `file:///project/gone.md`: the demo's template `file:///project/{path}` produces
    // that (an expansion, not a missing mark); `{path}` takes no `/`.
    let mut args = vec!["pin", "--allow-missing", "file:///project/old/gone.md"];
    args.extend_from_slice(&small);
    let out = run(d, &args);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("missing"), "{}", stderr(&out));

    let pinned = |doc: &Value| -> Vec<String> {
        doc["included"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["pinned"] == true)
            .map(|i| i["uri"].as_str().unwrap().to_string())
            .collect()
    };
    let before = preview(d, &small);
    let after = preview(d, &big);
    assert_well_formed(&after);
    let (b, a) = (pinned(&before), pinned(&after));
    assert!(a.len() > b.len(), "{} then {}", b.len(), a.len());
    assert!(a.iter().all(|u| u.starts_with("file:///project/src/")));
    for doc in [&before, &after] {
        let missing = doc["missing"].as_array().unwrap();
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert_eq!(missing[0]["uri"], "file:///project/old/gone.md");
    }
    // Still in the file after another change.
    ok(d, &["policy", "--budget", "100000"]);
    let text = std::fs::read_to_string(d.join("mcpick.context.json")).unwrap();
    assert!(text.contains("file:///project/old/gone.md"));
    let listed = ok(d, &{
        let mut a = vec!["marks", "--check"];
        a.extend_from_slice(&small);
        a
    });
    assert!(listed.contains("gone.md  (missing"), "{listed}");
}

#[test]
fn corrupt_and_newer_files_are_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (name, text) in [
        ("corrupt.json", "{\"version\": 1, \"marks\": [ oops"),
        ("newer.json", "{\"version\": 99, \"future\": true}\n"),
        (
            "wrong.json",
            "{\"version\": 1, \"marks\": [{\"server\": \"demo\", \"mark\": \"pin\"}]}",
        ),
    ] {
        let path = d.join(name);
        std::fs::write(&path, text).unwrap();
        for args in [
            vec![
                "pin",
                "--server",
                "demo",
                "--allow-missing",
                "x://y",
                "--set",
                name,
            ],
            vec!["policy", "--budget", "5", "--set", name],
            vec!["unmark", "x://y", "--set", name],
            vec!["preview", "--demo", "--set", name],
        ] {
            let out = run(d, &args);
            assert_eq!(exit_code(&out), 2, "{args:?}");
            let err = stderr(&out);
            assert!(err.contains(name), "{err}");
            if name == "newer.json" {
                assert!(err.contains("newer mcpick"), "{err}");
            }
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }
}

#[test]
fn a_killed_save_leaves_the_old_or_the_new_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["pin", "--demo", "file:///project/*"]);
    let path = d.join("mcpick.context.json");
    let mut seen_new = 0;
    for i in 0..40u64 {
        let mut child = Command::new(mcpick_bin())
            .args(["policy", "--budget", &(1000 + i).to_string()])
            .current_dir(d)
            .env("HOME", isolated_home())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_micros(500 * (i % 12)));
        // SAFETY: sends a signal to our own child.
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        let _ = child.wait();
        let text = std::fs::read_to_string(&path).unwrap();
        let doc: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("broken file after a kill ({e}): {text}"));
        assert_eq!(doc["version"], 1);
        assert_eq!(doc["marks"].as_array().unwrap().len(), 1);
        if doc["policy"]["budget"] == 1000 + i {
            seen_new += 1;
        }
    }
    let leftovers: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n != "mcpick.context.json" && n != ".mcpick.context.json.lock" && !n.ends_with(".tmp")
        })
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    eprintln!("{seen_new} of 40 saves completed before the kill");
}

#[test]
fn no_environment_secret_in_a_saved_set() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("mcpick.toml"),
        format!(
            "[servers.fixture]\ncommand = \"{}\"\nargs = [\"demo-server\", \"--count\", \"${{COUNT:-50}}\"]\n\
             env = {{ API_TOKEN = \"${{SECRET_TOKEN}}\", LITERAL = \"hunter2-literal-value\" }}\n",
            mcpick_bin()
        ),
    )
    .unwrap();
    let env = [("SECRET_TOKEN", "s3cr3t-from-env-0123456789")];
    trust_in(d, &env);
    let out = mcpick_in(
        d,
        &env,
        &["pin", "--server", "fixture", "file:///project/README.md"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = std::fs::read_to_string(d.join("mcpick.context.json")).unwrap();
    assert!(text.contains("${SECRET_TOKEN}"), "{text}");
    assert!(text.contains("${COUNT:-50}"), "{text}");
    assert!(!text.contains("s3cr3t"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    // The set works through the config definition (which has the secret).
    let (code, doc, err) = mcpick_json_in(d, &env, &["preview", "--format", "json"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["included"][0]["uri"], "file:///project/README.md");
    assert_eq!(doc["included"][0]["pinned"], true);
}

#[test]
fn server_everything_and_the_python_server_preview() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let js = everything_js();
    let doc = preview(
        d,
        &[
            "--audience",
            "any",
            "--budget",
            "all",
            "--",
            "node",
            &js,
            "stdio",
        ],
    );
    assert_well_formed(&doc);
    assert!(doc["included"].as_array().unwrap().len() > 1, "{doc}");
    let budget = preview(
        d,
        &[
            "--audience",
            "any",
            "--budget",
            "300",
            "--",
            "node",
            &js,
            "stdio",
        ],
    );
    assert_well_formed(&budget);
    assert!(budget["totalTokens"].as_u64().unwrap() <= 300);

    let py = python();
    let script = py_server();
    let doc = preview(
        d,
        &["--audience", "any", "--budget", "all", "--", &py, &script],
    );
    assert_well_formed(&doc);
    assert!(!doc["included"].as_array().unwrap().is_empty(), "{doc}");
    // Pin the last-ranked resource: it moves to the top.
    let last = included_uris(&doc).pop().unwrap();
    ok(d, &["pin", &last, "--", &py, &script]);
    let doc = preview(
        d,
        &["--audience", "any", "--budget", "all", "--", &py, &script],
    );
    assert_eq!(included_uris(&doc)[0], last);
}
