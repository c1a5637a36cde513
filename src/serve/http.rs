//! `serve --http ADDR`: Streamable HTTP at `http://ADDR/mcp`, rmcp's tower service behind
//! hyper 1. Loopback by default, with `Host` and `Origin` checked against DNS rebinding (a web
//! page must not reach a local server through a name it controls); a non-loopback address
//! needs a bearer token that every request carries.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use hyper::body::{Body, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper::service::{Service, service_fn};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use tokio::net::TcpListener;

use super::Diag;
use super::engine::Engine;
use super::handler::{Presentation, ServeHandler};

/// The only path answered.
pub const MCP_PATH: &str = "/mcp";

/// Serves until the process ends. `token`: the bearer token every request must carry.
pub async fn serve(
    engine: Arc<Engine>,
    presentation: Arc<Presentation>,
    addr: SocketAddr,
    token: Option<String>,
    diag: Arc<Diag>,
) -> anyhow::Result<()> {
    let listener = TcpListener::bind(addr).await?;
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
    let mcp = StreamableHttpService::new(
        move || Ok(ServeHandler::new(engine.clone(), presentation.clone())),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let mcp = TowerToHyperService::new(mcp);
    let token = Arc::new(token.map(|t| format!("Bearer {t}")));
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let mcp = mcp.clone();
        let token = token.clone();
        tokio::spawn(async move {
            let route = service_fn(move |req: Request<Incoming>| {
                let mcp = mcp.clone();
                let token = token.clone();
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
                    let delete = req.method() == http::Method::DELETE;
                    let mut response = mcp.call(req).await?;
                    // rmcp answers a session's DELETE 202 Accepted; the session is already
                    // closed, which is 204 No Content.
                    if delete && response.status() == StatusCode::ACCEPTED {
                        *response.status_mut() = StatusCode::NO_CONTENT;
                    }
                    Ok(response.map(Routed::Mcp))
                }
            });
            let _ = http1::Builder::new()
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
    let mut response = Response::new(Routed::Plain(Some(Bytes::from_static(text.as_bytes()))));
    *response.status_mut() = status;
    response
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
    #[test]
    fn token_comparison() {
        assert!(super::same(b"Bearer abc", b"Bearer abc"));
        assert!(!super::same(b"Bearer abd", b"Bearer abc"));
        assert!(!super::same(b"Bearer ab", b"Bearer abc"));
    }
}
