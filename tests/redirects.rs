//! Configured headers never leave their origin: a redirect to another origin (307 or 308)
//! is refused on Streamable HTTP and on legacy HTTP+SSE with an error naming both origins,
//! the second origin receives nothing, and no request carries a Referer. Same-origin
//! redirects are followed.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use common::*;

const SECRET_HEADER: &str = "X-Api-Key: SECRET-HEADER-VALUE";
const SECRET_QUERY: &str = "token=SECRET-QUERY-VALUE";

/// A tiny HTTP/1.1 server on a free loopback port that records every request (request line
/// and headers) and answers each with `respond(path)`.
struct Origin {
    base: String,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Origin {
    fn start(respond: impl Fn(&str) -> String + Send + Sync + 'static) -> Origin {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let base = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let respond = Arc::new(respond);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                let (log, respond) = (log.clone(), respond.clone());
                std::thread::spawn(move || serve(stream, &log, &*respond));
            }
        });
        Origin { base, seen }
    }

    fn requests(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, log: &Mutex<Vec<String>>, respond: &dyn Fn(&str) -> String) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
    log.lock().unwrap().push(head);
    let mut stream = stream;
    let _ = stream.write_all(respond(&path).as_bytes());
}

fn redirect(status: u16, to: &str) -> String {
    format!(
        "HTTP/1.1 {status} Redirect\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
}

fn not_found() -> String {
    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into()
}

/// `mcpick ls --json` against `url` with the planted header; returns (code, server error).
fn ls(url: &str, sse: bool) -> (i32, String) {
    let mut args = vec![
        "ls",
        "--json",
        "--timeout",
        "20",
        "--url",
        url,
        "-H",
        SECRET_HEADER,
    ];
    if sse {
        args.push("--sse");
    }
    let (code, doc, err) = mcpick_json(&args);
    let error = doc["servers"][0]["error"].as_str().unwrap_or_default();
    (code, format!("{error}\n{err}"))
}

#[test]
fn cross_origin_redirects_are_refused_on_both_transports() {
    for status in [307, 308] {
        for sse in [false, true] {
            let elsewhere = Origin::start(|_| not_found());
            let target = format!("{}/steal?x=1", elsewhere.base);
            let first = Origin::start(move |_| redirect(status, &target));
            let url = format!("{}/mcp?{SECRET_QUERY}", first.base);
            let (code, error) = ls(&url, sse);
            let case = format!("HTTP {status}, sse: {sse}");
            assert_eq!(code, 1, "{case}: {error}");
            // `base` is exactly an origin: http://127.0.0.1:PORT.
            let refusal = format!(
                "refused a redirect from {} to {}",
                first.base, elsewhere.base
            );
            // Without --sse both transports are tried; each says why it failed.
            let tried = if sse { 1 } else { 2 };
            let server_error = error.lines().next().unwrap_or_default();
            assert_eq!(
                server_error.matches(&refusal).count(),
                tried,
                "{case}: {error}"
            );
            for wrong in ["rmcp::", "Transport [", "Client error"] {
                assert!(!server_error.contains(wrong), "{case}: {server_error}");
            }
            assert!(
                !first.requests().is_empty(),
                "{case}: the first origin was asked"
            );
            let leaked = elsewhere.requests();
            assert!(
                leaked.is_empty(),
                "{case}: the other origin received {leaked:#?}"
            );
            for line in error.lines().filter(|l| l.contains("refused a redirect")) {
                // The refusal itself names origins only (no path, query or header value).
                let refusal_part = &line[line.find("refused a redirect").unwrap()..];
                for secret in ["SECRET", "/steal", "x=1"] {
                    assert!(!refusal_part.contains(secret), "{case}: {refusal_part}");
                }
            }
        }
    }
}

#[test]
fn same_origin_redirects_keep_headers_and_send_no_referer() {
    let origin = Origin::start(|path| {
        if path.starts_with("/mcp") {
            redirect(307, "/next?y=2")
        } else {
            not_found()
        }
    });
    let url = format!("{}/mcp?{SECRET_QUERY}", origin.base);
    for sse in [false, true] {
        let (code, error) = ls(&url, sse);
        assert_eq!(code, 1, "the redirect target answers 404: {error}");
    }
    let followed: Vec<String> = origin
        .requests()
        .into_iter()
        .filter(|r| r.contains("/next?y=2"))
        .collect();
    assert!(
        followed.len() >= 2,
        "both transports followed the redirect: {:#?}",
        origin.requests()
    );
    for request in &followed {
        let lower = request.to_ascii_lowercase();
        assert!(
            lower.contains("x-api-key: secret-header-value"),
            "the header stays with its origin: {request}"
        );
        assert!(!lower.contains("referer"), "no Referer: {request}");
    }
}

#[test]
fn same_origin_redirects_reach_the_server_on_both_transports() {
    let server = Background::demo_http(&["--count", "7"]);
    for (path, sse, transport) in [("/moved/mcp", false, "http"), ("/moved/sse", true, "sse")] {
        let mut args = vec!["ls", "--json", "--url"];
        let url = server.at(path);
        args.push(&url);
        if sse {
            args.push("--sse");
        }
        let (code, doc, err) = mcpick_json(&args);
        assert_eq!(code, 0, "{path}: {err}");
        assert_eq!(doc["servers"][0]["transport"], transport);
        assert!(uris(&doc).len() >= 7, "{path}: {doc}");
    }
}
