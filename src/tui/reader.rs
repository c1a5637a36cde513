//! The browser's side of delivery ([`crate::handoff::service`]): its live connections and
//! the catalogue it already holds, as a [`Reader`]. The agent view's host delivery, the
//! bundle, an install and the redelivery after a mark all read through here, so none starts
//! a server or lists one again.

use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;

use super::agent::ResolveRequest;
use super::follow::{Connections, connection_of};
use crate::context::{Candidate, Preview, RankOrder, Sources, Texts};
use crate::handoff::service::{self, Reader};
use crate::mcp::read::AgentRead;

/// Reads at once for the agent (as `mcpick preview --jobs`).
pub(super) const JOBS: usize = 8;

/// A resolution request over the browser's catalogue, read through its connections.
pub(super) struct Live<'r> {
    pub request: Cow<'r, ResolveRequest>,
    pub connections: Connections,
    /// The set's folder, whose project the skills are gated for (an install's).
    pub folder: Option<std::path::PathBuf>,
}

impl<'r> Live<'r> {
    pub fn of(request: &'r ResolveRequest, connections: &Connections) -> Live<'r> {
        Live {
            request: Cow::Borrowed(request),
            connections: connections.clone(),
            folder: None,
        }
    }
}

/// The request's candidates in rank order `order` (made for its snapshot), its own outputs
/// left out.
fn ranked<'a>(request: &'a ResolveRequest, order: &Arc<RankOrder>) -> Sources<'a> {
    Sources::ranked(
        order,
        &request.snapshot,
        &request.listed,
        &request.unavailable,
    )
    .leaving_out(Arc::clone(&request.own))
}

/// The request's marks and policy.
pub(super) fn asked(request: &ResolveRequest) -> service::Asked<'_> {
    service::Asked {
        marks: &request.marks,
        policy: &request.policy,
        jobs: JOBS,
    }
}

/// An install from the browser: read under the browser's marks and policy, its skills gated
/// for the set's folder.
impl crate::handoff::make::ForSet for Live<'_> {
    fn asked(&self) -> (service::Asked<'_>, service::Skills<'_>) {
        let folder = self.folder.as_deref();
        (asked(&self.request), service::Skills::Fetched { folder })
    }
}

impl<'r> Reader for Live<'r> {
    fn sources(&self) -> Sources<'_> {
        let order = super::executor::off_the_loop(|| self.request.rank_order());
        ranked(&self.request, &order)
    }

    fn read<'s, 'c>(
        &'s self,
        candidate: &Candidate<'c>,
    ) -> impl Future<Output = AgentRead> + Send + use<'r, 's, 'c> {
        let connection = connection_of(&self.connections, candidate.id.server);
        let uri = candidate.uri();
        async move { crate::mcp::read::for_agent(connection.as_deref(), uri).await }
    }

    fn fetch_skill(
        &self,
        candidate: &Candidate<'_>,
        name: &str,
    ) -> impl Future<Output = Option<crate::skills::Fetched>> + Send {
        let connection = connection_of(&self.connections, candidate.id.server);
        let server = candidate.server;
        async move {
            let connection = connection?;
            Some(crate::skills::fetch::fetch(&connection, server, name).await)
        }
    }
}

/// Resolves the request reading what it includes (the same loop as `mcpick export`), through
/// the browser's connections, over the candidates in the request's rank order (each round
/// walks it, none sorts). Gives the candidates back with their order: the one list built (a
/// row per resource), for what is made of the resolution next.
pub(super) async fn read_resolution<'a>(
    request: &'a ResolveRequest,
    connections: &Connections,
) -> (Preview, Texts, Vec<Candidate<'a>>, Arc<RankOrder>) {
    let order = super::executor::off_the_loop(|| request.rank_order());
    let live = Live::of(request, connections);
    let sources = ranked(request, &order);
    let read = service::read(&live, &sources, asked(request), service::Skills::Left).await;
    (read.preview, read.texts, sources.candidates, order)
}

/// The skills a resolution includes, read whole and verified through the browser's
/// connections and gated ([`service::fetch_skills`]) for the project of the set at `set`.
pub(super) async fn fetch_skills(
    request: &ResolveRequest,
    preview: &Preview,
    cands: &[Candidate<'_>],
    connections: &Connections,
    set: &Path,
) -> Vec<crate::skills::Fetched> {
    let live = Live::of(request, connections);
    let folder = crate::handoff::absolute(set)
        .parent()
        .map(std::path::Path::to_path_buf);
    service::fetch_skills(&live, preview, cands, folder.as_deref()).await
}

/// The deliveries recorded for the set at `set` written again from the request, read through
/// the browser's connections ([`service::refresh`]); said nowhere, as the child `mcpick
/// deliver --quiet` it replaces said nothing on the browser's screen.
pub(super) async fn redeliver(request: &ResolveRequest, connections: &Connections, set: &Path) {
    if service::recorded(set).is_err() {
        return;
    }
    let live = Live::of(request, connections);
    let sources = live.sources();
    let folder = crate::handoff::absolute(set)
        .parent()
        .map(std::path::Path::to_path_buf);
    let skills = service::Skills::Fetched {
        folder: folder.as_deref(),
    };
    let read = service::read(&live, &sources, asked(request), skills).await;
    super::executor::off_the_loop(|| service::write(set, read.contents(&sources.candidates)));
}
