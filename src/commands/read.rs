//! `mcpick read URI`: one resource's contents, from the first server that has it.

use std::io::{IsTerminal, Write};

use base64::Engine;
use rmcp::model::ResourceContents;

use super::{Exit, close_all, connect_all, report, take_selection};
use crate::cli::ReadArgs;
use crate::config::select::select_servers;
use crate::mcp::ReadOutcome;
use crate::sanitize;

pub async fn run(args: ReadArgs) -> Exit {
    let specs = match take_selection(select_servers(&args.servers.choice())) {
        Ok(specs) => specs,
        Err(exit) => return exit,
    };
    let sessions = connect_all(specs, &args.servers.connect_options()).await;
    let uri = sanitize::line(&args.uri, 500);

    // Ask each server in turn; the first that has the resource answers.
    let mut failures = Vec::new();
    let mut not_found = Vec::new();
    let mut answer = None;
    for session in &sessions {
        let name = sanitize::line(&session.spec.name, 200);
        let connection = match &session.connection {
            Ok(c) => c,
            Err(e) => {
                failures.push(session.say(e));
                continue;
            }
        };
        match connection
            .read(&args.uri)
            .await
            .map(|r| (r.outcome, r.warnings))
        {
            Ok((outcome, warnings)) if !warnings.is_empty() => {
                // A malformed contents item cost that item only; say which.
                for warning in warnings.kept() {
                    report(&format!("warning: server `{name}`: {warning}"));
                }
                if warnings.omitted() > 0 {
                    report(&format!(
                        "warning: server `{name}`: {} more malformed contents items",
                        warnings.omitted()
                    ));
                }
                answer = Some((name, outcome));
                break;
            }
            Ok((ReadOutcome::NotFound(nf), _)) => {
                let code = if nf.code != 0 {
                    format!("error {}: ", nf.code)
                } else {
                    String::new()
                };
                not_found.push(format!("server `{name}` ({code}{})", nf.message));
            }
            Ok((outcome, _)) => {
                answer = Some((name, outcome));
                break;
            }
            Err(e) => failures.push(session.say(&connection.explain(&e))),
        }
    }
    close_all(sessions).await;

    match answer {
        Some((name, ReadOutcome::Empty)) => {
            if args.json {
                crate::outln!("[]");
            }
            report(&format!(
                "`{uri}` on server `{name}` is empty (the server returned no contents)"
            ));
            Exit::Ok
        }
        Some((_, ReadOutcome::Contents(contents))) => match print_contents(&contents, args.json) {
            Ok(()) => Exit::Ok,
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Exit::Ok,
            Err(e) => {
                report(&format!("cannot write the contents: {e}"));
                Exit::ServerFailed
            }
        },
        Some((_, ReadOutcome::NotFound(_))) => unreachable!("not-found answers are collected"),
        None => {
            for failure in &failures {
                super::report(failure);
            }
            if failures.is_empty() {
                report(&format!("`{uri}` not found: {}", not_found.join("; ")));
                Exit::NotFound
            } else {
                if !not_found.is_empty() {
                    report(&format!("`{uri}` not found on {}", not_found.join("; ")));
                }
                Exit::ServerFailed
            }
        }
    }
}

enum Body<'a> {
    Text(&'a str),
    Blob(&'a str),
}

/// Text as text; blobs as raw bytes into a pipe or file, as a summary on a terminal. Text to
/// a terminal is cleaned of escape sequences; into a pipe it is passed on unchanged.
fn print_contents(contents: &[ResourceContents], json: bool) -> std::io::Result<()> {
    let stdout = std::io::stdout();
    let terminal = stdout.is_terminal();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if json {
        crate::safe_json::to_writer_pretty(&mut out, contents)?;
        writeln!(out)?;
        return out.flush();
    }
    let several = contents.len() > 1;
    for (i, item) in contents.iter().enumerate() {
        let (uri, mime, body) = match item {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => (uri, mime_type, Body::Text(text)),
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => (uri, mime_type, Body::Blob(blob)),
            _ => continue,
        };
        if several {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(out, "==> {} <==", sanitize::line(uri, 500))?;
        }
        match body {
            Body::Text(text) if terminal => {
                out.write_all(sanitize::text(text).as_bytes())?;
                if !text.ends_with('\n') {
                    writeln!(out)?;
                }
            }
            Body::Text(text) => out.write_all(text.as_bytes())?,
            Body::Blob(blob) => {
                let mime =
                    sanitize::line(mime.as_deref().unwrap_or("application/octet-stream"), 100);
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(blob.trim())
                    .map_err(|e| {
                        std::io::Error::other(format!(
                            "the server sent a {mime} blob that is not valid base64: {e}"
                        ))
                    })?;
                if terminal {
                    writeln!(
                        out,
                        "[binary {mime}, {}; redirect stdout to a file to save it]",
                        crate::units::human_size(bytes.len() as u64)
                    )?;
                } else {
                    out.write_all(&bytes)?;
                }
            }
        }
    }
    out.flush()
}
