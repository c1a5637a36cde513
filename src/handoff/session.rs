//! Session-start delivery, planned, written, kept fresh and listed: the set's text through a
//! host's [`Channel`], cut to what it carries ([`super::channel`]), in files [`super::pieces`]
//! derives and checks. `install` and the browser's hand-off write it; `pin`, `exclude`,
//! `unmark`, `policy`, the browser, `serve` and `mcpick deliver` write it again.

use std::path::Path;

use super::channel::{Channel, Delivered, deliver};
use super::pieces::{self, Delivery, Record};
use super::{Contents, Written};
use crate::hosts::{Host, Places, Scope};
use crate::sanitize;

/// What `channel` delivers of a set read whole.
pub fn render(
    channel: &Channel,
    delivery: &Delivery,
    set: &Path,
    contents: Contents<'_, '_>,
) -> Delivered {
    deliver(
        channel,
        &delivery.placement(set),
        contents.preview,
        contents.candidates,
        contents.texts,
    )
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
    format!(
        "{n} of {} resource{} ({} tokens, {} bytes) through {}{}",
        n + cut,
        if n + cut == 1 { "" } else { "s" },
        d.preview.total_tokens,
        d.file.len(),
        channel.what,
        if cut > 0 {
            format!(
                "; {cut} over {} (`mcpick preview --host {}` names them)",
                channel.limit_words,
                channel.host.name()
            )
        } else {
            String::new()
        }
    )
}

/// Where `host`'s session-start delivery of `set` (absolute) goes, nothing written yet;
/// `Ok(None)` when the host has no channel mcpick can write.
pub fn plan(
    host: Host,
    scope: Scope,
    places: &Places,
    set: &Path,
    name: &str,
) -> Result<Option<(&'static Channel, Delivery)>, String> {
    let Some(channel) = Channel::of(host) else {
        return Ok(None);
    };
    pieces::plan(channel, scope, places, set, name)
        .map(|d| Some((channel, d)))
        .map_err(|why| format!("not delivering at session start: {why}"))
}

/// The recorded deliveries of `set` (absolute) that `host`'s model reads at session start in
/// `project`: its own, and the other hosts' it reads too ([`super::hosts::Row::reads_also`]).
pub fn picked_up(host: Host, project: &Path, set: &Path) -> Vec<Delivery> {
    let row = super::hosts::row(host);
    Record::load(set)
        .deliveries
        .into_iter()
        .filter(|d| {
            let (Some(h), Some(scope)) = (d.host(), d.scope_of()) else {
                return false;
            };
            let here = scope == Scope::User || d.project.as_deref() == Some(project);
            here && (h == host || row.reads_also.contains(&(h, scope)))
        })
        .collect()
}

/// When another host's delivery of `set` already reaches `host`'s model in `project`: why
/// `install` writes no delivery of its own (the set would be in that model twice).
pub fn reached_through(host: Host, project: &Path, set: &Path) -> Option<String> {
    let other = picked_up(host, project, set)
        .into_iter()
        .find(|d| d.host() != Some(host))?;
    let mut said = format!(
        "{} reads the {} delivery of this set ({}) at session start: mcpick writes no second copy for it (`mcpick preview --host {}` shows what its model gets)",
        host.dialect().host_name,
        crate::sanitize::line(&other.host, 100),
        other.import.as_ref().map_or_else(
            || other.file.display().to_string(),
            |i| i.path.display().to_string()
        ),
        host.name()
    );
    // It reads that file whole, under its own limit or not.
    let size = std::fs::metadata(&other.file).map_or(0, |m| m.len() as usize);
    if let Some(channel) = Channel::of(host)
        && let Some(limit) = channel.limit
        && size > limit
    {
        said.push_str(&format!(
            "; warning: that file is {size} bytes, over {}: give the set a budget (`mcpick policy --budget`)",
            channel.limit_words,
        ));
    }
    Some(said)
}

/// Every other host whose model reads `host`'s delivery of `set` in `project` and already
/// gets the set through a delivery of its own: a warning each (the set twice in one model).
pub fn read_twice(host: Host, scope: Scope, project: &Path, set: &Path) -> Vec<String> {
    super::hosts::ROWS
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

/// Why a host gets the set on demand only.
pub fn no_channel(host: Host) -> String {
    format!(
        "{} has no session-start channel mcpick can write: the set reaches the model on demand (resources to attach or mention, the `context` prompt and tool)",
        host.name()
    )
}

/// What a planned delivery will touch (`install --dry-run`, the browser's hand-off).
pub fn planned_lines(channel: &Channel, delivery: &Delivery) -> Vec<String> {
    let mut lines = vec![format!("and at session start, through {}:", channel.what)];
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
    pieces::write(set, delivery, &delivered.file)
        .map_err(|e| format!("cannot write the session-start delivery: {e}"))?;
    let mut warnings = delivered.warnings.clone();
    let id = super::live::delivery_id(&delivery.host, &delivery.scope, &delivery.name);
    if let Err(e) = super::live::record(set, contents, &[id], Vec::new()) {
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
            if channel.host == Host::Codex {
                match &delivery.exclude {
                    Some(e) => format!("kept out of git by {}", e.path.display()),
                    None => "not in a git repository here: keep it out of version control".into(),
                }
            } else if delivery
                .file
                .starts_with(set.parent().unwrap_or(Path::new(".")).join(pieces::FOLDER))
            {
                "kept out of version control by its folder's .gitignore".into()
            } else {
                // A user delivery beside the host's own files (`~/.gemini/mcpick/`, …).
                "in your home folder, outside the project".into()
            }
        ),
    ];
    if let Some(import) = &delivery.import {
        lines.push(format!(
            "  imported by: {} (two lines, no contents)",
            import.path.display()
        ));
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
    let set_abs = pieces::absolute(set);
    let mut done = Vec::new();
    let record = Record::load(&set_abs);
    done.extend(refused(&record).into_iter().map(Err));
    let (mut written, mut held) = (Vec::new(), Vec::new());
    for delivery in record.deliveries {
        let Some(channel) = delivery.host().and_then(Channel::of) else {
            continue;
        };
        let delivered = render(channel, &delivery, &set_abs, contents);
        let id = super::live::delivery_id(&delivery.host, &delivery.scope, &delivery.name);
        if super::live::defers_rewrite(channel.host, &set_abs) {
            done.push(Ok(format!(
                "delivered to {}'s running sessions on their next turn; {} is written when they end or compact",
                channel.host.name(),
                delivery.file.display()
            )));
            held.push((id, delivered.file));
            continue;
        }
        done.push(
            match pieces::refresh(&delivery, &set_abs, &delivered.file) {
                Ok(()) => Ok({
                    written.push(id);
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
        && let Err(e) = super::live::record(&set_abs, contents, &written, held)
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
            format!(
                "{:<15} {:<8} `{}`: {}",
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
    let channel = Channel::of(host).ok_or_else(|| {
        format!(
            "{} has no session-start channel: its model gets the set on demand only (see `mcpick install {}`)",
            host.name(),
            host.name()
        )
    })?;
    let scope = super::entry::scope_of(host.dialect(), scope)?;
    let set_abs = pieces::absolute(set);
    let recorded = Record::load(&set_abs)
        .deliveries
        .into_iter()
        .find(|d| d.host == host.name() && d.scope == scope.name() && d.name == served_as);
    let delivery = match recorded {
        Some(d) => d,
        None => pieces::plan(channel, scope, &Places::system(), &set_abs, served_as)?,
    };
    Ok((channel, render(channel, &delivery, &set_abs, contents)))
}
