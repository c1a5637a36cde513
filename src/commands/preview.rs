//! `mcpick preview`: exactly what the TUI's agent view shows, with the contents. It lists
//! the servers, resolves with size estimates, reads what would be included (and the first
//! resource below the cut line), counts their tokens, and resolves again until nothing
//! unread is left above the line.

use std::collections::HashMap;
use std::io::Write;

use super::context::{choose, list_set, load_set};
use super::{Exit, close_all, connect_all};
use crate::cli::{Budget, PreviewArgs};
use crate::context::measured::resolve_measured;
use crate::context::{Input, Measures, candidates, expansion};
use crate::export;
use crate::sanitize;

pub async fn run(args: PreviewArgs) -> Exit {
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

    for m in &preview.missing {
        eprintln!(
            "mcpick: note: {} mark on {}  {} matches no listed resource (kept in the set)",
            m.mark.name(),
            sanitize::line(&m.target.server, 200),
            sanitize::line(&m.target.pattern.to_string(), 500)
        );
    }
    for u in &preview.unavailable {
        eprintln!(
            "mcpick: warning: {} mark on {}  {} left out: server unavailable",
            u.mark.name(),
            sanitize::line(&u.target.server, 200),
            sanitize::line(&u.target.pattern.to_string(), 500)
        );
    }
    if preview.pins_over_budget {
        eprintln!(
            "mcpick: warning: pinned resources alone need {} tokens, over the budget of {}",
            preview.total_tokens,
            preview.budget.unwrap_or(0)
        );
    }
    let rendered = export::render(args.format, &preview, &cands, &texts);
    let written = match &args.output {
        Some(path) => crate::context::file::write_atomic(path, rendered.as_bytes()),
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(rendered.as_bytes()).and_then(|_| out.flush())
        }
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("mcpick: cannot write the preview: {e}");
        return Exit::ServerFailed;
    }
    if failed.is_empty() {
        Exit::Ok
    } else {
        Exit::ServerFailed
    }
}
