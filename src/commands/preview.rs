//! `mcpick preview`: exactly what the TUI's agent view shows, with the contents. It lists
//! the servers, resolves with size estimates, reads what would be included (and the first
//! resource below the cut line), counts their tokens, and resolves again until nothing
//! unread is left above the line.

use std::io::Write;

use super::context::{load_set_to_hand_on, resolve_set};
use super::{Exit, report};
use crate::cli::PreviewArgs;
use crate::export;
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
    let set = match load_set_to_hand_on(&args.set, &args.servers) {
        Ok(set) => set,
        Err(exit) => return exit,
    };
    let policy = args.policy.apply(set.policy);
    let resolved = match resolve_set(
        &set,
        super::context::own_of(&args.set.path),
        &args.servers,
        &policy,
        args.jobs,
        args.host.is_some(),
    )
    .await
    {
        Ok(resolved) => resolved,
        Err(exit) => return exit,
    };
    let cands = resolved.candidates();
    let (preview, texts, failed) = (&resolved.preview, &resolved.texts, &resolved.failed);

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
            preview.total_tokens,
            preview.budget.unwrap_or(0)
        ));
    }
    let rendered = match args.host {
        None => export::render(args.format, preview, &cands, texts),
        Some(host) => {
            let (channel, delivered) = match super::deliver::for_preview(
                host,
                args.scope,
                &args.served_as,
                &args.set.path,
                &resolved,
            ) {
                Ok(d) => d,
                Err(why) => return super::usage_error(&why),
            };
            for l in &delivered.preview.left_out {
                if let crate::context::Reason::HostLimit(why) = &l.reason {
                    let c = &cands[l.index as usize];
                    report(&format!(
                        "{} {}: not delivered at session start: {why}",
                        sanitize::line(c.server, 200),
                        sanitize::line(c.uri(), 1000)
                    ));
                }
            }
            for w in &delivered.warnings {
                report(&format!("warning: {w}"));
            }
            for why in &delivered.refused_skills {
                report(&format!("warning: {why}"));
            }
            for s in &delivered.skills {
                report(&crate::handoff::skills::line(s));
            }
            if let Some(note) = crate::handoff::profiles::of(host)
                .skills
                .and_then(|f| f.names_only_note())
                .filter(|_| !delivered.skills.is_empty())
            {
                report(&note);
            }
            report(&format!(
                "{} receives {} of {} included resource{} at session start through {}{}",
                host.name(),
                delivered.preview.included.len(),
                preview.included.len(),
                if preview.included.len() == 1 { "" } else { "s" },
                channel.what,
                channel.provenance()
            ));
            let project = crate::places::Places::system().project;
            let set_abs = crate::handoff::absolute(&args.set.path);
            let installed = crate::handoff::start::picked_up(host, &project, &set_abs);
            if !installed.is_empty() {
                let names: Vec<String> = installed
                    .iter()
                    .map(|d| {
                        format!(
                            "{} ({})",
                            sanitize::line(&d.host, 100),
                            sanitize::line(&d.scope, 20)
                        )
                    })
                    .collect();
                report(&format!(
                    "{} picks up the installed deliver{} of this set: {}",
                    host.name(),
                    if names.len() == 1 { "y" } else { "ies" },
                    names.join(", ")
                ));
                if let Some(through) = crate::handoff::start::reached_by(host, &project, &set_abs)
                    && !through.warnings.is_empty()
                {
                    report(&through.to_string());
                }
                if !delivered.skills.is_empty() {
                    skills_read(host, &project, &set_abs);
                }
                if installed.len() > 1 {
                    report(&format!(
                        "warning: {} gets the set {} times at session start",
                        host.name(),
                        installed.len()
                    ));
                }
            }
            match args.format {
                export::Format::Markdown => delivered.seen,
                // The contents as the host's file holds them
                // ([`crate::handoff::channel::unbreakable`]).
                format => {
                    let texts: crate::export::Texts = texts
                        .iter()
                        .map(|(i, t)| (*i, crate::handoff::channel::unbreakable(t).into_owned()))
                        .collect();
                    export::render(format, &delivered.preview, &cands, &texts)
                }
            }
        }
    };
    let written = match &args.output {
        Some(path) => crate::fsio::write_atomic(path, rendered.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes()).and_then(|_| out.flush())
        }
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        report(&format!("cannot write the preview: {e}"));
        return Exit::ServerFailed;
    }
    if failed.is_empty() {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}

/// Which installed deliveries' skills folders `host` lists the set's skills from, or a
/// warning that none does.
fn skills_read(host: crate::hosts::Host, project: &std::path::Path, set: &std::path::Path) {
    let folders = crate::handoff::start::skills_read(host, project, set);
    if folders.is_empty() {
        report(&format!(
            "warning: none of the installed deliveries {} picks up wrote the set's skills into a folder it reads: its model gets none of them",
            host.name()
        ));
        return;
    }
    let named: Vec<String> = folders
        .iter()
        .map(|(h, folder)| format!("{} (the {} delivery)", folder.display(), h.name()))
        .collect();
    report(&format!(
        "{} lists the set's skills from {}{}{}",
        host.name(),
        named.join(" and "),
        if folders.len() > 1 {
            "; a skill in both is listed once (measured)"
        } else {
            ""
        },
        crate::handoff::profiles::of(host)
            .skills
            .map(|f| format!("; {}", f.mid_session_note()))
            .unwrap_or_default()
    ));
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
