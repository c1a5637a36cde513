//! `serve` over stdio, with the request-size limit HTTP has.
//!
//! rmcp's own line reader drops a line above its cap without a word, so a client that sent
//! one waits forever. Here stdin is read one bounded line at a time ([`Message`], as the
//! client side reads a server's stdout): a line within [`REQUEST_LIMIT`] goes on to rmcp
//! through an in-memory pipe; a longer one is not kept, and its request is answered at once
//! with an error naming the limit (id `null` when the id cannot be found in it). Those
//! answers and rmcp's share stdout, so one writer ([`outbound`]) puts them out a whole line
//! at a time.

use rmcp::RoleServer;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::io::{DuplexStream, duplex};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::Diag;
use crate::mcp::limit::{self, Finished, Message, MessageLimit, Verdict};
use std::sync::Arc;

/// The largest request `serve` reads, on stdio and (as rmcp's body limit) on HTTP.
pub const REQUEST_LIMIT: MessageLimit = MessageLimit::from_mib(4);

/// Bytes buffered between rmcp and the pipes on either side.
const PIPE_BYTES: usize = 1024 * 1024;

/// The transport rmcp serves on, and the task that writes stdout: await it after the
/// service ends so that its last answers reach the client.
pub struct Stdio {
    pub transport: AsyncRwTransport<RoleServer, DuplexStream, DuplexStream>,
    pub flushed: JoinHandle<()>,
}

/// Serves on this process's stdin and stdout.
pub fn stdio(limit: MessageLimit, diag: Arc<Diag>) -> Stdio {
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    over(stdin, stdout, limit, diag)
}

/// Serves on `input` and `output` (stdin and stdout, or pipes in tests).
pub fn over(
    input: impl AsyncRead + Unpin + Send + 'static,
    output: impl AsyncWrite + Unpin + Send + 'static,
    limit: MessageLimit,
    diag: Arc<Diag>,
) -> Stdio {
    let (to_rmcp, rmcp_in) = duplex(PIPE_BYTES);
    let (rmcp_out, from_rmcp) = duplex(PIPE_BYTES);
    let (faults, faults_rx) = mpsc::unbounded_channel();
    tokio::spawn(inbound(input, to_rmcp, faults, limit, diag));
    let flushed = tokio::spawn(outbound(from_rmcp, output, faults_rx));
    // Everything above the limit was answered here; rmcp's own cap only has to let the
    // rest through.
    let transport =
        AsyncRwTransport::new(rmcp_in, rmcp_out).with_max_line_length(limit.bytes() + 2);
    Stdio { transport, flushed }
}

/// Copies requests to rmcp line by line; a line above `limit` becomes an answer on
/// `faults` instead. Ends (closing rmcp's input) when the client closes stdin.
async fn inbound(
    input: impl AsyncRead + Unpin,
    mut to_rmcp: DuplexStream,
    faults: mpsc::UnboundedSender<String>,
    limit: MessageLimit,
    diag: Arc<Diag>,
) {
    let mut reader = BufReader::with_capacity(256 * 1024, input);
    let mut message = Message::new(limit);
    let refuse = |id: &Value| {
        diag.line(&format!(
            "refused a request larger than {} MiB (id {id})",
            limit.mib()
        ));
        let _ = faults.send(limit::request_too_large_reply(id, limit));
    };
    loop {
        let (consumed, ended) = {
            let available = match reader.fill_buf().await {
                Ok([]) | Err(_) => break,
                Ok(available) => available,
            };
            let newline = available.iter().position(|b| *b == b'\n');
            let piece = &available[..newline.unwrap_or(available.len())];
            if let Verdict::TooLarge(id) = message.push(piece) {
                refuse(&id);
            }
            (
                newline.map_or(available.len(), |at| at + 1),
                newline.is_some(),
            )
        };
        reader.consume(consumed);
        if !ended {
            continue;
        }
        match message.finish() {
            Finished::Complete(mut line) => {
                line.push(b'\n');
                if to_rmcp.write_all(&line).await.is_err() {
                    break;
                }
            }
            Finished::Reported => {}
            Finished::Dropped => refuse(&Value::Null),
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Writes rmcp's output to `output` as it comes, and each fault answer between two of
/// rmcp's lines, never inside one. Ends when rmcp closes its side.
async fn outbound(
    mut from_rmcp: DuplexStream,
    mut output: impl AsyncWrite + Unpin,
    mut faults: mpsc::UnboundedReceiver<String>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    // True between two of rmcp's lines, where a fault answer may go.
    let mut at_line_start = true;
    let mut faults_open = true;
    loop {
        tokio::select! {
            read = from_rmcp.read(&mut buf) => {
                let n = match read {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                if output.write_all(&buf[..n]).await.is_err() {
                    return;
                }
                at_line_start = buf[n - 1] == b'\n';
            }
            fault = faults.recv(), if at_line_start && faults_open => match fault {
                Some(mut line) => {
                    line.push('\n');
                    if output.write_all(line.as_bytes()).await.is_err() {
                        return;
                    }
                }
                None => faults_open = false,
            },
        }
        if output.flush().await.is_err() {
            return;
        }
    }
    // rmcp is done; answers still owed go out before the process ends.
    while let Ok(mut line) = faults.try_recv() {
        line.push('\n');
        let _ = output.write_all(line.as_bytes()).await;
    }
    let _ = output.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::ServiceExt;
    use tokio::io::AsyncBufReadExt;

    /// A server with no handler logic: enough to answer `ping` and refuse the rest.
    #[derive(Clone)]
    struct Pinged;
    impl rmcp::ServerHandler for Pinged {}

    fn request(id: u64, filler: usize) -> Vec<u8> {
        let mut line =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{{"_meta":{{"pad":""#)
                .into_bytes();
        line.extend(std::iter::repeat_n(b'x', filler));
        line.extend(b"\"}}}\n");
        line
    }

    #[tokio::test]
    async fn an_oversized_request_is_answered_with_the_limit_and_serving_goes_on() {
        let limit = MessageLimit::from_mib(1);
        let (client, server_in) = duplex(4 * 1024 * 1024);
        let (server_out, from_server) = duplex(64 * 1024);
        let stdio = over(server_in, server_out, limit, Arc::new(Diag::default()));
        let service = tokio::spawn(async move {
            let running = Pinged.serve(stdio.transport).await.unwrap();
            let _ = running.waiting().await;
            let _ = stdio.flushed.await;
        });
        let (_, mut to_server) = tokio::io::split(client);
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
        let mut input =
            format!("{init}\n{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}}\n")
                .into_bytes();
        input.extend(request(1, 3 * limit.bytes()));
        // No id to be found: a bare string far over the limit.
        input.push(b'"');
        input.extend(std::iter::repeat_n(b'y', 2 * limit.bytes()));
        input.extend(b"\"\n");
        input.extend(request(2, 10));
        to_server.write_all(&input).await.unwrap();
        to_server.shutdown().await.unwrap();
        let mut lines = BufReader::new(from_server).lines();
        let mut answers = Vec::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            answers.push(serde_json::from_str::<Value>(&line).unwrap());
        }
        service.await.unwrap();
        let by_id = |id: Value| {
            answers
                .iter()
                .find(|a| a["id"] == id)
                .unwrap_or_else(|| panic!("no answer for {id}: {answers:?}"))
        };
        let big = by_id(1.into());
        assert_eq!(big["error"]["code"], -32600, "{big}");
        assert!(
            big["error"]["message"]
                .as_str()
                .unwrap()
                .contains("larger than 1 MiB"),
            "{big}"
        );
        assert_eq!(big["error"]["data"]["limitMib"], 1);
        assert_eq!(by_id(Value::Null)["error"]["data"]["limitMib"], 1);
        assert!(by_id(2.into())["result"].is_object(), "served afterwards");
    }
}
