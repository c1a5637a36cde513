//! Values the shell completes that clap cannot know by itself: the names of defined servers
//! (`--server`, `login NAME`) and context-set files (`--set`). Host names, formats and the
//! other fixed choices complete from their `ValueEnum`s.
//!
//! They run inside `COMPLETE=SHELL mcpick -- …` (clap_complete's dynamic engine), once per
//! Tab: they read the config files `mcpick servers` reads, never contact a server, and say
//! nothing on failure (a broken file completes nothing rather than printing into the shell).

use std::ffi::OsStr;

use clap_complete::engine::{
    ArgValueCandidates, ArgValueCompleter, CompletionCandidate, PathCompleter,
};

/// Every server name defined in the config files read from this directory, in precedence
/// order, each with what it runs or where it is.
fn server_names() -> Vec<CompletionCandidate> {
    let places = crate::config::Places::system();
    let config = crate::config::load_at(&places, None);
    config
        .servers
        .iter()
        .map(|known| {
            let name = crate::sanitize::line(known.name(), 200);
            // What it runs or where it is, masked as `mcpick servers` shows it.
            let help = match &known.definition.shown {
                Some(spec) => {
                    crate::sanitize::line(&format!("{} {}", spec.kind(), spec.target()), 80)
                }
                None => "(invalid definition)".to_string(),
            };
            CompletionCandidate::new(name).help(Some(help.into()))
        })
        .collect()
}

/// `--server NAME`, `login NAME`, `logout NAME`.
pub fn servers() -> ArgValueCandidates {
    ArgValueCandidates::new(server_names)
}

/// `--set FILE`: JSON files (context sets are JSON) and folders to go into.
pub fn set_files() -> ArgValueCompleter {
    ArgValueCompleter::new(
        PathCompleter::file().filter(|path| {
            path.is_dir() || path.extension().is_some_and(|e| e == OsStr::new("json"))
        }),
    )
}
