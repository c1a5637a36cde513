//! The legacy HTTP+SSE transport (protocol 2024-11-05), which rmcp no longer ships.
//!
//! A GET opens an event stream whose first `endpoint` event names the URL to POST messages
//! to; the server's messages arrive as `message` events on the stream. Servers built on the
//! TypeScript SDK's `SSEServerTransport` (server-everything's `sse` mode) still speak it.

use std::time::Duration;

use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use sse_stream::SseStream;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use url::Url;

use super::log::{LogSource, ServerLog};

/// Largest single SSE message accepted; larger ones are dropped and logged.
const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum SseError {
    #[error("{0}")]
    Http(#[from] reqwest::Error),
    #[error("POST to the message endpoint answered HTTP {0}")]
    Status(u16),
    #[error("could not encode a message: {0}")]
    Encode(#[from] serde_json::Error),
}

pub(crate) struct SseTransport {
    client: reqwest::Client,
    endpoint: Url,
    headers: HeaderMap,
    rx: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: JoinHandle<()>,
}

impl SseTransport {
    /// Opens the event stream at `url` and waits (up to `timeout`) for the `endpoint` event.
    pub(crate) async fn connect(
        client: reqwest::Client,
        url: &str,
        headers: HeaderMap,
        timeout: Duration,
        log: ServerLog,
    ) -> Result<Self, String> {
        let base = Url::parse(url).map_err(|e| format!("`{url}` is not a valid URL: {e}"))?;
        let response = client
            .get(base.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| format!("GET {url}: {}", error_chain(&e)))?;
        let status = response.status();
        if !status.is_success() {
            return Err(format!("GET {url} answered HTTP {status}"));
        }
        let is_sse = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !is_sse {
            return Err(format!("GET {url} did not answer with an event stream"));
        }
        let mut events = SseStream::from_bytes_stream(response.bytes_stream());

        let endpoint = tokio::time::timeout(timeout, async {
            while let Some(event) = events.next().await {
                let event = event.map_err(|e| format!("reading the event stream: {e}"))?;
                if event.event.as_deref() == Some("endpoint") {
                    return Ok(event.data.unwrap_or_default());
                }
            }
            Err("the event stream ended before an `endpoint` event".to_string())
        })
        .await
        .map_err(|_| "no `endpoint` event arrived in time".to_string())??;

        let endpoint = base
            .join(endpoint.trim())
            .map_err(|e| format!("the `endpoint` event is not a URL: {e}"))?;
        // Never send the configured headers (credentials) to another origin.
        if endpoint.origin() != base.origin() {
            return Err(format!(
                "the server asked to post messages to another origin ({})",
                endpoint.origin().ascii_serialization()
            ));
        }

        let (tx, rx) = mpsc::channel(64);
        let reader = tokio::spawn(async move {
            while let Some(event) = events.next().await {
                let event = match event {
                    Ok(event) => event,
                    Err(e) => {
                        log.push(LogSource::Client, &format!("event stream error: {e}"));
                        break;
                    }
                };
                if !matches!(event.event.as_deref(), None | Some("message")) {
                    continue;
                }
                let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else {
                    continue;
                };
                if data.len() > MAX_MESSAGE_BYTES {
                    log.push(
                        LogSource::Client,
                        &format!(
                            "dropped a {} byte message (limit {MAX_MESSAGE_BYTES})",
                            data.len()
                        ),
                    );
                    continue;
                }
                match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&data) {
                    Ok(message) => {
                        if tx.send(message).await.is_err() {
                            break;
                        }
                    }
                    Err(e) => log.push(
                        LogSource::Client,
                        &format!("ignored a malformed message: {e}"),
                    ),
                }
            }
        });

        Ok(Self {
            client,
            endpoint,
            headers,
            rx,
            reader,
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone());
        async move {
            let body = serde_json::to_vec(&item)?;
            let response = request
                .header(CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await?;
            if !response.status().is_success() {
                return Err(SseError::Status(response.status().as_u16()));
            }
            Ok(())
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.rx.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.reader.abort();
        self.rx.close();
        Ok(())
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// An error with its causes, so "error sending request" also says "connection refused".
pub(crate) fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}
