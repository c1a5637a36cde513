//! The demo server's MCP handler: paging, reads, templates, completion, subscriptions.
//!
//! rmcp does the protocol work for both eras (legacy `initialize` and 2026-07-28
//! `server/discover`); this file only answers requests. State shared by every connection of
//! the process (catalogue, request counter, clock) lives in [`Shared`]; each connection gets
//! its own [`DemoServer`] with its own legacy subscriptions.

use std::{
    collections::{HashMap, HashSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use base64::Engine;
use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestMethod, CallToolRequestParams, CallToolResponse, CallToolResult,
        CompleteRequestMethod, CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock,
        Implementation, JsonObject, ListResourceTemplatesRequestMethod,
        ListResourceTemplatesResult, ListResourcesRequestMethod, ListResourcesResult,
        ListToolsRequestMethod, ListToolsResult, PaginatedRequestParams, ReadResourceRequestMethod,
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceTemplate,
        ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig, SubscribeRequestMethod,
        SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestMethod,
        UnsubscribeRequestParams,
    },
    service::{NotificationContext, RequestContext, SubscriptionContext},
};
use serde_json::json;
use tokio::task::AbortHandle;

use super::{
    DemoArgs,
    catalogue::{CLOCK_URI, Catalogue, Entry, Special},
    churn::{self, Churn, ChurnEvent},
    complete::{self, FILE_TEMPLATE, NOTE_TEMPLATE},
    content,
    misbehave::Misbehave,
    violate::{self, Violation, Violations},
};

const INSTRUCTIONS: &str = "This is mcpick's built-in demo server: a deterministic, generated \
     catalogue of project files, commits, wiki pages and notes for trying mcpick and testing \
     MCP clients.";

/// How often a subscribed `demo://clock/now` reports `notifications/resources/updated`.
const CLOCK_TICK: Duration = Duration::from_secs(2);

/// Process-wide state: one per server process, shared by all connections.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) catalogue: Catalogue,
    pub(crate) page_size: usize,
    pub(crate) repeat_cursor: bool,
    pub(crate) no_resources: bool,
    pub(crate) misbehave: Misbehave,
    pub(crate) clock_reads: AtomicU64,
    pub(crate) clock_tick: Duration,
    /// `--big-mib`: the size of `demo://big`.
    pub(crate) big_mib: Option<u32>,
    /// `--churn`: the live part of the catalogue (ticked by [`Shared::new`]'s timer).
    pub(crate) churn: Option<Arc<Churn>>,
    /// `--request-log`: one line per resource request.
    request_log: Option<Mutex<std::fs::File>>,
    /// `--violate`: the `mcpick check` rules broken on purpose.
    pub(crate) violations: Violations,
    /// `--bump`: listed with priority 1.0.
    bump: Option<String>,
    /// `--edit`: its text gets an extra paragraph.
    edit: Option<String>,
    /// `--private-for`: the header that also lists [`PRIVATE_URI`].
    private_for: Option<(String, String)>,
    /// `--markup-uris`: the last page also lists [`super::odd::MARKUP`].
    markup_uris: bool,
    /// `--smuggle`: every read of a listed resource also carries a part under this URI.
    smuggle: Option<String>,
    /// `--echo-headers`: resource requests are refused, quoting their headers.
    echo_headers: bool,
}

/// Listed only to requests carrying `--private-for`'s header.
pub(crate) const PRIVATE_URI: &str = "demo://private/report";

impl Shared {
    /// The state of a running server; starts the `--churn` timer (needs a tokio runtime).
    pub(crate) fn new(args: &DemoArgs) -> Arc<Self> {
        let shared = Self::build(args);
        if let (Some(churn), Some(ms)) = (&shared.churn, args.churn) {
            Churn::run(churn.clone(), Duration::from_millis(ms));
        }
        Arc::new(shared)
    }

    pub(crate) fn build(args: &DemoArgs) -> Self {
        Shared {
            catalogue: Catalogue::new(args.count),
            page_size: args.page_size.max(1),
            repeat_cursor: args.repeat_cursor || args.violate.contains(&Violation::CursorLoop),
            no_resources: args.no_resources,
            misbehave: Misbehave::new(args.crash_after, args.garbage_after, args.hang_after)
                .with_invalid_json_after(args.invalid_json_after),
            big_mib: args.big_mib,
            clock_reads: AtomicU64::new(0),
            clock_tick: CLOCK_TICK,
            churn: args.churn.map(|_| Arc::new(Churn::default())),
            request_log: args.request_log.as_ref().and_then(|path| {
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path);
                file.map(Mutex::new).ok()
            }),
            violations: Violations::new(&args.violate),
            bump: args.bump.clone(),
            edit: args.edit.clone(),
            private_for: args
                .private_for
                .as_deref()
                .and_then(|h| crate::mcp::spec::parse_header(h).ok()),
            markup_uris: args.markup_uris,
            smuggle: args.smuggle.clone(),
            echo_headers: args.echo_headers,
        }
    }

    /// Records one request in the `--request-log` file, if there is one.
    fn log_request(&self, line: &str) {
        if let Some(file) = &self.request_log {
            use std::io::Write;
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            let _ = writeln!(file, "{line}");
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Legacy `resources/subscribe` tickers of one connection, stopped when it goes away.
#[derive(Debug, Default)]
struct Subscriptions(Mutex<HashMap<String, AbortHandle>>);

impl Subscriptions {
    fn insert(&self, uri: String, ticker: AbortHandle) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = map.insert(uri, ticker) {
            old.abort();
        }
    }

    fn remove(&self, uri: &str) {
        let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(old) = map.remove(uri) {
            old.abort();
        }
    }
}

impl Drop for Subscriptions {
    fn drop(&mut self) {
        let map = self.0.get_mut().unwrap_or_else(|e| e.into_inner());
        for (_, ticker) in map.drain() {
            ticker.abort();
        }
    }
}

/// The handler for one connection (stdio) or one session (HTTP).
#[derive(Debug, Clone)]
pub(crate) struct DemoServer {
    shared: Arc<Shared>,
    subscriptions: Arc<Subscriptions>,
    /// `--violate unstable`: the resource only this connection lists.
    session_uri: Arc<str>,
    /// Legacy subscriptions to `--churn` resources (updated on every tick).
    live_subscriptions: Arc<Mutex<HashSet<String>>>,
}

impl DemoServer {
    pub(crate) fn new(shared: Arc<Shared>) -> Self {
        static SESSIONS: AtomicU64 = AtomicU64::new(0);
        let n = SESSIONS.fetch_add(1, Ordering::SeqCst);
        let session_uri = format!("{}{}-{n}", violate::SESSION_PREFIX, std::process::id());
        DemoServer {
            shared,
            subscriptions: Arc::default(),
            session_uri: session_uri.into(),
            live_subscriptions: Arc::default(),
        }
    }

    /// With `--no-resources` every resource method is "method not found", as on a server
    /// that never implemented them.
    fn resources_enabled<M: rmcp::model::ConstString>(&self) -> Result<(), ErrorData> {
        if self.shared.no_resources {
            Err(ErrorData::method_not_found::<M>())
        } else {
            Ok(())
        }
    }

    fn list_page(&self, cursor: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
        let catalogue = self.shared.catalogue;
        let generated = catalogue.len();
        let live = self.shared.churn.as_deref();
        let count = generated + live.map_or(0, Churn::len);
        let page_size = self.shared.page_size;
        let violations = &self.shared.violations;
        let offset = match cursor {
            None => 0,
            Some(c) => match decode_cursor(c).filter(|o| *o <= count) {
                Some(offset) => offset,
                None if violations.has(Violation::InvalidCursor) => 0,
                None => {
                    return Err(ErrorData::invalid_params(
                        "invalid cursor",
                        Some(json!({ "cursor": c })),
                    ));
                }
            },
        };
        let end = offset.saturating_add(page_size).min(count);
        let mut resources = catalogue.page(offset, end.min(generated).saturating_sub(offset));
        if let Some(live) = live.filter(|_| end > generated) {
            let from = offset.max(generated);
            resources.extend(live.page(from - generated, end - from));
        }
        self.adjust_page(&mut resources, offset == 0, end >= count);
        let mut result = ListResourcesResult::with_all_items(resources);
        result.next_cursor = if self.shared.repeat_cursor {
            // Misbehaving on purpose: the same cursor forever, even after the last page.
            Some(encode_cursor(page_size.min(count)))
        } else {
            (end < count).then(|| encode_cursor(end))
        };
        Ok(result)
    }
}

impl DemoServer {
    /// `--bump` and the `--violate` modes that change what is listed.
    fn adjust_page(&self, page: &mut Vec<rmcp::model::Resource>, first: bool, last: bool) {
        use rmcp::model::Resource;
        let shared = &self.shared;
        let v = &shared.violations;
        for r in page.iter_mut() {
            if shared.bump.as_deref() == Some(r.uri.as_str()) {
                let mut a = r.annotations.clone().unwrap_or_default();
                a.priority = Some(1.0);
                r.annotations = Some(a);
            }
            if v.has(Violation::WrongSize) {
                r.size = r.size.map(|s| s + 1);
            }
        }
        if first
            && v.has(Violation::BadAnnotations)
            && let Some(r) = page.first_mut()
        {
            r.annotations = Some(violate::bad_annotations());
        }
        if !last {
            return;
        }
        if v.has(Violation::Unstable) {
            page.push(Resource::new(&*self.session_uri, "session"));
        }
        if v.side_effect_due() {
            page.push(Resource::new(violate::RECENT_URI, "recent"));
        }
        if v.has(Violation::BadUris) {
            let duplicate = shared.catalogue.page(0, 1);
            page.push(Resource::new("notes/relative.md", "relative"));
            page.extend(
                duplicate
                    .into_iter()
                    .map(|r| Resource::new(r.uri, "duplicate")),
            );
            page.push(Resource::new("demo://nameless", ""));
        }
    }
}

/// The resource `--big-mib` makes readable.
pub(crate) const BIG_URI: &str = "demo://big";

/// Exactly `mib` MiB of plain ASCII text (nothing to escape in JSON).
fn big_text(mib: u32) -> String {
    const LINE: &str = "mcpick demo: a deliberately large resource, to test size limits.\n";
    let size = mib as usize * 1024 * 1024;
    let mut text = LINE.repeat(size / LINE.len() + 1);
    text.truncate(size);
    text
}

const CURSOR_TAG: &str = "mcpick-demo:offset:";

/// Cursors are opaque to clients: base64url of a tagged offset.
pub(crate) fn encode_cursor(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{CURSOR_TAG}{offset}"))
}

fn decode_cursor(cursor: &str) -> Option<usize> {
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let digits = text.strip_prefix(CURSOR_TAG)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

fn not_found(uri: &str) -> ErrorData {
    // rmcp sends -32002 to legacy peers and rewrites it to -32602 for 2026-07-28 peers.
    ErrorData::resource_not_found(
        format!("Resource not found: {uri}"),
        Some(json!({ "uri": uri })),
    )
}

fn echo_tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": { "text": { "type": "string", "description": "Text to send back" } },
        "required": ["text"]
    });
    let schema: JsonObject = match schema {
        serde_json::Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    Tool::new("echo", "Returns the `text` argument unchanged.", schema)
}

impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.shared.violations.has(Violation::Capability) {
            // Resources are served all the same (that is the violation).
            ServerCapabilities::builder().enable_completions().build()
        } else if self.shared.no_resources {
            ServerCapabilities::builder().enable_tools().build()
        } else {
            ServerCapabilities::builder()
                .enable_completions()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_resources_list_changed()
                .build()
        };
        let implementation = Implementation::new("mcpick-demo", env!("CARGO_PKG_VERSION"))
            .with_title("mcpick demo server");
        ServerConfig::new(capabilities)
            .with_server_info(implementation)
            .with_instructions(INSTRUCTIONS)
    }

    async fn ping(&self, _context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.shared.misbehave.hang_if_hung().await;
        Ok(())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.resources_enabled::<ListResourcesRequestMethod>()?;
        if self.shared.echo_headers {
            let parts = context.extensions.get::<http::request::Parts>();
            return Err(super::odd::echo_headers("resources/list", parts));
        }
        self.shared.log_request("resources/list");
        self.shared.misbehave.count_request().await;
        let mut page = self.list_page(request.as_ref().and_then(|r| r.cursor.as_deref()))?;
        // `--private-for`: the last page also lists a resource for that credential only.
        if let Some((name, value)) = &self.shared.private_for
            && page.next_cursor.is_none()
            && context
                .extensions
                .get::<http::request::Parts>()
                .and_then(|parts| parts.headers.get(name.as_str()))
                .is_some_and(|v| v.as_bytes() == value.as_bytes())
        {
            page.resources
                .push(rmcp::model::Resource::new(PRIVATE_URI, "private report"));
        }
        if self.shared.markup_uris && page.next_cursor.is_none() {
            page.resources.extend(super::odd::markup_resources());
        }
        Ok(page)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.resources_enabled::<ListResourceTemplatesRequestMethod>()?;
        self.shared.misbehave.count_request().await;
        let mut templates = vec![
            ResourceTemplate::new(FILE_TEMPLATE, "project-file")
                .with_title("Project file")
                .with_description("Any file of the demo project, by path below /project/."),
            ResourceTemplate::new(NOTE_TEMPLATE, "note")
                .with_title("Note by id")
                .with_description("Any note; every integer id is readable.")
                .with_mime_type("text/markdown"),
        ];
        if self.shared.violations.has(Violation::BadTemplate) {
            templates.push(ResourceTemplate::new(violate::BAD_TEMPLATE, "broken"));
        }
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.resources_enabled::<ReadResourceRequestMethod>()?;
        if self.shared.echo_headers {
            let parts = context.extensions.get::<http::request::Parts>();
            return Err(super::odd::echo_headers("resources/read", parts));
        }
        self.shared
            .log_request(&format!("resources/read {}", request.uri));
        self.shared.misbehave.count_request().await;
        let uri = request.uri;
        let v = &self.shared.violations;
        v.note_read();
        let planted = |text: &str| {
            let contents = rmcp::model::ResourceContents::text(text, uri.as_str());
            Ok(ReadResourceResult::new(vec![contents]).into())
        };
        if v.has(Violation::Traversal) && violate::escapes_project(&uri) {
            return planted(violate::FAKE_PASSWD);
        }
        if (v.has(Violation::Unstable) && uri == *self.session_uri)
            || (v.side_effect_due() && uri == violate::RECENT_URI)
        {
            return planted("listed by a misbehaving demo server");
        }
        if let (BIG_URI, Some(mib)) = (uri.as_str(), self.shared.big_mib) {
            let contents = rmcp::model::ResourceContents::text(big_text(mib), BIG_URI);
            return Ok(ReadResourceResult::new(vec![contents]).into());
        }
        if let Some(contents) = self.shared.churn.as_ref().and_then(|c| c.read(&uri)) {
            return Ok(ReadResourceResult::new(contents).into());
        }
        if let Some(contents) = super::odd::markup_read(&uri).filter(|_| self.shared.markup_uris) {
            return Ok(ReadResourceResult::new(contents).into());
        }
        let Some(entry) = self.shared.catalogue.lookup(&uri) else {
            if v.has(Violation::NotFoundEmpty) {
                return Ok(ReadResourceResult::new(Vec::new()).into());
            }
            return Err(not_found(&uri));
        };
        let clock_reads = if entry == Entry::Special(Special::Clock) {
            self.shared.clock_reads.fetch_add(1, Ordering::SeqCst) + 1
        } else {
            0
        };
        let mut contents = content::read(self.shared.catalogue, entry, &uri, clock_reads);
        if self.shared.edit.as_deref() == Some(uri.as_str())
            && let Some(rmcp::model::ResourceContents::TextResourceContents { text, .. }) =
                contents.first_mut()
        {
            text.push_str("\n\nEdited: this paragraph was added by --edit.\n");
        }
        let mut contents = violate::spoil_contents(v, contents);
        if let Some(smuggled) = &self.shared.smuggle {
            super::odd::smuggle(smuggled, &uri, &mut contents);
        }
        Ok(ReadResourceResult::new(contents).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.resources_enabled::<CompleteRequestMethod>()?;
        self.shared.misbehave.count_request().await;
        if self.shared.violations.has(Violation::NoCompletion) {
            return Err(ErrorData::internal_error("completion is refused", None));
        }
        let Some(uri) = request.r#ref.as_resource_uri() else {
            return Err(ErrorData::invalid_params(
                "this server has no prompts",
                None,
            ));
        };
        let value = request.argument.value.as_str();
        let catalogue = self.shared.catalogue;
        let completion = match (uri, request.argument.name.as_str()) {
            (FILE_TEMPLATE, "path") => complete::paths(catalogue, value),
            (NOTE_TEMPLATE, "id") => complete::note_ids(catalogue, value),
            (FILE_TEMPLATE | NOTE_TEMPLATE, _) => {
                CompletionInfo::with_all_values(Vec::new()).unwrap_or_default()
            }
            _ => {
                return Err(ErrorData::invalid_params(
                    format!("unknown resource template: {uri}"),
                    Some(json!({ "uri": uri })),
                ));
            }
        };
        Ok(CompleteResult::new(completion))
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.resources_enabled::<SubscribeRequestMethod>()?;
        self.shared.misbehave.count_request().await;
        let uri = request.uri;
        if self.shared.churn.as_ref().is_some_and(|c| c.contains(&uri)) {
            lock(&self.live_subscriptions).insert(uri);
            return Ok(());
        }
        if self.shared.catalogue.lookup(&uri).is_none() {
            return Err(not_found(&uri));
        }
        // Only the clock changes; other subscriptions are accepted and stay quiet.
        if uri == CLOCK_URI {
            let peer = context.peer.clone();
            let tick = self.shared.clock_tick;
            let ticker = tokio::spawn(async move {
                let mut interval =
                    tokio::time::interval_at(tokio::time::Instant::now() + tick, tick);
                loop {
                    interval.tick().await;
                    let update = ResourceUpdatedNotificationParam::new(CLOCK_URI);
                    if peer.notify_resource_updated(update).await.is_err() {
                        break; // the client went away
                    }
                }
            });
            self.subscriptions.insert(uri, ticker.abort_handle());
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.resources_enabled::<UnsubscribeRequestMethod>()?;
        self.shared.misbehave.count_request().await;
        lock(&self.live_subscriptions).remove(&request.uri);
        self.subscriptions.remove(&request.uri);
        Ok(())
    }

    /// A legacy client is connected: with `--churn`, tell it of every tick (list changes
    /// always, updates of what it subscribed to) until it goes away.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let Some(churn) = &self.shared.churn else {
            return;
        };
        let mut events = Some(churn.events());
        let peer = context.peer;
        let subscribed = self.live_subscriptions.clone();
        tokio::spawn(async move {
            loop {
                let sent = match churn::next(&mut events).await {
                    ChurnEvent::ListChanged => peer.notify_resource_list_changed().await,
                    ChurnEvent::Updated(uri) => {
                        if !lock(&subscribed).contains(&uri) {
                            continue;
                        }
                        let update = ResourceUpdatedNotificationParam::new(uri);
                        peer.notify_resource_updated(update).await
                    }
                };
                if sent.is_err() {
                    return; // the client went away
                }
            }
        });
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        (!self.shared.no_resources).then(|| requested.supported_by(&self.get_info().capabilities))
    }

    /// The 2026-07-28 counterpart of `resources/subscribe`: one long-lived request that
    /// carries `notifications/resources/updated` for the clock and, with `--churn`, list
    /// changes and updates of live resources, as its filter asks, until the client cancels it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        self.shared.misbehave.count_request().await;
        self.shared.log_request("subscriptions/listen");
        let accepted = context.accepted().clone();
        let wanted = accepted.resource_subscriptions.unwrap_or_default();
        let wants_clock = wanted.iter().any(|u| u == CLOCK_URI);
        let wants_list = accepted.resources_list_changed == Some(true);
        let mut churn = self.shared.churn.as_ref().map(|c| c.events());
        let tick = self.shared.clock_tick;
        let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + tick, tick);
        loop {
            let sent = tokio::select! {
                () = context.cancelled() => return Ok(()),
                _ = interval.tick(), if wants_clock => {
                    context.sink().notify_resource_updated(CLOCK_URI).await
                }
                event = churn::next(&mut churn) => match event {
                    ChurnEvent::ListChanged if wants_list => {
                        context.sink().notify_resource_list_changed().await
                    }
                    ChurnEvent::Updated(uri) if wanted.contains(&uri) => {
                        context.sink().notify_resource_updated(uri).await
                    }
                    _ => Ok(()),
                },
            };
            if sent.is_err() {
                return Ok(());
            }
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.shared.misbehave.hang_if_hung().await;
        if !self.shared.no_resources {
            return Err(ErrorData::method_not_found::<ListToolsRequestMethod>());
        }
        Ok(ListToolsResult::with_all_items(vec![echo_tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.shared.misbehave.hang_if_hung().await;
        if !self.shared.no_resources {
            return Err(ErrorData::method_not_found::<CallToolRequestMethod>());
        }
        if request.name != "echo" {
            return Err(ErrorData::invalid_params(
                format!("unknown tool: {}", request.name),
                None,
            ));
        }
        let text = request
            .arguments
            .as_ref()
            .and_then(|a| a.get("text"))
            .and_then(|t| t.as_str())
            .unwrap_or_default();
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_junk() {
        for offset in [0, 7, 100, 999_999] {
            assert_eq!(decode_cursor(&encode_cursor(offset)), Some(offset));
        }
        for junk in ["", "p:7", "!!!", "bWNwaWNrLWRlbW86b2Zmc2V0Og", "eHl6"] {
            assert_eq!(decode_cursor(junk), None, "{junk}");
        }
    }

    fn server(count: usize, page_size: usize, repeat_cursor: bool) -> DemoServer {
        let args = DemoArgs {
            count,
            page_size,
            repeat_cursor,
            ..DemoArgs::default()
        };
        DemoServer::new(Shared::new(&args))
    }

    #[test]
    fn pages_chain_to_the_end() {
        let s = server(25, 10, false);
        let p1 = s.list_page(None).unwrap();
        assert_eq!(p1.resources.len(), 10);
        let p2 = s.list_page(p1.next_cursor.as_deref()).unwrap();
        let p3 = s.list_page(p2.next_cursor.as_deref()).unwrap();
        assert_eq!(p3.resources.len(), 5);
        assert_eq!(p3.next_cursor, None);
        assert!(s.list_page(Some("bogus")).is_err());
        let err = s.list_page(Some(&encode_cursor(26))).unwrap_err();
        assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert_eq!(err.message, "invalid cursor");
        // Empty catalogue: one empty page.
        let empty = server(0, 10, false).list_page(None).unwrap();
        assert!(empty.resources.is_empty() && empty.next_cursor.is_none());
    }

    #[test]
    fn repeat_cursor_never_ends() {
        let s = server(25, 10, true);
        let first = s.list_page(None).unwrap().next_cursor.unwrap();
        let mut cursor = first.clone();
        for _ in 0..5 {
            let page = s.list_page(Some(&cursor)).unwrap();
            assert_eq!(page.resources.len(), 10);
            cursor = page.next_cursor.unwrap();
            assert_eq!(cursor, first);
        }
        // Even when everything fits on one page.
        let s = server(3, 10, true);
        let c = s.list_page(None).unwrap().next_cursor.unwrap();
        assert_eq!(s.list_page(Some(&c)).unwrap().next_cursor, Some(c));
    }
}
