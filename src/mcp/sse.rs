//! The legacy HTTP+SSE transport (protocol 2024-11-05), which rmcp no longer ships.
//!
//! A GET opens an event stream whose first `endpoint` event names the URL to POST messages
//! to; the server's messages arrive as `message` events on the stream. Servers built on the
//! TypeScript SDK's `SSEServerTransport` (server-everything's `sse` mode) still speak it.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use url::Url;

use super::http::origin_of;
use super::limit::{self, MessageLimit};
use super::log::{LogSource, ServerLog};
use super::sse_events::{EventReader, Item};

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

/// The event stream, parsed under the message-size limit.
/// A server's event stream, item by item.
pub(crate) struct Events {
    body: BoxStream<'static, reqwest::Result<Bytes>>,
    parser: EventReader,
    ready: VecDeque<Item>,
}

/// Opens the event stream at `url` (a GET with `headers`) and waits up to `timeout` for its
/// `endpoint` event: where to POST, resolved against `url` and refused when it is another
/// origin (the headers, credentials, never go elsewhere). The one handshake of the legacy
/// transport, for mcpick's own client and for `wrap`'s line-level one.
pub(crate) async fn open(
    client: &reqwest::Client,
    url: &str,
    headers: HeaderMap,
    timeout: Duration,
    limit: MessageLimit,
) -> Result<(Url, Events), String> {
    let base = Url::parse(url).map_err(|e| format!("not a valid URL: {e}"))?;
    let shown = origin_of(&base);
    let response = client
        .get(base.clone())
        .headers(headers)
        .header(ACCEPT, "text/event-stream")
        .send()
        .await
        .map_err(|e| format!("cannot reach {shown} ({})", error_chain(&e.without_url())))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("GET {shown} answered HTTP {status}"));
    }
    let is_sse = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"));
    if !is_sse {
        return Err(format!("GET {shown} did not answer with an event stream"));
    }
    let mut events = Events {
        body: response.bytes_stream().boxed(),
        parser: EventReader::new(limit),
        ready: VecDeque::new(),
    };
    let endpoint = tokio::time::timeout(timeout, async {
        while let Some(item) = events.next().await {
            let item = item.map_err(|e| format!("reading the event stream: {e}"))?;
            if let Item::Event { name, data } = item
                && name.as_deref() == Some("endpoint")
            {
                return Ok(data);
            }
        }
        Err("the event stream ended before an `endpoint` event".to_string())
    })
    .await
    .map_err(|_| "no `endpoint` event arrived in time".to_string())??;
    let endpoint = base
        .join(endpoint.trim())
        .map_err(|e| format!("the `endpoint` event is not a URL: {e}"))?;
    if endpoint.origin() != base.origin() {
        return Err(format!(
            "the server asked to post messages to another origin ({})",
            origin_of(&endpoint)
        ));
    }
    Ok((endpoint, events))
}

impl Events {
    /// The next item; an error when the stream broke off, `None` when it ended.
    pub(crate) async fn next(&mut self) -> Option<Result<Item, String>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(Ok(item));
            }
            match self.body.next().await? {
                Ok(chunk) => {
                    let mut out = Vec::new();
                    self.parser.push(&chunk, &mut out);
                    self.ready.extend(out);
                }
                Err(e) => return Some(Err(error_chain(&e.without_url()))),
            }
        }
    }
}

impl SseTransport {
    /// Opens the event stream at `url` and waits (up to `timeout`) for the `endpoint` event.
    pub(crate) async fn connect(
        client: reqwest::Client,
        url: &str,
        headers: HeaderMap,
        timeout: Duration,
        limit: MessageLimit,
        log: ServerLog,
    ) -> Result<Self, String> {
        let (endpoint, mut events) = open(&client, url, headers.clone(), timeout, limit).await?;

        let (tx, rx) = mpsc::channel(64);
        let reader = tokio::spawn(async move {
            while let Some(item) = events.next().await {
                let message = match item {
                    Ok(Item::Event { name, data }) => {
                        if !matches!(name.as_deref(), None | Some("message"))
                            || data.trim().is_empty()
                        {
                            continue;
                        }
                        match decode(&data, limit, &log) {
                            Some(message) => message,
                            None => continue,
                        }
                    }
                    Ok(Item::TooLarge(id)) => {
                        log.push(
                            LogSource::Client,
                            &format!("a reply larger than {} MiB was refused", limit.mib()),
                        );
                        match serde_json::from_str(&limit::too_large_reply(&id, limit)) {
                            Ok(message) => message,
                            Err(_) => continue,
                        }
                    }
                    Ok(Item::Dropped) => {
                        log.push(
                            LogSource::Client,
                            &format!(
                                "dropped a message larger than {} MiB that answers no request",
                                limit.mib()
                            ),
                        );
                        continue;
                    }
                    Err(e) => {
                        log.push(LogSource::Client, &format!("event stream error: {e}"));
                        break;
                    }
                };
                if tx.send(message).await.is_err() {
                    break;
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

/// One `message` event as a JSON-RPC message; a reply that is not JSON becomes the error
/// for its request, anything else unusable is logged and skipped.
fn decode(
    data: &str,
    limit: MessageLimit,
    log: &ServerLog,
) -> Option<RxJsonRpcMessage<RoleClient>> {
    let error = match serde_json::from_str(data) {
        Ok(message) => return Some(message),
        Err(e) => e,
    };
    match limit::check_json(data.as_bytes()) {
        Err(invalid) => {
            log.push(
                LogSource::Client,
                &format!("invalid JSON from the server: {}", invalid.detail),
            );
            let id = invalid.id?;
            serde_json::from_str(&limit::invalid_json_reply(&id, &invalid.detail, limit)).ok()
        }
        Ok(()) => {
            log.push(
                LogSource::Client,
                &format!("ignored a malformed message: {error}"),
            );
            None
        }
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
                .await
                .map_err(reqwest::Error::without_url)?;
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
