//! Template expansions in context sets, end to end: `pin` records a URI a server's template
//! produces although it is not listed; `preview`, `export`, `lock`, `marks --check` and
//! `serve` treat it as a resource of that server (`serve`: in tests/serve.rs, with its
//! client helpers). Against the fixture server (template
//! `demo://notes/{id}`; note 5 exists only through it) and server-everything (template
//! `demo://resource/dynamic/text/{resourceId}`).

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

const NOTE: &str = "demo://notes/5";
const NOTE_TEMPLATE: &str = "demo://notes/{id}";

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    mcpick_in(dir, &[], args)
}

fn ok(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = run(dir, args);
    assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
    out
}

fn included<'a>(doc: &'a Value, uri: &str) -> Option<&'a Value> {
    doc["included"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["uri"] == uri)
}

fn set_text(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("mcpick.context.json")).unwrap_or_default()
}

#[test]
fn a_pinned_expansion_is_recorded_previewed_exported_locked_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Not listed, so this is the template's doing.
    let (_, listing, _) = mcpick_json_in(d, &[], &["ls", "--demo", "--json"]);
    assert!(!uris(&listing).contains(&NOTE.to_string()));

    let out = ok(d, &["pin", "--demo", NOTE]);
    assert!(
        stderr(&out).contains(NOTE_TEMPLATE),
        "the note names the template: {}",
        stderr(&out)
    );
    assert!(set_text(d).contains(NOTE), "{}", set_text(d));

    let doc = preview(d, &[]);
    let entry = included(&doc, NOTE).unwrap_or_else(|| panic!("{NOTE} included: {doc:#}"));
    assert_eq!(entry["pinned"], true);
    assert_eq!(entry["expansionOf"], NOTE_TEMPLATE);
    assert_eq!(entry["tokensEstimated"], false, "it was read and counted");
    assert!(entry["tokens"].as_u64().unwrap() > 10, "{entry}");
    assert!(
        entry["contents"].as_str().unwrap().contains("# Note 5"),
        "{entry}"
    );
    assert!(doc["missing"].as_array().unwrap().is_empty(), "{doc:#}");
    // Listed resources carry no expansionOf.
    assert!(
        doc["included"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["uri"] != NOTE)
            .all(|i| i.get("expansionOf").is_none())
    );

    let markdown = stdout(&ok(d, &["preview"]));
    assert!(
        markdown.contains(&format!("expansion of `{NOTE_TEMPLATE}`")),
        "{markdown}"
    );
    let xml = stdout(&ok(d, &["preview", "--format", "xml"]));
    assert!(
        xml.contains(&format!("expansionOf=\"{NOTE_TEMPLATE}\"")),
        "{xml}"
    );

    let bundle = ok(d, &["export"]);
    assert!(stdout(&bundle).contains("# Note 5"), "{}", stdout(&bundle));

    // The clock changes on every read; without it the lock is stable.
    ok(d, &["exclude", "--demo", "demo://clock/now"]);
    ok(d, &["lock"]);
    let lock = std::fs::read_to_string(d.join("mcpick.context.lock.json")).unwrap();
    assert!(lock.contains(NOTE), "{lock}");
    ok(d, &["diff"]);

    let out = ok(d, &["marks", "--check"]);
    let text = stdout(&out);
    let line = text.lines().find(|l| l.contains(NOTE)).unwrap();
    assert!(
        line.contains(&format!("template expansion of {NOTE_TEMPLATE}")),
        "{text}"
    );
    assert!(!line.contains("missing"), "{text}");
    let (code, marks, err) = mcpick_json_in(d, &[], &["marks", "--check", "--json"]);
    assert_eq!(code, 0, "{err}");
    let mark = marks["marks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["uri"] == NOTE)
        .unwrap();
    assert_eq!(mark["expansionOf"], NOTE_TEMPLATE, "{marks:#}");
    assert_eq!(mark["missing"], false, "{marks:#}");
    assert_eq!(mark["resources"], 1, "{marks:#}");
}

#[test]
fn a_uri_no_template_produces_is_still_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // `demo://notes/{id}` takes no `/`: a second segment is not an expansion.
    for uri in ["demo://nothing/5", "demo://notes/5/extra"] {
        let out = run(d, &["pin", "--demo", uri]);
        assert_eq!(exit_code(&out), 3, "{uri}: {}", stderr(&out));
        assert!(stderr(&out).contains("--allow-missing"), "{}", stderr(&out));
        assert!(!set_text(d).contains(uri), "{}", set_text(d));
    }
    // With --allow-missing it is recorded and still reported missing, not as an expansion.
    ok(d, &["pin", "--demo", "--allow-missing", "demo://nothing/5"]);
    let out = ok(d, &["marks", "--check"]);
    assert!(stdout(&out).contains("missing"), "{}", stdout(&out));
    assert!(!stdout(&out).contains("template expansion"));
}

#[test]
fn server_everything_expansions_are_pinned_and_previewed() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let js = everything_js();
    let uri = "demo://resource/dynamic/text/42";
    let server = ["--", "node", js.as_str(), "stdio"];
    let out = ok(d, &[&["pin", uri][..], &server[..]].concat());
    assert!(
        stderr(&out).contains("demo://resource/dynamic/text/{resourceId}"),
        "{}",
        stderr(&out)
    );
    let doc = preview(d, &server);
    let entry = included(&doc, uri).unwrap_or_else(|| panic!("{uri} included: {doc:#}"));
    assert_eq!(
        entry["expansionOf"],
        "demo://resource/dynamic/text/{resourceId}"
    );
    assert_eq!(entry["tokensEstimated"], false);
    assert!(entry["tokens"].as_u64().unwrap() > 0);
    assert!(
        entry["contents"].as_str().unwrap().contains("Resource 42"),
        "{entry}"
    );
}
