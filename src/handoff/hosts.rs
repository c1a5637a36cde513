//! One row of data per host: every way mcpick hands it the set, and whether that way was
//! measured against the host's own model requests (`tests/delivery.rs`, `docs/hand-off.md`)
//! or taken from its documentation. Adding a host is its dialect module in [`crate::hosts`]
//! plus one row here.

use super::channel::{self, Channel};
use super::hooks::{self, HookFile};
use super::live::{self, PerTurn};
use super::skills::{self, SkillsFolder};
use crate::hosts::{self as dialects, Dialect, Host, Scope};

/// Where a fact about a host comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Driven by the tests, read in the host's own model request.
    Measured,
    /// From the host's documentation; not driven by the tests.
    FromDocs,
}

/// How one host takes the set.
pub struct Row {
    pub host: Host,
    /// The config file the served entry goes in, and its format.
    pub entry: &'static Dialect,
    /// How the entry is known to work.
    pub entry_known: Known,
    /// The channel read verbatim at every session's start, if mcpick can write one. Most
    /// are measured; the IDE hosts' (VS Code, Cursor, Windsurf), which cannot run here, come
    /// from their docs and say so wherever they are shown ([`Channel::known`]): a delivery
    /// from docs is still better than none, and the person is told what it rests on.
    pub session: Option<&'static Channel>,
    /// The channel read on every turn of a running session (a hook's additional context), if
    /// mcpick can write one (measured, as `session`).
    pub per_turn: Option<&'static PerTurn>,
    /// The settings the per-turn channel's hooks go in (with `per_turn`).
    pub hooks: Option<&'static HookFile>,
    /// How a prompt names one served resource (`NAME` the entry, `URI` the resource), where
    /// the host expands it into the model's request.
    pub mention: Option<&'static str>,
    /// The folder the host reads skills from, where a pinned skill goes as a skill (and
    /// not inline); `None`: a skill travels as resources do.
    pub skills: Option<&'static SkillsFolder>,
    /// Other hosts' session-start deliveries (host, scope) this host's model reads too:
    /// where one of the set is installed, this host gets the set through it, and a delivery of
    /// its own would put the set into its model twice.
    pub reads_also: &'static [(Host, Scope)],
}

/// Every host: first those with a session-start channel, in the order the browser's agent
/// view steps through them.
pub static ROWS: [Row; 11] = [
    Row {
        host: Host::ClaudeCode,
        entry: &dialects::claude_code::DIALECT,
        entry_known: Known::Measured,
        session: Some(&channel::CLAUDE),
        per_turn: Some(&live::CLAUDE),
        hooks: Some(&hooks::CLAUDE),
        mention: Some("@NAME:URI (interactive prompt only)"),
        skills: Some(&skills::CLAUDE),
        reads_also: &[],
    },
    Row {
        host: Host::Gemini,
        entry: &dialects::gemini::DIALECT,
        entry_known: Known::Measured,
        session: Some(&channel::GEMINI),
        per_turn: Some(&live::GEMINI),
        hooks: Some(&hooks::GEMINI),
        mention: Some("@NAME:URI (also with -p)"),
        skills: Some(&skills::GEMINI),
        reads_also: &[],
    },
    Row {
        host: Host::Codex,
        entry: &dialects::codex::DIALECT,
        entry_known: Known::Measured,
        session: Some(&channel::CODEX),
        per_turn: Some(&live::CODEX),
        hooks: Some(&hooks::CODEX),
        mention: None,
        skills: Some(&skills::CODEX),
        reads_also: &[],
    },
    Row {
        host: Host::OpenCode,
        entry: &dialects::opencode::DIALECT,
        entry_known: Known::Measured,
        session: Some(&channel::OPENCODE),
        per_turn: None,
        hooks: None,
        mention: None,
        skills: Some(&skills::OPENCODE),
        // It reads the first of AGENTS.md and CLAUDE.md, without following imports: a
        // Claude Code delivery gives it two lines, not the set.
        reads_also: &[],
    },
    Row {
        host: Host::CopilotCli,
        entry: &dialects::copilot_cli::DIALECT,
        entry_known: Known::Measured,
        session: Some(&channel::COPILOT),
        per_turn: Some(&live::COPILOT),
        hooks: Some(&hooks::COPILOT),
        mention: None,
        skills: Some(&skills::COPILOT),
        // It reads the project's CLAUDE.md and GEMINI.md with their imports, and
        // `.github/instructions/*.instructions.md` with `applyTo: "**"`: VS Code's file
        // (measured).
        reads_also: &[
            (Host::ClaudeCode, Scope::Project),
            (Host::Gemini, Scope::Project),
            (Host::VsCode, Scope::Project),
        ],
    },
    Row {
        host: Host::QwenCode,
        entry: &dialects::qwen_code::DIALECT,
        entry_known: Known::Measured,
        session: Some(&channel::QWEN),
        per_turn: Some(&live::QWEN),
        hooks: Some(&hooks::QWEN),
        mention: Some("@NAME:URI (also headless)"),
        skills: Some(&skills::QWEN),
        reads_also: &[],
    },
    Row {
        host: Host::VsCode,
        entry: &dialects::vscode::DIALECT,
        entry_known: Known::FromDocs,
        // From its docs; Copilot CLI reads the same file, measured.
        session: Some(&channel::VSCODE),
        per_turn: None,
        hooks: None,
        mention: None,
        skills: None,
        // It reads `CLAUDE.md` without its `@` imports: a Claude Code delivery gives it two
        // lines, not the set.
        reads_also: &[],
    },
    Row {
        host: Host::Cursor,
        entry: &dialects::cursor::DIALECT,
        entry_known: Known::FromDocs,
        session: Some(&channel::CURSOR),
        per_turn: None,
        hooks: None,
        mention: None,
        skills: None,
        reads_also: &[],
    },
    Row {
        host: Host::Windsurf,
        entry: &dialects::windsurf::DIALECT,
        entry_known: Known::FromDocs,
        session: Some(&channel::WINDSURF),
        per_turn: None,
        hooks: None,
        mention: None,
        skills: None,
        reads_also: &[],
    },
    Row {
        host: Host::ClaudeDesktop,
        entry: &dialects::claude_desktop::DIALECT,
        entry_known: Known::FromDocs,
        session: None,
        per_turn: None,
        hooks: None,
        mention: None,
        skills: None,
        reads_also: &[],
    },
    Row {
        host: Host::Zed,
        entry: &dialects::zed::DIALECT,
        entry_known: Known::FromDocs,
        session: None,
        per_turn: None,
        hooks: None,
        mention: None,
        skills: None,
        reads_also: &[],
    },
];

/// The hosts with a session-start channel, in [`ROWS`]' order.
pub fn with_session_channel() -> impl Iterator<Item = Host> {
    ROWS.iter().filter(|r| r.session.is_some()).map(|r| r.host)
}

/// `host`'s row.
pub fn row(host: Host) -> &'static Row {
    ROWS.iter()
        .find(|r| r.host == host)
        .expect("every host has a row (tested)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_host_has_one_row_with_its_own_dialect() {
        assert_eq!(ROWS.len(), Host::ALL.len());
        for host in Host::ALL {
            assert_eq!(
                ROWS.iter().filter(|r| r.host == host).count(),
                1,
                "{host:?}"
            );
            let row = row(host);
            assert!(std::ptr::eq(row.entry, host.dialect()), "{host:?}");
            if let Some(folder) = row.skills {
                assert_eq!(folder.host, host);
                assert!(
                    row.session.is_some(),
                    "{host:?}: skills are refreshed with the delivery"
                );
            }
            if let Some(channel) = row.session {
                assert_eq!(channel.host, host);
                // A channel measured at the model went through a measured entry's host.
                if channel.known == Known::Measured {
                    assert_eq!(row.entry_known, Known::Measured, "{host:?}");
                } else {
                    assert!(row.per_turn.is_none() && row.skills.is_none(), "{host:?}");
                }
            }
            // A per-turn channel comes with its hooks, on a host read at session start too.
            assert_eq!(row.per_turn.is_some(), row.hooks.is_some(), "{host:?}");
            if let (Some(per_turn), Some(hooks)) = (row.per_turn, row.hooks) {
                assert_eq!(per_turn.host, host);
                assert_eq!(hooks.host, host);
                assert!(row.session.is_some(), "{host:?}");
            }
        }
    }

    #[test]
    fn the_hosts_with_a_channel_come_first() {
        let with: Vec<Host> = with_session_channel().collect();
        assert_eq!(
            with,
            [
                Host::ClaudeCode,
                Host::Gemini,
                Host::Codex,
                Host::OpenCode,
                Host::CopilotCli,
                Host::QwenCode,
                Host::VsCode,
                Host::Cursor,
                Host::Windsurf
            ]
        );
        assert!(ROWS[..with.len()].iter().all(|r| r.session.is_some()));
    }
}
