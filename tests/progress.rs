//! The progress line of long headless operations: drawn on stderr when it is a terminal
//! (listing, connecting, reading for a budget, `check`, `lock`, `serve` connecting), never a
//! byte of it when stderr is a pipe, and none with `--quiet`.

mod common;

use std::path::Path;
use std::process::Command;

use common::*;

/// Runs mcpick in `dir` with stderr on a pseudo-terminal (stdout discarded); with `until`,
/// stdin is a pipe closed once stderr shows that text (to end `serve`). Returns the exit
/// status and what the terminal received.
fn on_a_terminal(dir: &Path, args: &[&str], until: Option<&str>) -> (i32, String) {
    let script = r#"
import os, pty, subprocess, sys
until = sys.argv[1].encode() if sys.argv[1] else None
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE if until else subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=slave)
os.close(slave)
err = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    err += chunk
    if until and p.stdin and until in err:
        p.stdin.close()
        p.stdin = None
p.wait()
sys.stdout.buffer.write(err)
sys.exit(p.returncode)
"#;
    let home = isolated_home();
    let out = Command::new("python3")
        .args(["-c", script, until.unwrap_or(""), mcpick_bin()])
        .args(args)
        .current_dir(dir)
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A project whose set pins a demo resource, with a budget (so resolving reads).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let demo = [
        "--",
        mcpick_bin(),
        "demo-server",
        "--count",
        "3000",
        "--page-size",
        "100",
    ];
    let pin = [
        &["pin", "--name", "demo", "file:///project/README.md"][..],
        &demo,
    ]
    .concat();
    let out = mcpick_in(dir.path(), &[], &pin);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    let out = mcpick_in(dir.path(), &[], &["policy", "--budget", "4000"]);
    assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
    dir
}

/// Each long command, what its progress line says, and (for serve) when to end it.
fn commands() -> Vec<(Vec<&'static str>, &'static str, Option<&'static str>)> {
    vec![
        (vec!["ls"], "listing…", None),
        (vec!["preview"], "reading…", None),
        (vec!["lock"], "listing… demo: connecting", None),
        (vec!["diff"], "listing…", None),
        (vec!["check", "--sample", "5"], "checking…", None),
        (vec!["serve"], "serve: connecting…", Some("publishing")),
    ]
}

/// A progress line is drawn after a carriage return (plain text: no escape sequence).
fn drawn(terminal: &str, says: &str) -> bool {
    terminal.contains(&format!("\r{says}"))
}

#[test]
fn progress_is_drawn_on_a_terminal() {
    let dir = project();
    for (args, says, until) in commands() {
        let (code, terminal) = on_a_terminal(dir.path(), &args, until);
        // diff exits 1 on drift; serve ends when its stdin closes before a handshake.
        assert!(
            code == 0 || ["diff", "serve"].contains(&args[0]),
            "{args:?}: {code} {terminal}"
        );
        assert!(
            drawn(&terminal, says),
            "{args:?}: no `{says}` progress on the terminal: {terminal:?}"
        );
        assert!(
            !terminal.contains('\x1b'),
            "{args:?}: an escape: {terminal:?}"
        );
    }
}

#[test]
fn no_progress_byte_when_stderr_is_not_a_terminal_or_with_quiet() {
    let dir = project();
    for (args, says, until) in commands() {
        // (serve over a pipe: its stdin is closed at once, and it still connects.)
        let out = mcpick_in(dir.path(), &[], &args);
        let err = stderr(&out);
        assert!(
            !err.contains('\r') && !err.contains('\x1b'),
            "{args:?}: progress bytes in a pipe: {err:?}"
        );
        let mut quiet = args.clone();
        quiet.push("--quiet");
        let (_, terminal) = on_a_terminal(dir.path(), &quiet, until);
        assert!(
            !terminal.contains(says),
            "{quiet:?}: progress despite --quiet: {terminal:?}"
        );
    }
}
