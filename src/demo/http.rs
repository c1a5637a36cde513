//! HTTP transports for the demo server: rmcp's Streamable HTTP tower service behind hyper 1,
//! mounted at `/mcp`, and the legacy HTTP+SSE transport at `/sse` + `/message` (see
//! [`super::sse`]). `/moved/PATH` answers 308 to `/PATH` (a same-origin redirect); anything
//! else is 404. A [`Gate`] may stand in front of the MCP endpoints (the demo has none; the test
//! fixture puts its OAuth and header checks there).

use std::{
    convert::Infallible,
    io::Write,
    net::SocketAddr,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
};

use bytes::Bytes;
use hyper::{
    Request, Response, StatusCode,
    body::{Body, Frame, Incoming, SizeHint},
    server::conn::http1,
    service::{Service, service_fn},
};
use hyper_util::{rt::TokioIo, service::TowerToHyperService};
use rmcp::{
    ServerHandler,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use tokio::{net::TcpListener, sync::mpsc};

use super::sse::{self, Sessions};
pub use super::sse::{MESSAGE_PATH, SSE_PATH, read_body};

/// Where Streamable HTTP is served.
pub const MCP_PATH: &str = "/mcp";

/// Whether `path` is one of the MCP endpoints (Streamable HTTP, or legacy SSE's two).
pub fn is_mcp_path(path: &str) -> bool {
    [MCP_PATH, SSE_PATH, MESSAGE_PATH].contains(&path)
}

/// What stands in front of the server: sees every request but a `/moved/` redirect first,
/// and answers it itself (`Err`) or hands it on to be served (`Ok`). `()` hands everything on.
pub trait Gate: Send + Sync + 'static {
    fn admit(
        &self,
        req: Request<Incoming>,
    ) -> impl Future<Output = Result<Request<Incoming>, Response<Bytes>>> + Send;
}

impl Gate for () {
    async fn admit(&self, req: Request<Incoming>) -> Result<Request<Incoming>, Response<Bytes>> {
        Ok(req)
    }
}

/// Binds `addr` and announces it: prints `listening on http://ADDR/mcp` to stdout, with the
/// port chosen when `addr`'s is 0.
pub async fn bind(addr: SocketAddr) -> anyhow::Result<TcpListener> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "listening on http://{local}{MCP_PATH}")?;
    stdout.flush()?;
    Ok(listener)
}

/// [`serve_on`] until Ctrl-C.
pub async fn serve<H, G>(
    listener: TcpListener,
    connection: impl Fn() -> H + Send + Sync + 'static,
    gate: G,
) -> anyhow::Result<()>
where
    H: ServerHandler + Send + 'static,
    G: Gate,
{
    tokio::select! {
        result = serve_on(listener, connection, gate) => result,
        _ = tokio::signal::ctrl_c() => Ok(()),
    }
}

/// Serves MCP on an already bound listener, forever: one handler from `connection` per
/// session (Streamable HTTP or legacy SSE), every request past `gate` first.
pub async fn serve_on<H, G>(
    listener: TcpListener,
    connection: impl Fn() -> H + Send + Sync + 'static,
    gate: G,
) -> anyhow::Result<()>
where
    H: ServerHandler + Send + 'static,
    G: Gate,
{
    let local = listener.local_addr()?;
    let gate = Arc::new(gate);
    let connection = Arc::new(connection);
    // rmcp refuses Host headers that are not loopback by default (DNS rebinding defence).
    // Binding a non-loopback address means remote clients are wanted, so let them in.
    let mut config = StreamableHttpServerConfig::default();
    if !local.ip().is_loopback() {
        config = config.disable_allowed_hosts();
    }
    let for_mcp = connection.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(for_mcp()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mcp = TowerToHyperService::new(mcp);
    let sessions = Arc::new(Sessions::default());

    loop {
        let stream = match listener.accept().await {
            Ok((stream, _peer)) => stream,
            // Out of file descriptors and the like: back off instead of dying.
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let mcp = mcp.clone();
        let gate = gate.clone();
        let connection = connection.clone();
        let sessions = sessions.clone();
        tokio::spawn(async move {
            let route = service_fn(move |req: Request<Incoming>| {
                let mcp = mcp.clone();
                let gate = gate.clone();
                let connection = connection.clone();
                let sessions = sessions.clone();
                async move {
                    if let Some(to) = moved(req.uri()) {
                        return Ok::<_, Infallible>(redirect(&to));
                    }
                    let req = match gate.admit(req).await {
                        Ok(req) => req,
                        Err(answer) => return Ok(answer.map(|b| Routed::Chunk(Some(b)))),
                    };
                    match req.uri().path() {
                        SSE_PATH => Ok(event_stream(sse::open(connection(), sessions))),
                        MESSAGE_PATH => Ok(sse::post(&sessions, req).await.map(Routed::Chunk)),
                        MCP_PATH => Ok(mcp.call(req).await?.map(Routed::Mcp)),
                        _ => Ok(not_found()),
                    }
                }
            });
            // A client hanging up mid-stream is routine; nothing to report.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), route)
                .await;
        });
    }
}

/// `/moved/PATH?QUERY` → `/PATH?QUERY`.
fn moved(uri: &http::Uri) -> Option<String> {
    let rest = uri.path().strip_prefix("/moved")?;
    if !rest.starts_with('/') {
        return None;
    }
    Some(match uri.query() {
        Some(query) => format!("{rest}?{query}"),
        None => rest.to_string(),
    })
}

fn redirect<B>(to: &str) -> Response<Routed<B>> {
    let mut response = Response::new(Routed::Chunk(None));
    *response.status_mut() = StatusCode::PERMANENT_REDIRECT;
    if let Ok(location) = http::HeaderValue::from_str(to) {
        response
            .headers_mut()
            .insert(http::header::LOCATION, location);
    }
    response
}

fn event_stream<B>(events: mpsc::Receiver<Bytes>) -> Response<Routed<B>> {
    let mut response = Response::new(Routed::Events(events));
    let headers = response.headers_mut();
    headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(
        http::header::CACHE_CONTROL,
        http::HeaderValue::from_static("no-cache"),
    );
    response
}

fn not_found<B>() -> Response<Routed<B>> {
    let mut response = Response::new(Routed::Chunk(Some(Bytes::from_static(
        b"not found: the MCP endpoints are /mcp (Streamable HTTP) and /sse (legacy HTTP+SSE)\n",
    ))));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// Response body: rmcp's, one chunk (or none), or a legacy SSE session's events.
enum Routed<B> {
    Mcp(B),
    Chunk(Option<Bytes>),
    Events(mpsc::Receiver<Bytes>),
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
            Routed::Chunk(chunk) => Poll::Ready(chunk.take().map(|c| Ok(Frame::data(c)))),
            Routed::Events(events) => events.poll_recv(cx).map(|e| e.map(|e| Ok(Frame::data(e)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Routed::Mcp(body) => body.is_end_stream(),
            Routed::Chunk(chunk) => chunk.is_none(),
            Routed::Events(_) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Routed::Mcp(body) => body.size_hint(),
            Routed::Chunk(chunk) => {
                SizeHint::with_exact(chunk.as_ref().map_or(0, |c| c.len() as u64))
            }
            Routed::Events(_) => SizeHint::default(),
        }
    }
}
