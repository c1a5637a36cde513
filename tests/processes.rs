//! Processes and arguments: `--timeout` validation, a missing `cwd`, and the era memory (a
//! legacy server that never answers `server/discover` is greeted with `initialize` at once
//! from its second start on).
//!
//! The era tests put a small proxy (tests/fixtures/era_proxy.py, plain python3) in front of the
//! demo server: it drops `server/discover` the way FastMCP 1.x does (a stderr complaint, no
//! answer), or refuses `initialize`, and logs every method it receives.

mod common;

use std::path::Path;

use common::{exit_code, mcpick_in, mcpick_json_in, repo_root, stderr};
use serde_json::Value;

#[test]
fn unusable_timeouts_are_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["nan", "0", "inf", "-1", "1e20"] {
        let out = mcpick_in(dir.path(), &[], &["ls", "--demo", "--timeout", bad]);
        let err = stderr(&out);
        assert_eq!(exit_code(&out), 2, "--timeout {bad}: {err}");
        assert!(
            err.contains("positive number of seconds") && err.contains(bad),
            "--timeout {bad}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    let (code, doc, err) = mcpick_json_in(
        dir.path(),
        &[("MCPICK_CACHE_DIR", "")],
        &["ls", "--json", "--demo", "--timeout", "0.5"],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["resources"].as_array().unwrap().len(), 300);
}

#[test]
fn a_missing_cwd_is_named_not_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mcpick.toml");
    std::fs::write(
        &config,
        format!(
            "[servers.nowhere]\ncommand = \"{}\"\nargs = [\"demo-server\"]\ncwd = \"{}/no-such-dir\"\n",
            common::mcpick_bin(),
            dir.path().display()
        ),
    )
    .unwrap();
    let (code, doc, err) = mcpick_json_in(
        dir.path(),
        &[("MCPICK_CACHE_DIR", "")],
        &[
            "ls",
            "--json",
            "--config",
            config.to_str().unwrap(),
            "--server",
            "nowhere",
        ],
    );
    assert_eq!(code, 1, "{err}");
    let error = doc["servers"][0]["error"].as_str().unwrap();
    assert!(error.contains("no-such-dir"), "{error}");
    assert!(error.contains("does not exist"), "{error}");
    assert!(
        !error.to_lowercase().contains("no such file"),
        "reported as the command not found: {error}"
    );
}

/// Runs `mcpick ls --json` on the demo server behind the era proxy, with the era memory in
/// `cache`; returns the document and the methods the proxy received.
fn ls_through_proxy(dir: &Path, cache: &Path, mode: &str) -> (Value, Vec<String>) {
    ls_through_proxy_with(dir, cache, mode, &[])
}

/// [`ls_through_proxy`] with more of `ls`'s options.
fn ls_through_proxy_with(
    dir: &Path,
    cache: &Path,
    mode: &str,
    options: &[&str],
) -> (Value, Vec<String>) {
    let log = dir.join(format!("methods-{mode}.log"));
    let _ = std::fs::remove_file(&log);
    let proxy = repo_root().join("tests/fixtures/era_proxy.py");
    let mut args = vec!["ls", "--json", "--name", "proxied"];
    args.extend_from_slice(options);
    args.extend([
        "--",
        "python3",
        proxy.to_str().unwrap(),
        common::mcpick_bin(),
        "demo-server",
    ]);
    let (code, doc, err) = mcpick_json_in(
        dir,
        &[
            ("MCPICK_CACHE_DIR", cache.to_str().unwrap()),
            ("ERA_PROXY_MODE", mode),
            ("ERA_PROXY_LOG", log.to_str().unwrap()),
        ],
        &args,
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["resources"].as_array().unwrap().len(), 300, "{err}");
    let methods = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect();
    (doc, methods)
}

/// The eras remembered in the cache directory, in key order.
fn remembered(cache: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(cache.join("eras.json")).expect("the era memory");
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["servers"]
        .as_object()
        .unwrap()
        .values()
        .map(|e| {
            (
                e["era"].as_str().unwrap().to_string(),
                e["protocol"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_legacy_server_is_not_probed_again_once_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");

    // First start: the probe goes out, gets no answer, and the legacy handshake follows.
    let (doc, methods) = ls_through_proxy(dir.path(), &cache, "no-discover");
    assert_eq!(
        methods[..2],
        ["server/discover", "initialize"],
        "{methods:?}"
    );
    assert_eq!(doc["servers"][0]["protocolVersion"], "2025-11-25");
    assert_eq!(
        remembered(&cache),
        [("legacy".to_string(), "2025-11-25".to_string())]
    );
    // The file names no server, command or path.
    let text = std::fs::read_to_string(cache.join("eras.json")).unwrap();
    for plain in ["proxied", "era_proxy", "demo-server", "python3"] {
        assert!(!text.contains(plain), "{plain} in {text}");
    }

    // Second start: straight to `initialize`, no probe.
    let (doc, methods) = ls_through_proxy(dir.path(), &cache, "no-discover");
    assert_eq!(methods.first().map(String::as_str), Some("initialize"));
    assert!(
        !methods.iter().any(|m| m == "server/discover"),
        "probed again: {methods:?}"
    );
    assert_eq!(doc["servers"][0]["protocolVersion"], "2025-11-25");
}

#[test]
fn a_remembered_era_that_fails_is_probed_again_and_updated() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    ls_through_proxy(dir.path(), &cache, "no-discover");
    assert_eq!(remembered(&cache)[0].0, "legacy");

    // The same server definition now refuses `initialize` (it became modern-only): the
    // remembered handshake fails, the probe follows and succeeds, and the memory follows.
    let (doc, methods) = ls_through_proxy(dir.path(), &cache, "no-initialize");
    assert_eq!(
        methods[..2],
        ["initialize", "server/discover"],
        "{methods:?}"
    );
    assert_eq!(doc["servers"][0]["protocolVersion"], "2026-07-28");
    assert_eq!(
        remembered(&cache),
        [("modern".to_string(), "2026-07-28".to_string())]
    );
}

/// A modern server slow to start answers the probe only after rmcp fell back to `initialize`,
/// and refuses that (FastMCP 4 on a busy machine): mcpick connects again with
/// `server/discover` alone, and, remembering the era, goes straight to it next time (the
/// probe's 10 s fallback would lose the server again).
// Takes three slow starts of 10.5 s; nothing here is timed.
#[test]
fn a_slow_modern_server_that_answers_the_probe_late_is_connected_with_discover() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let (doc, methods) = ls_through_proxy(dir.path(), &cache, "slow-start");
    assert_eq!(
        methods[..3],
        ["server/discover", "initialize", "server/discover"],
        "{methods:?}"
    );
    assert!(
        !methods[3..].contains(&"initialize".to_string()),
        "{methods:?}"
    );
    assert_eq!(doc["servers"][0]["protocolVersion"], "2026-07-28");
    assert_eq!(
        remembered(&cache),
        [("modern".to_string(), "2026-07-28".to_string())]
    );

    let (doc, methods) = ls_through_proxy(dir.path(), &cache, "slow-start");
    assert_eq!(methods.first().map(String::as_str), Some("server/discover"));
    assert!(!methods.contains(&"initialize".to_string()), "{methods:?}");
    assert_eq!(doc["servers"][0]["protocolVersion"], "2026-07-28");
}

/// A server remembered as modern that now stays silent on `server/discover` (it became a
/// legacy server like FastMCP 1.x): the handshake it was remembered with times out, the probe
/// follows, falls back to `initialize`, and the memory follows.
// Takes a 3 s limit and rmcp's 10 s probe wait; nothing here is timed.
#[test]
fn a_remembered_modern_server_that_went_silent_is_probed_again() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    ls_through_proxy(dir.path(), &cache, "");
    assert_eq!(remembered(&cache)[0].0, "modern");

    let (doc, methods) =
        ls_through_proxy_with(dir.path(), &cache, "no-discover", &["--timeout", "3"]);
    assert_eq!(
        methods[..3],
        ["server/discover", "server/discover", "initialize"],
        "{methods:?}"
    );
    assert_eq!(doc["servers"][0]["protocolVersion"], "2025-11-25");
    assert_eq!(remembered(&cache)[0].0, "legacy");
}

#[test]
fn a_corrupt_era_memory_is_ignored_and_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join("eras.json"), b"{\"servers\": {\"oops\": tru").unwrap();
    // The server is modern: the probe answers at once, and the era is written anew.
    let (doc, methods) = ls_through_proxy(dir.path(), &cache, "");
    assert_eq!(methods.first().map(String::as_str), Some("server/discover"));
    assert_eq!(doc["servers"][0]["protocolVersion"], "2026-07-28");
    assert_eq!(
        remembered(&cache),
        [("modern".to_string(), "2026-07-28".to_string())]
    );
}

#[test]
fn an_empty_cache_dir_setting_turns_the_memory_off() {
    let dir = tempfile::tempdir().unwrap();
    let (_, methods) = ls_through_proxy(dir.path(), Path::new(""), "");
    assert_eq!(methods.first().map(String::as_str), Some("server/discover"));
    // Nothing was written, not even relative to the working directory.
    let written: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("eras"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
}
