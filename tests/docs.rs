//! The README and `docs/` stay true: every link between them resolves, every `mcpick …` command
//! they show parses with the real argument definitions (so a renamed flag or subcommand fails
//! here, not in a reader's shell), and the blocks marked `<!-- doc-test: run -->` run against
//! the built-in demo in a throwaway project and home, each command exiting 0.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;
use mcpick::cli::Cli;

const RUN_MARKER: &str = "<!-- doc-test: run -->";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every page under docs/.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("docs/ entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    assert!(docs.len() >= 5, "docs/ holds the reference pages");
    pages.extend(docs);
    pages
}

/// One fenced code block: its info string, its lines, and whether the line before its
/// opening fence (blank lines skipped) is the run marker.
struct Block {
    info: String,
    lines: Vec<String>,
    run: bool,
}

fn blocks(text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut current: Option<Block> = None;
    let mut last_prose = "";
    for line in text.lines() {
        let fence = line.trim_start().starts_with("```");
        match current.as_mut() {
            Some(_) if fence => out.extend(current.take()),
            Some(block) => block.lines.push(line.to_string()),
            None if fence => {
                current = Some(Block {
                    info: line.trim_start().trim_start_matches('`').trim().to_string(),
                    lines: Vec::new(),
                    run: last_prose.trim() == RUN_MARKER,
                });
            }
            None if !line.trim().is_empty() => last_prose = line,
            None => {}
        }
    }
    assert!(current.is_none(), "an unclosed code block");
    out
}

/// GitHub's heading anchors: lower case, punctuation other than `-` and `_` dropped, spaces to `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> HashSet<String> {
    let mut fenced = false;
    let mut out = HashSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// `[text](target)` links outside code blocks and code spans.
fn links(text: &str) -> Vec<String> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut in_code = false;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == '`' {
                in_code = !in_code;
            } else if !in_code && chars[i] == ']' && chars.get(i + 1) == Some(&'(') {
                let rest: String = chars[i + 2..].iter().collect();
                if let Some(end) = rest.find(')') {
                    out.push(rest[..end].to_string());
                }
            }
            i += 1;
        }
    }
    out
}

#[test]
fn every_link_between_the_pages_resolves() {
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("readable page");
        for link in links(&text) {
            if link.starts_with("http://") || link.starts_with("https://") {
                continue;
            }
            let (file, anchor) = link.split_once('#').unwrap_or((&link, ""));
            let target = if file.is_empty() {
                page.clone()
            } else {
                page.parent().expect("a folder").join(file)
            };
            assert!(
                target.exists(),
                "{}: link `{link}`: {} does not exist",
                page.display(),
                target.display()
            );
            if !anchor.is_empty() {
                let target_text = std::fs::read_to_string(&target).expect("readable target");
                assert!(
                    anchors(&target_text).contains(anchor),
                    "{}: link `{link}`: no heading with anchor #{anchor} in {}",
                    page.display(),
                    target.display()
                );
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 15,
        "the README links to every docs page ({checked} links)"
    );
}

/// Shell words of one command line, up to a comment, a redirection, a pipe or a `;`/`&&`.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut has_word = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                has_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    word.push(q);
                }
            }
            '"' => {
                has_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        _ => word.push(q),
                    }
                }
            }
            '\\' => {
                has_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if has_word {
                    words.push(std::mem::take(&mut word));
                    has_word = false;
                }
            }
            '#' if !has_word => break,
            '>' | '<' | '|' | ';' | '&' => break,
            c => {
                has_word = true;
                word.push(c);
            }
        }
    }
    if has_word {
        words.push(word);
    }
    words
}

/// Every `mcpick …` command in a shell or console block, with where it was found.
fn commands() -> Vec<(String, usize, Vec<String>, bool)> {
    let mut out = Vec::new();
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("readable page");
        let name = page
            .strip_prefix(root())
            .unwrap_or(&page)
            .display()
            .to_string();
        for block in blocks(&text) {
            let console = block.info == "console";
            if !(console || block.info == "sh" || block.info == "bash") {
                continue;
            }
            for (n, line) in block.lines.iter().enumerate() {
                let command = if console {
                    match line.strip_prefix("$ ") {
                        Some(c) => c,
                        None => continue,
                    }
                } else {
                    line.as_str()
                };
                let words = shell_words(command);
                if words.first().is_some_and(|w| w == "mcpick") {
                    out.push((name.clone(), n, words, block.run));
                }
            }
        }
    }
    out
}

#[test]
fn every_documented_command_parses() {
    let commands = commands();
    assert!(commands.len() >= 40, "found {} commands", commands.len());
    let mut failures = Vec::new();
    for (page, n, words, _) in &commands {
        if let Err(e) = Cli::try_parse_from(words) {
            let first = e.to_string().lines().next().unwrap_or_default().to_string();
            failures.push(format!(
                "{page} (block line {n}): `{}`: {first}",
                words.join(" ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The marked examples, run in order in one throwaway project with its own home and cache, so
/// that `install` writes there and nothing of the machine's is read or changed.
#[test]
fn the_marked_examples_run_against_the_demo() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcpick"));
    let dir = tempfile::tempdir().expect("temp dir");
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    for d in [&home, &project] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let path = format!(
        "{}:{}",
        bin.parent().expect("bin folder").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let runnable: Vec<_> = commands().into_iter().filter(|c| c.3).collect();
    assert!(runnable.len() >= 5, "the README's tour is marked to run");
    for (page, n, words, _) in runnable {
        let out = run(&bin, &words[1..], &project, &home, &path);
        assert!(
            out.status.success(),
            "{page} (block line {n}): `{}` exited {:?}\nstdout:\n{}\nstderr:\n{}",
            words.join(" "),
            out.status.code(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The tour ends with a real hand-off: the host's file names the set.
    let mcp = std::fs::read_to_string(project.join(".mcp.json")).expect("install wrote .mcp.json");
    assert!(mcp.contains("\"serve\""), "{mcp}");
    // And it keeps to its own budget: what it pins fits, and the cut line it promises is there.
    let args = ["preview", "--format", "json"].map(String::from);
    let out = run(&bin, &args, &project, &home, &path);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("preview JSON");
    assert_eq!(
        doc["pinsOverBudget"], false,
        "the tour's pins exceed its budget"
    );
    assert!(
        doc["leftOut"]
            .as_array()
            .is_some_and(|l| l.iter().any(|l| l["reason"] == "over budget")),
        "the tour shows no cut line"
    );
}

fn run(bin: &Path, args: &[String], cwd: &Path, home: &Path, path: &str) -> std::process::Output {
    Command::new(bin)
        .args(args)
        .current_dir(cwd)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_DATA_HOME", home.join(".local/share"))
        .env("XDG_CACHE_HOME", home.join(".cache"))
        .env("CODEX_HOME", home.join(".codex"))
        .env("MCPICK_CACHE_DIR", "")
        .env("PATH", path)
        .env_remove("MCPICK_DATA_DIR")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("mcpick runs")
}
