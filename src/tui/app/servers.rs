//! The servers: each one's state as the header shows it, and what its connection and listing
//! events do to the catalogue, the tree, the list and the search.

use std::collections::VecDeque;
use std::time::SystemTime;

use rmcp::model::Resource;

use super::super::server_info::ServerInfo;
use super::{App, Effect, ServerEvent};
use crate::catalog::{ItemId, ServerId};
use crate::mcp::Failure;
use crate::mcp::log::{Level, LogEntry, LogSource};
use crate::sanitize;
use crate::tui::text::thousands;

/// Catalogues up to this size open with every folder expanded.
const SMALL_CATALOGUE: usize = 40;
/// Listings (and resolutions) at least this big are followed by [`Effect::ReleaseMemory`].
pub(super) const RELEASE_AFTER: usize = 50_000;

/// One server's log as the core holds it: plain data, read while drawing without a lock. The
/// connection's entries (stderr, notifications, its errors) arrive as [`super::Msg::Log`], a
/// copy of that log that replaces the last one; the core's own notes (duplicate URIs) are
/// kept beside them, at most `capacity`.
#[derive(Debug, Clone, Default)]
pub struct Log {
    remote: Vec<LogEntry>,
    own: VecDeque<LogEntry>,
    capacity: usize,
}

impl Log {
    pub fn new(capacity: usize) -> Self {
        Log {
            remote: Vec::new(),
            own: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// Adds one of the core's own notes (cleaned and capped, as the connection's log does).
    pub fn push(&mut self, source: LogSource, raw: &str) {
        self.push_entry(LogEntry::new(source, Level::Error, raw));
    }

    /// Adds a warning of the core's own (said `warning: …`).
    pub fn warn(&mut self, raw: &str) {
        self.push_entry(LogEntry::new(LogSource::Client, Level::Warning, raw));
    }

    fn push_entry(&mut self, entry: LogEntry) {
        if self.own.len() == self.capacity {
            self.own.pop_front();
        }
        self.own.push_back(entry);
    }

    /// The newest of the last `n` lines the client logged that states an error, not a
    /// warning: what a server row shows as its last error.
    pub fn last_error(&self, n: usize) -> Option<String> {
        self.entries()
            .into_iter()
            .rev()
            .filter(|e| e.source == LogSource::Client)
            .take(n)
            .find(|e| e.level == Level::Error)
            .map(|e| e.text.clone())
    }

    /// The connection's log as it is now.
    pub fn replace_remote(&mut self, entries: Vec<LogEntry>) {
        self.remote = entries;
    }

    /// Every entry, oldest first (the connection's first when two have the same time).
    pub fn entries(&self) -> Vec<&LogEntry> {
        let mut all: Vec<&LogEntry> = self.remote.iter().chain(self.own.iter()).collect();
        all.sort_by_key(|e| e.at);
        all
    }

    /// The last `n` lines of one source, oldest first.
    pub fn tail(&self, source: LogSource, n: usize) -> Vec<String> {
        let mut lines: Vec<String> = self
            .entries()
            .into_iter()
            .rev()
            .filter(|e| e.source == source)
            .take(n)
            .map(|e| e.text.clone())
            .collect();
        lines.reverse();
        lines
    }
}

/// The state of one server, as the header shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Connecting,
    Loading {
        page: usize,
        received: usize,
    },
    Ready {
        count: usize,
        capped: bool,
    },
    NoResources,
    /// Connecting or listing failed: its kind (a sign-in is offered for
    /// [`FailureKind::NeedsLogin`]) and the words for a person.
    Failed(Failure),
    /// An HTTP server's connection dropped: tried again at `at`.
    Retrying {
        reason: String,
        attempt: u32,
        at: SystemTime,
    },
}

impl Status {
    /// The glyph and the words the header and a server row say for this state.
    pub fn describe(&self) -> (&'static str, String) {
        match self {
            Status::Connecting => ("◌", "connecting…".to_string()),
            Status::Loading { page, received } => (
                "◐",
                if *page == 0 {
                    "listing…".to_string()
                } else {
                    format!("loading page {page} · {} resources", thousands(*received))
                },
            ),
            Status::Ready { count, capped } => (
                "●",
                format!(
                    "ready · {} resource{}{}",
                    thousands(*count),
                    if *count == 1 { "" } else { "s" },
                    if *capped { " (cap reached)" } else { "" }
                ),
            ),
            Status::NoResources => ("○", "no resources".to_string()),
            Status::Failed(reason) => {
                ("✗", format!("failed: {}", sanitize::line(&reason.why, 300)))
            }
            Status::Retrying {
                reason,
                attempt,
                at,
            } => (
                "↻",
                format!(
                    "reconnecting: attempt {attempt} at {} ({})",
                    crate::tui::text::clock(*at),
                    sanitize::line(reason, 200)
                ),
            ),
        }
    }
}

#[derive(Debug, Clone)]
pub struct ServerState {
    /// Sanitised.
    pub name: String,
    pub status: Status,
    pub generation: u64,
    /// Protocol version and transport once connected (sanitised).
    pub detail: Option<String>,
    /// What the server said about itself when it connected.
    pub info: Option<ServerInfo>,
    /// The last list change: resources that appeared, that disappeared.
    pub changes: Option<(usize, usize)>,
    /// Connecting again after `R`: when the listing ends, the contents pane reads again.
    pub reconnecting: bool,
    /// Held back until the person approves what it runs: the lines that show it (cleaned).
    pub held: Option<Vec<String>>,
}

/// A server to show: its name and, when its definition is unusable, why.
#[derive(Debug, Clone)]
pub struct ServerSetup {
    pub name: String,
    pub error: Option<String>,
    /// Held back until approved: what to show when asking ([`ServerSetup::asks`]).
    pub held: Option<Vec<String>>,
}

impl ServerSetup {
    /// How the browser shows a held server when it asks: its name and the file that defines
    /// it, then what it runs, whole.
    pub fn asks(held: &crate::config::select::Held) -> Vec<String> {
        let mut lines = vec![format!(
            "{}  (defined by {})",
            sanitize::for_decision(&held.name),
            sanitize::for_decision(&held.named_by)
        )];
        lines.extend(held.runs.iter().map(|l| format!("  {l}")));
        lines
    }
}

impl App {
    /// The effects to run at start: connect every server whose definition is usable, and ask
    /// once about those held back for approval.
    pub fn start(&mut self) -> Vec<Effect> {
        self.ask_approval();
        self.servers
            .iter()
            .enumerate()
            .filter(|(_, s)| s.status == Status::Connecting)
            .map(|(i, s)| Effect::Connect {
                server: i as ServerId,
                generation: s.generation,
                relist: false,
            })
            .collect()
    }

    pub(super) fn on_server(
        &mut self,
        server: ServerId,
        generation: u64,
        event: ServerEvent,
    ) -> Vec<Effect> {
        let Some(state) = self.servers.get_mut(server as usize) else {
            return Vec::new();
        };
        if state.generation != generation {
            return Vec::new();
        }
        match event {
            ServerEvent::Connected {
                protocol,
                transport,
                resources,
                info,
            } => {
                state.info = Some(info);
                state.detail = Some(sanitize::line(&format!("{transport} · {protocol}"), 100));
                state.status = if resources {
                    Status::Loading {
                        page: 0,
                        received: 0,
                    }
                } else {
                    Status::NoResources
                };
                Vec::new()
            }
            ServerEvent::Page {
                number,
                received,
                resources,
            } => {
                state.status = Status::Loading {
                    page: number,
                    received,
                };
                self.on_page(server, number, &resources)
            }
            ServerEvent::Listed { count, capped } => self.on_listed(server, count, capped),
            ServerEvent::Failed(reason) => {
                state.status =
                    Status::Failed(Failure::new(reason.kind, sanitize::text(&reason.why)));
                if std::mem::take(&mut state.reconnecting) {
                    self.info = Some(sanitize::line(
                        &format!(
                            "reconnecting to {} failed (the header says why)",
                            state.name
                        ),
                        200,
                    ));
                }
                self.request_resolve()
            }
            ServerEvent::Relisting { number, received } => {
                state.status = Status::Loading {
                    page: number,
                    received,
                };
                Vec::new()
            }
            ServerEvent::Relisted { resources } => self.on_relisted(server, &resources),
            ServerEvent::Edited(edit) => self.on_edited(server, &edit),
            ServerEvent::Updated(uri) => self.on_updated(server, &uri),
            ServerEvent::Retrying {
                reason,
                attempt,
                at,
            } => {
                state.status = Status::Retrying {
                    reason: sanitize::text(&reason),
                    attempt,
                    at,
                };
                Vec::new()
            }
            ServerEvent::Templates(templates) => {
                self.catalogue.set_templates(server, templates.iter());
                self.add_pinned_expansions(server)
            }
        }
    }

    /// A page of `server`'s listing joins the catalogue.
    fn on_page(&mut self, server: ServerId, number: usize, resources: &[Resource]) -> Vec<Effect> {
        let mut fx = self.add_page(server, number, resources);
        // Resolution costs O(catalogue): while pages stream in, redo it only each time
        // the catalogue has grown by a quarter (a few times in all, not once a page,
        // which kept a core busy and delayed keys at a million resources). The end of
        // every listing resolves anyway.
        let len = self.catalogue.len();
        if len < 5_000 || len >= self.context.resolved_len.saturating_mul(5) / 4 {
            fx.extend(self.request_resolve());
        }
        fx
    }

    /// `server`'s listing is complete: its count, the tree opened when all is small, a
    /// resolution, and memory handed back after a big one.
    fn on_listed(&mut self, server: ServerId, count: usize, capped: bool) -> Vec<Effect> {
        // What the catalogue kept (duplicate URIs skipped), so every count agrees.
        let count = count.min(self.catalogue.server_len(server));
        self.servers[server as usize].status = if count == 0 && !capped {
            Status::NoResources
        } else {
            Status::Ready { count, capped }
        };
        // A small catalogue is shown fully open.
        if self.catalogue.len() <= SMALL_CATALOGUE
            && self
                .servers
                .iter()
                .all(|s| !matches!(s.status, Status::Connecting | Status::Loading { .. }))
        {
            self.browse.tree.set_all_expanded(true);
            self.reanchor();
        }
        let mut fx = self.request_resolve();
        if std::mem::take(&mut self.servers[server as usize].reconnecting) {
            fx.extend(self.after_reconnect(server));
        }
        // The pages came and went through the allocator; a big listing leaves much
        // of that memory free but held.
        if count >= RELEASE_AFTER {
            fx.push(Effect::ReleaseMemory);
        }
        fx
    }

    /// The set's exact marks that a template of `server` produces (not listed) join the
    /// catalogue as resources of it, as `mcpick preview` adds them: the agent view then
    /// reads, counts and ranks them like listed ones.
    pub(super) fn add_pinned_expansions(&mut self, server: ServerId) -> Vec<Effect> {
        let name = self.catalogue.server_name(server).to_string();
        let found: Vec<_> =
            crate::context::expansion::expansions(&self.catalogue, &self.context.set.marks)
                .into_iter()
                .filter(|e| e.server == name)
                .collect();
        if found.is_empty() {
            return Vec::new();
        }
        for e in &found {
            if let Some(id) = self.catalogue.add_unlisted(server, &e.resource) {
                self.browse.tree.insert(id, &e.resource.uri, false);
                self.browse.list.push(id);
            }
        }
        self.browse.list_stale = true;
        self.reanchor();
        self.request_resolve()
    }

    pub(super) fn add_page(
        &mut self,
        server: ServerId,
        page: usize,
        resources: &[Resource],
    ) -> Vec<Effect> {
        let (report, fx) = self.append_listed(server, resources);
        // A URI listed twice is kept once and said so in the server's log (first few a page).
        if let Some(log) = self.logs.get_mut(server as usize) {
            for d in report.duplicates.iter().take(10) {
                let warning = crate::mcp::Warning::duplicate(page, d.index, &d.uri);
                log.warn(&warning.to_string());
            }
            if report.duplicates.len() > 10 {
                log.warn(&format!(
                    "resources/list page {page}: {} more duplicate URIs skipped",
                    report.duplicates.len() - 10
                ));
            }
        }
        fx
    }

    /// Appends resources listed after the ones the catalogue holds (a page, or what a list
    /// change added at the end): O(resources) with the tree's incremental insert; the list
    /// takes them at its end until the next sort, and the search is asked to see them.
    pub(super) fn append_listed<'a>(
        &mut self,
        server: ServerId,
        resources: impl IntoIterator<Item = &'a Resource>,
    ) -> (crate::catalog::AppendReport, Vec<Effect>) {
        let before = self.catalogue.server_end(server);
        let report = self.catalogue.append(server, resources);
        let after = self.catalogue.server_end(server);
        let mimes = self.catalogue.mimes();
        for index in before..after {
            let id = ItemId { server, index };
            if let Some(item) = self.catalogue.get(id) {
                let directory = mimes.get(item.mime_id()) == Some("inode/directory");
                self.browse.tree.insert(id, item.uri(), directory);
            }
            self.browse.list.push(id);
        }
        if after > before {
            self.browse.list_stale = true;
        }
        let mut fx = Vec::new();
        if !self.search.query.is_empty() {
            // New resources may match: search again, but not while a search runs (restarting
            // it for every page would starve it until loading ends): once it completes.
            if let Some(generation) = self.search.job.request() {
                fx.push(self.search_request(generation));
            }
        }
        self.reanchor();
        self.clamp();
        fx.extend(self.ensure_sorted());
        (report, fx)
    }
}
