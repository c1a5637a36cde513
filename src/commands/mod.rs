//! The headless commands. Each one turns arguments into server definitions, connects to all
//! of them at once, and reports per server: one failing server never hides the others.

pub mod check;
pub mod completions;
pub mod context;
pub mod deliver;
pub mod export;
pub mod install;
pub mod lock;
pub mod login;
pub mod ls;
pub mod ls_json;
pub mod marks;
pub mod preview;
pub mod read;
pub mod serve;
pub mod servers;
pub mod trust;
pub mod trust_skills;
pub mod turn;
pub mod watch;
pub mod wrap;

use futures::future::join_all;

use crate::config::select::{Selected, Selection};
use crate::mcp::supervisor::{Event, Supervisor};
use crate::mcp::{
    ConnectOptions, Connection, Failure, FailureKind, ListOptions, McpError, ServerSpec,
};
use crate::sanitize;

pub use crate::say::{Exit, report, tell, usage_error};

/// The exit code of a refused hand-off plan: the library says what kind of refusal, the
/// command line what code that is.
impl From<crate::handoff::Refusal> for Exit {
    fn from(refusal: crate::handoff::Refusal) -> Self {
        match refusal {
            crate::handoff::Refusal::Request => Exit::Usage,
            crate::handoff::Refusal::Failed => Exit::ServerFailed,
        }
    }
}

/// Prints the warnings a server selection came back with (config files that could not be
/// used), then gives its servers, or reports the usage error.
pub fn take_selection<T>(selection: Selection<T>) -> Result<Vec<T>, Exit> {
    for warning in &selection.warnings {
        report(&format!("warning: {}", sanitize::line(warning, 2000)));
    }
    for note in &selection.notes {
        report(&format!("note: {}", sanitize::line(note, 2000)));
    }
    selection.servers.map_err(|message| usage_error(&message))
}

/// One server of this run: its definition, and the connection (its log with it) or why it
/// failed (said for a person, without the definition's secrets).
pub struct Session {
    pub spec: ServerSpec,
    pub connection: Result<Connection, String>,
}

impl Session {
    /// `reason` as a line for a person, naming the server; safe for a terminal (escape
    /// sequences removed).
    pub fn say(&self, reason: &str) -> String {
        sanitize::text(&format!(
            "server `{}`: {reason}",
            crate::sanitize::line(&self.spec.name, 200)
        ))
    }
}

/// The supervisor of one selected server for a command that reports and stops: no retry,
/// nothing followed. A failed connect names the server by its definition as written
/// (placeholders kept) for a configured server, the masked definition for an ad-hoc one.
fn supervisor(selected: &Selected, options: &ConnectOptions) -> Supervisor {
    Supervisor {
        shown: Some(selected.shown_target()),
        ..Supervisor::for_command(selected.spec.clone(), options)
    }
}

/// Why a server's definition cannot be used, said for a person.
fn unusable(reason: String) -> String {
    McpError::Config { reason }.to_string()
}

/// Connects to every server at once, each through its [`Supervisor`]. A server whose
/// definition failed becomes a session whose connection is that error.
pub async fn connect_all(servers: Vec<Selected>, options: &ConnectOptions) -> Vec<Session> {
    let progress =
        crate::progress::Counter::new("connecting", ("server", "servers"), Some(servers.len()));
    let progress = &progress;
    join_all(servers.into_iter().map(|mut selected| async move {
        if let Some(reason) = selected.error.take() {
            progress.tick();
            return Session {
                spec: selected.spec,
                connection: Err(unusable(reason)),
            };
        }
        let supervisor = supervisor(&selected, options);
        let connection = supervisor.connect().await.map_err(|f| f.why);
        progress.tick();
        Session {
            spec: supervisor.spec,
            connection,
        }
    }))
    .await
}

/// Connects to and lists every server at once, each once through its [`Supervisor`]
/// ([`Supervisor::list_once`]; templates too when asked), telling `on` what each server's
/// does as it happens, with the server's index. A failed connect or listing is told as
/// [`Event::Ended`]; a server whose definition failed is told so the same way. Shows each
/// server's progress on stderr. The sessions are for reads, and to be closed.
pub async fn list_each(
    servers: Vec<Selected>,
    options: &ConnectOptions,
    list: &ListOptions,
    templates: bool,
    on: impl Fn(usize, Event),
) -> Vec<Session> {
    let progress =
        crate::progress::Servers::new("listing", servers.iter().map(|s| s.spec.name.clone()));
    let (progress, on) = (&progress, &on);
    join_all(
        servers
            .into_iter()
            .enumerate()
            .map(|(index, mut selected)| async move {
                if let Some(reason) = selected.error.take() {
                    let reason = unusable(reason);
                    let failure = Failure::new(FailureKind::NotStarted, reason.clone());
                    on(index, Event::failed(failure));
                    return Session {
                        spec: selected.spec,
                        connection: Err(reason),
                    };
                }
                progress.set(index, "connecting");
                let supervisor = Supervisor {
                    list: list.clone(),
                    templates,
                    ..supervisor(&selected, options)
                };
                let mut failed = None;
                let connection = supervisor
                    .list_once(|event| {
                        match &event {
                            Event::Page(page) => {
                                progress.set(index, ls::pages_status(page.number, page.received))
                            }
                            Event::Ended { reason, .. } => failed = Some(reason.why.clone()),
                            _ => {}
                        }
                        on(index, event)
                    })
                    .await;
                progress.set(index, "done");
                Session {
                    spec: supervisor.spec,
                    connection: connection.ok_or_else(|| failed.unwrap_or_default()),
                }
            }),
    )
    .await
}

/// Ends every session, waiting briefly for servers to exit.
pub async fn close_all(sessions: Vec<Session>) {
    join_all(
        sessions
            .into_iter()
            .filter_map(|s| s.connection.ok())
            .map(Connection::close),
    )
    .await;
}
