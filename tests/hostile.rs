//! One bad entry costs one entry: mcpick against the test fixture's `--hostile`, whose first
//! `resources/list` page mixes valid resources with one entry per malformed field, entries
//! without a usable URI and a duplicate URI (and whose templates and reads are spoiled too).

mod common;

use common::*;
use serde_json::{Value, json};

/// 250 resources in pages of 100: the malformed entries follow the 100 valid ones of page 1.
const DEMO: &[&str] = &["--count", "250", "--page-size", "100"];

/// `COMMAND -- mcpick demo-server DEMO`, or the fixture with `--hostile` too.
fn args<'a>(command: &[&'a str], hostile: bool) -> Vec<&'a str> {
    let mut all = command.to_vec();
    all.extend(["--name", "fixture", "--"]);
    let mut demo = DEMO.to_vec();
    if hostile {
        demo.push("--hostile");
    }
    all.extend(demo_command(&demo));
    all
}

fn ls_json(hostile: bool, extra: &[&str]) -> (Value, String) {
    let mut command = vec!["ls", "--json"];
    command.extend(extra);
    let (code, doc, err) = mcpick_json(&args(&command, hostile));
    assert_eq!(code, 0, "{err}");
    (doc, err)
}

fn resources(doc: &Value) -> &Vec<Value> {
    doc["resources"].as_array().unwrap()
}

fn resource<'a>(doc: &'a Value, uri: &str) -> &'a Value {
    resources(doc)
        .iter()
        .find(|r| r["uri"] == uri)
        .unwrap_or_else(|| panic!("{uri} is not listed"))
}

/// The (index, uri, field, effect) of each warning.
fn warning_keys(server: &Value) -> Vec<(u64, Value, Value, String)> {
    server["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["index"].as_u64().unwrap(),
                w["uri"].clone(),
                w["field"].clone(),
                w["effect"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_hostile_page_lists_every_valid_entry_and_reports_each_bad_one() {
    let (doc, err) = ls_json(true, &[]);
    let server = &doc["servers"][0];
    assert!(server["error"].is_null(), "{err}");
    // 250 valid, 11 malformed but usable; 2 without a URI and 1 duplicate are skipped.
    assert_eq!(resources(&doc).len(), 261);
    assert_eq!(server["resourceCount"], 261, "counts agree");
    assert_eq!(server["warningCount"], 14);

    let first = resources(&doc)[0]["uri"].clone();
    let h = |path: &str| json!(format!("demo://hostile/{path}"));
    let expected = vec![
        (
            100,
            h("escape"),
            json!("annotations.priority"),
            "field-dropped",
        ),
        (
            101,
            h("priority"),
            json!("annotations.priority"),
            "field-dropped",
        ),
        (
            102,
            h("audience"),
            json!("annotations.audience"),
            "field-dropped",
        ),
        (103, h("annotations"), json!("annotations"), "field-dropped"),
        (104, h("size"), json!("size"), "field-dropped"),
        (
            105,
            h("last-modified"),
            json!("annotations.lastModified"),
            "field-dropped",
        ),
        (106, h("mime-type"), json!("mimeType"), "field-dropped"),
        (107, h("title"), json!("title"), "field-dropped"),
        (108, h("description"), json!("description"), "field-dropped"),
        (109, h("no-name.txt"), json!("name"), "name-derived"),
        (110, h("numeric-name"), json!("name"), "name-derived"),
        (111, Value::Null, json!("uri"), "entry-skipped"),
        (112, Value::Null, json!("uri"), "entry-skipped"),
        (113, first.clone(), json!("uri"), "entry-skipped"),
    ];
    let expected: Vec<_> = expected
        .into_iter()
        .map(|(i, u, f, e)| (i, u, f, e.to_string()))
        .collect();
    assert_eq!(warning_keys(server), expected);
    for w in server["warnings"].as_array().unwrap() {
        assert_eq!(
            (&w["method"], &w["page"]),
            (&json!("resources/list"), &json!(1))
        );
        assert!(w["problem"].as_str().is_some_and(|p| !p.is_empty()));
    }
    let problem = |i: usize| server["warnings"][i]["problem"].as_str().unwrap();
    assert_eq!(problem(1), "is a string (\"high\"), not a number");
    assert_eq!(problem(12), "is a number (12345), not a string");
    // Server text in a warning is cleaned: the escape sequences are gone, the word stays.
    assert_eq!(problem(0), "is a string (\"high\"), not a number");

    // Kept entries lose the bad field only.
    let priority = resource(&doc, "demo://hostile/priority");
    assert_eq!(priority["annotations"]["priority"], Value::Null);
    assert_eq!(priority["annotations"]["audience"], json!(["user"]));
    let audience = resource(&doc, "demo://hostile/audience");
    assert_eq!(audience["annotations"]["audience"], Value::Null);
    assert_eq!(audience["annotations"]["priority"], json!(0.5));
    assert_eq!(
        resource(&doc, "demo://hostile/annotations")["annotations"],
        Value::Null
    );
    assert_eq!(resource(&doc, "demo://hostile/size")["size"], Value::Null);
    assert_eq!(
        resource(&doc, "demo://hostile/mime-type")["mimeType"],
        Value::Null
    );
    assert_eq!(resource(&doc, "demo://hostile/title")["title"], Value::Null);
    assert_eq!(resource(&doc, "demo://hostile/title")["name"], "title");
    assert_eq!(
        resource(&doc, "demo://hostile/no-name.txt")["name"],
        "no-name.txt"
    );
    assert_eq!(
        resource(&doc, "demo://hostile/numeric-name")["name"],
        "numeric-name"
    );

    // The duplicate is reported, not merged: the first entry stands, once.
    let listed_first: Vec<_> = resources(&doc)
        .iter()
        .filter(|r| r["uri"] == first)
        .collect();
    assert_eq!(listed_first.len(), 1);
    assert_ne!(listed_first[0]["name"], "duplicate");

    // Every valid resource is exactly what the well-behaved server lists.
    let (normal, _) = ls_json(false, &[]);
    let valid: Vec<&Value> = resources(&doc)
        .iter()
        .filter(|r| !r["uri"].as_str().unwrap().starts_with("demo://hostile/"))
        .collect();
    let normal: Vec<&Value> = resources(&normal).iter().collect();
    assert_eq!(valid, normal);

    assert!(
        err.contains("server `fixture`: 14 warnings about malformed or duplicate entries"),
        "{err}"
    );
    assert!(err.contains("servers[].warnings"), "{err}");
}

#[test]
fn a_well_behaved_server_lists_as_before_with_no_warnings() {
    let (doc, err) = ls_json(false, &[]);
    let server = &doc["servers"][0];
    assert_eq!(server["warnings"], json!([]));
    assert_eq!(server["warningCount"], 0);
    assert!(!err.contains("warning"), "{err}");
    // Exactly the demo catalogue, field for field, in the server's order.
    let expected: Vec<Value> = mcpick::demo::demo_resources(250)
        .into_iter()
        .map(|r| {
            let entry = mcpick::catalog::ResourceEntry::new("fixture".into(), r);
            serde_json::to_value(entry).unwrap()
        })
        .collect();
    assert_eq!(resources(&doc), &expected);
    assert_eq!(server["resourceCount"], 250);
}

#[test]
fn the_table_counts_what_the_json_lists_and_stderr_names_the_first_problems() {
    let out = mcpick(&args(&["ls"], true));
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let (table, err) = (stdout(&out), stderr(&out));
    assert!(
        table.starts_with("# fixture (stdio, protocol 2026-07-28): 261 resources\n"),
        "{table}"
    );
    // The count line, a blank line, the column heads, then one row per resource counted.
    assert_eq!(table.lines().count(), 3 + 261, "{table}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines.len(),
        6,
        "five warnings in detail, then the count: {err}"
    );
    assert_eq!(
        lines[0],
        "mcpick: warning: server `fixture`: resources/list page 1, entry 100 (demo://hostile/escape): `annotations.priority` is a string (\"high\"), not a number; field dropped",
        "the server's escape sequences are gone"
    );
    assert!(lines[5].contains("14 warnings"), "{err}");
    for stream in [&out.stdout, &out.stderr] {
        assert!(
            !stream.iter().any(|&b| b == 0x1b || b == 0x07),
            "no raw escape reaches the terminal"
        );
        assert!(!String::from_utf8_lossy(stream).contains('\u{9b}'));
    }
}

#[test]
fn bad_templates_cost_only_themselves() {
    let (doc, _) = ls_json(true, &["--templates"]);
    let server = &doc["servers"][0];
    let names: Vec<&str> = doc["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["project-file", "note", "demo://hostile/{id}", "bad-mime"]
    );
    assert_eq!(server["templateCount"], 4);
    assert_eq!(server["warningCount"], 14 + 4);
    let templates: Vec<_> = server["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|w| w["method"] == "resources/templates/list")
        .map(|w| {
            (
                w["index"].as_u64().unwrap(),
                w["field"].clone(),
                w["effect"].clone(),
            )
        })
        .collect();
    assert_eq!(
        templates,
        [
            (2, json!("uriTemplate"), json!("entry-skipped")),
            (3, json!("uriTemplate"), json!("entry-skipped")),
            (4, json!("name"), json!("name-derived")),
            (5, json!("mimeType"), json!("field-dropped")),
        ]
    );
}

#[test]
fn a_bad_contents_item_costs_that_item() {
    for uri in ["file:///project/README.md", "demo://assets/logo.png"] {
        let read = |hostile| {
            let out = mcpick(&args(&["read", "--json", uri], hostile));
            assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
            let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
            (doc, stderr(&out))
        };
        let (normal, quiet) = read(false);
        let (hostile, err) = read(true);
        assert_eq!(hostile, normal, "the valid item is kept as it is");
        assert!(!quiet.contains("warning"), "{quiet}");
        let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
        assert_eq!(warnings.len(), 3, "{err}");
        assert!(
            warnings[0].ends_with(
                "resources/read entry 1: `uri` is a number (5), not a string; entry skipped"
            ),
            "{err}"
        );
        assert!(
            warnings[1].contains(&format!("entry 2 ({uri}): `text` is a number (42)")),
            "{err}"
        );
        assert!(
            warnings[2].contains("has neither `text` nor `blob`"),
            "{err}"
        );
    }
}

#[test]
fn preview_says_how_many_entries_were_malformed() {
    let dir = tempfile::tempdir().unwrap();
    let mut all = vec!["preview", "--format", "json", "--budget", "2000"];
    all.extend(["--name", "fixture", "--", fixture_bin()]);
    all.extend(DEMO);
    all.push("--hostile");
    let (code, doc, err) = mcpick_json_in(dir.path(), &[], &all);
    assert_eq!(code, 0, "{err}");
    assert!(!doc["included"].as_array().unwrap().is_empty());
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
    assert_eq!(lines.len(), 1, "one line, not one per entry: {err}");
    assert!(lines[0].contains("server `fixture`: 14 warnings"), "{err}");
    assert!(lines[0].contains("mcpick ls --json"), "{err}");
}

/// A server that answers every read with an extra contents part under an excluded URI
/// (the fixture's `--smuggle`): the excluded text reaches no agent, through `preview`,
/// `export`, or `serve`'s read, prompt and tool; each drop is said, naming the URI; the
/// requested part itself is kept.
#[test]
fn no_excluded_text_rides_inside_another_resources_read() {
    const SECRET: &str = "file:///project/docs/secret-plan.md";
    const README: &str = "file:///project/README.md";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let upstream = [
        "--name",
        "demo",
        "--",
        fixture_bin(),
        "--count",
        "20",
        "--smuggle",
        SECRET,
    ];
    let ok = |args: &[&str]| {
        let out = mcpick_in(d, &[], args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        (stdout(&out), stderr(&out))
    };
    ok(&[&["pin", README][..], &upstream[..]].concat());
    ok(&[&["exclude", "file:///project/docs/*"][..], &upstream[..]].concat());
    ok(&["policy", "--budget", "4000"]);
    let dropped = format!("dropped a contents part under `{SECRET}`");

    let (json, err) = ok(&["preview", "--format", "json"]);
    assert!(!json.contains("SMUGGLED"), "{json}");
    assert!(err.contains(&dropped), "{err}");
    let doc: Value = serde_json::from_str(&json).unwrap();
    let readme = doc["included"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["uri"] == README)
        .expect("README included");
    assert!(
        readme["contents"]
            .as_str()
            .unwrap()
            .contains("# Demo project"),
        "the requested part stays: {readme}"
    );
    for format in ["markdown", "xml", "json"] {
        let (bundle, err) = ok(&["export", "--format", format]);
        assert!(!bundle.contains("SMUGGLED"), "export {format}: {bundle}");
        assert!(
            bundle.contains("# Demo project"),
            "export {format}: {bundle}"
        );
        assert!(err.contains(&dropped), "export {format}: {err}");
    }

    let mut rpc = rpc::Rpc::start(mcpick_bin(), &["serve", "--set", "mcpick.context.json"], d);
    let read = rpc.request("resources/read", json!({ "uri": README }));
    let parts = read["result"]["contents"]
        .as_array()
        .unwrap_or_else(|| panic!("{read}"));
    assert!(!parts.is_empty(), "{read}");
    assert!(parts.iter().all(|p| p["uri"] == README), "{read}");
    assert!(
        parts[0]["text"]
            .as_str()
            .unwrap()
            .contains("# Demo project")
    );
    let prompt = rpc.request("prompts/get", json!({ "name": "context" }));
    assert!(prompt.get("result").is_some(), "{prompt}");
    assert!(!prompt.to_string().contains("SMUGGLED"), "{prompt}");
    assert!(!prompt.to_string().contains(SECRET), "{prompt}");
    let tool = rpc.request("tools/call", json!({ "name": "context", "arguments": {} }));
    assert!(tool.get("result").is_some(), "{tool}");
    assert!(!tool.to_string().contains("SMUGGLED"), "{tool}");
    assert!(tool.to_string().contains("# Demo project"), "{tool}");
    let log = rpc.finish();
    assert!(log.contains(&dropped), "serve's log: {log}");
}
