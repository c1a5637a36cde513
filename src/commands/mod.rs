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
pub mod watch;
pub mod wrap;

use futures::future::join_all;

use crate::config::select::{Selected, Selection};
use crate::mcp::log::ServerLog;
use crate::mcp::{ConnectOptions, Connection, McpError, ServerSpec};
use crate::sanitize;

/// How a command ended, as a process exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    ServerFailed = 1,
    Usage = 2,
    NotFound = 3,
}

/// Reports a usage error (bad flags, unknown server) and gives its exit status.
pub fn usage_error(message: &str) -> Exit {
    report(message);
    Exit::Usage
}

/// Prints one message for a person on stderr, `mcpick: ` first. Every command's error,
/// warning and note goes through here: messages quote config strings and server text, so
/// escape sequences and control characters are removed (line breaks kept).
pub fn report(message: &str) {
    tell(&format!("mcpick: {message}"));
}

/// Prints a line for a person on stderr as it is, without `mcpick: ` (the steps of a
/// sign-in), cleaned as [`report`] cleans.
pub fn tell(line: &str) {
    use std::io::Write;
    // Not `eprintln!`: it panics when stderr is gone (a closed terminal or pipe).
    crate::progress::clear();
    let _ = writeln!(std::io::stderr(), "{}", sanitize::text(line));
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

/// One server of this run: its definition, its log, and the connection or why it failed.
pub struct Session {
    pub spec: ServerSpec,
    /// How messages name the server: its definition as written (placeholders kept) for a
    /// configured server, the masked definition for an ad-hoc one.
    pub shown: String,
    pub log: ServerLog,
    pub connection: Result<Connection, McpError>,
}

impl Session {
    /// The error line for a person, naming the server; safe for a terminal (escape
    /// sequences removed) and free of the definition's secrets.
    pub fn describe_error(&self, error: &McpError) -> String {
        let detail = match &self.connection {
            Ok(connection) => connection.explain(error),
            Err(_) => error.to_string_as(&self.shown),
        };
        sanitize::text(&format!(
            "server `{}`: {detail}",
            crate::sanitize::line(&self.spec.name, 200)
        ))
    }
}

/// Connects to every server at once. A server whose definition failed becomes a session whose
/// connection is that error.
pub async fn connect_all(servers: Vec<Selected>, options: &ConnectOptions) -> Vec<Session> {
    let progress =
        crate::progress::Counter::new("connecting", ("server", "servers"), Some(servers.len()));
    let progress = &progress;
    join_all(servers.into_iter().map(|selected| async move {
        let shown = selected.shown_target();
        let Selected { spec, error, .. } = selected;
        let log = ServerLog::new(options.log_lines);
        let connection = match error {
            Some(reason) => Err(McpError::Config { reason }),
            None => Connection::connect(&spec, options, log.clone()).await,
        };
        progress.tick();
        Session {
            spec,
            shown,
            log,
            connection,
        }
    }))
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
