//! Asking once to start the project's servers the browser held back: a server a project's own
//! files define runs only once the person approved what it runs (see [`crate::config::trust`]).
//! The browser shows each one whole and asks at start; `R` on one asks again. The approval is
//! remembered as `mcpick trust` remembers it, and the executor checks it before every start.

use super::{App, Effect, Overlay, Status};
use crate::catalog::ServerId;
use crate::mcp::{Failure, FailureKind};
use crate::sanitize;
use crate::tui::keymap::Action;

impl App {
    /// The servers still held back for approval.
    pub(super) fn held(&self) -> Vec<ServerId> {
        self.servers
            .iter()
            .enumerate()
            .filter(|(_, s)| s.held.is_some())
            .map(|(i, _)| i as ServerId)
            .collect()
    }

    /// Opens the question, when a server waits for approval.
    pub(super) fn ask_approval(&mut self) {
        if !self.held().is_empty() {
            self.overlay = Some(Overlay::Approve { scroll: 0, from: 0 });
        }
    }

    /// The page of the question on screen now: the held servers not answered yet in this
    /// question (from `from` on), as many as fit in the question's box whole at this terminal
    /// size (at least one), and the lines that show them. `y` approves exactly these, so a
    /// server is never approved unseen (see [`ApprovePage`]).
    pub fn approve_page(&self) -> ApprovePage {
        let from = match self.overlay {
            Some(Overlay::Approve { from, .. }) => from,
            _ => 0,
        };
        let left: Vec<ServerId> = self.held().into_iter().filter(|&s| s >= from).collect();
        let (width, height) = self.approve_box();
        let mut pages = 0;
        let mut first: Option<(Vec<ServerId>, Vec<String>)> = None;
        let mut rest = left.as_slice();
        while !rest.is_empty() {
            let mut taken = 1;
            while taken < rest.len()
                && rows_of(&self.page_lines(&rest[..=taken], left.len()), width) <= height
            {
                taken += 1;
            }
            if first.is_none() {
                let servers = rest[..taken].to_vec();
                first = Some((servers.clone(), self.page_lines(&servers, left.len())));
            }
            rest = &rest[taken..];
            pages += 1;
        }
        let (servers, lines) = first.unwrap_or_default();
        let rows = rows_of(&lines, width);
        ApprovePage {
            servers,
            lines,
            pages,
            overflow: rows.saturating_sub(height),
        }
    }

    /// What the question shows: the servers of its page on screen, then what each answer does.
    pub fn approve_lines(&self) -> Vec<String> {
        self.approve_page().lines
    }

    /// The question's title: which page, and the keys.
    pub fn approve_title(&self) -> String {
        let page = self.approve_page();
        let more = if page.pages > 1 {
            format!(" · {} pages left", page.pages)
        } else {
            String::new()
        };
        format!(
            "Start this project's servers? · y starts the {} shown · n keeps them stopped{more}",
            page.servers.len()
        )
    }

    /// The width (inside the border) and rows of the question's box at this terminal size,
    /// as [`crate::tui::ui`] draws it.
    fn approve_box(&self) -> (usize, usize) {
        let body = self.areas().body;
        let width = APPROVE_WIDTH.min(body.width).saturating_sub(2).max(1) as usize;
        let height = (body.height.saturating_sub(2) as usize).max(1);
        (width, height)
    }

    /// The lines of a page that shows `servers`, of `left` servers still to answer.
    fn page_lines(&self, servers: &[ServerId], left: usize) -> Vec<String> {
        let shown = servers.len();
        let mut lines = vec![
            if shown == left {
                format!(
                    "Not started until you approve what {}:",
                    if shown == 1 {
                        "this server of the project's files runs".to_string()
                    } else {
                        format!("these {shown} servers of the project's files run")
                    },
                )
            } else {
                format!("{shown} of {left} servers of the project's files, not approved yet:")
            },
            String::new(),
        ];
        for &server in servers {
            if let Some(shown) = &self.servers[server as usize].held {
                lines.extend(shown.iter().cloned());
                lines.push(String::new());
            }
        }
        lines.push(crate::config::trust::NOT_COVERED_SHORT.to_string());
        let key = |a| self.keymap.hint(crate::tui::keymap::Mode::Approve, a);
        let next = if shown < left {
            ", then the next page"
        } else {
            ""
        };
        lines.push(format!(
            "{}: start the {shown} shown, remembered for this project{next} · {}: keep {} and the rest stopped",
            key(Action::Approve).unwrap_or_default(),
            key(Action::KeepStopped).unwrap_or_default(),
            if shown == 1 { "it" } else { "them" },
        ));
        lines
    }

    /// The question's keys. `y` approves the page on screen only, and only once all of it was
    /// in view (a page taller than the screen is scrolled to its end first); the next page
    /// follows. A person decides on what they saw, not on what was pushed out of view.
    pub(super) fn on_approve_action(&mut self, action: Action, page: usize) -> Vec<Effect> {
        match action {
            Action::Approve => {
                let shown = self.approve_page();
                let scroll = match self.overlay {
                    Some(Overlay::Approve { scroll, .. }) => scroll,
                    _ => 0,
                };
                if scroll < shown.overflow {
                    self.info = Some(format!(
                        "scroll to the end first: {} more rows of what it runs (PgDn)",
                        shown.overflow - scroll
                    ));
                    return Vec::new();
                }
                let Some(&last) = shown.servers.last() else {
                    self.overlay = None;
                    return Vec::new();
                };
                self.overlay = (shown.pages > 1).then_some(Overlay::Approve {
                    scroll: 0,
                    from: last + 1,
                });
                self.info = Some("approving…".into());
                vec![Effect::Approve(shown.servers)]
            }
            Action::KeepStopped | Action::Close => {
                self.overlay = None;
                self.info = Some("kept stopped: R on one of them asks again".into());
                Vec::new()
            }
            other => {
                self.scroll_overlay(other, page);
                Vec::new()
            }
        }
    }

    /// The approval is remembered: the servers start; or it could not be, and they stay held.
    pub(super) fn on_approved(
        &mut self,
        servers: Vec<ServerId>,
        result: Result<(), String>,
    ) -> Vec<Effect> {
        if let Err(why) = result {
            self.info = Some(sanitize::line(&format!("not approved: {why}"), 300));
            return Vec::new();
        }
        let mut effects = Vec::new();
        for server in servers {
            let Some(state) = self.servers.get_mut(server as usize) else {
                continue;
            };
            state.held = None;
            state.generation += 1;
            state.status = Status::Connecting;
            effects.push(Effect::Connect {
                server,
                generation: state.generation,
                relist: false,
            });
        }
        self.info = Some(format!(
            "approved: starting {} server{}",
            effects.len(),
            if effects.len() == 1 { "" } else { "s" }
        ));
        effects
    }

    /// Whether `server` is held; then `R` asks instead of connecting.
    pub(super) fn is_held(&self, server: ServerId) -> bool {
        self.servers
            .get(server as usize)
            .is_some_and(|s| s.held.is_some())
    }
}

/// The width of the question's box, borders included (narrower terminals: their width).
pub const APPROVE_WIDTH: u16 = 110;

/// One page of the approval question: the held servers it shows, its lines, how many pages
/// are left (this one included), and how many rows of it do not fit on the screen (a single
/// server taller than the screen; `y` waits until they were scrolled into view).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ApprovePage {
    pub servers: Vec<ServerId>,
    pub lines: Vec<String>,
    pub pages: usize,
    pub overflow: usize,
}

/// Rows `lines` take wrapped to `width` as the question's box wraps them.
fn rows_of(lines: &[String], width: usize) -> usize {
    let mut rows = Vec::new();
    for line in lines {
        crate::tui::text::wrap(
            ratatui::text::Line::raw(line.clone()),
            width,
            APPROVE_INDENT,
            &mut rows,
        );
    }
    rows.len()
}

/// Continuation rows of the question are indented this much.
pub const APPROVE_INDENT: usize = 4;

/// A held server's status until it is approved.
pub(super) fn held_status(why: &str) -> Status {
    Status::Failed(Failure::new(
        FailureKind::NotApproved,
        sanitize::line(why, 1000),
    ))
}
