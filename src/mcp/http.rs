//! HTTP for both HTTP transports: a client that keeps configured headers at their origin,
//! and the message-size limit for Streamable HTTP.
//!
//! Redirects: reqwest follows 307/308 with every custom header (it strips only Authorization
//! and Cookie across hosts) and sends a Referer carrying the old URL's query. The client
//! built here refuses any redirect to another origin (scheme, host and port) with an error
//! naming both, follows same-origin ones, and never sends a Referer.
//!
//! Size: rmcp's reqwest client stops at 16 MiB with errors full of type names, after which
//! the request waits for its timeout. [`LimitedClient`] wraps it, applies the configured
//! limit, and turns a reply above it into a JSON-RPC error for that request (see
//! [`super::limit`]), so the request fails at once with `reply larger than N MiB`.

use crate::sync::Locked;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Once};

use futures::StreamExt;
use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use serde_json::Value;
use sse_stream::Sse;
use url::Url;

use super::limit::{self, MessageLimit};
/// For other HTTP clients of the crate (`wrap`'s line-level one).
pub(crate) use super::sse::error_chain;

/// Redirects followed in one chain before giving up (reqwest's default).
const MAX_REDIRECTS: usize = 10;
/// Room for SSE field names around an event's data, so that the data itself is what the
/// limit measures.
const SSE_FIELD_SLACK: usize = 64 * 1024;

/// A redirect mcpick refused because it leaves the configured origin.
#[derive(Debug, thiserror::Error)]
#[error(
    "refused a redirect from {from} to {to}: another origin (configured headers are only sent to {from})"
)]
pub(crate) struct CrossOriginRedirect {
    pub(crate) from: String,
    pub(crate) to: String,
}

/// scheme://host:port of a URL: no userinfo, path or query, so it is safe to show.
pub(crate) fn origin_of(url: &Url) -> String {
    url.origin().ascii_serialization()
}

/// The decision for one redirect hop, from the chain's first URL to `next` (pure).
pub(crate) fn check_redirect(first: &Url, next: &Url) -> Result<(), CrossOriginRedirect> {
    if first.origin() == next.origin() {
        Ok(())
    } else {
        Err(CrossOriginRedirect {
            from: origin_of(first),
            to: origin_of(next),
        })
    }
}

/// Installs the TLS crypto provider once; every reqwest client needs it first (rmcp's OAuth
/// client builds its own).
pub(crate) fn install_crypto() {
    static PROVIDER: Once = Once::new();
    PROVIDER.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The reqwest client every HTTP transport uses.
pub(crate) fn client() -> Result<reqwest::Client, reqwest::Error> {
    install_crypto();
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let Some(first) = attempt.previous().first().cloned() else {
            return attempt.follow();
        };
        if let Err(refused) = check_redirect(&first, attempt.url()) {
            return attempt.error(refused);
        }
        if attempt.previous().len() > MAX_REDIRECTS {
            return attempt.error(format!("more than {MAX_REDIRECTS} redirects"));
        }
        attempt.follow()
    });
    reqwest::Client::builder()
        .redirect(policy)
        .referer(false)
        .build()
}

/// What the last answer a [`LimitedClient`] received asked of the sign-in.
#[derive(Clone, Default)]
pub(crate) struct Challenge {
    /// The `WWW-Authenticate` value of a 401.
    header: Arc<Mutex<Option<String>>>,
    /// The scope a 403 `insufficient_scope` named (empty when it named none): the sign-in
    /// holds too narrow a grant for that request, and a wider one is needed (a step-up).
    wider: Arc<Mutex<Option<String>>>,
}

impl Challenge {
    /// True when the server answered 401 with an OAuth challenge (one naming its
    /// protected-resource metadata, as the MCP authorization specification asks).
    pub(crate) fn wants_oauth(&self) -> bool {
        self.header
            .locked()
            .as_deref()
            .is_some_and(|c| c.contains("resource_metadata"))
    }

    pub(crate) fn seen(&self) -> bool {
        self.header.locked().is_some()
    }

    /// The scope the last 403 `insufficient_scope` asked for, if the last answer was one.
    pub(crate) fn wider_scope(&self) -> Option<String> {
        self.wider.locked().clone()
    }
}

/// rmcp's reqwest client under mcpick's message-size limit.
#[derive(Clone)]
pub(crate) struct LimitedClient {
    inner: reqwest::Client,
    limit: MessageLimit,
    /// Set when the server answered 401 with a `WWW-Authenticate` challenge: it wants an
    /// OAuth sign-in (see [`super::oauth`]).
    challenge: Challenge,
}

impl LimitedClient {
    pub(crate) fn new(inner: reqwest::Client, limit: MessageLimit) -> Self {
        LimitedClient {
            inner,
            limit,
            challenge: Challenge::default(),
        }
    }

    /// Where the server's last 401 challenge is kept; shared by every clone.
    pub(crate) fn challenge(&self) -> Challenge {
        self.challenge.clone()
    }

    fn note<T>(
        &self,
        result: Result<T, StreamableHttpError<reqwest::Error>>,
    ) -> Result<T, StreamableHttpError<reqwest::Error>> {
        let (seen, wider) = match &result {
            Err(StreamableHttpError::AuthRequired(e)) => {
                (Some(e.www_authenticate_header.clone()), None)
            }
            Err(StreamableHttpError::InsufficientScope(e)) => (
                None,
                Some(e.get_required_scope().unwrap_or_default().to_string()),
            ),
            _ => (None, None),
        };
        // The last answer counts: a 401 followed by a successful retry is forgotten.
        *self.challenge.header.locked() = seen;
        *self.challenge.wider.locked() = wider;
        result
    }

    /// The limits rmcp's client enforces on our behalf; errors it returns for them are
    /// translated by [`Self::answer_too_large`] and [`guard_events`].
    fn limits(&self, mut limits: StreamableHttpResponseLimits) -> StreamableHttpResponseLimits {
        limits.max_json_response_size = self.limit.bytes();
        limits.max_sse_event_size = self.limit.bytes() + SSE_FIELD_SLACK;
        limits
    }

    /// A JSON body above the limit, as the error reply for request `id`.
    fn answer_too_large(&self, id: &Value) -> StreamableHttpPostResponse {
        let line = limit::too_large_reply(id, self.limit);
        match serde_json::from_str::<ServerJsonRpcMessage>(&line) {
            Ok(message) => StreamableHttpPostResponse::Json(message, None),
            Err(_) => StreamableHttpPostResponse::Accepted,
        }
    }
}

/// The id of a request, as JSON (`None` for notifications and replies).
fn request_id(message: &ClientJsonRpcMessage) -> Option<Value> {
    match message {
        ClientJsonRpcMessage::Request(request) => serde_json::to_value(&request.id).ok(),
        _ => None,
    }
}

/// Drops the URL from reqwest's errors (it may hold a query token or userinfo), and spells
/// out a refused redirect: rmcp shows only the outer "error following redirect".
fn without_url(error: StreamableHttpError<reqwest::Error>) -> StreamableHttpError<reqwest::Error> {
    match error {
        StreamableHttpError::Client(e) if e.is_redirect() => {
            let reason = super::sse::error_chain(&e.without_url());
            StreamableHttpError::UnexpectedServerResponse(reason.into())
        }
        StreamableHttpError::Client(e) => StreamableHttpError::Client(e.without_url()),
        other => other,
    }
}

fn is_too_large(error: &SseError) -> bool {
    matches!(error, SseError::Body(e) if e.to_string().contains("exceeded the maximum size"))
}

/// Watches the events of the response stream to request `id`: an event above the limit
/// (or cut off by rmcp's byte cap) becomes the error reply for `id`, and the stream ends.
fn guard_events(
    events: BoxStream<'static, Result<Sse, SseError>>,
    id: Value,
    limit: MessageLimit,
) -> BoxStream<'static, Result<Sse, SseError>> {
    let fault = move || Sse {
        event: Some("message".into()),
        data: Some(limit::too_large_reply(&id, limit)),
        ..Sse::default()
    };
    futures::stream::unfold(Some(events), move |events| {
        let fault = fault.clone();
        async move {
            let mut events = events?;
            let item = match events.next().await? {
                Ok(event) if event.data.as_ref().is_some_and(|d| d.len() > limit.bytes()) => {
                    return Some((Ok(fault()), None));
                }
                Err(error) if is_too_large(&error) => return Some((Ok(fault()), None)),
                item => item,
            };
            Some((item, Some(events)))
        }
    })
    .boxed()
}

impl StreamableHttpClient for LimitedClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        _max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.post_message(uri, message, session_id, auth_header, custom_headers)
            .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let id = request_id(&message);
        let response = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                self.limits(limits),
            )
            .await;
        match (self.note(response), id) {
            (Err(StreamableHttpError::ResponseBodyTooLarge { .. }), Some(id)) => {
                Ok(self.answer_too_large(&id))
            }
            (Ok(StreamableHttpPostResponse::Sse(events, session)), Some(id)) => Ok(
                StreamableHttpPostResponse::Sse(guard_events(events, id, self.limit), session),
            ),
            (response, _) => response.map_err(without_url),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let result = self
            .inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await;
        self.note(result).map_err(without_url)
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            0,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        _max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<Self::Error>> {
        // The server's own stream carries notifications and requests, which answer no
        // request of ours: above the limit they are dropped (rmcp logs it).
        let result = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                self.limit.bytes() + SSE_FIELD_SLACK,
            )
            .await;
        self.note(result).map_err(without_url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn only_a_challenge_naming_resource_metadata_means_oauth() {
        let seen = |header: Option<&str>| {
            let challenge = Challenge::default();
            *challenge.header.lock().unwrap() = header.map(str::to_string);
            (challenge.seen(), challenge.wants_oauth())
        };
        assert_eq!(seen(None), (false, false));
        assert_eq!(seen(Some("Bearer realm=\"x\"")), (true, false));
        assert_eq!(
            seen(Some("Bearer resource_metadata=\"http://h/.well-known/x\"")),
            (true, true)
        );
    }

    #[test]
    fn only_the_same_origin_is_followed() {
        let first = url("http://127.0.0.1:3000/mcp?token=SECRET");
        assert!(check_redirect(&first, &url("http://127.0.0.1:3000/other")).is_ok());
        assert!(
            check_redirect(&url("https://a.example/x"), &url("https://a.example:443/y")).is_ok()
        );
        for other in [
            "http://127.0.0.1:3001/mcp",
            "https://127.0.0.1:3000/mcp",
            "http://localhost:3000/mcp",
        ] {
            assert!(check_redirect(&first, &url(other)).is_err(), "{other}");
        }
    }

    #[test]
    fn the_refusal_names_both_origins_and_no_secret() {
        let refused = check_redirect(
            &url("http://user:PASS@127.0.0.1:3000/mcp?token=SECRET"),
            &url("http://evil.example:8080/steal?x=SECRET2"),
        )
        .unwrap_err()
        .to_string();
        assert!(refused.contains("http://127.0.0.1:3000"), "{refused}");
        assert!(refused.contains("http://evil.example:8080"), "{refused}");
        for secret in ["SECRET", "PASS", "user", "/mcp", "/steal"] {
            assert!(!refused.contains(secret), "{refused}");
        }
    }
}
