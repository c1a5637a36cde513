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
            self.overlay = Some(Overlay::Approve { scroll: 0 });
        }
    }

    /// What the question shows: each held server whole, then what each answer does.
    pub fn approve_lines(&self) -> Vec<String> {
        let held = self.held();
        let mut lines = vec![
            format!(
                "{} of this project's files define{} {}. Nothing of {} runs until you approve it:",
                if held.len() == 1 { "One" } else { "Some" },
                if held.len() == 1 { "s" } else { "" },
                if held.len() == 1 {
                    "a server".to_string()
                } else {
                    format!("{} servers", held.len())
                },
                if held.len() == 1 { "it" } else { "them" },
            ),
            String::new(),
        ];
        let them = if held.len() == 1 { "it" } else { "them" };
        for server in held {
            if let Some(shown) = &self.servers[server as usize].held {
                lines.extend(shown.iter().cloned());
                lines.push(String::new());
            }
        }
        let key = |a| self.keymap.hint(crate::tui::keymap::Mode::Approve, a);
        lines.push(format!(
            "{}: start {them}, and remember your approval for this project (`mcpick trust --list` shows it; a changed command asks again)",
            key(Action::Approve).unwrap_or_default()
        ));
        lines.push(format!(
            "{}: keep {them} stopped (R on a server's row asks again)",
            key(Action::KeepStopped).unwrap_or_default()
        ));
        lines
    }

    /// The question's keys.
    pub(super) fn on_approve_action(&mut self, action: Action, page: usize) -> Vec<Effect> {
        match action {
            Action::Approve => {
                self.overlay = None;
                let held = self.held();
                self.info = Some("approving…".into());
                vec![Effect::Approve(held)]
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

/// A held server's status until it is approved.
pub(super) fn held_status(why: &str) -> Status {
    Status::Failed(Failure::new(
        FailureKind::NotApproved,
        sanitize::line(why, 1000),
    ))
}
