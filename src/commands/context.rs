//! What the context-set commands share: the `--set` file, which servers to talk to (chosen by
//! [`crate::config::select::choose`], reported here), and the listing they resolve against.

use crate::sync::Locked;
use futures::future::join_all;
use std::future::Future;

use std::sync::Mutex;

use rmcp::model::Resource;

use super::{Exit, Session, close_all, report, take_selection};
use crate::catalog::Catalogue;
use crate::cli::{ServerArgs, SetArgs};
use crate::config::select::{self, Chosen, Selected};
use crate::context::{ContextSet, Expansion, Marks, SetError, Sources, expansion};
use crate::handoff::service::{self, Reader};
use crate::mcp::supervisor::Event;
use crate::mcp::{ConnectOptions, ListOptions};
use crate::sanitize;

/// Loads the set; a corrupt or newer file is reported and the command stops (status 2),
/// leaving the file as it is.
pub fn load_set(args: &SetArgs) -> Result<ContextSet, Exit> {
    ContextSet::load(&args.path).map_err(|e| {
        report(&sanitize::line(&e.to_string(), 2000));
        Exit::Usage
    })
}

/// Changes the set on disk under its lock ([`ContextSet::update`]): `change` is applied to
/// the file as it is now, so marks another process saved meanwhile are kept. A failed save
/// is reported and the command stops with status 1 (nothing is lost silently); a corrupt or
/// newer file with status 2.
pub fn update_set<R>(
    args: &SetArgs,
    change: impl FnOnce(&mut ContextSet) -> R,
) -> Result<(ContextSet, R), Exit> {
    ContextSet::update(&args.path, change).map_err(|e| {
        report(&e.to_string());
        match e {
            SetError::Corrupt { .. } | SetError::Newer { .. } => Exit::Usage,
            _ => Exit::ServerFailed,
        }
    })
}

/// Loads the set a command hands on (`serve`, `preview`, `export`, `lock`, `diff`): like
/// [`load_set`], but a missing file is an error (status 2) naming the path, so a command
/// started in the wrong folder never hands on something the person did not choose (the
/// demo's made-up catalogue, or every defined server unfiltered). When the command line
/// names the servers (`--demo`, `--server`, `--url`, `-- COMMAND`), what is handed on is
/// what it says: those servers under the default policy, with a note that there is no set.
pub fn load_set_to_hand_on(args: &SetArgs, servers: &ServerArgs) -> Result<ContextSet, Exit> {
    let set = load_set(args)?;
    if set.on_disk {
        return Ok(set);
    }
    let path = sanitize::line(&args.path.display().to_string(), 500);
    if servers.choice().names_servers() {
        report(&format!(
            "note: no context set at {path}: the default policy over the servers named on the command line"
        ));
        return Ok(set);
    }
    report(&crate::context::missing_set(&path));
    Err(Exit::Usage)
}

/// The servers of a context command ([`select::choose`]): config-file warnings and notes
/// printed, a usage error reported (status 2).
pub fn choose(args: &ServerArgs, set: &ContextSet) -> Result<Vec<Chosen>, Exit> {
    take_selection(select::choose(&args.choice(), set.set_servers()))
}

/// Says what the set records of a typed server without its secrets, and how to write it
/// for other machines ([`crate::config::example::masked_note`]).
pub fn report_masked(chosen: &Chosen) {
    if let Some(note) = crate::config::example::masked_note(chosen) {
        report(&note);
    }
}

/// Every chosen server listed once: the catalogue, which servers' listings completed and
/// which could not be listed (with why, also reported on stderr), the set's expansions when
/// [`list_set`] added them, and the sessions, for reads and templates, to be closed.
pub struct Listed {
    pub sessions: Vec<Session>,
    pub catalogue: Catalogue,
    pub complete: Vec<String>,
    pub failed: Vec<(String, String)>,
    pub expansions: Vec<Expansion>,
}

/// One server's listing as it was heard: its resources so far, how many warnings its pages
/// carried, and why it could not be reached or listed.
#[derive(Default)]
struct Heard {
    resources: Vec<Resource>,
    warnings: usize,
    failed: Option<String>,
}

/// Connects to and lists every server at once ([`super::list_each`]). A server's resources
/// are put in the catalogue when its listing completed, in the servers' order (so the
/// catalogue is the same whichever server answered first); a failed listing adds nothing.
pub async fn list_all(servers: Vec<Selected>, options: &ConnectOptions, cap: usize) -> Listed {
    let heard: Mutex<Vec<Heard>> = Mutex::new(servers.iter().map(|_| Heard::default()).collect());
    let sessions = super::list_each(
        servers,
        options,
        &ListOptions { cap },
        false,
        |index, event| {
            let mut heard = heard.locked();
            let heard = &mut heard[index];
            match event {
                Event::Page(page) => heard.resources.extend(page.items),
                Event::Listed(outcome) => heard.warnings = outcome.warnings,
                Event::Ended { reason, .. } => heard.failed = Some(reason.why),
                _ => {}
            }
        },
    )
    .await;
    let mut catalogue = Catalogue::new();
    let mut complete = Vec::new();
    let mut failed = Vec::new();
    for (session, heard) in sessions
        .iter()
        .zip(heard.into_inner().unwrap_or_else(|e| e.into_inner()))
    {
        let id = catalogue.server(&session.spec.name);
        match heard.failed {
            None => {
                let duplicates = catalogue
                    .append(id, heard.resources.iter())
                    .duplicates
                    .len();
                super::ls::report_warnings(
                    &session.spec.name,
                    &[],
                    heard.warnings + duplicates,
                    0,
                    "`mcpick ls --json` with the same servers lists them (servers[].warnings)",
                );
                complete.push(session.spec.name.clone());
            }
            Some(reason) => {
                let message = session.say(&reason);
                report(&message);
                failed.push((session.spec.name.clone(), message));
            }
        }
    }
    Listed {
        sessions,
        catalogue,
        complete,
        failed,
        expansions: Vec::new(),
    }
}

/// A set resolved as the agent gets it: what `preview`, `export` and `lock` share.
pub struct Resolved {
    pub catalogue: Catalogue,
    pub expansions: Vec<Expansion>,
    pub preview: crate::context::Preview,
    /// The agent text of every resource read, by candidate index.
    pub texts: crate::context::measured::Texts,
    /// Servers that could not be listed, with why.
    pub failed: Vec<(String, String)>,
    /// The skills the preview includes (a file of `skill://NAME/`), each read whole and
    /// verified, when the caller asked for them (those that hand skills to hosts).
    pub skills: Vec<crate::skills::Fetched>,
}

impl Resolved {
    /// The candidates `preview` and `texts` index into (the same, in the same order, as
    /// the resolution used).
    pub fn candidates(&self) -> Vec<crate::context::Candidate<'_>> {
        let mut cands = crate::context::candidates(&self.catalogue);
        expansion::tag(&mut cands, &self.expansions);
        cands
    }
}

/// What mcpick writes for the set at `path` (its recorded deliveries and host files): left out
/// of every resolution of it ([`crate::context::OwnOutputs`]).
pub fn own_of(path: &std::path::Path) -> std::sync::Arc<crate::context::OwnOutputs> {
    std::sync::Arc::new(crate::handoff::own_outputs(path, None))
}

/// The set file at `set` resolved and read under its own policy, its servers listed afresh
/// (as `install` and the deliveries after a change write it), `own` left out.
pub async fn resolve_file(
    set: &std::path::Path,
    own: std::sync::Arc<crate::context::OwnOutputs>,
) -> Result<Resolved, Exit> {
    let loaded = load_set(&crate::cli::SetArgs {
        path: set.to_path_buf(),
    })?;
    resolve_set(
        &loaded,
        own,
        &ServerArgs::default(),
        &loaded.policy,
        8,
        true,
    )
    .await
}

/// Chooses, connects and lists the set's servers (expansions added), leaves out `own` (what
/// mcpick writes for the set: [`own_of`]), resolves with `policy` reading what would be included ([`crate::context::Sources::resolve_reading`],
/// `jobs` at once), reads and verifies the skills it includes when `skills` asks for them
/// ([`crate::skills::fetch`]), and closes the connections.
pub async fn resolve_set(
    set: &ContextSet,
    own: std::sync::Arc<crate::context::OwnOutputs>,
    servers: &ServerArgs,
    policy: &crate::context::Policy,
    jobs: usize,
    skills: bool,
) -> Result<Resolved, Exit> {
    let fresh = Fresh::new(list_set(servers, set).await?);
    let asked = service::Asked {
        marks: &set.marks,
        policy,
        jobs,
    };
    let skills = match skills {
        true => service::Skills::Fetched {
            folder: set.folder.as_deref(),
        },
        false => service::Skills::Left,
    };
    let read = {
        let sources = fresh.sources().leaving_out(own);
        service::read(&fresh, &sources, asked, skills).await
    };
    Ok(fresh.close(read).await)
}

/// The set file at `set` listed afresh for a delivery (`install`): its servers chosen,
/// connected and listed ([`list_set`]), with the set as loaded.
pub async fn connect_file(set: &std::path::Path) -> Result<Fresh, Exit> {
    let loaded = load_set(&crate::cli::SetArgs {
        path: set.to_path_buf(),
    })?;
    let listed = list_set(&ServerArgs::default(), &loaded).await?;
    Ok(Fresh::new(listed).with_set(loaded))
}

/// Says each contents part of another resource dropped from a read.
pub fn report_dropped(dropped: &[service::Dropped]) {
    for d in dropped {
        report(&format!("server `{}`: {}", shown_name(&d.server), d.said));
    }
}

/// The command line's [`service::Reader`]: the servers listed afresh for this command
/// ([`list_set`]), read through their own sessions, each read counted on the progress line.
pub struct Fresh {
    listed: Listed,
    /// The set file as loaded, when the reader was made for one ([`connect_file`]).
    pub set: ContextSet,
    progress: crate::progress::Counter,
}

impl Fresh {
    fn new(listed: Listed) -> Fresh {
        Fresh {
            listed,
            set: ContextSet::default(),
            // Reads of what the budget would include, counted as they come back.
            progress: crate::progress::Counter::new("reading", ("resource", "resources"), None),
        }
    }

    fn with_set(self, set: ContextSet) -> Fresh {
        Fresh { set, ..self }
    }

    /// Servers that could not be listed, with why.
    pub fn failed(&self) -> &[(String, String)] {
        &self.listed.failed
    }

    fn connection(&self, server: &str) -> Option<&crate::mcp::Connection> {
        let session = self
            .listed
            .sessions
            .iter()
            .find(|s| s.spec.name == server)?;
        session.connection.as_ref().ok()
    }

    /// Closes the connections, the parts `read` dropped said: the set as resolved.
    pub async fn close(self, read: service::Read) -> Resolved {
        let Fresh {
            listed, progress, ..
        } = self;
        drop(progress);
        report_dropped(&read.dropped);
        close_all(listed.sessions).await;
        Resolved {
            catalogue: listed.catalogue,
            expansions: listed.expansions,
            preview: read.preview,
            texts: read.texts,
            failed: listed.failed,
            skills: read.skills,
        }
    }
}

/// A set file's delivery (`install`): read under the file's own marks and policy, its
/// skills gated for its folder.
impl crate::handoff::make::ForSet for Fresh {
    fn asked(&self) -> (service::Asked<'_>, service::Skills<'_>) {
        let asked = service::Asked {
            marks: &self.set.marks,
            policy: &self.set.policy,
            jobs: 8,
        };
        let folder = self.set.folder.as_deref();
        (asked, service::Skills::Fetched { folder })
    }
}

impl service::Reader for Fresh {
    fn sources(&self) -> Sources<'_> {
        let mut cands = crate::context::candidates(&self.listed.catalogue);
        expansion::tag(&mut cands, &self.listed.expansions);
        Sources::from_lists(cands, &self.listed.complete, &self.listed.failed)
    }

    fn read<'s, 'c>(
        &'s self,
        candidate: &crate::context::Candidate<'c>,
    ) -> impl Future<Output = crate::mcp::read::AgentRead> + Send + use<'s, 'c> {
        let connection = self.connection(candidate.server);
        let uri = candidate.uri();
        async move {
            let read = crate::mcp::read::for_agent(connection, uri).await;
            self.progress.tick();
            read
        }
    }

    fn fetch_skill(
        &self,
        candidate: &crate::context::Candidate<'_>,
        name: &str,
    ) -> impl Future<Output = Option<crate::skills::Fetched>> + Send {
        let connection = self.connection(candidate.server);
        let server = candidate.server;
        async move { Some(crate::skills::fetch::fetch(connection?, server, name).await) }
    }
}

/// What a set resolves against: its servers chosen ([`choose`]; a usage error reported),
/// listed ([`list_all`]), then the set's expansions added ([`add_expansions`]).
pub async fn list_set(servers: &ServerArgs, set: &ContextSet) -> Result<Listed, Exit> {
    let chosen = choose(servers, set)?;
    let cap = crate::mcp::list::DEFAULT_CAP;
    let mut listed = list_all(
        chosen.into_iter().map(|c| c.selected).collect(),
        &servers.connect_options(),
        cap,
    )
    .await;
    listed.expansions = add_expansions(
        &listed.sessions,
        &mut listed.catalogue,
        &listed.complete,
        &set.marks,
        cap,
    )
    .await;
    Ok(listed)
}

/// Lists the templates of the servers in `complete` that have an exact mark in `marks` no
/// listed resource answers (only those: most sets need no extra request), puts them in the
/// catalogue, and adds the marks their templates produce as resources
/// ([`crate::context::expansion`]). A server whose templates cannot be listed has none.
pub async fn add_expansions(
    sessions: &[Session],
    catalogue: &mut Catalogue,
    complete: &[String],
    marks: &Marks,
    cap: usize,
) -> Vec<Expansion> {
    let needed = expansion::servers_needing_templates(catalogue, marks, complete);
    let wanted: Vec<&Session> = sessions
        .iter()
        .filter(|s| needed.contains(&s.spec.name))
        .collect();
    if wanted.is_empty() {
        return Vec::new();
    }
    let options = ListOptions { cap };
    let listed = join_all(wanted.iter().map(|session| {
        let options = &options;
        async move {
            let mut templates = Vec::new();
            if let Ok(connection) = &session.connection {
                let _ = connection
                    .list_templates(options, |page| templates.extend(page.items))
                    .await;
            }
            templates
        }
    }))
    .await;
    for (session, templates) in wanted.iter().zip(&listed) {
        let id = catalogue.server(&session.spec.name);
        catalogue.set_templates(id, templates);
    }
    let found = expansion::expansions(catalogue, marks);
    expansion::add(catalogue, &found);
    found
}

/// Server names for messages.
pub fn shown_name(name: &str) -> String {
    sanitize::line(name, 200)
}
