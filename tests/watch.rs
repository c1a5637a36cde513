//! `mcpick watch --json`: what a running server changes arrives as JSON Lines, against the
//! project's demo server (stdio, modern era; its clock resource changes every second), the
//! demo over Streamable HTTP, and a server that goes away.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::{Background, isolated_home, mcpick_bin};
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
fn a_server_that_goes_away_is_reported_and_watch_ends_with_status_1() {
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

/// The legacy era (the HTTP+SSE transport speaks only 2024-11-05): `list_changed` and, for
/// the `resources/subscribe`d resources, `updated` arrive as notifications on the stream.
#[test]
fn legacy_era_list_changes_and_updates_arrive_over_sse() {
    let server = Background::demo_http(&["--count", "5", "--churn", "500"]);
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
