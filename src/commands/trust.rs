//! `mcpick trust`: shows what the servers a project's own files define would run, whole, and
//! remembers the person's approval (see [`crate::config::trust`] for what is kept and why).
//! Everything shown comes from files a repository controls: it is shown for a decision
//! ([`sanitize::for_decision`]): control, invisible and format characters as visible escapes,
//! long runs of white space folded, so nothing a person approves is hidden from them.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use super::{Exit, report, usage_error};
use crate::cli::TrustArgs;
use crate::config::Places;
use crate::config::select::{self, Selected, ServerChoice};
use crate::config::trust::{self, Approvals, Store, Verdict};
use crate::context::ContextSet;
use crate::mcp::TransportSpec;
use crate::sanitize;

/// One server a project's files define, as approval sees it.
struct Candidate {
    /// The project its approval is kept for.
    project: PathBuf,
    /// The file that names it.
    named_by: String,
    selected: Selected,
    /// What the approval is kept under (the definition, or a wrap record's original as
    /// written: [`crate::wrap::Original::key`]).
    key: TransportSpec,
}

pub fn run(args: TrustArgs) -> Exit {
    let Some(store) = Store::system() else {
        return usage_error(
            "no user data directory (no home directory known): approvals cannot be kept",
        );
    };
    if args.list {
        return list(&store);
    }
    let places = Places::system();
    let set = match ContextSet::load(&args.set.path) {
        Ok(set) => set,
        Err(e) => return usage_error(&sanitize::line(&e.to_string(), 2000)),
    };
    if args.skills {
        return super::trust_skills::run(set.folder.as_deref(), args.yes);
    }
    if args.revoke {
        return revoke(&store, &places.project, set.set_servers().folder);
    }
    let candidates = candidates(&places, &set);
    let approvals = match store.load() {
        Ok(approvals) => approvals,
        Err(e) => {
            report(&sanitize::line(&e, 2000));
            return Exit::ServerFailed;
        }
    };
    if candidates.is_empty() {
        crate::outln!("No server here is defined by the project's own files: nothing to approve.");
        return Exit::Ok;
    }
    let pending = show(&candidates, &approvals);
    if pending.is_empty() {
        crate::outln!("Every one is approved already.");
        return Exit::Ok;
    }
    if !args.yes {
        match ask(pending.len()) {
            Some(true) => {}
            Some(false) => {
                crate::outln!("Not approved: these servers stay stopped.");
                return Exit::ServerFailed;
            }
            None => {
                return usage_error(
                    "no terminal to ask on: run `mcpick trust --yes` to approve them without asking",
                );
            }
        }
    }
    let saved = store.update(|approvals| {
        for c in &pending {
            approvals.approve(
                &c.project,
                &c.selected.spec.name,
                &c.key,
                &c.selected.shown_target(),
            );
        }
    });
    match saved {
        Ok(()) => {
            crate::outln!(
                "Approved {} server{}: mcpick starts {} from now on, as shown here, with the project files pinned as they are now (a change to either asks again).",
                pending.len(),
                if pending.len() == 1 { "" } else { "s" },
                if pending.len() == 1 { "it" } else { "them" },
            );
            Exit::Ok
        }
        Err(e) => {
            report(&sanitize::line(&e, 2000));
            Exit::ServerFailed
        }
    }
}

/// Every server a run here could start from the project's own files: those `ls` would use
/// (every defined server) and those the set's commands would use (the set's, unless a config
/// file defines the name). Definitions that cannot be used (an unset variable) are left
/// out: nothing would start them.
fn candidates(places: &Places, set: &ContextSet) -> Vec<Candidate> {
    let choice = ServerChoice::default();
    let mut found: Vec<Selected> = Vec::new();
    if let Ok(servers) = select::select_servers_at(places, &choice).servers {
        found.extend(servers);
    }
    if let Ok(chosen) = select::choose_at(places, &choice, set.set_servers()).servers {
        found.extend(chosen.into_iter().map(|c| c.selected));
    }
    // An entry that runs `mcpick wrap-serve` starts the original its record keeps: that
    // command is the one to show and approve.
    let originals: Vec<Candidate> = found
        .iter()
        .filter_map(|selected| wrapped_original(places, selected))
        .collect();
    let mut candidates: Vec<Candidate> = Vec::new();
    for c in originals {
        let same = |k: &Candidate| k.selected.spec == c.selected.spec && k.project == c.project;
        if !candidates.iter().any(same) {
            candidates.push(c);
        }
    }
    for selected in found {
        if selected.error.is_some() {
            continue;
        }
        let Some((project, named_by)) = selected
            .origin
            .needs_approval(&places.project, set.set_servers().folder)
        else {
            continue;
        };
        let same = |c: &Candidate| {
            c.selected.spec == selected.spec && c.project == project && c.named_by == named_by
        };
        if !candidates.iter().any(same) {
            candidates.push(Candidate {
                project,
                named_by,
                key: selected.spec.transport.clone(),
                selected,
            });
        }
    }
    candidates
}

/// The original behind an entry that runs `mcpick wrap-serve --record R --name N`, when
/// its record is a file of the project.
fn wrapped_original(places: &Places, selected: &Selected) -> Option<Candidate> {
    let TransportSpec::Stdio { args, .. } = &selected.spec.transport else {
        return None;
    };
    if !args.iter().any(|a| a == crate::hosts::wrap::PROXY_COMMAND) {
        return None;
    }
    let after = |flag: &str| {
        let at = args.iter().position(|a| a == flag)?;
        args.get(at + 1).cloned()
    };
    let record = places.project.join(after("--record")?);
    let name = after("--name")?;
    let original = crate::wrap::original(&record, &name).ok()?;
    let project = original.project?;
    Some(Candidate {
        project,
        named_by: format!("the wrap record {}", record.display()),
        key: original.key,
        selected: Selected {
            spec: original.spec.ok()?,
            error: None,
            shown: Some(original.shown),
            origin: select::Origin::Project { file: record },
        },
    })
}

/// Prints each candidate whole, marked approved or not; returns those not approved.
fn show<'a>(candidates: &'a [Candidate], approvals: &Approvals) -> Vec<&'a Candidate> {
    let mut out = std::io::stdout().lock();
    let mut pending = Vec::new();
    let _ = writeln!(out, "Servers defined by this project's own files:");
    for c in candidates {
        let verdict = approvals.check(&c.project, &c.key);
        let approved = verdict == Verdict::Approved;
        let _ = writeln!(
            out,
            "\n  {}  ({}){}",
            sanitize::for_decision(&c.selected.spec.name),
            sanitize::for_decision(&c.named_by),
            if approved { "  approved" } else { "" }
        );
        if let Verdict::FilesChanged(files) = &verdict {
            let files: Vec<String> = files.iter().map(|f| sanitize::for_decision(f)).collect();
            let _ = writeln!(
                out,
                "    changed since you approved it: {} (review what it runs now)",
                files.join(", ")
            );
        }
        for line in trust::describe(&c.selected) {
            let _ = writeln!(out, "    {line}");
        }
        if !approved {
            for line in trust::covers(&c.project, &c.key) {
                let _ = writeln!(out, "    {line}");
            }
            pending.push(c);
        }
    }
    let _ = writeln!(out);
    if !pending.is_empty() {
        let _ = writeln!(out, "{}\n", trust::NOT_COVERED);
    }
    pending
}

/// Asks on the terminal; `None` when there is no terminal to ask on.
fn ask(count: usize) -> Option<bool> {
    if !std::io::stdin().is_terminal() || !std::io::stderr().is_terminal() {
        return None;
    }
    let mut err = std::io::stderr().lock();
    let _ = write!(
        err,
        "Let mcpick start {} from now on? [y/N] ",
        if count == 1 {
            "this server".to_string()
        } else {
            format!("these {count} servers")
        }
    );
    let _ = err.flush();
    let mut answer = String::new();
    std::io::stdin().lock().read_line(&mut answer).ok()?;
    Some(matches!(answer.trim(), "y" | "Y" | "yes" | "Yes" | "YES"))
}

/// `--list`: every approval, project by project.
fn list(store: &Store) -> Exit {
    let approvals = match store.load() {
        Ok(approvals) => approvals,
        Err(e) => {
            report(&sanitize::line(&e, 2000));
            return Exit::ServerFailed;
        }
    };
    let mut out = std::io::stdout().lock();
    let mut last: Option<&str> = None;
    for (project, approval) in approvals.list() {
        if last != Some(project) {
            let _ = writeln!(out, "{}", sanitize::whole_line(project));
            last = Some(project);
        }
        let _ = writeln!(
            out,
            "  {}  {}",
            sanitize::for_decision(&approval.name),
            sanitize::for_decision(&approval.shown)
        );
        for file in approval.files.keys() {
            let _ = writeln!(out, "    pins: {}", sanitize::for_decision(file));
        }
    }
    if last.is_none() {
        let _ = writeln!(out, "No approvals.");
    }
    Exit::Ok
}

/// `--revoke`: forgets the approvals of this project (and of the set's folder, when the set
/// lives in another one).
fn revoke(store: &Store, project: &Path, set_folder: Option<&Path>) -> Exit {
    let mut projects = vec![project.to_path_buf()];
    if let Some((folder, _)) = select::Origin::Set.needs_approval(project, set_folder)
        && !projects.contains(&folder)
    {
        projects.push(folder);
    }
    match store.update(|approvals| projects.iter().map(|p| approvals.revoke(p)).sum::<usize>()) {
        Ok(count) => {
            crate::outln!(
                "Forgot {count} approval{}: this project's servers are asked about again.",
                if count == 1 { "" } else { "s" }
            );
            Exit::Ok
        }
        Err(e) => {
            report(&sanitize::line(&e, 2000));
            Exit::ServerFailed
        }
    }
}
