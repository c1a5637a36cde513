//! The pure core of the browser: state, `update(msg) -> Vec<Effect>`, and the actions keys
//! resolve to. No tokio, no terminal, no clock: tests drive it with messages and read its
//! fields and effects. Rendering (`ui::render`) reads this state and never changes it.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crossterm::event::{KeyEvent, KeyEventKind, MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};
use rmcp::model::Resource;

use super::agent::{AgentPreview, ContextState, ResolveRequest, next_audience, step_budget};
use super::keymap::{Action, Chord, Keymap, Mode};
use super::layout::{Areas, layout};
use super::preview::PreviewDoc;
use super::theme::Theme;
use crate::catalog::{
    Catalogue, ItemId, Search, SearchResults, ServerId, Snapshot, SortKey, UriTree,
};
use crate::context::{
    Applied, ContextSet, Effective, Mark, Measure, SetChange, Target, TokenizerKind,
};
use crate::mcp::log::ServerLog;
use crate::sanitize;

/// Preview results kept, most recent first.
const PREVIEW_CACHE: usize = 64;
/// Catalogues up to this size open with every folder expanded.
const SMALL_CATALOGUE: usize = 40;
/// Rows the mouse wheel moves.
const WHEEL_ROWS: usize = 3;

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
    /// The list sorted in the background; `lens` are the per-server lengths it covers.
    Sorted {
        generation: u64,
        key: SortKey,
        ids: Vec<ItemId>,
        lens: Vec<usize>,
    },
    /// A preview read finished.
    Preview {
        generation: u64,
        item: ItemId,
        doc: Arc<PreviewDoc>,
    },
    /// A resolution finished (see [`super::agent`]).
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
    /// Ask to quit (a signal).
    Quit,
}

#[derive(Debug)]
pub enum ServerEvent {
    /// Connected; `resources` false when the server has no `resources` capability.
    Connected {
        protocol: String,
        transport: String,
        resources: bool,
    },
    /// One page of `resources/list`.
    Page {
        number: usize,
        received: usize,
        resources: Vec<Resource>,
    },
    /// The listing finished.
    Listed { count: usize, capped: bool },
    /// Connecting or listing failed (already explained for a person).
    Failed(String),
}

/// What the runtime should do: data, never executed here.
#[derive(Debug)]
pub enum Effect {
    /// Connect to server `server` and list its resources, tagging events with `generation`.
    Connect { server: ServerId, generation: u64 },
    /// Run a search on the worker.
    Search {
        generation: u64,
        snapshot: Snapshot,
        query: String,
    },
    /// Sort every resource of `snapshot` by `key` in the background.
    Sort {
        generation: u64,
        key: SortKey,
        snapshot: Snapshot,
        names: Vec<Arc<str>>,
    },
    /// Read a resource for the preview (after a short rest; replaces any read in flight).
    Read {
        generation: u64,
        item: ItemId,
        uri: String,
    },
    /// Stop the preview read in flight.
    CancelRead,
    /// Suspend the process (Ctrl-Z).
    Suspend,
    /// Resolve the agent's view off the UI thread ([`super::agent::resolve_snapshot`]) and
    /// answer with [`Msg::Resolved`].
    Resolve(Box<ResolveRequest>),
    /// Read these resources and count their tokens ([`crate::context::measure`]), answering
    /// one [`Msg::Measured`] each; replaces the batch in flight (latest wins).
    Measure {
        generation: u64,
        tokenizer: TokenizerKind,
        items: Vec<(ItemId, String)>,
    },
    /// Stop the measuring batch in flight.
    CancelMeasure,
    /// Apply this change to the `--set` file as it is on disk (under its lock, see
    /// [`crate::context::SetFile::update`]) and save it; answer [`Msg::Saved`]. Saves run in
    /// `seq` order.
    Save { seq: u64, change: SetChange },
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

/// The state of one server, as the header shows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    Connecting,
    Loading { page: usize, received: usize },
    Ready { count: usize, capped: bool },
    NoResources,
    Failed(String),
}

#[derive(Debug, Clone)]
pub struct ServerState {
    /// Sanitised.
    pub name: String,
    pub status: Status,
    pub generation: u64,
    /// Protocol version and transport once connected (sanitised).
    pub detail: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Tree,
    List,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    Help {
        scroll: usize,
    },
    /// `filter`: only this server's entries; `scroll`: rows up from the newest.
    Log {
        filter: Option<ServerId>,
        scroll: usize,
    },
}

/// What the preview pane is about.
#[derive(Debug, Clone, Default)]
pub struct PreviewState {
    pub item: Option<ItemId>,
    pub generation: u64,
    pub loading: bool,
    /// First row shown (after wrapping).
    pub scroll: usize,
}

/// Cursor and first visible row of a pane.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub index: usize,
    pub offset: usize,
}

/// What the cursor is on.
#[derive(Debug, Clone, PartialEq)]
pub enum Selection {
    None,
    Item(ItemId),
    /// A folder or server row of the tree: its label and resource count.
    Folder {
        label: String,
        count: u32,
        server: bool,
    },
}

/// A server to show: its name and, when its definition is unusable, why.
#[derive(Debug, Clone)]
pub struct ServerSetup {
    pub name: String,
    pub error: Option<String>,
}

pub struct App {
    pub catalogue: Catalogue,
    pub tree: UriTree,
    pub servers: Vec<ServerState>,
    pub logs: Vec<ServerLog>,
    pub view: View,
    /// Browse, Search or Preview (overlays set Help and Log).
    pub focus: Mode,
    pub overlay: Option<Overlay>,
    pub query: String,
    pub search_generation: u64,
    /// The matches of the current query, best first (partial while searching).
    pub matched: Option<Vec<ItemId>>,
    pub searching: bool,
    /// (scanned, total) of the search in progress.
    pub search_progress: (usize, usize),
    /// The generation whose matches filter the tree.
    filter_generation: u64,
    /// The query whose best match the tree cursor last jumped to, and whether that result was
    /// complete: a search re-run because pages arrived does not move the cursor again.
    jumped: Option<(String, bool)>,
    /// Pages arrived while a search ran: search again when it completes.
    research: bool,
    /// The query whose complete result last reset the list cursor.
    list_reset_for: Option<String>,
    pub order: SortKey,
    /// Every resource: sorted by `list_key` (a tail of later arrivals unsorted).
    pub list: Vec<ItemId>,
    pub list_key: Option<SortKey>,
    sort_generation: u64,
    sort_in_flight: bool,
    list_stale: bool,
    pub tree_cursor: Cursor,
    pub list_cursor: Cursor,
    /// The node the tree cursor is on, to keep it there while rows come and go.
    tree_anchor: Option<u32>,
    pub preview: PreviewState,
    cache: HashMap<ItemId, Arc<PreviewDoc>>,
    cache_order: VecDeque<ItemId>,
    pub size: (u16, u16),
    pub theme: Theme,
    pub keymap: Keymap,
    pub search: Search,
    pub quit: bool,
    /// A one-line message for the status line (sanitised).
    pub notice: Option<String>,
    /// A one-line note on the last mark or policy change (sanitised).
    pub info: Option<String>,
    /// The context set and what is derived from it.
    pub context: ContextState,
    /// The agent view is open.
    pub agent_open: bool,
    /// First row of the agent view shown.
    pub agent_scroll: usize,
}

impl App {
    pub fn new(servers: Vec<ServerSetup>, keymap: Keymap, theme: Theme, log_lines: usize) -> Self {
        let mut catalogue = Catalogue::new();
        let mut states = Vec::new();
        let mut tree = UriTree::default();
        for setup in &servers {
            // Two servers with one name would share a catalogue slot: keep them apart.
            let mut name = sanitize::line(&setup.name, 80);
            let mut n = 2;
            while states.iter().any(|s: &ServerState| s.name == name) {
                name = format!("{}#{n}", sanitize::line(&setup.name, 80));
                n += 1;
            }
            catalogue.server(&name);
            tree.add_server(&name);
            states.push(ServerState {
                name,
                status: match &setup.error {
                    Some(e) => Status::Failed(sanitize::line(e, 1000)),
                    None => Status::Connecting,
                },
                generation: 1,
                detail: None,
            });
        }
        tree.refresh();
        App {
            logs: states.iter().map(|_| ServerLog::new(log_lines)).collect(),
            catalogue,
            tree,
            servers: states,
            view: View::Tree,
            focus: Mode::Browse,
            overlay: None,
            query: String::new(),
            search_generation: 0,
            matched: None,
            searching: false,
            search_progress: (0, 0),
            filter_generation: 0,
            jumped: None,
            research: false,
            list_reset_for: None,
            order: SortKey::default(),
            list: Vec::new(),
            list_key: None,
            sort_generation: 0,
            sort_in_flight: false,
            list_stale: false,
            tree_cursor: Cursor::default(),
            list_cursor: Cursor::default(),
            tree_anchor: None,
            preview: PreviewState::default(),
            cache: HashMap::new(),
            cache_order: VecDeque::new(),
            size: (80, 24),
            theme,
            keymap,
            search: Search::default(),
            quit: false,
            notice: None,
            info: None,
            context: ContextState::default(),
            agent_open: false,
            agent_scroll: 0,
        }
    }

    /// Installs the context set loaded from `--set` (or, with `load_error`, an empty set and
    /// saving off: the file is never overwritten). Returns the first resolution's effect.
    pub fn set_context(&mut self, set: ContextSet, load_error: Option<String>) -> Vec<Effect> {
        let mut set = set;
        set.marks.clear_history();
        if let Some(e) = &load_error {
            self.notice = Some(sanitize::line(
                &format!("{e} (marks are not saved this session)"),
                500,
            ));
        }
        self.context = ContextState::new(set, load_error);
        self.context.base = self.context.set.clone();
        self.request_resolve()
    }

    /// The effects to run at start: connect every server whose definition is usable.
    pub fn start(&mut self) -> Vec<Effect> {
        self.servers
            .iter()
            .enumerate()
            .filter(|(_, s)| s.status == Status::Connecting)
            .map(|(i, s)| Effect::Connect {
                server: i as ServerId,
                generation: s.generation,
            })
            .collect()
    }

    /// The mode keys are read in.
    pub fn mode(&self) -> Mode {
        match self.overlay {
            Some(Overlay::Help { .. }) => Mode::Help,
            Some(Overlay::Log { .. }) => Mode::Log,
            None if self.agent_open => Mode::Agent,
            None => self.focus,
        }
    }

    pub fn areas(&self) -> Areas {
        layout(
            Rect::new(0, 0, self.size.0, self.size.1),
            self.header_lines(),
            self.focus == Mode::Preview,
        )
    }

    pub fn header_lines(&self) -> u16 {
        self.servers.len().clamp(1, 4) as u16
    }

    /// Rows of the tree or list pane inside its border.
    pub fn page_rows(&self) -> usize {
        (self.areas().main.height.saturating_sub(2) as usize).max(1)
    }

    // ---- rows ----------------------------------------------------------------------

    /// The ids the list view shows: the matches (best first) while searching, else every
    /// resource in the chosen order.
    pub fn list_ids(&self) -> &[ItemId] {
        match &self.matched {
            Some(m) if !self.query.is_empty() => m,
            _ => &self.list,
        }
    }

    pub fn row_count(&self) -> usize {
        match self.view {
            View::Tree => self.tree.row_count(),
            View::List => self.list_ids().len(),
        }
    }

    pub fn cursor(&self) -> Cursor {
        match self.view {
            View::Tree => self.tree_cursor,
            View::List => self.list_cursor,
        }
    }

    fn cursor_mut(&mut self) -> &mut Cursor {
        match self.view {
            View::Tree => &mut self.tree_cursor,
            View::List => &mut self.list_cursor,
        }
    }

    pub fn selection(&self) -> Selection {
        let index = self.cursor().index;
        match self.view {
            View::List => self
                .list_ids()
                .get(index)
                .map_or(Selection::None, |&id| Selection::Item(id)),
            View::Tree => match self.tree.window(index, 1).first() {
                None => Selection::None,
                Some(&row) => {
                    let view = self.tree.view(row);
                    match view.item {
                        // A resource (also one that is a folder too): preview it.
                        Some(id) => Selection::Item(id),
                        None => Selection::Folder {
                            label: view.label,
                            count: view.count,
                            server: view.server,
                        },
                    }
                }
            },
        }
    }

    /// Keeps the cursor within the rows and visible.
    fn clamp(&mut self) {
        let rows = self.row_count();
        let page = self.page_rows();
        let c = self.cursor_mut();
        c.index = c.index.min(rows.saturating_sub(1));
        if c.index < c.offset {
            c.offset = c.index;
        }
        if c.index >= c.offset + page {
            c.offset = c.index + 1 - page;
        }
        c.offset = c.offset.min(rows.saturating_sub(page));
        if self.view == View::Tree {
            self.tree_anchor = self
                .tree
                .window(self.tree_cursor.index, 1)
                .first()
                .map(|r| r.head);
        }
    }

    /// After the tree's rows changed: puts the cursor back on the node it was on.
    fn reanchor(&mut self) {
        self.tree.refresh();
        if let Some(i) = self.tree_anchor.and_then(|a| self.tree.row_of_node(a)) {
            self.tree_cursor.index = i;
        }
        if self.view == View::Tree {
            self.clamp();
        }
    }

    fn move_to(&mut self, index: usize) {
        self.cursor_mut().index = index;
        self.clamp();
    }

    fn move_by(&mut self, delta: isize) {
        let i = self.cursor().index;
        let rows = self.row_count();
        let target = if delta < 0 {
            i.saturating_sub(delta.unsigned_abs())
        } else {
            (i + delta as usize).min(rows.saturating_sub(1))
        };
        self.move_to(target);
    }

    // ---- update --------------------------------------------------------------------

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let mut fx = match msg {
            Msg::Key(key) => {
                if key.kind != KeyEventKind::Press {
                    return Vec::new();
                }
                self.on_key(key)
            }
            Msg::Mouse(mouse) => self.on_mouse(mouse),
            Msg::Resize(w, h) => {
                self.size = (w, h);
                self.clamp();
                self.clamp_preview();
                Vec::new()
            }
            Msg::Paste(text) => {
                if self.mode() == Mode::Search {
                    self.query.push_str(&sanitize::line(&text, 500));
                    self.query_changed()
                } else {
                    Vec::new()
                }
            }
            Msg::Server {
                server,
                generation,
                event,
            } => self.on_server(server, generation, event),
            Msg::SearchResults(results) => self.on_results(results),
            Msg::Sorted {
                generation,
                key,
                ids,
                lens,
            } => self.on_sorted(generation, key, ids, lens),
            Msg::Preview {
                generation,
                item,
                doc,
            } => {
                self.remember(item, doc);
                if generation == self.preview.generation && self.preview.item == Some(item) {
                    self.preview.loading = false;
                }
                Vec::new()
            }
            Msg::Resolved(agent) => self.on_resolved(agent),
            Msg::Measured {
                generation,
                tokenizer,
                item,
                measure,
            } => self.on_measured(generation, tokenizer, item, measure),
            Msg::Saved { seq, result } => self.on_saved(seq, result),
            Msg::SetOnDisk(set) => self.on_set_on_disk(*set),
            Msg::Quit => {
                self.quit = true;
                Vec::new()
            }
        };
        fx.extend(self.sync_preview());
        fx
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let chord = Chord::from_event(&key);
        let mode = self.mode();
        if let Some(action) = self.keymap.resolve(mode, chord) {
            return self.apply(action);
        }
        if mode == Mode::Search
            && let crossterm::event::KeyCode::Char(c) = chord.code
            && (chord.mods - crossterm::event::KeyModifiers::SHIFT).is_empty()
        {
            self.query.push(c);
            return self.query_changed();
        }
        Vec::new()
    }

    /// Does what a key bound to `action` does: the one place where behaviour lives.
    pub fn apply(&mut self, action: Action) -> Vec<Effect> {
        let mode = self.mode();
        let page = self.page_rows() as isize;
        match (mode, action) {
            (_, Action::Quit) => self.quit = true,
            (_, Action::Suspend) => return vec![Effect::Suspend],
            (Mode::Help, Action::Close) | (Mode::Help, Action::Help) => self.overlay = None,
            (_, Action::Help) => self.overlay = Some(Overlay::Help { scroll: 0 }),
            (Mode::Log, Action::Close) | (Mode::Log, Action::Log) => self.overlay = None,
            (_, Action::Log) => {
                self.overlay = Some(Overlay::Log {
                    filter: None,
                    scroll: 0,
                })
            }
            (Mode::Log, Action::LogFilter) => {
                if let Some(Overlay::Log { filter, scroll }) = &mut self.overlay {
                    *filter = match *filter {
                        None if !self.servers.is_empty() => Some(0),
                        Some(s) if (s as usize) + 1 < self.servers.len() => Some(s + 1),
                        _ => None,
                    };
                    *scroll = 0;
                }
            }
            (Mode::Help | Mode::Log, a) => self.scroll_overlay(a, page as usize),
            (_, Action::AgentView) | (Mode::Agent, Action::Close) => return self.toggle_agent(),
            (_, Action::Pin) => return self.mark_selected(Some(Mark::Pin)),
            (_, Action::Exclude) => return self.mark_selected(Some(Mark::Exclude)),
            (_, Action::Unmark) => return self.mark_selected(None),
            (_, Action::PinResults) => return self.mark_results(Mark::Pin),
            (_, Action::ExcludeResults) => return self.mark_results(Mark::Exclude),
            (_, Action::Undo) => return self.undo(),
            (_, Action::BudgetUp | Action::BudgetDown) => {
                let policy = &mut self.context.set.policy;
                policy.budget = step_budget(policy.budget, action == Action::BudgetUp);
                self.info = Some(match policy.budget {
                    Some(b) => format!("budget {} tokens", super::ui::thousands(b as usize)),
                    None => "no budget".to_string(),
                });
                return self.context_changed(Vec::new());
            }
            (_, Action::CycleAudience) => {
                let policy = &mut self.context.set.policy;
                policy.audience = next_audience(policy.audience);
                self.info = Some(format!("audience filter: {}", policy.audience.name()));
                return self.context_changed(Vec::new());
            }
            (Mode::Agent, a) => {
                self.scroll_agent(a, page);
                return self.sync_measure();
            }
            (Mode::Preview, Action::Up) => self.scroll_preview(-1),
            (Mode::Preview, Action::Down) => self.scroll_preview(1),
            (Mode::Preview, Action::PageUp) => self.scroll_preview(-page),
            (Mode::Preview, Action::PageDown) => self.scroll_preview(page),
            (Mode::Preview, Action::Top) => self.preview.scroll = 0,
            (Mode::Preview, Action::Bottom) => self.scroll_preview(isize::MAX / 2),
            (_, Action::FocusList) => self.focus = Mode::Browse,
            (_, Action::PreviewDown) => self.scroll_preview(1),
            (_, Action::PreviewUp) => self.scroll_preview(-1),
            (_, Action::Up) => self.move_by(-1),
            (_, Action::Down) => self.move_by(1),
            (_, Action::PageUp) => self.move_by(-page),
            (_, Action::PageDown) => self.move_by(page),
            (_, Action::Top) => self.move_to(0),
            (_, Action::Bottom) => self.move_to(usize::MAX),
            (_, Action::Expand) => return self.expand(true),
            (_, Action::Collapse) => self.collapse(),
            (_, Action::Toggle) => return self.expand(false),
            (_, Action::ExpandAll) => {
                if self.view == View::Tree {
                    self.tree.set_all_expanded(true);
                    self.reanchor();
                }
            }
            (_, Action::CollapseAll) => {
                if self.view == View::Tree {
                    self.tree.set_all_expanded(false);
                    // The cursor's folder may now be hidden: go to its server.
                    self.tree.refresh();
                    let server = self.tree_anchor_server();
                    self.tree_anchor = None;
                    self.tree_cursor.index = server;
                    self.clamp();
                }
            }
            (_, Action::Parent) => self.parent(),
            (_, Action::ToggleView) => {
                self.view = match self.view {
                    View::Tree => View::List,
                    View::List => View::Tree,
                };
                self.clamp();
                return self.ensure_sorted();
            }
            (_, Action::CycleOrder) => {
                if self.view == View::Tree {
                    self.view = View::List;
                } else {
                    self.order = self.order.next();
                }
                self.clamp();
                return self.ensure_sorted();
            }
            (_, Action::Search) => self.focus = Mode::Search,
            (_, Action::ClearSearch) => {
                self.focus = Mode::Browse;
                if !self.query.is_empty() {
                    self.query.clear();
                    return self.query_changed();
                }
            }
            (_, Action::AcceptSearch) => self.focus = Mode::Browse,
            (_, Action::DeleteChar) => {
                if self.query.pop().is_some() {
                    return self.query_changed();
                }
            }
            (_, Action::ClearQuery) => {
                if !self.query.is_empty() {
                    self.query.clear();
                    return self.query_changed();
                }
            }
            (_, Action::FocusPreview) => {
                if self.preview.item.is_some() {
                    self.focus = Mode::Preview;
                }
            }
            (_, Action::Reload) => {
                if let Some(item) = self.preview.item {
                    self.cache.remove(&item);
                    self.cache_order.retain(|&i| i != item);
                    self.preview.item = None; // sync_preview reads it again
                }
            }
            (_, Action::LogFilter | Action::Close) => {}
        }
        Vec::new()
    }

    // ---- marks and the agent view -------------------------------------------------

    /// What a mark key applies to: on a tree folder its URI prefix (a server row: the whole
    /// server), on a resource its exact URI.
    pub fn mark_target(&self) -> Option<Target> {
        let exact = |id: ItemId| {
            let item = self.catalogue.get(id)?;
            Some(Target::exact(
                self.catalogue.server_name(id.server).as_ref(),
                item.uri(),
            ))
        };
        match self.view {
            View::List => match self.selection() {
                Selection::Item(id) => exact(id),
                _ => None,
            },
            View::Tree => {
                let &row = self.tree.window(self.tree_cursor.index, 1).first()?;
                let view = self.tree.view(row);
                if view.server {
                    let id = self.tree.first_item_under(row);
                    let name = match id {
                        Some(id) => self.catalogue.server_name(id.server).to_string(),
                        None => self
                            .servers
                            .iter()
                            .find(|s| s.name == view.label)?
                            .name
                            .clone(),
                    };
                    Some(Target::prefix(name, ""))
                } else if view.folder {
                    let (server, prefix) = self.tree.uri_prefix(&self.catalogue, row)?;
                    Some(Target::prefix(
                        self.catalogue.server_name(server).as_ref(),
                        prefix,
                    ))
                } else {
                    exact(view.item?)
                }
            }
        }
    }

    /// The mark that decides a resource (its own or inherited).
    pub fn mark_of(&self, id: ItemId) -> Option<Effective<'_>> {
        let item = self.catalogue.get(id)?;
        self.context
            .set
            .marks
            .effective(self.catalogue.server_name(id.server), item.uri())
    }

    /// The mark that decides a tree row: a resource's, or a folder's prefix mark (its own,
    /// `prefix == Some(its prefix)`, or inherited from a shorter one).
    pub fn row_mark(&self, row: crate::catalog::tree::Row) -> Option<(Mark, bool)> {
        let view = self.tree.view(row);
        let marks = &self.context.set.marks;
        if marks.is_empty() {
            return None;
        }
        if !view.folder
            && let Some(id) = view.item
        {
            return self.mark_of(id).map(|e| (e.mark, e.is_direct()));
        }
        let (server, prefix) = if view.server {
            let id = self.tree.first_item_under(row)?;
            (id.server, String::new())
        } else {
            self.tree.uri_prefix(&self.catalogue, row)?
        };
        let e = marks.effective_prefix(self.catalogue.server_name(server), &prefix)?;
        Some((e.mark, e.prefix == Some(prefix.as_str())))
    }

    fn mark_selected(&mut self, mark: Option<Mark>) -> Vec<Effect> {
        let Some(target) = self.mark_target() else {
            self.info = Some("nothing to mark here".into());
            return Vec::new();
        };
        let shown = sanitize::line(&target.pattern.to_string(), 200);
        let marks = &mut self.context.set.marks;
        let changed = match mark {
            Some(m) => {
                let now = marks.toggle(target.clone(), m);
                self.info = Some(match now {
                    Some(Mark::Pin) => format!("pinned {shown}"),
                    Some(Mark::Exclude) => format!("excluded {shown}"),
                    None => format!("unmarked {shown}"),
                });
                true
            }
            None => {
                let changed = marks.set(target.clone(), None);
                self.info = Some(if changed {
                    format!("unmarked {shown}")
                } else if let crate::context::Pattern::Exact(uri) = &target.pattern
                    && let Some(e) = marks.effective(&target.server, uri)
                    && let Some(p) = e.prefix
                {
                    format!(
                        "{shown}: the {} mark comes from {}*; unmark that folder",
                        e.mark.name(),
                        sanitize::line(p, 200)
                    )
                } else {
                    format!("{shown} has no mark")
                });
                changed
            }
        };
        if changed {
            self.context_changed(vec![target])
        } else {
            Vec::new()
        }
    }

    fn mark_results(&mut self, mark: Mark) -> Vec<Effect> {
        let ids: Vec<ItemId> = match &self.matched {
            Some(m) if !self.query.is_empty() => m.clone(),
            _ => {
                self.info = Some("no search results to mark: search first".into());
                return Vec::new();
            }
        };
        let targets: Vec<Target> = ids
            .iter()
            .filter_map(|&id| {
                let item = self.catalogue.get(id)?;
                Some(Target::exact(
                    self.catalogue.server_name(id.server).as_ref(),
                    item.uri(),
                ))
            })
            .collect();
        let n = self.context.set.marks.set_many(targets.clone(), Some(mark));
        self.info = Some(format!(
            "{} {} search result{} (u undoes)",
            if mark == Mark::Pin {
                "pinned"
            } else {
                "excluded"
            },
            super::ui::thousands(n),
            if n == 1 { "" } else { "s" }
        ));
        if n > 0 {
            self.context_changed(targets)
        } else {
            Vec::new()
        }
    }

    fn undo(&mut self) -> Vec<Effect> {
        match self.context.set.marks.undo() {
            Some(targets) => {
                self.info = Some(format!(
                    "undone: {} mark{}",
                    targets.len(),
                    if targets.len() == 1 { "" } else { "s" }
                ));
                self.context_changed(targets)
            }
            None => {
                self.info = Some("nothing to undo".into());
                Vec::new()
            }
        }
    }

    fn toggle_agent(&mut self) -> Vec<Effect> {
        self.agent_open = !self.agent_open;
        self.agent_scroll = 0;
        if self.agent_open {
            self.sync_measure()
        } else if !self.context.measuring.is_empty() {
            self.context.measuring.clear();
            vec![Effect::CancelMeasure]
        } else {
            Vec::new()
        }
    }

    fn scroll_agent(&mut self, action: Action, page: isize) {
        let rows = super::ui::agent_row_count(self);
        let delta = match action {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -page,
            Action::PageDown => page,
            Action::Top => isize::MIN / 2,
            Action::Bottom => isize::MAX / 2,
            _ => 0,
        };
        let s = self.agent_scroll as isize;
        self.agent_scroll = s
            .saturating_add(delta)
            .clamp(0, rows.saturating_sub(1) as isize) as usize;
    }

    /// After a mark or policy change (`touched`: the targets whose marks may have changed):
    /// save the change and resolve again. The save carries the change, not the set: it is
    /// applied to the file as other processes left it.
    fn context_changed(&mut self, touched: Vec<Target>) -> Vec<Effect> {
        let mut fx = Vec::new();
        let c = &mut self.context;
        let change = SetChange::between(&c.base, &c.set, touched.iter().cloned());
        for target in touched {
            let now = c.set.marks.get(&target);
            c.base.marks.set(target, now);
        }
        c.base.marks.clear_history();
        c.base.policy = c.set.policy;
        if !change.is_empty() {
            if c.can_save() {
                let change = match c.failed_change.take() {
                    Some(failed) => failed.then(change),
                    None => change,
                };
                c.save_seq += 1;
                fx.push(Effect::Save {
                    seq: c.save_seq,
                    change,
                });
            } else {
                c.unsaved = true;
            }
        }
        fx.extend(self.request_resolve());
        fx
    }

    /// Takes the set as another process left it (merged with this browser's saves): marks,
    /// policy and their definitions; the undo history stays.
    fn adopt(&mut self, disk: ContextSet) -> Vec<Effect> {
        let c = &mut self.context;
        if disk.policy.tokenizer != c.set.policy.tokenizer {
            c.measures.clear();
        }
        c.set.marks.adopt(disk.marks.clone());
        c.set.policy = disk.policy;
        for (name, spec) in &disk.servers {
            c.set
                .servers
                .entry(name.clone())
                .or_insert_with(|| spec.clone());
        }
        c.set.extra = disk.extra.clone();
        c.base = disk;
        c.others_pending = false;
        self.request_resolve()
    }

    /// The runtime saw another process save the set file.
    fn on_set_on_disk(&mut self, disk: ContextSet) -> Vec<Effect> {
        let c = &self.context;
        if !c.can_save() {
            return Vec::new();
        }
        if c.save_seq != c.saved_seq || c.failed_change.is_some() {
            // A save of ours is on its way (or must be sent again): it merges, and its
            // answer brings the file's state.
            self.context.others_pending = true;
            return Vec::new();
        }
        let n = disk.marks.len();
        self.info = Some(format!(
            "reloaded: another process changed the set ({n} mark{})",
            if n == 1 { "" } else { "s" }
        ));
        self.adopt(disk)
    }

    /// Asks for a resolution, or (one in flight) for one more after it.
    fn request_resolve(&mut self) -> Vec<Effect> {
        let c = &mut self.context;
        if c.resolve_in_flight {
            c.resolve_dirty = true;
            return Vec::new();
        }
        c.resolve_generation += 1;
        c.resolve_in_flight = true;
        c.resolve_dirty = false;
        c.resolved_len = self.catalogue.len();
        let listed = self
            .servers
            .iter()
            .filter(|s| matches!(s.status, Status::Ready { .. } | Status::NoResources))
            .map(|s| s.name.clone())
            .collect();
        let unavailable = self
            .servers
            .iter()
            .filter_map(|s| match &s.status {
                Status::Failed(why) => Some((s.name.clone(), why.clone())),
                _ => None,
            })
            .collect();
        vec![Effect::Resolve(Box::new(ResolveRequest {
            generation: c.resolve_generation,
            snapshot: self.catalogue.snapshot(),
            names: (0..self.catalogue.server_count())
                .map(|s| self.catalogue.server_name(s as ServerId).clone())
                .collect(),
            listed,
            unavailable,
            marks: c.set.marks.clone(),
            policy: c.set.policy,
            measures: c.measures.clone(),
        }))]
    }

    fn on_resolved(&mut self, agent: Arc<AgentPreview>) -> Vec<Effect> {
        if agent.generation != self.context.resolve_generation {
            return Vec::new(); // stale
        }
        self.context.resolve_in_flight = false;
        self.context.agent = Some(agent);
        let mut fx = Vec::new();
        if self.context.resolve_dirty {
            fx.extend(self.request_resolve());
        } else if self.agent_open {
            fx.extend(self.sync_measure());
        }
        if self.agent_open {
            let rows = super::ui::agent_row_count(self);
            self.agent_scroll = self.agent_scroll.min(rows.saturating_sub(1));
        }
        fx
    }

    /// Starts reads for the counts the latest resolution still estimates (what
    /// [`crate::context::Preview::to_measure_shown`] names for the rows on screen), unless they are all in flight.
    fn sync_measure(&mut self) -> Vec<Effect> {
        let Some(agent) = &self.context.agent else {
            return Vec::new();
        };
        let mut items = Vec::new();
        // The agent view's rows on screen (and a screenful either side, read ahead).
        let page = self.page_rows();
        let shown = self.agent_scroll.saturating_sub(page)..self.agent_scroll + 2 * page;
        for index in agent.preview.to_measure_shown(shown) {
            let Some(id) = agent.id(index) else { continue };
            let Some(item) = self.catalogue.get(id) else {
                continue;
            };
            let server = self.catalogue.server_name(id.server);
            if self.context.measures.get(server, item.uri()).is_none() {
                items.push((id, item.uri().to_string()));
            }
        }
        if items.is_empty()
            || items
                .iter()
                .all(|(id, _)| self.context.measuring.contains(id))
        {
            return Vec::new();
        }
        let c = &mut self.context;
        c.measure_generation += 1;
        c.measuring = items.iter().map(|(id, _)| *id).collect();
        c.measure_batch = items.len();
        vec![Effect::Measure {
            generation: c.measure_generation,
            tokenizer: c.set.policy.tokenizer,
            items,
        }]
    }

    fn on_measured(
        &mut self,
        generation: u64,
        tokenizer: TokenizerKind,
        item: ItemId,
        measure: Measure,
    ) -> Vec<Effect> {
        if tokenizer != self.context.set.policy.tokenizer {
            return Vec::new();
        }
        if generation == self.context.measure_generation {
            self.context.measuring.remove(&item);
        }
        let Some(resource) = self.catalogue.get(item) else {
            return Vec::new();
        };
        let server = self.catalogue.server_name(item.server).clone();
        self.context
            .measures
            .insert(&server, resource.uri(), measure);
        self.request_resolve()
    }

    fn on_saved(&mut self, seq: u64, result: Result<SaveReport, SaveFailure>) -> Vec<Effect> {
        let c = &mut self.context;
        let report = match result {
            Err(failure) => {
                c.save_error = Some(sanitize::line(&failure.error, 500));
                // Sent again with the next change (marks stay in memory meanwhile).
                c.failed_change = Some(match c.failed_change.take() {
                    Some(earlier) => earlier.then(failure.change),
                    None => failure.change,
                });
                return Vec::new();
            }
            Ok(report) => report,
        };
        if seq >= c.saved_seq {
            c.saved_seq = seq;
            if c.failed_change.is_none() {
                c.save_error = None;
            }
        }
        let conflicts = report.applied.conflicts.len() + report.applied.policy_conflicts.len();
        if conflicts > 0 {
            self.info = Some(format!(
                "{conflicts} change{} also made differently by another process: yours kept (the last save wins)",
                if conflicts == 1 { " was" } else { "s were" }
            ));
        }
        let c = &mut self.context;
        if !(report.others_changed || c.others_pending) {
            return Vec::new();
        }
        if seq != c.save_seq || c.failed_change.is_some() {
            c.others_pending = true;
            return Vec::new();
        }
        if conflicts == 0 {
            self.info = Some(format!(
                "merged: another process changed the set too ({} marks now)",
                report.set.marks.len()
            ));
        }
        self.adopt(*report.set)
    }

    /// (done, total) of the measuring batch in flight; `None` when nothing is measured.
    pub fn measure_progress(&self) -> Option<(usize, usize)> {
        let c = &self.context;
        (!c.measuring.is_empty()).then(|| (c.measure_batch - c.measuring.len(), c.measure_batch))
    }

    fn tree_anchor_server(&self) -> usize {
        // The server row above the cursor (depth 0).
        let index = self
            .tree_cursor
            .index
            .min(self.tree.row_count().saturating_sub(1));
        let mut server = 0;
        let anchor = self.tree_anchor;
        for (i, row) in self
            .tree
            .window(0, self.tree.row_count())
            .iter()
            .enumerate()
        {
            if row.depth == 0 {
                server = i;
            }
            if i >= index || Some(row.head) == anchor {
                break;
            }
        }
        server
    }

    /// Opens the folder at the cursor (`only_open`: never closes); on a resource, focuses
    /// the preview.
    fn expand(&mut self, only_open: bool) -> Vec<Effect> {
        if self.view == View::List {
            self.focus = Mode::Preview;
            return Vec::new();
        }
        let Some(&row) = self.tree.window(self.tree_cursor.index, 1).first() else {
            return Vec::new();
        };
        let view = self.tree.view(row);
        if view.folder {
            if self.matched.is_some() && !self.query.is_empty() {
                // A filtered tree is always open.
                return Vec::new();
            }
            if only_open && view.expanded {
                // Already open: step onto its first child.
                self.move_by(1);
            } else {
                self.tree.set_expanded(row, !view.expanded || only_open);
                self.reanchor();
            }
        } else if view.item.is_some() {
            self.focus = Mode::Preview;
        }
        Vec::new()
    }

    fn collapse(&mut self) {
        if self.view == View::List {
            return;
        }
        let Some(&row) = self.tree.window(self.tree_cursor.index, 1).first() else {
            return;
        };
        let view = self.tree.view(row);
        if view.folder && view.expanded && self.query.is_empty() {
            self.tree.set_expanded(row, false);
            self.reanchor();
        } else {
            self.parent();
        }
    }

    fn parent(&mut self) {
        if self.view == View::Tree
            && let Some(p) = self.tree.parent_row(self.tree_cursor.index)
        {
            self.move_to(p);
        }
    }

    fn scroll_overlay(&mut self, action: Action, page: usize) {
        let Some(overlay) = &mut self.overlay else {
            return;
        };
        let (scroll, up_is_more) = match overlay {
            Overlay::Help { scroll } => (scroll, false),
            Overlay::Log { scroll, .. } => (scroll, true),
        };
        let delta: isize = match action {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -(page as isize),
            Action::PageDown => page as isize,
            Action::Top => isize::MIN / 2,
            Action::Bottom => isize::MAX / 2,
            _ => 0,
        };
        // The log counts rows up from the newest entry.
        let delta = if up_is_more { -delta } else { delta };
        *scroll = if delta < 0 {
            scroll.saturating_sub(delta.unsigned_abs())
        } else {
            scroll.saturating_add(delta as usize).min(1_000_000)
        };
    }

    // ---- search --------------------------------------------------------------------

    fn query_changed(&mut self) -> Vec<Effect> {
        self.search_generation += 1;
        self.jumped = None;
        self.research = false;
        self.list_reset_for = None;
        if self.query.is_empty() {
            self.matched = None;
            self.searching = false;
            self.tree.set_filter(None);
            self.filter_generation = self.search_generation;
            self.reanchor();
            self.list_cursor = Cursor::default();
            self.clamp();
            return Vec::new();
        }
        self.searching = true;
        vec![self.search_effect()]
    }

    fn search_effect(&self) -> Effect {
        Effect::Search {
            generation: self.search_generation,
            snapshot: self.catalogue.snapshot(),
            query: self.query.clone(),
        }
    }

    fn on_results(&mut self, results: Arc<SearchResults>) -> Vec<Effect> {
        if results.generation != self.search_generation || self.query.is_empty() {
            return Vec::new(); // stale
        }
        let ids: Vec<ItemId> = results.matches.iter().map(|m| m.id).collect();
        self.searching = !results.complete;
        self.search_progress = (results.scanned, results.total);
        // The tree takes the first partial result and the complete one (re-filtering a big
        // tree on every partial result would cost frames).
        if results.complete || self.filter_generation != results.generation {
            self.tree.set_filter(Some(&ids));
            self.filter_generation = results.generation;
            // In a filtered tree, start on the best match: once per query typed (and once more
            // when its complete result replaces a partial one), not on every re-run.
            let jump = match &self.jumped {
                Some((query, complete)) if *query == results.query => results.complete && !complete,
                _ => true,
            };
            if jump {
                self.jumped = Some((results.query.clone(), results.complete));
            }
            if let Some(&best) = ids.first().filter(|_| jump) {
                self.tree.refresh();
                if let Some(row) = self.tree.row_of(best) {
                    self.tree_cursor.index = row;
                    self.tree_anchor = None;
                }
            }
            self.reanchor();
        }
        let first = self.matched.is_none();
        self.matched = Some(ids);
        // The list starts at the best match for each new query, not again for a re-run.
        if first || (results.complete && self.list_reset_for.as_deref() != Some(&*results.query)) {
            self.list_cursor.index = 0;
            self.list_cursor.offset = 0;
            if results.complete {
                self.list_reset_for = Some(results.query.clone());
            }
        }
        self.clamp();
        if results.complete && std::mem::take(&mut self.research) {
            // Pages arrived while this search ran: include them now.
            self.search_generation += 1;
            self.searching = true;
            return vec![self.search_effect()];
        }
        Vec::new()
    }

    // ---- list order ----------------------------------------------------------------

    /// Asks for a sort when the list view is shown and its order is out of date.
    fn ensure_sorted(&mut self) -> Vec<Effect> {
        if self.view != View::List || self.sort_in_flight {
            return Vec::new();
        }
        if self.list_key == Some(self.order) && !self.list_stale {
            return Vec::new();
        }
        self.sort_in_flight = true;
        self.list_stale = false;
        self.sort_generation += 1;
        vec![Effect::Sort {
            generation: self.sort_generation,
            key: self.order,
            snapshot: self.catalogue.snapshot(),
            names: (0..self.catalogue.server_count())
                .map(|s| self.catalogue.server_name(s as ServerId).clone())
                .collect(),
        }]
    }

    fn on_sorted(
        &mut self,
        generation: u64,
        key: SortKey,
        mut ids: Vec<ItemId>,
        lens: Vec<usize>,
    ) -> Vec<Effect> {
        if generation != self.sort_generation {
            return Vec::new();
        }
        self.sort_in_flight = false;
        // Resources that arrived while sorting go at the end until the next sort.
        for s in 0..self.catalogue.server_count() {
            let from = lens.get(s).copied().unwrap_or(0);
            let to = self.catalogue.server_len(s as ServerId);
            if to > from {
                self.list_stale = true;
                ids.extend((from..to).map(|i| ItemId {
                    server: s as ServerId,
                    index: i as u32,
                }));
            }
        }
        self.list = ids;
        self.list_key = Some(key);
        self.clamp();
        self.ensure_sorted()
    }

    // ---- servers -------------------------------------------------------------------

    fn on_server(&mut self, server: ServerId, generation: u64, event: ServerEvent) -> Vec<Effect> {
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
            } => {
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
                let mut fx = self.add_page(server, number, &resources);
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
            ServerEvent::Listed { count, capped } => {
                // What the catalogue kept (duplicate URIs skipped), so every count agrees.
                let count = count.min(self.catalogue.server_len(server));
                state.status = if count == 0 && !capped {
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
                    self.tree.set_all_expanded(true);
                    self.reanchor();
                }
                self.request_resolve()
            }
            ServerEvent::Failed(reason) => {
                state.status = Status::Failed(sanitize::text(&reason));
                self.request_resolve()
            }
        }
    }

    fn add_page(&mut self, server: ServerId, page: usize, resources: &[Resource]) -> Vec<Effect> {
        let before = self.catalogue.server_len(server);
        let report = self.catalogue.append(server, resources);
        // A URI listed twice is kept once and said so in the server's log (first few a page).
        if let Some(log) = self.logs.get(server as usize) {
            for d in report.duplicates.iter().take(10) {
                let warning = crate::mcp::Warning::duplicate(page, d.index, &d.uri);
                log.push(
                    crate::mcp::log::LogSource::Client,
                    &format!("warning: {warning}"),
                );
            }
            if report.duplicates.len() > 10 {
                log.push(
                    crate::mcp::log::LogSource::Client,
                    &format!(
                        "warning: resources/list page {page}: {} more duplicate URIs skipped",
                        report.duplicates.len() - 10
                    ),
                );
            }
        }
        let after = self.catalogue.server_len(server);
        let mimes = self.catalogue.mimes();
        for index in before..after {
            let id = ItemId {
                server,
                index: index as u32,
            };
            if let Some(item) = self.catalogue.get(id) {
                let directory = mimes.get(item.mime_id()) == Some("inode/directory");
                self.tree.insert(id, item.uri(), directory);
            }
            self.list.push(id);
        }
        if after > before {
            self.list_stale = true;
        }
        let mut fx = Vec::new();
        if !self.query.is_empty() {
            // New resources may match: search again, but not while a search runs (restarting
            // it for every page would starve it until loading ends): once it completes.
            if self.searching {
                self.research = true;
            } else {
                self.search_generation += 1;
                self.searching = true;
                fx.push(self.search_effect());
            }
        }
        self.reanchor();
        self.clamp();
        fx.extend(self.ensure_sorted());
        fx
    }

    // ---- preview -------------------------------------------------------------------

    pub fn cached(&self, item: ItemId) -> Option<&Arc<PreviewDoc>> {
        self.cache.get(&item)
    }

    fn remember(&mut self, item: ItemId, doc: Arc<PreviewDoc>) {
        if self.cache.insert(item, doc).is_none() {
            self.cache_order.push_back(item);
            while self.cache_order.len() > PREVIEW_CACHE {
                if let Some(old) = self.cache_order.pop_front() {
                    self.cache.remove(&old);
                }
            }
        }
    }

    /// Starts a read when the cursor is on a resource whose preview is not cached.
    fn sync_preview(&mut self) -> Vec<Effect> {
        let item = match self.selection() {
            Selection::Item(id) => Some(id),
            _ => None,
        };
        if item == self.preview.item {
            return Vec::new();
        }
        self.preview.item = item;
        self.preview.scroll = 0;
        let was_loading = self.preview.loading;
        self.preview.loading = false;
        if item.is_none() && self.focus == Mode::Preview {
            self.focus = Mode::Browse;
        }
        match item {
            Some(id) if !self.cache.contains_key(&id) => {
                let Some(resource) = self.catalogue.get(id) else {
                    return Vec::new();
                };
                self.preview.generation += 1;
                self.preview.loading = true;
                vec![Effect::Read {
                    generation: self.preview.generation,
                    item: id,
                    uri: resource.uri().to_string(),
                }]
            }
            _ if was_loading => vec![Effect::CancelRead],
            _ => Vec::new(),
        }
    }

    fn scroll_preview(&mut self, delta: isize) {
        self.preview.scroll = if delta < 0 {
            self.preview.scroll.saturating_sub(delta.unsigned_abs())
        } else {
            self.preview.scroll.saturating_add(delta as usize)
        };
        self.clamp_preview();
    }

    fn clamp_preview(&mut self) {
        let areas = self.areas();
        let Some(area) = areas.preview.or(if self.focus == Mode::Preview {
            Some(areas.main)
        } else {
            None
        }) else {
            return;
        };
        let inner = super::ui::inner(area);
        let total = super::ui::preview_rows(self, inner.width).len();
        let max = total.saturating_sub(inner.height as usize);
        self.preview.scroll = self.preview.scroll.min(max);
    }

    // ---- mouse ---------------------------------------------------------------------

    fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Effect> {
        let at = Position::new(mouse.column, mouse.row);
        let areas = self.areas();
        let in_preview = areas.preview.is_some_and(|p| p.contains(at))
            || (self.focus == Mode::Preview && areas.preview.is_none() && areas.main.contains(at));
        match mouse.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = mouse.kind == MouseEventKind::ScrollDown;
                if self.overlay.is_some() {
                    let action = if down { Action::Down } else { Action::Up };
                    for _ in 0..WHEEL_ROWS {
                        self.scroll_overlay(action, 1);
                    }
                } else if in_preview {
                    self.scroll_preview(if down { 3 } else { -3 });
                } else if areas.main.contains(at) {
                    self.move_by(if down {
                        WHEEL_ROWS as isize
                    } else {
                        -(WHEEL_ROWS as isize)
                    });
                }
                Vec::new()
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if self.overlay.is_some() {
                    return Vec::new();
                }
                if in_preview {
                    if self.preview.item.is_some() {
                        self.focus = Mode::Preview;
                    }
                    return Vec::new();
                }
                let inner = super::ui::inner(areas.main);
                if self.focus == Mode::Preview {
                    self.focus = Mode::Browse;
                }
                if !inner.contains(at) {
                    return Vec::new();
                }
                let index = self.cursor().offset + (at.y - inner.y) as usize;
                if index >= self.row_count() {
                    return Vec::new();
                }
                if self.focus == Mode::Search {
                    self.focus = Mode::Browse;
                }
                let again = index == self.cursor().index;
                self.move_to(index);
                if self.view == View::Tree {
                    // A click on the folder glyph, or on the selected folder, opens/closes it.
                    if let Some(&row) = self.tree.window(index, 1).first() {
                        let view = self.tree.view(row);
                        let glyph_x = inner.x + 1 + super::ui::MARK_W + view.depth * 2;
                        if view.folder && (again || at.x == glyph_x) && self.query.is_empty() {
                            self.tree.set_expanded(row, !view.expanded);
                            self.reanchor();
                        }
                    }
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    // ---- counts --------------------------------------------------------------------

    pub fn total(&self) -> usize {
        self.catalogue.len()
    }

    pub fn matching(&self) -> Option<usize> {
        (!self.query.is_empty()).then(|| self.matched.as_ref().map_or(0, Vec::len))
    }
}

/// Sorts every resource of a snapshot by `key`, ties in catalogue order (the runtime runs
/// this on a blocking thread). Returns the ids and the per-server lengths covered.
pub fn sort_snapshot(
    snapshot: &Snapshot,
    names: &[Arc<str>],
    key: SortKey,
) -> (Vec<ItemId>, Vec<usize>) {
    let mut lens = Vec::new();
    let mut ids = Vec::with_capacity(snapshot.len());
    for block in snapshot.blocks() {
        let s = block.server as usize;
        if lens.len() <= s {
            lens.resize(s + 1, 0);
        }
        lens[s] = lens[s].max(block.first as usize + block.items.len());
        ids.extend((0..block.items.len()).map(|i| ItemId {
            server: block.server,
            index: block.first + i as u32,
        }));
    }
    lens.resize(names.len().max(lens.len()), 0);
    match key {
        SortKey::Server => {
            // Stable: by name, then catalogue order.
            ids.sort_by(|a, b| names[a.server as usize].cmp(&names[b.server as usize]));
        }
        _ => {
            // The other orders look only at the items, never at the catalogue.
            let empty = Catalogue::new();
            ids.sort_by(|&a, &b| match (snapshot.get(a), snapshot.get(b)) {
                (Some(ia), Some(ib)) => key.compare(&empty, (a, ia), (b, ib)),
                _ => std::cmp::Ordering::Equal,
            });
        }
    }
    (ids, lens)
}
