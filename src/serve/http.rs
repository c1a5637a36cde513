//! `serve --http ADDR`: Streamable HTTP at `http://ADDR/mcp`, rmcp's tower service behind
//! hyper 1. Loopback by default, with `Host` and `Origin` checked against DNS rebinding (a web
//! page must not reach a local server through a name it controls); a non-loopback address
//! needs a bearer token that every request carries.
//!
//! Clients are bounded ([`Limits`]): a request's head and body must arrive in time, and the
//! connections and sessions open at once are capped. A limit that is hit is answered at once
//! with a status and a line that names it, so a slow or greedy client costs itself only.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper::service::{Service, service_fn};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use super::Diag;
use super::engine::Engine;
use super::handler::{Presentation, ServeHandler};

/// The only path answered.
pub const MCP_PATH: &str = "/mcp";

/// What one client may hold of the server: without these, 5,000 half-sent requests used up
/// its file descriptors and 12,000 sessions 765 MB.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A request's head (line and headers) must arrive within this; an idle kept-alive
    /// connection is closed after it too.
    pub header_timeout: Duration,
    /// A request's body must arrive within this of its head.
    pub body_timeout: Duration,
    /// Connections open at once; more are answered 503 and closed.
    pub max_connections: usize,
    /// Sessions live at once; a new one past this is answered 503. Idle sessions end after
    /// rmcp's keep-alive (5 minutes), a `DELETE` ends one at once.
    pub max_sessions: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            body_timeout: Duration::from_secs(30),
            max_connections: default_max_connections(),
            max_sessions: 1000,
        }
    }
}

/// Half the process's descriptor limit (the other half stays for upstreams and files),
/// between 16 and 1024.
fn default_max_connections() -> usize {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit only writes the struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
            return usize::try_from(limit.rlim_cur / 2)
                .unwrap_or(1024)
                .clamp(16, 1024);
        }
    }
    512
}

/// Serves until the process ends. `token`: the bearer token every request must carry.
pub async fn serve(
    engine: Arc<Engine>,
    presentation: Arc<Presentation>,
    addr: SocketAddr,
    token: Option<String>,
    diag: Arc<Diag>,
) -> anyhow::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    serve_on(
        listener,
        engine,
        presentation,
        token,
        diag,
        Limits::default(),
    )
    .await
}

/// [`serve`] on a bound listener, within `limits`.
pub async fn serve_on(
    listener: TcpListener,
    engine: Arc<Engine>,
    presentation: Arc<Presentation>,
    token: Option<String>,
    diag: Arc<Diag>,
    limits: Limits,
) -> anyhow::Result<()> {
    let local = listener.local_addr()?;
    diag.line(&format!("listening on http://{local}{MCP_PATH}"));
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(super::stdio::REQUEST_LIMIT.bytes());
    if local.ip().is_loopback() {
        let port = local.port();
        config = config
            .with_allowed_origins([
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
                format!("http://[::1]:{port}"),
            ])
            .enforce_origin_validation();
    } else {
        // Remote clients are wanted; the bearer token (required for this) is the gate.
        config = config.disable_allowed_hosts().disable_allowed_origins();
    }
    let sessions = Arc::new(LocalSessionManager::default());
    let mcp = StreamableHttpService::new(
        move || Ok(ServeHandler::new(engine.clone(), presentation.clone())),
        sessions.clone(),
        config,
    );
    let mcp = TowerToHyperService::new(mcp);
    let token = Arc::new(token.map(|t| format!("Bearer {t}")));
    let connections = Arc::new(Semaphore::new(limits.max_connections));
    // Requests opening a session now: counted with the live sessions, so requests arriving
    // together cannot all pass the limit before any of their sessions exists.
    let opening = Arc::new(AtomicUsize::new(0));
    // Held while a request checks the limit and takes its place: the check and the count
    // are one step, so exactly the places left are taken.
    let gate = Arc::new(tokio::sync::Mutex::new(()));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            let text = format!(
                "too many connections: {} are open, the limit on connections\n",
                limits.max_connections
            );
            // Best effort: the client may not read it; the connection closes either way.
            let _ = stream.try_write(refusal(&text).as_bytes());
            continue;
        };
        let mcp = mcp.clone();
        let token = token.clone();
        let sessions = sessions.clone();
        let opening = opening.clone();
        let gate = gate.clone();
        tokio::spawn(async move {
            let _permit = permit;
            let route = service_fn(move |req: Request<Incoming>| {
                let mcp = mcp.clone();
                let token = token.clone();
                let sessions = sessions.clone();
                let opening = opening.clone();
                let gate = gate.clone();
                async move {
                    if req.uri().path() != MCP_PATH {
                        return Ok::<_, Infallible>(plain(
                            StatusCode::NOT_FOUND,
                            "not found: the MCP endpoint is /mcp\n",
                        ));
                    }
                    if let Some(expected) = &*token {
                        let given = req
                            .headers()
                            .get(http::header::AUTHORIZATION)
                            .map(|v| v.as_bytes())
                            .unwrap_or_default();
                        if !same(given, expected.as_bytes()) {
                            let mut response = plain(
                                StatusCode::UNAUTHORIZED,
                                "unauthorized: send the bearer token\n",
                            );
                            response.headers_mut().insert(
                                http::header::WWW_AUTHENTICATE,
                                http::HeaderValue::from_static("Bearer realm=\"mcpick\""),
                            );
                            return Ok(response);
                        }
                    }
                    let opens_session = req.method() == http::Method::POST
                        && !req.headers().contains_key("mcp-session-id");
                    let mut _opening = None;
                    if opens_session {
                        let _checking = gate.lock().await;
                        let live = sessions.sessions.read().await.len();
                        if live + opening.load(Ordering::SeqCst) < limits.max_sessions {
                            _opening = Some(Opening::enter(&opening));
                        }
                    }
                    if opens_session && _opening.is_none() {
                        return Ok(plain_owned(
                            StatusCode::SERVICE_UNAVAILABLE,
                            format!(
                                "too many sessions: {} are live, the limit on sessions; end one \
                                 (DELETE) or wait for idle ones to end\n",
                                limits.max_sessions
                            ),
                        ));
                    }
                    let delete = req.method() == http::Method::DELETE;
                    let too_slow = Arc::new(AtomicBool::new(false));
                    let req =
                        req.map(|body| Deadline::new(body, limits.body_timeout, too_slow.clone()));
                    let mut response = mcp.call(req).await?;
                    // A body that did not arrive in time is the client's timeout, said as such.
                    if too_slow.load(Ordering::SeqCst) {
                        *response.status_mut() = StatusCode::REQUEST_TIMEOUT;
                    }
                    // rmcp answers a session's DELETE 202 Accepted; the session is already
                    // closed, which is 204 No Content.
                    if delete && response.status() == StatusCode::ACCEPTED {
                        *response.status_mut() = StatusCode::NO_CONTENT;
                    }
                    Ok(response.map(Routed::Mcp))
                }
            });
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_timeout)
                .serve_connection(TokioIo::new(stream), route)
                .await;
        });
    }
}

/// Compares secrets in time independent of where they first differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn plain<B>(status: StatusCode, text: &'static str) -> Response<Routed<B>> {
    plain_owned(status, text.to_string())
}

fn plain_owned<B>(status: StatusCode, text: String) -> Response<Routed<B>> {
    let mut response = Response::new(Routed::Plain(Some(Bytes::from(text))));
    *response.status_mut() = status;
    response
}

/// A whole HTTP/1.1 503 response with `text`, for a connection refused before hyper has it.
fn refusal(text: &str) -> String {
    format!(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )
}

/// A request body that fails, naming the limit, when it has not all arrived by a deadline
/// (rmcp reads a body to its end before answering; a client sending it slowly held the
/// connection forever).
struct Deadline<B> {
    body: B,
    sleep: Pin<Box<tokio::time::Sleep>>,
    limit: Duration,
    /// Set when the limit was hit (the answer is then 408).
    too_slow: Arc<AtomicBool>,
}

impl<B> Deadline<B> {
    fn new(body: B, limit: Duration, too_slow: Arc<AtomicBool>) -> Self {
        Deadline {
            body,
            sleep: Box::pin(tokio::time::sleep(limit)),
            limit,
            too_slow,
        }
    }
}

/// One request opening a session, counted while it runs.
struct Opening(Arc<AtomicUsize>);

impl Opening {
    fn enter(count: &Arc<AtomicUsize>) -> Opening {
        count.fetch_add(1, Ordering::SeqCst);
        Opening(count.clone())
    }
}

impl Drop for Opening {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Why a request body could not be read.
#[derive(Debug)]
enum BodyError<E> {
    Read(E),
    TooSlow(Duration),
}

impl<E: std::fmt::Display> std::fmt::Display for BodyError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::Read(e) => e.fmt(f),
            BodyError::TooSlow(limit) => write!(
                f,
                "the body did not arrive within {} s, the limit on a request body's time",
                limit.as_secs_f64()
            ),
        }
    }
}

impl<B> Body for Deadline<B>
where
    B: Body + Unpin,
{
    type Data = B::Data;
    type Error = BodyError<B::Error>;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = Pin::new(&mut this.body).poll_frame(cx) {
            return Poll::Ready(frame.map(|f| f.map_err(BodyError::Read)));
        }
        match this.sleep.as_mut().poll(cx) {
            Poll::Ready(()) => {
                this.too_slow.store(true, Ordering::SeqCst);
                Poll::Ready(Some(Err(BodyError::TooSlow(this.limit))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// Response body: rmcp's, or one chunk of text.
enum Routed<B> {
    Mcp(B),
    Plain(Option<Bytes>),
}

impl<B> Body for Routed<B>
where
    B: Body<Data = Bytes> + Unpin,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        match self.get_mut() {
            Routed::Mcp(body) => Pin::new(body).poll_frame(cx),
            Routed::Plain(chunk) => Poll::Ready(chunk.take().map(|c| Ok(Frame::data(c)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Routed::Mcp(body) => body.is_end_stream(),
            Routed::Plain(chunk) => chunk.is_none(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Routed::Mcp(body) => body.size_hint(),
            Routed::Plain(chunk) => {
                SizeHint::with_exact(chunk.as_ref().map_or(0, |c| c.len() as u64))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// `serve --http` over no upstreams on a free loopback port, within `limits`.
    async fn start(limits: Limits) -> SocketAddr {
        let upstreams = super::super::Upstreams::already_listed(vec![]);
        let engine = Engine::over(upstreams, Default::default(), Default::default()).await;
        let presentation = Arc::new(Presentation {
            name: "limits".into(),
            tool: true,
            awaiting: Vec::new(),
        });
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let diag = Arc::new(Diag::default());
        tokio::spawn(serve_on(listener, engine, presentation, None, diag, limits));
        addr
    }

    fn limits() -> Limits {
        Limits {
            header_timeout: Duration::from_secs(60),
            body_timeout: Duration::from_secs(60),
            max_connections: 64,
            max_sessions: 64,
        }
    }

    /// The head of an `initialize` POST announcing `length` bytes of body.
    fn head(addr: SocketAddr, length: usize) -> String {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {length}\r\n\
             Connection: close\r\n\r\n"
        )
    }

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;

    /// Sends `bytes` and reads until the server closes (a generous guard turns a hang into
    /// a failure; nothing here depends on how fast the server is).
    async fn exchange(addr: SocketAddr, bytes: &str) -> String {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        stream.write_all(bytes.as_bytes()).await.unwrap();
        let mut out = Vec::new();
        let read = stream.read_to_end(&mut out);
        match tokio::time::timeout(Duration::from_secs(30), read).await {
            Ok(_) => String::from_utf8_lossy(&out).into_owned(),
            Err(_) => panic!(
                "the server held the connection: {:?}",
                String::from_utf8_lossy(&out)
            ),
        }
    }

    /// A request whose head never ends was held forever; it is dropped after the limit.
    #[tokio::test]
    async fn a_half_sent_head_is_dropped() {
        let addr = start(Limits {
            header_timeout: Duration::from_millis(100),
            ..limits()
        })
        .await;
        let reply = exchange(addr, &format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\n")).await;
        assert!(!reply.contains("200 OK"), "{reply}");
    }

    /// A body that stops short of its length is answered at once the limit is hit, naming it.
    #[tokio::test]
    async fn a_half_sent_body_is_answered_naming_the_limit() {
        let addr = start(Limits {
            body_timeout: Duration::from_millis(100),
            ..limits()
        })
        .await;
        let request = head(addr, INITIALIZE.len()) + &INITIALIZE[..20];
        let reply = exchange(addr, &request).await;
        assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
        assert!(reply.contains("limit on a request body's time"), "{reply}");
    }

    /// Requests that open sessions all at once cannot pass the limit together: never more
    /// sessions than the limit, and the rest refused naming it.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn sessions_opened_all_at_once_stay_within_the_limit() {
        let addr = start(Limits {
            max_sessions: 2,
            ..limits()
        })
        .await;
        let initialize = head(addr, INITIALIZE.len()) + INITIALIZE;
        let replies = futures::future::join_all((0..40).map(|_| {
            let initialize = initialize.clone();
            tokio::spawn(async move { exchange(addr, &initialize).await })
        }))
        .await
        .into_iter()
        .map(|r| r.unwrap())
        .collect::<Vec<_>>();
        let opened = replies
            .iter()
            .filter(|r| r.starts_with("HTTP/1.1 200"))
            .count();
        // Never past the limit; a session is counted twice for the moment between its
        // creation and its answer, so a burst may get one fewer (a 503 it can retry).
        assert!((1..=2).contains(&opened), "{opened}: {replies:?}");
        for r in replies.iter().filter(|r| !r.starts_with("HTTP/1.1 200")) {
            assert!(r.contains("the limit on sessions"), "{r}");
        }
    }

    /// Sessions past the limit are refused with a 503 that names it; the live ones stay.
    #[tokio::test]
    async fn sessions_past_the_limit_are_refused() {
        let addr = start(Limits {
            max_sessions: 2,
            ..limits()
        })
        .await;
        let initialize = head(addr, INITIALIZE.len()) + INITIALIZE;
        for _ in 0..2 {
            let reply = exchange(addr, &initialize).await;
            assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
        }
        let reply = exchange(addr, &initialize).await;
        assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
        assert!(reply.contains("the limit on sessions"), "{reply}");
    }

    /// Connections past the limit are answered 503 naming it and closed, not held.
    #[tokio::test]
    async fn connections_past_the_limit_are_refused() {
        let addr = start(Limits {
            max_connections: 1,
            ..limits()
        })
        .await;
        let _idle = tokio::net::TcpStream::connect(addr).await.unwrap();
        let reply = exchange(addr, "").await;
        assert!(reply.starts_with("HTTP/1.1 503"), "{reply}");
        assert!(reply.contains("the limit on connections"), "{reply}");
    }

    #[test]
    fn token_comparison() {
        assert!(super::same(b"Bearer abc", b"Bearer abc"));
        assert!(!super::same(b"Bearer abd", b"Bearer abc"));
        assert!(!super::same(b"Bearer ab", b"Bearer abc"));
    }
}
