//! A wrapped entry whose upstream speaks the legacy HTTP+SSE transport (2024-11-05,
//! `type: "sse"`), line for line like [`super::http`]: a GET opens the server's event stream,
//! whose first `endpoint` event names where to POST (same origin only: the entry's headers
//! go nowhere else); each host line is one POST there, and every `message` event on the
//! stream is a line for the host. The stream ending is the server failing.

use reqwest::header::{CONTENT_TYPE, HeaderMap};
use tokio::sync::mpsc;
use url::Url;

use super::http::{Event, QUEUE, Source, header_map, not_sent, one_line};
use crate::mcp::http::origin_of;
use crate::mcp::limit::MessageLimit;
use crate::mcp::sse_events::Item;

/// How long the server may take to name its endpoint.
const ENDPOINT_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// The host's lines to the server.
pub struct Sink {
    client: reqwest::Client,
    endpoint: Url,
    shown: String,
    headers: HeaderMap,
    events: mpsc::Sender<Event>,
    stream: tokio::task::JoinHandle<()>,
}

/// Opens the event stream at `url` and waits for its `endpoint`.
pub async fn start(
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    limit: MessageLimit,
) -> Result<(super::upstream::Source, super::upstream::Sink), String> {
    let (wire, headers) = crate::mcp::spec::http_wire(url, headers);
    let base = Url::parse(&wire).map_err(|e| format!("the entry's URL is not valid: {e}"))?;
    let shown = origin_of(&base);
    let headers = header_map(&headers)?;
    let client =
        crate::mcp::http::client().map_err(|e| format!("cannot make an HTTP client: {e}"))?;
    let (endpoint, mut stream_events) = crate::mcp::sse::open(
        &client,
        base.as_str(),
        headers.clone(),
        ENDPOINT_WAIT,
        limit,
    )
    .await?;
    let (events, rx) = mpsc::channel(QUEUE);
    let relay = events.clone();
    let stream = tokio::spawn(async move {
        loop {
            let why = match stream_events.next().await {
                Some(Ok(item)) => {
                    let event = match item {
                        Item::Event { name, data }
                            if matches!(name.as_deref(), None | Some("message"))
                                && !data.trim().is_empty() =>
                        {
                            Event::Line(one_line(data.into_bytes()))
                        }
                        Item::TooLarge(id) => Event::TooLarge(id),
                        _ => continue,
                    };
                    if relay.send(event).await.is_err() {
                        return;
                    }
                    continue;
                }
                Some(Err(e)) => format!("its event stream broke off ({e})"),
                None => "it closed its event stream".to_string(),
            };
            let _ = relay.send(Event::Failed(why)).await;
            return;
        }
    });
    Ok((
        super::upstream::Source::Http(Source::new(rx)),
        super::upstream::Sink::Sse(Sink {
            client,
            endpoint,
            shown,
            headers,
            events,
            stream,
        }),
    ))
}

impl Sink {
    /// POSTs `line` to the endpoint (in order: each is taken before the next is sent); its
    /// answer comes on the event stream.
    pub async fn send(&mut self, line: &[u8]) {
        let sent = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .body(line.to_vec())
            .send()
            .await;
        let failed = match sent {
            Ok(response) if response.status().is_success() => return,
            Ok(response) => format!(
                "it answered HTTP {} to a message posted to {}",
                response.status(),
                self.shown
            ),
            Err(e) => not_sent(&self.shown, e),
        };
        let _ = self.events.send(Event::Failed(failed)).await;
    }

    /// The host left: the stream is closed.
    pub fn close(self) {
        self.stream.abort();
    }
}
