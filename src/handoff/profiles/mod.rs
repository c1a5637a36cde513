//! The one map from a [`Host`] to its [`Profile`]: each host's facts are in its own file here.
//! Adding a host is its dialect in [`crate::hosts`], its file here and a line in [`ALL`].

pub mod claude_code;
pub mod claude_desktop;
pub mod cline;
pub mod codex;
pub mod copilot_cli;
pub mod cursor;
pub mod gemini;
pub mod kilo;
pub mod opencode;
pub mod pi;
pub mod qwen_code;
pub mod vscode;
pub mod windsurf;
pub mod zed;

use super::profile::Profile;
use crate::hosts::Host;

/// Every host's profile: first those with a session-start channel, in the order the browser's
/// agent view steps through them.
pub static ALL: [&Profile; 14] = [
    &claude_code::PROFILE,
    &gemini::PROFILE,
    &codex::PROFILE,
    &opencode::PROFILE,
    &copilot_cli::PROFILE,
    &qwen_code::PROFILE,
    &kilo::PROFILE,
    &cline::PROFILE,
    &pi::PROFILE,
    &vscode::PROFILE,
    &cursor::PROFILE,
    &windsurf::PROFILE,
    &claude_desktop::PROFILE,
    &zed::PROFILE,
];

/// `host`'s profile.
pub fn of(host: Host) -> &'static Profile {
    ALL.iter()
        .find(|p| p.host == host)
        .expect("every host has a profile (tested)")
}

/// The hosts with a session-start channel, in [`ALL`]'s order.
pub fn with_session_channel() -> impl Iterator<Item = Host> {
    ALL.iter().filter(|p| p.start.is_some()).map(|p| p.host)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handoff::profile::{Known, Reached};

    #[test]
    fn every_host_has_one_profile_with_its_own_dialect() {
        assert_eq!(ALL.len(), Host::ALL.len());
        for host in Host::ALL {
            assert_eq!(ALL.iter().filter(|p| p.host == host).count(), 1, "{host:?}");
            let profile = of(host);
            assert!(std::ptr::eq(profile.entry, host.dialect()), "{host:?}");
            if let Some(folder) = profile.skills {
                assert_eq!(folder.host, host);
                assert!(
                    profile.start.is_some(),
                    "{host:?}: skills are refreshed with the delivery"
                );
            }
            if let Some(channel) = profile.start {
                assert_eq!(channel.host, host);
                // A channel measured at the model went through a measured entry's host.
                if channel.known.is_measured() {
                    assert!(profile.entry_known.is_measured(), "{host:?}");
                } else {
                    assert!(
                        profile.per_turn.is_none() && profile.skills.is_none(),
                        "{host:?}"
                    );
                }
            }
            // A per-turn channel comes with its hooks, or a loader that runs `mcpick turn`
            // itself (pi's extension), on a host read at session start too.
            let loader = profile
                .start
                .is_some_and(|c| matches!(c.reached, crate::handoff::profile::Reached::Loader(_)));
            assert_eq!(
                profile.per_turn.is_some(),
                profile.hooks.is_some() || loader,
                "{host:?}"
            );
            if let (Some(per_turn), true) = (profile.per_turn, loader) {
                assert_eq!(per_turn.host, host);
            }
            if let (Some(per_turn), Some(hooks)) = (profile.per_turn, profile.hooks) {
                assert_eq!(per_turn.host, host);
                assert_eq!(hooks.host, host);
                assert!(profile.start.is_some(), "{host:?}");
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
                Host::Kilo,
                Host::Cline,
                Host::Pi,
                Host::VsCode,
                Host::Cursor,
                Host::Windsurf
            ]
        );
        assert!(ALL[..with.len()].iter().all(|p| p.start.is_some()));
    }

    /// Every measured fact names the host version it was measured on, and a fact from docs
    /// is about a host the tests cannot drive (its entry is from docs too).
    #[test]
    fn every_fact_says_what_it_rests_on() {
        for profile in ALL {
            let name = profile.entry.host_name;
            let facts = [
                Some(profile.entry_known),
                profile.start.map(|c| c.known),
                profile.per_turn.map(|p| p.known),
                profile.hooks.map(|h| h.known),
                profile.skills.map(|s| s.known),
            ];
            for known in facts.into_iter().flatten() {
                match known {
                    Known::Measured(on) => assert!(on.starts_with(name), "{name}: {on}"),
                    Known::FromDocs => assert_eq!(profile.entry_known, Known::FromDocs),
                }
            }
        }
    }

    /// A host led to the file by an import reads it from the project or the home folder; a
    /// rules file is the project's only.
    #[test]
    fn a_rules_channel_is_the_projects() {
        for profile in ALL {
            if let Some(channel) = profile.start
                && let Reached::Rules(_) = channel.reached
            {
                assert_ne!(channel.scopes, crate::handoff::profile::Scopes::AsEntry);
            }
        }
    }
}
