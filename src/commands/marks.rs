//! `mcpick pin`, `exclude`, `unmark`, `marks` and `policy`: edit and show a context set
//! without the TUI.
//!
//! `pin`/`exclude` check their targets against the servers' listings: an exact URI no server
//! lists is refused (status 3) unless `--allow-missing` records it anyway (it then shows as
//! missing until a server lists it), except a URI one of the server's templates produces (an
//! expansion, recorded with a note naming the template). A `PREFIX*` is always recorded,
//! since it also catches resources that appear later; a note says when it matches nothing
//! yet. Without `--server`, a target is marked on every server that lists a match.

use std::io::Write;

use serde::Serialize;

use super::context::{
    Listed, add_expansions, choose, list_all, list_set, load_set, shown_name, update_set,
};
use super::{Exit, close_all, report};
use crate::cli::{MarkArgs, MarksArgs, PolicyArgs, UnmarkArgs};
use crate::config::select::{Chosen, remember_recorded};
use crate::context::{ContextSet, Mark, Marks, Pattern, Target};
use crate::sanitize;

/// What a person typed as a mark's target: a skill (`skill://NAME`, or any file of it) is
/// marked as a unit, every file of it (`skill://NAME/*`), unless `--exact` says otherwise.
pub fn parse_target(text: &str, exact: bool) -> Pattern {
    match crate::skills::unit_of(text) {
        Some(prefix) if !exact => Pattern::Prefix(prefix),
        _ => Pattern::parse(text, exact),
    }
}

/// `mcpick pin` / `mcpick exclude`: the targets checked against the servers' listings (or,
/// offline, taken as given), recorded under the set's lock, then printed.
pub async fn mark(args: MarkArgs, mark: Mark) -> Exit {
    let set = match load_set(&args.set) {
        Ok(set) => set,
        Err(exit) => return exit,
    };
    let patterns: Vec<Pattern> = args
        .targets
        .iter()
        .map(|t| parse_target(t, args.exact))
        .collect();
    let chosen = match choose(&args.servers, &set) {
        Ok(chosen) => chosen,
        Err(exit) => return exit,
    };
    let (targets, exit) = if args.allow_missing && !args.servers.servers.is_empty() {
        (offline_targets(&chosen, &patterns), Exit::Ok)
    } else {
        listed_targets(&args, &chosen, &patterns, mark).await
    };
    if targets.is_empty() {
        return exit;
    }
    if let Err(e) = record(&args, &chosen, &targets, mark) {
        return e;
    }
    let mut out = std::io::stdout().lock();
    for target in &targets {
        let _ = writeln!(
            out,
            "{} {}  {}",
            mark.name(),
            shown_name(&target.server),
            sanitize::line(&target.pattern.to_string(), 500)
        );
    }
    exit
}

/// Offline (`--allow-missing` with named servers): every pattern on every named server,
/// unchecked.
fn offline_targets(chosen: &[Chosen], patterns: &[Pattern]) -> Vec<Target> {
    chosen
        .iter()
        .flat_map(|c| {
            patterns.iter().map(|pattern| Target {
                server: c.selected.spec.name.clone(),
                pattern: pattern.clone(),
            })
        })
        .collect()
}

/// The targets the servers' listings (and their templates' expansions) bear out, each
/// pattern on every server that lists a match; what cannot be recorded is reported, and the
/// exit status says the worst of it.
async fn listed_targets(
    args: &MarkArgs,
    chosen: &[Chosen],
    patterns: &[Pattern],
    mark: Mark,
) -> (Vec<Target>, Exit) {
    let options = args.servers.connect_options();
    let cap = crate::mcp::list::DEFAULT_CAP;
    let Listed {
        sessions,
        mut catalogue,
        complete,
        failed,
        ..
    } = list_all(
        chosen.iter().map(|c| c.selected.clone()).collect(),
        &options,
        cap,
    )
    .await;
    let failed = !failed.is_empty();
    // An exact URI no server lists may be an expansion of a server's template.
    let unlisted = Marks::from_list(
        patterns
            .iter()
            .filter(|p| !p.is_prefix() && !catalogue.iter().any(|(_, i)| p.matches(i.uri())))
            .flat_map(|p| {
                complete.iter().map(|server| {
                    (
                        Target {
                            server: server.clone(),
                            pattern: p.clone(),
                        },
                        mark,
                    )
                })
            })
            .collect::<Vec<_>>(),
    );
    let expansions = add_expansions(&sessions, &mut catalogue, &complete, &unlisted, cap).await;
    close_all(sessions).await;
    for e in &expansions {
        report(&format!(
            "note: `{}` is not listed by `{}` but is an expansion of its template `{}`; recorded",
            sanitize::line(&e.resource.uri, 500),
            shown_name(&e.server),
            sanitize::line(&e.template, 500)
        ));
    }
    let mut targets = Vec::new();
    let mut exit = Exit::Ok;
    for pattern in patterns {
        let mut servers: Vec<String> = Vec::new();
        for (id, item) in catalogue.iter() {
            let name = catalogue.server_name(id.server);
            if pattern.matches(item.uri()) && !servers.iter().any(|s| **s == **name) {
                servers.push(name.to_string());
            }
        }
        if servers.is_empty() {
            match unmatched(pattern, args.allow_missing, chosen, &complete, failed) {
                Ok(server) => servers.push(server),
                Err(why) => {
                    if exit == Exit::Ok || why == Exit::Usage {
                        exit = why;
                    }
                    continue;
                }
            }
        }
        for server in servers {
            targets.push(Target {
                server,
                pattern: pattern.clone(),
            });
        }
    }
    if failed && exit == Exit::Ok {
        exit = Exit::ServerFailed;
    }
    (targets, exit)
}

/// A pattern no listed resource matches: recorded on the one server chosen when it is a
/// prefix or `--allow-missing` says so, else reported and not recorded (the status why).
fn unmatched(
    pattern: &Pattern,
    allow_missing: bool,
    chosen: &[Chosen],
    complete: &[String],
    failed: bool,
) -> Result<String, Exit> {
    let shown = sanitize::line(&pattern.to_string(), 500);
    let single = (chosen.len() == 1).then(|| chosen[0].selected.spec.name.clone());
    match (pattern.is_prefix() || allow_missing, single) {
        (true, Some(server)) => {
            report(&format!(
                "note: `{shown}` matches no resource of `{}` now; recorded (shown as missing until one appears)",
                shown_name(&server)
            ));
            Ok(server)
        }
        (true, None) => {
            report(&format!(
                "`{shown}` matches no resource of any server; name the server with --server"
            ));
            Err(Exit::Usage)
        }
        (false, _) => {
            let why = if failed { " (some servers failed)" } else { "" };
            report(&format!(
                "`{shown}` is not listed by {}{why}; not recorded (use --allow-missing to record it anyway)",
                if complete.len() == 1 {
                    format!("server `{}`", shown_name(&complete[0]))
                } else {
                    "any server".to_string()
                }
            ));
            Err(if failed {
                Exit::ServerFailed
            } else {
                Exit::NotFound
            })
        }
    }
}

/// Records `targets` in the set file as it is now (under its lock, not the copy read
/// before), with the servers given on the command line: the next run reads them from there
/// and needs no `mcpick trust` for what the person typed.
fn record(args: &MarkArgs, chosen: &[Chosen], targets: &[Target], mark: Mark) -> Result<(), Exit> {
    let (saved, ()) = update_set(&args.set, |set| {
        record_servers(set, chosen, targets);
        set.marks.set_many(targets.to_vec(), Some(mark));
    })?;
    let recorded: Vec<Chosen> = chosen
        .iter()
        .filter(|c| targets.iter().any(|t| t.server == c.selected.spec.name))
        .cloned()
        .collect();
    if let Err(e) = remember_recorded(&recorded, saved.set_servers().folder) {
        report(&format!("warning: {}", sanitize::line(&e, 2000)));
    }
    Ok(())
}

/// Records (or refreshes) the definitions of the servers the new marks refer to.
fn record_servers(set: &mut ContextSet, chosen: &[Chosen], targets: &[Target]) {
    for c in chosen {
        let name = &c.selected.spec.name;
        if targets.iter().any(|t| &t.server == name) {
            set.servers.insert(name.clone(), c.shown.clone());
            super::context::report_masked(c);
        }
    }
}

/// `mcpick unmark`: removes the marks the file holds now (under its lock).
pub fn unmark(args: UnmarkArgs) -> Exit {
    let changed = update_set(&args.set, |set| {
        let mut removed = Vec::new();
        let mut unknown = Vec::new();
        for text in &args.targets {
            let pattern = parse_target(text, args.exact);
            let targets: Vec<Target> = set
                .marks
                .iter()
                .map(|(t, _)| t)
                .filter(|t| {
                    t.pattern == pattern
                        && (args.servers.is_empty() || args.servers.contains(&t.server))
                })
                .collect();
            if targets.is_empty() {
                unknown.push(pattern);
            }
            removed.extend(targets);
        }
        set.marks.set_many(removed.clone(), None);
        (removed, unknown)
    });
    let (removed, unknown) = match changed {
        Ok((_, outcome)) => outcome,
        Err(exit) => return exit,
    };
    for pattern in &unknown {
        report(&format!(
            "no mark on `{}`",
            sanitize::line(&pattern.to_string(), 500)
        ));
    }
    for target in removed {
        crate::outln!(
            "unmark {}  {}",
            shown_name(&target.server),
            sanitize::line(&target.pattern.to_string(), 500)
        );
    }
    if unknown.is_empty() {
        Exit::Ok
    } else {
        Exit::NotFound
    }
}

#[derive(Serialize)]
struct MarkReport {
    server: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prefix: Option<String>,
    mark: Mark,
    /// With --check: how many listed resources it decides (the most specific mark wins), or
    /// `null` when its server could not be listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    resources: Option<Option<usize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    missing: Option<bool>,
    /// With --check: the template an exact mark no server lists is an expansion of.
    #[serde(rename = "expansionOf", skip_serializing_if = "Option::is_none")]
    expansion_of: Option<String>,
}

/// `mcpick marks`.
pub async fn marks(args: MarksArgs) -> Exit {
    let set = match load_set(&args.set) {
        Ok(set) => set,
        Err(exit) => return exit,
    };
    let mut reports: Vec<MarkReport> = set
        .marks
        .iter()
        .map(|(target, mark)| {
            let (uri, prefix) = match target.pattern {
                Pattern::Exact(u) => (Some(u), None),
                Pattern::Prefix(p) => (None, Some(p)),
            };
            MarkReport {
                server: target.server,
                uri,
                prefix,
                mark,
                resources: None,
                missing: None,
                expansion_of: None,
            }
        })
        .collect();
    let mut exit = Exit::Ok;
    if args.check {
        let listed = match list_set(&args.servers, &set).await {
            Ok(listed) => listed,
            Err(exit) => return exit,
        };
        close_all(listed.sessions).await;
        let (catalogue, expansions) = (listed.catalogue, listed.expansions);
        if !listed.failed.is_empty() {
            exit = Exit::ServerFailed;
        }
        for report in &mut reports {
            if !listed.complete.contains(&report.server) {
                report.resources = Some(None);
                continue;
            }
            let target = Target {
                server: report.server.clone(),
                pattern: match (&report.uri, &report.prefix) {
                    (Some(u), _) => Pattern::Exact(u.clone()),
                    (_, Some(p)) => Pattern::Prefix(p.clone()),
                    _ => unreachable!("a mark has a uri or a prefix"),
                },
            };
            let mut count = 0;
            let mut matched = false;
            for (id, item) in catalogue.iter() {
                if **catalogue.server_name(id.server) != *report.server
                    || !target.pattern.matches(item.uri())
                {
                    continue;
                }
                matched = true;
                let decides =
                    set.marks
                        .effective(&report.server, item.uri())
                        .is_some_and(|e| match (&target.pattern, e.prefix) {
                            (Pattern::Exact(_), None) => true,
                            (Pattern::Prefix(p), Some(q)) => p == q,
                            _ => false,
                        });
                if decides {
                    count += 1;
                }
            }
            report.resources = Some(Some(count));
            report.missing = Some(!matched);
            report.expansion_of = expansions
                .iter()
                .find(|e| e.server == report.server && report.uri.as_ref() == Some(&e.resource.uri))
                .map(|e| e.template.clone());
        }
    }
    let mut out = std::io::stdout().lock();
    let written = if args.json {
        crate::safe_json::to_writer_pretty(
            &mut out,
            &serde_json::json!({
                "file": args.set.path,
                "marks": reports,
                "policy": set.policy,
            }),
        )
        .and_then(|_| writeln!(out))
    } else {
        print_marks(&mut out, &reports, &set)
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        report(&e.to_string());
        return Exit::ServerFailed;
    }
    exit
}

fn print_marks(
    out: &mut impl Write,
    reports: &[MarkReport],
    set: &ContextSet,
) -> std::io::Result<()> {
    if reports.is_empty() {
        writeln!(out, "No marks.")?;
    }
    for r in reports {
        let target = match (&r.uri, &r.prefix) {
            (Some(u), _) => u.clone(),
            (_, Some(p)) => format!("{p}*"),
            _ => String::new(),
        };
        let status = match (r.missing, r.resources) {
            _ if r.expansion_of.is_some() => format!(
                "  (template expansion of {})",
                sanitize::line(r.expansion_of.as_deref().unwrap_or(""), 500)
            ),
            (Some(true), _) => "  (missing: no listed resource matches)".to_string(),
            (_, Some(Some(n))) if r.prefix.is_some() => {
                format!("  ({} resources)", crate::units::thousands(n as u64))
            }
            (_, Some(None)) => "  (server not listed)".to_string(),
            _ => String::new(),
        };
        writeln!(
            out,
            "{:<7} {}  {}{status}",
            r.mark.name(),
            shown_name(&r.server),
            sanitize::line(&target, 500)
        )?;
    }
    writeln!(out, "policy: {}", describe_policy(&set.policy))
}

pub fn describe_policy(p: &crate::context::Policy) -> String {
    format!(
        "audience {}, minimum priority {}, budget {}, tokenizer {} (an estimate of the host model's)",
        p.audience.name(),
        p.min_priority.map_or("none".to_string(), |m| m.to_string()),
        p.budget.describe(),
        p.tokenizer.name()
    )
}

/// `mcpick policy`: shows the policy, or changes the given fields in the file as it is now
/// (under its lock; other fields and marks others saved are kept).
pub fn policy(args: PolicyArgs) -> Exit {
    let change = |p: &mut crate::context::Policy| {
        if let Some(a) = args.audience {
            p.audience = a;
        }
        if let Some(m) = args.min_priority {
            p.min_priority = Some(m);
        }
        if args.no_min_priority {
            p.min_priority = None;
        }
        if let Some(b) = args.budget {
            p.budget = b;
        }
        if args.no_budget {
            p.budget = crate::context::Budget::Unset;
        }
        if let Some(t) = args.tokenizer {
            p.tokenizer = t;
        }
    };
    let changes = args.audience.is_some()
        || args.min_priority.is_some()
        || args.no_min_priority
        || args.budget.is_some()
        || args.no_budget
        || args.tokenizer.is_some();
    let set = if changes {
        match update_set(&args.set, |set| change(&mut set.policy)) {
            Ok((set, ())) => set,
            Err(exit) => return exit,
        }
    } else {
        match load_set(&args.set) {
            Ok(set) => set,
            Err(exit) => return exit,
        }
    };
    if args.json {
        crate::outln!(
            "{}",
            crate::safe_json::to_string_pretty(&set.policy).unwrap_or_default()
        );
    } else {
        crate::outln!("{}", describe_policy(&set.policy));
    }
    Exit::Ok
}
