//! `mcpick watch --json`: what a running server changes arrives as JSON Lines, against the
//! project's demo server (stdio, modern era; its clock resource changes every second), the
//! demo over Streamable HTTP, a server that goes away (stdio: for good; HTTP: until it is
//! back), and the progress line while connecting.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{Background, demo_command, fixture_bin, isolated_home, mcpick_bin};
use serde_json::Value;

/// `mcpick watch --json ARGS` running; its events read line by line.
struct Watching {
    child: Child,
    events: mpsc::Receiver<Value>,
    seen: Vec<Value>,
}

impl Watching {
    fn start(args: &[&str]) -> Watching {
        Self::start_with(args, &[])
    }

    /// Like [`Watching::start`], with more environment variables.
    fn start_with(args: &[&str], env: &[(&str, &std::path::Path)]) -> Watching {
        let mut child = Command::new(mcpick_bin())
            .arg("watch")
            .arg("--json")
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .env("HOME", isolated_home())
            .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start mcpick watch");
        let (tx, events) = mpsc::channel();
        let stdout = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let event: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("not one JSON object per line ({e}): {line}"));
                if tx.send(event).is_err() {
                    break;
                }
            }
        });
        Watching {
            child,
            events,
            seen: Vec::new(),
        }
    }

    /// Waits up to 30 s for an event matching `ok`; returns it.
    fn wait(&mut self, what: &str, ok: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(event) => {
                    self.seen.push(event.clone());
                    if ok(&event) {
                        return event;
                    }
                }
                Err(_) => panic!("no {what}; events so far: {:#?}", self.seen),
            }
        }
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is(event: &Value, kind: &str) -> bool {
    event["event"] == kind
}

#[test]
fn updates_of_the_demo_clock_arrive_over_stdio_and_http() {
    let http = Background::demo_http(&[]);
    let url = http.url.clone();
    for args in [vec!["--demo"], vec!["--url", url.as_str()]] {
        let mut watch = Watching::start(&args);
        let listed = watch.wait("the listing", |e| is(e, "listed"));
        assert_eq!(listed["count"], 300, "{args:?}");
        assert_eq!(listed["server"].as_str().map(str::is_empty), Some(false));
        let watching = watch.wait("the subscription", |e| is(e, "watching"));
        assert_eq!(watching["listChanged"], true, "{watching}");
        assert_eq!(watching["subscribed"], 300, "{watching}");
        // The clock changes every second; both updates name it.
        for _ in 0..2 {
            let updated = watch.wait("an update", |e| is(e, "updated"));
            assert_eq!(updated["uri"], "demo://clock/now", "{args:?}");
        }
    }
}

#[test]
fn a_stdio_server_that_goes_away_is_reported_and_watch_ends_with_status_1() {
    // The demo server is stopped after two seconds; its end of the pipe closes.
    let script = format!("timeout 2 {} demo-server", mcpick_bin());
    let mut watch = Watching::start(&["--", "sh", "-c", &script]);
    watch.wait("the listing", |e| is(e, "listed"));
    let closed = watch.wait("the server's end", |e| is(e, "closed"));
    assert!(
        closed["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{closed}"
    );
    let status = watch.child.wait().expect("watch ends by itself");
    assert_eq!(status.code(), Some(1));
    // Not started again: nothing followed the end.
    while let Ok(event) = watch.events.recv_timeout(Duration::from_secs(1)) {
        watch.seen.push(event);
    }
    assert_eq!(watch.seen.last(), Some(&closed), "{:#?}", watch.seen);
    assert!(!watch.seen.iter().any(|e| is(e, "unavailable")));
}

/// A free loopback address, for a server that must come back on the same one.
fn free_address() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

/// An HTTP server that goes away is unavailable (and tried again) until it is back on the
/// same address; then what it lists differently is printed, and its resources are asked for
/// again in full on the new connection (its request log: legacy, every URI subscribed;
/// 2026-07-28, one listen naming them all), in both eras.
#[test]
fn an_http_server_that_restarts_is_back_with_what_changed_meanwhile() {
    let dir = tempfile::tempdir().unwrap();
    for era in ["2026-07-28", "legacy"] {
        let address = free_address();
        let log = dir.path().join(format!("{era}.log"));
        let start = |count: &str, log: Option<&std::path::Path>| {
            let mut args = vec!["--http", &address, "--count", count];
            if era == "legacy" {
                args.push("--legacy");
            }
            if let Some(log) = log {
                args.extend(["--request-log", log.to_str().unwrap()]);
            }
            let command = demo_command(&args);
            Background::start(command[0], &command[1..], &[])
        };
        let server = start("20", None);
        let mut watch = Watching::start(&["--url", &server.url]);
        assert_eq!(watch.wait("the listing", |e| is(e, "listed"))["count"], 20);
        watch.wait("the subscription", |e| is(e, "watching"));
        drop(server); // killed
        let gone = watch.wait("the outage", |e| is(e, "unavailable"));
        assert!(
            gone["error"].as_str().is_some_and(|e| !e.is_empty()),
            "{gone}"
        );
        assert_eq!(gone["attempt"], 1, "{gone}");
        assert!(gone["retryInMs"].as_u64().is_some(), "{gone}");
        let _server = start("25", Some(&log));
        let back = watch.wait("the return", |e| is(e, "back"));
        assert_eq!(back["count"], 25, "{era}: {back}");
        let at = watch.seen.len();
        let watching = watch.wait("the subscription again", |e| is(e, "watching"));
        assert_eq!(watching["subscribed"], 25, "{era}: {watching}");
        let meanwhile = &watch.seen[at..];
        let added = meanwhile.iter().filter(|e| is(e, "added")).count();
        assert_eq!(added, 5, "what it lists now and did not: {meanwhile:#?}");
        assert!(
            !meanwhile.iter().any(|e| is(e, "removed")),
            "{meanwhile:#?}"
        );
        // The clock's updates come through the new connection.
        let updated = watch.wait("an update after the return", |e| is(e, "updated"));
        assert_eq!(updated["uri"], "demo://clock/now");
        assert!(
            !watch
                .seen
                .iter()
                .any(|e| is(e, "closed") || is(e, "failed")),
            "{:#?}",
            watch.seen
        );
        if era == "legacy" {
            let mut subscribed = logged(&log, "resources/subscribe ");
            subscribed.sort();
            subscribed.dedup();
            assert_eq!(subscribed.len(), 25, "{subscribed:#?}");
        } else {
            assert_eq!(listens_for_updates(&log), vec![25]);
        }
    }
}

/// On a terminal, `watch` shows what it is doing while it connects and lists, and clears
/// that line before it prints a server's listing on the same terminal.
#[test]
fn connecting_shows_progress_and_clears_it_before_the_listing() {
    // Stdout and stderr on one pseudo-terminal; the demo server ends after a few seconds,
    // and `watch` with it.
    let script = r#"
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
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
p.wait()
sys.stdout.buffer.write(out)
sys.exit(p.returncode)
"#;
    let server = format!("timeout 5 {} demo-server", mcpick_bin());
    let out = Command::new("python3")
        .args(["-c", script, mcpick_bin(), "watch", "--name", "demo"])
        .args(["--", "sh", "-c", &server])
        .env("HOME", isolated_home())
        .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
        .output()
        .unwrap();
    let terminal = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{terminal:?}");
    assert!(
        terminal.contains("\rconnecting… demo: connecting")
            || terminal.contains("\rconnecting… demo: listing"),
        "no progress while connecting: {terminal:?}"
    );
    assert!(!terminal.contains('\x1b'), "an escape: {terminal:?}");
    let listed = terminal
        .find("demo: 300 resources")
        .unwrap_or_else(|| panic!("no listing: {terminal:?}"));
    // The progress line was overwritten with spaces (and the cursor put back) first.
    let before = &terminal[..listed];
    let cleared = before
        .strip_suffix('\r')
        .and_then(|b| b.rsplit_once('\r'))
        .is_some_and(|(_, blank)| !blank.is_empty() && blank.chars().all(|c| c == ' '));
    assert!(
        cleared,
        "the listing shares the progress line: {terminal:?}"
    );
}

#[test]
fn a_server_that_cannot_start_is_a_failed_event() {
    let mut watch = Watching::start(&["--", "/nonexistent/mcp-server"]);
    let failed = watch.wait("the failure", |e| is(e, "failed"));
    assert!(
        failed["error"]
            .as_str()
            .is_some_and(|e| e.contains("/nonexistent/mcp-server")),
        "{failed}"
    );
    assert_eq!(watch.child.wait().unwrap().code(), Some(1));
}

/// Runs tests/peers/call_tool.py: one tool call through the Python SDK's client.
fn call_tool(url: &str, tool: &str, arguments: &str) {
    let script = common::repo_root().join("tests/peers/call_tool.py");
    let out = Command::new(common::python())
        .arg(script)
        .args([url, tool, arguments])
        .output()
        .expect("run call_tool.py");
    assert!(
        out.status.success(),
        "{tool}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The Python SDK's server over Streamable HTTP: a resource another client adds (through the
/// server's `add_resource` tool) reaches `watch` through `subscriptions/listen`, and so does
/// an update of it (`touch_resource`) once it is subscribed.
#[test]
fn python_server_changes_arrive_over_streamable_http() {
    let server = Background::start(
        &common::python(),
        &[&common::py_server(), "--http", "0", "--count", "20"],
        &[],
    );
    let url = server.url.clone();
    let mut watch = Watching::start(&["--url", &url]);
    assert_eq!(watch.wait("the listing", |e| is(e, "listed"))["count"], 20);
    let watching = watch.wait("the subscription", |e| is(e, "watching"));
    assert_eq!(watching["listChanged"], true, "{watching}");
    call_tool(
        &url,
        "add_resource",
        r#"{"uri": "py://added/watched", "text": "v1"}"#,
    );
    let added = watch.wait("the new resource", |e| is(e, "added"));
    assert_eq!(added["uri"], "py://added/watched");
    // Newcomers are subscribed too (the watch is renewed after the list grew).
    watch.wait("the renewed subscription", |e| is(e, "watching"));
    call_tool(&url, "touch_resource", r#"{"uri": "py://added/watched"}"#);
    let updated = watch.wait("the update", |e| is(e, "updated"));
    assert_eq!(updated["uri"], "py://added/watched");
}

/// The legacy era over HTTP+SSE (the demo's `--legacy`: `server/discover` is refused, so the
/// client greets with `initialize`): `list_changed` and, for the `resources/subscribe`d
/// resources, `updated` arrive as notifications on the stream. The request log shows the era:
/// a `resources/subscribe` per URI and no `subscriptions/listen`. (Without `--legacy` the demo
/// answers `server/discover` over `/sse` too, and the two speak 2026-07-28.)
#[test]
fn legacy_era_list_changes_and_updates_arrive_over_sse() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.log");
    let server = Background::fixture_http(&[
        "--legacy",
        "--count",
        "5",
        "--churn",
        "500",
        "--request-log",
        log.to_str().unwrap(),
    ]);
    let sse = server.at("/sse");
    let mut watch = Watching::start(&["--sse", "--url", &sse]);
    watch.wait("the listing", |e| is(e, "listed"));
    let watching = watch.wait("the subscription", |e| is(e, "watching"));
    assert!(
        watching["subscribed"].as_u64().unwrap_or(0) >= 6,
        "{watching}"
    );
    let added = watch.wait("a resource the server added", |e| is(e, "added"));
    assert!(
        added["uri"]
            .as_str()
            .is_some_and(|u| u.starts_with("demo://live/")),
        "{added}"
    );
    let updated = watch.wait("an update", |e| is(e, "updated"));
    assert_eq!(updated["uri"], "demo://live/0");
    assert_eq!(logged(&log, "subscriptions/listen"), Vec::<String>::new());
    let subscribed = logged(&log, "resources/subscribe ");
    assert!(
        subscribed
            .iter()
            .any(|l| l == "resources/subscribe demo://live/0"),
        "the legacy era subscribes each resource: {subscribed:#?}"
    );
}

/// The lines of a demo server's `--request-log` that start with `prefix`.
fn logged(log: &std::path::Path, prefix: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// How many URIs each `subscriptions/listen` that asked for updates named, in order.
fn listens_for_updates(log: &std::path::Path) -> Vec<usize> {
    logged(log, "subscriptions/listen ")
        .iter()
        .filter_map(|l| l.rsplit_once("uris=")?.1.parse().ok())
        .filter(|&n| n > 0)
        .collect()
}

/// A server that adds a resource every 100 ms is asked for updates of what it adds, not
/// again for everything: legacy, each URI is `resources/subscribe`d once (none unsubscribed);
/// 2026-07-28, a new `subscriptions/listen` at most once a second, the last naming every
/// resource added. `watch` used to subscribe everything again, or listen again, on every
/// list change.
#[test]
fn a_list_change_asks_only_for_the_updates_it_adds_in_both_eras() {
    let dir = tempfile::tempdir().unwrap();
    for era in ["2026-07-28", "legacy"] {
        let log = dir.path().join(format!("{era}.log"));
        let mut args = vec![fixture_bin(), "--count", "5", "--churn", "100"];
        args.extend(["--request-log", log.to_str().unwrap()]);
        if era == "legacy" {
            args.push("--legacy");
        }
        args.insert(0, "--");
        let began = Instant::now();
        let mut watch = Watching::start(&args);
        watch.wait("the listing", |e| is(e, "listed"));
        let mut added = Vec::new();
        while added.len() < 20 {
            let event = watch.wait("a resource the server added", |e| is(e, "added"));
            added.push(event["uri"].as_str().unwrap_or_default().to_string());
        }
        // What the last changes ask for is asked once they pause (or a second later).
        std::thread::sleep(Duration::from_millis(2500));
        drop(watch);
        let seconds = began.elapsed().as_secs_f64();
        if era == "legacy" {
            assert_eq!(logged(&log, "subscriptions/listen"), Vec::<String>::new());
            let subscribed = logged(&log, "resources/subscribe ");
            let mut once = subscribed.clone();
            once.sort();
            once.dedup();
            assert_eq!(
                once.len(),
                subscribed.len(),
                "each URI subscribed once: {subscribed:#?}"
            );
            for uri in &added {
                assert!(
                    once.contains(&format!("resources/subscribe {uri}")),
                    "{uri} was added and is not followed: {subscribed:#?}"
                );
            }
            assert_eq!(
                logged(&log, "resources/unsubscribe "),
                Vec::<String>::new(),
                "nothing left the followed set"
            );
        } else {
            assert_eq!(logged(&log, "resources/subscribe"), Vec::<String>::new());
            let listens = listens_for_updates(&log);
            assert!(
                !listens.is_empty() && listens.len() as f64 <= 2.0 + seconds,
                "at most a listen a second (and the first) in {seconds:.1} s: {listens:?}"
            );
            assert!(
                listens.last().is_some_and(|&n| n >= 6 + added.len()),
                "the last listen names the {} resources added: {listens:?}",
                added.len()
            );
        }
    }
}

/// A server written against the legacy API (the Python SDK's `--clock` peer): it answers both
/// handshakes, declares `resources.subscribe` only after `initialize` and ticks for
/// `resources/subscribe` alone. `watch --uri` greets it with `initialize`, so the clock's
/// updates arrive, at the first start (era memory empty) and the next (era remembered).
#[test]
fn updates_of_a_clock_that_ticks_only_for_legacy_subscribe_arrive() {
    let cache = tempfile::tempdir().unwrap();
    let env = [("MCPICK_CACHE_DIR", cache.path())];
    for start in ["first start", "era remembered"] {
        let mut watch = Watching::start_with(
            &[
                "--uri",
                "py://clock/now",
                "--",
                &common::python(),
                &common::py_server(),
                "--clock",
                "--count",
                "3",
            ],
            &env,
        );
        let watching = watch.wait("the subscription", |e| is(e, "watching"));
        assert_eq!(watching["subscribed"], 1, "{start}: {watching}");
        let began = Instant::now();
        for _ in 0..2 {
            let updated = watch.wait("an update", |e| is(e, "updated"));
            assert_eq!(updated["uri"], "py://clock/now", "{start}");
        }
        // It ticks every 0.5 s: two updates come well within a few seconds.
        assert!(began.elapsed() < Duration::from_secs(5), "{start}");
        let eras = std::fs::read_to_string(cache.path().join("eras.json")).unwrap();
        assert!(eras.contains("\"legacy\""), "{start}: {eras}");
    }
}
