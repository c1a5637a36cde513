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
