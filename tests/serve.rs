//! `mcpick serve` against real clients: the Python `mcp` 2.x SDK (2026-07-28 over stdio and
//! HTTP, and its legacy `initialize` mode), the TypeScript SDK 1.x client (legacy era) and
//! Claude Code's `claude mcp list`. Upstream is the fixture server, which logs every resource
//! request it gets, so "never reaches an upstream" is counted, not assumed.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::*;
use serde_json::Value;

/// A folder with a context set over the fixture server (which logs requests to `log`):
/// README pinned, the docs folder excluded, a budget of 3000 tokens.
struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let project = Project {
            dir: tempfile::tempdir().unwrap(),
        };
        let log = project.log_path();
        let log = log.to_str().unwrap();
        let upstream = ["--name", "demo", "--", fixture_bin(), "--request-log", log];
        project.ok(&[&["pin", "file:///project/README.md"], &upstream[..]].concat());
        project.ok(&[&["exclude", "file:///project/docs/*"], &upstream[..]].concat());
        project.ok(&["policy", "--budget", "3000"]);
        project
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn set(&self) -> String {
        self.path()
            .join("mcpick.context.json")
            .to_string_lossy()
            .into_owned()
    }

    fn log_path(&self) -> PathBuf {
        self.path().join("upstream-requests.log")
    }

    /// Resource reads the upstream received.
    fn upstream_reads(&self) -> Vec<String> {
        std::fs::read_to_string(self.log_path())
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.strip_prefix("resources/read "))
            .map(str::to_owned)
            .collect()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = mcpick_in(self.path(), &[], args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        stdout(&out)
    }

    fn preview_included(&self) -> Vec<String> {
        let (code, doc, err) = mcpick_json_in(self.path(), &[], &["preview", "--format", "json"]);
        assert_eq!(code, 0, "{err}");
        doc["included"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["uri"].as_str().unwrap().to_string())
            .collect()
    }
}

/// A client process printing one JSON event per line; `on_event` may act on each (e.g. pin
/// when the client is ready). Returns every event; fails the test if the client fails.
fn client(
    program: &str,
    args: &[&str],
    cwd: &Path,
    env: &[(&str, &str)],
    on_event: impl FnMut(&Value),
) -> Vec<Value> {
    client_and_stderr(program, args, cwd, env, on_event).0
}

/// Like [`client`], with what the client wrote to stderr (where a stdio `serve` it started
/// writes its diagnostics).
fn client_and_stderr(
    program: &str,
    args: &[&str],
    cwd: &Path,
    env: &[(&str, &str)],
    mut on_event: impl FnMut(&Value),
) -> (Vec<Value>, String) {
    let mut child = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env("HOME", isolated_home())
        .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("start {program}: {e}"));
    let id = child.id();
    let (done, timer) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if timer.recv_timeout(Duration::from_secs(120)).is_err() {
            // SAFETY: only sends a signal to the client this test started.
            unsafe { libc::kill(id as i32, libc::SIGKILL) };
        }
    });
    let mut stderr_pipe = child.stderr.take().unwrap();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr_pipe.read_to_string(&mut text);
        text
    });
    let mut events = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        let event: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("client printed a non-JSON line ({e}): {line}"));
        on_event(&event);
        events.push(event);
    }
    let status = child.wait().unwrap();
    let _ = done.send(());
    let errors = errors.join().unwrap();
    assert!(status.success(), "{program} {args:?} failed: {errors}");
    (events, errors)
}

fn python_client(
    project: &Project,
    mode: &str,
    extra: &[&str],
    on_event: impl FnMut(&Value),
) -> Vec<Value> {
    let script = repo_root().join("tests/peers/serve_client.py");
    let mut args = vec![script.to_str().unwrap(), "--mode", mode];
    args.extend_from_slice(extra);
    let set = project.set();
    if !extra.contains(&"--url") {
        args.extend(["--", mcpick_bin(), "serve", "--set", &set]);
    }
    client(&python(), &args, project.path(), &[], on_event)
}

fn event<'a>(events: &'a [Value], name: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["event"] == name)
        .unwrap_or_else(|| panic!("no `{name}` event in {events:#?}"))
}

fn listed(event: &Value) -> Vec<String> {
    event["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_string())
        .collect()
}

fn reads<'a>(events: &'a [Value], uri: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["event"] == "read" && e["uri"] == uri)
        .unwrap_or_else(|| panic!("no read of {uri}"))
}

const EXCLUDED: &str = "file:///project/docs/getting-started.md";
const UNLISTED: &str = "file:///project/no-such-file.md";

#[test]
fn python_clients_see_exactly_the_preview_in_both_eras() {
    let project = Project::new();
    let included = project.preview_included();
    assert!(
        included.len() >= 2,
        "a few resources fit 3000 tokens: {included:?}"
    );
    assert_eq!(
        included[0], "file:///project/README.md",
        "the pin comes first"
    );
    let direct = project.ok(&["read", "--json", "file:///project/README.md"]);
    let direct: Value = serde_json::from_str(&direct).unwrap();
    for (mode, version, not_found) in [
        ("auto", "2026-07-28", -32602),
        ("legacy", "2025-11-25", -32002),
    ] {
        let before = project.upstream_reads();
        let events = python_client(
            &project,
            mode,
            &[
                "--read",
                &included[0],
                "--read",
                EXCLUDED,
                "--read",
                UNLISTED,
            ],
            |_| {},
        );
        let connected = event(&events, "connected");
        assert_eq!(connected["protocolVersion"], version, "{mode}");
        // The handshake is answered at once: the instructions describe the set when it was
        // resolved by then (a fast upstream), else say it is still connecting; either way
        // the list below has to be the whole set.
        let instructions = connected["instructions"].as_str().unwrap();
        assert!(
            instructions.contains(&format!("{} resources", included.len()))
                || instructions.contains("are still connecting"),
            "{instructions}"
        );
        assert_eq!(
            listed(event(&events, "list")),
            included,
            "{mode}: the agent's order"
        );
        let pinned = &event(&events, "list")["resources"][0]["annotations"];
        assert_eq!(
            pinned["priority"], 1.0,
            "a pinned resource has priority 1.0"
        );
        assert!(
            pinned["audience"]
                .as_array()
                .unwrap()
                .contains(&"assistant".into())
        );

        let readme = reads(&events, &included[0]);
        assert_eq!(readme["ok"], true, "{readme}");
        assert_eq!(
            readme["contents"][0]["text"], direct[0]["text"],
            "an included read passes the upstream's contents through"
        );
        for uri in [EXCLUDED, UNLISTED] {
            let read = reads(&events, uri);
            assert_eq!(
                read["ok"], false,
                "{mode}: {uri} must not be readable: {read}"
            );
            assert_eq!(read["code"], not_found, "{mode}: not-found code for {uri}");
        }
        let asked: Vec<String> = project.upstream_reads().split_off(before.len());
        for uri in [EXCLUDED, UNLISTED] {
            assert!(
                !asked.iter().any(|u| u == uri),
                "{mode}: {uri} reached the upstream: {asked:?}"
            );
        }
        assert!(
            asked.iter().any(|u| u == &included[0]),
            "the included read was forwarded: {asked:?}"
        );

        let prompt = bundle_uris(&prompt_text(&events));
        assert_eq!(
            prompt, included,
            "{mode}: the prompt's one text message holds the set in order"
        );
        assert_eq!(
            event(&events, "tools")["names"],
            serde_json::json!(["context"])
        );
        let texts = event(&events, "tool")["texts"].as_array().unwrap();
        assert_eq!(texts.len(), 1, "one text: the summary, then every resource");
        let tool = texts[0].as_str().unwrap();
        assert_eq!(
            bundle_uris(tool),
            included,
            "{mode}: the tool's set, in order"
        );
        assert!(tool.contains("# Demo project"));
    }
}

#[test]
fn a_legacy_typescript_client_sees_the_set_and_not_found_codes() {
    let project = Project::new();
    let included = project.preview_included();
    let script = repo_root().join("tests/peers/node/serve_client.cjs");
    let node_path = peers().join("node/node_modules");
    let set = project.set();
    let events = client(
        "node",
        &[
            script.to_str().unwrap(),
            "--read",
            EXCLUDED,
            "--read",
            &included[1],
            "--",
            mcpick_bin(),
            "serve",
            "--set",
            &set,
        ],
        project.path(),
        &[("NODE_PATH", node_path.to_str().unwrap())],
        |_| {},
    );
    assert_eq!(listed(event(&events, "list")), included);
    assert_eq!(reads(&events, EXCLUDED)["code"], -32002, "legacy not-found");
    assert_eq!(reads(&events, &included[1])["ok"], true);
    assert_eq!(bundle_uris(&prompt_text(&events)), included);
}

#[test]
fn a_pin_while_clients_are_connected_reaches_them_in_both_eras() {
    let project = Project::new();
    let target = "demo://assets/logo.png";
    for mode in ["auto", "legacy"] {
        assert!(!project.preview_included().contains(&target.to_string()));
        let events = python_client(&project, mode, &["--watch", "30"], |e| {
            if e["event"] == "ready" {
                project.ok(&["pin", target]);
            }
        });
        let changed = event(&events, "changed");
        let after = project.preview_included();
        assert!(after.contains(&target.to_string()));
        assert_eq!(
            listed(changed),
            after,
            "{mode}: the new list is the new preview"
        );
        project.ok(&["unmark", target]);
    }
}

#[test]
fn an_upstream_that_fails_costs_only_its_resources() {
    let project = Project::new();
    // A second server that cannot start, with a pin of its own (recorded; the pin itself
    // reports the failed server with status 1).
    let out = mcpick_in(
        project.path(),
        &[],
        &[
            "pin",
            "--allow-missing",
            "--name",
            "broken",
            "x://gone",
            "--",
            "/nonexistent/mcp-server",
        ],
    );
    assert_eq!(exit_code(&out), 1, "{}", stderr(&out));
    assert!(
        std::fs::read_to_string(project.set())
            .unwrap()
            .contains("x://gone")
    );
    let events = python_client(
        &project,
        "auto",
        &["--read", "file:///project/README.md"],
        |_| {},
    );
    // The handshake is answered at once, so its instructions may only say the servers are
    // still connecting; the prompt (which waits for the set) names the unavailable one.
    let connected = event(&events, "connected");
    let instructions = connected["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("broken") || instructions.contains("still connecting"),
        "{connected}"
    );
    let prompt = &event(&events, "prompt")["messages"][0]["text"];
    assert!(
        prompt.as_str().unwrap().contains("Unavailable servers")
            && prompt.as_str().unwrap().contains("broken"),
        "the prompt names the unavailable server: {prompt}"
    );
    let list = listed(event(&events, "list"));
    assert!(
        list.contains(&"file:///project/README.md".to_string()),
        "{list:?}"
    );
    assert!(!list.contains(&"x://gone".to_string()));
    assert_eq!(reads(&events, "file:///project/README.md")["ok"], true);
}

#[test]
fn an_upstream_crash_after_listing_leaves_the_others_served() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = mcpick_in(dir.path(), &[], args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
    };
    run(&["pin", "--demo", "file:///project/README.md"]);
    // Answers its one listing page, then exits on the next request.
    run(&[
        "pin",
        "--name",
        "flaky",
        "demo://notes/1",
        "--",
        fixture_bin(),
        "--page-size",
        "1000",
        "--crash-after",
        "1",
    ]);
    let set = dir.path().join("mcpick.context.json");
    let script = repo_root().join("tests/peers/serve_client.py");
    let (events, stderr) = client_and_stderr(
        &python(),
        &[
            script.to_str().unwrap(),
            // Legacy: the list change comes while the client reads (the read is what
            // crashes the upstream), before a modern client would listen for it.
            "--mode",
            "legacy",
            "--read",
            "demo://notes/1",
            "--read",
            "file:///project/README.md",
            "--watch",
            "30",
            "--",
            mcpick_bin(),
            "serve",
            "--set",
            set.to_str().unwrap(),
        ],
        dir.path(),
        &[],
        |_| {},
    );
    let list = listed(event(&events, "list"));
    assert!(
        list.contains(&"demo://notes/1".to_string()),
        "listed before the crash"
    );
    let crashed = reads(&events, "demo://notes/1");
    assert_eq!(
        crashed["ok"], false,
        "the crashed upstream's read fails: {crashed}"
    );
    assert_ne!(crashed["code"], -32602, "a crash is not 'not found'");
    assert_eq!(
        reads(&events, "file:///project/README.md")["ok"],
        true,
        "the others are served"
    );
    // Then the crashed upstream's resources leave the published list (the client is told
    // its list changed); the others stay.
    let now = listed(event(&events, "changed"));
    assert!(!now.contains(&"demo://notes/1".to_string()), "{now:?}");
    assert!(
        now.contains(&"file:///project/README.md".to_string()),
        "{now:?}"
    );
    // Said on serve's stderr; a stdio upstream that exited is not started again.
    assert!(
        stderr.contains("server `flaky` is unavailable: "),
        "{stderr}"
    );
    assert!(!stderr.contains("is back"), "{stderr}");
}

/// A free loopback address, for a server that must come back on the same one.
fn free_address() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

#[test]
fn an_http_upstream_that_restarts_is_served_again() {
    const PINNED: &str = "file:///project/README.md";
    // Changes every second; updates reach subscribers.
    const CLOCK: &str = "demo://clock/now";
    let address = free_address();
    let start = || {
        Background::start(
            mcpick_bin(),
            &["demo-server", "--http", &address, "--count", "20"],
            &[],
        )
    };
    let server = start();
    let dir = tempfile::tempdir().unwrap();
    let out = mcpick_in(
        dir.path(),
        &[],
        &["pin", "--name", "web", "--url", &server.url, PINNED, CLOCK],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let set = dir.path().join("mcpick.context.json");
    let script = repo_root().join("tests/peers/serve_client.py");
    // Killed once the client listens for changes; started again (same address) once the
    // client saw its resources go.
    let mut server = Some(server);
    let (events, stderr) = client_and_stderr(
        &python(),
        &[
            script.to_str().unwrap(),
            "--watch",
            "90",
            "--changes",
            "2",
            "--read-after",
            PINNED,
            "--subscribe-after",
            CLOCK,
            "--",
            mcpick_bin(),
            "serve",
            "--set",
            set.to_str().unwrap(),
        ],
        dir.path(),
        &[],
        |e| match e["event"].as_str() {
            Some("ready") => server = None,
            Some("changed") if server.is_none() => server = Some(start()),
            _ => {}
        },
    );
    let changes: Vec<Vec<String>> = events
        .iter()
        .filter(|e| e["event"] == "changed")
        .map(listed)
        .collect();
    assert!(listed(event(&events, "list")).contains(&PINNED.to_string()));
    assert_eq!(changes.len(), 2, "gone, then back: {events:#?}");
    assert!(
        !changes[0].contains(&PINNED.to_string()),
        "its resources left while it was gone: {:?}",
        changes[0]
    );
    assert!(
        changes[1].contains(&PINNED.to_string()),
        "and are published again: {:?}",
        changes[1]
    );
    let read = events
        .iter()
        .rfind(|e| e["event"] == "read" && e["uri"] == PINNED)
        .expect("the read after the return");
    assert_eq!(read["ok"], true, "read on the new connection: {read}");
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()),
        "{read}"
    );
    // Updates are asked of the new connection too.
    assert_eq!(event(&events, "updated-after")["uri"], CLOCK, "{events:#?}");
    assert!(
        stderr.contains("server `web` is unavailable: "),
        "the outage is said: {stderr}"
    );
    assert!(stderr.contains("server `web` is back"), "{stderr}");
    assert!(
        stderr.find("is unavailable") < stderr.find("is back"),
        "{stderr}"
    );
}

/// An HTTP upstream that goes away and comes back while another is still connecting, so
/// before the first set is published, is said to be unavailable and then back, as it is
/// after. The order is the supervisors', not a time: an upstream asks to listen for changes
/// only once its listing is told, and the slow one starts only after that.
#[test]
fn an_http_upstream_back_before_the_first_set_is_published_is_said_to_be_back() {
    let address = free_address();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("web-requests.log");
    let go = dir.path().join("go");
    let start = || {
        Background::start(
            fixture_bin(),
            &[
                "--http",
                &address,
                "--count",
                "20",
                "--request-log",
                log.to_str().unwrap(),
            ],
            &[],
        )
    };
    let server = start();
    let run = |args: &[&str]| {
        let out = mcpick_in(dir.path(), &[], args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
    };
    run(&[
        "pin",
        "--name",
        "web",
        "--url",
        &server.url,
        "file:///project/README.md",
    ]);
    // A stdio upstream that starts once `go` exists: the first set waits for it.
    let slow = format!(
        "while [ ! -e '{}' ]; do sleep 0.05; done; exec '{}' demo-server",
        go.display(),
        mcpick_bin()
    );
    std::fs::write(&go, "").unwrap();
    run(&[
        "pin",
        "--name",
        "slow",
        "demo://notes/1",
        "--",
        "sh",
        "-c",
        &slow,
    ]);
    std::fs::remove_file(&go).unwrap();
    // What `pin` asked of it comes first in its log.
    let listens = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .matches("subscriptions/listen")
            .count()
    };
    let before = listens();
    let set = dir.path().join("mcpick.context.json");
    let mut serve = Command::new(mcpick_bin())
        // `slow` may take its time: it is what keeps the first set from being published.
        .args(["serve", "--set", set.to_str().unwrap(), "--timeout", "300"])
        .current_dir(dir.path())
        .env("HOME", isolated_home())
        .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, lines) = mpsc::channel();
    let pipe = serve.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut said = Vec::new();
    let mut wait_for = |what: &str| {
        while !said.iter().any(|l: &String| l.contains(what)) {
            match lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => said.push(line),
                Err(e) => panic!("{what:?} never said ({e}): {said:#?}"),
            }
        }
    };
    let listening = |times: usize| {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while listens() < before + times {
            assert!(std::time::Instant::now() < deadline, "web never listed");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    // Listed, then gone: said as soon as it is found out, though nothing is published yet.
    listening(1);
    drop(server);
    wait_for("server `web` is unavailable: ");
    // Back on the same address, listed on a new connection, before `slow` is.
    let _server = start();
    listening(2);
    std::fs::write(&go, "").unwrap();
    wait_for("publishing ");
    let _ = serve.kill();
    let _ = serve.wait();
    let at = |what: &str| said.iter().position(|l| l.contains(what));
    let back = at("server `web` is back");
    assert!(back.is_some(), "{said:#?}");
    assert!(
        at("server `web` is unavailable: ") < back && back < at("publishing "),
        "{said:#?}"
    );
    // Once back, the first set does not call it unavailable again.
    assert!(
        !said[back.unwrap()..]
            .iter()
            .any(|l| l.contains("server `web` is unavailable")),
        "{said:#?}"
    );
    assert!(
        !said.iter().any(|l| l.contains("server `slow`")),
        "{said:#?}"
    );
}

/// `mcpick serve --http` in the background; the address comes from its stderr.
fn serve_http(project: &Project, args: &[&str], env: &[(&str, &str)]) -> Background {
    let set = project.set();
    let mut all = vec!["serve", "--set", set.as_str(), "--http"];
    all.extend_from_slice(args);
    let mut env = env.to_vec();
    let home = isolated_home().to_string_lossy().into_owned();
    env.push(("HOME", &home));
    Background::start(mcpick_bin(), &all, &env)
}

/// One raw HTTP POST of an `initialize`, returning the status code.
fn post_status(url: &str, headers: &[(&str, &str)]) -> u16 {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut line = String::new();
    BufReader::new(stream).read_line(&mut line).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn http_serves_modern_clients_and_refuses_other_origins() {
    let project = Project::new();
    let included = project.preview_included();
    let server = serve_http(&project, &["127.0.0.1:0"], &[]);
    let events = python_client(&project, "auto", &["--url", &server.url], |_| {});
    assert_eq!(event(&events, "connected")["protocolVersion"], "2026-07-28");
    assert_eq!(listed(event(&events, "list")), included);

    assert_eq!(
        post_status(&server.url, &[]),
        200,
        "a local client is served"
    );
    let foreign = post_status(&server.url, &[("Origin", "http://evil.example")]);
    assert_eq!(
        foreign, 403,
        "a web page of another origin is refused (DNS rebinding)"
    );
}

#[test]
fn http_beyond_loopback_needs_a_token() {
    let project = Project::new();
    let set = project.set();
    let out = mcpick_in(
        project.path(),
        &[],
        &["serve", "--set", &set, "--http", "0.0.0.0:0"],
    );
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--require-token-env"),
        "{}",
        stderr(&out)
    );

    let server = serve_http(
        &project,
        &["0.0.0.0:0", "--require-token-env", "SERVE_TOKEN"],
        &[("SERVE_TOKEN", "s3cret-token")],
    );
    let url = server.url.replace("0.0.0.0", "127.0.0.1");
    assert_eq!(post_status(&url, &[]), 401, "no token");
    assert_eq!(post_status(&url, &[("Authorization", "Bearer wrong")]), 401);
    assert_eq!(
        post_status(&url, &[("Authorization", "Bearer s3cret-token")]),
        200
    );
}

#[test]
fn claude_code_connects_to_mcpick_serve() {
    let project = Project::new();
    let home = project.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let dir = project.path().to_string_lossy().into_owned();
    // A project's .mcp.json servers run once the project is trusted.
    std::fs::write(
        home.join(".claude.json"),
        serde_json::json!({ "projects": { dir.clone(): {
            "hasTrustDialogAccepted": true, "enableAllProjectMcpServers": true } } })
        .to_string(),
    )
    .unwrap();
    std::fs::write(
        project.path().join(".mcp.json"),
        serde_json::json!({ "mcpServers": { "mcpick": {
            "type": "stdio", "command": mcpick_bin(), "args": ["serve", "--set", project.set()] } } })
        .to_string(),
    )
    .unwrap();
    let claude = peers().join("node/node_modules/.bin/claude");
    let out = Command::new(&claude)
        .args(["mcp", "list"])
        .current_dir(project.path())
        .env("HOME", &home)
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .expect("run claude");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.starts_with("mcpick:") && l.contains("✔ Connected")),
        "claude mcp list: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_upstream_update_reaches_subscribed_clients_in_both_eras() {
    let project = Project::new();
    // The fixture's clock reports `notifications/resources/updated` every 2 s to subscribers.
    let clock = "demo://clock/now";
    project.ok(&["pin", clock]);
    for mode in ["auto", "legacy"] {
        let events = python_client(
            &project,
            mode,
            &["--watch", "30", "--subscribe", clock],
            |_| {},
        );
        assert_eq!(
            event(&events, "updated")["uri"],
            clock,
            "{mode}: {events:#?}"
        );
    }
}

/// A set over one upstream named `name`, pinned to `uri`, whose demo server (the test
/// fixture) gets `extra` arguments in the set file only (so making the set does not pay for
/// them).
fn set_over_demo(dir: &Path, name: &str, uri: &str, extra: &[&str]) -> PathBuf {
    let out = mcpick_in(dir, &[], &["pin", "--name", name, uri, "--", fixture_bin()]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let path = dir.join("mcpick.context.json");
    let mut set: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let args = set["servers"][name]["args"].as_array_mut().unwrap();
    args.extend(extra.iter().map(|a| Value::from(*a)));
    std::fs::write(&path, serde_json::to_string_pretty(&set).unwrap()).unwrap();
    // Changed by hand since `pin` recorded it: approved again, as a user would.
    trust_in(dir, &[]);
    path
}

#[test]
fn the_handshake_does_not_wait_for_a_slow_upstream() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("upstream-requests.log");
    let pinned = "file:///project/README.md";
    // The upstream answers nothing, not even its handshake, for 3 s: serve used to hold the
    // handshake up to 5 s for it. An answer at once comes before the upstream has started,
    // however loaded the machine (an order, not a time, is asserted).
    let set = set_over_demo(
        dir.path(),
        "slow",
        pinned,
        &[
            "--request-log",
            log.to_str().unwrap(),
            "--start-delay",
            "3000",
        ],
    );
    let script = repo_root().join("tests/peers/serve_client.py");
    for mode in ["auto", "legacy"] {
        let _ = std::fs::remove_file(&log);
        let mut listed_before_handshake = None;
        let events = client(
            &python(),
            &[
                script.to_str().unwrap(),
                "--mode",
                mode,
                "--",
                mcpick_bin(),
                "serve",
                "--set",
                set.to_str().unwrap(),
            ],
            dir.path(),
            &[],
            |e| {
                if e["event"] == "connected" {
                    let upstream = std::fs::read_to_string(&log).unwrap_or_default();
                    listed_before_handshake = Some(upstream.contains("resources/list"));
                }
            },
        );
        assert_eq!(
            listed_before_handshake,
            Some(false),
            "{mode}: the handshake was answered before the upstream had even started"
        );
        let instructions = event(&events, "connected")["instructions"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            instructions.contains("still connecting"),
            "{mode}: the instructions say the set is not resolved yet: {instructions}"
        );
        let list = listed(event(&events, "list"));
        assert!(
            std::fs::read_to_string(&log)
                .unwrap()
                .contains("resources/list"),
            "{mode}: the list waited for the upstream's listing"
        );
        assert_eq!(list.first().map(String::as_str), Some(pinned), "{mode}");
        let prompt = bundle_uris(&prompt_text(&events));
        assert_eq!(
            prompt.first().map(String::as_str),
            Some(pinned),
            "{mode}: the prompt has the set"
        );
    }
    // The full set, no limit: what preview (which waits for the upstream) includes.
    let (code, doc, err) = mcpick_json_in(
        dir.path(),
        &[],
        &["preview", "--format", "json", "--budget", "all"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(doc["included"].as_array().unwrap().len() > 1);
}

#[test]
fn an_upstream_list_change_reaches_clients_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    // Adds demo://live/1, /2, … every second and says so.
    let set = set_over_demo(
        dir.path(),
        "live",
        "file:///project/README.md",
        &["--count", "20", "--churn", "1000"],
    );
    let script = repo_root().join("tests/peers/serve_client.py");
    for mode in ["auto", "legacy"] {
        let events = client(
            &python(),
            &[
                script.to_str().unwrap(),
                "--mode",
                mode,
                "--watch",
                "30",
                "--",
                mcpick_bin(),
                "serve",
                "--expose",
                "allowed",
                "--set",
                set.to_str().unwrap(),
            ],
            dir.path(),
            &[],
            |_| {},
        );
        let live = |list: Vec<String>| -> Vec<String> {
            list.into_iter()
                .filter(|u| u.starts_with("demo://live/"))
                .collect()
        };
        let before = live(listed(event(&events, "list")));
        assert!(before.contains(&"demo://live/0".to_string()), "{before:?}");
        let after = live(listed(event(&events, "changed")));
        assert!(
            after.len() > before.len() && after.iter().any(|u| !before.contains(u)),
            "{mode}: the new list holds the upstream's new resource: {before:?} → {after:?}"
        );
    }
}

#[test]
fn one_resource_added_upstream_among_thousands_reaches_a_client_as_one_more() {
    let dir = tempfile::tempdir().unwrap();
    // Adds demo://live/1, /2, … every second after 3,000 others (applied as what changed).
    let set = set_over_demo(
        dir.path(),
        "live",
        "file:///project/README.md",
        &["--count", "3000", "--page-size", "500", "--churn", "1000"],
    );
    let script = repo_root().join("tests/peers/serve_client.py");
    let events = client(
        &python(),
        &[
            script.to_str().unwrap(),
            "--watch",
            "30",
            "--",
            mcpick_bin(),
            "serve",
            "--expose",
            "allowed",
            "--set",
            set.to_str().unwrap(),
        ],
        dir.path(),
        &[],
        |_| {},
    );
    let before = listed(event(&events, "list"));
    let after = listed(event(&events, "changed"));
    assert!(before.len() > 2000, "thousands published: {}", before.len());
    let new: Vec<&String> = after.iter().filter(|u| !before.contains(u)).collect();
    assert!(
        !new.is_empty() && new.iter().all(|u| u.starts_with("demo://live/")),
        "only the upstream's new resources are new: {new:?}"
    );
    let gone: Vec<&String> = before.iter().filter(|u| !after.contains(u)).collect();
    assert!(gone.is_empty(), "nothing else went: {gone:?}");
    assert_eq!(after.len(), before.len() + new.len());
}

#[test]
fn serve_publishes_a_pinned_template_expansion_and_a_client_reads_it() {
    const NOTE: &str = "demo://notes/5"; // readable only through `demo://notes/{id}`
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = mcpick_in(d, &[], &["pin", "--demo", NOTE]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let set = d.join("mcpick.context.json");
    let script = repo_root().join("tests/peers/serve_client.py");
    let args = [
        script.to_str().unwrap(),
        "--read",
        NOTE,
        "--read",
        "demo://notes/6",
        "--",
        mcpick_bin(),
        "serve",
        "--set",
        set.to_str().unwrap(),
    ];
    let events = client(&python(), &args, d, &[], |_| {});
    assert!(listed(event(&events, "list")).contains(&NOTE.to_string()));
    let note = reads(&events, NOTE);
    assert_eq!(note["ok"], true, "{note}");
    let text = note["contents"][0]["text"].as_str().unwrap();
    assert!(text.contains("# Note 5"), "{note}");
    // Another expansion of the same template is not in the set: not served.
    assert_eq!(reads(&events, "demo://notes/6")["ok"], false);
}

/// One raw JSON-RPC line exchange with `mcpick serve` over stdio.
struct RawStdio {
    child: std::process::Child,
    stdin: Option<std::process::ChildStdin>,
    answers: mpsc::Receiver<Value>,
}

impl RawStdio {
    fn start(project: &Project) -> RawStdio {
        let set = project.set();
        let mut child = Command::new(mcpick_bin())
            .args(["serve", "--set", &set])
            .current_dir(project.path())
            .env("HOME", isolated_home())
            .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let answer = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("serve wrote a non-JSON line ({e}): {line}"));
                if tx.send(answer).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        RawStdio {
            child,
            stdin,
            answers,
        }
    }

    fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next answer (notifications skipped); fails the test after 60 s of silence,
    /// which is what a lost request looks like.
    fn answer(&self) -> Value {
        loop {
            let answer = self
                .answers
                .recv_timeout(Duration::from_secs(60))
                .expect("serve answered nothing: the request was lost");
            if answer.get("id").is_some() {
                return answer;
            }
        }
    }
}

impl Drop for RawStdio {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

#[test]
fn stdio_answers_an_over_long_request_with_the_limit_and_keeps_serving() {
    let project = Project::new();
    let mut serve = RawStdio::start(&project);
    serve.send(INITIALIZE.as_bytes());
    assert_eq!(serve.answer()["id"], 1);
    serve.send(INITIALIZED.as_bytes());
    // A 17 MiB request, over the limit (and over rmcp's own 16 MiB line cap).
    let mut big = br#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"file:///project/README.md","_meta":{"pad":""#.to_vec();
    big.extend(std::iter::repeat_n(b'x', 17 * 1024 * 1024));
    big.extend(b"\"}}}");
    serve.send(&big);
    let refused = serve.answer();
    assert_eq!(refused["id"], 7, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("larger than 4 MiB"), "{message}");
    assert_eq!(refused["error"]["data"]["limitMib"], 4);
    // Over the limit and no id to be found in it: answered with id null (JSON-RPC 2.0 §5).
    let mut garbage = b"[".to_vec();
    garbage.extend(std::iter::repeat_n(b'1', 5 * 1024 * 1024));
    serve.send(&garbage);
    let refused = serve.answer();
    assert!(refused["id"].is_null(), "{refused}");
    assert_eq!(refused["error"]["data"]["limitMib"], 4, "{refused}");
    // And serving goes on.
    serve.send(br#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"file:///project/README.md"}}"#);
    let read = serve.answer();
    assert_eq!(read["id"], 8);
    assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");
}

#[test]
fn a_known_method_with_a_bad_param_is_invalid_params_on_stdio() {
    let project = Project::new();
    let mut serve = RawStdio::start(&project);
    serve.send(INITIALIZE.as_bytes());
    serve.answer();
    serve.send(INITIALIZED.as_bytes());
    serve.send(br#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":5}}"#);
    let bad = serve.answer();
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("resources/read"),
        "{bad}"
    );
    serve.send(br#"{"jsonrpc":"2.0","id":3,"method":"resources/steal","params":{}}"#);
    assert_eq!(serve.answer()["error"]["code"], -32601, "an unknown method");
}

/// One raw HTTP/1.1 request; returns the status, the headers (names lowercased) and the
/// body (for an event stream, the JSON of its `data:` lines).
fn http(
    url: &str,
    method: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Vec<(String, String)>, Vec<Value>) {
    let rest = url.strip_prefix("http://").unwrap();
    let (authority, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).unwrap();
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    let status = status.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut found = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap();
        found.push((name.to_ascii_lowercase(), value.trim().to_string()));
    }
    let mut text = String::new();
    let _ = reader.read_to_string(&mut text);
    let data = text
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect();
    (status, found, data)
}

#[test]
fn http_answers_a_bad_uri_with_invalid_params_and_ends_a_session_on_delete() {
    let project = Project::new();
    let server = serve_http(&project, &["127.0.0.1:0"], &[]);
    let (status, headers, _) = http(&server.url, "POST", &[], INITIALIZE);
    assert_eq!(status, 200);
    let session = headers
        .iter()
        .find(|(n, _)| n == "mcp-session-id")
        .map(|(_, v)| v.clone())
        .expect("a session id");
    let in_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let (status, _, _) = http(&server.url, "POST", &in_session, INITIALIZED);
    assert_eq!(status, 202);
    let (_, _, answers) = http(
        &server.url,
        "POST",
        &in_session,
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":5}}"#,
    );
    let bad = answers.iter().find(|a| a["id"] == 2).expect("an answer");
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    let (status, _, _) = http(&server.url, "DELETE", &in_session, "");
    assert!(
        status == 200 || status == 204,
        "DELETE of a session: {status}"
    );
    let (status, _, _) = http(
        &server.url,
        "POST",
        &in_session,
        r#"{"jsonrpc":"2.0","id":3,"method":"resources/list"}"#,
    );
    assert_eq!(status, 404, "the session is gone");
}

/// The prompt's messages: exactly one, a text holding the whole bundle (Gemini CLI keeps only
/// a prompt's first text message).
fn prompt_text(events: &[Value]) -> String {
    let messages = event(events, "prompt")["messages"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(messages.len(), 1, "one message: {messages:?}");
    assert_eq!(messages[0]["type"], "text");
    messages[0]["text"].as_str().unwrap().to_string()
}

/// The URIs of a bundle text's resources, in order: the second code span of each block's
/// `server `S` · `URI`` line.
fn bundle_uris(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("server `"))
        .filter_map(|l| code_spans(l).get(1).cloned())
        .collect()
}

/// Markdown code spans of one line: a run of N backticks up to the next run of exactly N, with
/// one padding space taken off each side when both are there.
fn code_spans(line: &str) -> Vec<String> {
    let b = line.as_bytes();
    let (mut i, mut out) = (0, Vec::new());
    let run = |at: usize| b[at..].iter().take_while(|&&c| c == b'`').count();
    while i < b.len() {
        if b[i] != b'`' {
            i += 1;
            continue;
        }
        let n = run(i);
        let start = i + n;
        let mut j = start;
        let mut end = None;
        while j < b.len() {
            if b[j] == b'`' {
                let m = run(j);
                if m == n {
                    end = Some(j);
                    break;
                }
                j += m;
            } else {
                j += 1;
            }
        }
        let Some(end) = end else { break };
        let mut span = &line[start..end];
        if span.len() >= 2 && span.starts_with(' ') && span.ends_with(' ') {
            span = &span[1..span.len() - 1];
        }
        out.push(span.to_string());
        i = end + n;
    }
    out
}

/// Every published resource exactly as its upstream listed it (as rmcp reads the listing),
/// byte for byte: icons, `_meta`, an audience out of order and twice, empty annotations, an
/// empty audience, priority -0.0, empty strings and the largest size included; a URI listed
/// twice is published once, as first listed; a pinned one differs only by its pin.
#[test]
fn serve_publishes_every_field_exactly_as_listed() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = repo_root().join("tests/fixtures/odd_resources.py");
    let fixture = fixture.to_str().unwrap();
    let out = mcpick_in(
        dir.path(),
        &[],
        &[
            "pin",
            "--name",
            "odd",
            "odd://meta",
            "--",
            "python3",
            fixture,
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    // Every audience and no limit, so that every listed resource is published.
    let out = mcpick_in(
        dir.path(),
        &[],
        &["policy", "--audience", "any", "--budget", "all"],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let listing = Command::new("python3")
        .args([fixture, "--print"])
        .output()
        .unwrap();
    let listed: Vec<Value> = serde_json::from_slice(&listing.stdout).unwrap();
    // What the upstream listed, as an rmcp client reads it: the first of a URI listed twice.
    let mut expected: Vec<(String, String)> = Vec::new();
    for value in listed {
        let mut resource: rmcp::model::Resource = serde_json::from_value(value).unwrap();
        if expected.iter().any(|(uri, _)| *uri == resource.uri) {
            continue;
        }
        if resource.uri == "odd://meta" {
            // The pin: priority 1.0 (no audience to add the assistant to).
            let mut pinned = rmcp::model::Annotations::default();
            pinned.priority = Some(1.0);
            resource.annotations = Some(pinned);
        }
        let text = serde_json::to_string(&serde_json::to_value(&resource).unwrap()).unwrap();
        expected.push((resource.uri.clone(), text));
    }
    let set = dir.path().join("mcpick.context.json");
    let mut rpc = common::rpc::Rpc::start(
        mcpick_bin(),
        &[
            "serve",
            "--set",
            set.to_str().unwrap(),
            "--expose",
            "allowed",
        ],
        dir.path(),
    );
    let mut published: Vec<(String, String)> = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let params = match &cursor {
            Some(c) => serde_json::json!({ "cursor": c }),
            None => serde_json::json!({}),
        };
        let answer = rpc.request("resources/list", params);
        let result = &answer["result"];
        for r in result["resources"].as_array().unwrap() {
            published.push((
                r["uri"].as_str().unwrap().to_string(),
                serde_json::to_string(r).unwrap(),
            ));
        }
        match result["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    rpc.finish();
    assert_eq!(published.len(), expected.len(), "{published:#?}");
    for (uri, want) in &expected {
        let got = published
            .iter()
            .find(|(u, _)| u == uri)
            .unwrap_or_else(|| panic!("{uri} is not published: {published:#?}"));
        assert_eq!(&got.1, want, "{uri}");
    }
    assert!(
        published.iter().any(|(_, text)| text.contains("-0.0")),
        "priority -0.0 stays -0.0: {published:#?}"
    );
}

/// A big published list asks its upstream for updates of a bounded number of resources (the
/// budgeted set first), and says so, instead of one subscription request naming them all
/// (a demo server asked for 150,000 at once did not answer in 30 s).
#[test]
fn updates_are_followed_for_a_bounded_number_of_published_resources() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpick_in(
        dir.path(),
        &[],
        &[
            "pin",
            "--name",
            "big",
            "demo://notes/1",
            "--",
            mcpick_bin(),
            "demo-server",
            "--count",
            "20000",
        ],
    );
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let mut serve = Command::new(mcpick_bin())
        .args([
            "serve",
            "--set",
            "mcpick.context.json",
            "--expose",
            "allowed",
        ])
        .current_dir(dir.path())
        .env("HOME", isolated_home())
        .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let pipe = serve.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let found = loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) if line.contains("following updates of the first 10000 of its") => {
                break Some(line);
            }
            Ok(line) => seen.push(line),
            Err(_) => break None,
        }
    };
    let _ = serve.kill();
    let _ = serve.wait();
    let line = found.unwrap_or_else(|| panic!("no word of the cap; serve said: {seen:#?}"));
    assert!(line.contains("server `big`"), "{line}");
    assert!(
        !seen.iter().any(|l| l.contains("cannot watch")),
        "the subscription failed: {seen:#?}"
    );
}

/// The lines of a demo server's `--request-log` that start with `prefix`.
fn logged(log: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// How many URIs each `subscriptions/listen` that asked for updates named.
fn listens_for_updates(log: &Path) -> Vec<usize> {
    logged(log, "subscriptions/listen ")
        .iter()
        .filter_map(|l| l.rsplit_once("uris=")?.1.parse().ok())
        .filter(|&n| n > 0)
        .collect()
}

/// `mcpick serve --expose allowed` over the set at `set`, with no client: its stderr lines
/// as they come.
fn serve_quietly(dir: &Path, set: &Path) -> (std::process::Child, mpsc::Receiver<String>) {
    let mut serve = Command::new(mcpick_bin())
        .args(["serve", "--expose", "allowed", "--set"])
        .arg(set)
        .current_dir(dir)
        .env("HOME", isolated_home())
        .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let pipe = serve.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(pipe).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    (serve, rx)
}

/// A list change upstream that leaves the resources whose updates are followed as they were
/// asks no upstream for them again, in either era; one that adds some asks for those
/// (legacy: a `resources/subscribe` each, nothing unsubscribed; 2026-07-28: a new listen).
/// Two upstreams: `live` adds a resource every 300 ms, `still` never changes. `serve` used
/// to unsubscribe and subscribe again, or listen again, for every published resource of
/// every upstream on every change.
#[test]
fn a_list_change_asks_upstreams_only_for_the_updates_it_changed_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for era in ["2026-07-28", "legacy"] {
        let (live_log, still_log) = (
            d.join(format!("live-{era}.log")),
            d.join(format!("still-{era}.log")),
        );
        let demo = |log: &Path, churn: bool| {
            let mut args = vec!["--count", "5", "--request-log", log.to_str().unwrap()];
            if churn {
                args.extend(["--churn", "300"]);
            }
            args.into_iter().map(String::from).collect::<Vec<_>>()
        };
        let server = |log: &Path, churn: bool| -> Value {
            let mut args = demo(log, churn);
            if era == "legacy" {
                args.push("--legacy".into());
            }
            serde_json::json!({ "type": "stdio", "command": fixture_bin(), "args": args })
        };
        let set = serde_json::json!({
            "version": 1,
            "marks": [],
            "policy": { "audience": "any", "tokenizer": "o200k_base", "budget": "all" },
            "servers": { "live": server(&live_log, true), "still": server(&still_log, false) },
        });
        let path = d.join(format!("set-{era}.json"));
        std::fs::write(&path, serde_json::to_string_pretty(&set).unwrap()).unwrap();
        let approved = mcpick_in(d, &[], &["trust", "--yes", "--set", path.to_str().unwrap()]);
        assert!(approved.status.success(), "{}", stderr(&approved));
        let (mut serve, lines) = serve_quietly(d, &path);
        let mut seen = Vec::new();
        let mut changes = 0;
        while changes < 4 {
            match lines.recv_timeout(Duration::from_secs(60)) {
                Ok(line) => {
                    changes += line.contains("the published list changed") as usize;
                    seen.push(line);
                }
                Err(_) => panic!("{era}: {changes} list changes published; serve said: {seen:#?}"),
            }
        }
        // What the last changes ask for is asked once they pause (or a second at most later).
        std::thread::sleep(Duration::from_millis(2500));
        let _ = serve.kill();
        let _ = serve.wait();
        assert!(
            !seen.iter().any(|l| l.contains("cannot watch")),
            "{era}: {seen:#?}"
        );
        if era == "legacy" {
            for (name, log) in [("still", &still_log), ("live", &live_log)] {
                let subscribed = logged(log, "resources/subscribe ");
                let mut once = subscribed.clone();
                once.sort();
                once.dedup();
                assert_eq!(
                    once.len(),
                    subscribed.len(),
                    "{name}: each URI subscribed once: {subscribed:#?}"
                );
                assert_eq!(
                    logged(log, "resources/unsubscribe "),
                    Vec::<String>::new(),
                    "{name}: nothing left the followed set"
                );
            }
            let live = logged(&live_log, "resources/subscribe demo://live/");
            assert!(
                live.len() > 1,
                "the resources added are followed: {live:#?}"
            );
        } else {
            let still = listens_for_updates(&still_log);
            assert_eq!(still.len(), 1, "still: one listen, at the start: {still:?}");
            let live = listens_for_updates(&live_log);
            assert!(
                live.len() > 1 && live.last() > live.first(),
                "live: the resources added are followed: {live:?}"
            );
        }
    }
}

/// While `serve` runs it writes the set's session-start delivery again from its own engine:
/// once it is ready, and after the set changes, with the upstream started and listed once
/// (it used to list every upstream again, in a second connection, 5 s after it was ready).
#[test]
fn serve_keeps_the_delivery_fresh_without_starting_the_upstream_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = std::fs::canonicalize(dir.path()).unwrap();
    let log = d.join("requests.log");
    let set = d.join("mcpick.context.json");
    let server = serde_json::json!({
        "type": "stdio",
        "command": fixture_bin(),
        "args": ["--request-log", log.to_str().unwrap()],
    });
    let doc = serde_json::json!({
        "version": 1,
        "marks": [],
        "policy": { "audience": "any", "tokenizer": "o200k_base", "budget": 300 },
        "servers": { "demo": server },
    });
    let readme = "file:///project/README.md";
    std::fs::write(&set, doc.to_string()).unwrap();
    let mut pages = 0;
    for args in [
        &["trust", "--yes"][..],
        &["pin", readme][..],
        &["install", "claude-code"][..],
    ] {
        let before = logged(&log, "resources/list").len();
        let out = mcpick_in(&d, &[], args);
        assert_eq!(exit_code(&out), 0, "{args:?}: {}", stderr(&out));
        // `install` lists the server once: how many pages a listing is.
        pages = logged(&log, "resources/list").len() - before;
    }
    assert!(pages > 0, "install listed the server");
    let delivered = d.join(".mcpick/mcpick.claude-code.md");
    assert!(
        std::fs::read_to_string(&delivered)
            .unwrap()
            .contains(readme)
    );
    let header = "server `demo` · `demo://assets/logo.png`";
    // Stale on purpose: `serve` writes it again once ready.
    std::fs::write(&delivered, "stale").unwrap();
    let listed = logged(&log, "resources/list").len();
    let (mut serve, lines) = serve_quietly(&d, &set);
    let wait = |what: &str, ok: &dyn Fn(&str) -> bool| {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let text = std::fs::read_to_string(&delivered).unwrap_or_default();
            if ok(&text) {
                return;
            }
            if std::time::Instant::now() > deadline {
                let said: Vec<String> = lines.try_iter().collect();
                panic!("{what}: the delivery is {text:?}; serve said: {said:#?}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait("written once ready", &|t| t.contains(readme));
    // The set changes on disk (as another process saves it; the README's pin copied to the
    // logo): written again with the new pin.
    let mut now: Value = serde_json::from_str(&std::fs::read_to_string(&set).unwrap()).unwrap();
    let pin = now["marks"][0]
        .to_string()
        .replace(readme, "demo://assets/logo.png");
    let pin: Value = serde_json::from_str(&pin).unwrap();
    now["marks"].as_array_mut().unwrap().push(pin);
    std::fs::write(&set, now.to_string()).unwrap();
    wait("written after the set changed", &|t| t.contains(header));
    let _ = serve.kill();
    let _ = serve.wait();
    assert_eq!(
        logged(&log, "resources/list").len(),
        listed + pages,
        "the upstream was listed once ({pages} pages), by the engine"
    );
}
