//! The import direction DESIGN.md asks for, checked on the source text: `cli` holds argument
//! structs and imports no command and not the browser; server selection (`config`) imports
//! neither the CLI nor the commands; the host dialects (`hosts`) do not import `config` (it
//! imports them: one direction, no circle); where files are (`places`) and how they are
//! written (`fsio`) import nothing of the crate; the catalogue does not reach up into the demo;
//! the browser chooses servers through `config::select`, not through a command module.

use std::path::{Path, PathBuf};

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir` (or `dir` itself when it is a file), except test modules:
/// files named `tests.rs` or under a `tests` folder.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    if dir.is_file() {
        files.push(dir.to_path_buf());
        return files;
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "tests") {
                files.extend(sources(&path));
            }
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_name().is_some_and(|n| n != "tests.rs")
        {
            files.push(path);
        }
    }
    files
}

/// The non-test code of a file: everything before its `#[cfg(test)]` module.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// The places under `dir` whose code (comments left out) names one of `forbidden`.
fn offenders(dir: &str, forbidden: &[&str]) -> Vec<String> {
    let root = src().join(dir);
    let files = sources(&root);
    assert!(!files.is_empty(), "no sources under {}", root.display());
    let mut found = Vec::new();
    for file in files {
        for (n, line) in code(&file).lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            if forbidden.iter().any(|f| line.contains(f)) {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn cli_imports_no_command() {
    let found = offenders("cli", &["crate::commands", "super::commands"]);
    assert!(found.is_empty(), "{found:#?}");
    assert!(
        !src().join("cli.rs").exists(),
        "cli is the folder src/cli/ (checked above)"
    );
}

#[test]
fn cli_does_not_import_the_browser() {
    let found = offenders("cli", &["crate::tui", "super::tui"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn hosts_do_not_import_config() {
    let found = offenders("hosts", &["crate::config", "super::config"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn places_and_file_writing_import_nothing_of_the_crate() {
    for dir in ["places.rs", "fsio"] {
        let found = offenders(dir, &["crate::", "super::super"]);
        assert!(found.is_empty(), "{found:#?}");
    }
}

#[test]
fn config_imports_neither_the_cli_nor_the_commands() {
    let found = offenders("config", &["crate::cli", "crate::commands", "crate::tui"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_catalogue_does_not_import_the_demo() {
    let found = offenders("catalog", &["crate::demo"]);
    assert!(found.is_empty(), "{found:#?}");
}

#[test]
fn the_browser_chooses_servers_through_config_select() {
    let found = offenders("tui", &["commands::context"]);
    assert!(found.is_empty(), "{found:#?}");
}

/// The commands print messages through `commands::report` (clean, and no panic on a closed
/// stderr), never with `eprintln!` of their own.
#[test]
fn commands_print_messages_through_report() {
    let found = offenders("commands", &["eprintln!", "eprint!("]);
    assert!(found.is_empty(), "{found:#?}");
}

/// The checker itself: a forbidden import in a file is found.
#[test]
fn the_check_finds_an_import() {
    let found = offenders("commands", &["crate::cli"]);
    assert!(!found.is_empty(), "commands do import the CLI's structs");
}

/// One read for the agent and one resolve entry point: front ends read a resource to hand on
/// through `mcp::read::for_agent` / `Connection::read_for_agent` (one wording of a failure)
/// and resolve through `context::Sources`, never by hand.
#[test]
fn front_ends_read_and_resolve_through_one_entry_point() {
    for dir in ["commands", "serve", "tui", "deliver", "export", "wrap"] {
        let found = offenders(
            dir,
            &[
                ".read_own(",
                "is not connected\"",
                "resolve_measured",
                "Input {",
            ],
        );
        assert!(found.is_empty(), "{dir}: {found:#?}");
    }
}

/// One owner of a followed server's life (`mcp::Supervisor`): the front ends that follow a
/// server (the browser, `serve`, `watch`) neither connect, re-list, take its changes, wait
/// for it to close nor retry on their own.
#[test]
fn front_ends_follow_servers_through_the_supervisor() {
    for dir in ["tui", "serve", "wrap", "commands/watch.rs"] {
        let found = offenders(
            dir,
            &[
                "Connection::connect(",
                ".list_resources(",
                ".list_uris(",
                ".changes()",
                ".closed(",
                ".watch(&",
                "RETRY_FIRST",
            ],
        );
        assert!(found.is_empty(), "{dir}: {found:#?}");
    }
}

/// One way to follow a server (`mcp::follow`): no front end waits out a burst of
/// notifications or polls a connection for having closed.
#[test]
fn only_the_connection_layer_coalesces_changes_or_polls_for_a_closed_connection() {
    for dir in ["commands", "serve", "tui", "deliver", "wrap"] {
        let found = offenders(
            dir,
            &[
                "is_closed()",
                "COALESCE",
                "CLOSED_POLL",
                "connection.events()",
            ],
        );
        assert!(found.is_empty(), "{dir}: {found:#?}");
    }
}
