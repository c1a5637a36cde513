//! Whether the host on this machine is the version mcpick's facts about it were measured on:
//! hosts change monthly, and a person should know when mcpick's promise is older than their
//! host.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::profiles;
use crate::hosts::Host;

/// How long a host may take to print its version.
const ASK_FOR: Duration = Duration::from_secs(3);

/// A host on `PATH` at another version than the one its facts were measured on.
#[derive(Debug, PartialEq)]
pub struct Drift {
    pub host: Host,
    pub measured: &'static str,
    pub found: String,
}

impl Drift {
    /// What the person is told.
    pub fn said(&self) -> String {
        format!(
            "measured with {} {}; this machine has {}: delivery is expected to hold, re-check with `mcpick preview --host {}` against what a session shows",
            self.host.dialect().host_name,
            self.measured,
            self.found,
            self.host.name()
        )
    }
}

/// `host`'s version on `PATH` when it differs from the measured one; `None` when it is the
/// same, is not installed, or does not answer in time.
pub fn drift(host: Host) -> Option<Drift> {
    let profile = profiles::of(host);
    let measured = profile.entry_known.version()?;
    let found = version_of(profile.program?)?;
    (found != measured).then_some(Drift {
        host,
        measured,
        found,
    })
}

/// The first `N.N.N` that `program --version` prints.
fn version_of(program: &str) -> Option<String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < ASK_FOR => {
                std::thread::sleep(Duration::from_millis(20))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    child
        .stdout
        .take()?
        .take(4096)
        .read_to_string(&mut out)
        .ok()?;
    first_version(&out)
}

/// The first word that reads as a version (`1.2.3`, a leading `v` dropped).
fn first_version(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || "(),".contains(c))
        .map(|w| w.trim_start_matches('v'))
        .find(|w| {
            let parts: Vec<&str> = w.split('.').collect();
            parts.len() >= 3
                && parts[..3]
                    .iter()
                    .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        })
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_version_is_read_as_hosts_print_it() {
        assert_eq!(
            first_version("2.1.332 (Claude Code)\n").as_deref(),
            Some("2.1.332")
        );
        assert_eq!(
            first_version("codex-cli 0.171.0\n").as_deref(),
            Some("0.171.0")
        );
        assert_eq!(first_version("v0.73.1").as_deref(), Some("0.73.1"));
        assert_eq!(first_version("no version here 1.2"), None);
    }

    #[test]
    fn every_measured_host_names_its_command_and_version() {
        for profile in profiles::ALL {
            if profile.entry_known.is_measured() {
                assert!(profile.program.is_some(), "{:?}", profile.host);
                let v = profile.entry_known.version().unwrap();
                assert_eq!(first_version(v).as_deref(), Some(v), "{:?}", profile.host);
            }
        }
    }
}
