//! Era memory: which handshake each server needed last time, kept in the user cache
//! directory, so the next start goes straight to it.
//!
//! rmcp's `Auto` lifecycle probes with `server/discover` (the 2026-07-28 era) and falls back to
//! `initialize` when the server says it is legacy, or after a fixed 10 s when it says nothing
//! (FastMCP 1.x only logs "31 validation errors" on stderr). A server remembered as legacy is
//! greeted with `initialize` at once; if that fails, the probe runs again and the memory is
//! updated.
//!
//! The file (`eras.json`) holds no secret and no plaintext definition: each server is keyed by
//! a hash of its identity, the command, arguments and cwd of a stdio server (never its
//! environment) or the URL of an HTTP one without userinfo, query or fragment (never headers).
//! A missing or corrupt file is ignored and rewritten; writes are atomic. `MCPICK_CACHE_DIR`
//! moves it (empty: no memory at all); else it is in the user cache directory
//! (`$XDG_CACHE_HOME/mcpick` on Linux).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use rmcp::model::{ClientRequest, JsonRpcMessage};
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
            Era::Modern => Handshake::Probe,
        }
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
    let _lock = FILE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    read(&path).servers.get(&key(transport)).map(|e| e.era)
}

/// Remembers the era a server just spoke. Writes only when something changed; a failure to
/// write costs only the memory.
pub(crate) fn remember(transport: &TransportSpec, era: Era, protocol: &str) {
    let Some(path) = file_path() else { return };
    let _lock = FILE_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let mut file = read(&path);
    let key = key(transport);
    if file
        .servers
        .get(&key)
        .is_some_and(|e| e.era == era && e.protocol == protocol)
    {
        return;
    }
    let seen = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    file.servers.insert(
        key,
        Entry {
            era,
            protocol: protocol.chars().take(40).collect(),
            seen,
        },
    );
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
        let _ = write_atomic(&path, &text);
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

/// What the transport wrapper saw of the probe: when `server/discover` went out, and when
/// the fallback `initialize` followed it.
#[derive(Debug, Default)]
struct Window {
    /// The log position and time when `server/discover` went out.
    start: Option<(u64, Instant)>,
    /// When the fallback `initialize` went out.
    end: Option<Instant>,
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
        let window = self.window.lock().unwrap_or_else(|e| e.into_inner());
        match (window.start, window.end) {
            (_, Some(sent)) => Some(sent + timeout),
            (Some((_, probed)), None) => Some(probed + PROBE_WAIT + Duration::from_secs(1)),
            (None, None) => None,
        }
    }

    /// After a handshake that probed and fell back to `initialize`: marks the stderr lines
    /// written during the probe as caused by it, and notes in the log what happened, so the
    /// server is not blamed for not knowing the 2026 handshake.
    pub(crate) fn explain(&self) {
        let window = self.window.lock().unwrap_or_else(|e| e.into_inner());
        let (Some((from, started)), Some(ended)) = (window.start, window.end) else {
            return;
        };
        // Up to now, not to the fallback: a server that answers the probe at once may still
        // be writing its complaint (FastMCP 1.x: some hundred lines) as `initialize` goes out.
        let marked = self.log.mark_stderr(from, self.log.position(), PROBE_MARK);
        let waited = ended.duration_since(started);
        let answer = if waited + Duration::from_secs(1) >= PROBE_WAIT {
            format!(
                "did not answer mcpick's `server/discover` probe (the 2026-07-28 handshake) \
                 within {:.0} s",
                waited.as_secs_f32()
            )
        } else {
            "answered mcpick's `server/discover` probe (the 2026-07-28 handshake) as a legacy \
             server"
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
            LogSource::Client,
            &format!(
                "era: the server {answer}, so mcpick used `initialize`{lines}. The era is \
                 remembered, and the next start skips the probe."
            ),
        );
    }
}

/// A transport that watches what goes out during the handshake (nothing else changes).
pub(crate) struct ProbeWatch<T> {
    inner: T,
    probe: Probe,
}

impl<T> ProbeWatch<T> {
    pub(crate) fn new(inner: T, log: ServerLog) -> (Self, Probe) {
        let probe = Probe {
            window: Arc::default(),
            log,
        };
        (
            ProbeWatch {
                inner,
                probe: probe.clone(),
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
            let mut window = self.probe.window.lock().unwrap_or_else(|e| e.into_inner());
            match &request.request {
                ClientRequest::DiscoverRequest(_) if window.start.is_none() => {
                    window.start = Some((self.probe.log.position(), Instant::now()));
                }
                ClientRequest::InitializeRequest(_) if window.start.is_some() => {
                    window.end = Some(Instant::now());
                }
                _ => {}
            }
        }
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inner.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// A legacy server on an in-memory pipe that, like FastMCP 1.x, only complains on stderr
    /// about `server/discover` and answers `initialize`. Returns the methods it received.
    fn silent_legacy_server(
        io: tokio::io::DuplexStream,
        log: ServerLog,
    ) -> tokio::task::JoinHandle<Vec<String>> {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        tokio::spawn(async move {
            let (read, mut write) = tokio::io::split(io);
            let mut lines = BufReader::new(read).lines();
            let mut methods = Vec::new();
            while let Ok(Some(line)) = lines.next_line().await {
                let msg: serde_json::Value = serde_json::from_str(&line).unwrap();
                let method = msg["method"].as_str().unwrap_or_default().to_string();
                match method.as_str() {
                    "server/discover" => {
                        log.push(LogSource::Stderr, "31 validation errors for ClientRequest")
                    }
                    "initialize" => {
                        let reply = serde_json::json!({"jsonrpc": "2.0", "id": msg["id"],
                            "result": {"protocolVersion": "2025-06-18",
                                "capabilities": {"resources": {}},
                                "serverInfo": {"name": "old", "version": "1.0"}}});
                        let mut bytes = serde_json::to_vec(&reply).unwrap();
                        bytes.push(b'\n');
                        write.write_all(&bytes).await.unwrap();
                    }
                    _ => {}
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

    async fn handshake_with(handshake: Handshake, timeout: Duration) -> (ServerLog, Vec<String>) {
        let (client, server) = tokio::io::duplex(64 * 1024);
        let log = ServerLog::new(100);
        let methods = silent_legacy_server(server, log.clone());
        let state = super::super::client::ClientState {
            log: log.clone(),
            handshake,
            events: super::super::events::channel(),
        };
        let service = super::super::connection::handshake(state, tokio::io::split(client), timeout)
            .await
            .expect("the legacy handshake succeeds");
        let info = service.peer().peer_info().unwrap();
        assert_eq!(info.protocol_version.as_str(), "2025-06-18");
        (log, methods.await.unwrap())
    }

    // Takes rmcp's 10 s probe wait; nothing here is timed.
    #[tokio::test]
    async fn a_silent_probe_is_marked_and_not_counted_against_the_limit() {
        // A 3 s limit: the probe's 10 s must not count against it.
        let (log, methods) = handshake_with(Handshake::Probe, Duration::from_secs(3)).await;
        assert_eq!(methods[..2], ["server/discover", "initialize"]);
        let texts: Vec<_> = log.entries().into_iter().map(|e| e.text).collect();
        assert!(
            texts.contains(&"[era probe] 31 validation errors for ClientRequest".to_string()),
            "{texts:?}"
        );
        assert!(
            texts
                .iter()
                .any(|t| t.contains("did not answer") && t.contains("not a fault")),
            "{texts:?}"
        );
    }

    #[tokio::test]
    async fn a_remembered_legacy_server_is_not_probed() {
        let (log, methods) = handshake_with(Handshake::Legacy, Duration::from_secs(3)).await;
        assert_eq!(methods, ["initialize", "notifications/initialized"]);
        assert!(log.entries().is_empty(), "{:?}", log.entries());
    }

    #[test]
    fn eras_map_to_handshakes() {
        assert_eq!(Era::Legacy.handshake(), Handshake::Legacy);
        assert_eq!(Era::Modern.handshake(), Handshake::Probe);
        assert_eq!(Handshake::default(), Handshake::Probe);
    }
}
