//! The upstream a wrapped entry stands in front of, as the proxy sees it: a source of lines
//! (its messages to the host) and a sink of lines (the host's messages to it), whatever
//! carries them. A stdio upstream is a child process ([`Stdio`]); an HTTP one is a session
//! of POSTs and event streams ([`super::http`]). The proxy's loop ([`super::proxy`]) filters
//! and tracks lines the same way for both.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::{Line, next_line, write_line};
use crate::mcp::limit::Message;
use crate::mcp::log::{LogSource, ServerLog};

/// How long the upstream may take to exit after its stdin closed.
const EXIT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How long the rest of an ended upstream's stderr is waited for.
const STDERR_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// The upstream's stderr lines kept for the reason it ended, and how many are quoted.
const STDERR_KEPT: usize = 20;
const STDERR_QUOTED: usize = 5;

/// The longest stderr line kept (the rest of it still reaches the host).
const STDERR_LINE: usize = 4096;

/// How the upstream ended.
pub struct Ended {
    /// Why, for the host and mcpick's stderr (not yet scrubbed of the definition's secrets).
    pub reason: String,
    /// It ended as asked (the host left first and it went cleanly).
    pub clean: bool,
}

/// The upstream's messages to the host.
pub enum Source {
    Stdio(StdioSource),
    Http(super::http::Source),
}

impl Source {
    /// The next line, holding at most the message limit; [`Line::End`] once the upstream
    /// has ended (or failed).
    pub async fn next(&mut self, message: &mut Message) -> Line {
        match self {
            Source::Stdio(s) => next_line(&mut s.reader, message).await,
            Source::Http(s) => s.next().await,
        }
    }

    /// After [`Line::End`]: how the upstream ended.
    pub async fn ended(self, name: &str) -> Ended {
        match self {
            Source::Stdio(s) => s.ended(name).await,
            Source::Http(s) => s.ended(name),
        }
    }
}

/// The host's messages to the upstream.
pub enum Sink {
    /// `None` once the upstream stopped reading.
    Stdio(Option<tokio::process::ChildStdin>),
    Http(super::http::Sink),
    Sse(super::sse::Sink),
}

impl Sink {
    /// Sends one line. An upstream that cannot take it has ended or is ending: what it was
    /// sent is answered with why once its end is known ([`super::inflight`]).
    pub async fn send(&mut self, line: &[u8]) {
        match self {
            Sink::Stdio(pipe) => {
                if let Some(to) = pipe.as_mut()
                    && write_line(to, line).await.is_err()
                {
                    *pipe = None;
                }
            }
            Sink::Http(s) => s.send(line).await,
            Sink::Sse(s) => s.send(line).await,
        }
    }

    /// The host is gone: ask the upstream to end (close its stdin; end the HTTP session once
    /// the replies under way have come).
    pub async fn close(self) {
        match self {
            // Dropping the pipe closes the upstream's stdin: the stdio way to ask it to exit.
            Sink::Stdio(pipe) => drop(pipe),
            Sink::Http(s) => s.close().await,
            Sink::Sse(s) => s.close(),
        }
    }
}

/// Set once the host closed its side (stdin), shared by the loop and the host's reader.
#[derive(Clone, Default)]
pub struct HostLeft(Arc<AtomicBool>);

impl HostLeft {
    pub fn set(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn get(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// A stdio upstream's side the proxy reads: its stdout, and what tells how it ended.
pub struct StdioSource {
    reader: BufReader<tokio::process::ChildStdout>,
    child: Box<dyn process_wrap::tokio::ChildWrapper>,
    stderr_copy: tokio::task::JoinHandle<()>,
    log: ServerLog,
    _group: Option<crate::mcp::group::ProcessGroup>,
}

/// Starts the stdio upstream: the original's command, arguments, env and cwd, in its own
/// process group (it dies with the proxy however the proxy ends), its stderr copied to the
/// proxy's (the host logs it as the server's).
pub async fn start_stdio(transport: &crate::mcp::TransportSpec) -> Result<(Source, Sink), String> {
    let crate::mcp::TransportSpec::Stdio {
        command,
        args,
        env,
        cwd,
    } = transport
    else {
        return Err("not a stdio server".into());
    };
    let mut upstream = tokio::process::Command::new(command);
    upstream
        .args(args)
        .envs(env)
        .stderr(std::process::Stdio::piped());
    if let Some(cwd) = cwd {
        if !cwd.is_dir() {
            return Err(format!(
                "the server's cwd {} is not a folder",
                cwd.display()
            ));
        }
        upstream.current_dir(cwd);
    }
    let (mut child, group) = crate::mcp::group::spawn_child(upstream)
        .await
        .map_err(|e| format!("cannot start `{}`: {e}", transport.target()))?;
    let (Some(to_upstream), Some(from_upstream), Some(stderr)) = (
        child.stdin().take(),
        child.stdout().take(),
        child.stderr().take(),
    ) else {
        return Err("the server's stdin, stdout or stderr is missing".into());
    };
    let log = ServerLog::new(STDERR_KEPT);
    let stderr_copy = tokio::spawn(copy_stderr(stderr, log.clone()));
    Ok((
        Source::Stdio(StdioSource {
            reader: BufReader::with_capacity(256 * 1024, from_upstream),
            child,
            stderr_copy,
            log,
            _group: group,
        }),
        Sink::Stdio(Some(to_upstream)),
    ))
}

impl StdioSource {
    /// Its output ended: it exited, or is about to.
    async fn ended(mut self, name: &str) -> Ended {
        let status = tokio::time::timeout(EXIT_WAIT, self.child.wait()).await;
        let _ = tokio::time::timeout(STDERR_WAIT, self.stderr_copy).await;
        let ended = match &status {
            Ok(Ok(status)) => status.to_string(),
            Ok(Err(e)) => format!("its status is unknown: {e}"),
            Err(_) => "it closed its output without exiting".into(),
        };
        Ended {
            reason: with_stderr_tail(format!("the server `{name}` ended ({ended})"), &self.log),
            clean: matches!(&status, Ok(Ok(status)) if status.success()),
        }
    }
}

/// Copies the upstream's stderr to the proxy's (the host logs it as the server's), keeping
/// its last lines in `log` for the reason it ended.
async fn copy_stderr(stderr: tokio::process::ChildStderr, log: ServerLog) {
    let mut reader = BufReader::new(stderr);
    let mut out = tokio::io::stderr();
    let mut line = Vec::new();
    loop {
        let consumed = {
            let available = match reader.fill_buf().await {
                Ok([]) | Err(_) => break,
                Ok(available) => available,
            };
            let _ = out.write_all(available).await;
            for piece in available.split_inclusive(|b| *b == b'\n') {
                let room = STDERR_LINE.saturating_sub(line.len());
                line.extend_from_slice(&piece[..piece.len().min(room)]);
                if piece.ends_with(b"\n") {
                    log.push(LogSource::Stderr, &String::from_utf8_lossy(&line));
                    line.clear();
                }
            }
            available.len()
        };
        reader.consume(consumed);
        let _ = out.flush().await;
    }
    if !line.is_empty() {
        log.push(LogSource::Stderr, &String::from_utf8_lossy(&line));
    }
}

/// `reason`, with the last lines of the upstream's stderr (usually where the why is).
fn with_stderr_tail(reason: String, log: &ServerLog) -> String {
    let tail = log.tail(LogSource::Stderr, STDERR_QUOTED);
    if tail.is_empty() {
        reason
    } else {
        format!(
            "{reason}\n  server stderr (last lines):\n    {}",
            tail.join("\n    ")
        )
    }
}
