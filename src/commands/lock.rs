//! `mcpick lock` and `mcpick diff`: resolve the set exactly as `mcpick preview` does
//! ([`super::context::resolve_set`]), then record the result ([`Lock`]) or compare it with the recorded
//! one ([`drift`]).

use std::path::Path;

use serde::Serialize;

use super::context::{load_set_to_hand_on, resolve_set};
use super::{Exit, report};
use crate::cli::{DiffArgs, LockArgs, ServerArgs, SetArgs};
use crate::context::ContextSet;
use crate::context::lock::{Change, Lock, drift, lock_path};
use crate::sanitize;

/// What the agent would be handed now, as a lock. Fails (status 1) when a server cannot be
/// listed: its resources would look removed.
async fn resolve_now(set_args: &SetArgs, servers: &ServerArgs, jobs: usize) -> Result<Lock, Exit> {
    let set = load_set_to_hand_on(set_args, servers)?;
    resolve_loaded(&set, &set_args.path, servers, jobs).await
}

/// [`resolve_now`] of a set already loaded.
async fn resolve_loaded(
    set: &ContextSet,
    path: &std::path::Path,
    servers: &ServerArgs,
    jobs: usize,
) -> Result<Lock, Exit> {
    let own = super::context::own_of(path);
    let resolved = resolve_set(set, own, servers, &set.policy, jobs, false).await?;
    let lock = Lock::from_preview(&resolved.preview, &resolved.candidates(), &resolved.texts);
    let failed = resolved.failed;
    if failed.is_empty() {
        Ok(lock)
    } else {
        Err(Exit::ServerFailed)
    }
}

/// `mcpick lock`.
pub async fn lock(args: LockArgs) -> Exit {
    let lock = match resolve_now(&args.set, &args.servers, args.jobs).await {
        Ok(lock) => lock,
        Err(exit) => {
            if exit == Exit::ServerFailed {
                report("nothing written: a server could not be listed");
            }
            return exit;
        }
    };
    let path = lock_path(&args.set.path);
    let text = match crate::safe_json::to_string_pretty(&lock) {
        Ok(text) => text + "\n",
        Err(e) => {
            report(&format!("cannot encode the lock: {e}"));
            return Exit::ServerFailed;
        }
    };
    if let Err(e) = crate::fsio::write_atomic(&path, text.as_bytes()) {
        report(&format!("cannot write {}: {e}", path.display()));
        return Exit::ServerFailed;
    }
    report(&format!(
        "locked {} resources ({} tokens) in {}",
        crate::units::thousands(lock.included.len() as u64),
        crate::units::thousands(lock.total_tokens),
        sanitize::line(&path.display().to_string(), 500)
    ));
    Exit::Ok
}

fn read_lock(path: &Path) -> Result<Lock, String> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            "no lock file (write one with `mcpick lock`)".to_string()
        } else {
            e.to_string()
        }
    })?;
    Lock::parse(&text)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DiffDoc<'a> {
    lock: String,
    drift: bool,
    total_tokens_before: u64,
    total_tokens_now: u64,
    changes: &'a [Change],
}

/// `mcpick diff`: 0 no drift, 1 drift, 2 no usable lock or a server that could not be listed.
pub async fn diff(args: DiffArgs) -> Exit {
    // The set first: without it there is nothing to compare (its lock may still be there).
    let set = match load_set_to_hand_on(&args.set, &args.servers) {
        Ok(set) => set,
        Err(exit) => return exit,
    };
    let path = args
        .lock
        .clone()
        .unwrap_or_else(|| lock_path(&args.set.path));
    let shown = sanitize::line(&path.display().to_string(), 500);
    let before = match read_lock(&path) {
        Ok(lock) => lock,
        Err(e) => {
            report(&format!("{shown}: {e}"));
            return Exit::Usage;
        }
    };
    let now = match resolve_loaded(&set, &args.set.path, &args.servers, args.jobs).await {
        Ok(lock) => lock,
        Err(Exit::ServerFailed) => {
            report("cannot tell drift: a server could not be listed");
            return Exit::Usage;
        }
        Err(_) => return Exit::Usage,
    };
    let changes = drift(&before, &now);
    if args.json {
        let doc = DiffDoc {
            lock: path.display().to_string(),
            drift: !changes.is_empty(),
            total_tokens_before: before.total_tokens,
            total_tokens_now: now.total_tokens,
            changes: &changes,
        };
        let mut out = std::io::stdout().lock();
        if let Err(e) = crate::safe_json::to_writer_pretty(&mut out, &doc) {
            report(&format!("cannot write the diff: {e}"));
            return Exit::Usage;
        }
        use std::io::Write;
        let _ = writeln!(out);
    } else if changes.is_empty() {
        crate::outln!(
            "no drift: the agent is handed what {shown} records ({} resources, {} tokens)",
            crate::units::thousands(now.included.len() as u64),
            crate::units::thousands(now.total_tokens)
        );
    } else {
        crate::outln!(
            "drift since {shown}: {} change{} ({} → {} tokens)",
            changes.len(),
            if changes.len() == 1 { "" } else { "s" },
            crate::units::thousands(before.total_tokens),
            crate::units::thousands(now.total_tokens)
        );
        for change in &changes {
            crate::outln!("  {}", sanitize::line(&change.describe(), 2000));
        }
    }
    if changes.is_empty() {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}
