//! The MCP side of `serve`: one handler per client connection (stdio) or session (HTTP).
//! rmcp speaks both eras; this file answers with what the [`Engine`] publishes and nothing
//! else. A read of anything unpublished is "not found" (`-32002` to legacy clients, `-32602`
//! to 2026-07-28 ones: rmcp maps the code) and never reaches an upstream.

use crate::sync::Locked;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use futures::StreamExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CustomRequest,
    CustomResult, DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, InitializeRequestParams, InitializeResult, JsonObject, ListPromptsResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, Prompt, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    ResourceUpdatedNotificationParam, Role, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, Tool, ToolAnnotations, UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use super::engine::Engine;
use super::exposed::Served;
use crate::context::agent_text;
use crate::mcp::ReadOutcome;

/// The name of the prompt and of the tool that hand out the whole set.
pub const CONTEXT: &str = "context";

/// Resources per `resources/list` page.
const PAGE_SIZE: usize = 500;

/// Reads at once when the prompt or the tool gathers the set.
const BUNDLE_JOBS: usize = 8;

/// How `serve` presents itself.
#[derive(Debug, Clone)]
pub struct Presentation {
    /// The server name hosts show (`--name`).
    pub name: String,
    /// Whether the `context` tool is offered (`--no-tool` turns it off).
    pub tool: bool,
    /// The set's servers held back for the person's approval: published without them, and
    /// said to every client ([`awaiting_text`]).
    pub awaiting: Vec<Awaiting>,
}

/// A server of the set that `serve` did not start because the person has not approved what
/// it runs (or a file it runs changed since): its name and the folder to approve it in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Awaiting {
    pub name: String,
    pub project: std::path::PathBuf,
}

/// What hosts, models and people are told when servers of the set wait for approval: an
/// empty set looks connected and complete in a host's server list, and nothing else would
/// say why the resources are missing or what to run. `None` when none waits.
pub fn awaiting_text(awaiting: &[Awaiting]) -> Option<String> {
    if awaiting.is_empty() {
        return None;
    }
    let names: Vec<String> = awaiting
        .iter()
        .map(|a| format!("`{}`", crate::sanitize::line(&a.name, 200)))
        .collect();
    let mut folders: Vec<String> = awaiting
        .iter()
        .map(|a| crate::sanitize::whole_line(&a.project.display().to_string()))
        .collect();
    folders.dedup();
    Some(format!(
        "Not approved yet: {} of this context set {} not started, because the person has not approved what {} (`mcpick trust`), so {} resources are missing from what this server publishes. The person should run `mcpick trust` in {} and then restart this server (reconnect it in the host).",
        names.join(", "),
        if awaiting.len() == 1 { "was" } else { "were" },
        if awaiting.len() == 1 {
            "it runs"
        } else {
            "they run"
        },
        if awaiting.len() == 1 { "its" } else { "their" },
        folders.join(", "),
    ))
}

/// The handler of one client.
#[derive(Clone)]
pub struct ServeHandler {
    engine: Arc<Engine>,
    presentation: Arc<Presentation>,
    /// Published URIs this (legacy) client subscribed to.
    subscribed: Arc<Mutex<HashSet<String>>>,
    /// The handshake was answered before the set was ready: the client is owed a
    /// `list_changed` even if the set became ready before it was listening.
    answered_early: Arc<AtomicBool>,
}

impl ServeHandler {
    pub fn new(engine: Arc<Engine>, presentation: Arc<Presentation>) -> Self {
        ServeHandler {
            engine,
            presentation,
            subscribed: Arc::default(),
            answered_early: Arc::default(),
        }
    }

    /// What is published, once the first resolution is ready.
    async fn served(&self) -> Arc<Served> {
        self.engine.ready().await;
        self.engine.current()
    }

    /// Reads the budgeted set from the upstreams, in order.
    async fn bundle(&self) -> (Arc<Served>, Vec<Result<Vec<ResourceContents>, String>>) {
        let served = self.served().await;
        let wanted: Vec<(String, String)> = served
            .range(0..served.bundle)
            .map(|r| (r.server().to_string(), r.upstream_uri().to_string()))
            .collect();
        let reads = futures::stream::iter(wanted.into_iter().map(|(server, uri)| {
            let engine = self.engine.clone();
            async move {
                match engine.read(&server, &uri).await {
                    Ok(ReadOutcome::Contents(contents)) => Ok(contents),
                    Ok(ReadOutcome::Empty) => Ok(Vec::new()),
                    Ok(ReadOutcome::NotFound(nf)) => Err(format!("not found: {}", nf.message)),
                    Err(e) => Err(e),
                }
            }
        }))
        .buffered(BUNDLE_JOBS)
        .collect()
        .await;
        (served, reads)
    }
}

/// The bundled set as one text, for the prompt and the tool: the instructions, then each
/// resource as `preview` shows it (its title, server and URI verbatim in code spans, its text in
/// a fence the text cannot close, so no resource can forge another's block).
fn bundle_text(
    served: &Served,
    reads: Vec<Result<Vec<ResourceContents>, String>>,
    presentation: &Presentation,
    tool: bool,
) -> String {
    let mut text = instructions(served, tool);
    if let Some(awaiting) = awaiting_text(&presentation.awaiting) {
        text.push_str("\n\n");
        text.push_str(&awaiting);
    }
    text.push('\n');
    for (n, (r, read)) in served.iter().zip(reads).enumerate() {
        let resource = r.resource();
        let name = resource.title.as_deref().unwrap_or(&resource.name);
        let (details, body) = match read {
            Ok(contents) => (
                if r.pinned() { "pinned" } else { "" }.to_string(),
                agent_text(&contents),
            ),
            Err(e) => (format!("could not be read: {e}"), String::new()),
        };
        text.push_str(&crate::export::resource_block(
            n + 1,
            name,
            r.server(),
            &resource.uri,
            &details,
            Some(&body),
        ));
    }
    text
}

/// The instructions before the first resolution: what is known, and that the list follows.
pub fn pending_instructions(upstreams: usize, failed: &[(String, String)], tool: bool) -> String {
    let mut text = format!(
        "This server publishes a context set chosen with mcpick, in the order it should be read (pinned resources have priority 1.0). Its servers ({upstreams}) are still connecting: the resource list, the prompt `{CONTEXT}`{} answer once they have (a list-changed notification follows).",
        if tool {
            format!(" and the tool `{CONTEXT}`")
        } else {
            String::new()
        }
    );
    if !failed.is_empty() {
        let names: Vec<&str> = failed.iter().map(|(n, _)| n.as_str()).collect();
        text.push_str(&format!(
            " Unavailable servers (their resources are missing): {}.",
            names.join(", ")
        ));
    }
    text
}

/// Claude Code keeps a server's `instructions` up to 4,096 characters (its changelog).
pub const INSTRUCTIONS_CAP: usize = 4_096;

/// `text` cut to [`INSTRUCTIONS_CAP`] characters, with `…` where it was cut: a long list of
/// server names must not push the end of the paragraph past what a host keeps.
pub fn within_instructions_cap(text: String) -> String {
    if text.chars().count() <= INSTRUCTIONS_CAP {
        return text;
    }
    let mut cut: String = text.chars().take(INSTRUCTIONS_CAP - 1).collect();
    cut.push('…');
    cut
}

/// One paragraph for hosts and models: what the set holds and how to get it.
pub fn instructions(served: &Served, tool: bool) -> String {
    let tokens = format!(
        "{}{}",
        if served.estimated { "~" } else { "" },
        served.tokens
    );
    let budget = match served.budget {
        Some(b) => format!(" of a {b}-token budget"),
        None => String::new(),
    };
    let mut text = format!(
        "This server publishes a context set chosen with mcpick: {} resources, {tokens} tokens{budget}, in the order they should be read (pinned ones have priority 1.0). Read them as resources, or get all of them at once with the prompt `{CONTEXT}`{}.",
        served.bundle,
        if tool {
            format!(" or the tool `{CONTEXT}`")
        } else {
            String::new()
        }
    );
    if served.len() > served.bundle {
        text.push_str(&format!(
            " {} more resources are listed that the set allows but does not include (over its budget, or not pinned while it has none).",
            served.len() - served.bundle
        ));
    }
    if served.missing > 0 {
        text.push_str(&format!(
            " {} marked resources are missing from their servers.",
            served.missing
        ));
    }
    if !served.unavailable.is_empty() {
        let names: Vec<&str> = served.unavailable.iter().map(|(n, _)| n.as_str()).collect();
        text.push_str(&format!(
            " Unavailable servers (their resources are missing): {}.",
            names.join(", ")
        ));
    }
    text
}

/// The capabilities with `logging` declared: a legacy client is sent one warning log message
/// when servers of the set wait for approval ([`awaiting_text`]). Logging is deprecated for
/// the 2026-07-28 era (SEP-2577), where the instructions and the prompt and tool text say it.
#[allow(deprecated)]
fn with_logging(mut capabilities: ServerCapabilities) -> ServerCapabilities {
    capabilities.logging = Some(JsonObject::default());
    capabilities
}

/// Sends `text` to a legacy client as a warning log message (`notifications/message`), the
/// channel hosts show their user for a server's own news.
#[allow(deprecated)]
async fn log_warning(
    peer: &rmcp::Peer<RoleServer>,
    text: String,
) -> Result<(), rmcp::service::ServiceError> {
    peer.notify_logging_message(
        rmcp::model::LoggingMessageNotificationParam::new(
            rmcp::model::LoggingLevel::Warning,
            serde_json::Value::String(text),
        )
        .with_logger("mcpick"),
    )
    .await
}

fn not_found(uri: &str) -> ErrorData {
    ErrorData::resource_not_found(
        format!("Resource not found: {uri}"),
        Some(json!({ "uri": uri })),
    )
}

const CURSOR_TAG: &str = "mcpick-serve:";

fn encode_cursor(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{CURSOR_TAG}{offset}"))
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    String::from_utf8(bytes)
        .ok()?
        .strip_prefix(CURSOR_TAG)?
        .parse()
        .ok()
}

/// One page of what is published.
pub fn page(served: &Served, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
    let offset = match cursor {
        None => 0,
        Some(c) => decode_cursor(c)
            .filter(|&o| o <= served.len())
            .ok_or_else(|| ErrorData::invalid_params("invalid cursor", None))?,
    };
    let end = (offset + PAGE_SIZE).min(served.len());
    let mut result = ListResourcesResult::with_all_items(
        served
            .range(offset..end)
            .map(|r| r.resource().into_owned())
            .collect(),
    );
    result.next_cursor = (end < served.len()).then(|| encode_cursor(end));
    result.ttl_ms = served.cache.ttl_ms;
    result.cache_scope = served.cache.scope;
    Ok(result)
}

impl ServerHandler for ServeHandler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .enable_prompts();
        let capabilities = if self.presentation.tool {
            capabilities.enable_tools().build()
        } else {
            capabilities.build()
        };
        let implementation =
            Implementation::new(&self.presentation.name, env!("CARGO_PKG_VERSION"))
                .with_title("mcpick context set");
        let mut text = if self.engine.is_ready() {
            instructions(&self.engine.current(), self.presentation.tool)
        } else {
            pending_instructions(
                self.engine.upstream_count,
                &self.engine.failed_early(),
                self.presentation.tool,
            )
        };
        if let Some(awaiting) = awaiting_text(&self.presentation.awaiting) {
            text.push(' ');
            text.push_str(&awaiting);
        }
        ServerConfig::new(with_logging(capabilities))
            .with_server_info(implementation)
            .with_instructions(within_instructions_cap(text))
    }

    /// Log levels are accepted (the one message `serve` logs is a warning a client asked
    /// for by connecting: servers that wait for approval). Logging is deprecated for the
    /// 2026-07-28 era, but legacy hosts still show it.
    #[allow(deprecated)]
    async fn set_level(
        &self,
        _request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        Ok(())
    }

    /// The legacy handshake: answered at once, whatever the upstreams do, so a host's
    /// connect timeout never depends on how slowly they start. Before the set is resolved
    /// the instructions say so, the requests that need the set wait for it, and the client
    /// is sent `list_changed` when it is.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        if !self.engine.is_ready() {
            self.answered_early.store(true, Ordering::SeqCst);
        }
        self.negotiate_initialize(&request)
    }

    /// The 2026-07-28 handshake, likewise at once.
    async fn discover(
        &self,
        _context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        Ok(DiscoverResult::from_server_info(
            self.supported_protocol_versions().into_owned(),
            self.get_info(),
        ))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        page(
            &*self.served().await,
            request.as_ref().and_then(|r| r.cursor.as_deref()),
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let served = self.served().await;
        let Some(exposed) = served.get(&request.uri) else {
            return Err(not_found(&request.uri));
        };
        match self
            .engine
            .read(exposed.server(), exposed.upstream_uri())
            .await
        {
            Ok(ReadOutcome::Contents(contents)) => Ok(ReadResourceResult::new(contents).into()),
            Ok(ReadOutcome::Empty) => Ok(ReadResourceResult::new(Vec::new()).into()),
            Ok(ReadOutcome::NotFound(_)) => Err(not_found(&request.uri)),
            Err(e) => Err(ErrorData::internal_error(
                format!("server `{}`: {e}", exposed.server()),
                None,
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut prompt = Prompt::new(
            CONTEXT,
            Some("The context set chosen with mcpick, as embedded resources in order"),
            None,
        );
        prompt.title = Some("mcpick context set".into());
        Ok(ListPromptsResult::with_all_items(vec![prompt]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != CONTEXT {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown prompt: {} (this server has `{CONTEXT}`)",
                    request.name
                ),
                None,
            ));
        }
        // One text message with the whole bundle: Gemini CLI keeps only a prompt's first text
        // message and drops embedded resources, Claude Code shows text whole.
        let (served, reads) = self.bundle().await;
        let text = bundle_text(&served, reads, &self.presentation, false);
        Ok(
            GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
                .with_description("The context set chosen with mcpick")
                .into(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if !self.presentation.tool {
            return Ok(ListToolsResult::with_all_items(Vec::new()));
        }
        let tool = Tool::new(
            CONTEXT,
            "Returns the project context chosen with mcpick: every resource of the set, in order, as text. Call it before working on the project.",
            JsonObject::from_iter([("type".to_string(), json!("object"))]),
        )
        .with_annotations(ToolAnnotations::new().read_only(true));
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.presentation.tool || request.name != CONTEXT {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        }
        let (served, reads) = self.bundle().await;
        let text = bundle_text(&served, reads, &self.presentation, true);
        // Nothing to hand on because servers wait for approval: an error the host shows, not
        // an empty success a model takes for "this project has no context".
        if served.is_empty() && !self.presentation.awaiting.is_empty() {
            return Ok(CallToolResult::error(vec![ContentBlock::text(text)]).into());
        }
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if self.served().await.get(&request.uri).is_none() {
            return Err(not_found(&request.uri));
        }
        self.subscribed.locked().insert(request.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribed.locked().remove(&request.uri);
        Ok(())
    }

    /// A legacy client is connected: tell it when the list changes and when a resource it
    /// subscribed to is updated, until it goes away.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let peer = context.peer;
        if let Some(text) = awaiting_text(&self.presentation.awaiting) {
            let _ = log_warning(&peer, text).await;
        }
        let mut served = self.engine.served.subscribe();
        if self.answered_early.load(Ordering::SeqCst) && self.engine.is_ready() {
            served.mark_changed(); // it became ready before this client was listening
        }
        let mut updates = self.engine.updates.subscribe();
        let subscribed = self.subscribed.clone();
        tokio::spawn(async move {
            loop {
                let sent = tokio::select! {
                    changed = served.changed() => {
                        if changed.is_err() {
                            return;
                        }
                        peer.notify_resource_list_changed().await
                    }
                    update = updates.recv() => match update {
                        Ok(uri) => {
                            let wanted = subscribed
                                .locked()
                                .contains(&uri);
                            if !wanted {
                                continue;
                            }
                            peer.notify_resource_updated(ResourceUpdatedNotificationParam::new(uri)).await
                        }
                        Err(RecvError::Lagged(_)) => continue,
                        Err(RecvError::Closed) => return,
                    },
                };
                if sent.is_err() {
                    return; // the client went away
                }
            }
        });
    }

    /// rmcp passes on a request it could not parse as a custom method: a known method with
    /// bad params is "invalid params" (-32602), anything else "method not found".
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(
            super::params::invalid(&request.method, request.params.as_ref()).unwrap_or_else(|| {
                ErrorData::new(
                    rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                    format!("method not found: {}", request.method),
                    None,
                )
            }),
        )
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    /// The 2026-07-28 way: one long-lived request carrying list changes and updates.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let accepted = context.accepted().clone();
        let wants_list = accepted.resources_list_changed == Some(true);
        let uris: HashSet<String> = accepted
            .resource_subscriptions
            .unwrap_or_default()
            .into_iter()
            .collect();
        let mut served = self.engine.served.subscribe();
        let mut updates = self.engine.updates.subscribe();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = served.changed(), if wants_list => {
                    if changed.is_err() || context.sink().notify_resource_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
                update = updates.recv() => match update {
                    Ok(uri) if uris.contains(&uri) => {
                        if context.sink().notify_resource_updated(uri).await.is_err() {
                            return Ok(());
                        }
                    }
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                    Err(RecvError::Closed) => return Ok(()),
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instructions_fit_what_claude_code_keeps() {
        let short = "A set.".to_string();
        assert_eq!(within_instructions_cap(short.clone()), short);
        let long = "é".repeat(INSTRUCTIONS_CAP + 10);
        let cut = within_instructions_cap(long);
        assert_eq!(cut.chars().count(), INSTRUCTIONS_CAP);
        assert!(cut.ends_with('…'));
    }

    #[test]
    fn cursors_round_trip_and_reject_junk() {
        for offset in [0, 500, 100_000] {
            assert_eq!(decode_cursor(&encode_cursor(offset)), Some(offset));
        }
        for junk in ["", "abc", "bWNwaWNrLXNlcnZlOng"] {
            assert_eq!(decode_cursor(junk), None, "{junk}");
        }
    }

    #[test]
    fn pages_cover_everything_once() {
        let served = Served::default();
        let first = page(&served, None).unwrap();
        assert!(first.resources.is_empty() && first.next_cursor.is_none());
        assert!(page(&served, Some(&encode_cursor(1))).is_err());
    }

    #[test]
    fn pages_carry_the_upstreams_cache_hints() {
        let mut served = Served::default();
        served.cache = crate::mcp::CacheHints {
            ttl_ms: Some(250),
            scope: Some(rmcp::model::CacheScope::Private),
        };
        let first = page(&served, None).unwrap();
        assert_eq!(first.ttl_ms, Some(250));
        assert_eq!(first.cache_scope, Some(rmcp::model::CacheScope::Private));
    }
}
