//! The import direction DESIGN.md asks for, checked on the source text: `cli` holds argument
//! structs and imports no command and not the browser; server selection (`config`) imports
//! neither the CLI nor the commands; the host dialects (`hosts`) do not import `config` (it
//! imports them: one direction, no circle); where files are (`places`) and how they are
//! written (`fsio`) import nothing of the crate; the catalogue does not reach up into the demo;
//! the browser chooses servers through `config::select`, not through a command module; only
//! `main` names the headless commands (the browser, `wrap`, `serve` and the hand-off library
//! sit below them); and no import circle crosses a top-level folder.

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
    for dir in ["commands", "serve", "tui", "handoff", "export", "wrap"] {
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
    for dir in ["commands", "serve", "tui", "handoff", "wrap"] {
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

/// The top-level modules (a folder or a file under `src/`, `lib` and `main` left out).
fn top_level_modules() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(src())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            let name = name.strip_suffix(".rs").map(str::to_string).unwrap_or(name);
            (name != "lib" && name != "main").then_some(name)
        })
        .collect();
    names.sort();
    names
}

/// Which top-level modules `module`'s code names through `crate::`.
fn imports_of(module: &str, all: &[String]) -> Vec<String> {
    let path = if src().join(module).is_dir() {
        src().join(module)
    } else {
        src().join(format!("{module}.rs"))
    };
    let mut found = Vec::new();
    for file in sources(&path) {
        for line in code(&file).lines() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (i, _) in line.match_indices("crate::") {
                let rest = &line[i + "crate::".len()..];
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if name != module && all.contains(&name) && !found.contains(&name) {
                    found.push(name);
                }
            }
        }
    }
    found
}

/// A circle in `graph` (module, its imports), as the path around it, if there is one.
fn circle(graph: &[(String, Vec<String>)]) -> Option<Vec<String>> {
    fn visit(
        at: &str,
        graph: &[(String, Vec<String>)],
        path: &mut Vec<String>,
        done: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        if let Some(i) = path.iter().position(|p| p == at) {
            let mut around = path[i..].to_vec();
            around.push(at.to_string());
            return Some(around);
        }
        if done.iter().any(|d| d == at) {
            return None;
        }
        path.push(at.to_string());
        let next = graph.iter().find(|(m, _)| m == at).map(|(_, i)| i.clone());
        for n in next.unwrap_or_default() {
            if let Some(found) = visit(&n, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.push(at.to_string());
        None
    }
    let mut done = Vec::new();
    for (m, _) in graph {
        if let Some(found) = visit(m, graph, &mut Vec::new(), &mut done) {
            return Some(found);
        }
    }
    None
}

#[test]
fn no_import_circle_crosses_a_top_level_folder() {
    let all = top_level_modules();
    assert!(all.len() > 10, "{all:?}");
    let graph: Vec<_> = all
        .iter()
        .map(|m| (m.clone(), imports_of(m, &all)))
        .collect();
    assert_eq!(circle(&graph), None, "{graph:#?}");
}

/// The checker itself: a circle is found.
#[test]
fn the_circle_check_finds_a_circle() {
    let graph = vec![
        ("a".to_string(), vec!["b".to_string()]),
        ("b".to_string(), vec!["c".to_string()]),
        ("c".to_string(), vec!["a".to_string()]),
    ];
    assert_eq!(
        circle(&graph),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(circle(&graph[..2]), None);
}

/// Only `main` runs the headless commands: the browser, `wrap`, `serve`, the hand-off
/// library and everything below them use libraries, never a command module.
#[test]
fn only_main_names_the_commands() {
    for module in top_level_modules() {
        if module == "commands" {
            continue;
        }
        let path = if src().join(&module).is_dir() {
            module.clone()
        } else {
            format!("{module}.rs")
        };
        let found = offenders(&path, &["crate::commands", "super::commands"]);
        assert!(found.is_empty(), "{module}: {found:#?}");
    }
}

/// The hand-off library is below its front ends: it names neither the CLI, the browser nor
/// a command.
#[test]
fn the_handoff_library_names_no_front_end() {
    let found = offenders("handoff", &["crate::cli", "crate::tui", "crate::commands"]);
    assert!(found.is_empty(), "{found:#?}");
}

/// `install` and `deliver` do not import each other (both read the hand-off library).
#[test]
fn install_and_deliver_commands_do_not_import_each_other() {
    let found = offenders(
        "commands/install.rs",
        &["super::deliver", "commands::deliver"],
    );
    assert!(found.is_empty(), "{found:#?}");
    let found = offenders(
        "commands/deliver.rs",
        &["super::install", "commands::install"],
    );
    assert!(found.is_empty(), "{found:#?}");
}

/// A poisoned lock is recovered in one place (`crate::sync::Locked`), not by hand.
#[test]
fn poisoned_locks_are_recovered_in_one_place() {
    for module in top_level_modules() {
        if module == "sync" {
            continue;
        }
        let path = if src().join(&module).is_dir() {
            module.clone()
        } else {
            format!("{module}.rs")
        };
        let found: Vec<String> = offenders(&path, &["|e| e.into_inner()"])
            .into_iter()
            // Taking a Mutex's value out, or borrowing it owned (no guard), is not taking the lock.
            .filter(|l| {
                !l.contains(".into_inner().unwrap_or_else")
                    && !l.contains(".get_mut().unwrap_or_else")
            })
            .collect();
        assert!(found.is_empty(), "{module}: {found:#?}");
    }
}

/// The hand-off wing's files, `src/handoff/profiles/` (one file per host and the map) left out.
fn handoff_features() -> Vec<PathBuf> {
    let profiles = src().join("handoff").join("profiles");
    sources(&src().join("handoff"))
        .into_iter()
        .filter(|f| !f.starts_with(&profiles))
        .collect()
}

/// Everything mcpick knows of a host is in that host's profile (`src/handoff/profiles/`): the
/// rest of the hand-off wing (channel, hooks, per-turn, skills, the delivery's files and the
/// plan) reads profiles and names no particular host.
#[test]
fn the_handoff_features_name_no_particular_host() {
    let variants = [
        "ClaudeCode",
        "Gemini",
        "Codex",
        "OpenCode",
        "CopilotCli",
        "QwenCode",
        "VsCode",
        "Cursor",
        "Windsurf",
        "ClaudeDesktop",
        "Zed",
    ];
    let files = handoff_features();
    assert!(files.len() > 5, "{files:?}");
    let mut found = Vec::new();
    for file in files {
        for (n, line) in code(&file).lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            if variants
                .iter()
                .any(|v| line.contains(&format!("Host::{v}")))
            {
                found.push(format!("{}:{}: {}", file.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// The code of `text` without its comment lines.
fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names a path that starts at `rest` takes first: `name::…` gives `name`, `{a, b::c}`
/// gives `a` and `b`.
fn first_names(rest: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(inner) = rest.strip_prefix('{') else {
        return vec![ident(rest)];
    };
    let mut depth = 0;
    let mut names = Vec::new();
    let mut item = String::new();
    for c in inner.chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                names.push(ident(&item));
                item.clear();
                continue;
            }
            _ => {}
        }
        if depth == 0 {
            item.push(c);
        }
    }
    names.push(ident(&item));
    names
}

/// The hand-off wing's import graph, one node per file (`profiles/` one node for the map and
/// its host files; `mod.rs`, which declares the wing, left out): which sibling modules each
/// names through `super::` or `crate::handoff::`.
fn handoff_graph() -> Vec<(String, Vec<String>)> {
    let root = src().join("handoff");
    let profiles = root.join("profiles");
    let node = |f: &Path| -> String {
        if f.starts_with(&profiles) {
            "profiles".into()
        } else {
            f.file_stem().unwrap().to_string_lossy().into_owned()
        }
    };
    let files: Vec<PathBuf> = sources(&root)
        .into_iter()
        .filter(|f| f != &root.join("mod.rs"))
        .collect();
    let nodes: Vec<String> = files.iter().map(|f| node(f)).collect();
    let mut graph: Vec<(String, Vec<String>)> = Vec::new();
    for file in &files {
        let me = node(file);
        let text = without_comments(&code(file));
        let mut prefixes = vec!["crate::handoff::"];
        if !file.starts_with(&profiles) {
            prefixes.push("super::");
        }
        let mut imports = Vec::new();
        for prefix in prefixes {
            for (i, _) in text.match_indices(prefix) {
                for name in first_names(&text[i + prefix.len()..]) {
                    if name != me && nodes.contains(&name) && !imports.contains(&name) {
                        imports.push(name);
                    }
                }
            }
        }
        match graph.iter_mut().find(|(n, _)| *n == me) {
            Some((_, known)) => {
                for i in imports {
                    if !known.contains(&i) {
                        known.push(i);
                    }
                }
            }
            None => graph.push((me, imports)),
        }
    }
    graph
}

/// No import circle inside the hand-off wing: a host's profile (`profile.rs`, the types;
/// `profiles/`, the values) imports no feature module, and the features import each other one
/// way.
#[test]
fn no_import_circle_inside_the_handoff_wing() {
    let graph = handoff_graph();
    assert!(graph.len() > 8, "{graph:#?}");
    assert_eq!(circle(&graph), None, "{graph:#?}");
    let of = |n: &str| &graph.iter().find(|(m, _)| m == n).unwrap().1;
    assert!(of("profile").is_empty(), "{graph:#?}");
    assert_eq!(of("profiles"), &["profile".to_string()], "{graph:#?}");
}

/// The checker itself: grouped and nested imports are read.
#[test]
fn the_first_names_of_an_import_are_read() {
    assert_eq!(first_names("delivery::Record;"), ["delivery"]);
    assert_eq!(
        first_names("{self, profile::{A, B}, lines}"),
        ["self", "profile", "lines"]
    );
}

/// Delivery is one service (`handoff::service`) fed by whoever holds the connections: no
/// front end writes the recorded deliveries, gates skills or starts a `mcpick deliver` of its
/// own; they hand the service a `Reader`.
#[test]
fn front_ends_deliver_through_the_delivery_service() {
    for dir in ["commands", "serve", "tui", "wrap"] {
        let found = offenders(
            dir,
            &[
                "refresh_all(",
                "skills::gate(",
                "current_exe()",
                "\"deliver\"",
            ],
        );
        assert!(found.is_empty(), "{dir}: {found:#?}");
    }
}
