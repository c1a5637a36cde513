//! Streamable HTTP transport for the demo server: rmcp's tower service behind hyper 1,
//! mounted at `/mcp` (anything else is 404).

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
use tokio::net::TcpListener;

use super::server::{DemoServer, Shared};

/// The only path the server answers on.
pub(crate) const MCP_PATH: &str = "/mcp";

/// Binds `addr` and serves until Ctrl-C. Prints `listening on http://ADDR/mcp` to stdout once bound.
pub(crate) async fn serve(
    shared: Arc<Shared>,
    addr: SocketAddr,
    required: Option<(String, String)>,
) -> anyhow::Result<()> {
    let listener = TcpListener::bind(addr).await?;
    let local = listener.local_addr()?;
    {
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "listening on http://{local}{MCP_PATH}")?;
        stdout.flush()?;
    }
    tokio::select! {
        result = serve_on(shared, listener, required) => result,
        _ = tokio::signal::ctrl_c() => Ok(()),
    }
}

/// Serves MCP on an already bound listener, forever. With `required`, requests without that
/// exact header are refused with 401 (to test that clients send configured headers).
pub(crate) async fn serve_on(
    shared: Arc<Shared>,
    listener: TcpListener,
    required: Option<(String, String)>,
) -> anyhow::Result<()> {
    let required = Arc::new(required);
    let local = listener.local_addr()?;
    // rmcp refuses Host headers that are not loopback by default (DNS rebinding defence).
    // Binding a non-loopback address means remote clients are wanted, so let them in.
    let mut config = StreamableHttpServerConfig::default();
    if !local.ip().is_loopback() {
        config = config.disable_allowed_hosts();
    }
    let mcp = StreamableHttpService::new(
        move || Ok(DemoServer::new(shared.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mcp = TowerToHyperService::new(mcp);

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
        tokio::spawn(async move {
            let route = service_fn(move |req: Request<Incoming>| {
                let mcp = mcp.clone();
                let required = required.clone();
                async move {
                    if req.uri().path() != MCP_PATH {
                        return Ok::<_, Infallible>(not_found());
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
                    let response = mcp.call(req).await?;
                    Ok(response.map(Routed::Mcp))
                }
            });
            // A client hanging up mid-stream is routine; nothing to report.
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), route)
                .await;
        });
    }
}

fn not_found<B>() -> Response<Routed<B>> {
    let mut response = Response::new(Routed::NotFound(Some(Bytes::from_static(
        b"not found: the MCP endpoint is /mcp\n",
    ))));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

fn unauthorized<B>() -> Response<Routed<B>> {
    let mut response = Response::new(Routed::NotFound(Some(Bytes::from_static(
        b"unauthorized: a required header is missing\n",
    ))));
    *response.status_mut() = StatusCode::UNAUTHORIZED;
    response.headers_mut().insert(
        "www-authenticate",
        http::HeaderValue::from_static("Bearer realm=\"mcpick-demo\""),
    );
    response
}

/// Response body: rmcp's, or a one-chunk 404.
enum Routed<B> {
    Mcp(B),
    NotFound(Option<Bytes>),
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
            Routed::NotFound(chunk) => Poll::Ready(chunk.take().map(|c| Ok(Frame::data(c)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match self {
            Routed::Mcp(body) => body.is_end_stream(),
            Routed::NotFound(chunk) => chunk.is_none(),
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Routed::Mcp(body) => body.size_hint(),
            Routed::NotFound(chunk) => {
                SizeHint::with_exact(chunk.as_ref().map_or(0, |c| c.len() as u64))
            }
        }
    }
}
