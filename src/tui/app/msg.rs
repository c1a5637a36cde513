//! The core's vocabulary with the runtime: what can happen to it (`Msg`) and what it asks
//! for (`Effect`, data, never executed in the core).

use std::sync::Arc;

use crossterm::event::{KeyEvent, MouseEvent};
use rmcp::model::Resource;

use super::super::agent::{AgentPreview, ResolveRequest};
use super::super::contents::ContentsDoc;
use super::super::server_info::ServerInfo;
use super::handoff::{Bundled, InstallPlan};
use crate::catalog::{ItemId, SearchResults, ServerId, Snapshot, SortKey, SortedList};
use crate::context::{Applied, ContextSet, Measure, SetChange, TokenizerKind};
use crate::mcp::log::LogEntry;

/// Everything that can happen to the core.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Resize(u16, u16),
    Paste(String),
    /// Something about one server's connection or listing. `generation` is the server's
    /// listing generation; events of an older one are dropped.
    Server {
        server: ServerId,
        generation: u64,
        event: ServerEvent,
    },
    /// Search results (partial or complete) from the search worker.
    SearchResults(Arc<SearchResults>),
    /// The list sorted in the background (`order`, and its ids to show); `lens` are the
    /// per-server lengths it covers.
    Sorted {
        generation: u64,
        order: Arc<SortedList>,
        ids: Vec<ItemId>,
        lens: Vec<usize>,
    },
    /// A read for the contents pane finished; `fresh_for`: how long the server lets it be
    /// kept (`ttlMs`), if it said.
    Contents {
        generation: u64,
        item: ItemId,
        doc: Arc<ContentsDoc>,
        fresh_for: Option<std::time::Duration>,
    },
    /// A server's connection log as it is now (sent when it changes; replaces the last copy).
    Log {
        server: ServerId,
        entries: Vec<LogEntry>,
    },
    /// A resolution finished (see [`crate::tui::agent`]).
    Resolved(Arc<AgentPreview>),
    /// One read for a token count finished (`generation`: of its measuring batch).
    Measured {
        generation: u64,
        tokenizer: TokenizerKind,
        item: ItemId,
        measure: Measure,
    },
    /// A save of the context set finished (`seq`: of its [`Effect::Save`]).
    Saved {
        seq: u64,
        result: Result<SaveReport, SaveFailure>,
    },
    /// Another process saved the set file (the runtime watches it): the set as it is now.
    SetOnDisk(Box<ContextSet>),
    /// A line from a sign-in in progress (the authorization URL, what it waits for).
    SignInNote {
        server: ServerId,
        line: String,
    },
    /// A sign-in ended: `Ok` connects the server again.
    SignedIn {
        server: ServerId,
        result: Result<(), String>,
    },
    /// Suggestions for the template form's field (`generation`: of its request).
    Completions {
        generation: u64,
        values: Vec<String>,
    },
    /// The read of a template expansion (the form's Enter) answered; `Err` says why not.
    ExpansionRead {
        server: ServerId,
        uri: String,
        result: Result<ExpansionRead, String>,
    },
    /// The bundle `Y` asked for is read and rendered (or could not be).
    Bundle(Result<Bundled, String>),
    /// The host delivery [`Effect::HostPreview`] asked for is made (or could not be).
    HostPreviewed {
        host: crate::hosts::Host,
        result: Result<crate::tui::agent::HostPreview, String>,
    },
    /// The clipboard sequence was written; `note`: what else the person must know (tmux).
    Copied {
        what: String,
        note: Option<&'static str>,
    },
    /// The install the hand-off overlay asked for is planned (nothing written yet).
    InstallPlanned(Result<Box<InstallPlan>, String>),
    /// The confirmed install ended: what was done, or why not.
    Installed(Result<Vec<String>, String>),
    /// What mcpick writes for the set, read again (an install recorded a delivery): the
    /// resolutions leave it out from now on.
    OwnOutputs(Arc<crate::context::OwnOutputs>),
    /// The browser's marks settled and the set file (its path) has a session-start delivery
    /// (the keeper tells): write it again ([`Effect::Redeliver`]).
    Redeliver(std::path::PathBuf),
    /// The servers the person approved in the browser are remembered (they may start now), or
    /// why they could not be.
    Approved {
        servers: Vec<ServerId>,
        result: Result<(), String>,
    },
    /// Ask to quit (a signal).
    Quit,
}

/// A template expansion that read: the document for the contents pane and how long it may be
/// kept (the server's `ttlMs`).
#[derive(Debug, Clone)]
pub struct ExpansionRead {
    pub doc: Arc<ContentsDoc>,
    pub fresh_for: Option<std::time::Duration>,
}

#[derive(Debug)]
pub enum ServerEvent {
    /// Connected; `resources` false when the server has no `resources` capability.
    Connected {
        protocol: String,
        transport: String,
        resources: bool,
        /// What the server said about itself (name, version, capabilities).
        info: ServerInfo,
    },
    /// One page of `resources/list`.
    Page {
        number: usize,
        received: usize,
        resources: Vec<Resource>,
    },
    /// How far a re-list has come (its pages arrive together, as [`ServerEvent::Relisted`]).
    Relisting { number: usize, received: usize },
    /// The listing finished.
    Listed { count: usize, capped: bool },
    /// Connecting or listing failed: its kind, and the words for a person.
    Failed(crate::mcp::Failure),
    /// The server announced a list change and was listed again: its whole listing now.
    Relisted { resources: Vec<Resource> },
    /// The server announced a list change and was listed again, and most of the last
    /// listing stayed: what to remove, change in place and append (see
    /// [`crate::catalog::ListingEdit`]).
    Edited(crate::mcp::ListingEdit),
    /// The server announced that this resource changed.
    Updated(String),
    /// The connection dropped; the next attempt to connect is at `at`.
    Retrying {
        reason: String,
        attempt: u32,
        at: std::time::SystemTime,
    },
    /// The server's resource templates (`resources/templates/list`).
    Templates(Vec<rmcp::model::ResourceTemplate>),
}

/// What the runtime should do: data, never executed here.
#[derive(Debug)]
pub enum Effect {
    /// Connect to server `server` and list its resources, tagging events with `generation`:
    /// page by page, or (`relist`, connecting again) as one listing that replaces the one
    /// shown, which stays until then.
    Connect {
        server: ServerId,
        generation: u64,
        relist: bool,
    },
    /// Run a search on the worker.
    Search {
        generation: u64,
        snapshot: Snapshot,
        query: String,
    },
    /// Sort every resource of `snapshot` by `key` in the background: by advancing `from`
    /// (the last order of that key, and the ids touched since it) when given and possible.
    Sort {
        generation: u64,
        key: SortKey,
        snapshot: Snapshot,
        names: Vec<Arc<str>>,
        from: Option<Box<SortFrom>>,
    },
    /// Read a resource for the contents pane (after a short rest; replaces any read in flight).
    Read {
        generation: u64,
        item: ItemId,
        uri: String,
    },
    /// Read a template expansion before it may join the catalogue; answer with
    /// [`Msg::ExpansionRead`].
    ReadExpansion { server: ServerId, uri: String },
    /// Stop the contents read in flight.
    CancelRead,
    /// Suspend the process (Ctrl-Z).
    Suspend,
    /// Resolve the agent's view off the UI thread ([`crate::tui::agent::resolve_snapshot`]) and
    /// answer with [`Msg::Resolved`].
    Resolve(Box<ResolveRequest>),
    /// Read these resources (item, URI, the [`crate::context::content::label`] counted with
    /// its text) and count their tokens ([`crate::context::measure`]), answering one
    /// [`Msg::Measured`] each; replaces the batch in flight (latest wins).
    Measure {
        generation: u64,
        tokenizer: TokenizerKind,
        items: Vec<(ItemId, String, String)>,
    },
    /// Stop the measuring batch in flight.
    CancelMeasure,
    /// Apply this change to the `--set` file as it is on disk (under its lock, see
    /// [`crate::context::SetFile::update`]) and save it; answer [`Msg::Saved`]. Saves run in
    /// `seq` order.
    Save { seq: u64, change: SetChange },
    /// Ask server `server` for completions of a template variable (debounced, newest wins);
    /// answer [`Msg::Completions`].
    Complete {
        generation: u64,
        server: ServerId,
        template: String,
        argument: String,
        value: String,
        context: Vec<(String, String)>,
    },
    /// Run the OAuth sign-in for server `server` (a browser opens; the URL is also told as
    /// [`Msg::SignIn`] lines); answer [`Msg::SignedIn`].
    SignIn { server: ServerId },
    /// A big listing finished: give the memory its pages used back to the system.
    ReleaseMemory,
    /// Put `text` on the clipboard through the terminal (OSC 52); `what` names it.
    Copy { what: String, text: String },
    /// Read the resources the request's resolution includes and render the bundle as
    /// `mcpick export` does; answer [`Msg::Bundle`].
    Bundle(Box<ResolveRequest>),
    /// Read what the request's resolution includes and make `host`'s session-start delivery
    /// of it for the set file `set`, as `mcpick preview --host` does; answer
    /// [`Msg::HostPreviewed`]. Replaces the one in flight (latest wins).
    HostPreview {
        host: crate::hosts::Host,
        set: std::path::PathBuf,
        request: Box<ResolveRequest>,
    },
    /// Write the deliveries recorded for the set file `set` again from the request's
    /// resolution, read through the browser's own connections (no second mcpick, no server
    /// listed again); one at a time, silently.
    Redeliver {
        set: std::path::PathBuf,
        request: Box<ResolveRequest>,
    },
    /// Plan `host`'s entry serving `set` as `name` in `scope`, and its session-start delivery
    /// (as `mcpick install --dry-run`); answer [`Msg::InstallPlanned`].
    PlanInstall {
        host: crate::hosts::Host,
        scope: crate::hosts::Scope,
        set: std::path::PathBuf,
        name: String,
    },
    /// Make a planned install: the entry (refused if the file changed since it was shown),
    /// then the delivery of what the request's resolution includes; answer [`Msg::Installed`].
    Install {
        plan: Box<InstallPlan>,
        request: Box<ResolveRequest>,
    },
    /// Remember the person's approval of these held servers, as `mcpick trust` does; answer
    /// [`Msg::Approved`].
    Approve(Vec<ServerId>),
}

/// A save that worked: the set as saved (with what other processes had saved before).
#[derive(Debug)]
pub struct SaveReport {
    pub set: Box<ContextSet>,
    /// The file held changes this browser had not seen.
    pub others_changed: bool,
    /// Targets and policy fields another process had changed differently (ours won).
    pub applied: Applied,
}

/// A save that failed: why, and the change, to send again with the next one.
#[derive(Debug)]
pub struct SaveFailure {
    pub error: String,
    pub change: SetChange,
}

/// The last order of a key and the ids touched since it ([`Effect::Sort`]).
#[derive(Debug)]
pub struct SortFrom {
    pub last: Arc<SortedList>,
    pub touched: Option<Vec<ItemId>>,
}
