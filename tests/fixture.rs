//! mcpick against its own fixture server (`mcpick demo-server`, built on rmcp, and the test
//! fixture `mcpick-fixture` with its faults) over stdio and Streamable HTTP: pagination, reads
//! of every kind, not-found, and servers that misbehave. And the product carries none of the
//! misbehaviour: `mcpick demo-server` has only the demo's options.

mod common;

use std::collections::HashSet;

use common::*;

/// `mcpick ARGS… -- mcpick demo-server DEMO_ARGS…` (`mcpick-fixture DEMO_ARGS…` for a
/// fault): the fixture as an ad-hoc stdio server.
fn with_demo<'a>(args: &[&'a str], demo: &[&'a str]) -> Vec<&'a str> {
    let mut all = args.to_vec();
    all.extend(["--name", "fixture", "--"]);
    all.extend(demo_command(demo));
    all
}

#[test]
fn paging_over_many_pages_returns_every_resource_exactly_once() {
    let (code, doc, err) = mcpick_json(&with_demo(
        &["ls", "--json"],
        &["--count", "2345", "--page-size", "100"],
    ));
    assert_eq!(code, 0, "{err}");
    let uris = uris(&doc);
    assert_eq!(uris.len(), 2345, "24 pages of resources");
    let unique: HashSet<_> = uris.iter().collect();
    assert_eq!(unique.len(), uris.len(), "no resource twice");
    let server = &doc["servers"][0];
    assert_eq!(server["name"], "fixture");
    assert_eq!(server["transport"], "stdio");
    assert_eq!(server["resourceCount"], 2345);
    assert!(server["error"].is_null());
}

/// The faults live in the test fixture, not in what users install: `mcpick demo-server
/// --help` names the demo's options only, none of the fixture's.
#[test]
fn the_demo_servers_help_lists_no_fault() {
    let out = mcpick(&["demo-server", "--help"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let help = stdout(&out);
    for flag in ["--count", "--page-size", "--http"] {
        assert!(help.contains(flag), "no {flag} in\n{help}");
    }
    let mut faults: Vec<String> = [
        "--repeat-cursor",
        "--crash-after",
        "--garbage-after",
        "--hang-after",
        "--invalid-json-after",
        "--big-mib",
        "--hostile",
        "--no-resources",
        "--stderr-noise",
        "--require-header",
        "--request-log",
        "--violate",
        "--bump",
        "--edit",
        "--private-for",
        "--churn",
        "--start-delay",
        "--markup-uris",
        "--smuggle",
        "--echo-headers",
        "--legacy",
        "--oauth",
        "--token-ttl",
        "--oauth-client",
        "--revoke-after",
    ]
    .map(String::from)
    .to_vec();
    // And whatever the fixture has beyond the demo's options, now or later.
    use clap::CommandFactory;
    let fixture = mcpick_fixture::FixtureArgs::command();
    faults.extend(
        fixture
            .get_arguments()
            .filter_map(|a| a.get_long())
            .filter(|long| !["count", "page-size", "http", "help"].contains(long))
            .map(|long| format!("--{long}")),
    );
    for flag in &faults {
        let named = help
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .any(|word| word == flag);
        assert!(!named, "{flag} in mcpick demo-server --help:\n{help}");
    }
    assert!(!help.to_lowercase().contains("misbehave"), "{help}");
}

#[test]
fn the_built_in_demo_is_the_default_and_speaks_the_modern_era() {
    let (code, doc, err) = mcpick_json(&["ls", "--json", "--templates"]);
    assert_eq!(code, 0, "{err}");
    let server = &doc["servers"][0];
    assert_eq!(server["name"], "demo");
    assert_eq!(
        server["protocolVersion"], "2026-07-28",
        "rmcp servers answer server/discover"
    );
    assert_eq!(server["serverInfo"]["name"], "mcpick-demo");
    let uris = uris(&doc);
    assert!(uris.len() >= 200, "a few hundred resources");
    for uri in [
        "file:///project/README.md",
        "demo://assets/logo.png",
        "demo://clock/now",
    ] {
        assert!(uris.iter().any(|u| u == uri), "{uri} missing");
    }
    // Every kind of annotation is represented.
    let resources = resources(&doc);
    let with =
        |f: &dyn Fn(&serde_json::Value) -> bool| resources.iter().any(|r| f(&r["annotations"]));
    assert!(with(&|a| a.is_null()));
    assert!(with(&|a| a["priority"].is_number()));
    assert!(with(&|a| a["lastModified"].is_string()));
    assert!(with(&|a| a["audience"] == serde_json::json!(["user"])));
    assert!(with(&|a| a["audience"] == serde_json::json!(["assistant"])));
    let templates: Vec<&str> = doc["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert!(
        templates.contains(&"file:///project/{path}"),
        "{templates:?}"
    );
}

#[test]
fn table_output_is_readable_and_clean() {
    let out = mcpick(&["ls"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("# demo (stdio, protocol 2026-07-28)"),
        "{text}"
    );
    assert!(text.contains("URI") && text.contains("file:///project/README.md"));
    assert!(
        !text.contains('\u{1b}'),
        "no escape sequence reaches the table"
    );
}

#[test]
fn reads_text_blob_several_contents_and_empty() {
    let out = mcpick(&["read", "file:///project/README.md"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!stdout(&out).trim().is_empty());

    // A blob goes out raw into a pipe: a real PNG.
    let out = mcpick(&["read", "demo://assets/logo.png"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        out.stdout.starts_with(b"\x89PNG\r\n\x1a\n"),
        "PNG signature"
    );

    // Several contents items, each under its own header.
    let out = mcpick(&["read", "demo://multi/bundle"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out).matches("==> ").count(), 3, "{}", stdout(&out));

    let out = mcpick(&["read", "demo://multi/bundle", "--json"]);
    let contents: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(contents.as_array().unwrap().len(), 3);
    assert!(
        contents
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["blob"].is_string())
    );

    // Empty contents: exists, empty, not "not found".
    let out = mcpick(&["read", "demo://empty"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("empty"), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
}

#[test]
fn not_found_exits_3_and_names_uri_and_server() {
    let out = mcpick(&["read", "demo://does/not/exist"]);
    assert_eq!(exit_code(&out), 3, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("demo://does/not/exist") && err.contains("`demo`"),
        "{err}"
    );
}

#[test]
fn over_streamable_http() {
    let server = Background::demo_http(&["--count", "1000", "--page-size", "40"]);
    let (code, doc, err) = mcpick_json(&["ls", "--json", "--templates", "--url", &server.url]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["servers"][0]["transport"], "http");
    let uris = uris(&doc);
    assert_eq!(uris.len(), 1000);
    assert_eq!(uris.iter().collect::<HashSet<_>>().len(), 1000);

    let out = mcpick(&["read", "demo://assets/logo.png", "--url", &server.url]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(out.stdout.starts_with(b"\x89PNG"));
    let out = mcpick(&["read", "demo://nope", "--url", &server.url]);
    assert_eq!(exit_code(&out), 3, "{}", stderr(&out));
}

/// The server's last words reach mcpick after its stdout closed (a shell in between lets its
/// stderr through only 300 ms after the start, and the server crashes sooner): the
/// connection's end is noticed first, and the message still quotes them (it waits for the
/// stderr to end, up to half a second). Seen failing without that wait.
#[test]
fn a_crashing_servers_late_stderr_is_still_in_the_message() {
    let script = format!(
        "{} --page-size 10 --crash-after 3 2> >(exec 1>&-; sleep 0.3; cat >&2)",
        fixture_bin()
    );
    let (code, doc, err) = mcpick_json(&[
        "ls", "--json", "--name", "fixture", "--", "bash", "-c", &script,
    ]);
    assert_eq!(code, 1, "a server failure exits 1: {err}");
    let error = doc["servers"][0]["error"].as_str().expect("error recorded");
    assert!(
        error.contains("crashing on purpose"),
        "stderr tail in the message: {error}"
    );
}

#[test]
fn a_crashing_server_is_reported_with_its_stderr() {
    let (code, doc, err) = mcpick_json(&with_demo(
        &["ls", "--json"],
        &["--page-size", "10", "--crash-after", "3"],
    ));
    assert_eq!(code, 1, "a server failure exits 1");
    let error = doc["servers"][0]["error"].as_str().expect("error recorded");
    assert!(error.contains("fixture"), "{error}");
    assert!(
        error.contains("crashing on purpose"),
        "stderr tail in the message: {error}"
    );
    assert!(err.contains("crashing on purpose"), "{err}");
    // What arrived before the crash is kept.
    assert!(!uris(&doc).is_empty());
}

#[test]
fn a_crashing_server_does_not_hide_the_others() {
    // Two servers: the built-in demo and a fixture that crashes at once.
    let mut args = vec!["ls", "--json", "--demo"];
    args.extend(with_demo(&[], &["--crash-after", "0"]));
    let (code, doc, _) = mcpick_json(&args);
    assert_eq!(code, 1);
    let servers = doc["servers"].as_array().unwrap();
    assert_eq!(servers.len(), 2);
    let ok = servers.iter().find(|s| s["name"] == "demo").unwrap();
    let failed = servers.iter().find(|s| s["name"] == "fixture").unwrap();
    assert!(ok["error"].is_null());
    assert!(failed["error"].is_string());
    assert!(resources(&doc).iter().any(|r| r["server"] == "demo"));
}

#[test]
fn a_hanging_server_times_out_with_a_clear_error() {
    let (code, doc, _) = mcpick_json(&with_demo(
        &["ls", "--json", "--timeout", "2"],
        &["--page-size", "10", "--hang-after", "2"],
    ));
    assert_eq!(code, 1);
    let error = doc["servers"][0]["error"].as_str().unwrap();
    assert!(error.contains("timed out"), "{error}");
    assert!(error.contains("resources/list"), "{error}");
}

#[test]
fn a_garbage_line_does_not_break_the_session() {
    let (code, doc, err) = mcpick_json(&with_demo(
        &["ls", "--json"],
        &[
            "--count",
            "500",
            "--page-size",
            "50",
            "--garbage-after",
            "2",
        ],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(uris(&doc).len(), 500);
}

#[test]
fn a_repeating_cursor_stops_with_an_error() {
    let (code, doc, _) = mcpick_json(&with_demo(
        &["ls", "--json"],
        &["--page-size", "10", "--repeat-cursor"],
    ));
    assert_eq!(code, 1);
    let error = doc["servers"][0]["error"].as_str().unwrap();
    assert!(error.contains("cursor"), "{error}");
}

#[test]
fn the_cap_stops_listing_with_a_notice() {
    let (code, doc, err) = mcpick_json(&with_demo(
        &["ls", "--json", "--cap", "150"],
        &["--count", "1000", "--page-size", "100"],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(uris(&doc).len(), 150);
    assert_eq!(doc["servers"][0]["capped"], true);
    assert!(err.contains("--cap"), "{err}");
}

#[test]
fn a_server_without_resources_is_not_an_error() {
    let (code, doc, err) = mcpick_json(&with_demo(
        &["ls", "--json", "--templates"],
        &["--no-resources"],
    ));
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["servers"][0]["hasResources"], false);
    assert!(resources(&doc).is_empty());
}

#[test]
fn a_command_that_does_not_exist_is_a_clear_error() {
    let (code, doc, _) = mcpick_json(&["ls", "--json", "--", "/nonexistent/mcp-server"]);
    assert_eq!(code, 1);
    let error = doc["servers"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("could not start") && error.contains("/nonexistent/mcp-server"),
        "{error}"
    );
}

#[test]
fn usage_errors_exit_2() {
    let out = mcpick(&["ls", "--url", "not a url"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    let out = mcpick(&["ls", "--bogus-flag"]);
    assert_eq!(exit_code(&out), 2);
}

#[test]
fn every_process_of_a_stdio_server_is_killed_when_mcpick_exits() {
    // A server started through a shell that leaves a grandchild behind, as `npx` does.
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let script = format!(
        "sleep 300 & echo $! > '{}'; exec '{}' demo-server --count 5",
        pid_file.display(),
        mcpick_bin()
    );
    let out = mcpick(&["ls", "--json", "--", "sh", "-c", &script]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // The kill is synchronous on exit, but give the kernel a moment to reap.
    let mut alive = true;
    for _ in 0..50 {
        // SAFETY: signal 0 only checks whether the process exists.
        alive = unsafe { libc::kill(pid, 0) } == 0 && !is_zombie(pid);
        if !alive {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!alive, "grandchild {pid} outlived mcpick");
}

fn is_zombie(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

#[test]
fn ls_prints_the_uri_tree() {
    let out = mcpick(&["ls", "--demo", "--tree"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("demo ("), "{}", lines[0]);
    assert!(
        text.contains("├── demo://notes/ ("),
        "a resource that is also a folder"
    );
    assert!(
        text.contains("file:///project/ ("),
        "compacted chain with a count"
    );
    assert!(text.lines().last().unwrap().contains("└── "));
    // Every resource is one line (folders add more).
    let (_, doc, _) = mcpick_json(&["ls", "--demo", "--json"]);
    assert!(lines.len() > resources(&doc).len());
    assert!(!text.contains('\u{1b}'));
}

#[test]
fn ls_sorts_and_filters_with_the_catalogue_engine() {
    let (code, doc, err) = mcpick_json(&["ls", "--demo", "--json", "--sort", "priority"]);
    assert_eq!(code, 0, "{err}");
    let priorities: Vec<Option<f64>> = resources(&doc)
        .iter()
        .map(|r| r["annotations"]["priority"].as_f64())
        .collect();
    let first_none = priorities
        .iter()
        .position(Option::is_none)
        .unwrap_or(priorities.len());
    assert!(
        priorities[first_none..].iter().all(Option::is_none),
        "no priority sorts last"
    );
    assert!(
        priorities[..first_none].windows(2).all(|w| w[0] >= w[1]),
        "highest priority first: {priorities:?}"
    );

    let (code, doc, _) = mcpick_json(&["ls", "--demo", "--json", "--filter", "README"]);
    assert_eq!(code, 0);
    assert_eq!(
        uris(&doc)[0],
        "file:///project/README.md",
        "best match first"
    );

    let (code, doc, _) = mcpick_json(&["ls", "--demo", "--json", "--filter", "qzxjqzxj"]);
    assert_eq!(code, 0);
    assert!(resources(&doc).is_empty());

    let out = mcpick(&["ls", "--demo", "--tree", "--filter", "logo.png"]);
    let text = stdout(&out);
    assert!(text.contains("logo.png"), "{text}");
    assert!(
        text.contains("demo://assets/"),
        "ancestors of matches stay: {text}"
    );
}

#[test]
fn ls_filter_speaks_the_search_syntax() {
    // Every term applies to the whole resource: `^file` to the URI with its scheme, `!readme`
    // to every field.
    let (code, doc, stderr) = mcpick_json(&["ls", "--demo", "--json", "--filter", "^file !readme"]);
    assert_eq!(code, 0, "{stderr}");
    let found = resources(&doc);
    assert!(found.len() > 100, "{} matches", found.len());
    for r in found {
        assert!(r["uri"].as_str().unwrap().starts_with("file://"), "{r}");
        assert!(!r.to_string().to_lowercase().contains("readme"), "{r}");
    }
    // A match in a name ranks above a match in a description.
    let (_, doc, _) = mcpick_json(&["ls", "--demo", "--json", "--filter", "png"]);
    assert_eq!(uris(&doc)[0], "demo://assets/logo.png");
}

#[test]
fn http_headers_are_sent_with_every_request() {
    let server = Background::fixture_http(&[
        "--count",
        "50",
        "--page-size",
        "10",
        "--require-header",
        "Authorization: Bearer s3cret",
    ]);
    let (code, doc, _) = mcpick_json(&["ls", "--json", "--url", &server.url]);
    assert_eq!(code, 1, "refused without the header");
    let error = doc["servers"][0]["error"].as_str().unwrap();
    assert!(
        error.contains("401") || error.to_lowercase().contains("unauthorized"),
        "{error}"
    );

    let (code, doc, err) = mcpick_json(&[
        "ls",
        "--json",
        "--url",
        &server.url,
        "-H",
        "Authorization: Bearer s3cret",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(uris(&doc).len(), 50, "every page carried the header");
    let out = mcpick(&[
        "read",
        "demo://empty",
        "--url",
        &server.url,
        "-H",
        "Authorization: Bearer s3cret",
    ]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
}

/// `ls --json` writes resources as their pages arrive: with a server that answers three
/// pages and then hangs, the first 300 resources are on stdout while mcpick still waits for
/// the fourth (the whole document used to be written only at the end).
#[test]
fn ls_json_streams_resources_while_the_server_still_lists() {
    use std::io::BufRead;
    let mut command = std::process::Command::new(mcpick_bin());
    command.args(with_demo(
        &["ls", "--json", "--timeout", "60"],
        &["--count", "1000", "--page-size", "100", "--hang-after", "3"],
    ));
    let mut child = isolate(command)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut uris = 0;
        for line in std::io::BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line.trim_start().starts_with("\"uri\":") {
                uris += 1;
                if uris == 300 {
                    let _ = tx.send(());
                }
            }
        }
    });
    let seen = rx.recv_timeout(std::time::Duration::from_secs(30));
    let still_running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        seen.is_ok(),
        "the first three pages were not written while listing"
    );
    assert!(still_running, "mcpick had already ended");
}

/// A server that fails half way through its listing: what arrived before is in the streamed
/// document, which is still one valid JSON document with the failure in servers[].error.
#[test]
fn ls_json_of_a_server_failing_mid_list_is_valid_and_keeps_what_arrived() {
    let (code, doc, _) = mcpick_json(&with_demo(
        &["ls", "--json"],
        &[
            "--count",
            "1000",
            "--page-size",
            "100",
            "--crash-after",
            "3",
        ],
    ));
    assert_eq!(code, 1);
    assert_eq!(uris(&doc).len(), 300);
    let server = &doc["servers"][0];
    assert_eq!(server["resourceCount"], 300);
    assert!(server["error"].is_string(), "{server}");
    assert!(doc["templates"].as_array().unwrap().is_empty());
}

/// A reader that goes away (`mcpick ls --json | head -1`) ends the listing at the next
/// write: mcpick does not wait for the rest of a server's listing (here a hang) first.
#[test]
fn ls_json_ends_when_its_reader_goes_away() {
    use std::io::BufRead;
    let mut command = std::process::Command::new(mcpick_bin());
    command.args(with_demo(
        &["ls", "--json", "--timeout", "120"],
        &["--count", "1000", "--page-size", "100", "--hang-after", "3"],
    ));
    let mut child = isolate(command)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut reader = std::io::BufReader::new(stdout);
        let mut first = String::new();
        let _ = reader.read_line(&mut first);
        // Gone: three pages (about 120 kB) do not fit a pipe's buffer, so a write meets
        // the closed pipe.
        drop(reader);
        let _ = tx.send(first);
    });
    let first = rx.recv_timeout(std::time::Duration::from_secs(30));
    if first.is_err() {
        let _ = child.kill();
        let _ = child.wait();
    }
    assert_eq!(first.expect("nothing written while listing"), "{\n");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let status = status.expect("mcpick still listing a minute after its reader went away");
    assert_eq!(status.code(), Some(0));
}
