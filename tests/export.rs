//! `mcpick export`: the bundle is exactly what `preview` includes (contents and order, no
//! diagnostics), the OSC 52 sequence written to a pseudo-terminal decodes to the bundle, and
//! mentions parse back to the included URIs.

mod common;

use std::path::Path;
use std::process::Command;

use base64::Engine;
use common::*;
use serde_json::Value;

/// A project whose set pins README, excludes the docs and cuts at 3000 tokens, so that the
/// preview has included, left-out and cut resources.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let upstream = ["--name", "demo", "--", mcpick_bin(), "demo-server"];
    for args in [
        [&["pin", "file:///project/README.md"][..], &upstream[..]].concat(),
        [&["exclude", "file:///project/docs/*"][..], &upstream[..]].concat(),
        vec!["policy", "--budget", "3000"],
    ] {
        let out = mcpick_in(dir.path(), &[], &args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
    }
    dir
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = mcpick_in(dir, &[], args);
    assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn the_bundle_is_what_preview_includes_without_diagnostics() {
    let dir = project();
    let preview: Value =
        serde_json::from_str(&ok(dir.path(), &["preview", "--format", "json"])).unwrap();
    let bundle: Value =
        serde_json::from_str(&ok(dir.path(), &["export", "--format", "json"])).unwrap();
    assert!(
        !preview["leftOut"].as_array().unwrap().is_empty(),
        "the fixture leaves something out"
    );
    assert_eq!(
        bundle["included"], preview["included"],
        "same resources, order, contents"
    );
    assert!(bundle["included"].as_array().unwrap().len() >= 2);
    assert!(bundle["included"][0]["contents"].as_str().is_some());
    assert_eq!(bundle["leftOut"], serde_json::json!([]));
    assert_eq!(bundle["missing"], serde_json::json!([]));

    let markdown = ok(dir.path(), &["export"]);
    let preview_md = ok(dir.path(), &["preview"]);
    assert!(preview_md.contains("## Left out") && preview_md.contains("---- cut line:"));
    assert!(
        !markdown.contains("\n## Left out\n") && !markdown.contains("---- cut line:"),
        "{markdown}"
    );
    for included in bundle["included"].as_array().unwrap() {
        assert!(markdown.contains(included["contents"].as_str().unwrap().trim()));
    }
    let xml = ok(dir.path(), &["export", "--format", "xml"]);
    assert!(
        xml.starts_with("<context") && !xml.contains("<leftOut>"),
        "{xml}"
    );

    // -o writes the same bundle, and says what it wrote.
    let out = mcpick_in(dir.path(), &[], &["export", "-o", "bundle.md"]);
    assert_eq!(exit_code(&out), 0);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("bundle.md")).unwrap(),
        markdown
    );
    let count = bundle["included"].as_array().unwrap().len();
    assert!(
        stderr(&out).contains(&format!("{count} resources")),
        "{}",
        stderr(&out)
    );
}

/// Mentions name the server as the host knows it after `install` (the served entry's name,
/// `mcpick` unless `--as`), and each resource by the URI `serve` publishes.
#[test]
fn mentions_name_the_served_entry_and_the_included_uris() {
    let dir = project();
    let bundle: Value =
        serde_json::from_str(&ok(dir.path(), &["export", "--format", "json"])).unwrap();
    let wanted: Vec<String> = bundle["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["uri"].as_str().unwrap().into())
        .collect();
    assert!(!wanted.is_empty());
    for (args, name) in [
        (&[][..], "mcpick"),
        (&["--as", "team-context"][..], "team-context"),
    ] {
        let mentions = ok(dir.path(), &[&["export", "--mentions"][..], args].concat());
        let parsed: Vec<(String, String)> = mentions
            .lines()
            .map(|l| {
                let (server, uri) = l.strip_prefix('@').unwrap().split_once(':').unwrap();
                (server.to_string(), uri.to_string())
            })
            .collect();
        assert!(parsed.iter().all(|(s, _)| s == name), "{mentions}");
        let uris: Vec<String> = parsed.into_iter().map(|(_, u)| u).collect();
        assert_eq!(uris, wanted);
    }
}

#[test]
fn clipboard_is_refused_when_stdout_is_not_a_terminal() {
    let dir = project();
    let out = mcpick_in(dir.path(), &[], &["export", "--clipboard"]);
    assert_eq!(exit_code(&out), 2);
    assert!(out.stdout.is_empty(), "no escape sequence into the pipe");
    assert!(stderr(&out).contains("not a terminal"), "{}", stderr(&out));
}

/// Runs `mcpick export --clipboard` with stdout on a pseudo-terminal; returns what the
/// terminal received and stderr.
fn on_a_terminal(dir: &Path, tmux: bool) -> (Vec<u8>, String) {
    let script = r#"
import os, pty, subprocess, sys
master, slave = pty.openpty()
env = dict(os.environ)
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE, env=env)
os.close(slave)
out = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
err = p.stderr.read()
p.wait()
sys.stdout.buffer.write(out)
sys.stderr.buffer.write(err)
sys.exit(p.returncode)
"#;
    let home = isolated_home();
    let mut command = Command::new("python3");
    command
        .args(["-c", script, mcpick_bin(), "export", "--clipboard"])
        .current_dir(dir)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
    if tmux {
        command.env("TMUX", "/tmp/tmux-0/default,1234,0");
    } else {
        command.env_remove("TMUX");
    }
    let out = command.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn osc52_on_a_terminal_decodes_to_the_bundle() {
    let dir = project();
    let bundle = ok(dir.path(), &["export"]);
    let (terminal, err) = on_a_terminal(dir.path(), false);
    let text = String::from_utf8(terminal).unwrap();
    let start = text.find("\x1b]52;c;").expect("an OSC 52 sequence") + 7;
    let end = start + text[start..].find('\x07').expect("terminated by BEL");
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(&text[start..end])
        .unwrap();
    assert_eq!(String::from_utf8(decoded).unwrap(), bundle);
    assert!(err.contains("copied to the clipboard"), "{err}");
    assert!(
        err.contains(&format!("{} bytes", thousands(bundle.len() as u64))),
        "{err}"
    );
    assert!(err.contains("tokens"), "{err}");
    assert!(!err.contains("tmux"), "{err}");
    let (_, err) = on_a_terminal(dir.path(), true);
    assert!(err.contains("set -s set-clipboard on"), "{err}");
}

/// URIs and names with markdown's markup characters, and a server named with them too, come
/// out of every renderer byte for byte: preview and export in markdown, XML and JSON, the
/// mentions, and `serve`'s resource list, `context` prompt and `context` tool. Markdown
/// used to escape them (`bench\_report.py`), so the agent read URIs that do not exist.
#[test]
fn every_renderer_keeps_uris_and_server_names_byte_for_byte() {
    use mcpick_fixture::odd::MARKUP;
    const SERVER: &str = "py_server*[x]`";
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let upstream = [
        "--name",
        SERVER,
        "--",
        fixture_bin(),
        "--count",
        "3",
        "--markup-uris",
    ];
    ok(
        d,
        &[&["pin", "--exact", MARKUP[1].0][..], &upstream[..]].concat(),
    );
    // Every resource in the set, the markup ones included.
    ok(d, &["policy", "--budget", "all"]);

    for command in ["preview", "export"] {
        let text = ok(d, &[command]);
        for (uri, name) in MARKUP {
            assert!(text.contains(uri), "{command}: no {uri} in\n{text}");
            assert!(text.contains(name), "{command}: no {name} in\n{text}");
        }
        assert!(text.contains(SERVER), "{command}: no {SERVER} in\n{text}");
        assert!(
            !text.contains("bench\\_report"),
            "{command}: escaped\n{text}"
        );
        // XML: the attributes, as an XML reader gives them back.
        let xml = ok(d, &[command, "--format", "xml"]);
        let (uris, names) = (attributes(&xml, "uri"), attributes(&xml, "name"));
        for (uri, name) in MARKUP {
            assert!(uris.iter().any(|u| u == uri), "{command} xml: {uris:?}");
            assert!(names.iter().any(|n| n == name), "{command} xml: {names:?}");
        }
        assert!(
            attributes(&xml, "server").iter().all(|s| s == SERVER),
            "{xml}"
        );
        let doc: Value = serde_json::from_str(&ok(d, &[command, "--format", "json"])).unwrap();
        let included = doc["included"].as_array().unwrap();
        for (uri, name) in MARKUP {
            let entry = included
                .iter()
                .find(|i| i["uri"] == uri)
                .unwrap_or_else(|| panic!("{command} json: no {uri} in {doc:#}"));
            assert_eq!(entry["name"], name);
            assert_eq!(entry["server"], SERVER);
        }
    }
    // Mentions name the served entry (here given the same odd name with --as).
    let mentions = ok(d, &["export", "--mentions", "--as", SERVER]);
    for (uri, _) in MARKUP {
        assert!(
            mentions.lines().any(|l| l == format!("@{SERVER}:{uri}")),
            "{mentions}"
        );
    }

    let mut rpc =
        common::rpc::Rpc::start(mcpick_bin(), &["serve", "--set", "mcpick.context.json"], d);
    let list = rpc.request("resources/list", serde_json::json!({}));
    let listed: Vec<&str> = list["result"]["resources"]
        .as_array()
        .unwrap_or_else(|| panic!("{list}"))
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    let prompt = rpc.request("prompts/get", serde_json::json!({ "name": "context" }));
    let prompt_text = prompt["result"]["messages"][0]["content"]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{prompt}"))
        .to_string();
    let tool = rpc.request(
        "tools/call",
        serde_json::json!({ "name": "context", "arguments": {} }),
    );
    let tool_text: String = tool["result"]["content"]
        .as_array()
        .unwrap_or_else(|| panic!("{tool}"))
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n");
    for (uri, name) in MARKUP {
        assert!(listed.contains(&uri), "serve list: {listed:?}");
        for (what, text) in [("prompt", &prompt_text), ("tool", &tool_text)] {
            assert!(text.contains(uri), "serve {what}: no {uri} in {text}");
            assert!(text.contains(name), "serve {what}: no {name} in {text}");
            assert!(!text.contains("bench\\_report"), "serve {what}: escaped");
        }
    }
    rpc.finish();
}

/// Every value of attribute `name` in `xml` (` name="…"`), unescaped as an XML reader would.
fn attributes(xml: &str, name: &str) -> Vec<String> {
    let key = format!(" {name}=\"");
    xml.match_indices(&key)
        .map(|(at, _)| {
            let rest = &xml[at + key.len()..];
            let value = &rest[..rest.find('"').expect("a closed attribute")];
            value
                .replace("&quot;", "\"")
                .replace("&apos;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .collect()
}
