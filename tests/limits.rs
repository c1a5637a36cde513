//! The one message-size limit (`--max-message-mib`, default 64 MiB) on every transport: a
//! reply within it arrives whole, a reply above it fails its request at once with the limit
//! named (never a timeout, never "connection closed"), and a reply that is not JSON is
//! reported as such. The fixture's `--big-mib N` makes `demo://big` N MiB of text.

mod common;

use std::process::Output;
use std::time::{Duration, Instant};

use common::*;

const MIB: usize = 1024 * 1024;
/// Far above how long any of these reads takes, so a reply lost in the transport would show
/// up as "timed out" rather than pass.
const TIMEOUT: &str = "120";

/// `mcpick read demo://big` with `args` (server selection and limits); returns the output
/// and how long it took.
fn read_big(args: &[&str]) -> (Output, Duration) {
    let mut all = vec!["read", "demo://big", "--timeout", TIMEOUT];
    all.extend(args);
    let started = Instant::now();
    let out = mcpick(&all);
    (out, started.elapsed())
}

fn stdio_demo(big_mib: &str) -> Vec<&str> {
    vec!["--", fixture_bin(), "--big-mib", big_mib]
}

fn assert_whole(out: &Output, mib: usize) {
    assert_eq!(exit_code(out), 0, "{}", stderr(out));
    assert_eq!(out.stdout.len(), mib * MIB, "the whole resource arrives");
}

/// Fails with the limit named, at once: well under the timeout, and not as a timeout or a
/// closed connection.
fn assert_refused(out: &Output, took: Duration, limit_mib: u32) {
    let err = stderr(out);
    assert_eq!(exit_code(out), 1, "{err}");
    assert!(
        err.contains(&format!("reply larger than {limit_mib} MiB")),
        "the limit is named: {err}"
    );
    for wrong in ["timed out", "closed", "rmcp::", "Transport ["] {
        assert!(!err.contains(wrong), "`{wrong}` in: {err}");
    }
    assert!(out.stdout.is_empty(), "nothing printed on stdout");
    assert!(
        took < Duration::from_secs(60),
        "failed after {took:?}, not at once"
    );
}

#[test]
fn stdio_reads_20_mib_and_refuses_100_mib() {
    let (out, _) = read_big(&stdio_demo("20"));
    assert_whole(&out, 20);
    let (out, took) = read_big(&stdio_demo("100"));
    assert_refused(&out, took, 64);
}

#[test]
fn the_limit_is_configurable() {
    let mut args = vec!["--max-message-mib", "8"];
    args.extend(stdio_demo("20"));
    let (out, took) = read_big(&args);
    assert_refused(&out, took, 8);
    // Raised, the 100 MiB reply passes.
    let mut args = vec!["--max-message-mib", "128"];
    args.extend(stdio_demo("100"));
    let (out, _) = read_big(&args);
    assert_whole(&out, 100);
}

#[test]
fn the_limit_flag_refuses_zero() {
    let out = mcpick(&["ls", "--max-message-mib", "0"]);
    assert_eq!(exit_code(&out), 2, "{}", stderr(&out));
}

fn http_demo(big_mib: &str) -> Background {
    Background::fixture_http(&["--big-mib", big_mib])
}

#[test]
fn streamable_http_reads_20_mib_and_refuses_100_mib() {
    let small = http_demo("20");
    let (out, _) = read_big(&["--url", &small.url]);
    assert_whole(&out, 20);
    let big = http_demo("100");
    let (out, took) = read_big(&["--url", &big.url]);
    assert_refused(&out, took, 64);
    let (out, took) = read_big(&["--url", &small.url, "--max-message-mib", "8"]);
    assert_refused(&out, took, 8);
}

#[test]
fn legacy_sse_reads_20_mib_and_refuses_100_mib() {
    let small = http_demo("20");
    let (out, _) = read_big(&["--url", &small.at("/sse"), "--sse"]);
    assert_whole(&out, 20);
    let big = http_demo("100");
    let (out, took) = read_big(&["--url", &big.at("/sse"), "--sse"]);
    assert_refused(&out, took, 64);
    let (out, took) = read_big(&[
        "--url",
        &small.at("/sse"),
        "--sse",
        "--max-message-mib",
        "8",
    ]);
    assert_refused(&out, took, 8);
}

#[test]
fn an_invalid_json_reply_is_reported_as_such_not_as_a_timeout() {
    let started = Instant::now();
    let out = mcpick(&[
        "read",
        "file:///project/README.md",
        "--timeout",
        TIMEOUT,
        "--",
        fixture_bin(),
        "--invalid-json-after",
        "0",
    ]);
    let took = started.elapsed();
    let err = stderr(&out);
    assert_eq!(exit_code(&out), 1, "{err}");
    assert!(
        err.contains("resources/read failed: invalid JSON from the server"),
        "{err}"
    );
    assert!(!err.contains("timed out"), "{err}");
    assert!(took < Duration::from_secs(60), "failed after {took:?}");
}

#[test]
fn ls_names_an_invalid_json_page_in_the_server_error() {
    let (code, doc, err) = mcpick_json(&[
        "ls",
        "--json",
        "--timeout",
        TIMEOUT,
        "--",
        fixture_bin(),
        "--invalid-json-after",
        "0",
    ]);
    assert_eq!(code, 1, "{err}");
    let error = doc["servers"][0]["error"].as_str().unwrap_or_default();
    assert!(error.contains("invalid JSON from the server"), "{doc}");
}
