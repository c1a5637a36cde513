//! The demo server's MCP handler: paging, reads, templates, completion, subscriptions.
//!
//! rmcp does the protocol work for both eras (legacy `initialize` and 2026-07-28
//! `server/discover`); this file only answers requests. State shared by every connection of
//! the process (catalogue, clock) lives in `Shared`; each connection gets its own
//! [`DemoServer`] (see [`DemoServer::connection`]) with its own legacy subscriptions.

use std::{
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::Duration,
};

use crate::sync::Locked;
use base64::Engine;
use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CompleteRequestParams, CompleteResult, CompletionInfo, Implementation,
        ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
        ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceTemplate,
        ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig, SubscribeRequestParams,
        SubscriptionFilter, UnsubscribeRequestParams,
    },
    service::{RequestContext, SubscriptionContext},
};
use serde_json::json;
use tokio::task::AbortHandle;

use super::{
    catalogue::{CLOCK_URI, Catalogue, Entry, Special},
    complete::{self, FILE_TEMPLATE, NOTE_TEMPLATE},
    content,
};

const INSTRUCTIONS: &str = "This is mcpick's built-in demo server: a deterministic, generated \
     catalogue of project files, commits, wiki pages and notes for trying mcpick and testing \
     MCP clients.";

/// How often a subscribed `demo://clock/now` reports `notifications/resources/updated`.
const CLOCK_TICK: Duration = Duration::from_secs(2);

/// Process-wide state: one per server process, shared by all connections.
#[derive(Debug)]
struct Shared {
    catalogue: Catalogue,
    page_size: usize,
    clock_reads: AtomicU64,
    clock_tick: Duration,
}

/// Legacy `resources/subscribe` tickers of one connection, stopped when it goes away.
#[derive(Debug, Default)]
struct Subscriptions(Mutex<HashMap<String, AbortHandle>>);

impl Subscriptions {
    fn insert(&self, uri: String, ticker: AbortHandle) {
        if let Some(old) = self.0.locked().insert(uri, ticker) {
            old.abort();
        }
    }

    fn remove(&self, uri: &str) {
        if let Some(old) = self.0.locked().remove(uri) {
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

/// The demo server's handler for one connection (stdio) or one session (HTTP).
#[derive(Debug, Clone)]
pub struct DemoServer {
    shared: Arc<Shared>,
    subscriptions: Arc<Subscriptions>,
}

impl DemoServer {
    /// A server publishing the first `count` resources of the demo catalogue, `page_size` per
    /// `resources/list` page.
    pub fn new(count: usize, page_size: usize) -> Self {
        Self::with_clock_tick(count, page_size, CLOCK_TICK)
    }

    pub(crate) fn with_clock_tick(count: usize, page_size: usize, clock_tick: Duration) -> Self {
        let shared = Shared {
            catalogue: Catalogue::new(count),
            page_size: page_size.max(1),
            clock_reads: AtomicU64::new(0),
            clock_tick,
        };
        DemoServer {
            shared: Arc::new(shared),
            subscriptions: Arc::default(),
        }
    }

    /// The handler for another connection of the same server: the same catalogue and clock,
    /// subscriptions of its own.
    pub fn connection(&self) -> Self {
        DemoServer {
            shared: self.shared.clone(),
            subscriptions: Arc::default(),
        }
    }

    fn list_page(&self, from: Option<&str>) -> Result<ListResourcesResult, ErrorData> {
        let catalogue = self.shared.catalogue;
        let count = catalogue.len();
        let offset = match from {
            None => 0,
            Some(c) => cursor_offset(c).filter(|o| *o <= count).ok_or_else(|| {
                ErrorData::invalid_params("invalid cursor", Some(json!({ "cursor": c })))
            })?,
        };
        let end = offset.saturating_add(self.shared.page_size).min(count);
        let mut result =
            ListResourcesResult::with_all_items(catalogue.page(offset, end.saturating_sub(offset)));
        result.next_cursor = (end < count).then(|| cursor(end));
        Ok(result)
    }
}

const CURSOR_TAG: &str = "mcpick-demo:offset:";

/// The cursor of the page that starts at `offset`. Cursors are opaque to clients: base64url
/// of a tagged offset.
pub fn cursor(offset: usize) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(format!("{CURSOR_TAG}{offset}"))
}

/// The offset a [`cursor`] stands for; `None` for anything the demo server never sent.
pub fn cursor_offset(cursor: &str) -> Option<usize> {
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

impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_completions()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .build();
        let implementation = Implementation::new("mcpick-demo", env!("CARGO_PKG_VERSION"))
            .with_title("mcpick demo server");
        ServerConfig::new(capabilities)
            .with_server_info(implementation)
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.list_page(request.as_ref().and_then(|r| r.cursor.as_deref()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let templates = vec![
            ResourceTemplate::new(FILE_TEMPLATE, "project-file")
                .with_title("Project file")
                .with_description("Any file of the demo project, by path below /project/."),
            ResourceTemplate::new(NOTE_TEMPLATE, "note")
                .with_title("Note by id")
                .with_description("Any note; every integer id is readable.")
                .with_mime_type("text/markdown"),
        ];
        Ok(ListResourceTemplatesResult::with_all_items(templates))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri;
        let Some(entry) = self.shared.catalogue.lookup(&uri) else {
            return Err(not_found(&uri));
        };
        let clock_reads = if entry == Entry::Special(Special::Clock) {
            self.shared.clock_reads.fetch_add(1, Ordering::SeqCst) + 1
        } else {
            0
        };
        let contents = content::read(self.shared.catalogue, entry, &uri, clock_reads);
        Ok(ReadResourceResult::new(contents).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
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
        let uri = request.uri;
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
        self.subscriptions.remove(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    /// The 2026-07-28 counterpart of `resources/subscribe`: one long-lived request that
    /// carries `notifications/resources/updated` for the clock, if its filter asks, until the
    /// client cancels it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let wants_clock = context
            .accepted()
            .resource_subscriptions
            .as_ref()
            .is_some_and(|uris| uris.iter().any(|u| u == CLOCK_URI));
        if !wants_clock {
            context.cancelled().await;
            return Ok(());
        }
        let tick = self.shared.clock_tick;
        let mut interval = tokio::time::interval_at(tokio::time::Instant::now() + tick, tick);
        loop {
            let sent = tokio::select! {
                () = context.cancelled() => return Ok(()),
                _ = interval.tick() => context.sink().notify_resource_updated(CLOCK_URI).await,
            };
            if sent.is_err() {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_reject_junk() {
        for offset in [0, 7, 100, 999_999] {
            assert_eq!(cursor_offset(&cursor(offset)), Some(offset));
        }
        for junk in ["", "p:7", "!!!", "bWNwaWNrLWRlbW86b2Zmc2V0Og", "eHl6"] {
            assert_eq!(cursor_offset(junk), None, "{junk}");
        }
    }

    #[test]
    fn pages_chain_to_the_end() {
        let s = DemoServer::new(25, 10);
        let p1 = s.list_page(None).unwrap();
        assert_eq!(p1.resources.len(), 10);
        let p2 = s.list_page(p1.next_cursor.as_deref()).unwrap();
        let p3 = s.list_page(p2.next_cursor.as_deref()).unwrap();
        assert_eq!(p3.resources.len(), 5);
        assert_eq!(p3.next_cursor, None);
        assert!(s.list_page(Some("bogus")).is_err());
        let err = s.list_page(Some(&cursor(26))).unwrap_err();
        assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        assert_eq!(err.message, "invalid cursor");
        // Empty catalogue: one empty page.
        let empty = DemoServer::new(0, 10).list_page(None).unwrap();
        assert!(empty.resources.is_empty() && empty.next_cursor.is_none());
    }
}
