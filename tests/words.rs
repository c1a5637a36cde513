//! What mcpick says, said right: the help names every host whose files it reads, a file is
//! listed once, counts take the number of their noun, and evidence reads as a sentence.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::*;
use mcpick::hosts::Host;

#[test]
fn help_names_every_host_whose_files_are_read() {
    let main = stdout(&mcpick(&["--help"]));
    let servers = stdout(&mcpick(&["servers", "--help"]));
    // `--help` wraps lines: compare with the line breaks taken out.
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let (main, servers) = (flat(&main), flat(&servers));
    for host in Host::ALL {
        let dialect = host.dialect();
        assert!(
            main.contains(dialect.host_name),
            "`mcpick --help` does not name {}: {main}",
            dialect.host_name
        );
        assert!(
            servers.contains(dialect.host_name),
            "`mcpick servers --help` does not name {}",
            dialect.host_name
        );
        if let Some(file) = dialect.project_file {
            assert!(servers.contains(file), "{file} missing: {servers}");
        }
    }
}

/// `mcpick servers` with `home` as the home directory, in `project`.
fn servers_in(project: &std::path::Path, home: &std::path::Path) -> String {
    let out = mcpick_in(
        project,
        &[
            ("HOME", home.to_str().unwrap()),
            ("XDG_CONFIG_HOME", home.join(".config").to_str().unwrap()),
        ],
        &["servers"],
    );
    stdout(&out)
}

#[test]
fn servers_lists_claude_json_once() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let key = project.path().canonicalize().unwrap();
    let lines = |text: &str| {
        text.lines()
            .filter(|l| l.contains("~/.claude.json"))
            .count()
    };
    // Nothing defined: the places looked in.
    assert_eq!(lines(&servers_in(project.path(), home.path())), 1);
    let claude = serde_json::json!({
        "mcpServers": { "top": { "command": "x" } },
        "projects": { key.to_str().unwrap(): { "mcpServers": { "here": { "command": "y" } } } },
    });
    std::fs::write(home.path().join(".claude.json"), claude.to_string()).unwrap();
    let text = servers_in(project.path(), home.path());
    let files_read = text
        .split("Files read")
        .nth(1)
        .expect("a files-read section");
    assert_eq!(lines(files_read), 1, "{text}");
    assert!(
        files_read.contains("2 servers (1 in projects[")
            && files_read.contains("1 at the top level"),
        "{text}"
    );
}

#[test]
fn check_evidence_reads_as_a_sentence_with_the_right_number() {
    let (_, doc, err) = mcpick_json(&[
        "check",
        "--json",
        "--",
        mcpick_bin(),
        "demo-server",
        "--count",
        "1",
    ]);
    let findings = doc["servers"][0]["findings"].as_array().expect(&err);
    let evidence = |rule: &str| {
        findings.iter().find(|f| f["rule"] == rule).unwrap()["evidence"][0]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(
        evidence("stable.connections"),
        "the same 1 resource on both connections"
    );
    assert_eq!(
        evidence("stable.after-reads"),
        "the same 1 resource before and after the reads"
    );
}

#[test]
fn watch_counts_one_resource_as_one_resource() {
    let mut child = Command::new(mcpick_bin())
        .args(["watch", "--demo", "--uri", "file:///project/README.md"])
        .env("HOME", isolated_home())
        .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let id = child.id() as i32;
    let (done, timer) = std::sync::mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
            timer.recv_timeout(std::time::Duration::from_secs(60))
        {
            // SAFETY: a signal to the watch this test started, still running (not reaped).
            unsafe { libc::kill(id, libc::SIGKILL) };
        }
    });
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let listed = lines.next().unwrap().unwrap();
    let watching = lines.next().unwrap().unwrap();
    let _ = child.kill();
    let _ = child.wait();
    drop(done);
    assert_eq!(listed, "demo: 300 resources");
    assert!(
        watching.ends_with("· 1 resource subscribed for updates"),
        "{watching}"
    );
}

/// A mistyped command gets "did you mean" and the usage error's exit code, not a bare
/// "unexpected argument".
#[test]
fn a_mistyped_command_gets_a_suggestion() {
    for (typed, meant) in [
        ("lss", "ls"),
        ("preveiw", "preview"),
        ("intsall", "install"),
    ] {
        let out = mcpick(&[typed]);
        assert_eq!(exit_code(&out), 2, "{typed}");
        let said = stderr(&out);
        assert!(said.contains(&format!("'{meant}'")), "{typed}: {said}");
    }
    let out = mcpick(&["zzzzzz"]);
    assert!(!stderr(&out).contains("similar"), "{}", stderr(&out));
}
