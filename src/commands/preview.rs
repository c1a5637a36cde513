//! `mcpick preview`: exactly what the TUI's agent view shows, with the contents. It lists
//! the servers, resolves with size estimates, reads what would be included (and the first
//! resource below the cut line), counts their tokens, and resolves again until nothing
//! unread is left above the line.

use std::io::Write;

use super::context::{Resolved, load_set_to_hand_on, resolve_set};
use super::{Exit, report};
use crate::cli::PreviewArgs;
use crate::context::{Budget, Candidate, Preview};
use crate::export;
use crate::handoff::findings::HostReport;
use crate::hosts::Host;
use crate::sanitize;

pub async fn run(args: PreviewArgs) -> Exit {
    // What follows rests on facts measured on one version of the host.
    if let Some(drift) = args.host.and_then(crate::handoff::version::drift) {
        report(&format!("note: {}", drift.said()));
    }
    if let (true, Some(host)) = (args.next_turn, args.host) {
        match crate::handoff::live::every_call_channel(host) {
            // Its session-start file is its per-turn channel: the next turn gets it whole.
            Some(channel) => report(&format!(
                "{}; its next turn gets what `preview --host {}` shows (below)",
                crate::handoff::start::read_every_call(channel, None),
                host.name()
            )),
            // No per-turn channel at all: the next session is what gets a change.
            None if crate::handoff::profiles::of(host).per_turn.is_none() => report(&format!(
                "{} has no per-turn channel: a running session keeps the set as it was when it started; its next session gets what `preview --host {}` shows (below)",
                host.name(),
                host.name()
            )),
            None => return next_turn(host, &args),
        }
    }
    let resolved = match resolve(&args).await {
        Ok(resolved) => resolved,
        Err(exit) => return exit,
    };
    let cands = resolved.candidates();
    say_left_out(&resolved.preview);
    let rendered = match args.host {
        None => export::render(args.format, &resolved.preview, &cands, &resolved.texts),
        Some(host) => match for_host(host, &args, &resolved, &cands) {
            Ok(rendered) => rendered,
            Err(exit) => return exit,
        },
    };
    if let Err(exit) = write_out(&args, &rendered) {
        return exit;
    }
    for line in summary(&resolved.preview) {
        report(&line);
    }
    if resolved.failed.is_empty() {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}

/// The set `args` names, resolved and read as the agent gets it (with its skills when a
/// host is asked for).
async fn resolve(args: &PreviewArgs) -> Result<Resolved, Exit> {
    let set = load_set_to_hand_on(&args.set, &args.servers)?;
    let policy = args.policy.apply(set.policy);
    resolve_set(
        &set,
        super::context::own_of(&args.set.path),
        &args.servers,
        &policy,
        args.jobs,
        args.host.is_some(),
    )
    .await
}

/// Says what the resolution left out for a reason the user should hear: marks that match
/// nothing, marks on a server that could not be listed, pins over the budget.
fn say_left_out(preview: &Preview) {
    for m in &preview.missing {
        report(&format!(
            "note: {} mark on {}  {} matches no listed resource (kept in the set)",
            m.mark.name(),
            sanitize::line(&m.target.server, 200),
            sanitize::line(&m.target.pattern.to_string(), 500)
        ));
    }
    // One line per server (its error was said when it failed), naming its marks.
    let mut servers: Vec<(&str, Vec<String>)> = Vec::new();
    for u in &preview.unavailable {
        let mark = format!(
            "{} {}",
            u.mark.name(),
            sanitize::line(&u.target.pattern.to_string(), 500)
        );
        match servers.iter_mut().find(|(s, _)| *s == u.target.server) {
            Some((_, marks)) => marks.push(mark),
            None => servers.push((&u.target.server, vec![mark])),
        }
    }
    for (server, marks) in servers {
        report(&format!(
            "warning: {} mark{} on {} left out: server unavailable ({})",
            marks.len(),
            if marks.len() == 1 { "" } else { "s" },
            sanitize::line(server, 200),
            marks.join(", ")
        ));
    }
    if preview.pins_over_budget {
        report(&format!(
            "warning: pinned resources alone need {} tokens, over the budget of {}",
            crate::units::thousands(preview.total_tokens),
            crate::units::thousands(preview.budget.tokens().unwrap_or(0))
        ));
    }
}

/// The one screen `preview` ends with (on stderr: stdout holds the bundle): the tokens used
/// of the budget, how many resources are in, how many are left out and why, and while no
/// budget is set, the rule that leaves out everything not pinned.
fn summary(preview: &Preview) -> Vec<String> {
    use crate::units::{count, thousands};
    let estimated = if preview.is_estimated() { "~" } else { "" };
    let total = thousands(preview.total_tokens);
    let used = match preview.budget {
        Budget::Tokens(b) => format!("{estimated}{total} of a {}-token budget", thousands(b)),
        Budget::All => format!("{estimated}{total} tokens, budget all (no limit)"),
        Budget::Unset => format!("{estimated}{total} tokens, no budget set"),
    };
    let included = preview.included.len() as u64;
    let mut lines = vec![format!(
        "summary: {} included, {used}",
        count(included, "resource", "resources")
    )];
    let by_reason = preview.left_out_by_reason();
    let left: usize = by_reason.iter().map(|(_, n)| n).sum();
    lines.push(if left == 0 {
        "left out: none".to_string()
    } else {
        let reasons: Vec<String> = by_reason
            .iter()
            .map(|(why, n)| format!("{} {why}", thousands(*n as u64)))
            .collect();
        format!(
            "left out: {} ({})",
            thousands(left as u64),
            reasons.join(", ")
        )
    });
    if !preview.unavailable.is_empty() {
        // Each server was named above, with its error.
        lines.push(format!(
            "not reached: {} on servers that could not be listed",
            count(preview.unavailable.len() as u64, "mark", "marks")
        ));
    }
    if preview.budget.is_unset() {
        // Nothing is pinned (a pin on a server not reached, or matching nothing, was said).
        if included == 0 && preview.unavailable.is_empty() && preview.missing.is_empty() {
            lines.push(
                "nothing is pinned and no budget is set: the set is empty (`mcpick pin URI` adds a resource)"
                    .to_string(),
            );
        }
        lines.push(Budget::UNSET_RULE.to_string());
    }
    lines
}

/// `preview --host`: works out `host`'s delivery and its report, says the report, and
/// renders what the host's model gets.
fn for_host(
    host: Host,
    args: &PreviewArgs,
    resolved: &Resolved,
    cands: &[Candidate<'_>],
) -> Result<String, Exit> {
    let (channel, delivered) =
        super::deliver::for_preview(host, args.scope, &args.served_as, &args.set.path, resolved)
            .map_err(|why| super::usage_error(&why))?;
    let found = crate::handoff::start::report(
        host,
        channel,
        &delivered,
        resolved.preview.included.len(),
        cands,
        &crate::places::Places::system().project,
        &crate::handoff::absolute(&args.set.path),
    );
    say(&found, &delivered.skills);
    Ok(match args.format {
        export::Format::Markdown => delivered.seen,
        // The contents as the host's file holds them
        // ([`crate::handoff::channel::unbreakable`]).
        format => {
            let texts: crate::export::Texts = resolved
                .texts
                .iter()
                .map(|(i, t)| (*i, crate::handoff::channel::unbreakable(t).into_owned()))
                .collect();
            export::render(format, &delivered.preview, cands, &texts)
        }
    })
}

/// Says a host's report on stderr: what the delivery found, the skills it hands on as
/// skills, what the host receives, then what the installed deliveries mean for it.
fn say(found: &HostReport, skills: &[crate::handoff::skills::AsSkill]) {
    for f in &found.delivery {
        report(&f.to_string());
    }
    for s in skills {
        report(&crate::handoff::skills::line(s));
    }
    if let Some(note) = &found.names_only {
        report(note);
    }
    report(&found.receives.to_string());
    for f in &found.installed {
        report(&f.to_string());
    }
}

/// Writes the rendered preview to `--output` or stdout (a closed pipe is no failure).
fn write_out(args: &PreviewArgs, rendered: &str) -> Result<(), Exit> {
    let written = match &args.output {
        Some(path) => crate::fsio::write_atomic(path, rendered.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes()).and_then(|_| out.flush())
        }
    };
    match written {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            report(&format!("cannot write the preview: {e}"));
            Err(Exit::ServerFailed)
        }
        _ => Ok(()),
    }
}

/// `preview --host HOST --next-turn`: what each running session's next turn will be given.
fn next_turn(host: crate::hosts::Host, args: &PreviewArgs) -> Exit {
    let turns = match crate::handoff::live::next_turns(host, &args.set.path, &args.served_as) {
        Ok(turns) => turns,
        Err(why) => return super::usage_error(&why),
    };
    let mut out = String::new();
    for t in turns {
        let who = match &t.session {
            Some(id) => format!("session {}", sanitize::line(id, 200)),
            None => format!(
                "no running session of {}; a session starting now",
                host.name()
            ),
        };
        report(&format!(
            "{who}: next turn: +{} −{} ~{}{}",
            t.added,
            t.withdrawn,
            t.changed,
            if t.seen.is_empty() {
                " (nothing to say)"
            } else {
                ""
            }
        ));
        out.push_str(&t.seen);
        if !t.seen.is_empty() && !t.seen.ends_with('\n') {
            out.push('\n');
        }
    }
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_all(out.as_bytes());
    Exit::Ok
}
