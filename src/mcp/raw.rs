//! Requests whose reply is kept even when rmcp cannot type it.
//!
//! rmcp's `list_resources` & co. turn a reply that does not fit the expected type into
//! "Unexpected response type" and drop it. Sending the request through the peer ourselves
//! keeps the untyped reply (`CustomResult`, or another result type it happened to fit) for
//! [`super::lenient`] to read entry by entry.

use rmcp::model::{CancelledNotificationParam, ClientRequest, ServerResult};
use rmcp::service::{Peer, PeerRequestOptions, RoleClient, ServiceError};
use serde_json::Value;

/// Sends `request` and waits for its reply, whatever its type. Like rmcp's own request
/// methods, a caller that stops waiting (a timeout, a newer read) makes it send
/// `notifications/cancelled`, so the server can stop working on it.
pub(crate) async fn send(
    peer: &Peer<RoleClient>,
    request: ClientRequest,
) -> Result<ServerResult, ServiceError> {
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await?;
    let mut guard = CancelOnDrop {
        peer,
        id: Some(handle.id.clone()),
    };
    let result = handle.await_response().await;
    guard.id = None;
    result
}

/// The reply as JSON, for the lenient reader.
pub(crate) fn into_value(result: ServerResult) -> Value {
    match result {
        ServerResult::CustomResult(custom) => custom.0,
        other => serde_json::to_value(other).unwrap_or(Value::Null),
    }
}

struct CancelOnDrop<'a> {
    peer: &'a Peer<RoleClient>,
    id: Option<rmcp::model::RequestId>,
}

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let peer = self.peer.clone();
        runtime.spawn(async move {
            let reason = "request abandoned by the caller".to_string();
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason)))
                .await;
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::ServiceExt;
    use rmcp::model::ListResourcesRequest;
    use serde_json::json;
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    /// A server that completes the handshake, never answers `resources/list`, and reports
    /// every message it receives afterwards.
    async fn silent_server(
        io: tokio::io::DuplexStream,
        seen: tokio::sync::mpsc::UnboundedSender<Value>,
    ) {
        let (read, mut write) = tokio::io::split(io);
        let mut lines = BufReader::new(read).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let message: Value = serde_json::from_str(&line).unwrap();
            let reply = match message["method"].as_str() {
                Some("initialize") => json!({"jsonrpc": "2.0", "id": message["id"], "result": {
                    "protocolVersion": "2025-06-18", "capabilities": {"resources": {}},
                    "serverInfo": {"name": "silent", "version": "1"}}}),
                Some("server/discover") => json!({"jsonrpc": "2.0", "id": message["id"],
                    "error": {"code": -32601, "message": "Method not found"}}),
                _ => {
                    let _ = seen.send(message);
                    continue;
                }
            };
            let mut bytes = serde_json::to_vec(&reply).unwrap();
            bytes.push(b'\n');
            write.write_all(&bytes).await.unwrap();
        }
    }

    #[tokio::test]
    async fn a_request_given_up_on_is_cancelled_at_the_server() {
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let (tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(silent_server(server_io, tx));
        let client = ().serve(client_io).await.expect("handshake");
        let request = ClientRequest::ListResourcesRequest(ListResourcesRequest {
            method: Default::default(),
            params: None,
            extensions: Default::default(),
        });
        let gave_up = tokio::time::timeout(
            std::time::Duration::from_millis(200),
            send(client.peer(), request),
        )
        .await;
        assert!(gave_up.is_err(), "the server never answers");
        let mut list_id = None;
        // Generous: without the cancellation this would wait forever.
        let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let message = tokio::time::timeout_at(deadline, seen.recv())
                .await
                .expect("no notifications/cancelled reached the server")
                .unwrap();
            match message["method"].as_str() {
                Some("resources/list") => list_id = Some(message["id"].clone()),
                Some("notifications/cancelled") => {
                    assert_eq!(Some(&message["params"]["requestId"]), list_id.as_ref());
                    break;
                }
                _ => {}
            }
        }
    }
}
