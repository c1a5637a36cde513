//! A wrapped entry whose upstream is a Streamable HTTP server: a line-level client that
//! carries the host's own bytes, not messages re-typed through rmcp, so every answer reaches
//! the host as the server wrote it (line breaks of a pretty-printed body aside).
//!
//! Each line of the host is one POST (`Accept: application/json, text/event-stream`, the
//! entry's headers, `MCP-Protocol-Version`, the `Mcp-Session-Id` the server gave; for a
//! 2026-07-28 message also `Mcp-Method` and `Mcp-Name`). Its answer is a JSON body or an
//! event stream of messages (server requests and notifications may come before the reply);
//! each becomes a line for the host. Once the host said `notifications/initialized`, a GET
//! stream carries the server's own messages (405: it has none). When the host leaves, the
//! replies under way are let in and the session is DELETEd.
//!
//! A server that cannot be reached, or that ends the session (404 on it), fails: the proxy
//! tells the host why ([`super::inflight`]). Credentials: the entry's headers go to its
//! origin only (mcpick's redirect-safe client), and a server that wants OAuth gets mcpick's
//! own sign-in (`mcpick login`), never the host's, which mcpick cannot see.

use crate::sync::Locked;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue, WWW_AUTHENTICATE};
use rmcp::transport::auth::AuthorizationManager;
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};
use tokio::task::{AbortHandle, JoinSet};
use url::Url;

use super::Line;
use super::upstream::Ended;
use crate::mcp::limit::{self, Finished, Message, MessageLimit, Verdict};
use crate::mcp::sse_events::{EventReader, Item};
use crate::redact::Secrets;

const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const SESSION: &str = "mcp-session-id";
const VERSION: &str = "mcp-protocol-version";

/// How long the replies under way may take once the host left, and the DELETE after.
const CLOSE_WAIT: Duration = Duration::from_secs(3);
const DELETE_WAIT: Duration = Duration::from_secs(2);

/// The longest the next line waits for the server to take an `initialize` or a notification.
const ORDER_WAIT: Duration = Duration::from_secs(10);

/// A GET stream the server ended is opened again after this, at most this many times in a
/// row without a message.
const LISTEN_AGAIN: Duration = Duration::from_secs(1);
const LISTEN_TRIES: u32 = 5;

/// Messages queued for the proxy's loop.
pub(super) const QUEUE: usize = 256;

/// The most of an error body quoted back.
pub(super) const QUOTED: usize = 300;

/// What the session's requests found, in the order they found it.
pub(super) enum Event {
    Line(Vec<u8>),
    TooLarge(Value),
    /// The server failed, for this reason: the session is over.
    Failed(String),
}

/// What the session's requests share.
struct Shared {
    client: reqwest::Client,
    url: Url,
    /// scheme://host:port, for messages.
    shown: String,
    headers: HeaderMap,
    /// mcpick's own OAuth sign-in to this URL, when it has one and the entry sends no
    /// Authorization of its own.
    sign_in: Option<AuthorizationManager>,
    /// What `mcpick login` needs to sign in to this server.
    login: String,
    limit: MessageLimit,
    secrets: Secrets,
    name: String,
    state: Mutex<State>,
    events: mpsc::Sender<Event>,
}

#[derive(Default)]
struct State {
    session: Option<HeaderValue>,
    /// The version `initialize` agreed on (legacy era), sent on every later request.
    protocol: Option<String>,
    /// The GET stream, once opened.
    listen: Option<AbortHandle>,
}

/// The host's lines to the server.
pub struct Sink {
    shared: Arc<Shared>,
    posts: JoinSet<()>,
    /// Open once the server answered the last `initialize` or notification the host sent
    /// (its session id known; the notification taken): the next line waits for it, so the
    /// server gets them in the host's order. Requests go concurrently.
    gate: Option<oneshot::Receiver<()>>,
}

/// The server's lines to the host.
pub struct Source {
    events: mpsc::Receiver<Event>,
    failed: Option<String>,
}

/// Opens the session's two sides for the (placeholder-expanded) definition `url` +
/// `headers`. Nothing is sent yet: the host's first message is.
pub async fn start(
    name: &str,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    limit: MessageLimit,
    secrets: Secrets,
) -> Result<(super::upstream::Source, super::upstream::Sink), String> {
    // The userinfo goes as one Authorization header, as everywhere in mcpick.
    let (wire, headers) = crate::mcp::spec::http_wire(url, headers);
    let wire = Url::parse(&wire).map_err(|e| format!("the entry's URL is not valid: {e}"))?;
    let map = header_map(&headers)?;
    let sign_in = if map.contains_key(reqwest::header::AUTHORIZATION) {
        None
    } else {
        crate::mcp::oauth::stored_sign_in(url)
            .await?
            .map(|(manager, _)| manager)
    };
    let client =
        crate::mcp::http::client().map_err(|e| format!("cannot make an HTTP client: {e}"))?;
    let (events, rx) = mpsc::channel(QUEUE);
    let shared = Shared {
        client,
        shown: crate::mcp::http::origin_of(&wire),
        url: wire,
        headers: map,
        sign_in,
        login: format!("--url {}", crate::redact::url(url)),
        limit,
        secrets,
        name: name.to_string(),
        state: Mutex::new(State::default()),
        events,
    };
    Ok((
        super::upstream::Source::Http(Source {
            events: rx,
            failed: None,
        }),
        super::upstream::Sink::Http(Sink {
            shared: Arc::new(shared),
            posts: JoinSet::new(),
            gate: None,
        }),
    ))
}

/// The entry's headers, as sent.
pub(super) fn header_map(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (key, value) in headers {
        let bad = |what: &str| format!("header `{key}` has an invalid {what}");
        let key =
            reqwest::header::HeaderName::from_bytes(key.as_bytes()).map_err(|_| bad("name"))?;
        let value = HeaderValue::from_str(value).map_err(|_| bad("value"))?;
        map.append(key, value);
    }
    Ok(map)
}

impl Source {
    /// The source of a session whose messages arrive on `events`.
    pub(super) fn new(events: mpsc::Receiver<Event>) -> Source {
        Source {
            events,
            failed: None,
        }
    }

    pub async fn next(&mut self) -> Line {
        match self.events.recv().await {
            Some(Event::Line(line)) => Line::Whole(line),
            Some(Event::TooLarge(id)) => Line::TooLarge(id),
            Some(Event::Failed(reason)) => {
                self.failed = Some(reason);
                Line::End
            }
            None => Line::End,
        }
    }

    pub fn ended(self, name: &str) -> Ended {
        match self.failed {
            Some(reason) => Ended {
                reason: format!("the server `{name}` failed: {reason}"),
                clean: false,
            },
            None => Ended {
                reason: format!("the session with the server `{name}` ended"),
                clean: true,
            },
        }
    }
}

impl Sink {
    /// POSTs `line`; its answer comes through the [`Source`].
    pub async fn send(&mut self, line: &[u8]) {
        // Finished POSTs are let go of as new ones start.
        while self.posts.try_join_next().is_some() {}
        if let Some(gate) = self.gate.take() {
            let _ = tokio::time::timeout(ORDER_WAIT, gate).await;
        }
        let about = About::of(line);
        let (opened, gate) = oneshot::channel();
        if about.id.is_none() || about.method.as_deref() == Some("initialize") {
            self.gate = Some(gate);
        }
        self.posts
            .spawn(post(self.shared.clone(), line.to_vec(), about, opened));
    }

    /// The host left: the replies under way are let in, the GET stream closed, and the
    /// session ended with a DELETE (a server without sessions may answer 405: fine).
    pub async fn close(mut self) {
        let listen = self.shared.state().listen.take();
        if let Some(listen) = listen {
            listen.abort();
        }
        let _ = tokio::time::timeout(CLOSE_WAIT, async {
            while self.posts.join_next().await.is_some() {}
        })
        .await;
        self.posts.abort_all();
        let session = self.shared.state().session.clone();
        if session.is_some()
            && let Ok(request) = self
                .shared
                .request(reqwest::Method::DELETE, &About::default())
                .await
        {
            let _ = tokio::time::timeout(DELETE_WAIT, request.send()).await;
        }
    }
}

/// What the proxy needs to know of a host's line to POST it: the top-level envelope and, for
/// a 2026-07-28 message, what its standard headers carry.
#[derive(Debug, Default, PartialEq)]
struct About {
    /// A request's id (`None` for notifications and replies).
    id: Option<Value>,
    method: Option<String>,
    /// `params._meta["io.modelcontextprotocol/protocolVersion"]`: a modern message.
    modern: Option<String>,
    /// The tool or prompt name, or the resource URI (`Mcp-Name`).
    name: Option<String>,
}

#[derive(Deserialize)]
struct Envelope {
    id: Option<Value>,
    method: Option<String>,
    params: Option<Params>,
}

#[derive(Deserialize)]
struct Params {
    name: Option<Value>,
    uri: Option<Value>,
    #[serde(rename = "_meta")]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct Meta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    version: Option<String>,
}

impl About {
    fn of(line: &[u8]) -> About {
        let Ok(e) = serde_json::from_slice::<Envelope>(line) else {
            return About::default();
        };
        let params = e.params;
        let modern = params
            .as_ref()
            .and_then(|p| p.meta.as_ref())
            .and_then(|m| m.version.clone());
        let named = match e.method.as_deref() {
            Some("tools/call" | "prompts/get") => params.as_ref().and_then(|p| p.name.as_ref()),
            Some("resources/read") => params.as_ref().and_then(|p| p.uri.as_ref()),
            _ => None,
        };
        About {
            id: e
                .id
                .filter(|id| e.method.is_some() && (id.is_string() || id.is_number())),
            name: named.and_then(Value::as_str).map(str::to_string),
            method: e.method,
            modern,
        }
    }
}

/// A header value for `Mcp-Method` / `Mcp-Name`: as it is when it is plain visible ASCII,
/// else (or when it looks encoded already) `=?base64?…?=`, as 2026-07-28 asks.
fn header_text(value: &str) -> Option<HeaderValue> {
    let looks_encoded = value.starts_with("=?base64?") && value.ends_with("?=");
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !looks_encoded;
    let text = if plain {
        value.to_string()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    };
    HeaderValue::from_str(&text).ok()
}

/// One message a line: line breaks outside JSON strings are whitespace, and a JSON string
/// cannot hold a raw one, so they become spaces and every other byte stays.
pub(super) fn one_line(mut message: Vec<u8>) -> Vec<u8> {
    for b in &mut message {
        if matches!(*b, b'\n' | b'\r') {
            *b = b' ';
        }
    }
    message
}

/// True when `line` is the reply to request `id`.
fn answers(line: &[u8], id: &Value) -> bool {
    #[derive(Deserialize)]
    struct Reply {
        id: Option<Value>,
        method: Option<serde::de::IgnoredAny>,
    }
    serde_json::from_slice::<Reply>(line)
        .is_ok_and(|r| r.method.is_none() && r.id.as_ref() == Some(id))
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.locked()
    }

    /// A request to the endpoint with everything a session's request carries.
    async fn request(
        &self,
        method: reqwest::Method,
        about: &About,
    ) -> Result<reqwest::RequestBuilder, String> {
        let mut request = self
            .client
            .request(method, self.url.clone())
            .headers(self.headers.clone());
        let (session, protocol) = {
            let state = self.state();
            (state.session.clone(), state.protocol.clone())
        };
        if let Some(session) = session {
            request = request.header(SESSION, session);
        }
        if let Some(version) = about.modern.clone().or(protocol)
            && let Ok(version) = HeaderValue::from_str(&version)
        {
            request = request.header(VERSION, version);
        }
        if about.modern.is_some() {
            if let Some(method) = about.method.as_deref().and_then(header_text) {
                request = request.header("mcp-method", method);
            }
            if let Some(name) = about.name.as_deref().and_then(header_text) {
                request = request.header("mcp-name", name);
            }
        }
        if let Some(manager) = &self.sign_in {
            let token = manager.get_access_token().await.map_err(|e| {
                format!(
                    "its OAuth sign-in cannot be used ({e}): sign in again with `mcpick login {}`",
                    self.login
                )
            })?;
            request = request.bearer_auth(token);
        }
        Ok(request)
    }

    async fn emit(&self, event: Event) {
        let _ = self.events.send(event).await;
    }

    async fn fail(&self, reason: String) {
        self.emit(Event::Failed(self.secrets.scrub(&reason))).await;
    }

    /// The error reply the host gets for request `id` when the server's answer to it was not
    /// a message.
    async fn answer_error(&self, id: &Value, why: String) {
        let message = self
            .secrets
            .scrub(&format!("the server `{}` {why}", self.name));
        let reply = json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": super::inflight::SERVER_GONE, "message": message },
        });
        self.emit(Event::Line(reply.to_string().into_bytes())).await;
    }

    fn note_session(&self, response: &reqwest::Response) {
        if let Some(session) = response.headers().get(SESSION) {
            self.state().session = Some(session.clone());
        }
    }

    /// Why a 401 ended the session: an OAuth server wants mcpick's own sign-in.
    fn unauthorized(&self, response: &reqwest::Response) -> String {
        let challenge = response
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        if self.sign_in.is_some() || challenge.contains("resource_metadata") {
            format!(
                "it needs an OAuth sign-in (HTTP 401), and a wrapped entry cannot use the host's: sign in with `mcpick login {}` (the wrapped entry then uses mcpick's sign-in)",
                self.login
            )
        } else {
            let challenge = crate::sanitize::line(challenge, QUOTED);
            format!(
                "it refused the request (HTTP 401 Unauthorized{}): check the entry's headers",
                if challenge.is_empty() {
                    String::new()
                } else {
                    format!(", WWW-Authenticate: {challenge}")
                }
            )
        }
    }

    /// Opens the GET stream once.
    fn listen(self: &Arc<Self>) {
        let mut state = self.state();
        if state.listen.is_none() {
            state.listen = Some(tokio::spawn(listen(self.clone())).abort_handle());
        }
    }
}

/// POSTs one line of the host and relays what answers it; `answered` is told once the
/// server's answer began (or the POST failed).
async fn post(shared: Arc<Shared>, line: Vec<u8>, about: About, answered: oneshot::Sender<()>) {
    let request = match shared.request(reqwest::Method::POST, &about).await {
        Ok(request) => request,
        Err(reason) => return shared.fail(reason).await,
    };
    let had_session = shared.state().session.is_some();
    let sent = request
        .header(ACCEPT, ACCEPT_BOTH)
        .header(CONTENT_TYPE, "application/json")
        .body(line)
        .send()
        .await;
    let response = match sent {
        Ok(response) => response,
        Err(e) => return shared.fail(not_sent(&shared.shown, e)).await,
    };
    shared.note_session(&response);
    let status = response.status();
    if status.is_success() && about.method.as_deref() == Some("notifications/initialized") {
        shared.listen();
    }
    let _ = answered.send(());
    if status == reqwest::StatusCode::UNAUTHORIZED {
        return shared.fail(shared.unauthorized(&response)).await;
    }
    let kind = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase();
    if status.is_success() && kind.starts_with("text/event-stream") {
        return relay_stream(&shared, response, &about).await;
    }
    let body = match read_body(&shared, response, about.id.as_ref()).await {
        Ok(Some(body)) => body,
        // Too large: the host was told already.
        Ok(None) => return,
        Err(reason) => return shared.fail(reason).await,
    };
    let message = (!body.iter().all(u8::is_ascii_whitespace)).then_some(body);
    if status.is_success() {
        match (message, &about.id) {
            (Some(message), _) => relay(&shared, one_line(message), &about).await,
            (None, Some(id)) => {
                shared
                    .answer_error(id, format!("answered HTTP {status} without a message"))
                    .await
            }
            (None, None) => {}
        }
        return;
    }
    // An error status. A session the server no longer knows is over.
    if status == reqwest::StatusCode::NOT_FOUND && had_session {
        return shared
            .fail("it ended the session (HTTP 404 Not Found on its session id: it expired or the server restarted)".into())
            .await;
    }
    // A JSON-RPC reply in the body is the server's answer (a 2026-07-28 server answers an
    // unknown method 404 with -32601): passed on as it is.
    if let (Some(message), Some(id)) = (&message, &about.id)
        && answers(message, id)
    {
        return relay(&shared, one_line(message.clone()), &about).await;
    }
    let quoted = message
        .map(|m| crate::sanitize::line(&String::from_utf8_lossy(&m), QUOTED))
        .map(|m| format!(": {m}"))
        .unwrap_or_default();
    let why = format!("answered HTTP {status}{quoted}");
    match &about.id {
        Some(id) => shared.answer_error(id, why).await,
        None => crate::say::report(&shared.secrets.scrub(&format!(
            "wrap `{}`: the server {why} to a notification",
            shared.name
        ))),
    }
}

/// Why a POST to `shown` got no answer, as the host is told. Not reaching the server and
/// losing the connection after the request went out are told apart: in the second case the
/// server may have acted on it (a tool call may have run), so the proxy does not send it
/// again; hyper already sends again, on a fresh connection, a request a reused idle
/// connection closed under before it was written.
pub(super) fn not_sent(shown: &str, e: reqwest::Error) -> String {
    let lost = e.is_request() && !e.is_connect();
    let chain = crate::mcp::http::error_chain(&e.without_url());
    if lost {
        format!("lost the connection to {shown} before it answered ({chain})")
    } else {
        format!("cannot reach {shown} ({chain})")
    }
}

/// A whole body under the limit; `None` when it was above it (the host was told, when the
/// body answers a request).
async fn read_body(
    shared: &Shared,
    response: reqwest::Response,
    id: Option<&Value>,
) -> Result<Option<Vec<u8>>, String> {
    let mut message = Message::new(shared.limit);
    let mut body = response.bytes_stream();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| {
            format!(
                "its answer broke off ({})",
                crate::mcp::http::error_chain(&e.without_url())
            )
        })?;
        if let Verdict::TooLarge(found) = message.push(&chunk) {
            shared.emit(Event::TooLarge(found)).await;
            return Ok(None);
        }
    }
    match message.finish() {
        Finished::Complete(body) => Ok(Some(body)),
        Finished::Reported => Ok(None),
        Finished::Dropped => {
            if let Some(id) = id {
                shared.emit(Event::TooLarge(id.clone())).await;
            }
            Ok(None)
        }
    }
}

/// One message for the host; the reply to `initialize` also gives the version every later
/// request names.
async fn relay(shared: &Shared, line: Vec<u8>, about: &About) {
    if about.method.as_deref() == Some("initialize")
        && let Some(id) = &about.id
        && answers(&line, id)
        && let Ok(reply) = serde_json::from_slice::<Value>(&line)
        && let Some(version) = reply
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
    {
        shared.state().protocol = Some(version.to_string());
    }
    shared.emit(Event::Line(line)).await;
}

/// The event stream answering one POST: every message on it, in order; a request whose
/// stream ends without its reply is answered with why.
async fn relay_stream(shared: &Shared, response: reqwest::Response, about: &About) {
    let mut answered = about.id.is_none();
    let ended = events(
        shared,
        response,
        |line| {
            if let Some(id) = &about.id
                && answers(line, id)
            {
                answered = true;
            }
        },
        about,
    )
    .await;
    if let Err(reason) = ended {
        return shared.fail(reason).await;
    }
    if !answered && let Some(id) = &about.id {
        shared
            .answer_error(
                id,
                "closed the stream of its answer before answering (resuming a stream is not supported through `wrap`)".into(),
            )
            .await;
    }
}

/// Relays the messages of an event stream until it ends; `seen` looks at each first. An
/// error is the stream breaking off.
async fn events(
    shared: &Shared,
    response: reqwest::Response,
    mut seen: impl FnMut(&[u8]),
    about: &About,
) -> Result<(), String> {
    let mut reader = EventReader::new(shared.limit);
    let mut body = response.bytes_stream();
    let mut items = Vec::new();
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| {
            format!(
                "its event stream broke off ({})",
                crate::mcp::http::error_chain(&e.without_url())
            )
        })?;
        reader.push(&chunk, &mut items);
        for item in items.drain(..) {
            match item {
                Item::Event { name, data } => {
                    // Priming events (an id, no data) and other event types carry no message.
                    if !matches!(name.as_deref(), None | Some("message")) || data.trim().is_empty()
                    {
                        continue;
                    }
                    let line = one_line(data.into_bytes());
                    seen(&line);
                    relay(shared, line, about).await;
                }
                Item::TooLarge(id) => {
                    seen(&limit::too_large_reply(&id, shared.limit).into_bytes());
                    shared.emit(Event::TooLarge(id)).await;
                }
                Item::Dropped => crate::say::report(&format!(
                    "wrap `{}`: dropped a message larger than {} MiB that answers no request",
                    shared.name,
                    shared.limit.mib()
                )),
            }
        }
    }
    Ok(())
}

/// The GET stream of the server's own messages, opened again when the server ends it.
async fn listen(shared: Arc<Shared>) {
    let mut tries = 0;
    while tries < LISTEN_TRIES {
        tries += 1;
        let Ok(request) = shared
            .request(reqwest::Method::GET, &About::default())
            .await
        else {
            return;
        };
        // Unreachable: the next POST says why.
        let Ok(response) = request.header(ACCEPT, "text/event-stream").send().await else {
            return;
        };
        let status = response.status();
        match status {
            reqwest::StatusCode::METHOD_NOT_ALLOWED => return,
            reqwest::StatusCode::UNAUTHORIZED => {
                return shared.fail(shared.unauthorized(&response)).await;
            }
            reqwest::StatusCode::NOT_FOUND => {
                return shared
                    .fail("it ended the session (HTTP 404 Not Found on its GET stream)".into())
                    .await;
            }
            _ if !status.is_success() => {
                crate::say::report(&format!(
                    "wrap `{}`: the server answered HTTP {status} to the GET stream; its own messages (list changes, requests) will not reach the host",
                    shared.name
                ));
                return;
            }
            _ => {}
        }
        let mut got = false;
        let ended = events(&shared, response, |_| got = true, &About::default()).await;
        if got {
            tries = 0;
        }
        if ended.is_err() {
            // Broken off: a server that went away is found by the next POST.
            tries = tries.max(LISTEN_TRIES - 1);
        }
        tokio::time::sleep(LISTEN_AGAIN).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_read_for_its_id_method_and_modern_headers() {
        let about = About::of(
            br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add","arguments":{"name":"x"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
        );
        assert_eq!(
            about,
            About {
                id: Some(json!(3)),
                method: Some("tools/call".into()),
                modern: Some("2026-07-28".into()),
                name: Some("add".into()),
            }
        );
        let read = About::of(
            br#"{"jsonrpc":"2.0","id":"r","method":"resources/read","params":{"uri":"a://b"}}"#,
        );
        assert_eq!(read.name.as_deref(), Some("a://b"));
        assert_eq!(read.modern, None);
        // A reply of the host is no request; garbage is nothing.
        assert_eq!(
            About::of(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#).id,
            None
        );
        assert_eq!(About::of(b"not json"), About::default());
    }

    #[test]
    fn header_values_that_are_not_plain_ascii_are_base64_encoded() {
        assert_eq!(header_text("tools/call").unwrap(), "tools/call");
        assert_eq!(header_text("file:///a b.txt").unwrap(), "file:///a b.txt");
        let encoded = |s: &str| {
            format!(
                "=?base64?{}?=",
                base64::engine::general_purpose::STANDARD.encode(s)
            )
        };
        for odd in ["café", " lead", "line\nbreak", "=?base64?abc?="] {
            assert_eq!(header_text(odd).unwrap(), encoded(odd).as_str(), "{odd:?}");
        }
    }

    #[test]
    fn a_pretty_printed_message_becomes_one_line_with_its_strings_intact() {
        let pretty = b"{\r\n  \"id\": 1,\n  \"result\": {\"t\": \"a\\nb\"}\n}".to_vec();
        let line = one_line(pretty);
        assert!(!line.contains(&b'\n') && !line.contains(&b'\r'));
        let value: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(value["result"]["t"], "a\nb");
    }
}
