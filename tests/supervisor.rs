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
            (1, Event::Page { resources, .. }) => listed += resources.len(),
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
                assert!(!reason.is_empty());
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
            (2.., Event::Page { resources, .. }) => relisted += resources.len(),
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
