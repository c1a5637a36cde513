//! `mcp::Supervisor` against real server processes (the demo server): over Streamable HTTP,
//! a server that goes away after listing is tried again, and the next connection lists
//! again under the next generation; over stdio, one that exited stays ended.

mod common;

use std::time::{Duration, SystemTime};

use common::Background;
use mcpick::mcp::log::ServerLog;
use mcpick::mcp::supervisor::{Event, Followed, Supervisor};
use mcpick::mcp::{ConnectOptions, ListOptions, ServerSpec, TransportSpec};

async fn next(followed: &mut Followed) -> (u64, Event) {
    tokio::time::timeout(Duration::from_secs(60), followed.next())
        .await
        .expect("the supervisor tells on")
        .expect("the supervisor runs")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_server_that_went_away_is_listed_again_under_a_new_generation() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let address = format!("127.0.0.1:{port}");
    let start = || {
        Background::start(
            common::mcpick_bin(),
            &["demo-server", "--http", &address, "--count", "5"],
            &[],
        )
    };
    let server = start();
    let mut followed = Supervisor {
        spec: ServerSpec {
            name: "demo".into(),
            transport: TransportSpec::Http {
                url: server.url.clone(),
                headers: Default::default(),
            },
        },
        options: ConnectOptions::default(),
        log: ServerLog::new(10),
        list: ListOptions::default(),
        templates: false,
        retry: true,
        shown: None,
    }
    .spawn();
    let mut listed = 0;
    loop {
        match next(&mut followed).await {
            (1, Event::Page(page)) => listed += page.items.len(),
            (1, Event::Listed(outcome)) => {
                assert_eq!(outcome.count, listed);
                break;
            }
            (1, Event::Connected(_)) => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(listed, 5, "the demo server's --count");
    drop(server); // killed
    let retry = loop {
        match next(&mut followed).await {
            (
                1,
                Event::Ended {
                    listed,
                    retry,
                    reason,
                },
            ) => {
                assert!(listed, "it had listed");
                assert!(!reason.why.is_empty());
                break retry.expect("HTTP is tried again");
            }
            (1, _) => {}
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(retry.attempt, 1);
    assert!(retry.at > SystemTime::now(), "the next attempt is later");
    let _server = start();
    let mut relisted = 0;
    loop {
        match next(&mut followed).await {
            (2.., Event::Page(page)) => relisted += page.items.len(),
            (2.., Event::Listed(_)) => break,
            (2.., Event::Connected(_)) => {}
            // Attempts made while the server was still starting.
            (_, Event::Ended { retry: Some(_), .. }) => {}
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(relisted, listed, "listed again, whole");
}

/// A stdio server that exits after listing stays failed, retrying asked for or not: its
/// end says no retry, and nothing follows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stdio_server_that_exits_after_listing_is_not_started_again() {
    let script = format!(
        "exec timeout 2 {} demo-server --count 5",
        common::mcpick_bin()
    );
    let mut followed = Supervisor {
        spec: ServerSpec {
            name: "demo".into(),
            transport: TransportSpec::Stdio {
                command: "sh".into(),
                args: vec!["-c".into(), script],
                env: Default::default(),
                cwd: None,
            },
        },
        options: ConnectOptions::default(),
        log: ServerLog::new(10),
        list: ListOptions::default(),
        templates: false,
        retry: true,
        shown: None,
    }
    .spawn();
    let mut listed = false;
    let end = loop {
        match next(&mut followed).await {
            (1, Event::Listed(outcome)) => listed = outcome.count == 5,
            (1, end @ Event::Ended { .. }) => break end,
            (1, _) => {}
            other => panic!("{other:?}"),
        }
    };
    assert!(listed, "it listed first");
    assert!(
        matches!(
            &end,
            Event::Ended {
                listed: true,
                retry: None,
                ..
            }
        ),
        "{end:?}"
    );
    let after = tokio::time::timeout(Duration::from_secs(5), followed.next()).await;
    assert!(
        matches!(after, Ok(None)),
        "nothing after the end: {after:?}"
    );
}

/// A supervisor over stdio running the demo server with `extra` flags (the test fixture for
/// a fault), not retried.
fn demo_over_stdio(extra: &[&str]) -> Supervisor {
    let command = common::demo_command(extra);
    Supervisor {
        spec: ServerSpec {
            name: "demo".into(),
            transport: TransportSpec::Stdio {
                command: command[0].into(),
                args: command[1..].iter().map(|a| a.to_string()).collect(),
                env: Default::default(),
                cwd: None,
            },
        },
        options: ConnectOptions::default(),
        log: ServerLog::new(10),
        list: ListOptions::default(),
        templates: true,
        retry: false,
        shown: None,
    }
}

/// Listed once (what the one-shot commands do): every page, the end of the listing and the
/// templates are told, nothing is followed, and the connection is handed back, open, for
/// reads.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listed_once_tells_the_listing_and_hands_the_connection_back() {
    let mut events = Vec::new();
    let connection = demo_over_stdio(&["--count", "250", "--page-size", "100"])
        .list_once(|event| events.push(event))
        .await
        .expect("connected");
    let pages: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::Page(page) => Some(page.items.len()),
            _ => None,
        })
        .collect();
    assert_eq!(pages, [100, 100, 50], "page by page, as the server pages");
    assert!(
        matches!(events[3], Event::Listed(outcome) if outcome.count == 250 && !outcome.capped),
        "{:?}",
        events[3]
    );
    match &events[4] {
        Event::Templates(listed) => {
            assert!(
                !listed.templates.is_empty(),
                "the demo server has templates"
            );
            assert_eq!(listed.failed, None);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(events.len(), 5, "nothing else: {events:?}");
    let read = connection.read("demo://clock/now").await;
    assert!(read.is_ok(), "the connection still reads: {read:?}");
    connection.close().await;
}

/// A server that dies while it is listed ends the listing with why (no retry), and the
/// connection is still handed back, to be closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn listed_once_a_server_that_dies_midway_ends_with_why() {
    let mut events = Vec::new();
    let connection =
        demo_over_stdio(&["--count", "500", "--page-size", "100", "--crash-after", "2"])
            .list_once(|event| events.push(event))
            .await;
    assert!(connection.is_some(), "it had connected");
    let pages = events
        .iter()
        .filter(|e| matches!(e, Event::Page(_)))
        .count();
    assert_eq!(pages, 2, "the pages before the crash: {events:?}");
    match events.last() {
        Some(Event::Ended {
            reason,
            listed: false,
            retry: None,
        }) => assert!(
            reason.why.contains("crashing on purpose"),
            "why, with the server's stderr: {reason}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::Listed(_) | Event::Templates(_))),
        "{events:?}"
    );
}

/// A server that cannot be started is told as one end, naming it as `shown` says, and no
/// connection comes back.
#[tokio::test]
async fn listed_once_a_server_that_cannot_start_is_one_end() {
    let mut supervisor = demo_over_stdio(&[]);
    supervisor.spec.transport = TransportSpec::Stdio {
        command: "/nonexistent/mcpick-server".into(),
        args: vec![],
        env: Default::default(),
        cwd: None,
    };
    supervisor.shown = Some("my-server --flag".into());
    let mut events = Vec::new();
    assert!(
        supervisor
            .list_once(|event| events.push(event))
            .await
            .is_none()
    );
    match &events[..] {
        [
            Event::Ended {
                reason,
                listed: false,
                retry: None,
            },
        ] => assert!(reason.why.contains("my-server --flag"), "{reason}"),
        other => panic!("{other:?}"),
    }
}
