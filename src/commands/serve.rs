//! `mcpick serve`: argument handling around [`crate::serve`]. The upstreams are chosen
//! exactly as `mcpick preview` chooses them (a definition in a config file wins, for its
//! secrets).

use std::sync::Arc;

use super::context::load_set_to_hand_on;
use super::{Exit, usage_error};
use crate::cli::ServeArgs;
use crate::config::select::choose_and_hold;
use crate::serve::{self, Awaiting, Diag, Engine, Listen, Presentation, UpstreamDef};

pub async fn run(args: ServeArgs) -> Exit {
    let token = match token_of(&args) {
        Ok(token) => token,
        Err(exit) => return exit,
    };
    let diag = match diag_of(&args) {
        Ok(diag) => diag,
        Err(exit) => return exit,
    };
    let diag = Arc::new(diag);
    if args.no_tool {
        diag.line(
            "warning: --no-tool: Codex lists neither resources nor prompts, so a Codex session sees nothing of this server (its session-start delivery, if installed, still works)",
        );
    }
    let set = match load_set_to_hand_on(&args.set, &args.servers) {
        Ok(set) => set,
        Err(exit) => return exit,
    };
    let (selection, held) = choose_and_hold(&args.servers.choice(), set.set_servers());
    // Config files that could not be used go to the diagnostics (stderr and --log).
    for warning in &selection.warnings {
        diag.line(&format!(
            "warning: {}",
            crate::sanitize::line(warning, 2000)
        ));
    }
    for note in &selection.notes {
        diag.line(&format!("note: {}", crate::sanitize::line(note, 2000)));
    }
    let chosen = match selection.servers {
        Ok(chosen) => chosen,
        Err(message) => return usage_error(&message),
    };
    let awaiting: Vec<Awaiting> = held
        .into_iter()
        .map(|h| Awaiting {
            name: h.name,
            project: h.project,
        })
        .collect();
    // Said on stderr in the words clients get (the host's log of this server shows it).
    if let Some(text) = serve::handler::awaiting_text(&awaiting) {
        diag.line(&format!("warning: {text}"));
    }
    let defs = chosen
        .into_iter()
        .map(|c| UpstreamDef {
            spec: c.selected.spec,
            error: c.selected.error,
        })
        .collect();
    // `serve` follows its upstreams' updates and passes them on to hosts.
    let options = crate::mcp::ConnectOptions {
        follow_updates: true,
        ..args.servers.connect_options()
    };
    let engine = Engine::start(
        defs,
        options,
        crate::mcp::list::DEFAULT_CAP,
        set,
        args.set.path.clone(),
        args.expose,
        args.jobs,
        {
            let diag = diag.clone();
            Arc::new(move |line: &str| diag.line(line))
        },
    );
    tokio::spawn(serve::deliver::keep_fresh(engine.clone(), {
        let diag = diag.clone();
        Arc::new(move |line: &str| diag.line(line))
    }));
    let presentation = Presentation {
        name: args.server_name,
        tool: !args.no_tool,
        awaiting,
    };
    let listen = Listen {
        http: args.http,
        token,
    };
    match serve::run(engine, presentation, listen, diag.clone()).await {
        Ok(()) => Exit::Ok,
        Err(e) => {
            diag.line(&format!("{e:#}"));
            Exit::ServerFailed
        }
    }
}

/// The bearer token clients must send (`--require-token-env`); refused when the variable is
/// empty, or when `--http` binds beyond loopback without one.
fn token_of(args: &ServeArgs) -> Result<Option<String>, Exit> {
    match (&args.http, &args.require_token_env) {
        (_, Some(var)) => match std::env::var(var) {
            Ok(token) if !token.is_empty() => Ok(Some(token)),
            _ => Err(usage_error(&format!(
                "--require-token-env {var}: the variable is not set or empty"
            ))),
        },
        (Some(addr), None) if !addr.ip().is_loopback() => Err(usage_error(&format!(
            "--http {addr} is not a loopback address: anyone who can reach it could read the set; add --require-token-env VAR (a bearer token clients must send), or bind 127.0.0.1"
        ))),
        _ => Ok(None),
    }
}

/// The diagnostics: stderr, and the `--log` file appended to when one is given.
fn diag_of(args: &ServeArgs) -> Result<Diag, Exit> {
    match &args.log {
        Some(path) => match std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            Ok(file) => Ok(Diag::new(Some(file))),
            Err(e) => Err(usage_error(&format!("--log {}: {e}", path.display()))),
        },
        None => Ok(Diag::new(None)),
    }
}
