//! Session-start delivery, planned, written, kept fresh and listed: the set's text through a
//! host's [`Channel`] ([`super::channel`]), in the files [`super::delivery`] derives and
//! checks. `install` and the browser's hand-off write it; the marking commands, the browser,
//! `serve` and `mcpick deliver` write it again.

use std::path::Path;

use super::channel::{Delivered, deliver};
use super::delivery::{self, Delivery, Record};
use super::findings::{Finding, HostReport, Missed, ReachedThrough, Receives};
use super::profile::{Channel, MidSession, Reached};
use super::profiles;
use super::skills;
use super::{Contents, Written};
use crate::hosts::{Host, Places, Scope};
use crate::sanitize;

/// What `channel` delivers of a set read whole: on a host with a skills folder, the skills
/// the set includes go there and not into the text ([`skills::partition`]).
pub fn render(
    channel: &Channel,
    delivery: &Delivery,
    set: &Path,
    contents: Contents<'_, '_>,
) -> Delivered {
    let (mut preview, mut as_skills, mut refused) =
        match (profiles::of(channel.host).skills, contents.skills) {
            (Some(_), Some(fetched)) if !fetched.is_empty() => {
                skills::partition(contents.preview, contents.candidates, fetched)
            }
            _ => (contents.preview.clone(), Vec::new(), Vec::new()),
        };
    if let Some(fetched) = contents.skills {
        let places = Places::system();
        let project = delivery.project.clone().unwrap_or(places.project.clone());
        let before: u64 = as_skills.iter().map(|s| s.tokens).sum();
        refused.extend(skills::shadowed(
            channel.host,
            &project,
            &places,
            &delivery.skills,
            &mut as_skills,
            fetched,
        ));
        preview.total_tokens -= before - as_skills.iter().map(|s| s.tokens).sum::<u64>();
    }
    let mut delivered = deliver(
        channel,
        &delivery.placement(set),
        &preview,
        contents.candidates,
        contents.texts,
    );
    delivered.preview.total_tokens += as_skills.iter().map(|s| s.tokens).sum::<u64>();
    delivered.skills = as_skills;
    delivered.refused_skills = refused;
    delivered
}

/// What the per-turn hooks compare each turn against: the set without the files of the skills
/// that went to skills folders (every host with a per-turn channel has one), so a skill's
/// body never arrives inline on a next turn. `None`: no skill was read, the set as it is.
fn for_turns(contents: Contents<'_, '_>) -> Option<crate::context::Preview> {
    let fetched = contents.skills.filter(|f| !f.is_empty())?;
    Some(skills::partition(contents.preview, contents.candidates, fetched).0)
}

/// The skills of `delivered` written into the host's skills folder (and the earlier ones
/// taken back or kept, [`skills::place`]): what is there now, and the warnings.
fn place_skills(
    delivery: &Delivery,
    earlier: &[skills::Placed],
    delivered: &Delivered,
    contents: Contents<'_, '_>,
) -> (Vec<skills::Placed>, Vec<String>) {
    let (Some(host), Some(scope)) = (delivery.host(), delivery.scope()) else {
        return (earlier.to_vec(), Vec::new());
    };
    let (Some(folder), Some(fetched)) = (profiles::of(host).skills, contents.skills) else {
        return (earlier.to_vec(), Vec::new());
    };
    let places = Places::system();
    let project = delivery
        .project
        .clone()
        .unwrap_or_else(|| places.project.clone());
    let (root, inside) = match folder.root(scope, &project, &places) {
        Ok(r) => r,
        Err(why) => return (earlier.to_vec(), vec![why]),
    };
    let wanted: Vec<&crate::skills::Skill> = fetched
        .iter()
        .filter_map(|f| f.outcome.as_ref().ok())
        .filter(|s| {
            delivered
                .skills
                .iter()
                .any(|a| a.server == s.server && a.name == s.name)
        })
        .collect();
    let refused: Vec<(&str, &str)> = fetched
        .iter()
        .filter(|f| f.outcome.is_err())
        .map(|f| (f.server.as_str(), f.name.as_str()))
        .collect();
    skills::place(
        &root,
        &inside,
        &wanted,
        &refused,
        earlier,
        scope == Scope::Project,
    )
}

/// While no budget is set, what a delivery holds and how to change it: pinned resources only,
/// or nothing at all when nothing is pinned (an empty delivery is no failure).
fn unset_note(preview: &crate::context::Preview) -> String {
    if !preview.budget.is_unset() {
        String::new()
    } else if preview.included.is_empty() {
        "; empty: nothing is pinned and no budget is set (`mcpick pin URI` adds a resource; `mcpick policy --budget N` adds the rest, ranked, up to N tokens; `--budget all` everything)".to_string()
    } else {
        "; pinned resources only: no budget is set (`mcpick policy --budget N` adds the rest, ranked, up to N tokens; `--budget all` everything)".to_string()
    }
}

/// One line on what a delivery carries: how many resources, tokens, bytes, and what was cut.
fn summary(channel: &Channel, d: &Delivered) -> String {
    let cut = d
        .preview
        .left_out
        .iter()
        .filter(|l| matches!(l.reason, crate::context::Reason::HostLimit(_)))
        .count();
    let n = d.preview.included.len();
    let thousands = |n: usize| crate::units::thousands(n as u64);
    format!(
        "{} of {} resource{} ({} tokens, {} bytes) through {}{}{}{}",
        thousands(n),
        thousands(n + cut),
        if n + cut == 1 { "" } else { "s" },
        crate::units::thousands(d.preview.total_tokens),
        thousands(d.file.len()),
        channel.what,
        channel.provenance(),
        if cut > 0 {
            format!(
                "; {} over {} (`mcpick preview --host {}` names them)",
                thousands(cut),
                channel.limit_words,
                channel.host.name()
            )
        } else {
            String::new()
        },
        unset_note(&d.preview)
    )
}

/// Where `host`'s session-start delivery of `set` (absolute) with an entry of `scope` goes,
/// nothing written yet; `Ok(None)` when the host has no channel mcpick can write there.
pub fn plan(
    host: Host,
    scope: Scope,
    places: &Places,
    set: &Path,
    name: &str,
    per_turn: bool,
) -> Result<Option<(&'static Channel, Delivery)>, String> {
    let Some((channel, scope)) = profiles::of(host)
        .start
        .and_then(|c| Some((c, c.scope_for(scope)?)))
    else {
        return Ok(None);
    };
    delivery::plan(channel, scope, places, set, name, per_turn)
        .map(|d| Some((channel, d)))
        .map_err(|why| format!("not delivering at session start: {why}"))
}

/// The recorded deliveries of `set` (absolute) that `host`'s model reads at session start in
/// `project`: its own, and the other hosts' it reads too ([`super::profile::Profile::reads_also`]).
pub fn picked_up(host: Host, project: &Path, set: &Path) -> Vec<Delivery> {
    let profile = profiles::of(host);
    Record::load(set)
        .deliveries
        .into_iter()
        .filter(|d| {
            let (Some(h), Some(scope)) = (d.host(), d.scope()) else {
                return false;
            };
            let here = scope == Scope::User || d.project.as_deref() == Some(project);
            here && (h == host || profile.reads_also.contains(&(h, scope)))
        })
        .collect()
}

/// When another host's delivery of `set` already reaches `host`'s model in `project`: why
/// `install` writes no delivery of its own (the set would be in that model twice), in words.
pub fn reached_through(host: Host, project: &Path, set: &Path) -> Option<String> {
    reached_by(host, project, set).map(|r| r.to_string())
}

/// The delivery of `set` another host's install wrote that already reaches `host`'s model in
/// `project`, if any.
pub fn reached_by(host: Host, project: &Path, set: &Path) -> Option<ReachedThrough> {
    let other = picked_up(host, project, set)
        .into_iter()
        .find(|d| d.host() != Some(host))?;
    let mut missed = Vec::new();
    // Skills are not in that file: they reach it only from a skills folder it reads.
    if let (Some(h), Some(scope)) = (other.host(), other.scope())
        && let Some(folder) = profiles::of(h).skills
        && !reads_skills_of(host, h, scope)
    {
        missed.push(Missed::Skills {
            folder: folder.project,
        });
    }
    // It reads that file whole, under its own limit or not.
    let size = std::fs::metadata(&other.file).map_or(0, |m| m.len() as usize);
    if let Some(channel) = profiles::of(host).start
        && let Some(limit) = channel.limit
        && size > limit
    {
        missed.push(Missed::OverLimit {
            size,
            limit_words: channel.limit_words,
        });
    }
    let file = other
        .import
        .as_ref()
        .map_or_else(|| other.file.clone(), |i| i.path.clone());
    Some(ReachedThrough {
        host,
        other: other.host,
        file,
        missed,
    })
}

/// The report on `host`'s delivery of a set (`set`, absolute) through `channel`: what it
/// found, what the host receives of the `included` resources, and what the installed
/// deliveries it picks up in `project` mean for it. `candidates` are the rows the delivery's
/// preview indexes.
pub fn report(
    host: Host,
    channel: &Channel,
    delivered: &Delivered,
    included: usize,
    candidates: &[crate::context::Candidate],
    project: &Path,
    set: &Path,
) -> HostReport {
    HostReport {
        delivery: delivered.findings(candidates),
        names_only: profiles::of(host)
            .skills
            .and_then(|f| f.names_only_note())
            .filter(|_| !delivered.skills.is_empty()),
        receives: Receives {
            host,
            delivered: delivered.preview.included.len(),
            included,
            through: channel.what,
            provenance: channel.provenance(),
        },
        installed: installed_findings(host, project, set, !delivered.skills.is_empty()),
    }
}

/// What the installed deliveries of `set` (absolute) that `host` picks up in `project` mean
/// for it, as `preview --host` says them: which it picks up, what it misses reading another
/// host's, which skills folders it lists (when the set gives it `skills`), and a set read
/// twice. Empty when it picks up none.
pub fn installed_findings(host: Host, project: &Path, set: &Path, skills: bool) -> Vec<Finding> {
    let installed = picked_up(host, project, set);
    if installed.is_empty() {
        return Vec::new();
    }
    // Its own delivery is no news: only another host's that it reads too is.
    let others: Vec<(String, String)> = installed
        .iter()
        .filter(|d| d.host() != Some(host))
        .map(|d| (d.host.clone(), d.scope.clone()))
        .collect();
    let mut found = Vec::new();
    if !others.is_empty() {
        found.push(Finding::PicksUp {
            host,
            deliveries: others,
        });
    }
    if let Some(through) = reached_by(host, project, set)
        && !through.missed.is_empty()
    {
        found.push(Finding::ReachedThrough(through));
    }
    if skills {
        let folders = skills_read(host, project, set);
        found.push(if folders.is_empty() {
            Finding::SkillsUnread { host }
        } else {
            Finding::SkillsFrom { host, folders }
        });
    }
    if installed.len() > 1 {
        found.push(Finding::ReadTwice {
            host,
            times: installed.len(),
        });
    }
    found
}

/// Whether `host` lists the skills in `other`'s skills folder of `scope`: its own, or one it
/// reads too ([`super::profile::SkillsFolder::reads_also`]).
fn reads_skills_of(host: Host, other: Host, scope: Scope) -> bool {
    other == host
        || profiles::of(host)
            .skills
            .is_some_and(|f| f.reads_also.contains(&(other, scope)))
}

/// The skills folders, written by installed deliveries of `set` (absolute), that `host`'s
/// model lists in `project`: its own, and other hosts' it reads too; with the host whose
/// delivery wrote each. `preview --host` names them.
pub fn skills_read(host: Host, project: &Path, set: &Path) -> Vec<(Host, std::path::PathBuf)> {
    let mut out: Vec<(Host, std::path::PathBuf)> = Vec::new();
    for d in Record::load(set).deliveries {
        let (Some(h), Some(scope)) = (d.host(), d.scope()) else {
            continue;
        };
        let here = scope == Scope::User || d.project.as_deref() == Some(project);
        if !here || !reads_skills_of(host, h, scope) {
            continue;
        }
        for placed in &d.skills {
            if let Some(root) = placed.folder.parent()
                && !out.iter().any(|(_, r)| r == root)
            {
                out.push((h, root.to_path_buf()));
            }
        }
    }
    out
}

/// Every other host whose model reads `host`'s delivery of `set` in `project` and already
/// gets the set through a delivery of its own: a warning each (the set twice in one model).
pub fn read_twice(host: Host, scope: Scope, project: &Path, set: &Path) -> Vec<String> {
    profiles::ALL
        .iter()
        .filter(|r| r.reads_also.contains(&(host, scope)))
        .filter(|r| {
            picked_up(r.host, project, set)
                .iter()
                .any(|d| d.host() == Some(r.host))
        })
        .map(|r| {
            format!(
                "{} reads this {} delivery too and has its own: its model gets the set twice; `mcpick uninstall {}` then `mcpick install {}` leaves it this one",
                r.host.dialect().host_name,
                host.name(),
                r.host.name(),
                r.host.name()
            )
        })
        .collect()
}

/// Why a host with an entry of `scope` gets the set on demand only.
pub fn no_channel(host: Host, scope: Scope) -> String {
    let on_demand = "the set reaches the model on demand (resources to attach or mention, the `context` prompt and tool)";
    match profiles::of(host).start {
        Some(channel) if channel.scope_for(scope).is_none() => format!(
            "{} reads the set at session start only from a project file ({}); for a {} entry {on_demand}",
            host.name(),
            channel.what,
            scope.name()
        ),
        _ => format!(
            "{} has no session-start channel mcpick can write: {on_demand}",
            host.name()
        ),
    }
}

/// Why a host whose session-start file is read before every model call needs no per-turn
/// hook: the file is its live channel.
pub fn read_every_call(channel: &Channel, file: Option<&Path>) -> String {
    format!(
        "{} reads {} again before every model call: each change of the set (and `mcpick serve`'s refresh after a server's change) reaches a running session's next turn, whole, with no hook",
        channel.host.dialect().host_name,
        file.map_or_else(|| channel.what.to_string(), |f| f.display().to_string())
    )
}

/// What a planned delivery will touch (`install --dry-run`, the browser's hand-off).
pub fn planned_lines(channel: &Channel, delivery: &Delivery) -> Vec<String> {
    let mut lines = vec![format!(
        "and at session start, through {}{}:",
        channel.what,
        channel.provenance()
    )];
    for (what, path) in delivery.files() {
        lines.push(format!("  {what}: {}", path.display()));
    }
    lines
}

/// Writes a planned delivery of `contents` for the set at `set` (absolute).
pub fn write(
    channel: &Channel,
    delivery: &Delivery,
    set: &Path,
    contents: Contents<'_, '_>,
) -> Result<Written, String> {
    let delivered = render(channel, delivery, set, contents);
    let earlier = delivery::recorded_skills(set, delivery);
    let (placed, said) = place_skills(delivery, &earlier, &delivered, contents);
    let mut delivery = delivery.clone();
    delivery.skills = placed;
    let delivery = &delivery;
    delivery::write(set, delivery, &delivered.file)
        .map_err(|e| format!("cannot write the session-start delivery: {e}"))?;
    let mut warnings = delivered.refused_skills.clone();
    warnings.extend(delivered.warnings.iter().cloned());
    warnings.extend(said);
    let id = super::live::delivery_id(&delivery.host, &delivery.scope, &delivery.name);
    let holds = super::live::holds(contents, &delivered.preview);
    let turns = for_turns(contents);
    let contents = Contents {
        preview: turns.as_ref().unwrap_or(contents.preview),
        ..contents
    };
    if let Err(e) = super::live::record(set, contents, vec![(id, holds)], Vec::new()) {
        warnings.push(format!("the next turns will not see changes: {e}"));
    }
    let mut lines = vec![
        format!(
            "delivered at session start: {}",
            summary(channel, &delivered)
        ),
        format!(
            "  the text: {} ({}; holds resource contents)",
            delivery.file.display(),
            if matches!(channel.reached, Reached::Override(_) | Reached::Rules(_)) {
                match &delivery.exclude {
                    Some(e) => format!("kept out of git by {}", e.path.display()),
                    None => "not in a git repository here: keep it out of version control".into(),
                }
            } else if delivery.file.starts_with(
                set.parent()
                    .unwrap_or(Path::new("."))
                    .join(delivery::FOLDER)
            ) {
                "kept out of version control by its folder's .gitignore".into()
            } else {
                // A user delivery beside the host's own files (`~/.gemini/mcpick/`, …).
                "in your home folder, outside the project".into()
            }
        ),
    ];
    if let Some(import) = &delivery.import {
        lines.push(match channel.reached {
            Reached::Loader(_) => format!(
                "  read by: {} (mcpick's, which the host runs; no contents)",
                import.path.display()
            ),
            _ => format!(
                "  imported by: {} (two lines, no contents)",
                import.path.display()
            ),
        });
    }
    for s in &delivered.skills {
        lines.push(format!("  {}", skills::line(s)));
    }
    if let Some(note) = profiles::of(channel.host)
        .skills
        .and_then(|f| f.names_only_note())
        .filter(|_| !delivered.skills.is_empty())
    {
        lines.push(format!("  {note}"));
    }
    for p in &delivery.skills {
        lines.push(format!("  skill folder: {}", p.folder.display()));
    }
    lines.push(
        "  fresh as of the last change: pin, exclude, unmark, policy, the browser and `mcpick serve` write it again; `mcpick deliver` does now".into(),
    );
    Ok(Written {
        lines,
        warnings,
        notes: Vec::new(),
    })
}

/// Every delivery recorded for `set` written again from `contents`: per delivery, the line
/// that says what was written, or why it could not be.
pub fn refresh_all(set: &Path, contents: Contents<'_, '_>) -> Vec<Result<String, String>> {
    let set_abs = delivery::absolute(set);
    let mut done = Vec::new();
    let record = Record::load(&set_abs);
    done.extend(refused(&record).into_iter().map(Err));
    let (mut written, mut held) = (Vec::new(), Vec::new());
    for delivery in record.deliveries {
        let Some(channel) = delivery.host().and_then(|h| profiles::of(h).start) else {
            continue;
        };
        let delivered = render(channel, &delivery, &set_abs, contents);
        let id = super::live::delivery_id(&delivery.host, &delivery.scope, &delivery.name);
        // Skills first, also while a session runs: a new session lists the folder as it is
        // now, and a running one too on its next turn or after a command of its own
        // (`SkillsFolder::mid_session`), which is said when the skills changed.
        if let (Some(folder), Some(_)) = (profiles::of(channel.host).skills, contents.skills) {
            let (placed, said) = place_skills(&delivery, &delivery.skills, &delivered, contents);
            done.extend(delivered.refused_skills.iter().cloned().map(Err));
            done.extend(said.into_iter().map(Err));
            if placed != delivery.skills {
                // Each skills folder written or taken back, named: they are the user's
                // project's folders too.
                for p in placed.iter().filter(|p| !delivery.skills.contains(p)) {
                    done.push(Ok(format!(
                        "skill written for {}: {}",
                        channel.host.name(),
                        p.folder.display()
                    )));
                }
                let kept = |p: &skills::Placed| placed.iter().any(|q| q.folder == p.folder);
                for p in delivery.skills.iter().filter(|p| !kept(p)) {
                    done.push(Ok(format!(
                        "skill taken back for {}: {}",
                        channel.host.name(),
                        p.folder.display()
                    )));
                }
                if let MidSession::Command(_) | MidSession::NewSession = folder.mid_session {
                    done.push(Ok(format!("skills changed: {}", folder.mid_session_note())));
                }
                if let Err(e) = delivery::record_skills(&set_abs, &delivery, placed) {
                    done.push(Err(format!("cannot record the skills written: {e}")));
                }
            }
        }
        if super::live::defers_rewrite(channel, &set_abs) {
            done.push(Ok(format!(
                "delivered to {}'s running sessions on their next turn; {} is written when they end or compact",
                channel.host.name(),
                delivery.file.display()
            )));
            let holds = super::live::holds(contents, &delivered.preview);
            held.push((id, delivered.file, holds));
            continue;
        }
        done.push(
            match delivery::refresh(&delivery, &set_abs, &delivered.file) {
                Ok(()) => Ok({
                    written.push((id, super::live::holds(contents, &delivered.preview)));
                    format!(
                        "delivered to {}: {}",
                        channel.host.name(),
                        summary(channel, &delivered)
                    )
                }),
                Err(e) => Err(format!(
                    "cannot write {}: {e}",
                    sanitize::line(&delivery.file.display().to_string(), 1000)
                )),
            },
        );
    }
    if (!written.is_empty() || !held.is_empty())
        && let Err(e) = super::live::record(
            &set_abs,
            Contents {
                preview: for_turns(contents).as_ref().unwrap_or(contents.preview),
                ..contents
            },
            written,
            held,
        )
    {
        done.push(Err(format!(
            "the next turns of running sessions will not see this change: {e}"
        )));
    }
    done
}

/// The recorded deliveries that were not followed, and why (each a warning).
pub fn refused(record: &Record) -> Vec<String> {
    record
        .refused
        .iter()
        .map(|why| format!("warning: {}", sanitize::line(why, 2000)))
        .collect()
}

/// `install --list`: every piece of the set's session-start deliveries, one line each.
pub fn listed(record: &Record) -> Vec<String> {
    record
        .deliveries
        .iter()
        .map(|d| {
            let pieces: Vec<String> = d
                .files()
                .iter()
                .map(|(what, path)| {
                    let state = if path.exists() { "" } else { " (missing)" };
                    format!("{what} {}{state}", path.display())
                })
                .collect();
            let provenance = d
                .host()
                .and_then(|h| profiles::of(h).start)
                .map_or("", Channel::provenance);
            format!(
                "{:<15} {:<8} `{}`: {}{provenance}",
                d.host,
                d.scope,
                sanitize::line(&d.name, 200),
                sanitize::line(&pieces.join("; "), 2000)
            )
        })
        .collect()
}

/// What `host`'s model receives at session start of `contents`: through the delivery
/// recorded for `host`, `scope` and `served_as` if there is one, else through the one
/// `install` would plan. `preview --host` and the browser's agent view both show this.
pub fn for_host(
    host: Host,
    scope: Option<Scope>,
    served_as: &str,
    set: &Path,
    contents: Contents<'_, '_>,
) -> Result<(&'static Channel, Delivered), String> {
    let channel = profiles::of(host).start.ok_or_else(|| {
        format!(
            "{} has no session-start channel: its model gets the set on demand only (see `mcpick install {}`)",
            host.name(),
            host.name()
        )
    })?;
    let entry_scope = super::entry::scope_of(host.dialect(), scope)?;
    let scope = channel
        .scope_for(entry_scope)
        .ok_or_else(|| no_channel(host, entry_scope))?;
    let set_abs = delivery::absolute(set);
    let recorded = Record::load(&set_abs)
        .deliveries
        .into_iter()
        .find(|d| d.host == host.name() && d.scope == scope.name() && d.name == served_as);
    let delivery = match recorded {
        Some(d) => d,
        None => delivery::plan(channel, scope, &Places::system(), &set_abs, served_as, true)?,
    };
    Ok((channel, render(channel, &delivery, &set_abs, contents)))
}
