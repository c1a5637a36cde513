//! `mcpick export`: the bundle the agent would be handed (what `preview` includes, with the
//! contents, in order, under the budget) without the diagnostics; to stdout, a file, the
//! clipboard (OSC 52), or as `@server:uri` mentions.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};

use super::context::{choose, list_set, load_set};
use super::{Exit, close_all, connect_all, usage_error};
use crate::cli::{Budget, ExportArgs};
use crate::context::measured::resolve_measured;
use crate::context::{Input, Measures, candidates, expansion};
use crate::export::{bundle, clipboard};

pub async fn run(args: ExportArgs) -> Exit {
    // Refuse before connecting: escape sequences must not go into a pipe or a file.
    if args.clipboard && !std::io::stdout().is_terminal() {
        return usage_error(
            "--clipboard writes an escape sequence (OSC 52) for the terminal, and stdout is not a terminal; use -o FILE or a pipe instead",
        );
    }
    let set = match load_set(&args.set) {
        Ok(set) => set,
        Err(exit) => return exit,
    };
    let mut policy = set.policy;
    if let Some(Budget(b)) = args.budget {
        policy.budget = b;
    }
    if let Some(a) = args.audience {
        policy.audience = a;
    }
    if let Some(m) = args.min_priority {
        policy.min_priority = Some(m);
    }
    if let Some(t) = args.tokenizer {
        policy.tokenizer = t;
    }
    let chosen = match choose(&args.servers, &set) {
        Ok(chosen) => chosen,
        Err(exit) => return exit,
    };
    let options = args.servers.connect_options();
    let sessions = connect_all(chosen.into_iter().map(|c| c.selected).collect(), &options).await;
    let (catalogue, complete, failed, expansions) = list_set(&sessions, &set.marks).await;
    let mut cands = candidates(&catalogue);
    expansion::tag(&mut cands, &expansions);
    let listed: Vec<&str> = complete.iter().map(String::as_str).collect();
    let unavailable: Vec<(&str, &str)> = failed
        .iter()
        .map(|(server, error)| (server.as_str(), error.as_str()))
        .collect();
    let connections: HashMap<&str, &crate::mcp::Connection> = sessions
        .iter()
        .filter_map(|s| Some((s.spec.name.as_str(), s.connection.as_ref().ok()?)))
        .collect();
    let base = Input {
        candidates: &cands,
        listed: &listed,
        unavailable: &unavailable,
        marks: &set.marks,
        policy: &policy,
        measures: &Measures::new(),
    };
    let mut measures = Measures::new();
    let (preview, texts) = resolve_measured(&base, &mut measures, args.jobs, |index| {
        let c = cands[index];
        let connection = connections.get(c.server).copied();
        async move {
            match connection {
                Some(conn) => conn.read(c.uri).await.map_err(|e| e.to_string()),
                None => Err("the server is not connected".to_string()),
            }
        }
    })
    .await;
    drop(connections);
    close_all(sessions).await;

    let text = if args.mentions {
        bundle::mentions(&preview, &cands)
    } else {
        bundle::bundle(args.format, &preview, &cands, &texts)
    };
    let what = format!(
        "{} resource{}, {} tokens, {} bytes",
        preview.included.len(),
        if preview.included.len() == 1 { "" } else { "s" },
        preview.total_tokens,
        text.len()
    );
    let written = if args.clipboard {
        let mut out = std::io::stdout().lock();
        out.write_all(clipboard::osc52(&text).as_bytes())
            .and_then(|_| out.flush())
            .map(|_| {
                eprintln!("mcpick: copied to the clipboard: {what}");
                let tmux = std::env::var("TMUX").ok();
                if let Some(note) = clipboard::tmux_note(tmux.as_deref()) {
                    eprintln!("mcpick: note: {note}");
                }
            })
    } else if let Some(path) = &args.output {
        crate::context::file::write_atomic(path, text.as_bytes())
            .map(|_| eprintln!("mcpick: wrote {}: {what}", path.display()))
    } else {
        let mut out = std::io::stdout().lock();
        out.write_all(text.as_bytes()).and_then(|_| out.flush())
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("mcpick: cannot write the bundle: {e}");
        return Exit::ServerFailed;
    }
    if failed.is_empty() {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}
