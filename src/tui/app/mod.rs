//! The core of the browser: state, `update(msg) -> Vec<Effect>`, and the actions keys
//! resolve to. No tokio, no terminal, no I/O: tests drive it with messages and read its
//! fields and effects. Rendering (`ui::render`) reads this state and never changes it.
//! Two things read the clock: the contents pane, for when a cached document's `ttlMs` has
//! passed ([`contents`]), and a note's log entry, for its time ([`servers`]).
//!
//! `App` routes: each message and action goes to the sub-state that owns it, one file each:
//! [`browse`] (view, cursors, the tree's rows) with [`tree`] and [`list`], [`search`],
//! [`contents`] (the contents pane), [`context`] (marks, policy, the agent view, saves) and
//! [`servers`] (server states, pages, logs). Geometry comes from [`super::layout`].

mod approve;
pub mod browse;
pub mod contents;
pub mod context;
pub mod form;
pub mod handoff;
pub mod job;
pub mod list;
mod live;
mod mouse;
pub mod msg;
pub mod search;
pub mod servers;
pub mod tree;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;

use super::agent::{next_audience, step_budget};
use super::keymap::{Action, Chord, Keymap, Mode};
use super::layout::{Areas, layout};
use super::theme::Theme;
use crate::catalog::{Catalogue, ItemId, ServerId, UriTree};
use crate::context::{ContextSet, Mark};
use crate::mcp::log::LogSource;
use crate::mcp::{Failure, FailureKind};
use crate::sanitize;

pub use approve::{APPROVE_INDENT, APPROVE_WIDTH, ApprovePage};
pub use browse::{Browse, Cursor, Selection, View};
pub use contents::ContentsState;
pub use context::ContextState;
pub use handoff::{Bundled, InstallPlan, Installer, Stage};
pub use msg::{Effect, ExpansionRead, Msg, SaveFailure, SaveReport, ServerEvent};
pub use search::{LineEdit, SearchState};
pub use servers::{Log, ServerSetup, ServerState, Status};

/// What a status message is true of, while it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum InfoHolds {
    /// As long as the contents pane shows this resource (`updated: …`).
    Shown(ItemId),
    /// As long as this server is reconnecting (`reconnecting to …`); its end replaces it.
    Reconnecting(ServerId),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Overlay {
    /// `under`: the overlay it was opened over, shown again when it closes.
    Help {
        scroll: usize,
        under: Option<Box<Overlay>>,
    },
    /// The commands that hand the set to a host (`I`).
    Handoff { scroll: usize },
    /// Asking to start the project's servers held back for approval, page by page: `from` is
    /// the first held server not answered yet (the pages before it were approved).
    Approve { scroll: usize, from: ServerId },
    /// The resource templates (`T`), `cursor` on one.
    Templates { cursor: usize },
    /// The form filling a template ([`App::form`]).
    Form,
    /// `filter`: only this server's entries; `scroll`: rows up from the newest.
    Log {
        filter: Option<ServerId>,
        scroll: usize,
    },
}

impl Overlay {
    /// The mode keys are read in while it is open.
    pub fn mode(&self) -> Mode {
        match self {
            Overlay::Help { .. } => Mode::Help,
            Overlay::Handoff { .. } => Mode::Handoff,
            Overlay::Approve { .. } => Mode::Approve,
            Overlay::Templates { .. } => Mode::Templates,
            Overlay::Form => Mode::Form,
            Overlay::Log { .. } => Mode::Log,
        }
    }

    /// The overlay the help is open over, or this one.
    pub fn under_help(&mut self) -> &mut Overlay {
        match self {
            Overlay::Help {
                under: Some(under), ..
            } => under,
            other => other,
        }
    }
}

pub struct App {
    pub catalogue: Catalogue,
    pub servers: Vec<ServerState>,
    /// Each server's log (see [`servers::Log`]).
    pub logs: Vec<Log>,
    /// The tree or list: view, cursors, rows, order.
    pub browse: Browse,
    pub search: SearchState,
    /// The contents pane.
    pub contents: ContentsState,
    /// The context set, what is derived from it, and the agent view.
    pub context: ContextState,
    /// Browse, Search or Contents (overlays set Help and Log).
    pub focus: Mode,
    pub overlay: Option<Overlay>,
    /// The template form, while [`Overlay::Form`] is open.
    pub form: Option<form::TemplateForm>,
    /// The hand-off overlay's install.
    pub installer: Installer,
    pub size: (u16, u16),
    pub theme: Theme,
    pub keymap: Keymap,
    pub quit: bool,
    /// A one-line message for the status line (sanitised).
    pub notice: Option<String>,
    /// A one-line note on the last mark or policy change (sanitised).
    pub info: Option<String>,
    /// A bulk mark said but not made yet (`P`/`X` once): the mark, the query and how many
    /// results; the same key again on the same results makes it, any other key drops it.
    bulk: Option<(Mark, String, usize)>,
    /// While `info` is this text, what it is true of: it goes (or says how it ended) when
    /// that no longer holds. Another message replacing it ends the tie.
    info_holds: Option<(String, InfoHolds)>,
    /// Every status-line message (notice and info), kept for the log view: one too long
    /// for the status line stays readable there.
    pub messages: Log,
    /// The notice and info last copied into `messages`.
    logged: (Option<String>, Option<String>),
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
                status: match (&setup.error, &setup.held) {
                    (Some(e), Some(_)) => approve::held_status(e),
                    (Some(e), None) => Status::Failed(Failure::new(
                        FailureKind::NotStarted,
                        sanitize::line(e, 1000),
                    )),
                    (None, _) => Status::Connecting,
                },
                generation: 1,
                detail: None,
                info: None,
                changes: None,
                reconnecting: false,
                held: setup.held.clone(),
            });
        }
        tree.refresh();
        App {
            logs: states.iter().map(|_| Log::new(log_lines)).collect(),
            catalogue,
            servers: states,
            browse: Browse::new(tree),
            search: SearchState::default(),
            contents: ContentsState::default(),
            context: ContextState::default(),
            focus: Mode::Browse,
            overlay: None,
            form: None,
            installer: Installer::default(),
            info_holds: None,
            bulk: None,
            size: (80, 24),
            theme,
            keymap,
            quit: false,
            notice: None,
            info: None,
            messages: Log::new(log_lines),
            logged: (None, None),
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
        self.context.saving.base = self.context.set.clone();
        self.request_resolve()
    }

    /// The mode keys are read in.
    pub fn mode(&self) -> Mode {
        match &self.overlay {
            Some(overlay) => overlay.mode(),
            None => self.mode_without_overlay(),
        }
    }

    /// The mode under the overlays: the agent view, or what has the focus.
    fn mode_without_overlay(&self) -> Mode {
        if self.context.view.open {
            Mode::Agent
        } else {
            self.focus
        }
    }

    /// The mode the help was opened from (the help lists its keys first).
    pub fn help_from(&self) -> Mode {
        match &self.overlay {
            Some(Overlay::Help {
                under: Some(under), ..
            }) => under.mode(),
            _ => self.mode_without_overlay(),
        }
    }

    pub fn areas(&self) -> Areas {
        layout(
            Rect::new(0, 0, self.size.0, self.size.1),
            self.header_lines(),
            self.focus == Mode::Contents,
        )
    }

    /// One line per server, at most four; one line in all on a short terminal
    /// ([`crate::tui::layout::SHORT_HEIGHT`]: the servers are summed up on it, failed ones
    /// named), so the tree keeps the rows.
    pub fn header_lines(&self) -> u16 {
        if self.size.1 < super::layout::SHORT_HEIGHT {
            1
        } else {
            self.servers.len().clamp(1, 4) as u16
        }
    }

    /// Rows of the tree or list pane inside its border.
    pub fn page_rows(&self) -> usize {
        (self.areas().main.height.saturating_sub(2) as usize).max(1)
    }

    /// The terminal's new size: the lists and the contents keep their selection in view.
    fn on_resize(&mut self, w: u16, h: u16) -> Vec<Effect> {
        self.size = (w, h);
        self.clamp();
        self.clamp_contents();
        Vec::new()
    }

    /// Pasted text goes into the search field (one line), and nowhere else.
    fn on_paste(&mut self, text: &str) -> Vec<Effect> {
        if self.mode() == Mode::Search {
            self.search.insert(&sanitize::line(text, 500));
            self.query_changed()
        } else {
            Vec::new()
        }
    }

    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        let mut fx = match msg {
            Msg::Key(key) => {
                if key.kind != KeyEventKind::Press {
                    return Vec::new();
                }
                self.on_key(key)
            }
            Msg::Mouse(mouse) => self.on_mouse(mouse),
            Msg::Resize(w, h) => self.on_resize(w, h),
            Msg::Paste(text) => self.on_paste(&text),
            Msg::Server {
                server,
                generation,
                event,
            } => self.on_server(server, generation, event),
            Msg::SearchResults(results) => self.on_results(results),
            Msg::Sorted {
                generation,
                order,
                ids,
                lens,
            } => self.on_sorted(generation, order, ids, lens),
            Msg::Contents {
                generation,
                item,
                doc,
                fresh_for,
            } => {
                self.contents.on_read(generation, item, doc, fresh_for);
                Vec::new()
            }
            Msg::Resolved(agent) => self.on_resolved(agent),
            Msg::Log { server, entries } => {
                if let Some(log) = self.logs.get_mut(server as usize) {
                    log.replace_remote(entries);
                }
                Vec::new()
            }
            Msg::Measured {
                generation,
                tokenizer,
                item,
                measure,
            } => self.on_measured(generation, tokenizer, item, measure),
            Msg::Saved { seq, result } => self.on_saved(seq, result),
            Msg::SetOnDisk(set) => self.on_set_on_disk(*set),
            Msg::Bundle(result) => self.on_bundle(result),
            Msg::HostPreviewed { host, result } => self.on_host_previewed(host, result),
            Msg::SignInNote { server, line } => {
                self.on_sign_in_note(server, &line);
                Vec::new()
            }
            Msg::SignedIn { server, result } => self.on_signed_in(server, result),
            Msg::Completions { generation, values } => {
                self.on_completions(generation, values);
                Vec::new()
            }
            Msg::ExpansionRead {
                server,
                uri,
                result,
            } => self.on_expansion_read(server, uri, result),
            Msg::Copied { what, note } => self.on_copied(what, note),
            Msg::InstallPlanned(plan) => {
                self.on_install_planned(plan);
                Vec::new()
            }
            Msg::Installed(result) => {
                self.on_installed(result);
                Vec::new()
            }
            Msg::OwnOutputs(own) => {
                self.context.own = own;
                self.request_resolve()
            }
            Msg::Approved { servers, result } => self.on_approved(servers, result),
            Msg::Redeliver(set) => self.on_redeliver(set),
            Msg::Quit => {
                self.quit = true;
                Vec::new()
            }
        };
        fx.extend(self.sync_contents());
        fx.extend(self.redeliver_when_listed());
        self.expire_info();
        self.log_messages();
        fx
    }

    /// Ties the current `info` to what it is true of (see [`InfoHolds`]).
    pub(super) fn info_holds(&mut self, holds: InfoHolds) {
        if let Some(info) = &self.info {
            self.info_holds = Some((info.clone(), holds));
        }
    }

    /// The status message goes when what it said no longer holds.
    fn expire_info(&mut self) {
        let Some((text, holds)) = &self.info_holds else {
            return;
        };
        if self.info.as_ref() != Some(text) {
            self.info_holds = None;
            return;
        }
        let holds = match *holds {
            InfoHolds::Shown(id) => self.contents.item == Some(id),
            InfoHolds::Reconnecting(server) => self
                .servers
                .get(server as usize)
                .is_some_and(|s| s.reconnecting),
        };
        if !holds {
            self.info = None;
            self.info_holds = None;
        }
    }

    /// Copies a new status-line message into `messages` (notices as errors).
    fn log_messages(&mut self) {
        if self.notice != self.logged.0 {
            if let Some(n) = &self.notice {
                self.messages.push(LogSource::Client, n);
            }
            self.logged.0 = self.notice.clone();
        }
        if self.info != self.logged.1 {
            if let Some(i) = &self.info {
                self.messages.push(LogSource::Notification, i);
            }
            self.logged.1 = self.info.clone();
        }
    }

    pub(super) fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let chord = Chord::from_event(&key);
        let mode = self.mode();
        if let Some(action) = self.keymap.resolve(mode, chord) {
            return self.apply(action);
        }
        // A printable key the mode does not bind is text where text is typed.
        match (mode, chord.code) {
            (Mode::Search, KeyCode::Char(c)) if (chord.mods - KeyModifiers::SHIFT).is_empty() => {
                self.search.insert(c.encode_utf8(&mut [0; 4]));
                self.query_changed()
            }
            (Mode::Form, KeyCode::Char(c))
                if (key.modifiers - KeyModifiers::SHIFT).is_empty() && !c.is_control() =>
            {
                self.type_into_field(c)
            }
            _ => Vec::new(),
        }
    }

    /// Does what a key bound to `action` does: the one place where behaviour lives.
    pub fn apply(&mut self, action: Action) -> Vec<Effect> {
        let mode = self.mode();
        let page = self.page_rows() as isize;
        let bulk = self.bulk.take();
        match (mode, action) {
            (_, Action::Quit) => self.quit = true,
            (_, Action::Suspend) => return vec![Effect::Suspend],
            (Mode::Help, Action::Close) | (Mode::Help, Action::Help) => {
                if let Some(Overlay::Help { under, .. }) = self.overlay.take() {
                    self.overlay = under.map(|o| *o);
                }
            }
            (_, Action::Help) => {
                self.overlay = Some(Overlay::Help {
                    scroll: 0,
                    under: self.overlay.take().map(Box::new),
                })
            }
            // The overlays' own keys: what they do not list does nothing there.
            (Mode::Templates, a) => return self.on_templates_action(a),
            (Mode::Form, a) => return self.on_form_action(a),
            (Mode::Handoff, a) => return self.on_handoff_action(a, page as usize),
            (Mode::Approve, a) => return self.on_approve_action(a, page as usize),
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
            (_, Action::Pin) => return self.mark_selected(Some(Mark::Pin), false),
            (_, Action::Exclude) => return self.mark_selected(Some(Mark::Exclude), false),
            (_, Action::Unmark) => return self.mark_selected(None, false),
            (_, Action::PinFolder) => return self.mark_selected(Some(Mark::Pin), true),
            (_, Action::ExcludeFolder) => return self.mark_selected(Some(Mark::Exclude), true),
            (_, Action::PinResults) => return self.mark_results(Mark::Pin, bulk),
            (_, Action::ExcludeResults) => return self.mark_results(Mark::Exclude, bulk),
            (_, Action::Undo) => return self.undo(),
            (_, Action::CopyUri) => return self.copy_uri(),
            (_, Action::CopyBundle) => return self.copy_bundle(),
            (_, Action::Handoff) => self.show_handoff(),
            (_, Action::BudgetUp | Action::BudgetDown) => {
                let policy = &mut self.context.set.policy;
                policy.budget = step_budget(policy.budget, action == Action::BudgetUp);
                self.info = Some(format!("budget {}", policy.budget.describe()));
                return self.context_changed(Vec::new());
            }
            (_, Action::CycleHost) => return self.cycle_host(),
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
            (Mode::Contents, Action::Up) => self.scroll_contents(-1),
            (Mode::Contents, Action::Down) => self.scroll_contents(1),
            (Mode::Contents, Action::PageUp) => self.scroll_contents(-page),
            (Mode::Contents, Action::PageDown) => self.scroll_contents(page),
            (Mode::Contents, Action::Top) => self.contents.scroll = 0,
            (Mode::Contents, Action::Bottom) => self.scroll_contents(isize::MAX / 2),
            (_, Action::FocusList) => self.focus = Mode::Browse,
            (_, Action::ContentsDown) => self.scroll_contents(1),
            (_, Action::ContentsUp) => self.scroll_contents(-1),
            (_, Action::Up) => self.move_by(-1),
            (_, Action::Down) => self.move_by(1),
            (_, Action::PageUp) => self.move_by(-page),
            (_, Action::PageDown) => self.move_by(page),
            (_, Action::Top) => self.move_to(0),
            (_, Action::Bottom) => self.move_to(usize::MAX),
            (_, Action::Expand) => {
                if let Some(fx) = self.sign_in_selected() {
                    return fx;
                }
                return self.expand(true);
            }
            (_, Action::Collapse) => self.collapse(),
            (_, Action::Toggle) => return self.expand(false),
            (_, Action::ExpandAll) => {
                if self.browse.view == View::Tree {
                    self.browse.tree.set_all_expanded(true);
                    self.reanchor();
                }
            }
            (_, Action::CollapseAll) => {
                if self.browse.view == View::Tree {
                    self.browse.tree.set_all_expanded(false);
                    // The cursor's folder may now be hidden: go to its server.
                    self.browse.tree.refresh();
                    let server = self.tree_anchor_server();
                    self.browse.tree_anchor = None;
                    self.browse.tree_cursor.index = server;
                    self.clamp();
                }
            }
            (_, Action::Parent) => self.parent(),
            (_, Action::ToggleView) => {
                self.browse.view = match self.browse.view {
                    View::Tree => View::List,
                    View::List => View::Tree,
                };
                self.browse.prune_list(&self.catalogue);
                self.clamp();
                return self.ensure_sorted();
            }
            (_, Action::CycleOrder) => {
                if self.browse.view == View::Tree {
                    self.browse.view = View::List;
                    self.browse.prune_list(&self.catalogue);
                } else {
                    self.browse.order = self.browse.order.next();
                }
                if self.search.matching().is_some() {
                    // The list shows a search's results best match first: say what `o` did.
                    self.info = Some(format!(
                        "list order {}: applies when the search is cleared (esc); \
                         search results are listed best match first",
                        self.browse.order.label()
                    ));
                }
                self.clamp();
                return self.ensure_sorted();
            }
            (_, Action::Search) => self.focus = Mode::Search,
            (_, Action::ClearSearch) => {
                self.focus = Mode::Browse;
                if self.search.edit(LineEdit::Clear) {
                    return self.query_changed();
                }
            }
            (_, Action::AcceptSearch) => self.focus = Mode::Browse,
            (_, Action::DeleteChar) => return self.edit_query(LineEdit::Backspace),
            (_, Action::ClearQuery) => return self.edit_query(LineEdit::Clear),
            (_, Action::DeleteForward) => return self.edit_query(LineEdit::Delete),
            (_, Action::DeleteWord) => return self.edit_query(LineEdit::DeleteWord),
            (_, Action::CursorLeft) => return self.edit_query(LineEdit::Left),
            (_, Action::CursorRight) => return self.edit_query(LineEdit::Right),
            (_, Action::CursorHome) => return self.edit_query(LineEdit::Home),
            (_, Action::CursorEnd) => return self.edit_query(LineEdit::End),
            (_, Action::FocusContents) => {
                if self.contents.item.is_some() {
                    self.focus = Mode::Contents;
                }
            }
            (_, Action::Reload) => {
                self.contents.reload();
            }
            (_, Action::Reconnect) => return self.reconnect_selected(),
            (_, Action::Templates) => self.show_templates(),
            // Outside their overlays, the overlays' actions do nothing.
            (
                _,
                Action::LogFilter
                | Action::Close
                | Action::FillTemplate
                | Action::ReadExpansion
                | Action::NextSuggestion
                | Action::PreviousSuggestion
                | Action::TakeSuggestion
                | Action::PreviousField
                | Action::NextHost
                | Action::PreviousHost
                | Action::ToggleScope
                | Action::Install
                | Action::Back
                | Action::Approve
                | Action::KeepStopped,
            ) => {}
        }
        Vec::new()
    }

    /// A line-editing key on the search line: search again when the query changed.
    fn edit_query(&mut self, edit: LineEdit) -> Vec<Effect> {
        if self.search.edit(edit) {
            self.query_changed()
        } else {
            Vec::new()
        }
    }

    pub(super) fn scroll_overlay(&mut self, action: Action, page: usize) {
        let Some(overlay) = &mut self.overlay else {
            return;
        };
        let (scroll, up_is_more) = match overlay {
            Overlay::Help { scroll, .. }
            | Overlay::Handoff { scroll }
            | Overlay::Approve { scroll, .. } => (scroll, false),
            Overlay::Templates { .. } | Overlay::Form => return,
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

    pub fn total(&self) -> usize {
        self.catalogue.len()
    }
}
