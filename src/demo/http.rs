//! HTTP transports for the demo server: rmcp's Streamable HTTP tower service behind hyper 1,
//! mounted at `/mcp`, and the legacy HTTP+SSE transport at `/sse` + `/message` (see
//! [`super::sse`]). `/moved/PATH` answers 308 to `/PATH` (a same-origin redirect, to test
//! clients' redirect handling); anything else is 404.

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
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio::{net::TcpListener, sync::mpsc};

use super::{
    oauth::{Authority, OAuthOptions},
    server::{DemoServer, Shared},
    sse::{self, MESSAGE_PATH, SSE_PATH, Sessions},
};

/// The only path the server answers on.
pub(crate) const MCP_PATH: &str = "/mcp";

/// Binds `addr` and serves until Ctrl-C. Prints `listening on http://ADDR/mcp` to stdout once bound.
pub(crate) async fn serve(
    shared: Arc<Shared>,
    addr: SocketAddr,
    required: Option<(String, String)>,
    oauth: Option<OAuthOptions>,
) -> anyhow::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on http://{local}{MCP_PATH}")?;
        stdout.flush()?;
    }
    tokio::select! {
        result = serve_guarded(shared, listener, required, oauth) => result,
        _ = tokio::signal::ctrl_c() => Ok(()),
    }
}

/// Serves MCP on an already bound listener, forever. With `required`, requests without that
/// exact header are refused with 401 (to test that clients send configured headers).
#[cfg(test)]
pub(crate) async fn serve_on(
    shared: Arc<Shared>,
    listener: TcpListener,
    required: Option<(String, String)>,
) -> anyhow::Result<()> {
    serve_guarded(shared, listener, required, None).await
}

/// [`serve_on`], and with `oauth` behind OAuth (see [`super::oauth`]).
async fn serve_guarded(
    shared: Arc<Shared>,
    listener: TcpListener,
    required: Option<(String, String)>,
    oauth: Option<OAuthOptions>,
) -> anyhow::Result<()> {
    let required = Arc::new(required);
    let local = listener.local_addr()?;
    let authority = oauth.map(|options| Arc::new(Authority::new(local, options)));
    // rmcp refuses Host headers that are not loopback by default (DNS rebinding defence).
    // Binding a non-loopback address means remote clients are wanted, so let them in.
    let mut config = StreamableHttpServerConfig::default();
    if !local.ip().is_loopback() {
        config = config.disable_allowed_hosts();
    }
    let for_mcp = shared.clone();
    let mcp = StreamableHttpService::new(
        move || Ok(DemoServer::new(for_mcp.clone())),
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
        let required = required.clone();
        let shared = shared.clone();
        let sessions = sessions.clone();
        let authority = authority.clone();
        tokio::spawn(async move {
            let route = service_fn(move |req: Request<Incoming>| {
                let mcp = mcp.clone();
                let required = required.clone();
                let shared = shared.clone();
                let sessions = sessions.clone();
                let authority = authority.clone();
                async move {
                    if let Some(to) = moved(req.uri()) {
                        return Ok::<_, Infallible>(redirect(&to));
                    }
                    if let Some(authority) = &authority {
                        let path = req.uri().path();
                        if [MCP_PATH, SSE_PATH, MESSAGE_PATH].contains(&path) {
                            if let Some(refused) = authority.check(req.headers()) {
                                return Ok(refused.into_response(|b| Routed::Chunk(Some(b))));
                            }
                        } else {
                            return Ok(match authority.route(req).await {
                                Some(answer) => answer.into_response(|b| Routed::Chunk(Some(b))),
                                None => not_found(),
                            });
                        }
                    }
                    let path = req.uri().path();
                    if ![MCP_PATH, SSE_PATH, MESSAGE_PATH].contains(&path) {
                        return Ok(not_found());
                    }
                    if let Some((name, value)) = &*required
                        && req
                            .headers()
                            .get(name.as_str())
                            .and_then(|v| v.to_str().ok())
                            != Some(value.as_str())
                    {
                        return Ok(unauthorized());
                    }
                    match req.uri().path() {
                        SSE_PATH => Ok(event_stream(sse::open(shared, sessions))),
                        MESSAGE_PATH => Ok(sse::post(&sessions, req).await.map(Routed::Chunk)),
                        _ => Ok(mcp.call(req).await?.map(Routed::Mcp)),
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

fn unauthorized<B>() -> Response<Routed<B>> {
    let mut response = Response::new(Routed::Chunk(Some(Bytes::from_static(
        b"unauthorized: a required header is missing\n",
    ))));
    *response.status_mut() = StatusCode::UNAUTHORIZED;
    response.headers_mut().insert(
        "www-authenticate",
        http::HeaderValue::from_static("Bearer realm=\"mcpick-demo\""),
    );
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
