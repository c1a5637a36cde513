//! mcpick against real third-party MCP servers: server-everything (TypeScript SDK, legacy era)
//! in its three transports, server-filesystem (no resources), and a paging server written with
//! Python's `mcp` SDK (dual era). They are installed from committed lockfiles by
//! `tests/peers/install.sh` on first use.

mod common;

use std::collections::HashSet;

use common::*;
use serde_json::Value;

const STATIC_DOC: &str = "demo://resource/static/document/architecture.md";

fn assert_everything_listing(doc: &Value, transport: &str) {
    let server = &doc["servers"][0];
    assert_eq!(server["transport"], transport, "{doc:#}");
    assert!(server["error"].is_null(), "{doc:#}");
    assert_eq!(
        server["protocolVersion"], "2025-11-25",
        "server-everything is legacy-only"
    );
    assert_eq!(server["serverInfo"]["name"], "mcp-servers/everything");
    assert!(server["capabilities"]["resources"].is_object());
    let uris = uris(doc);
    assert_eq!(uris.len(), 7, "{uris:?}");
    assert!(
        uris.iter()
            .all(|u| u.starts_with("demo://resource/static/document/"))
    );
    assert!(uris.contains(&STATIC_DOC.to_string()), "{uris:?}");
    let templates: Vec<&str> = doc["templates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["uriTemplate"].as_str().unwrap())
        .collect();
    assert!(
        templates.contains(&"demo://resource/dynamic/text/{resourceId}"),
        "{templates:?}"
    );
    assert!(templates.contains(&"demo://resource/dynamic/blob/{resourceId}"));
}

#[test]
fn everything_over_stdio_lists_reads_and_reports_not_found() {
    let js = everything_js();
    let (code, doc, err) =
        mcpick_json(&["ls", "--json", "--templates", "--", "node", &js, "stdio"]);
    assert_eq!(code, 0, "{err}");
    assert_everything_listing(&doc, "stdio");
    assert_eq!(doc["servers"][0]["name"], "server-everything");

    let out = mcpick(&["read", STATIC_DOC, "--", "node", &js, "stdio"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains('#'),
        "markdown expected: {}",
        stdout(&out)
    );

    // A blob from a template, written raw because stdout is a pipe here.
    let out = mcpick(&[
        "read",
        "demo://resource/dynamic/blob/1",
        "--",
        "node",
        &js,
        "stdio",
    ]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!out.stdout.is_empty());

    let out = mcpick(&[
        "read",
        "demo://nope",
        "--name",
        "everything",
        "--",
        "node",
        &js,
        "stdio",
    ]);
    assert_eq!(exit_code(&out), 3, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("demo://nope") && err.contains("everything"),
        "{err}"
    );
}

#[test]
fn everything_over_streamable_http() {
    let server = Background::start(
        "node",
        &[
            "--require",
            &loopback_cjs(),
            &everything_js(),
            "streamableHttp",
        ],
        &[("PORT", "0")],
    );
    let url = server.at("/mcp");
    let (code, doc, err) = mcpick_json(&["ls", "--json", "--templates", "--url", &url]);
    assert_eq!(code, 0, "{err}");
    assert_everything_listing(&doc, "http");

    let out = mcpick(&["read", STATIC_DOC, "--url", &url]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!out.stdout.is_empty());
    let out = mcpick(&["read", "demo://nope", "--url", &url]);
    assert_eq!(exit_code(&out), 3, "{}", stderr(&out));
}

#[test]
fn everything_over_legacy_sse_is_detected() {
    let server = Background::start(
        "node",
        &["--require", &loopback_cjs(), &everything_js(), "sse"],
        &[("PORT", "0")],
    );
    let url = server.at("/sse");
    // Streamable HTTP is tried first; the server's answer makes mcpick fall back to SSE.
    let (code, doc, err) = mcpick_json(&["ls", "--json", "--templates", "--url", &url]);
    assert_eq!(code, 0, "{err}");
    assert_everything_listing(&doc, "sse");

    // Forced SSE, and a read over it.
    let out = mcpick(&["read", STATIC_DOC, "--url", &url, "--sse"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert!(!out.stdout.is_empty());
    let out = mcpick(&["read", "demo://nope", "--url", &url, "--sse"]);
    assert_eq!(exit_code(&out), 3, "{}", stderr(&out));
}

#[test]
fn filesystem_server_has_no_resources_and_that_is_not_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().to_string_lossy().into_owned();
    let js = filesystem_js();
    let (code, doc, err) = mcpick_json(&["ls", "--json", "--templates", "--", "node", &js, &dir]);
    assert_eq!(code, 0, "{err}");
    let server = &doc["servers"][0];
    assert!(server["error"].is_null(), "{doc:#}");
    assert_eq!(server["hasResources"], false);
    assert!(resources(&doc).is_empty());

    let out = mcpick(&["read", "file:///etc/hostname", "--", "node", &js, &dir]);
    assert_eq!(exit_code(&out), 3, "{}", stderr(&out));
    assert!(stderr(&out).contains("no resources"), "{}", stderr(&out));
}

/// The Python server pages `resources/list` itself: 25 pages of 10 by default.
fn assert_python_listing(doc: &Value) {
    let uris = uris(doc);
    assert_eq!(uris.len(), 250);
    let unique: HashSet<_> = uris.iter().collect();
    assert_eq!(unique.len(), 250, "every resource exactly once");
    assert!(uris.contains(&"py://blob/bytes.bin".to_string()));
    assert!(uris.contains(&"py://items/alpha/5".to_string()));
    // Annotations as the server sent them (n % 5 == 0 items carry them).
    let annotated = resources(doc)
        .iter()
        .filter(|r| !r["annotations"].is_null())
        .count();
    assert!(annotated > 0);
    assert_eq!(doc["templates"][0]["uriTemplate"], "py://items/{group}/{n}");
}

#[test]
fn python_sdk_server_over_stdio_speaks_the_modern_era_and_pages() {
    let py = python();
    let script = py_server();
    let (code, doc, err) = mcpick_json(&["ls", "--json", "--templates", "--", &py, &script]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        doc["servers"][0]["protocolVersion"], "2026-07-28",
        "{doc:#}"
    );
    assert_python_listing(&doc);

    let out = mcpick(&["read", "py://blob/bytes.bin", "--", &py, &script]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    assert_eq!(out.stdout, (0u8..=255).collect::<Vec<_>>());

    let out = mcpick(&["read", "py://items/zeta/9999", "--", &py, &script]);
    assert_eq!(
        exit_code(&out),
        0,
        "a template URI that is not listed still reads"
    );

    let out = mcpick(&["read", "py://nope", "--", &py, &script]);
    assert_eq!(exit_code(&out), 3, "{}", stderr(&out));
}

#[test]
fn python_sdk_server_over_http() {
    let server = Background::start(&python(), &[&py_server(), "--http", "0"], &[]);
    let (code, doc, err) = mcpick_json(&["ls", "--json", "--templates", "--url", &server.url]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(doc["servers"][0]["transport"], "http");
    assert_python_listing(&doc);

    let out = mcpick(&["read", "py://items/beta/6", "--json", "--url", &server.url]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let contents: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(contents[0]["uri"], "py://items/beta/6");
    assert!(contents[0]["text"].is_string());

    let out = mcpick(&["read", "py://nope", "--url", &server.url]);
    assert_eq!(exit_code(&out), 3, "{}", stderr(&out));
}
