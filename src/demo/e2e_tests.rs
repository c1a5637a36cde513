//! End-to-end tests: an rmcp client talks to the demo server over an in-memory pipe (both
//! protocol eras), over real Streamable HTTP, and raw JSON lines check the wire format.

use std::time::Duration;

use base64::Engine;
use rmcp::{
    ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceError, ServiceExt,
    model::{
        ArgumentInfo, CompleteRequestParams, ErrorCode, PaginatedRequestParams, ProtocolVersion,
        ReadResourceRequestParams, Reference, ResourceContents, ResourceUpdatedNotificationParam,
        ServerNotification, SubscribeRequestParams, SubscriptionFilter,
    },
    service::{NotificationContext, RunningService},
};
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt, AsyncWriteExt, BufReader},
    sync::mpsc,
};

use super::{DemoServer, demo_resources};

/// A client that forwards `notifications/resources/updated` URIs to a channel.
#[derive(Clone)]
struct Client {
    updates: mpsc::UnboundedSender<String>,
}

impl ClientHandler for Client {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.updates.send(params.uri);
    }
}

type Running = RunningService<RoleClient, Client>;

/// A demo server of `count` resources, `page_size` per page, whose clock ticks every 100 ms.
fn server(count: usize, page_size: usize) -> DemoServer {
    DemoServer::with_clock_tick(count, page_size, Duration::from_millis(100))
}

fn spawn_server(server: DemoServer) -> tokio::io::DuplexStream {
    let (server_io, client_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(server_io).await {
            let _ = running.waiting().await;
        }
    });
    client_io
}

async fn connect(server: DemoServer, modern: bool) -> (Running, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let client = Client { updates: tx };
    let io = spawn_server(server);
    let running = if modern {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        client.serve_with_lifecycle(io, lifecycle).await.unwrap()
    } else {
        client.serve(io).await.unwrap()
    };
    (running, rx)
}

fn mcp_error(e: ServiceError) -> rmcp::ErrorData {
    match e {
        ServiceError::McpError(data) => data,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn only_text(contents: &[ResourceContents]) -> &str {
    match contents {
        [ResourceContents::TextResourceContents { text, .. }] => text,
        other => panic!("expected one text content, got {other:?}"),
    }
}

async fn read(client: &Running, uri: &str) -> Result<Vec<ResourceContents>, ServiceError> {
    client
        .read_resource(ReadResourceRequestParams::new(uri))
        .await
        .map(|r| r.contents)
}

/// Everything a browser needs, in one era; run for both.
async fn exercise(modern: bool) {
    let (client, _updates) = connect(server(250, 7), modern).await;
    let info = client.peer_info().unwrap();
    let server_info = info.server_info.clone().unwrap();
    assert_eq!(server_info.name, "mcpick-demo");
    assert_eq!(server_info.title.as_deref(), Some("mcpick demo server"));
    assert_eq!(server_info.version, env!("CARGO_PKG_VERSION"));
    assert!(info.instructions.as_deref().unwrap().contains("demo"));
    let resources_cap = info.capabilities.resources.clone().unwrap();
    assert_eq!(resources_cap.subscribe, Some(true));
    assert_eq!(resources_cap.list_changed, Some(true));
    assert!(info.capabilities.completions.is_some());
    assert!(info.capabilities.tools.is_none());
    let expected_version = if modern {
        ProtocolVersion::V_2026_07_28
    } else {
        ProtocolVersion::LATEST_WITH_INITIALIZE
    };
    assert_eq!(info.protocol_version, expected_version);

    // Paging: 250 resources in pages of 7, each page exactly as the generator says.
    let all = client.list_all_resources().await.unwrap();
    assert_eq!(all, demo_resources(250));
    let first = client.list_resources(None).await.unwrap();
    assert_eq!(first.resources.len(), 7);
    assert!(first.next_cursor.is_some());

    // Unknown cursor.
    let bad = PaginatedRequestParams::default().with_cursor(Some("not-a-cursor".into()));
    let err = mcp_error(client.list_resources(Some(bad)).await.unwrap_err());
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
    assert_eq!(err.message, "invalid cursor");

    // Text, with the size the list announced.
    let readme = read(&client, "file:///project/README.md").await.unwrap();
    assert!(only_text(&readme).starts_with("# Demo project"));
    assert_eq!(Some(only_text(&readme).len() as u64), all[0].size);
    for r in all.iter().filter(|r| r.uri.ends_with(".rs")).take(5) {
        let contents = read(&client, &r.uri).await.unwrap();
        let text = only_text(&contents);
        assert!(text.starts_with("//! "), "{}: {text}", r.uri);
        if let Some(size) = r.size {
            assert_eq!(text.len() as u64, size, "{}", r.uri);
        }
        let ResourceContents::TextResourceContents { uri, mime_type, .. } = &contents[0] else {
            unreachable!()
        };
        assert_eq!(uri, &r.uri);
        assert_eq!(mime_type.as_deref(), Some("text/x-rust"));
    }

    // Blob.
    let logo = read(&client, "demo://assets/logo.png").await.unwrap();
    let [
        ResourceContents::BlobResourceContents {
            blob, mime_type, ..
        },
    ] = &logo[..]
    else {
        panic!("{logo:?}")
    };
    assert_eq!(mime_type.as_deref(), Some("image/png"));
    let png = base64::engine::general_purpose::STANDARD
        .decode(blob)
        .unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));

    // Multi-part and empty reads.
    let bundle = read(&client, "demo://multi/bundle").await.unwrap();
    assert_eq!(bundle.len(), 3);
    assert!(matches!(
        bundle[2],
        ResourceContents::BlobResourceContents { .. }
    ));
    assert!(read(&client, "demo://empty").await.unwrap().is_empty());

    // A resource that changes.
    let a = read(&client, "demo://clock/now").await.unwrap();
    let b = read(&client, "demo://clock/now").await.unwrap();
    assert!(only_text(&a).contains("reads: 1"), "{}", only_text(&a));
    assert!(only_text(&b).contains("reads: 2"), "{}", only_text(&b));

    // Query string, percent-encoding, directory, template-only note.
    let search = read(&client, "demo://search?q=budget").await.unwrap();
    serde_json::from_str::<Value>(only_text(&search)).unwrap();
    read(&client, "file:///project/docs/My%20Notes.md")
        .await
        .unwrap();
    let dir = read(&client, "file:///project/docs/guides/").await.unwrap();
    assert!(only_text(&dir).contains("file:///project/docs/guides/"));
    let note = read(&client, "demo://notes/424242").await.unwrap();
    assert!(only_text(&note).starts_with("# Note 424242"));

    // Not found: -32002 for legacy peers, -32602 for 2026-07-28 peers (rmcp rewrites it).
    let missing = "file:///project/does/not/exist.rs";
    let err = mcp_error(read(&client, missing).await.unwrap_err());
    let expected = if modern {
        ErrorCode::INVALID_PARAMS
    } else {
        ErrorCode::RESOURCE_NOT_FOUND
    };
    assert_eq!(err.code, expected);
    assert_eq!(err.message, format!("Resource not found: {missing}"));
    assert_eq!(err.data, Some(json!({ "uri": missing })));

    // Templates.
    let templates = client.list_all_resource_templates().await.unwrap();
    let uris: Vec<_> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(uris, ["file:///project/{path}", "demo://notes/{id}"]);
    assert_eq!(templates[0].title.as_deref(), Some("Project file"));
    assert_eq!(templates[1].title.as_deref(), Some("Note by id"));

    // Completion.
    let complete = |uri: &str, name: &str, value: &str| {
        CompleteRequestParams::new(Reference::for_resource(uri), ArgumentInfo::new(name, value))
    };
    let paths = client
        .complete(complete("file:///project/{path}", "path", "src/"))
        .await
        .unwrap()
        .completion;
    assert!(!paths.values.is_empty());
    assert!(paths.values.iter().all(|v| v.starts_with("src/")));
    assert_eq!(paths.total, Some(paths.values.len() as u32));
    assert_eq!(paths.has_more, Some(false));
    let notes = client
        .complete(complete("demo://notes/{id}", "id", "1"))
        .await
        .unwrap()
        .completion;
    assert!(notes.values.contains(&"1".to_owned()));
    let err = client
        .complete(complete("demo://nope/{x}", "x", ""))
        .await
        .unwrap_err();
    assert_eq!(mcp_error(err).code, ErrorCode::INVALID_PARAMS);

    client.cancel().await.unwrap();
}

#[tokio::test]
async fn legacy_client_sees_everything() {
    exercise(false).await;
}

#[tokio::test]
async fn modern_client_sees_everything() {
    exercise(true).await;
}

#[tokio::test]
async fn large_catalogue_pages_quickly() {
    let (client, _) = connect(server(1_000_000, 1_000), false).await;
    let mut cursor = None;
    for _ in 0..3 {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let page = client.list_resources(Some(params)).await.unwrap();
        assert_eq!(page.resources.len(), 1_000);
        cursor = page.next_cursor;
    }
    // Completion scans every file path of a million resources.
    let params = CompleteRequestParams::new(
        Reference::for_resource("file:///project/{path}"),
        ArgumentInfo::new("path", "docs/guides/"),
    );
    let started = std::time::Instant::now();
    let c = client.complete(params).await.unwrap().completion;
    assert_eq!(c.values.len(), 100);
    assert!(c.has_more_results() && c.total.unwrap() > 30_000, "{c:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
    client.cancel().await.unwrap();
}

#[tokio::test]
#[allow(deprecated)] // resources/subscribe is the legacy era's API
async fn legacy_subscription_ticks_until_unsubscribed() {
    let (client, mut updates) = connect(server(50, 10), false).await;
    client
        .subscribe(SubscribeRequestParams::new("demo://clock/now"))
        .await
        .unwrap();
    for _ in 0..2 {
        let uri = tokio::time::timeout(Duration::from_secs(5), updates.recv())
            .await
            .expect("an update within 5 s")
            .unwrap();
        assert_eq!(uri, "demo://clock/now");
    }
    client
        .unsubscribe(rmcp::model::UnsubscribeRequestParams::new(
            "demo://clock/now",
        ))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(150)).await;
    while updates.try_recv().is_ok() {}
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert!(updates.try_recv().is_err(), "updates after unsubscribe");

    let err = client
        .subscribe(SubscribeRequestParams::new("demo://nope"))
        .await
        .unwrap_err();
    assert_eq!(mcp_error(err).code, ErrorCode::RESOURCE_NOT_FOUND);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn modern_listen_delivers_clock_updates() {
    let (client, _) = connect(server(50, 10), true).await;
    let filter = SubscriptionFilter::builder()
        .resource_subscription("demo://clock/now")
        .build();
    let mut subscription = client.listen(filter).await.unwrap();
    assert_eq!(
        subscription
            .acknowledged()
            .resource_subscriptions
            .as_deref(),
        Some(&["demo://clock/now".to_owned()][..])
    );
    let next = tokio::time::timeout(Duration::from_secs(5), subscription.next())
        .await
        .expect("an update within 5 s")
        .unwrap()
        .unwrap();
    let ServerNotification::ResourceUpdatedNotification(update) = next else {
        panic!("{next:?}")
    };
    assert_eq!(update.params.uri, "demo://clock/now");
    drop(subscription);
    client.cancel().await.unwrap();
}

/// Sends raw JSON-RPC lines and returns the lines the server writes, as text.
async fn raw_session(server: DemoServer, requests: &[Value], expect_lines: usize) -> Vec<String> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (server_read, server_write) = tokio::io::split(server_io);
    tokio::spawn(async move {
        let transport = (server_read, server_write);
        if let Ok(running) = server.serve(transport).await {
            let _ = running.waiting().await;
        }
    });
    let (client_read, mut client_write) = tokio::io::split(client_io);
    let mut lines = BufReader::new(client_read).lines();
    let mut out = Vec::new();
    for request in requests {
        let mut line = serde_json::to_vec(request).unwrap();
        line.push(b'\n');
        client_write.write_all(&line).await.unwrap();
        // Requests (with an id) get an answer; wait for it before the next one.
        if request.get("id").is_some() {
            loop {
                let line = tokio::time::timeout(Duration::from_secs(5), lines.next_line())
                    .await
                    .expect("an answer")
                    .unwrap()
                    .expect("a line");
                let is_answer = serde_json::from_str::<Value>(&line)
                    .is_ok_and(|v| v.get("id") == request.get("id"));
                out.push(line);
                if is_answer {
                    break;
                }
            }
        }
    }
    assert_eq!(out.len(), expect_lines, "{out:#?}");
    out
}

fn legacy_opening() -> Vec<Value> {
    vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ]
}

#[tokio::test]
async fn wire_format_of_a_page_and_a_not_found() {
    let mut requests = legacy_opening();
    requests.push(json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list"}));
    requests.push(
        json!({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
        "params": {"uri": "demo://nope"}}),
    );
    let lines = raw_session(server(20, 5), &requests, 3).await;
    let init: Value = serde_json::from_str(&lines[0]).unwrap();
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "mcpick-demo");
    assert_eq!(
        init["result"]["capabilities"]["resources"]["subscribe"],
        true
    );

    let page: Value = serde_json::from_str(&lines[1]).unwrap();
    let resources = page["result"]["resources"].as_array().unwrap();
    assert_eq!(resources.len(), 5);
    assert_eq!(resources[0]["uri"], "file:///project/README.md");
    assert_eq!(resources[0]["mimeType"], "text/markdown");
    assert_eq!(resources[0]["annotations"]["priority"], 1.0);
    assert_eq!(
        resources[0]["annotations"]["audience"],
        json!(["assistant"])
    );
    assert!(page["result"]["nextCursor"].is_string());
    // Legacy peers get no 2026-07-28 fields.
    assert!(page["result"].get("resultType").is_none(), "{page}");

    let err: Value = serde_json::from_str(&lines[2]).unwrap();
    assert_eq!(
        err["error"],
        json!({"code": -32002, "message": "Resource not found: demo://nope",
               "data": {"uri": "demo://nope"}})
    );
}

#[tokio::test]
async fn streamable_http_serves_at_slash_mcp() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let demo = server(30, 10);
    let server = tokio::spawn(super::http::serve_on(
        listener,
        move || demo.connection(),
        (),
    ));

    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().build().unwrap();
    let config =
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
            format!("http://{addr}/mcp"),
        );
    let transport =
        rmcp::transport::StreamableHttpClientTransport::with_client(http.clone(), config);
    let (tx, mut updates) = mpsc::unbounded_channel();
    let client = Client { updates: tx }.serve(transport).await.unwrap();
    let all = client.list_all_resources().await.unwrap();
    assert_eq!(all, demo_resources(30));
    let err = mcp_error(read(&client, "demo://nope").await.unwrap_err());
    assert_eq!(err.code, ErrorCode::RESOURCE_NOT_FOUND);
    // Legacy subscriptions reach the client over the session's SSE stream.
    #[allow(deprecated)]
    client
        .subscribe(SubscribeRequestParams::new("demo://clock/now"))
        .await
        .unwrap();
    let uri = tokio::time::timeout(Duration::from_secs(5), updates.recv())
        .await
        .expect("an update within 5 s over HTTP");
    assert_eq!(uri.as_deref(), Some("demo://clock/now"));
    client.cancel().await.unwrap();

    // The 2026-07-28 era over HTTP: stateless, and not-found becomes -32602.
    let config =
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
            format!("http://{addr}/mcp"),
        );
    let transport =
        rmcp::transport::StreamableHttpClientTransport::with_client(http.clone(), config);
    let (tx, _rx) = mpsc::unbounded_channel();
    let lifecycle = ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    };
    let client = Client { updates: tx }
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .unwrap();
    assert_eq!(
        client.list_all_resources().await.unwrap(),
        demo_resources(30)
    );
    let err = mcp_error(read(&client, "demo://nope").await.unwrap_err());
    assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
    client.cancel().await.unwrap();

    let other = http
        .get(format!("http://{addr}/elsewhere"))
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), reqwest::StatusCode::NOT_FOUND);
    server.abort();
}
