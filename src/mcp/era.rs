//! Era memory: which handshake each server needed last time, kept in the user cache
//! directory, so the next start goes straight to it.
//!
//! rmcp's `Auto` lifecycle probes with `server/discover` (the 2026-07-28 era) and falls back to
//! `initialize` when the server says it is legacy, or after a fixed 10 s when it says nothing
//! (FastMCP 1.x only logs "31 validation errors" on stderr). A server remembered as legacy is
//! greeted with `initialize` at once, one remembered as modern with `server/discover` alone
//! (no 10 s fallback to lose it to, see below); if that fails, the probe runs again and the
//! memory is updated.
//!
//! A server slow to start (a Python server's first imports on a busy machine) can answer the
//! probe after rmcp has already fallen back to `initialize`, and then refuse `initialize`
//! (FastMCP 4 does). [`ProbeWatch`] keeps that late answer from crossing the handshake and
//! notes it ([`LateAnswer`]); the connection then tries again with `server/discover` alone.
//!
//! The file (`eras.json`) holds no secret and no plaintext definition: each server is keyed by
//! a hash of its identity, the command, arguments and cwd of a stdio server (never its
//! environment) or the URL of an HTTP one without userinfo, query or fragment (never headers).
//! A missing or corrupt file is ignored and rewritten; writes are atomic. `MCPICK_CACHE_DIR`
//! moves it (empty: no memory at all); else it is in the user cache directory
//! (`$XDG_CACHE_HOME/mcpick` on Linux).

use crate::sync::Locked;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use rmcp::model::{ClientRequest, ErrorCode, JsonRpcMessage, RequestId};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::{Deserialize, Serialize};

use super::log::{LogSource, ServerLog};
use super::spec::TransportSpec;

/// Overrides the cache directory; set but empty turns the era memory off.
pub const CACHE_DIR_ENV: &str = "MCPICK_CACHE_DIR";
/// The file's name in the cache directory.
pub const FILE_NAME: &str = "eras.json";
/// Servers remembered at most; the file stays a few kilobytes.
const MAX_ENTRIES: usize = 500;
/// What the stderr lines written during the probe are marked with in the server's log.
pub const PROBE_MARK: &str = "[era probe] ";
/// How long rmcp's `Auto` lifecycle waits for an answer to `server/discover` before it falls
/// back to `initialize` (its `DEFAULT_AUTO_DISCOVER_TIMEOUT`, not exported).
pub const PROBE_WAIT: Duration = Duration::from_secs(10);

/// Which handshake to start with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Handshake {
    /// rmcp's `Auto`: probe with `server/discover`, fall back to `initialize`.
    #[default]
    Probe,
    /// `initialize` only: the server was legacy last time.
    Legacy,
    /// `server/discover` only, waiting the whole limit for it: the server was modern last
    /// time, or answered the probe late.
    Discover,
}

/// The protocol era a server spoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// The `initialize` handshake (2024-11-05 … 2025-11-25).
    Legacy,
    /// Stateless `server/discover` (2026-07-28 and later).
    Modern,
}

impl Era {
    pub(crate) fn handshake(self) -> Handshake {
        match self {
            Era::Legacy => Handshake::Legacy,
            Era::Modern => Handshake::Discover,
        }
    }
}

/// Set when a server answered the probe as a modern server only after the fallback
/// `initialize` went out: it speaks the 2026-07-28 handshake, just slowly.
#[derive(Debug, Clone, Default)]
pub(crate) struct LateAnswer(Arc<std::sync::atomic::AtomicBool>);

impl LateAnswer {
    pub(crate) fn seen(&self) -> bool {
        self.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn see(&self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct EraFile {
    #[serde(default)]
    servers: BTreeMap<String, Entry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Entry {
    era: Era,
    /// The negotiated protocol version, for a person reading the file.
    #[serde(default)]
    protocol: String,
    /// Seconds since the Unix epoch when this was last written; the oldest entries go first.
    #[serde(default)]
    seen: u64,
    /// A 2026-07-28 server that declares no resource updates was tried with `initialize`
    /// for them, and that did not help (see [`updates_tried`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    updates_tried: bool,
}

/// Where the era memory lives, or `None` when it is turned off (or no home is known).
pub fn file_path() -> Option<PathBuf> {
    match std::env::var_os(CACHE_DIR_ENV) {
        Some(dir) if dir.is_empty() => None,
        Some(dir) => Some(PathBuf::from(dir).join(FILE_NAME)),
        None => directories::ProjectDirs::from("", "", "mcpick")
            .map(|dirs| dirs.cache_dir().join(FILE_NAME)),
    }
}

/// Serialises this process's read-modify-write of the file (servers connect in parallel).
static FILE_LOCK: Mutex<()> = Mutex::new(());

/// The era remembered for this server, if any.
pub(crate) fn recall(transport: &TransportSpec) -> Option<Era> {
    let path = file_path()?;
    let _lock = FILE_LOCK.locked();
    read(&path).servers.get(&key(transport)).map(|e| e.era)
}

/// Remembers the era a server just spoke. Writes only when something changed; a failure to
/// write costs only the memory.
pub(crate) fn remember(transport: &TransportSpec, era: Era, protocol: &str) {
    if let Some(path) = file_path() {
        remember_in(&path, transport, era, protocol);
    }
}

fn remember_in(path: &Path, transport: &TransportSpec, era: Era, protocol: &str) {
    let _lock = FILE_LOCK.locked();
    let mut file = read(path);
    let key = key(transport);
    if file
        .servers
        .get(&key)
        .is_some_and(|e| e.era == era && e.protocol == protocol)
    {
        return;
    }
    let updates_tried = file
        .servers
        .get(&key)
        .is_some_and(|e| e.era == era && e.updates_tried);
    file.servers.insert(
        key,
        Entry {
            era,
            protocol: protocol.chars().take(40).collect(),
            seen: now(),
            updates_tried,
        },
    );
    write_capped(path, file);
}

/// Whether this server, remembered as a 2026-07-28 server, was already tried with
/// `initialize` for resource updates it does not declare in that era, in vain: a front end
/// that follows updates then does not try again at each start.
pub(crate) fn updates_tried(transport: &TransportSpec) -> bool {
    file_path().is_some_and(|path| updates_tried_in(&path, transport))
}

fn updates_tried_in(path: &Path, transport: &TransportSpec) -> bool {
    let _lock = FILE_LOCK.locked();
    read(path)
        .servers
        .get(&key(transport))
        .is_some_and(|e| e.era == Era::Modern && e.updates_tried)
}

/// Remembers that trying `initialize` for resource updates did not help this server.
pub(crate) fn remember_updates_tried(transport: &TransportSpec) {
    if let Some(path) = file_path() {
        remember_updates_tried_in(&path, transport);
    }
}

fn remember_updates_tried_in(path: &Path, transport: &TransportSpec) {
    let _lock = FILE_LOCK.locked();
    let mut file = read(path);
    let entry = file.servers.entry(key(transport)).or_insert(Entry {
        era: Era::Modern,
        protocol: String::new(),
        seen: 0,
        updates_tried: false,
    });
    if entry.updates_tried {
        return;
    }
    entry.updates_tried = true;
    entry.seen = now();
    write_capped(path, file);
}

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Drops the oldest entries beyond [`MAX_ENTRIES`] and writes the file (a failure to write
/// costs only the memory).
fn write_capped(path: &Path, mut file: EraFile) {
    while file.servers.len() > MAX_ENTRIES {
        let oldest = file
            .servers
            .iter()
            .min_by_key(|(_, e)| e.seen)
            .map(|(k, _)| k.clone());
        match oldest {
            Some(k) => file.servers.remove(&k),
            None => break,
        };
    }
    if let Ok(text) = serde_json::to_vec_pretty(&file) {
        let _ = write_atomic(path, &text);
    }
}

/// The file's contents; a missing, unreadable or corrupt file reads as empty (and is
/// rewritten whole on the next change).
fn read(path: &Path) -> EraFile {
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

/// Writes the file owner-only through [`crate::fsio`] (atomic, fsynced), creating its folder.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    crate::fsio::write_with(path, bytes, crate::fsio::Perms::Private)
}

/// The key of a server in the file: a hash of what makes it the same server, without
/// anything that may hold a secret in plain view (environment, headers, URL userinfo,
/// query and fragment).
pub fn key(transport: &TransportSpec) -> String {
    let identity = match transport {
        TransportSpec::Stdio {
            command, args, cwd, ..
        } => {
            let mut parts = vec!["stdio", command.as_str()];
            parts.extend(args.iter().map(String::as_str));
            let cwd = cwd
                .as_ref()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default();
            parts.push(&cwd);
            parts.join("\0")
        }
        TransportSpec::Http { url, .. } => format!("http\0{}", bare_url(url)),
        TransportSpec::Sse { url, .. } => format!("sse\0{}", bare_url(url)),
    };
    // Two FNV-1a runs with different bases: a stable 128-bit hash with no dependency.
    format!(
        "{:016x}{:016x}",
        fnv1a(0xcbf2_9ce4_8422_2325, identity.as_bytes()),
        fnv1a(0x6c62_272e_07bb_0142, identity.as_bytes())
    )
}

fn fnv1a(basis: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(basis, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The URL without userinfo, query and fragment.
fn bare_url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if matches!(u.scheme(), "http" | "https") => {
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        // Not an HTTP URL: keep only what precedes any query or fragment, after any userinfo.
        _ => {
            let head = url.split(['?', '#']).next().unwrap_or_default();
            head.rsplit_once('@')
                .map_or(head, |(_, host)| host)
                .to_string()
        }
    }
}

/// What the transport wrapper saw of the probe: when `server/discover` went out, how the
/// server answered it, and when the fallback `initialize` followed it.
#[derive(Debug, Default)]
struct Window {
    /// The log position and time when `server/discover` went out, and its request id.
    start: Option<(u64, Instant, RequestId)>,
    /// The error code the server answered `server/discover` with, if it answered.
    answer: Option<ErrorCode>,
    /// When the fallback `initialize` went out.
    end: Option<Instant>,
    /// The server answered the probe with a result that is no discover result.
    not_discover: bool,
}

/// Handle on the probe seen by a [`ProbeWatch`], read after the handshake.
#[derive(Debug, Clone)]
pub(crate) struct Probe {
    window: Arc<Mutex<Window>>,
    log: ServerLog,
}

impl Probe {
    /// When a handshake limited to `timeout` should give up, not counting the probe's wait:
    /// `timeout` after the fallback `initialize` went out, or, while the probe still waits,
    /// a moment after it must have ended. `None` when there was no probe.
    pub(crate) fn deadline(&self, timeout: Duration) -> Option<Instant> {
        let window = self.window.locked();
        match (&window.start, window.end) {
            (_, Some(sent)) => Some(sent + timeout),
            (Some((_, probed, _)), None) => Some(*probed + PROBE_WAIT + Duration::from_secs(1)),
            (None, None) => None,
        }
    }

    /// After a handshake that probed and fell back to `initialize`: marks the stderr lines
    /// the probe caused, and notes in the log (as information, not an error) what happened,
    /// so the server is not blamed for not knowing the 2026 handshake.
    ///
    /// A server that answered the probe with "method not found" said it is legacy the way
    /// JSON-RPC says it: it did not complain, so none of its stderr lines is marked (they
    /// are its own, such as the startup line Node servers write before they read the probe;
    /// the probe goes out as the process starts, so time alone cannot tell them apart). A
    /// server that stayed silent or answered otherwise (the Python SDK 1.x logs "31
    /// validation errors" and answers "invalid params") wrote its complaint during the
    /// probe: those lines are marked.
    pub(crate) fn explain(&self) {
        let window = self.window.locked();
        let (Some((from, started, _)), Some(ended)) = (&window.start, window.end) else {
            return;
        };
        let complained = window.answer != Some(ErrorCode::METHOD_NOT_FOUND);
        // Up to now, not to the fallback: a server that answers the probe at once may still
        // be writing its complaint (FastMCP 1.x: some hundred lines) as `initialize` goes out.
        let marked = if complained {
            self.log.mark_stderr(*from, self.log.position(), PROBE_MARK)
        } else {
            0
        };
        let waited = ended.duration_since(*started);
        let answer = if window.answer.is_none() && waited + Duration::from_secs(1) >= PROBE_WAIT {
            format!(
                "did not answer mcpick's `server/discover` probe (the 2026-07-28 handshake) \
                 within {:.0} s",
                waited.as_secs_f32()
            )
        } else if window.not_discover {
            "answered mcpick's `server/discover` probe (the 2026-07-28 handshake) with a \
             result that is not a discover result (as a server that answers every method it \
             does not know with `{}` does)"
                .to_string()
        } else if complained {
            "answered mcpick's `server/discover` probe (the 2026-07-28 handshake) as a legacy \
             server"
                .to_string()
        } else {
            "answered mcpick's `server/discover` probe (the 2026-07-28 handshake) with \
             \"method not found\", as a legacy server does"
                .to_string()
        };
        let lines = match marked {
            0 => String::new(),
            1 => format!(
                "; the stderr line marked `{}` is its reaction to the probe, not a fault",
                PROBE_MARK.trim_end()
            ),
            n => format!(
                "; the {n} stderr lines marked `{}` are its reaction to the probe, not a fault",
                PROBE_MARK.trim_end()
            ),
        };
        self.log.push(
            LogSource::Note,
            &format!(
                "era: the server {answer}, so mcpick used `initialize`{lines}. The era is \
                 remembered, and the next start skips the probe."
            ),
        );
    }
}

/// The server's answer to the probe, as a legacy server's "method not found" when it is a
/// result but not a discover result: a server that answers every method it does not know with
/// an empty result `{}` (the MCP conformance suite's own) is wrong but real, and rmcp would
/// take `{}` for the handshake's answer and fail ("expect initialized result") without ever
/// sending `initialize`. A result that is no discover result says "not modern"; then
/// `initialize`. Every other message passes as it came.
fn not_a_discover_result(
    message: Option<RxJsonRpcMessage<RoleClient>>,
    window: &Mutex<Window>,
) -> Option<RxJsonRpcMessage<RoleClient>> {
    use rmcp::model::{ErrorData, JsonRpcError, JsonRpcVersion2_0, ServerResult};
    let Some(JsonRpcMessage::Response(response)) = &message else {
        return message;
    };
    let mut window = window.locked();
    let probe_id = window.start.as_ref().map(|(_, _, id)| id.clone());
    if Some(&response.id) != probe_id.as_ref()
        || matches!(response.result, ServerResult::DiscoverResult(_))
    {
        return message;
    }
    window.not_discover = true;
    Some(JsonRpcMessage::Error(JsonRpcError {
        jsonrpc: JsonRpcVersion2_0,
        id: Some(response.id.clone()),
        error: ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            "answered `server/discover` with a result that is not a discover result: taken for a legacy server",
            None,
        ),
    }))
}

/// A transport that watches what goes out during the handshake (nothing else changes).
pub(crate) struct ProbeWatch<T> {
    inner: T,
    probe: Probe,
    late: LateAnswer,
}

impl<T> ProbeWatch<T> {
    pub(crate) fn new(inner: T, log: ServerLog, late: LateAnswer) -> (Self, Probe) {
        let probe = Probe {
            window: Arc::default(),
            log,
        };
        (
            ProbeWatch {
                inner,
                probe: probe.clone(),
                late,
            },
            probe,
        )
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for ProbeWatch<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let JsonRpcMessage::Request(request) = &item {
            let mut window = self.probe.window.locked();
            match &request.request {
                ClientRequest::DiscoverRequest(_) if window.start.is_none() => {
                    window.start = Some((
                        self.probe.log.position(),
                        Instant::now(),
                        request.id.clone(),
                    ));
                }
                ClientRequest::InitializeRequest(_) if window.start.is_some() => {
                    window.end = Some(Instant::now());
                }
                _ => {}
            }
        }
        self.inner.send(item)
    }

    /// The server's messages, less a late answer to the probe: one that comes after the
    /// fallback `initialize` went out (a slow server under load answers `server/discover`
    /// after rmcp's 10 s) would be taken for the handshake's answer ("conflict initialized
    /// response id"), so the probe and the handshake cannot cross. A late result (not an
    /// error) is noted in [`LateAnswer`].
    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let window = self.probe.window.clone();
        let late_answer = self.late.clone();
        let inner = &mut self.inner;
        async move {
            loop {
                let message = not_a_discover_result(inner.receive().await, &window);
                let late = {
                    let mut window = window.locked();
                    let probe_id = window.start.as_ref().map(|(_, _, id)| id.clone());
                    let (answered, modern) = match &message {
                        Some(JsonRpcMessage::Error(error))
                            if error.id.is_some() && error.id == probe_id =>
                        {
                            if window.answer.is_none() {
                                window.answer = Some(error.error.code);
                            }
                            (true, false)
                        }
                        Some(JsonRpcMessage::Response(response)) => {
                            let ours = Some(&response.id) == probe_id.as_ref();
                            (ours, ours)
                        }
                        _ => (false, false),
                    };
                    let late = answered && window.end.is_some();
                    if late && modern {
                        late_answer.see();
                    }
                    late
                };
                if !late {
                    return message;
                }
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A transport whose server's messages are fixed in advance.
    struct Scripted(std::collections::VecDeque<RxJsonRpcMessage<RoleClient>>);

    impl Transport<RoleClient> for Scripted {
        type Error = std::io::Error;

        fn send(
            &mut self,
            _item: TxJsonRpcMessage<RoleClient>,
        ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
            std::future::ready(Ok(()))
        }

        fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
            std::future::ready(self.0.pop_front())
        }

        async fn close(&mut self) -> Result<(), Self::Error> {
            Ok(())
        }
    }

    fn message<M: serde::de::DeserializeOwned>(json: serde_json::Value) -> M {
        serde_json::from_value(json).unwrap()
    }

    /// A slow server answers `server/discover` (id 0) after the fallback `initialize` (id 1)
    /// went out: the late answer is not passed on, so rmcp takes the next message, the
    /// `initialize` result, for the handshake's answer. An answer before the fallback passes.
    /// Only a late result (the server is modern, and slow) is noted as a late answer.
    #[tokio::test]
    async fn a_late_answer_to_the_probe_cannot_cross_the_handshake() {
        let init_result = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "serverInfo": {"name": "slow", "version": "1"}}});
        for (late, modern) in [
            (
                serde_json::json!({"jsonrpc": "2.0", "id": 0, "error": {"code": -32601, "message": "no"}}),
                false,
            ),
            (
                serde_json::json!({"jsonrpc": "2.0", "id": 0, "result":
                rmcp::model::DiscoverResult::new(
                    vec![rmcp::model::ProtocolVersion::V_2026_07_28],
                    Default::default(),
                )}),
                true,
            ),
            // `{}` is no discover result: dropped as late, and not taken for a modern answer.
            (
                serde_json::json!({"jsonrpc": "2.0", "id": 0, "result": {}}),
                false,
            ),
        ] {
            let script = [message(late.clone()), message(init_result.clone())];
            let noted = LateAnswer::default();
            let (mut watch, _probe) = ProbeWatch::new(
                Scripted(script.into_iter().collect()),
                ServerLog::new(3),
                noted.clone(),
            );
            let discover = serde_json::json!({"jsonrpc": "2.0", "id": 0,
                "method": "server/discover", "params": {}});
            let initialize = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "mcpick", "version": "0"}}});
            watch.send(message(discover.clone())).await.unwrap();
            watch.send(message(initialize.clone())).await.unwrap();
            let first = serde_json::to_value(watch.receive().await.unwrap()).unwrap();
            assert_eq!(first["id"], 1, "{late}: {first}");
            assert_eq!(noted.seen(), modern, "{late}");

            // Before the fallback, the probe's answer is rmcp's to see, and not late.
            let script = [message(late.clone())];
            let noted = LateAnswer::default();
            let (mut watch, _probe) = ProbeWatch::new(
                Scripted(script.into_iter().collect()),
                ServerLog::new(3),
                noted.clone(),
            );
            watch.send(message(discover)).await.unwrap();
            let first = serde_json::to_value(watch.receive().await.unwrap()).unwrap();
            assert_eq!(first["id"], 0, "{late}: {first}");
            assert!(!noted.seen(), "{late}");
        }
    }

    fn stdio(command: &str, args: &[&str]) -> TransportSpec {
        TransportSpec::Stdio {
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: [("TOKEN".to_string(), "secret-env".to_string())].into(),
            cwd: None,
        }
    }

    fn http(url: &str) -> TransportSpec {
        TransportSpec::Http {
            url: url.into(),
            headers: [("X-Api-Key".to_string(), "secret-header".to_string())].into(),
        }
    }

    #[test]
    fn keys_tell_servers_apart_but_ignore_secrets() {
        assert_ne!(
            key(&stdio("npx", &["-y", "a"])),
            key(&stdio("npx", &["-y", "b"]))
        );
        // The environment is not part of the identity.
        let mut other_env = stdio("npx", &["-y", "a"]);
        if let TransportSpec::Stdio { env, .. } = &mut other_env {
            env.insert("TOKEN".into(), "another".into());
        }
        assert_eq!(key(&other_env), key(&stdio("npx", &["-y", "a"])));
        // Nor are userinfo, query, fragment or headers.
        assert_eq!(
            key(&http("https://user:pw@example.com/mcp?token=X#f")),
            key(&http("https://example.com/mcp"))
        );
        assert_ne!(
            key(&http("https://example.com/mcp")),
            key(&http("https://example.com/other"))
        );
        assert_eq!(key(&http("https://example.com/mcp")).len(), 32);
        assert_eq!(bare_url("not a url?token=X"), "not a url");
        assert_eq!(bare_url("user:pw@host/x?q"), "host/x");
    }

    #[test]
    fn file_round_trip_tolerates_corruption_and_holds_no_secret() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join(FILE_NAME);
        // Missing: empty.
        assert!(read(&path).servers.is_empty());
        let spec = http("https://user:hunter2@example.com/mcp?token=SECRET");
        let mut file = read(&path);
        file.servers.insert(
            key(&spec),
            Entry {
                era: Era::Legacy,
                protocol: "2025-11-25".into(),
                seen: 1,
                updates_tried: false,
            },
        );
        write_atomic(&path, &serde_json::to_vec(&file).unwrap()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        for secret in ["hunter2", "SECRET", "secret-header", "example.com"] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert_eq!(read(&path).servers[&key(&spec)].era, Era::Legacy);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the file is the user's only");
        // Corrupt: reads as empty, no panic.
        std::fs::write(&path, b"{\"servers\": {\"x\": 12").unwrap();
        assert!(read(&path).servers.is_empty());
        std::fs::write(&path, b"[1,2,3]").unwrap();
        assert!(read(&path).servers.is_empty());
        // No temporary file left behind.
        let names: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [FILE_NAME]);
    }

    /// Trying `initialize` for updates in vain is remembered for a 2026-07-28 server, kept
    /// while it stays in that era, and forgotten when its era changes.
    #[test]
    fn a_vain_try_for_updates_is_remembered_with_the_era() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let spec = stdio("python3", &["server.py"]);
        let other = stdio("python3", &["other.py"]);
        assert!(!updates_tried_in(&path, &spec));
        remember_updates_tried_in(&path, &spec);
        remember_in(&path, &spec, Era::Modern, "2026-07-28");
        assert!(updates_tried_in(&path, &spec));
        assert!(!updates_tried_in(&path, &other));
        // Still modern, a newer version: kept.
        remember_in(&path, &spec, Era::Modern, "2026-09-01");
        assert!(updates_tried_in(&path, &spec));
        // The server turned legacy: the flag no longer applies, nor when it is modern again.
        remember_in(&path, &spec, Era::Legacy, "2025-11-25");
        assert!(!updates_tried_in(&path, &spec));
        remember_in(&path, &spec, Era::Modern, "2026-07-28");
        assert!(!updates_tried_in(&path, &spec));
        // The file stays small: the flag is written only when set.
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("updates_tried"), "{text}");
    }

    /// How a legacy test server reacts to `server/discover`.
    #[derive(Clone, Copy)]
    enum Reaction {
        /// Like FastMCP 1.x: complains on stderr, never answers.
        Silent,
        /// Like the Python SDK 1.x: complains on stderr, answers "invalid params".
        Complains,
        /// Like the TypeScript SDK: answers "method not found"; the stderr line it wrote
        /// before (its startup line) is its own.
        MethodNotFound,
        /// Like the MCP conformance suite's server: answers an empty result `{}`.
        EmptyResult,
    }

    /// A legacy server on an in-memory pipe that reacts to `server/discover` as told and
    /// answers `initialize`. Returns the methods it received.
    fn legacy_server(
        io: tokio::io::DuplexStream,
        log: ServerLog,
        reaction: Reaction,
    ) -> tokio::task::JoinHandle<Vec<String>> {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        tokio::spawn(async move {
            let (read, mut write) = tokio::io::split(io);
            let mut lines = BufReader::new(read).lines();
            let mut methods = Vec::new();
            while let Ok(Some(line)) = lines.next_line().await {
                let msg: serde_json::Value = serde_json::from_str(&line).unwrap();
                let method = msg["method"].as_str().unwrap_or_default().to_string();
                let reply = match (method.as_str(), reaction) {
                    ("server/discover", Reaction::Silent) => {
                        log.push(LogSource::Stderr, "31 validation errors for ClientRequest");
                        None
                    }
                    ("server/discover", Reaction::Complains) => {
                        log.push(LogSource::Stderr, "Failed to validate request");
                        Some(serde_json::json!({"jsonrpc": "2.0", "id": msg["id"],
                            "error": {"code": -32602, "message": "Invalid request parameters"}}))
                    }
                    ("server/discover", Reaction::MethodNotFound) => {
                        log.push(LogSource::Stderr, "Starting default (STDIO) server...");
                        Some(serde_json::json!({"jsonrpc": "2.0", "id": msg["id"],
                            "error": {"code": -32601, "message": "Method not found"}}))
                    }
                    ("server/discover", Reaction::EmptyResult) => {
                        Some(serde_json::json!({"jsonrpc": "2.0", "id": msg["id"], "result": {}}))
                    }
                    ("initialize", _) => Some(serde_json::json!({"jsonrpc": "2.0",
                        "id": msg["id"],
                        "result": {"protocolVersion": "2025-06-18",
                            "capabilities": {"resources": {}},
                            "serverInfo": {"name": "old", "version": "1.0"}}})),
                    _ => None,
                };
                if let Some(reply) = reply {
                    let mut bytes = serde_json::to_vec(&reply).unwrap();
                    bytes.push(b'\n');
                    write.write_all(&bytes).await.unwrap();
                }
                if method == "notifications/initialized" {
                    log.push(LogSource::Stderr, "serving");
                }
                methods.push(method);
                if methods
                    .last()
                    .is_some_and(|m| m == "notifications/initialized")
                {
                    break;
                }
            }
            methods
        })
    }

    async fn handshake_with(
        handshake: Handshake,
        reaction: Reaction,
        timeout: Duration,
    ) -> (ServerLog, Vec<String>) {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let log = ServerLog::new(100);
        let methods = legacy_server(server, log.clone(), reaction);
        let state = super::super::client::ClientState {
            log: log.clone(),
            handshake,
            events: super::super::events::channel(),
            late_answer: LateAnswer::default(),
        };
        let service = super::super::connection::handshake(state, tokio::io::split(client), timeout)
            .await
            .expect("the legacy handshake succeeds");
        let info = service.peer().peer_info().unwrap();
        assert_eq!(info.protocol_version.as_str(), "2025-06-18");
        let methods = methods.await.unwrap();
        (log, methods)
    }

    /// The log's stderr lines and its notes, as text.
    fn stderr_and_notes(log: &ServerLog) -> (Vec<String>, Vec<String>) {
        let entries = log.entries();
        let of = |source| {
            entries
                .iter()
                .filter(|e| e.source == source)
                .map(|e| e.text.clone())
                .collect::<Vec<_>>()
        };
        assert!(of(LogSource::Client).is_empty(), "{entries:?}");
        (of(LogSource::Stderr), of(LogSource::Note))
    }

    // Takes rmcp's 10 s probe wait; nothing here is timed.
    #[tokio::test]
    async fn a_silent_probe_is_marked_and_not_counted_against_the_limit() {
        // A 3 s limit: the probe's 10 s must not count against it.
        let (log, methods) =
            handshake_with(Handshake::Probe, Reaction::Silent, Duration::from_secs(3)).await;
        assert_eq!(methods[..2], ["server/discover", "initialize"]);
        let (stderr, notes) = stderr_and_notes(&log);
        assert_eq!(
            stderr[0], "[era probe] 31 validation errors for ClientRequest",
            "{stderr:?}"
        );
        assert!(
            notes[0].contains("did not answer") && notes[0].contains("not a fault"),
            "{notes:?}"
        );
    }

    #[tokio::test]
    async fn a_complaint_answering_the_probe_is_marked_as_information() {
        let (log, _) = handshake_with(
            Handshake::Probe,
            Reaction::Complains,
            Duration::from_secs(3),
        )
        .await;
        let (stderr, notes) = stderr_and_notes(&log);
        assert_eq!(stderr[0], "[era probe] Failed to validate request");
        assert!(
            notes[0].contains("as a legacy server") && notes[0].contains("not a fault"),
            "{notes:?}"
        );
    }

    /// A server that answers "method not found" did not complain: its startup line (written
    /// after the probe went out, before it read it) is its own, not marked, and the note
    /// says no line is a reaction.
    #[tokio::test]
    async fn a_method_not_found_answer_marks_no_line() {
        let (log, _) = handshake_with(
            Handshake::Probe,
            Reaction::MethodNotFound,
            Duration::from_secs(3),
        )
        .await;
        let (stderr, notes) = stderr_and_notes(&log);
        assert!(
            stderr.iter().all(|l| !l.starts_with(PROBE_MARK)),
            "{stderr:?}"
        );
        assert!(stderr.contains(&"Starting default (STDIO) server...".to_string()));
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("\"method not found\""), "{notes:?}");
        assert!(!notes[0].contains("marked"), "{notes:?}");
    }

    /// A server that answers every method it does not know with `{}` (the MCP conformance
    /// suite's): `{}` is no discover result, so mcpick greets it with `initialize` at once
    /// (rmcp alone took `{}` for the answer and failed the handshake).
    #[tokio::test]
    async fn an_empty_result_to_the_probe_means_legacy() {
        let (log, methods) = handshake_with(
            Handshake::Probe,
            Reaction::EmptyResult,
            Duration::from_secs(3),
        )
        .await;
        assert_eq!(methods[..2], ["server/discover", "initialize"]);
        let (_, notes) = stderr_and_notes(&log);
        assert!(notes[0].contains("not a discover result"), "{notes:?}");
    }

    #[tokio::test]
    async fn a_remembered_legacy_server_is_not_probed() {
        let (log, methods) =
            handshake_with(Handshake::Legacy, Reaction::Silent, Duration::from_secs(3)).await;
        assert_eq!(methods, ["initialize", "notifications/initialized"]);
        let (stderr, notes) = stderr_and_notes(&log);
        assert!(notes.is_empty(), "{notes:?}");
        assert!(
            stderr.iter().all(|l| !l.starts_with(PROBE_MARK)),
            "{stderr:?}"
        );
    }

    #[test]
    fn eras_map_to_handshakes() {
        assert_eq!(Era::Legacy.handshake(), Handshake::Legacy);
        assert_eq!(Era::Modern.handshake(), Handshake::Discover);
        assert_eq!(Handshake::default(), Handshake::Probe);
    }
}
