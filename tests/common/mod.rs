//! Shared helpers for the integration tests: the mcpick binary, the third-party peer servers
//! (installed from committed lockfiles by `tests/peers/install.sh`), and servers that run in
//! the background for the length of a test.
#![allow(dead_code)] // each test binary uses a different part of this module

pub mod model_stub;
pub mod rpc;
pub mod snapshot;
pub mod tmux;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// A figure as the command line prints it for people: `175,933`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub fn mcpick_bin() -> &'static str {
    env!("CARGO_BIN_EXE_mcpick")
}

pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The test fixture server, `mcpick-fixture` (the workspace member `fixture/`): the demo
/// server of `mcpick demo-server` with the same options, plus the faults the tests inject
/// (`--crash-after`, `--hostile`, `--violate`, `--churn`, `--oauth`, …), which mcpick itself
/// does not have. It sits next to `mcpick` in the target directory, where `cargo test` builds
/// it (the fixture is a default member of the workspace). When it is missing or older than
/// the sources it is built from (a run limited to this package, `cargo test -p mcpick`), it is
/// built here first, once per test binary.
pub fn fixture_bin() -> &'static str {
    static BIN: OnceLock<String> = OnceLock::new();
    BIN.get_or_init(|| {
        let dir = Path::new(mcpick_bin())
            .parent()
            .expect("mcpick's directory");
        let bin = dir.join(format!("mcpick-fixture{}", std::env::consts::EXE_SUFFIX));
        if fixture_is_stale(&bin) {
            build_fixture(dir);
        }
        assert!(
            bin.is_file(),
            "no test fixture at {} (cargo build -p mcpick-fixture)",
            bin.display()
        );
        bin.to_string_lossy().into_owned()
    })
}

/// The command line of the demo server with `flags`: `mcpick demo-server FLAGS` when they are
/// all the demo's own (`--count`, `--page-size`, `--http`), else the test fixture
/// (`mcpick-fixture FLAGS`, see [`fixture_bin`]), which takes the demo's options and the faults.
pub fn demo_command<'a>(flags: &[&'a str]) -> Vec<&'a str> {
    let demo_only = flags
        .iter()
        .all(|f| !f.starts_with("--") || ["--count", "--page-size", "--http"].contains(f));
    let mut command = if demo_only {
        vec![mcpick_bin(), "demo-server"]
    } else {
        vec![fixture_bin()]
    };
    command.extend_from_slice(flags);
    command
}

/// Whether `bin` is missing or older than a file of the fixture, of mcpick (it links the
/// library) or of the workspace's manifests.
fn fixture_is_stale(bin: &Path) -> bool {
    fn newest(path: &Path) -> Option<std::time::SystemTime> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_dir() {
            return meta.modified().ok();
        }
        std::fs::read_dir(path)
            .ok()?
            .filter_map(|entry| newest(&entry.ok()?.path()))
            .max()
    }
    let Some(built) = std::fs::metadata(bin).and_then(|m| m.modified()).ok() else {
        return true;
    };
    ["fixture", "src", "Cargo.toml", "Cargo.lock"]
        .iter()
        .filter_map(|p| newest(&repo_root().join(p)))
        .any(|changed| changed > built)
}

/// `cargo build -p mcpick-fixture` into `dir` (`target/debug` or another profile's).
fn build_fixture(dir: &Path) {
    let profile = match dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") | None => "dev",
        Some(other) => other,
    };
    let target = dir.parent().expect("the target directory");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--quiet",
            "-p",
            "mcpick-fixture",
            "--profile",
            profile,
        ])
        .arg("--target-dir")
        .arg(target)
        .current_dir(repo_root())
        .status()
        .expect("run cargo to build the test fixture");
    assert!(status.success(), "cargo build -p mcpick-fixture: {status}");
}

/// Runs mcpick with `args` and returns its output; fails the test if it runs over 120 s.
/// The real user's config files never reach it (see [`isolated_home`]).
pub fn mcpick(args: &[&str]) -> Output {
    let mut command = Command::new(mcpick_bin());
    command.args(args);
    run_mcpick(isolate(command))
}

/// Runs mcpick in the working directory `cwd` with `env` set on top of an isolated home
/// (`HOME` and `XDG_CONFIG_HOME` point at [`isolated_home`] unless `env` sets them).
pub fn mcpick_in(cwd: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut command = Command::new(mcpick_bin());
    command.args(args).current_dir(cwd);
    let mut command = isolate(command);
    command.envs(env.iter().copied());
    run_mcpick(command)
}

/// [`mcpick_in`] expecting JSON on stdout; returns (exit code, document, stderr).
pub fn mcpick_json_in(cwd: &Path, env: &[(&str, &str)], args: &[&str]) -> (i32, Value, String) {
    json_output(mcpick_in(cwd, env, args), args)
}

/// An empty home directory for mcpick runs, so that the real user's `~/.claude.json`, Claude
/// Desktop or Cursor files (and the servers they name) never reach the tests.
pub fn isolated_home() -> &'static Path {
    static HOME: OnceLock<PathBuf> = OnceLock::new();
    HOME.get_or_init(|| {
        let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("isolated-home");
        std::fs::create_dir_all(&home).expect("create the isolated home");
        home
    })
}

pub fn isolate(mut command: Command) -> Command {
    let home = isolated_home();
    command
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_CACHE_HOME", home.join(".cache"));
    command
}

fn run_mcpick(mut command: Command) -> Output {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start mcpick");
    let (tx, rx) = mpsc::channel();
    let id = child.id();
    std::thread::spawn(move || {
        if rx.recv_timeout(Duration::from_secs(120)).is_err() {
            // SAFETY: only sends a signal.
            unsafe { libc::kill(id as i32, libc::SIGKILL) };
        }
    });
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || read_all(stdout));
    let err = std::thread::spawn(move || read_all(stderr));
    let status = child.wait().expect("wait for mcpick");
    let _ = tx.send(());
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

fn read_all(mut r: impl std::io::Read) -> Vec<u8> {
    let mut buf = Vec::new();
    let _ = r.read_to_end(&mut buf);
    buf
}

/// Runs `mcpick ARGS` expecting JSON on stdout; returns (exit code, document, stderr).
pub fn mcpick_json(args: &[&str]) -> (i32, Value, String) {
    json_output(mcpick(args), args)
}

fn json_output(out: Output, args: &[&str]) -> (i32, Value, String) {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "mcpick {args:?} did not print JSON ({e}); stdout: {}; stderr: {stderr}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (out.status.code().unwrap_or(-1), doc, stderr)
}

pub fn exit_code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The folder the peer servers are installed in (`target/peers`), installing them on first
/// use. A failed install fails the test: it is never skipped.
pub fn peers() -> &'static Path {
    static PEERS: OnceLock<PathBuf> = OnceLock::new();
    PEERS.get_or_init(|| {
        let out = Command::new("bash")
            .arg(repo_root().join("tests/peers/install.sh"))
            .stderr(Stdio::inherit())
            .output()
            .expect("run tests/peers/install.sh");
        assert!(
            out.status.success(),
            "tests/peers/install.sh failed; see its messages above"
        );
        PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
    })
}

/// server-everything's entry point.
pub fn everything_js() -> String {
    peers()
        .join("node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .to_string_lossy()
        .into_owned()
}

/// The preload that makes Node peers listen on 127.0.0.1 and announce their port.
pub fn loopback_cjs() -> String {
    repo_root()
        .join("tests/peers/node/loopback.cjs")
        .to_string_lossy()
        .into_owned()
}

pub fn filesystem_js() -> String {
    peers()
        .join("node/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
        .to_string_lossy()
        .into_owned()
}

pub fn python() -> String {
    peers().join("py/bin/python").to_string_lossy().into_owned()
}

pub fn py_server() -> String {
    repo_root()
        .join("tests/peers/py_server.py")
        .to_string_lossy()
        .into_owned()
}

/// A server process running in the background, killed (with its process group) on drop.
pub struct Background {
    child: Child,
    /// The base URL the server announced (`http://127.0.0.1:PORT...`).
    pub url: String,
}

impl Background {
    /// Starts `program args` in its own process group and waits up to 60 s for a line on
    /// stdout or stderr containing `listening on http://…`.
    /// The demo server over Streamable HTTP on a free loopback port, with more `args`.
    pub fn demo_http(args: &[&str]) -> Background {
        let mut all = vec!["demo-server", "--http", "127.0.0.1:0"];
        all.extend_from_slice(args);
        Background::start(mcpick_bin(), &all, &[])
    }

    /// The test fixture ([`fixture_bin`]) over Streamable HTTP on a free loopback port, with
    /// more `args` (the demo's and the faults).
    pub fn fixture_http(args: &[&str]) -> Background {
        let mut all = vec!["--http", "127.0.0.1:0"];
        all.extend_from_slice(args);
        Background::start(fixture_bin(), &all, &[])
    }

    pub fn start(program: &str, args: &[&str], env: &[(&str, &str)]) -> Background {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(program)
            .args(args)
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("start {program}: {e}"));
        let (tx, rx) = mpsc::channel::<String>();
        for pipe in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    let _ = tx.send(line);
                }
            });
        }
        let mut seen = Vec::new();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(at) = line.find("listening on http://") {
                        let url = line[at + "listening on ".len()..].trim().to_string();
                        // Keep draining output so the server never blocks on a full pipe.
                        std::thread::spawn(move || while rx.recv().is_ok() {});
                        return Background { child, url };
                    }
                    seen.push(line);
                }
                Err(_) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    panic!("{program} {args:?} did not announce its address; output: {seen:#?}");
                }
            }
        }
    }

    /// `base` + `path`, where `base` is the announced URL without a trailing path.
    pub fn at(&self, path: &str) -> String {
        let base = self.url.trim_end_matches('/');
        let base = match base
            .find("://")
            .and_then(|i| base[i + 3..].find('/').map(|j| i + 3 + j))
        {
            Some(end) => &base[..end],
            None => base,
        };
        format!("{base}{path}")
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        // SAFETY: only sends a signal to the group this test started.
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// `mcpick preview --format json ARGS` in `dir`, which must succeed; its document.
pub fn preview(dir: &Path, args: &[&str]) -> Value {
    let mut all = vec!["preview", "--format", "json"];
    all.extend_from_slice(args);
    let (code, doc, err) = mcpick_json_in(dir, &[], &all);
    assert_eq!(code, 0, "{err}");
    doc
}

/// The resources array of an `ls --json` document.
pub fn resources(doc: &Value) -> &Vec<Value> {
    doc["resources"].as_array().expect("resources array")
}

pub fn uris(doc: &Value) -> Vec<String> {
    resources(doc)
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_string())
        .collect()
}

/// Runs `command` (a host CLI, in a process group of its own) to its end; kills the group
/// and fails the test if it runs over `limit`.
pub fn run_with_timeout(mut command: Command, limit: Duration) -> std::process::Output {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    let child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the host CLI starts");
    let pid = child.id() as i32;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.expect("the host CLI ran"),
        Err(_) => {
            // SAFETY: kill(2) on the host's own process group.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            panic!("the host CLI ran over {limit:?}");
        }
    }
}

/// Approves the servers the project's own files in `cwd` define (`mcpick trust --yes`), as a
/// user does once before mcpick starts them; fails the test if it cannot.
pub fn trust_in(cwd: &Path, env: &[(&str, &str)]) {
    let out = mcpick_in(cwd, env, &["trust", "--yes"]);
    assert!(
        out.status.success(),
        "mcpick trust --yes: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Ends every process (but this one) whose command line names a path under `dir`, a test's
/// temporary folder: the daemons hosts leave behind (Codex's app server, run from the test's
/// home; Cline's hub, run in its project) would otherwise outlive the test, ~180 MB each.
#[allow(dead_code)]
pub fn end_processes_under(dir: &Path) {
    let needle = dir.display().to_string();
    end_processes_where(|cmdline| cmdline.contains(&needle));
}

/// Ends every process but this one whose command line (its arguments joined by NUL) `is` says
/// so, by its pid.
pub fn end_processes_where(is: impl Fn(&str) -> bool) {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return;
    };
    let me = std::process::id();
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if pid != me && is(&String::from_utf8_lossy(&cmdline)) {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
    }
}
