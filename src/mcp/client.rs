//! mcpick's side of the MCP session: who we say we are, and where server notifications go.
#![allow(deprecated)] // `notifications/message` is deprecated (SEP-2577), yet legacy servers send it.

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, LoggingMessageNotificationParam,
    ProtocolVersion, ResourceUpdatedNotificationParam,
};
use rmcp::service::{NotificationContext, RoleClient};

use super::events::ServerEvent;
use super::log::{LogSource, ServerLog};

/// The client handler rmcp drives. mcpick asks for no client features (no sampling, roots or
/// elicitation), so rmcp answers such server requests with "method not found" for us.
#[derive(Debug, Clone)]
pub(crate) struct ClientState {
    pub(crate) log: ServerLog,
    /// Which handshake to start with (the era remembered for this server).
    pub(crate) handshake: super::era::Handshake,
    /// Where legacy-era change notifications go (see [`super::events`]).
    pub(crate) events: tokio::sync::broadcast::Sender<ServerEvent>,
    /// Noted when the server answers the probe too late (see [`super::era::LateAnswer`]).
    pub(crate) late_answer: super::era::LateAnswer,
}

impl ClientHandler for ClientState {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("mcpick", env!("CARGO_PKG_VERSION")).with_title("mcpick"),
        )
        // Only a plain `initialize` handshake (a server remembered as legacy) offers this;
        // the probing handshake sets its versions itself.
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let data = match &params.data {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let text = match &params.logger {
            Some(logger) => format!("[{level}] {logger}: {data}"),
            None => format!("[{level}] {data}"),
        };
        self.log.push(LogSource::Notification, &text);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.log.push(
            LogSource::Notification,
            "notifications/resources/list_changed",
        );
        let _ = self.events.send(ServerEvent::ListChanged);
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.log.push(
            LogSource::Notification,
            &format!("notifications/resources/updated {}", params.uri),
        );
        let _ = self.events.send(ServerEvent::Updated(params.uri));
    }
}
