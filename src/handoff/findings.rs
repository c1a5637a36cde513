//! What mcpick finds about one host and a set's delivery to it, as data (`preview --host`
//! renders it; `install` says a [`ReachedThrough`]). The words for people are the
//! `Display`s here, in one place, so no caller builds them or reads them back.

use std::fmt;
use std::path::PathBuf;

use crate::hosts::Host;
use crate::sanitize;

/// What one host gets of a set at session start, and what was found about it on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostReport {
    /// What the delivery found ([`super::channel::Delivered::findings`]).
    pub delivery: Vec<Finding>,
    /// That the host lists the skills it is handed by name only, when it is handed some
    /// ([`super::skills`]'s `names_only_note`).
    pub names_only: Option<String>,
    pub receives: Receives,
    /// What the installed deliveries it picks up mean for it
    /// ([`super::start::installed_findings`]).
    pub installed: Vec<Finding>,
}

/// One thing found about a host's delivery of a set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// A resource the host's session-start channel could not carry, and why.
    OverLimit {
        server: String,
        uri: String,
        why: String,
    },
    /// A warning the delivery gave in words (a resource's text holds the host's own wrapper
    /// tags, a skill was refused).
    Delivery(String),
    /// The installed deliveries of the set the host picks up: each one's host and scope, as
    /// recorded.
    PicksUp {
        host: Host,
        deliveries: Vec<(String, String)>,
    },
    /// Another host's delivery reaches this host's model, and it misses something that way.
    ReachedThrough(ReachedThrough),
    /// None of the deliveries the host picks up put the set's skills in a folder it reads.
    SkillsUnread { host: Host },
    /// The skills folders the host lists the set's skills from, with whose delivery wrote each.
    SkillsFrom {
        host: Host,
        folders: Vec<(Host, PathBuf)>,
    },
    /// The host's model gets the set this many times at session start.
    ReadTwice { host: Host, times: usize },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::OverLimit { server, uri, why } => write!(
                f,
                "{} {}: not delivered at session start: {why}",
                sanitize::line(server, 200),
                sanitize::line(uri, 1000)
            ),
            Finding::Delivery(why) => write!(f, "warning: {why}"),
            Finding::PicksUp { host, deliveries } => {
                let names: Vec<String> = deliveries
                    .iter()
                    .map(|(h, scope)| {
                        format!("{} ({})", sanitize::line(h, 100), sanitize::line(scope, 20))
                    })
                    .collect();
                write!(
                    f,
                    "{} picks up the installed deliver{} of this set: {}",
                    host.name(),
                    if names.len() == 1 { "y" } else { "ies" },
                    names.join(", ")
                )
            }
            Finding::ReachedThrough(through) => through.fmt(f),
            Finding::SkillsUnread { host } => write!(
                f,
                "warning: none of the installed deliveries {} picks up wrote the set's skills into a folder it reads: its model gets none of them",
                host.name()
            ),
            Finding::SkillsFrom { host, folders } => {
                let named: Vec<String> = folders
                    .iter()
                    .map(|(h, folder)| format!("{} (the {} delivery)", folder.display(), h.name()))
                    .collect();
                write!(
                    f,
                    "{} lists the set's skills from {}{}{}",
                    host.name(),
                    named.join(" and "),
                    if folders.len() > 1 {
                        "; a skill in both is listed once (measured)"
                    } else {
                        ""
                    },
                    super::profiles::of(*host)
                        .skills
                        .map(|s| format!("; {}", s.mid_session_note()))
                        .unwrap_or_default()
                )
            }
            Finding::ReadTwice { host, times } => write!(
                f,
                "warning: {} gets the set {times} times at session start",
                host.name()
            ),
        }
    }
}

/// What a host's model receives of the set at session start, and through what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receives {
    pub host: Host,
    /// Resources delivered, of those the set includes.
    pub delivered: usize,
    pub included: usize,
    /// The channel, and where its figures come from.
    pub through: &'static str,
    pub provenance: &'static str,
}

impl fmt::Display for Receives {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} receives {} of {} included resource{} at session start through {}{}",
            self.host.name(),
            self.delivered,
            self.included,
            if self.included == 1 { "" } else { "s" },
            self.through,
            self.provenance
        )
    }
}

/// Why `install` writes no delivery of its own for a host: another host's delivery of the set
/// already reaches its model; and what of the set it misses that way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReachedThrough {
    /// The host it reaches.
    pub host: Host,
    /// Whose delivery it reads (the host's name as recorded), and its file.
    pub other: String,
    pub file: PathBuf,
    /// What it misses or gets over its limit that way: `preview --host` says only these.
    pub missed: Vec<Missed>,
}

/// What a host reached through another host's delivery misses that way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Missed {
    /// That delivery's skills go to a folder this host does not read.
    Skills { folder: &'static str },
    /// That file is over this host's limit on what it reads at session start.
    OverLimit {
        size: usize,
        limit_words: &'static str,
    },
}

impl fmt::Display for ReachedThrough {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} reads the {} delivery of this set ({}) at session start: mcpick writes no second copy for it (`mcpick preview --host {}` shows what its model gets)",
            self.host.dialect().host_name,
            sanitize::line(&self.other, 100),
            self.file.display(),
            self.host.name()
        )?;
        for missed in &self.missed {
            match missed {
                Missed::Skills { folder } => write!(
                    f,
                    "; warning: its skills go to {folder}, which {} does not read: a skill the set includes does not reach its model",
                    self.host.dialect().host_name
                )?,
                Missed::OverLimit { size, limit_words } => write!(
                    f,
                    "; warning: that file is {} bytes, over {limit_words}: give the set a budget (`mcpick policy --budget`)",
                    crate::units::thousands(*size as u64)
                )?,
            }
        }
        Ok(())
    }
}
