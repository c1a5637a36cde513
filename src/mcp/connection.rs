//! One live session with one server: spawning or dialling it, the protocol era rmcp
//! negotiated, and a timeout around every request.

use crate::sync::Locked;
use std::collections::HashMap;
use std::time::Duration;

use rmcp::model::{ProtocolVersion, ServerPeerInfo};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, Peer, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde::Serialize;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

use super::client::ClientState;
use super::era;
use super::error::McpError;
use super::group::ProcessGroup;
use super::http::LimitedClient;
use super::limit::MessageLimit;
use super::log::{LogSource, ServerLog};
use super::spec::{ServerSpec, Transport, TransportSpec};
use super::sse::{SseTransport, error_chain};

/// Knobs shared by every connection of one run.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// Limit for connecting and for each request.
    pub timeout: Duration,
    /// Log lines (stderr, notifications) kept per server.
    pub log_lines: usize,
    /// The largest reply accepted on any transport (`--max-message-mib`).
    pub max_message: MessageLimit,
    /// The front end follows resource updates (the browser, `watch`): a server that
    /// declares them only after `initialize` is greeted that way (see
    /// [`Connection::connect`]).
    pub follow_updates: bool,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            log_lines: super::log::DEFAULT_LOG_LINES,
            max_message: MessageLimit::default(),
            follow_updates: false,
        }
    }
}

/// The longest wait for the `initialize` tried for updates a 2026-07-28 session does not
/// declare (see [`Connection::connect`]).
const LEGACY_TRY: Duration = Duration::from_secs(5);

/// The `resources` capability's `listChanged` and `subscribe`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ResourceNotices {
    pub list_changed: bool,
    pub subscribe: bool,
}

/// What the server told us about itself during the handshake (or discovery).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerSummary {
    pub protocol_version: String,
    pub server_name: Option<String>,
    pub server_title: Option<String>,
    pub server_version: Option<String>,
    pub instructions: Option<String>,
    /// The capabilities object exactly as negotiated.
    pub capabilities: serde_json::Value,
}

/// A connected server. Dropping it ends the session and kills a stdio server's whole
/// process group, so no server outlives mcpick.
pub struct Connection {
    name: String,
    transport: Transport,
    service: RunningService<RoleClient, ClientState>,
    log: ServerLog,
    timeout: Duration,
    /// The definition's secret values, scrubbed from every error this connection reports.
    secrets: crate::redact::Secrets,
    events: tokio::sync::broadcast::Sender<super::events::ServerEvent>,
    /// Streamable HTTP: the server's last 401 challenge and what to give `mcpick login`, so
    /// a sign-in revoked mid-session reads as "needs login".
    sign_in: Option<(super::http::Challenge, String)>,
    /// Taken (and so killed) by [`Connection::end`] or when the connection drops.
    group: std::sync::Mutex<Option<ProcessGroup>>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("name", &self.name)
            .field("transport", &self.transport)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// Starts or dials the server and runs the handshake: the modern era's `server/discover`
    /// first, the legacy `initialize` when the server turns out to be legacy (rmcp decides),
    /// or `initialize` at once when the server was legacy last time (see [`era`]).
    /// `log` receives the server's stderr and notifications from the first moment on.
    ///
    /// Errors never hold the definition's secrets: the target is masked
    /// ([`TransportSpec::target`]) and every secret value is scrubbed from the reasons
    /// (reqwest and rmcp quote the URL they failed on).
    pub async fn connect(
        spec: &ServerSpec,
        options: &ConnectOptions,
        log: ServerLog,
    ) -> Result<Connection, McpError> {
        let mut secrets = spec.transport.secrets();
        // Stored OAuth tokens are scrubbed like the definition's own secrets.
        if let TransportSpec::Http { url, .. } = &spec.transport
            && let Some(store) = super::oauth::TokenStore::for_url(url)
        {
            for token in store.secrets() {
                secrets.add_value(&token);
            }
        }
        match Self::connect_remembering(spec, options, log).await {
            Ok(connection) => Ok(Connection {
                secrets,
                ..connection
            }),
            Err(error) => Err(error.scrubbed(&secrets)),
        }
    }

    /// Connects with the handshake remembered for this server, probing again when it no
    /// longer works, and remembers the era it spoke.
    async fn connect_remembering(
        spec: &ServerSpec,
        options: &ConnectOptions,
        log: ServerLog,
    ) -> Result<Connection, McpError> {
        let remembered = era::recall(&spec.transport);
        let handshake = remembered.map(era::Era::handshake).unwrap_or_default();
        let started = std::time::Instant::now();
        let mut result = Self::connect_with(spec, options, log.clone(), handshake).await;
        // The remembered era no longer works (the server changed): probe again. Never after
        // a failed start; for a legacy server not after a timeout either (it hangs either
        // way), but a modern one that times out may have become a legacy server that stays
        // silent on `server/discover` (FastMCP 1.x), which only the probe's fallback reaches.
        let failed = matches!(result, Err(McpError::Connect { .. }));
        let probe_again = match handshake {
            era::Handshake::Probe => false,
            era::Handshake::Legacy => failed && started.elapsed() < options.timeout,
            era::Handshake::Discover => failed,
        };
        if probe_again {
            let remembered = match handshake {
                era::Handshake::Legacy => "legacy",
                _ => "2026-07-28",
            };
            log.push(
                LogSource::Client,
                &format!(
                    "era: the {remembered} handshake remembered for this server failed; \
                     probing again"
                ),
            );
            result = Self::connect_with(spec, options, log.clone(), era::Handshake::Probe).await;
        }
        if options.follow_updates
            && let Ok(modern) = result
        {
            result = Ok(
                if modern.declares_no_updates() && !era::updates_tried(&spec.transport) {
                    let kept = Self::prefer_legacy_updates(spec, options, log, modern).await;
                    if kept.is_modern() {
                        era::remember_updates_tried(&spec.transport);
                    }
                    kept
                } else {
                    modern
                },
            );
        }
        if let Ok(connection) = &result {
            let spoke = if connection.is_modern() {
                era::Era::Modern
            } else {
                era::Era::Legacy
            };
            let protocol = connection.summary().protocol_version;
            if !protocol.is_empty() {
                era::remember(&spec.transport, spoke, &protocol);
            }
        }
        result
    }

    /// Opens the session `spec` names over its transport and wraps it as a connection; a
    /// server that answered the probe as modern only after the fallback (slow to start) and
    /// then refused `initialize` is opened again with `server/discover` alone.
    async fn connect_with(
        spec: &ServerSpec,
        options: &ConnectOptions,
        log: ServerLog,
        start_with: era::Handshake,
    ) -> Result<Connection, McpError> {
        let late_answer = era::LateAnswer::default();
        let result = Self::open(spec, options, log.clone(), start_with, late_answer.clone()).await;
        if result.is_err() && late_answer.seen() {
            log.push(
                LogSource::Note,
                "era: the server answered mcpick's `server/discover` probe (the 2026-07-28 \
                 handshake) only after the fallback to `initialize` had gone out (it was slow \
                 to start), and the fallback failed; connecting again with `server/discover` \
                 alone",
            );
            let again = era::LateAnswer::default();
            return Self::open(spec, options, log, era::Handshake::Discover, again).await;
        }
        result
    }

    /// One attempt at [`Connection::connect_with`].
    async fn open(
        spec: &ServerSpec,
        options: &ConnectOptions,
        log: ServerLog,
        start_with: era::Handshake,
        late_answer: era::LateAnswer,
    ) -> Result<Connection, McpError> {
        let events = super::events::channel();
        let state = ClientState {
            log: log.clone(),
            handshake: start_with,
            events: events.clone(),
            late_answer,
        };
        let opened = match &spec.transport {
            TransportSpec::Stdio { .. } => open_stdio(spec, options, state, &log).await?,
            TransportSpec::Http { url, headers } => {
                open_http(spec, url, headers, options, state, &log).await?
            }
            TransportSpec::Sse { url, headers } => {
                let (wire_url, headers) = super::spec::http_wire(url, headers);
                let headers = header_map(&headers)?;
                let service = connect_sse(
                    state,
                    &wire_url,
                    headers,
                    options.timeout,
                    options.max_message,
                    log.clone(),
                )
                .await
                .map_err(|reason| McpError::Connect {
                    target: url.clone(),
                    reason,
                })?;
                Opened::over(service, Transport::Sse)
            }
        };
        Ok(Connection {
            name: spec.name.clone(),
            transport: opened.transport,
            service: opened.service,
            log,
            timeout: options.timeout,
            secrets: Default::default(),
            events,
            sign_in: opened.sign_in,
            group: std::sync::Mutex::new(opened.group),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// A 2026-07-28 session with a server that publishes resources but declares no resource
    /// updates (`resources.subscribe`) in this era. SDKs that speak both eras (the Python
    /// SDK 2.x) derive the modern `subscribe` from `subscriptions/listen`, so a server
    /// written against the legacy API (`resources/subscribe` only) declares it, and sends
    /// updates, after `initialize` alone. (Their `server/discover` lists only 2026 versions,
    /// so only trying `initialize` tells.)
    fn declares_no_updates(&self) -> bool {
        self.is_modern() && self.has_resources() && !self.resource_capabilities().subscribe
    }

    /// Prefers what delivers updates: for a server that answers both handshakes but declares
    /// `resources.subscribe` only after `initialize` (see
    /// [`Connection::declares_no_updates`]), connects again with `initialize` and
    /// keeps that session when it does declare `subscribe`, so subscriptions (the contents
    /// pane's, `watch --uri`) reach a server that would never tick through
    /// `subscriptions/listen`. Otherwise the 2026-07-28 session stays. Only for front ends
    /// that follow updates ([`ConnectOptions::follow_updates`]); one extra start, the first
    /// time only: the outcome is remembered with the era.
    ///
    /// A session that declares `subscribe` in both eras keeps the 2026-07-28 one: mcpick
    /// cannot tell from outside that such a server would not deliver through listen, and
    /// subscribing through both would cost a second server process for every stdio server.
    async fn prefer_legacy_updates(
        spec: &ServerSpec,
        options: &ConnectOptions,
        log: ServerLog,
        modern: Connection,
    ) -> Connection {
        // The 2026-07-28 session stays up until the legacy one proved better, so a failed
        // attempt costs nothing but the attempt, and a server that does not answer
        // `initialize` at all costs at most a few seconds.
        let trying = ConnectOptions {
            timeout: options.timeout.min(LEGACY_TRY),
            ..options.clone()
        };
        match Self::connect_with(spec, &trying, log.clone(), era::Handshake::Legacy).await {
            Ok(mut legacy) if legacy.resource_capabilities().subscribe => {
                // Its requests get the run's limit, not the try's.
                legacy.timeout = options.timeout;
                modern.end();
                log.push(
                    LogSource::Note,
                    "era: the server declares resource updates (`resources.subscribe`) only \
                     after `initialize`, not in the 2026-07-28 handshake, so mcpick uses \
                     `initialize` for it and subscriptions reach it. The era is remembered.",
                );
                legacy
            }
            Ok(legacy) => {
                legacy.end();
                modern
            }
            Err(_) => modern,
        }
    }

    /// `stdio`, `http` (Streamable HTTP) or `sse` (legacy HTTP+SSE, detected or configured).
    pub fn transport(&self) -> &'static str {
        self.transport.name()
    }

    /// How it is carried: decides how it is followed and retried.
    pub fn kind(&self) -> Transport {
        self.transport
    }

    pub fn log(&self) -> &ServerLog {
        &self.log
    }

    fn info(&self) -> Option<std::sync::Arc<ServerPeerInfo>> {
        self.service.peer().peer_info()
    }

    /// The negotiated protocol version, the server's identity and its capabilities.
    pub fn summary(&self) -> ServerSummary {
        let Some(info) = self.info() else {
            return ServerSummary {
                protocol_version: String::new(),
                server_name: None,
                server_title: None,
                server_version: None,
                instructions: None,
                capabilities: serde_json::Value::Null,
            };
        };
        let server = info.server_info.as_ref();
        ServerSummary {
            protocol_version: info.protocol_version.to_string(),
            server_name: server.map(|s| crate::sanitize::line(&s.name, 200)),
            server_title: server
                .and_then(|s| s.title.as_deref())
                .map(|t| crate::sanitize::line(t, 200)),
            server_version: server.map(|s| crate::sanitize::line(&s.version, 100)),
            instructions: info.instructions.as_deref().map(crate::sanitize::text),
            capabilities: serde_json::to_value(&info.capabilities).unwrap_or_default(),
        }
    }

    /// True when the session speaks the stateless 2026-07-28 (or later) protocol.
    pub fn is_modern(&self) -> bool {
        self.info()
            .is_some_and(|i| i.protocol_version >= ProtocolVersion::NO_INITIALIZE)
    }

    /// Whether the server advertised the `resources` capability. A server without it simply
    /// has no resources; mcpick never sends it `resources/*` requests.
    pub fn has_resources(&self) -> bool {
        self.info()
            .is_some_and(|i| i.capabilities.resources.is_some())
    }

    /// What the server announced it reports about its resources.
    pub fn resource_capabilities(&self) -> ResourceNotices {
        let caps = self.info().and_then(|i| i.capabilities.resources.clone());
        ResourceNotices {
            list_changed: caps.as_ref().and_then(|c| c.list_changed) == Some(true),
            subscribe: caps.as_ref().and_then(|c| c.subscribe) == Some(true),
        }
    }

    /// Ends the session now, whoever still holds this connection (a read waiting on a
    /// subscription, a count in flight): a stdio server's process group is killed and the
    /// session stops; their requests fail as closed. Replacing a server's connection (`R`)
    /// ends the old one this way, so its process never runs beside the new one.
    pub fn end(&self) {
        drop(self.group.locked().take());
        self.service.cancellation_token().cancel();
    }

    /// True once the server's side is gone: the process exited or the stream ended.
    pub fn is_closed(&self) -> bool {
        self.peer().is_transport_closed()
    }

    pub(crate) fn event_sender(
        &self,
    ) -> &tokio::sync::broadcast::Sender<super::events::ServerEvent> {
        &self.events
    }

    pub(crate) fn peer(&self) -> &Peer<RoleClient> {
        self.service.peer()
    }

    /// Runs one request under the connection's timeout. Dropping rmcp's request future on
    /// timeout sends `notifications/cancelled` for it.
    pub(crate) async fn request<T>(
        &self,
        method: &'static str,
        future: impl Future<Output = Result<T, rmcp::service::ServiceError>>,
    ) -> Result<T, McpError> {
        match tokio::time::timeout(self.timeout, future).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => {
                let wider = self.sign_in.as_ref().and_then(|(c, _)| c.wider_scope());
                let error = match (&self.sign_in, wider) {
                    (Some((_, login)), Some(scope)) => McpError::NeedsScope {
                        method,
                        login: login.clone(),
                        scope,
                    },
                    (Some((challenge, login)), None) if challenge.wants_oauth() => {
                        McpError::NeedsLogin {
                            login: login.clone(),
                        }
                    }
                    _ => McpError::from_service(method, error).scrubbed(&self.secrets),
                };
                if error.is_optional_missing() {
                    // Not offering an optional method is no fault: a note, not "last error".
                    let note = format!("the server does not offer {method} (it answered -32601)");
                    self.log.push(LogSource::Note, &note);
                } else {
                    self.log.push(LogSource::Client, &error.to_string());
                }
                Err(error)
            }
            Err(_) => {
                let error = McpError::Timeout {
                    method,
                    after: self.timeout,
                };
                self.log.push(LogSource::Client, &error.to_string());
                Err(error)
            }
        }
    }

    /// The error text for a person: the error, plus the server's last stderr lines when the
    /// connection died or hung (that is usually where the reason is).
    /// The server's stderr is scrubbed of the definition's secrets too.
    pub fn explain(&self, error: &McpError) -> String {
        let text = match error {
            McpError::Closed { .. } | McpError::Timeout { .. } | McpError::Transport { .. } => {
                with_stderr_tail(error.to_string(), &self.log)
            }
            _ => error.to_string(),
        };
        self.secrets.scrub(&text)
    }

    /// [`Connection::explain`] for an error that may mean the server went away: a stdio
    /// server's last stderr lines are let in first (at most [`STDERR_DRAIN`]), since the
    /// pipe often still holds them when the closed connection is noticed.
    pub async fn explain_gone(&self, error: &McpError) -> String {
        let gone = matches!(error, McpError::Closed { .. } | McpError::Transport { .. });
        if gone && self.transport == Transport::Stdio {
            self.log.stderr_ended(STDERR_DRAIN).await;
        }
        self.explain(error)
    }

    /// Ends the session politely (closing stdin, then signals), waiting at most a second.
    pub async fn close(self) {
        let Connection { service, .. } = self;
        let _ = tokio::time::timeout(Duration::from_secs(1), service.cancel()).await;
    }
}

/// A session opened over one transport, before it is a [`Connection`].
struct Opened {
    service: RunningService<RoleClient, ClientState>,
    transport: Transport,
    /// A stdio server's process group, killed with the connection.
    group: Option<ProcessGroup>,
    /// Streamable HTTP: the server's sign-in challenge to watch, and what `mcpick login` needs.
    sign_in: Option<(super::http::Challenge, String)>,
}

impl Opened {
    fn over(service: RunningService<RoleClient, ClientState>, transport: Transport) -> Opened {
        Opened {
            service,
            transport,
            group: None,
            sign_in: None,
        }
    }
}

/// Starts a stdio server in a process group of its own (killed with mcpick) and shakes
/// hands; a failure quotes the last lines it wrote on stderr.
async fn open_stdio(
    spec: &ServerSpec,
    options: &ConnectOptions,
    state: ClientState,
    log: &ServerLog,
) -> Result<Opened, McpError> {
    let TransportSpec::Stdio {
        command,
        args,
        env,
        cwd,
    } = &spec.transport
    else {
        unreachable!("open_stdio is given a stdio definition");
    };
    let mut cmd = tokio::process::Command::new(command);
    cmd.args(args).envs(env);
    if let Some(cwd) = cwd {
        // Else the OS reports a missing cwd as the command not found.
        if let Some(reason) = missing_cwd(cwd) {
            return Err(McpError::Spawn {
                command: spec.transport.target(),
                reason,
            });
        }
        cmd.current_dir(cwd);
    }
    super::reaper::parent_death_signal(&mut cmd);
    let mut wrap = process_wrap::tokio::CommandWrap::from(cmd);
    wrap.wrap(process_wrap::tokio::ProcessGroup::leader())
        .wrap(process_wrap::tokio::KillOnDrop);
    let (limit, spawn_log) = (options.max_message, log.clone());
    let ((child, stderr), group) = ProcessGroup::spawn(move || {
        let (child, stderr) = super::stdio::spawn(wrap, limit, spawn_log)?;
        let pid = child.id();
        Ok(((child, stderr), pid))
    })
    .await
    .map_err(|e| McpError::Spawn {
        command: spec.transport.target(),
        reason: e.to_string(),
    })?;
    let mut captured = stderr.map(|stderr| capture_stderr(stderr, log.clone()));
    match handshake(state, child, options.timeout).await {
        Ok(service) => Ok(Opened {
            group,
            ..Opened::over(service, Transport::Stdio)
        }),
        Err(reason) => {
            // A server that failed to start usually said why on stderr as it exited: let
            // those lines in before they are quoted.
            if let Some(captured) = &mut captured {
                let _ = tokio::time::timeout(STDERR_DRAIN, captured).await;
            }
            Err(McpError::Connect {
                target: spec.transport.target(),
                reason: with_stderr_tail(reason, log),
            })
        }
    }
}

/// Connects over Streamable HTTP (with a stored sign-in unless the definition has its own
/// Authorization header), else over the legacy HTTP+SSE transport; a server asking for a
/// sign-in is [`McpError::NeedsLogin`].
async fn open_http(
    spec: &ServerSpec,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    options: &ConnectOptions,
    state: ClientState,
    log: &ServerLog,
) -> Result<Opened, McpError> {
    let (timeout, limit) = (options.timeout, options.max_message);
    // The userinfo goes as one Authorization header (see `http_wire`); `url` stays the
    // definition's, for sign-in and messages.
    let (wire_url, headers) = super::spec::http_wire(url, headers);
    let headers = header_map(&headers)?;
    // A definition with its own Authorization header keeps it; else a stored sign-in is used
    // (see [`super::oauth`]).
    let sign_in = if headers.contains_key(reqwest::header::AUTHORIZATION) {
        None
    } else {
        super::oauth::stored_sign_in(url)
            .await
            .map_err(|reason| McpError::Connect {
                target: url.to_string(),
                reason,
            })?
    };
    let signed_in = sign_in.is_some();
    let (result, challenge) = connect_streamable(
        state.clone(),
        &wire_url,
        &headers,
        timeout,
        limit,
        sign_in.map(|(manager, _)| manager),
    )
    .await;
    if result.is_err() && (challenge.wants_oauth() || (signed_in && challenge.seen())) {
        if let Some(store) = super::oauth::TokenStore::for_url(url) {
            store.mark_needs_login();
        }
        return Err(McpError::NeedsLogin {
            login: login_argument(&spec.name, url),
        });
    }
    match result {
        Ok(service) => Ok(Opened {
            sign_in: Some((challenge, login_argument(&spec.name, url))),
            ..Opened::over(service, Transport::Http)
        }),
        Err(http_error) => {
            match connect_sse(state, &wire_url, headers, timeout, limit, log.clone()).await {
                Ok(service) => Ok(Opened::over(service, Transport::Sse)),
                Err(sse_error) => Err(McpError::Connect {
                    target: url.to_string(),
                    reason: format!("Streamable HTTP: {http_error}; legacy HTTP+SSE: {sse_error}"),
                }),
            }
        }
    }
}

/// Why a configured `cwd` cannot be used, if it cannot.
fn missing_cwd(cwd: &std::path::Path) -> Option<String> {
    let shown = crate::sanitize::line(&cwd.display().to_string(), 500);
    match std::fs::metadata(cwd) {
        Ok(meta) if meta.is_dir() => None,
        Ok(_) => Some(format!(
            "its working directory (cwd) `{shown}` is not a directory"
        )),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(format!(
            "its working directory (cwd) `{shown}` does not exist"
        )),
        Err(e) => Some(format!(
            "its working directory (cwd) `{shown}` cannot be used: {e}"
        )),
    }
}

fn lifecycle(handshake: era::Handshake) -> ClientLifecycleMode {
    match handshake {
        era::Handshake::Probe => ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        },
        // Offers the version in `ClientState::get_info`: 2025-11-25, as `Auto` does.
        era::Handshake::Legacy => ClientLifecycleMode::Initialize,
        era::Handshake::Discover => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    }
}

pub(super) async fn handshake<T, E, A>(
    state: ClientState,
    transport: T,
    timeout: Duration,
) -> Result<RunningService<RoleClient, ClientState>, String>
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let mode = lifecycle(state.handshake);
    let probing = state.handshake == era::Handshake::Probe;
    let (transport, probe) = era::ProbeWatch::new(
        transport.into_transport(),
        state.log.clone(),
        state.late_answer.clone(),
    );
    let serve = state.serve_with_lifecycle(transport, mode);
    tokio::pin!(serve);
    // The limit is the server's to answer in; rmcp's fixed probe wait is not counted in it
    // (and there is none without the probe).
    let started = tokio::time::Instant::now();
    let mut deadline = started + timeout;
    let result = loop {
        tokio::select! {
            result = &mut serve => break Some(result),
            _ = tokio::time::sleep_until(deadline) => match probe.deadline(timeout) {
                Some(later) if probing && later > deadline => deadline = later,
                _ => break None,
            },
        }
    };
    // Before any error is built from the stderr tail: the probe's noise is marked as such.
    probe.explain();
    match result {
        Some(Ok(service)) => Ok(service),
        Some(Err(e)) if went_away(&e) => Err(WENT_AWAY.into()),
        Some(Err(e)) => Err(tidy(&crate::sanitize::line(&error_chain(&e), 2000))),
        None => {
            let secs = started.elapsed().as_secs_f32();
            let secs = if secs >= 2.0 {
                format!("{secs:.0}")
            } else {
                format!("{secs:.1}")
            };
            Err(format!("no answer to the handshake within {secs}s"))
        }
    }
}

/// What a handshake the server walked out of says.
const WENT_AWAY: &str = "the server closed the connection during the handshake (did it exit?)";

/// Whether the server went away during the handshake: rmcp saw the connection close, or a
/// write met a broken pipe. Decided on rmcp's and the OS's error kinds, never their words.
fn went_away(error: &rmcp::service::ClientInitializeError) -> bool {
    use rmcp::service::ClientInitializeError as E;
    match error {
        E::ConnectionClosed(_) => true,
        E::TransportError { error, .. } => {
            let mut next: Option<&(dyn std::error::Error + 'static)> = Some(error);
            while let Some(e) = next {
                if e.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
                {
                    return true;
                }
                next = e.source();
            }
            false
        }
        _ => false,
    }
}

/// Makes rmcp's handshake errors readable: drops Rust type names (`Transport [rmcp::…]`).
fn tidy(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(start) = rest.find(" [") {
        let Some(len) = rest[start..].find(']') else {
            break;
        };
        let inside = &rest[start + 2..start + len];
        out.push_str(&rest[..start]);
        if !inside.contains("::") {
            out.push_str(&rest[start..start + len + 1]);
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// What `mcpick login` needs to find this server: its name, or `--url URL` for an ad-hoc
/// server (whose name is the URL's host).
fn login_argument(name: &str, url: &str) -> String {
    let host = url::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string));
    if host.as_deref() == Some(name) {
        format!("--url {}", crate::redact::url(url))
    } else {
        name.to_string()
    }
}

fn http_client() -> Result<reqwest::Client, McpError> {
    super::http::client().map_err(|e| McpError::Connect {
        target: "HTTP".into(),
        reason: error_chain(&e),
    })
}

/// Connects over Streamable HTTP, signed in through rmcp's `AuthClient` when `sign_in` is
/// given (it sends the token, refreshes it before expiry and once on a 401). Also returns
/// the server's 401 challenge, if it sent one.
async fn connect_streamable(
    state: ClientState,
    url: &str,
    headers: &reqwest::header::HeaderMap,
    timeout: Duration,
    limit: MessageLimit,
    sign_in: Option<rmcp::transport::auth::AuthorizationManager>,
) -> (
    Result<RunningService<RoleClient, ClientState>, String>,
    super::http::Challenge,
) {
    let client = match http_client() {
        Ok(client) => LimitedClient::new(client, limit),
        Err(e) => return (Err(e.to_string()), Default::default()),
    };
    let challenge = client.challenge();
    let custom: HashMap<_, _> = headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let config = StreamableHttpClientTransportConfig::with_uri(url).custom_headers(custom);
    let result = match sign_in {
        Some(manager) => {
            let client = rmcp::transport::auth::AuthClient::new(client, manager);
            let transport = StreamableHttpClientTransport::with_client(client, config);
            handshake(state, transport, timeout).await
        }
        None => {
            let transport = StreamableHttpClientTransport::with_client(client, config);
            handshake(state, transport, timeout).await
        }
    };
    (result, challenge)
}

async fn connect_sse(
    state: ClientState,
    url: &str,
    headers: reqwest::header::HeaderMap,
    timeout: Duration,
    limit: MessageLimit,
    log: ServerLog,
) -> Result<RunningService<RoleClient, ClientState>, String> {
    let client = http_client().map_err(|e| e.to_string())?;
    let transport = SseTransport::connect(client, url, headers, timeout, limit, log).await?;
    handshake(state, transport, timeout).await
}

fn header_map(
    headers: &std::collections::BTreeMap<String, String>,
) -> Result<reqwest::header::HeaderMap, McpError> {
    let mut map = reqwest::header::HeaderMap::new();
    for (name, value) in headers {
        let bad = |what: &str| McpError::Connect {
            target: "HTTP".into(),
            reason: format!("header `{name}` has an invalid {what}"),
        };
        let name =
            reqwest::header::HeaderName::from_bytes(name.as_bytes()).map_err(|_| bad("name"))?;
        let value = reqwest::header::HeaderValue::from_str(value).map_err(|_| bad("value"))?;
        map.insert(name, value);
    }
    Ok(map)
}

/// Reads the server's stderr line by line into its log, so it never reaches the terminal.
/// How long a failed start waits for the rest of the server's stderr (it has usually exited).
const STDERR_DRAIN: Duration = Duration::from_millis(500);

/// Copies the server's stderr into its log, line by line; the task ends at its end.
fn capture_stderr(
    stderr: tokio::process::ChildStderr,
    log: ServerLog,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            // A line is capped so a server printing megabytes without a newline costs little.
            match (&mut reader)
                .take(64 * 1024)
                .read_until(b'\n', &mut buf)
                .await
            {
                Ok(0) | Err(_) => break,
                Ok(_) => log.push(LogSource::Stderr, &String::from_utf8_lossy(&buf)),
            }
        }
        log.end_stderr();
    })
}

/// `reason`, with the server's last stderr lines, led by the line among the last
/// [`ERROR_LINE_SEARCH`] that states the error (a Node stack's tail is only frames: the
/// `Error: …` line is above them).
fn with_stderr_tail(reason: String, log: &ServerLog) -> String {
    let tail = log.tail(LogSource::Stderr, 5);
    if tail.is_empty() {
        return reason;
    }
    let tail = tail.join("\n    ");
    match log.error_line(ERROR_LINE_SEARCH) {
        Some(error) => {
            format!("{reason}\n  server error: {error}\n  server stderr (last lines):\n    {tail}")
        }
        None => format!("{reason}\n  server stderr (last lines):\n    {tail}"),
    }
}

/// Stderr lines searched for the one that states the error: a deep stack trace fits.
const ERROR_LINE_SEARCH: usize = 60;

#[cfg(test)]
mod tests {
    use super::login_argument;
    use super::{LogSource, ServerLog, with_stderr_tail};

    #[test]
    fn a_stack_trace_is_quoted_by_its_error_line_first() {
        let log = ServerLog::new(100);
        for line in [
            "/srv/index.js:3",
            "    throw new Error('DATABASE_URL is not set');",
            "Error: DATABASE_URL is not set",
            "    at Object.<anonymous> (/srv/index.js:3:11)",
            "    at Module._compile (node:internal/modules/cjs/loader:1554:14)",
            "    at Module.load (node:internal/modules/cjs/loader:1289:32)",
            "",
            "Node.js v22.14.0",
        ] {
            log.push(LogSource::Stderr, line);
        }
        let text = with_stderr_tail("it exited".into(), &log);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("it exited"));
        assert_eq!(
            lines.next(),
            Some("  server error: Error: DATABASE_URL is not set"),
            "{text}"
        );
        assert!(
            text.ends_with("Node.js v22.14.0"),
            "the tail as before: {text}"
        );

        let plain = ServerLog::new(10);
        plain.push(LogSource::Stderr, "listening failed");
        assert_eq!(
            with_stderr_tail("it exited".into(), &plain),
            "it exited\n  server stderr (last lines):\n    listening failed"
        );
    }

    #[test]
    fn login_names_a_defined_server_and_an_ad_hoc_one_by_url() {
        assert_eq!(
            login_argument("docs", "https://docs.example.com/mcp"),
            "docs"
        );
        assert_eq!(
            login_argument(
                "docs.example.com",
                "https://docs.example.com/mcp?key=SECRET1"
            ),
            "--url https://docs.example.com/mcp?key=***"
        );
    }
}
