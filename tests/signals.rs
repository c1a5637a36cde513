//! Every way mcpick is told to stop ends with each stdio server's whole process group gone:
//! SIGTERM, SIGHUP and SIGINT to a headless command, `timeout` (which sends SIGTERM), and
//! SIGTERM to the browser while a million resources load. The server is a shell that forks a
//! grandchild (`sleep`) and writes the pids to files, so the test can check each one.
//!
//! A process counts as gone when it no longer exists or is a zombie (dead, waiting for a parent
//! that may not reap it soon).

mod common;

use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use common::tmux::Tmux;
use common::{isolated_home, mcpick_bin};

/// The state letter of a process, or `None` when it does not exist.
fn state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let (_, rest) = stat.rsplit_once(')')?;
    rest.trim_start().chars().next()
}

fn running(pid: i32) -> bool {
    state(pid).is_some_and(|s| s != 'Z' && s != 'X')
}

/// Processes of process group `pgid` that are still running.
fn group_members(pgid: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        // Fields after the command: state ppid pgrp ...
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2) == Some(&pgid.to_string().as_str()) && running(pid) {
            members.push(pid);
        }
    }
    members
}

/// Waits up to 30 s for `pid` to end; if it does not, fails naming what each of its threads
/// was doing (once, CI saw the browser say "terminated" and not end within 30 s: which of the
/// process or the terminal was slow was not known).
fn assert_ends(pid: i32, session: &Tmux) {
    let start = Instant::now();
    while running(pid) {
        if start.elapsed() > Duration::from_secs(30) {
            let mut threads = String::new();
            for task in std::fs::read_dir(format!("/proc/{pid}/task"))
                .into_iter()
                .flatten()
                .flatten()
            {
                let path = task.path();
                let read = |name: &str| {
                    std::fs::read_to_string(path.join(name))
                        .unwrap_or_default()
                        .trim()
                        .to_string()
                };
                let state = read("stat")
                    .rsplit_once(')')
                    .map(|(_, r)| r.trim().chars().next());
                threads.push_str(&format!(
                    "  {} {:?} state {:?} wchan {}\n",
                    task.file_name().to_string_lossy(),
                    read("comm"),
                    state.flatten(),
                    read("wchan")
                ));
            }
            // SAFETY: only sends a signal to the mcpick this test started.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!(
                "mcpick {pid} still runs 30 s after SIGTERM; its threads:\n{threads}the screen:\n{}",
                session.screen()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for_pid(file: &Path) -> i32 {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(file)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the server never wrote {}",
            file.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Waits up to 10 s for the server's group (leader and grandchild) to be gone.
fn assert_group_gone(server: i32, grandchild: i32) {
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(10) {
        if !running(server) && !running(grandchild) && group_members(server).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let left = group_members(server);
    // Clean up what the failure left behind.
    for pid in [server, grandchild] {
        // SAFETY: only sends a signal to a process this test started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    panic!(
        "the server's process group outlived mcpick: server {server} running: {}, grandchild \
         {grandchild} running: {}, group members: {left:?}",
        running(server),
        running(grandchild)
    );
}

/// A stdio "server" that writes its pid, forks a sleeping grandchild, writes that pid too,
/// then hangs (so mcpick is still waiting for its handshake when the signal comes).
fn hanging_server(dir: &Path) -> String {
    format!(
        "echo $$ > '{d}/server.pid'; sleep 300 & echo $! > '{d}/grandchild.pid'; exec sleep 301",
        d = dir.display()
    )
}

fn temp_dir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("mcpick-signals")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

/// Starts `prefix... mcpick ls -- sh -c <hanging server>`, waits for the grandchild, sends
/// `signal` to mcpick (unless the prefix sends one itself), and checks that it exits with
/// `expected` and the group is gone. Returns mcpick's stderr.
fn signal_headless(prefix: &[&str], signal: Option<i32>, expected: i32) -> String {
    let dir = temp_dir();
    let script = hanging_server(dir.path());
    let mut argv: Vec<String> = prefix.iter().map(|s| s.to_string()).collect();
    argv.extend(
        [
            mcpick_bin(),
            "ls",
            "--timeout",
            "120",
            "--",
            "sh",
            "-c",
            &script,
        ]
        .map(String::from),
    );
    let mut child = Command::new(&argv[0])
        .args(&argv[1..])
        .env("HOME", isolated_home())
        .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
        .env("MCPICK_CACHE_DIR", "")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let server = wait_for_pid(&dir.path().join("server.pid"));
    let grandchild = wait_for_pid(&dir.path().join("grandchild.pid"));
    assert!(running(grandchild));
    if let Some(signal) = signal {
        // SAFETY: only sends a signal to the mcpick this test started.
        unsafe { libc::kill(child.id() as i32, signal) };
    }
    let status = wait_with_limit(&mut child, Duration::from_secs(20));
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(expected), "stderr: {stderr}");
    assert_group_gone(server, grandchild);
    stderr
}

fn wait_with_limit(child: &mut std::process::Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("mcpick did not exit within {limit:?} of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn sigterm_kills_the_server_group_of_a_headless_command() {
    let stderr = signal_headless(&[], Some(libc::SIGTERM), 128 + libc::SIGTERM);
    assert!(stderr.contains("SIGTERM"), "{stderr}");
}

#[test]
fn sighup_kills_the_server_group_of_a_headless_command() {
    let stderr = signal_headless(&[], Some(libc::SIGHUP), 128 + libc::SIGHUP);
    assert!(stderr.contains("SIGHUP"), "{stderr}");
}

#[test]
fn sigint_kills_the_server_group_of_a_headless_command() {
    let stderr = signal_headless(&[], Some(libc::SIGINT), 130);
    assert!(stderr.contains("interrupted"), "{stderr}");
}

#[test]
fn timeout_command_kills_the_server_group() {
    // coreutils `timeout` sends SIGTERM after 2 s and then exits 124.
    signal_headless(&["timeout", "2"], None, 124);
}

/// SIGKILL cannot be caught: mcpick runs no code of its own on the way out. The server (a
/// slow Python server that forks a grandchild) must still die with it: the kernel's
/// parent-death signal ends the server, and mcpick's reaper ends the rest of its group.
#[test]
fn sigkill_leaves_no_server_behind() {
    let dir = temp_dir();
    let forker = common::repo_root().join("tests/fixtures/slow_forker.py");
    let mut child = Command::new(mcpick_bin())
        .args(["ls", "--timeout", "120", "--", "python3"])
        .arg(&forker)
        .arg(dir.path())
        .env("HOME", isolated_home())
        .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
        .env("MCPICK_CACHE_DIR", "")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let server = wait_for_pid(&dir.path().join("server.pid"));
    let grandchild = wait_for_pid(&dir.path().join("grandchild.pid"));
    assert!(running(server) && running(grandchild));
    child.kill().unwrap(); // SIGKILL
    let status = wait_with_limit(&mut child, Duration::from_secs(5));
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(libc::SIGKILL)
    );
    let killed = Instant::now();
    assert_group_gone(server, grandchild);
    assert!(
        killed.elapsed() < Duration::from_secs(3),
        "the group took {:?} to go",
        killed.elapsed()
    );
}

// --- the browser, in tmux ---

#[test]
fn sigterm_ends_the_browser_while_a_million_resources_load() {
    let dir = temp_dir();
    let d = dir.path().display();
    let session = Tmux::bash(&["MCPICK_CACHE_DIR="]);
    // The server writes mcpick's pid (its parent), its own and its grandchild's, then becomes
    // the demo server with a million resources.
    // (Single-quoted for the pane's bash, so `$PPID`, `$$` and `$!` are the server's.)
    let server = format!(
        "echo $PPID > {d}/mcpick.pid; echo $$ > {d}/server.pid; \
         sleep 300 & echo $! > {d}/grandchild.pid; \
         exec {bin} demo-server --count 1000000 --page-size 1000",
        bin = mcpick_bin()
    );
    assert!(!server.contains('\''), "no quote in the paths: {server}");
    let line = format!(
        "{} --set {d}/set.json -- sh -c '{server}'; echo \"EXIT=$?\"; \
         stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'\n",
        mcpick_bin()
    );
    session.type_text(&line);
    let mcpick = wait_for_pid(&dir.path().join("mcpick.pid"));
    let server = wait_for_pid(&dir.path().join("server.pid"));
    let grandchild = wait_for_pid(&dir.path().join("grandchild.pid"));
    // Pages are streaming in: resources are being counted on screen.
    session.wait_for("resources loading", |s| s.contains("loading page"));
    let sent = Instant::now();
    // SAFETY: only sends a signal to the mcpick this test started.
    unsafe { libc::kill(mcpick, libc::SIGTERM) };
    assert_ends(mcpick, &session);
    let screen = session.wait_for("the exit status and canonical mode", |s| {
        s.contains("EXIT=143") && s.lines().any(|l| l.trim() == "icanon")
    });
    // Promptly: the browser used to ignore SIGTERM for about 40 s while a catalogue loaded.
    assert!(
        sent.elapsed() < Duration::from_secs(15),
        "the browser took {:?} to end",
        sent.elapsed()
    );
    assert!(screen.contains("terminated (SIGTERM)"), "{screen}");
    assert_eq!(
        session.format("#{alternate_on}"),
        "0",
        "back on the normal screen"
    );
    assert_group_gone(server, grandchild);
}

/// A signal still ends mcpick when its stderr is gone (a closed terminal or pipe): saying why
/// must not keep the process alive. Before, `eprintln!` panicked on the broken stderr inside
/// the signal thread, the signal was caught and nobody acted on it: mcpick ran on, ignoring
/// SIGTERM and SIGHUP, after its window closed.
#[test]
fn a_signal_ends_mcpick_even_when_its_stderr_is_gone() {
    let dir = temp_dir();
    let script = hanging_server(dir.path());
    let mut child = Command::new(mcpick_bin())
        .args(["ls", "--timeout", "120", "--", "sh", "-c", &script])
        .env("HOME", isolated_home())
        .env("XDG_CONFIG_HOME", isolated_home().join(".config"))
        .env("MCPICK_CACHE_DIR", "")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let server = wait_for_pid(&dir.path().join("server.pid"));
    let grandchild = wait_for_pid(&dir.path().join("grandchild.pid"));
    // The reading end closes: every write to stderr now fails.
    drop(child.stderr.take());
    // SAFETY: only sends a signal to the mcpick this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = wait_with_limit(&mut child, Duration::from_secs(20));
    assert_eq!(status.code(), Some(128 + libc::SIGTERM));
    assert_group_gone(server, grandchild);
}
