//! Session-start delivery from the command line: written by `install`, taken back by
//! `uninstall`, written again by `mcpick deliver` and after every change of the set
//! (`pin`, `exclude`, `unmark`, `policy`), shown by `preview --host`. The channel and the cut
//! are [`crate::deliver`]'s; the files [`crate::deliver::pieces`]'.

use std::path::{Path, PathBuf};

use super::context::{Resolved, load_set, resolve_set};
use super::{Exit, report};
use crate::cli::{Deliver, DeliverArgs, InstallArgs, ServerArgs, SetArgs, UninstallArgs};
use crate::deliver::pieces::{self, Delivery, Record};
use crate::deliver::{Channel, Delivered, deliver};
use crate::hosts::{Host, Places, Scope};
use crate::sanitize;

pub use crate::deliver::pieces::absolute;

/// What `channel` delivers of a resolved set.
pub fn render(
    channel: &Channel,
    delivery: &Delivery,
    set: &Path,
    resolved: &Resolved,
) -> Delivered {
    let cands = resolved.candidates();
    deliver(
        channel,
        &delivery.placement(set),
        &resolved.preview,
        &cands,
        &resolved.texts,
    )
}

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
pub fn plan_delivery(
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

/// A delivery written: what it says for a person, and the warnings of its rendering.
pub struct Written {
    pub lines: Vec<String>,
    pub warnings: Vec<String>,
}

/// Writes a planned delivery of `preview` (over `candidates`, read as `texts`) for the set at
/// `set` (absolute): the one place both `install` and the browser's hand-off write it.
pub fn write_delivery(
    channel: &Channel,
    delivery: &Delivery,
    set: &Path,
    preview: &crate::context::Preview,
    candidates: &[crate::context::Candidate],
    texts: &crate::context::measured::Texts,
) -> Result<Written, String> {
    let delivered = deliver(
        channel,
        &delivery.placement(set),
        preview,
        candidates,
        texts,
    );
    pieces::write(set, delivery, &delivered.file)
        .map_err(|e| format!("cannot write the session-start delivery: {e}"))?;
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
            } else {
                "kept out of version control by its folder's .gitignore".into()
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
        warnings: delivered.warnings,
    })
}

/// `mcpick install HOST`: the served entry, then (by default) session-start delivery.
pub async fn install(args: InstallArgs) -> Exit {
    let (host, deliver_mode, list, dry_run) = (args.host, args.deliver, args.list, args.dry_run);
    let (scope, name, set) = (args.scope, args.name.clone(), args.set.path.clone());
    // The delivery is planned (and every file it touches checked) before the entry is
    // written: a refusal leaves no half-done install.
    let planned = match (host, list, deliver_mode) {
        (Some(host), false, Deliver::Session) => {
            match super::install::scope_of(host.dialect(), scope) {
                Ok(scope) => {
                    match plan_delivery(host, scope, &Places::system(), &absolute(&set), &name) {
                        Ok(planned) => planned,
                        Err(why) => {
                            report(&why);
                            return Exit::ServerFailed;
                        }
                    }
                }
                Err(_) => None,
            }
        }
        _ => None,
    };
    let exit = super::install::install(args);
    let Some(host) = host else { return exit };
    if host == Host::Gemini && exit == Exit::Ok && !dry_run {
        report(&format!("note: {}", crate::hosts::gemini::TRUST_NOTE));
    }
    if exit != Exit::Ok || list || deliver_mode == Deliver::OnDemand {
        return exit;
    }
    let set_abs = absolute(&set);
    let Some((channel, delivery)) = planned else {
        if Channel::of(host).is_none() {
            report(&no_channel(host));
        }
        return exit;
    };
    if dry_run {
        for line in planned_lines(channel, &delivery) {
            println!("{line}");
        }
        return Exit::Ok;
    }
    let resolved = match resolve(&set).await {
        Ok(r) => r,
        Err(exit) => return exit,
    };
    let cands = resolved.candidates();
    let written = match write_delivery(
        channel,
        &delivery,
        &set_abs,
        &resolved.preview,
        &cands,
        &resolved.texts,
    ) {
        Ok(w) => w,
        Err(why) => {
            report(&why);
            return Exit::ServerFailed;
        }
    };
    for w in &written.warnings {
        report(&format!("warning: {w}"));
    }
    for line in written.lines {
        println!("{line}");
    }
    if resolved.failed.is_empty() {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}

/// `mcpick uninstall HOST`: the entry, then every piece of its delivery.
pub fn uninstall(args: UninstallArgs) -> Exit {
    let (host, scope, name, set, dry_run) = (
        args.host,
        args.scope,
        args.name.clone(),
        args.set.path.clone(),
        args.dry_run,
    );
    let exit = super::install::uninstall(args);
    if exit != Exit::Ok || dry_run {
        return exit;
    }
    let Ok(scope) = super::install::scope_of(host.dialect(), scope) else {
        return exit;
    };
    match pieces::remove(&absolute(&set), host, scope, &name) {
        Ok(None) => exit,
        Ok(Some((delivery, notes))) => {
            for (what, path) in delivery.files() {
                println!("removed the {what} from {}", path.display());
            }
            for note in notes {
                report(&format!("note: {note}"));
            }
            exit
        }
        Err(e) => {
            report(&format!("cannot remove the session-start delivery: {e}"));
            Exit::ServerFailed
        }
    }
}

async fn resolve(set: &Path) -> Result<Resolved, Exit> {
    let loaded = load_set(&SetArgs {
        path: set.to_path_buf(),
    })?;
    resolve_set(&loaded, &ServerArgs::default(), &loaded.policy, 8).await
}

/// Writes every delivery recorded for `set` from `resolved`; what was written, for messages.
pub fn write_all(set: &Path, resolved: &Resolved) -> Vec<String> {
    let set_abs = absolute(set);
    let mut said = Vec::new();
    let record = Record::load(&set_abs);
    say_refused(&record);
    for delivery in record.deliveries {
        let Some(channel) = delivery.host().and_then(Channel::of) else {
            continue;
        };
        let delivered = render(channel, &delivery, &set_abs, resolved);
        match pieces::refresh(&delivery, &set_abs, &delivered.file) {
            Ok(()) => said.push(format!(
                "delivered to {}: {}",
                channel.host.name(),
                summary(channel, &delivered)
            )),
            Err(e) => report(&format!(
                "cannot write {}: {e}",
                sanitize::line(&delivery.file.display().to_string(), 1000)
            )),
        }
    }
    said
}

/// Says which recorded deliveries were not followed, and why.
fn say_refused(record: &Record) {
    for why in &record.refused {
        report(&format!("warning: {}", sanitize::line(why, 2000)));
    }
}

/// After a change of the set: its deliveries written again (nothing when it has none).
pub async fn after_change(set: &Path) -> Exit {
    let record = Record::load(&absolute(set));
    if record.deliveries.is_empty() {
        say_refused(&record);
        return Exit::Ok;
    }
    match resolve(set).await {
        Ok(resolved) => {
            for line in write_all(set, &resolved) {
                report(&line);
            }
            Exit::Ok
        }
        Err(exit) => exit,
    }
}

/// While `serve` runs (the hosts start it at every session): the set's deliveries written 5 s
/// after it is ready, so the servers' contents as they are now reach the next session, and again
/// after the published list or a resource changes (a burst waits; at most every 10 s).
/// Each write lists the servers afresh, as `mcpick deliver` does.
pub async fn keep_fresh(engine: std::sync::Arc<crate::serve::Engine>, set: PathBuf) {
    use tokio::sync::broadcast::error::RecvError;
    if Record::load(&absolute(&set)).deliveries.is_empty() {
        return;
    }
    engine.ready().await;
    // Not while the host is starting its session: the write lists the servers again, which
    // on two cores slowed `claude -p` by a third when done at once (benches/delivery.sh).
    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
    let mut served = engine.served.subscribe();
    let mut updates = engine.updates.subscribe();
    loop {
        let _ = after_change(&set).await;
        tokio::select! {
            changed = served.changed() => if changed.is_err() { return },
            update = updates.recv() => if matches!(update, Err(RecvError::Closed)) { return },
        }
        tokio::time::sleep(std::time::Duration::from_secs(10)).await;
        served.borrow_and_update();
        while updates.try_recv().is_ok() {}
    }
}

/// `mcpick deliver`: the set's deliveries, written again now.
pub async fn run(args: DeliverArgs) -> Exit {
    let set_abs = absolute(&args.set.path);
    let record = Record::load(&set_abs);
    if record.deliveries.is_empty() {
        say_refused(&record);
        report(&format!(
            "{} has no session-start delivery; `mcpick install HOST` sets one up",
            args.set.path.display()
        ));
        return Exit::Usage;
    }
    let loaded = match load_set(&args.set) {
        Ok(s) => s,
        Err(exit) => return exit,
    };
    let resolved = match resolve_set(&loaded, &args.servers, &loaded.policy, args.jobs).await {
        Ok(r) => r,
        Err(exit) => return exit,
    };
    for line in write_all(&args.set.path, &resolved) {
        if !args.servers.quiet {
            println!("{line}");
        }
    }
    if resolved.failed.is_empty() {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}

/// `install --list`: every piece of the set's session-start deliveries.
pub fn list(set: &Path) {
    let record = Record::load(&absolute(set));
    say_refused(&record);
    if record.deliveries.is_empty() {
        return;
    }
    println!(
        "\nsession-start deliveries of {}:",
        sanitize::line(&set.display().to_string(), 1000)
    );
    for d in &record.deliveries {
        let pieces: Vec<String> = d
            .files()
            .iter()
            .map(|(what, path)| {
                let state = if path.exists() { "" } else { " (missing)" };
                format!("{what} {}{state}", path.display())
            })
            .collect();
        println!(
            "{:<15} {:<8} `{}`: {}",
            d.host,
            d.scope,
            sanitize::line(&d.name, 200),
            sanitize::line(&pieces.join("; "), 2000)
        );
    }
}

/// `preview --host HOST`: the delivery as recorded (or as `install` would plan it).
pub fn for_preview(
    host: Host,
    scope: Option<Scope>,
    served_as: &str,
    set: &Path,
    resolved: &Resolved,
) -> Result<(&'static Channel, Delivered), String> {
    let cands = resolved.candidates();
    for_host(
        host,
        scope,
        served_as,
        set,
        &resolved.preview,
        &cands,
        &resolved.texts,
    )
}

/// What `host`'s model receives at session start of a resolved set (`preview` over
/// `candidates`, with `texts`): through the delivery recorded for `host`, `scope` and
/// `served_as` if there is one, else through the one `install` would plan. `preview --host`
/// and the browser's agent view both show this.
pub fn for_host(
    host: Host,
    scope: Option<Scope>,
    served_as: &str,
    set: &Path,
    preview: &crate::context::Preview,
    candidates: &[crate::context::Candidate],
    texts: &crate::export::Texts,
) -> Result<(&'static Channel, Delivered), String> {
    let channel = Channel::of(host).ok_or_else(|| {
        format!(
            "{} has no session-start channel: its model gets the set on demand only (see `mcpick install {}`)",
            host.name(),
            host.name()
        )
    })?;
    let scope = scope.unwrap_or(Scope::Project);
    let set_abs = absolute(set);
    let recorded = Record::load(&set_abs)
        .deliveries
        .into_iter()
        .find(|d| d.host == host.name() && d.scope == scope.name() && d.name == served_as);
    let delivery = match recorded {
        Some(d) => d,
        None => pieces::plan(channel, scope, &Places::system(), &set_abs, served_as)?,
    };
    let placement = delivery.placement(&set_abs);
    Ok((
        channel,
        deliver(channel, &placement, preview, candidates, texts),
    ))
}
