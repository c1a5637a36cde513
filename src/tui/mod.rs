//! The interactive browser: `mcpick` with no subcommand.
//!
//! A pure core inside an async shell:
//! - `app/`: `App` state and `update(msg) -> Vec<Effect>`; `App` routes to sub-states, one file
//!   each (browse, tree, list, search, contents, context, servers).
//! - `ui/`: `render(&App, &mut Frame)`, one file per pane, each drawing from the narrow state
//!   it shows; reads state, never changes it.
//! - `runtime`: the `tokio::select!` loop (terminal events, the message channel, the redraw
//!   deadline); `executor`: runs effects as tasks (connections, reads, counts; the CPU-bound
//!   ones through [`executor::compute`]); `follow`: one server's connection over time
//!   (connect, list, follow changes, notice it is gone); `keeper`: saves the set file and
//!   watches it.
//! - Below the core: `contents` (the contents pane's document and rows), `agent`
//!   (resolution requests), `keymap` (keys as data), `layout` (geometry), `text`, `theme`
//!   (styles by role), `term` (the terminal).
//!
//! This file starts the browser: servers chosen, the set loaded, the terminal set up.

pub mod agent;
pub mod app;
pub mod contents;
pub mod executor;
mod follow;
pub mod keeper;
pub mod keymap;
pub mod layout;
mod reader;
pub mod runtime;
pub mod server_info;
pub mod term;
pub mod text;
pub mod theme;
pub mod trace;
pub mod ui;

use std::path::PathBuf;
use std::process::ExitCode;

pub use app::{App, Effect, Msg, ServerEvent, ServerSetup};

use crate::cli::{ColorChoice, ServerArgs};
use crate::config::select::{
    Chosen, Held, Selected, choose_from, gate_system, load_config, remember_recorded,
};
use crate::context::{ContextSet, SetFile};
use crate::sanitize;
use executor::Startable;
use keymap::Keymap;
use theme::Theme;

/// Runs the browser until the person quits. Returns the process exit status.
pub async fn run(args: ServerArgs, color: ColorChoice, set_path: PathBuf) -> ExitCode {
    if let Some(file) = &args.config.file
        && !file.is_file()
    {
        eprintln!("mcpick: --config {}: no such file", file.display());
        return ExitCode::from(2);
    }
    // The context set: a file that cannot be used is shown in the UI and never overwritten.
    let (set_file, loaded) = SetFile::open(&set_path);
    let (mut set, load_error) = match loaded {
        Ok(set) => (set, None),
        Err(e) => (ContextSet::default(), Some(e.to_string())),
    };
    // The run's one config load: the servers and the `[keys]` tables; its file errors go to
    // the status line with the key table's own.
    let (config, mut warnings) = load_config(args.config.file.as_deref());
    // Also on stderr, as every command says them: seen after the browser closes, in full.
    for warning in &warnings {
        crate::say::report(&format!("warning: {warning}"));
    }
    // The same servers `mcpick preview --set FILE` would use.
    let mut notes = Vec::new();
    let mut chosen = match choose_from(&args.choice(), set.set_servers(), &config, &mut notes) {
        Ok(c) => c,
        Err(e) => {
            crate::say::report(&e);
            return ExitCode::from(2);
        }
    };
    // A project's own servers start only once approved (`mcpick trust`); the status line
    // and stderr say which were held back.
    let project = crate::config::Places::system().project;
    let held = gate_system(
        &mut chosen,
        |c| &mut c.selected,
        &project,
        set.set_servers().folder,
        &mut notes,
    );
    for c in &chosen {
        set.servers
            .insert(c.selected.spec.name.clone(), c.shown.clone());
    }
    // What the person gave on this command line is recorded in the set from now on: the
    // next run reads it from there, approved (see `config::trust`).
    if let Err(e) = remember_recorded(&chosen, set.set_servers().folder) {
        warnings.push(e);
    }
    let kept_notes = masked_notes(&chosen);
    let selected: Vec<_> = chosen.into_iter().map(|c| c.selected).collect();
    let (keymap, key_warnings) = Keymap::load(&config);
    warnings.extend(key_warnings);
    let theme = Theme::choose(color, std::env::var("NO_COLOR").ok().as_deref());
    term::use_theme_colours(&theme);
    // The browser follows updates (the contents pane subscribes to what it shows).
    let options = crate::mcp::ConnectOptions {
        follow_updates: true,
        ..args.connect_options()
    };
    let mut app = App::new(setups(&selected, &held), keymap, theme, options.log_lines);
    app.notice = notice(notes, &warnings);
    let servers: Vec<Startable> = selected
        .into_iter()
        .enumerate()
        .map(|(position, s)| Startable {
            spec: s.spec,
            needs_approval: held.iter().find(|h| h.position == position).cloned(),
        })
        .collect();
    let first = app.set_context(set, load_error);
    app.context.saving.path = Some(shown_path(&set_path));
    app.context.saving.file = Some(set_path.clone());
    app.context.own = std::sync::Arc::new(crate::handoff::own_outputs(&set_path, None));
    app.context.saving.secrets_note = (!kept_notes.is_empty()).then(|| kept_notes.join("; "));

    let (mut terminal, guard) = match term::init() {
        Ok(t) => t,
        Err(e) => {
            term::restore();
            eprintln!("mcpick: cannot set up the terminal: {e}");
            return ExitCode::from(1);
        }
    };
    let result = runtime::event_loop(&mut terminal, app, first, servers, options, set_file).await;
    drop(guard);
    match result {
        Ok(None) => ExitCode::SUCCESS,
        Ok(Some(not_saved)) => {
            // A mark is never lost without saying so, and a non-zero status.
            eprintln!("mcpick: {}", sanitize::line(&not_saved, 2000));
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("mcpick: terminal error: {e}");
            ExitCode::from(1)
        }
    }
}

/// The notes on servers whose secrets were masked when recorded: each said on stderr now
/// (read after the browser closes); returned for the first save to say.
fn masked_notes(chosen: &[Chosen]) -> Vec<String> {
    let mut kept_notes = Vec::new();
    for c in chosen.iter().filter(|c| !c.masked.is_empty()) {
        if let Some(note) = crate::config::example::masked_note(c) {
            crate::say::report(&note);
        }
        let name = sanitize::line(&c.selected.spec.name, 200);
        kept_notes.push(if c.kept.is_empty() {
            format!("`{name}` is recorded without its credentials")
        } else {
            crate::config::kept::kept_note(&name, &c.masked)
        });
    }
    kept_notes
}

/// What the core is told of each server at start: its name, its error, and what its
/// approval asks when it is held.
fn setups(selected: &[Selected], held: &[Held]) -> Vec<ServerSetup> {
    selected
        .iter()
        .enumerate()
        .map(|(position, s)| ServerSetup {
            name: s.spec.name.clone(),
            error: s.error.clone(),
            held: held
                .iter()
                .find(|h| h.position == position)
                .map(ServerSetup::asks),
        })
        .collect()
}

/// The status line's first notice: the notes (the demo used unasked, …), also said on
/// stderr to be read after the browser closes, and the config's warnings.
fn notice(notes: Vec<String>, warnings: &[String]) -> Option<String> {
    for note in &notes {
        crate::say::report(&format!("note: {note}"));
    }
    let mut notice: Vec<String> = notes;
    if !warnings.is_empty() {
        notice.push(format!("config: {}", warnings.join("; ")));
    }
    (!notice.is_empty()).then(|| sanitize::line(&notice.join("; "), 300))
}

/// A set file's path as a person would type it: `./mcpick.context.json` for a bare name.
pub fn shown_path(path: &std::path::Path) -> String {
    let bare = path.is_relative() && path.parent().is_none_or(|p| p.as_os_str().is_empty());
    let shown = if bare {
        format!("./{}", path.display())
    } else {
        path.display().to_string()
    };
    sanitize::line(&shown, 300)
}
