//! `mcpick wrap-serve`: what a wrapped entry runs. It starts the original server (its
//! command, arguments, env and cwd as the host entry had them: those reach the upstream only)
//! and stands between it and the host as a JSON-RPC line proxy over stdio: every message
//! passes both ways as it came, but for the resources the set leaves out ([`filter`]).
//!
//! The upstream leads its own process group, registered like every server mcpick starts, so
//! it dies with the proxy however the proxy ends. When the host closes stdin the upstream's
//! stdin is closed and its last replies still reach the host; when the upstream ends, the
//! proxy ends, and the host sees its server end.

pub mod filter;

use std::path::Path;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::commands::Exit;
use crate::config::Places;
use crate::config::Scope;
use crate::context::SetFile;
use crate::hosts::Host;
use crate::mcp::TransportSpec;
use crate::mcp::limit::{self, Finished, Message, MessageLimit, Verdict};
use filter::{Expose, Filter, FromHost, FromUpstream};

/// How long the upstream may take to exit after its stdin closed.
const EXIT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// How often the set file is looked at again (a changed set decides from then on).
const SET_POLL: std::time::Duration = std::time::Duration::from_millis(500);

/// Lines queued for the host's stdout.
const QUEUE: usize = 256;

/// Runs the proxy for entry `name`, whose original is in the record at `record`.
pub async fn run(record: &Path, name: &str, set: &Path, expose: Expose) -> Exit {
    match proxy(record, name, set, expose).await {
        Ok(exit) => exit,
        Err(message) => {
            crate::commands::report(&format!("wrap `{name}`: {message}"));
            Exit::ServerFailed
        }
    }
}

async fn proxy(
    record_path: &Path,
    name: &str,
    set_path: &Path,
    expose: Expose,
) -> Result<Exit, String> {
    let text = std::fs::read_to_string(record_path)
        .map_err(|e| format!("cannot read the record {}: {e}", record_path.display()))?;
    let record: crate::hosts::wrap::Record = serde_json::from_str(&text)
        .map_err(|e| format!("{} is not a wrap record: {e}", record_path.display()))?;
    let wrapped = record.entries.get(name).ok_or_else(|| {
        format!(
            "{} has no entry `{name}` (run `mcpick wrap HOST {name}` again)",
            record_path.display()
        )
    })?;
    let host = Host::ALL
        .into_iter()
        .find(|h| h.name() == wrapped.host)
        .ok_or_else(|| format!("unknown host `{}` in the record", wrapped.host))?;
    let places = Places::system();
    let host_file = host_file_of(record_path);
    let definition = crate::config::host_entry(
        &places,
        host,
        &host_file,
        Scope::Project,
        name,
        &wrapped.original,
    )
    .ok_or_else(|| "the original entry is not a server mcpick can start".to_string())?;
    let spec = definition.spec?;
    let TransportSpec::Stdio {
        command,
        args,
        env,
        cwd,
    } = &spec.transport
    else {
        return Err("only a stdio server can be wrapped for now".into());
    };
    let (mut set_file, set) = SetFile::open(set_path);
    let set = set.map_err(|e| e.to_string())?;

    let mut upstream = tokio::process::Command::new(command);
    upstream
        .args(args)
        .envs(env)
        .stderr(std::process::Stdio::inherit());
    if let Some(cwd) = cwd {
        if !cwd.is_dir() {
            return Err(format!(
                "the server's cwd {} is not a folder",
                cwd.display()
            ));
        }
        upstream.current_dir(cwd);
    }
    let (mut child, _group) = crate::mcp::group::spawn_child(upstream)
        .await
        .map_err(|e| format!("cannot start `{}`: {e}", spec.transport.target()))?;
    let (Some(to_upstream), Some(from_upstream)) = (child.stdin().take(), child.stdout().take())
    else {
        return Err("the server's stdin or stdout is missing".into());
    };

    let filter = std::sync::Arc::new(std::sync::Mutex::new(Filter::new(name, set, expose)));
    let (out_tx, mut out_rx) = mpsc::channel::<Vec<u8>>(QUEUE);
    let limit = MessageLimit::default();

    // The host's stdout: one writer for the upstream's lines and the proxy's own answers.
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = out_rx.recv().await {
            if write_line(&mut stdout, &line).await.is_err() {
                break;
            }
        }
    });

    // Host → upstream.
    let host_filter = filter.clone();
    let answers = out_tx.clone();
    let from_host = tokio::spawn(async move {
        let mut stdin = BufReader::with_capacity(256 * 1024, tokio::io::stdin());
        let mut upstream = to_upstream;
        let mut message = Message::new(limit);
        loop {
            let line = match next_line(&mut stdin, &mut message).await {
                Line::End => break,
                Line::TooLarge(id) => {
                    let reply = limit::request_too_large_reply(&id, limit);
                    if answers.send(reply.into_bytes()).await.is_err() {
                        break;
                    }
                    continue;
                }
                Line::Skip => continue,
                Line::Whole(line) => line,
            };
            let decision = host_filter
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .from_host(&line);
            match decision {
                FromHost::Forward => {
                    if write_line(&mut upstream, &line).await.is_err() {
                        break;
                    }
                }
                FromHost::Answer(reply) => {
                    if answers.send(reply).await.is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping the pipe closes the upstream's stdin: the stdio way to ask it to exit.
        drop(upstream);
    });

    // The set file, looked at again every SET_POLL: a change decides from then on, and the
    // host is told when it shows or hides a listed resource.
    let set_filter = filter.clone();
    let notices = out_tx.clone();
    let watcher = tokio::spawn(async move {
        loop {
            tokio::time::sleep(SET_POLL).await;
            let Ok(Some(set)) = set_file.poll() else {
                continue;
            };
            let lines = set_filter
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .set_changed(set);
            for line in lines {
                if notices.send(line).await.is_err() {
                    return;
                }
            }
        }
    });

    // Upstream → host, until the upstream closes its stdout.
    let relay = out_tx;
    let mut reader = BufReader::with_capacity(256 * 1024, from_upstream);
    let mut message = Message::new(limit);
    loop {
        let line = match next_line(&mut reader, &mut message).await {
            Line::End => break,
            Line::TooLarge(id) => {
                let reply = limit::too_large_reply(&id, limit);
                if relay.send(reply.into_bytes()).await.is_err() {
                    break;
                }
                continue;
            }
            Line::Skip => continue,
            Line::Whole(line) => line,
        };
        let (decision, notices) = {
            let mut filter = filter.lock().unwrap_or_else(|e| e.into_inner());
            (filter.from_upstream(&line), filter.take_notices())
        };
        let out = match decision {
            FromUpstream::Forward => Some(line),
            FromUpstream::Replace(line) => Some(line),
            FromUpstream::Drop => None,
        };
        let mut closed = false;
        for line in out.into_iter().chain(notices) {
            if relay.send(line).await.is_err() {
                closed = true;
                break;
            }
        }
        if closed {
            break;
        }
    }
    from_host.abort();
    watcher.abort();
    drop(relay);
    let _ = writer.await;
    let status = tokio::time::timeout(EXIT_WAIT, child.wait()).await;
    Ok(match status {
        Ok(Ok(status)) if status.success() => Exit::Ok,
        _ => Exit::ServerFailed,
    })
}

/// The host file a record sits next to (`FILE.mcpick-wrap.json` → `FILE`).
fn host_file_of(record: &Path) -> std::path::PathBuf {
    let name = record.file_name().unwrap_or_default().to_string_lossy();
    let host = name
        .strip_suffix(crate::hosts::wrap::RECORD_SUFFIX)
        .unwrap_or(&name)
        .to_string();
    record.with_file_name(host)
}

enum Line {
    Whole(Vec<u8>),
    /// Above the limit, answering or asking request `id`.
    TooLarge(serde_json::Value),
    /// Blank, or above the limit with no id.
    Skip,
    End,
}

/// The next line, holding at most the limit (see [`crate::mcp::limit`]).
async fn next_line(reader: &mut (impl AsyncBufRead + Unpin), message: &mut Message) -> Line {
    loop {
        let (consumed, ended, verdict) = {
            let available = match reader.fill_buf().await {
                Ok([]) | Err(_) => return Line::End,
                Ok(available) => available,
            };
            let newline = available.iter().position(|b| *b == b'\n');
            let piece = &available[..newline.unwrap_or(available.len())];
            let verdict = message.push(piece);
            (
                newline.map_or(available.len(), |at| at + 1),
                newline.is_some(),
                verdict,
            )
        };
        reader.consume(consumed);
        if let Verdict::TooLarge(id) = verdict {
            if ended {
                message.finish();
            }
            return Line::TooLarge(id);
        }
        if !ended {
            continue;
        }
        return match message.finish() {
            Finished::Complete(mut line) => {
                if line.last() == Some(&b'\r') {
                    line.pop();
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    Line::Skip
                } else {
                    Line::Whole(line)
                }
            }
            Finished::Reported | Finished::Dropped => Line::Skip,
        };
    }
}

async fn write_line(out: &mut (impl AsyncWrite + Unpin), line: &[u8]) -> std::io::Result<()> {
    out.write_all(line).await?;
    out.write_all(b"\n").await?;
    out.flush().await
}
