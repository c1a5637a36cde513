//! The stdio transport: a child process, with a filter between its stdout and rmcp.
//!
//! rmcp's own line reader drops a line above 16 MiB, and any line that is not JSON, without
//! a word, so the request it answered waits for its timeout. The filter reads the child's
//! stdout itself, one bounded line at a time (see [`super::limit`]): good lines go on to rmcp
//! through an in-memory pipe; an oversized or non-JSON reply becomes a JSON-RPC error for the
//! request it answers, so that request fails at once and says why.

use std::process::Stdio;

use process_wrap::tokio::{ChildWrapper, CommandWrap};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::io::{AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{ChildStderr, ChildStdin, ChildStdout};
use tokio::task::JoinHandle;

use super::limit::{self, Finished, Message, MessageLimit, Verdict};
use super::log::{LogSource, ServerLog};

/// Bytes buffered between the filter and rmcp.
const PIPE_BYTES: usize = 1024 * 1024;
/// How long `close` waits for the server to exit after its stdin closes.
const EXIT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// A running stdio server as an rmcp transport.
pub(crate) struct StdioTransport {
    child: Option<Box<dyn ChildWrapper>>,
    transport: AsyncRwTransport<RoleClient, DuplexStream, ChildStdin>,
    filter: JoinHandle<()>,
}

/// Spawns the server with piped stdio and starts the filter on its stdout. Returns the
/// transport and the child's stderr, for the caller to capture.
pub(crate) fn spawn(
    mut command: CommandWrap,
    limit: MessageLimit,
    log: ServerLog,
) -> std::io::Result<(StdioTransport, Option<ChildStderr>)> {
    command
        .command_mut()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command.spawn()?;
    let (Some(stdin), Some(stdout)) = (child.stdin().take(), child.stdout().take()) else {
        return Err(std::io::Error::other(
            "the server's stdin or stdout is missing",
        ));
    };
    let stderr = child.stderr().take();
    let (to_rmcp, from_filter) = tokio::io::duplex(PIPE_BYTES);
    let filter = tokio::spawn(filter(stdout, to_rmcp, limit, log));
    // The filter already refused anything above the limit; rmcp's own cap only has to let
    // the rest through.
    let transport =
        AsyncRwTransport::new(from_filter, stdin).with_max_line_length(limit.bytes() + 2);
    Ok((
        StdioTransport {
            child: Some(child),
            transport,
            filter,
        },
        stderr,
    ))
}

impl StdioTransport {
    /// The server's process id (also its process group's).
    pub(crate) fn id(&self) -> Option<u32> {
        self.child.as_ref().and_then(|c| c.id())
    }
}

impl Transport<RoleClient> for StdioTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.transport.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.transport.receive()
    }

    /// Closes the server's stdin (the stdio way to ask it to exit), waits a little, then
    /// kills it.
    async fn close(&mut self) -> Result<(), Self::Error> {
        let result = self.transport.close().await;
        if let Some(mut child) = self.child.take()
            && tokio::time::timeout(EXIT_WAIT, child.wait()).await.is_err()
        {
            let _ = Box::into_pin(child.kill()).await;
        }
        self.filter.abort();
        result
    }
}

impl Drop for StdioTransport {
    fn drop(&mut self) {
        self.filter.abort();
        // The child itself is wrapped in KillOnDrop by the caller.
    }
}

/// Copies the server's messages to rmcp, line by line, replacing each reply it cannot pass
/// on by an error for its request. Ends when either side closes.
async fn filter(
    stdout: ChildStdout,
    mut to_rmcp: impl AsyncWrite + Unpin,
    limit: MessageLimit,
    log: ServerLog,
) {
    let mut reader = BufReader::with_capacity(256 * 1024, stdout);
    let mut message = Message::new(limit);
    loop {
        let (consumed, ended) = {
            let available = match reader.fill_buf().await {
                Ok([]) | Err(_) => break,
                Ok(available) => available,
            };
            let newline = available.iter().position(|b| *b == b'\n');
            let piece = &available[..newline.unwrap_or(available.len())];
            if let Verdict::TooLarge(id) = message.push(piece) {
                log.push(
                    LogSource::Client,
                    &format!("a reply larger than {} MiB was refused", limit.mib()),
                );
                if forward(&mut to_rmcp, limit::too_large_reply(&id, limit).as_bytes())
                    .await
                    .is_err()
                {
                    break;
                }
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
        let line = match message.finish() {
            Finished::Complete(line) => line,
            Finished::Reported => continue,
            Finished::Dropped => {
                log.push(
                    LogSource::Client,
                    &format!(
                        "dropped a message larger than {} MiB that answers no request",
                        limit.mib()
                    ),
                );
                continue;
            }
        };
        if pass_line(&mut to_rmcp, &line, limit, &log).await.is_err() {
            break;
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Passes one complete line on, or the error for its request when it is not JSON.
async fn pass_line(
    to_rmcp: &mut (impl AsyncWrite + Unpin),
    line: &[u8],
    limit: MessageLimit,
    log: &ServerLog,
) -> std::io::Result<()> {
    let body = line.strip_suffix(b"\r").unwrap_or(line);
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    match limit::check_json(body) {
        Ok(()) => forward(to_rmcp, body).await,
        Err(invalid) => {
            let shown = String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned();
            log.push(
                LogSource::Client,
                &format!("invalid JSON from the server ({}): {shown}", invalid.detail),
            );
            match invalid.id {
                Some(id) => {
                    let reply = limit::invalid_json_reply(&id, &invalid.detail, limit);
                    forward(to_rmcp, reply.as_bytes()).await
                }
                None => Ok(()),
            }
        }
    }
}

async fn forward(to_rmcp: &mut (impl AsyncWrite + Unpin), line: &[u8]) -> std::io::Result<()> {
    to_rmcp.write_all(line).await?;
    to_rmcp.write_all(b"\n").await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use tokio::io::AsyncReadExt;

    /// Runs the filter over `input` (as a child's stdout would deliver it) and returns the
    /// lines rmcp would receive.
    async fn filtered(input: Vec<u8>, limit: MessageLimit) -> (Vec<String>, ServerLog) {
        let mut child = tokio::process::Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("cat");
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
        });
        let (tx, mut rx) = tokio::io::duplex(64 * 1024);
        let log = ServerLog::new(100);
        let task = tokio::spawn(filter(stdout, tx, limit, log.clone()));
        let mut out = String::new();
        rx.read_to_string(&mut out).await.unwrap();
        task.await.unwrap();
        let _ = child.wait().await;
        (out.lines().map(str::to_owned).collect(), log)
    }

    #[tokio::test]
    async fn good_lines_pass_unchanged_and_blank_lines_vanish() {
        let input =
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\n  \n{\"a\":[1,2]}\n".to_vec();
        let (lines, _) = filtered(input, MessageLimit::from_mib(1)).await;
        assert_eq!(
            lines,
            [
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
                "{\"a\":[1,2]}"
            ]
        );
    }

    #[tokio::test]
    async fn an_oversized_reply_becomes_an_error_for_its_request() {
        let limit = MessageLimit::from_mib(1);
        let mut input = br#"{"jsonrpc":"2.0","id":4,"result":{"text":""#.to_vec();
        input.extend(vec![b'x'; 3 * limit.bytes()]);
        input.extend(b"\"}}\n{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n");
        let (lines, log) = filtered(input, limit).await;
        assert_eq!(lines.len(), 2, "{lines:?}");
        let error: Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(error["id"], 4);
        assert_eq!(error["error"]["message"], "reply larger than 1 MiB");
        assert!(
            lines[1].contains("\"id\":5"),
            "the next reply still arrives"
        );
        assert!(log.tail(LogSource::Client, 5)[0].contains("larger than 1 MiB"));
    }

    #[tokio::test]
    async fn a_reply_that_is_not_json_becomes_an_error_and_garbage_is_logged() {
        let input =
            b"this is not json {{{\n{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"n\":Infinity}}\n"
                .to_vec();
        let (lines, log) = filtered(input, MessageLimit::from_mib(1)).await;
        assert_eq!(lines.len(), 1, "{lines:?}");
        let error: Value = serde_json::from_str(&lines[0]).unwrap();
        assert_eq!(error["id"], 8);
        let message = error["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("invalid JSON from the server"),
            "{message}"
        );
        let logged = log.tail(LogSource::Client, 5).join("\n");
        assert!(logged.contains("this is not json"), "{logged}");
    }
}
