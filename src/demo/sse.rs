//! The legacy HTTP+SSE transport (protocol 2024-11-05) for the demo server, next to its
//! Streamable HTTP one, so clients' SSE support can be tested against a server whose
//! answers are known: `GET /sse` opens a session's event stream (first event: `endpoint`,
//! naming `/message?session=ID`), `POST /message?session=ID` delivers one client message.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
};

use crate::sync::Locked;
use bytes::Bytes;
use hyper::{
    Request, Response, StatusCode,
    body::{Body, Incoming},
};
use rmcp::{
    ServerHandler, ServiceExt,
    service::{RoleServer, RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
};
use tokio::sync::mpsc;

/// Where the event stream opens.
pub const SSE_PATH: &str = "/sse";
/// Where clients post messages.
pub const MESSAGE_PATH: &str = "/message";
/// Largest message body accepted from a client.
const MAX_POST_BYTES: usize = 4 * 1024 * 1024;

/// Open sessions: where each session's posted messages go.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    next: AtomicU64,
    inboxes: Mutex<HashMap<String, mpsc::Sender<RxJsonRpcMessage<RoleServer>>>>,
}

impl Sessions {
    fn inbox(&self, id: &str) -> Option<mpsc::Sender<RxJsonRpcMessage<RoleServer>>> {
        let map = self.inboxes.locked();
        map.get(id).cloned()
    }
}

/// `GET /sse`: starts a session served by `server` and returns the receiving end of its
/// event stream.
pub(crate) fn open<H: ServerHandler>(server: H, sessions: Arc<Sessions>) -> mpsc::Receiver<Bytes> {
    let id = sessions.next.fetch_add(1, Ordering::SeqCst).to_string();
    let (inbox_tx, inbox) = mpsc::channel(64);
    let (events, stream) = mpsc::channel(16);
    let endpoint = format!("event: endpoint\ndata: {MESSAGE_PATH}?session={id}\n\n");
    let _ = events.try_send(Bytes::from(endpoint));
    sessions.inboxes.locked().insert(id.clone(), inbox_tx);
    tokio::spawn(async move {
        let transport = Channels { inbox, events };
        if let Ok(running) = server.serve(transport).await {
            let _ = running.waiting().await;
        }
        let mut map = sessions.inboxes.locked();
        map.remove(&id);
    });
    stream
}

/// `POST /message?session=ID`: hands one message to its session; 202 when taken.
pub(crate) async fn post(sessions: &Sessions, req: Request<Incoming>) -> Response<Option<Bytes>> {
    let session = req
        .uri()
        .query()
        .and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("session=")))
        .map(str::to_owned);
    let Some(inbox) = session.as_deref().and_then(|s| sessions.inbox(s)) else {
        return plain(StatusCode::NOT_FOUND, "no such session\n");
    };
    let Some(body) = read_body(req.into_body()).await else {
        return plain(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body unreadable or too large\n",
        );
    };
    let Ok(message) = serde_json::from_slice(&body) else {
        return plain(StatusCode::BAD_REQUEST, "not a JSON-RPC message\n");
    };
    if inbox.send(message).await.is_err() {
        return plain(StatusCode::GONE, "the session ended\n");
    }
    plain(StatusCode::ACCEPTED, "")
}

/// A request's whole body; `None` when it cannot be read or is over 4 MiB.
pub async fn read_body(mut body: Incoming) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(frame) =
        std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)).await
    {
        if let Ok(data) = frame.ok()?.into_data() {
            out.extend_from_slice(&data);
            if out.len() > MAX_POST_BYTES {
                return None;
            }
        }
    }
    Some(out)
}

fn plain(status: StatusCode, text: &'static str) -> Response<Option<Bytes>> {
    let mut response =
        Response::new((!text.is_empty()).then(|| Bytes::from_static(text.as_bytes())));
    *response.status_mut() = status;
    response
}

/// rmcp's server side of one session: messages in from POSTs, out as `message` events.
struct Channels {
    inbox: mpsc::Receiver<RxJsonRpcMessage<RoleServer>>,
    events: mpsc::Sender<Bytes>,
}

impl Transport<RoleServer> for Channels {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let events = self.events.clone();
        async move {
            let json = serde_json::to_string(&item)?;
            let event = format!("event: message\ndata: {json}\n\n");
            events
                .send(Bytes::from(event))
                .await
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleServer>>> + Send {
        self.inbox.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.inbox.close();
        Ok(())
    }
}
