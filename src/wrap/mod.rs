//! `mcpick wrap-serve`: what a wrapped entry runs. It reaches the original server as the
//! host entry defined it (a stdio command with its arguments, env and cwd; or a Streamable
//! HTTP URL with its headers: those reach the upstream only) and stands between it and the
//! host as a JSON-RPC line proxy over stdio: every message passes both ways as it came, but
//! for the resources the set leaves out ([`filter`]).
//!
//! The upstream is a source and a sink of lines ([`upstream`]): a child process in its own
//! registered process group (it dies with the proxy however the proxy ends), or an HTTP
//! session ([`http`]). When the host closes stdin the upstream is asked to end (its stdin
//! closed; the HTTP session DELETEd) and its last replies still reach the host. When the
//! upstream ends or fails while the host is still there, the host is told as the server
//! failing, never left waiting ([`inflight`]): every request it has not answered, and every
//! request after, gets a JSON-RPC error naming why (a process's exit status and the last
//! lines of its stderr, which still reach the host's log as they come; an HTTP server's
//! refusal or absence), and the proxy ends when the host closes stdin.

pub mod filter;
pub(crate) mod http;
pub mod inflight;
pub(crate) mod sse;
pub(crate) mod upstream;

use crate::sync::Locked;
use std::path::Path;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use crate::config::Places;
use crate::config::Scope;
use crate::context::SetFile;
use crate::hosts::Host;
use crate::mcp::TransportSpec;
use crate::mcp::limit::{self, Finished, Message, MessageLimit, Verdict};
use crate::say::Exit;
use filter::{Expose, Filter, FromHost, FromUpstream};
use inflight::{InFlight, Pass};
use upstream::HostLeft;

/// How often the set file is looked at again (a changed set decides from then on).
const SET_POLL: std::time::Duration = std::time::Duration::from_millis(500);

/// Lines queued for the host's stdout.
const QUEUE: usize = 256;

/// Runs the proxy for entry `name`, whose original is in the record at `record`.
pub async fn run(record: &Path, name: &str, set: &Path, expose: Expose) -> Exit {
    match proxy(record, name, set, expose).await {
        Ok(exit) => exit,
        Err(message) => {
            crate::say::report(&format!("wrap `{name}`: {message}"));
            Exit::ServerFailed
        }
    }
}

/// A wrapped entry's original, as its record keeps it: the server to start, and the project
/// whose approval it needs (`None` when the host file is the user's own, outside any project).
pub struct Original {
    /// The server to start, or why its definition cannot be used (an unset variable).
    pub spec: Result<crate::mcp::ServerSpec, String>,
    /// The definition as written in the record (placeholders kept), for messages.
    pub shown: TransportSpec,
    pub project: Option<std::path::PathBuf>,
    /// What an approval of it is kept under: the original exactly as the record holds it
    /// (placeholders unexpanded, literal values whole), so a change of the record asks again
    /// and a variable of the person's environment does not.
    pub key: TransportSpec,
}

/// The original of entry `name` in the record at `record_path`.
pub fn original(record_path: &Path, name: &str) -> Result<Original, String> {
    // Absolute: the project it belongs to is found from where it is.
    let absolute = std::fs::canonicalize(record_path);
    let record_path = absolute.as_deref().unwrap_or(record_path);
    let text = crate::fsio::read_capped(record_path)
        .and_then(|t| t.ok_or_else(|| std::io::ErrorKind::NotFound.into()))
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
    let shown = definition
        .shown
        .clone()
        .unwrap_or_else(|| TransportSpec::Stdio {
            command: String::new(),
            args: Vec::new(),
            env: Default::default(),
            cwd: None,
        });
    let spec = definition.spec;
    // A record beside a project's host file is a file of the project: a repository can plant
    // one, so what it runs waits for the person's approval as the project's own servers do.
    let user_file = host.dialect().file(crate::hosts::Scope::User, &places);
    let project = match (user_file, host.dialect().project_file) {
        (Some(user), _) if user == host_file => None,
        (_, Some(relative)) => host_file
            .to_string_lossy()
            .strip_suffix(relative)
            .map(|p| std::path::PathBuf::from(p.trim_end_matches('/')))
            .or_else(|| host_file.parent().map(Path::to_path_buf)),
        (_, None) => None,
    };
    let key = TransportSpec::Stdio {
        command: "mcpick wrap record".into(),
        args: vec![wrapped.host.clone(), wrapped.original.to_string()],
        env: Default::default(),
        cwd: None,
    };
    Ok(Original {
        spec,
        shown,
        project,
        key,
    })
}

/// The filter and the requests in flight, shared by the two directions.
type Shared<T> = std::sync::Arc<std::sync::Mutex<T>>;

/// Runs the wrapped original behind the set's filter: host → upstream and upstream → host,
/// the set file watched, until the upstream ends; then every request left unanswered is
/// answered with why, and what the host still asks is answered the same way.
async fn proxy(
    record_path: &Path,
    name: &str,
    set_path: &Path,
    expose: Expose,
) -> Result<Exit, String> {
    let spec = approved_original(record_path, name)?;
    let (set_file, set) = SetFile::open(set_path);
    let set = set.map_err(|e| e.to_string())?;
    let limit = MessageLimit::default();
    let secrets = spec.transport.secrets();
    let (source, sink) = match &spec.transport {
        TransportSpec::Stdio { .. } => upstream::start_stdio(&spec.transport).await?,
        TransportSpec::Http { url, headers } => {
            http::start(name, url, headers, limit, secrets.clone()).await?
        }
        TransportSpec::Sse { url, headers } => sse::start(url, headers, limit).await?,
    };
    let flight: Shared<InFlight> = Default::default();
    let own = std::sync::Arc::new(crate::handoff::own_outputs(set_path, None));
    let filter = Filter::new(name, set, expose).leaving_out(own);
    let filter = std::sync::Arc::new(std::sync::Mutex::new(filter));
    let (out_tx, out_rx) = mpsc::channel::<Vec<u8>>(QUEUE);
    let writer = tokio::spawn(write_to_host(out_rx));
    let host_left = HostLeft::default();
    let from_host = tokio::spawn(from_host(
        sink,
        filter.clone(),
        flight.clone(),
        out_tx.clone(),
        host_left.clone(),
        limit,
    ));
    let watcher = tokio::spawn(watch_set(set_file, filter.clone(), out_tx.clone()));
    let mut source = source;
    from_upstream(&mut source, &filter, &flight, &out_tx, limit).await;
    // The upstream's output ended: it exited or failed, or is about to.
    let ended = source.ended(name).await;
    let reason = secrets.scrub(&ended.reason);
    let unanswered = flight.locked().gone(&reason);
    let failed = !(host_left.get() && ended.clean && unanswered.is_empty());
    if failed {
        crate::say::report(&format!("wrap `{name}`: {reason}"));
    }
    for reply in unanswered {
        if out_tx.send(reply).await.is_err() {
            break;
        }
    }
    drop(out_tx);
    // The host is still there: what it asks from now on is answered with the reason
    // ([`InFlight::from_host`]) until it closes stdin.
    let _ = from_host.await;
    watcher.abort();
    let _ = writer.await;
    Ok(if failed { Exit::ServerFailed } else { Exit::Ok })
}

/// The record's original, if it may run: a project record's original only once the user
/// approved it (`mcpick trust`), keyed on the original exactly as written.
fn approved_original(record_path: &Path, name: &str) -> Result<crate::mcp::ServerSpec, String> {
    let Original {
        spec, project, key, ..
    } = original(record_path, name)?;
    let spec = spec?;
    if let Some(project) = &project {
        let approved = crate::config::trust::Store::system()
            .ok_or_else(|| "no user data directory to keep approvals in".to_string())
            .and_then(|store| store.load())
            .is_ok_and(|a| a.is_approved(project, &key));
        if !approved {
            return Err(format!(
                "not started: the original of `{}` in {} is a command of the project you have not approved; review and approve it with `mcpick trust`",
                crate::sanitize::line(name, 200),
                record_path.display()
            ));
        }
    }
    Ok(spec)
}

/// The host's stdout: one writer for the upstream's lines and the proxy's own answers.
async fn write_to_host(mut lines: mpsc::Receiver<Vec<u8>>) {
    let mut stdout = tokio::io::stdout();
    while let Some(line) = lines.recv().await {
        if write_line(&mut stdout, &line).await.is_err() {
            break;
        }
    }
}

/// Host → upstream, through the filter and the requests in flight, until the host closes
/// stdin; what the proxy answers itself goes to `answers`.
async fn from_host(
    mut upstream: upstream::Sink,
    filter: Shared<Filter>,
    flight: Shared<InFlight>,
    answers: mpsc::Sender<Vec<u8>>,
    left: HostLeft,
    limit: MessageLimit,
) {
    let mut stdin = BufReader::with_capacity(256 * 1024, tokio::io::stdin());
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
        let decision = filter.locked().from_host(&line);
        let decision = match decision {
            FromHost::Forward => match flight.locked().from_host(&line) {
                Pass::Forward => FromHost::Forward,
                Pass::Answer(reply) => FromHost::Answer(reply),
                Pass::Drop => continue,
            },
            answer => answer,
        };
        match decision {
            FromHost::Forward => upstream.send(&line).await,
            FromHost::Answer(reply) => {
                if answers.send(reply).await.is_err() {
                    break;
                }
            }
        }
    }
    left.set();
    upstream.close().await;
}

/// The set file, looked at again every [`SET_POLL`]: a change decides from then on, and the
/// host is told when it shows or hides a listed resource.
async fn watch_set(mut set_file: SetFile, filter: Shared<Filter>, notices: mpsc::Sender<Vec<u8>>) {
    loop {
        tokio::time::sleep(SET_POLL).await;
        let Ok(Some(set)) = set_file.poll() else {
            continue;
        };
        let lines = filter.locked().set_changed(set);
        for line in lines {
            if notices.send(line).await.is_err() {
                return;
            }
        }
    }
}

/// Upstream → host, through the filter (with the notices it has for the host), until the
/// upstream ends or the host's side is gone.
async fn from_upstream(
    source: &mut upstream::Source,
    filter: &Shared<Filter>,
    flight: &Shared<InFlight>,
    relay: &mpsc::Sender<Vec<u8>>,
    limit: MessageLimit,
) {
    let mut message = Message::new(limit);
    loop {
        let line = match source.next(&mut message).await {
            Line::End => return,
            Line::TooLarge(id) => {
                let reply = limit::too_large_reply(&id, limit);
                if relay.send(reply.into_bytes()).await.is_err() {
                    return;
                }
                continue;
            }
            Line::Skip => continue,
            Line::Whole(line) => line,
        };
        flight.locked().from_upstream(&line);
        let (decision, notices) = {
            let mut filter = filter.locked();
            (filter.from_upstream(&line), filter.take_notices())
        };
        let out = match decision {
            FromUpstream::Forward => Some(line),
            FromUpstream::Replace(line) => Some(line),
            FromUpstream::Drop => None,
        };
        for line in out.into_iter().chain(notices) {
            if relay.send(line).await.is_err() {
                return;
            }
        }
    }
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

pub enum Line {
    Whole(Vec<u8>),
    /// Above the limit, answering or asking request `id`.
    TooLarge(serde_json::Value),
    /// Blank, or above the limit with no id.
    Skip,
    End,
}

/// The next line, holding at most the limit (see [`crate::mcp::limit`]).
pub(crate) async fn next_line(
    reader: &mut (impl AsyncBufRead + Unpin),
    message: &mut Message,
) -> Line {
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

pub(crate) async fn write_line(
    out: &mut (impl AsyncWrite + Unpin),
    line: &[u8],
) -> std::io::Result<()> {
    out.write_all(line).await?;
    out.write_all(b"\n").await?;
    out.flush().await
}
