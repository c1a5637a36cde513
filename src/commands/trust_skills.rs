//! `mcpick trust --skills`: the skills held back in this project (a skill whose `SKILL.md`
//! can make a host act, or whose files changed on the server since the user accepted it),
//! shown whole, and the user's yes for each at the version shown
//! ([`crate::config::skill_trust`]). What is shown came from a server: it is cleaned of
//! escape sequences and control characters before it reaches the terminal.

use std::io::{BufRead, IsTerminal, Write};

use super::{Exit, report, usage_error};
use crate::config::skill_trust::{SkillRecord, Store};
use crate::sanitize;

/// Shows the skills held in the set's project and accepts them (`yes`, or asked on the
/// terminal).
pub fn run(set_folder: Option<&std::path::Path>, yes: bool) -> Exit {
    let Some(store) = Store::system() else {
        return usage_error(
            "no user data directory (no home directory known): a yes cannot be kept",
        );
    };
    let project = crate::handoff::skills::project_of(set_folder);
    let approvals = match store.load() {
        Ok(a) => a,
        Err(e) => {
            report(&sanitize::line(&e, 2000));
            return Exit::ServerFailed;
        }
    };
    let held: Vec<SkillRecord> = approvals.held(&project).into_iter().cloned().collect();
    if held.is_empty() {
        crate::outln!(
            "No skill is held back in {}: nothing to accept.",
            sanitize::whole_line(&project.display().to_string())
        );
        return Exit::Ok;
    }
    show(&held);
    if !yes {
        match ask(held.len()) {
            Some(true) => {}
            Some(false) => {
                crate::outln!("Not accepted: these skills stay held back.");
                return Exit::ServerFailed;
            }
            None => {
                return usage_error(
                    "no terminal to ask on: run `mcpick trust --skills --yes` to accept them without asking",
                );
            }
        }
    }
    let saved = store.change_with(|a| {
        for r in &held {
            if let Some(version) = &r.held {
                a.accept(&project, &r.server, &r.name, version.clone());
            }
        }
        ((), true)
    });
    match saved {
        Ok(()) => {
            crate::outln!(
                "Accepted {} skill{} at the version shown: `mcpick deliver` hands {} on now (a change of any file asks again).",
                held.len(),
                if held.len() == 1 { "" } else { "s" },
                if held.len() == 1 { "it" } else { "them" }
            );
            Exit::Ok
        }
        Err(e) => {
            report(&sanitize::line(&e, 2000));
            Exit::ServerFailed
        }
    }
}

/// Each held skill: its server and name, why it waits, what in it carries behaviour, and its
/// frontmatter whole.
fn show(held: &[SkillRecord]) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "Skills held back, waiting for your yes:");
    for r in held {
        let Some(version) = &r.held else { continue };
        let _ = writeln!(
            out,
            "\n  {} (server `{}`), version {}",
            sanitize::line(&r.name, 80),
            sanitize::line(&r.server, 200),
            &version.digest.get(..16).unwrap_or(&version.digest)
        );
        let _ = writeln!(out, "    why: {}", sanitize::line(&version.why, 2000));
        if !version.behaviour.is_empty() {
            let _ = writeln!(
                out,
                "    carries: {} (a host may run commands or tools because of these)",
                sanitize::line(&version.behaviour.join(", "), 2000)
            );
        }
        let _ = writeln!(out, "    frontmatter:");
        for line in crate::sanitize::text(&version.frontmatter).lines() {
            let _ = writeln!(out, "      {line}");
        }
    }
    let _ = writeln!(out);
}

/// Asks on the terminal; `None` when there is no terminal to ask on.
fn ask(count: usize) -> Option<bool> {
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return None;
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "Hand {} to your hosts as shown? [y/N] ",
        if count == 1 {
            "this skill".to_string()
        } else {
            format!("these {count} skills")
        }
    );
    let _ = err.flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).ok()?;
    Some(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES"))
}
