//! Delivery as a service fed by whoever holds the connections: the CLI's fresh ones, the
//! browser's live ones and `serve`'s engine each hand a [`Reader`]; resolving the set, reading
//! it as the agent gets it, fetching and gating its skills and writing the recorded
//! deliveries ([`super::start::refresh_all`]) happen here, once. A new file beside the
//! hand-off modules it drives, so a front end never lists its servers a second time to
//! deliver.

use std::future::Future;
use std::path::Path;
use std::sync::Arc;

use super::Contents;
use super::delivery::{Record, absolute};
use crate::context::measured::Texts;
use crate::context::{Candidate, Marks, Measures, OwnOutputs, Policy, Preview, Sources};
use crate::mcp::read::AgentRead;
use crate::skills::Fetched;

/// What a front end that holds connections gives delivery: the catalogue the set resolves
/// against, a read of a resource as the agent gets it, and a skill read whole.
pub trait Reader: Sync {
    /// The catalogue as candidates, with the servers whose listing completed or failed.
    fn sources(&self) -> Sources<'_>;
    /// `candidate` read as the agent gets it (its own contents parts only). The read holds
    /// no borrow of `candidate` itself, only of what it names.
    fn read<'s, 'c>(
        &'s self,
        candidate: &Candidate<'c>,
    ) -> impl Future<Output = AgentRead> + Send + use<'s, 'c, Self>;
    /// Skill `name` of `candidate`'s server, read whole and verified ([`crate::skills::fetch`]);
    /// `None` when that server is not connected.
    fn fetch_skill(
        &self,
        candidate: &Candidate<'_>,
        name: &str,
    ) -> impl Future<Output = Option<Fetched>> + Send;
}

/// Whether the skills a set includes are read whole (for the hosts with a skills folder).
#[derive(Debug, Clone, Copy)]
pub enum Skills<'p> {
    /// Not read: every skill travels as resources.
    Left,
    /// Read and held back unless accepted at their digest for the project of `folder` (the
    /// set's folder; [`super::skills::gate`]).
    Fetched { folder: Option<&'p Path> },
}

/// What the set's policy asks of a read: marks, policy and how many reads at once.
#[derive(Debug, Clone, Copy)]
pub struct Asked<'s> {
    pub marks: &'s Marks,
    pub policy: &'s Policy,
    pub jobs: usize,
}

/// A contents part of another resource dropped from a read: the server, and the words for it
/// ([`crate::mcp::read::dropped_part`]).
#[derive(Debug, Clone)]
pub struct Dropped {
    pub server: String,
    pub said: String,
}

/// The set as the agent gets it: the preview, the text of every resource read (by candidate
/// index), the skills it includes, and the parts dropped from the reads.
pub struct Read {
    pub preview: Preview,
    pub texts: Texts,
    pub skills: Vec<Fetched>,
    pub dropped: Vec<Dropped>,
}

impl Read {
    /// What the deliveries are made of, over `candidates` (those the read indexed).
    pub fn contents<'r, 'c>(&'r self, candidates: &'r [Candidate<'c>]) -> Contents<'r, 'c> {
        Contents {
            preview: &self.preview,
            candidates,
            texts: &self.texts,
            skills: Some(&self.skills),
        }
    }
}

/// Resolves `sources` under `asked`, reading through `reader` what would be included (as
/// `mcpick preview` does), then the skills it includes when `skills` asks for them.
pub async fn read<R: Reader>(
    reader: &R,
    sources: &Sources<'_>,
    asked: Asked<'_>,
    skills: Skills<'_>,
) -> Read {
    let mut measures = Measures::new();
    let done = sources
        .resolve_reading(
            asked.marks,
            asked.policy,
            &mut measures,
            asked.jobs,
            |c| reader.read(c),
            None,
        )
        .await
        .0;
    let dropped = done
        .dropped
        .iter()
        .map(|(index, other)| {
            let c = &sources.candidates[*index];
            Dropped {
                server: c.server.to_string(),
                said: crate::mcp::read::dropped_part(c.uri(), other),
            }
        })
        .collect();
    let skills = match skills {
        Skills::Left => Vec::new(),
        Skills::Fetched { folder } => {
            fetch_skills(reader, &done.preview, &sources.candidates, folder).await
        }
    };
    Read {
        preview: done.preview,
        texts: done.texts,
        skills,
        dropped,
    }
}

/// Every skill `preview` hands on whole ([`super::skills::wanted`]), read whole and verified
/// one at a time, each held back unless the person accepted it at its digest for the project
/// of `folder` ([`super::skills::gate`]).
pub async fn fetch_skills<R: Reader>(
    reader: &R,
    preview: &Preview,
    candidates: &[Candidate<'_>],
    folder: Option<&Path>,
) -> Vec<Fetched> {
    let mut fetched = Vec::new();
    for (index, name) in super::skills::wanted(preview, candidates) {
        if let Some(skill) = reader.fetch_skill(&candidates[index], name).await {
            fetched.push(skill);
        }
    }
    super::skills::gate(&mut fetched, &super::skills::project_of(folder));
    fetched
}

/// What writing the recorded deliveries did: a line for each one written, and why each
/// other could not be (or was not followed).
#[derive(Debug, Default)]
pub struct Refreshed {
    pub written: Vec<String>,
    pub problems: Vec<String>,
    /// Contents parts dropped from the reads.
    pub dropped: Vec<Dropped>,
}

/// Writes every delivery recorded for the set at `set` from `contents`.
pub fn write(set: &Path, contents: Contents<'_, '_>) -> Refreshed {
    let mut refreshed = Refreshed::default();
    for done in super::start::refresh_all(set, contents) {
        match done {
            Ok(line) => refreshed.written.push(line),
            Err(why) => refreshed.problems.push(why),
        }
    }
    refreshed
}

/// Whether the set at `set` has a delivery to keep fresh; when not, why the recorded ones
/// were not followed (each a problem).
pub fn recorded(set: &Path) -> Result<(), Refreshed> {
    let record = Record::load(&absolute(set));
    if record.deliveries.is_empty() {
        return Err(Refreshed {
            problems: super::start::refused(&record),
            ..Refreshed::default()
        });
    }
    Ok(())
}

/// The set's recorded deliveries written again through `reader`: the set resolved under
/// `asked` with `own` (what mcpick writes) left out, read, its skills fetched and gated for
/// the project of `folder`, and written. Nothing is read when there is no delivery.
pub async fn refresh<R: Reader>(
    reader: &R,
    set: &Path,
    asked: Asked<'_>,
    own: Arc<OwnOutputs>,
    folder: Option<&Path>,
) -> Refreshed {
    if let Err(none) = recorded(set) {
        return none;
    }
    let sources = reader.sources().leaving_out(own);
    let read = read(reader, &sources, asked, Skills::Fetched { folder }).await;
    Refreshed {
        dropped: read.dropped.clone(),
        ..write(set, read.contents(&sources.candidates))
    }
}
