//! `mcpick export`: the bundle the agent would be handed (what `preview` includes, with the
//! contents, in order, under the budget) without the diagnostics; to stdout, a file, the
//! clipboard (OSC 52), or as `@server:uri` mentions.

use std::io::{IsTerminal, Write};

use super::context::{load_set_to_hand_on, resolve_set};
use super::{Exit, report, usage_error};
use crate::cli::ExportArgs;
use crate::export::{bundle, clipboard};

pub async fn run(args: ExportArgs) -> Exit {
    // Refuse before connecting: escape sequences must not go into a pipe or a file.
    if args.clipboard && !std::io::stdout().is_terminal() {
        return usage_error(
            "--clipboard writes an escape sequence (OSC 52) for the terminal, and stdout is not a terminal; use -o FILE or a pipe instead",
        );
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
        false,
    )
    .await
    {
        Ok(resolved) => resolved,
        Err(exit) => return exit,
    };
    let cands = resolved.candidates();
    let (preview, texts, failed) = (&resolved.preview, &resolved.texts, &resolved.failed);

    let text = if args.mentions {
        // The URIs as `serve` publishes the same set (a URI two servers share is aliased).
        let items = preview
            .included
            .iter()
            .map(|i| (cands[i.index].server, cands[i.index].uri()));
        let published: std::collections::HashMap<(&str, &str), String> = items
            .clone()
            .zip(crate::serve::exposed::published_uris(items))
            .collect();
        let (lines, skipped) = bundle::mentions(preview, &cands, &args.served_as, |server, uri| {
            published
                .get(&(server, uri))
                .cloned()
                .unwrap_or_else(|| uri.to_string())
        });
        for why in skipped {
            report(&format!("not mentioned: {why}"));
        }
        lines
    } else {
        bundle::bundle(args.format, preview, &cands, texts)
    };
    let what = format!(
        "{} resource{}, {} tokens, {} bytes",
        crate::units::thousands(preview.included.len() as u64),
        if preview.included.len() == 1 { "" } else { "s" },
        crate::units::thousands(preview.total_tokens),
        crate::units::thousands(text.len() as u64)
    );
    let written = if args.clipboard {
        let mut out = std::io::stdout().lock();
        out.write_all(clipboard::osc52(&text).as_bytes())
            .and_then(|_| out.flush())
            .map(|_| {
                report(&format!("copied to the clipboard: {what}"));
                let tmux = std::env::var("TMUX").ok();
                if let Some(note) = clipboard::tmux_note(tmux.as_deref()) {
                    report(&format!("note: {note}"));
                }
            })
    } else if let Some(path) = &args.output {
        crate::fsio::write_atomic(path, text.as_bytes())
            .map(|_| report(&format!("wrote {}: {what}", path.display())))
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|_| out.flush())
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        report(&format!("cannot write the bundle: {e}"));
        return Exit::ServerFailed;
    }
    if failed.is_empty() {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}
