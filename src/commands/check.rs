//! `mcpick check`: every rule of [`crate::check`] against each server, as a table or JSON.
//! Each server is connected twice (the second connection is for `stable.connections`).

use std::io::Write;

use futures::future::join_all;
use serde::Serialize;

use super::{Exit, close_all, connect_all, report, take_selection};
use crate::check::credentials::{self, CredentialView};
use crate::check::{Finding, Level, RULES, Target, Verdict, audit};
use crate::cli::CheckArgs;
use crate::config::select::select_servers;
use crate::sanitize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ServerDoc {
    name: String,
    transport: Option<&'static str>,
    protocol_version: Option<String>,
    /// Why the server could not be checked.
    error: Option<String>,
    findings: Vec<Finding>,
    /// `--as`: the catalogue under each credential (HTTP servers only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    credentials: Vec<CredentialView>,
}

#[derive(Serialize)]
struct Doc {
    servers: Vec<ServerDoc>,
    failed: bool,
    /// Every rule with its level in each era and the specification's words.
    rules: Vec<RuleDoc>,
}

#[derive(Serialize)]
struct RuleDoc {
    id: &'static str,
    /// By era: `2026-07-28` and `legacy`.
    levels: Levels,
    specification: &'static str,
}

#[derive(Serialize)]
struct Levels {
    #[serde(rename = "2026-07-28")]
    modern: Level,
    legacy: Level,
}

pub async fn run(args: CheckArgs) -> Exit {
    let specs = match take_selection(select_servers(&args.servers.choice())) {
        Ok(specs) => specs,
        Err(exit) => return exit,
    };
    let options = args.servers.connect_options();
    let (sessions, seconds) = futures::join!(
        connect_all(specs.clone(), &options),
        connect_all(specs, &options)
    );
    let progress =
        crate::progress::Servers::new("checking", sessions.iter().map(|s| s.spec.name.clone()));
    let docs = join_all(sessions.iter().zip(&seconds).enumerate().map(
        |(index, (session, second))| {
            let progress = &progress;
            let sample = args.sample;
            let options = &options;
            let as_credentials = &args.credentials;
            async move {
                let name = sanitize::line(&session.spec.name, 200);
                let conn = match &session.connection {
                    Ok(conn) => conn,
                    Err(e) => {
                        return ServerDoc {
                            name,
                            transport: None,
                            protocol_version: None,
                            error: Some(session.say(e)),
                            findings: Vec::new(),
                            credentials: Vec::new(),
                        };
                    }
                };
                let second = second.connection.as_ref().map_err(|e| second.say(e));
                let step = |what: String| progress.set(index, what);
                let findings = audit(Target {
                    first: conn,
                    second,
                    sample,
                    step: &step,
                })
                .await;
                progress.set(index, "done");
                let mut per_credential = Vec::new();
                if !as_credentials.is_empty() {
                    let base = conn.list_uris().await.unwrap_or_default();
                    for header in as_credentials {
                        per_credential.extend(
                            credentials::compare(&session.spec, options, &base, header).await,
                        );
                    }
                }
                ServerDoc {
                    name,
                    transport: Some(conn.transport()),
                    protocol_version: Some(conn.summary().protocol_version),
                    error: None,
                    findings,
                    credentials: per_credential,
                }
            }
        },
    ))
    .await;
    drop(progress);
    close_all(sessions).await;
    close_all(seconds).await;
    let failed = docs
        .iter()
        .any(|d| d.error.is_some() || d.findings.iter().any(|f| f.verdict == Verdict::Fail));
    let written = if args.json {
        let doc = Doc {
            servers: docs,
            failed,
            rules: RULES
                .iter()
                .map(|r| RuleDoc {
                    id: r.id,
                    levels: Levels {
                        modern: r.modern,
                        legacy: r.legacy,
                    },
                    specification: r.words,
                })
                .collect(),
        };
        let mut out = std::io::stdout().lock();
        crate::safe_json::to_writer_pretty(&mut out, &doc).and_then(|()| writeln!(out))
    } else {
        print_table(&docs)
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        report(&format!("cannot write the report: {e}"));
    }
    if failed { Exit::ServerFailed } else { Exit::Ok }
}

fn print_table(docs: &[ServerDoc]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    for doc in docs {
        match &doc.error {
            Some(error) => {
                writeln!(out, "{}  not checked: {}", doc.name, sanitize::text(error))?;
                continue;
            }
            None => writeln!(
                out,
                "{}  ({} · {})",
                doc.name,
                doc.transport.unwrap_or("?"),
                sanitize::line(doc.protocol_version.as_deref().unwrap_or("?"), 40)
            )?,
        }
        let width = doc.findings.iter().map(|f| f.rule.len()).max().unwrap_or(0);
        for f in &doc.findings {
            let detail = match &f.verdict {
                Verdict::Skipped(why) => vec![sanitize::line(why, 400)],
                _ => f.evidence.clone(),
            };
            let mut lines = detail.iter();
            writeln!(
                out,
                "  {:width$}  {:6}  {:7}  {}",
                f.rule,
                f.level.name(),
                f.verdict.name(),
                lines.next().map_or("", String::as_str)
            )?;
            for line in lines {
                writeln!(out, "  {:width$}  {:6}  {:7}  {line}", "", "", "")?;
            }
        }
        let count = |v: &str| {
            doc.findings
                .iter()
                .filter(|f| f.verdict.name() == v)
                .count()
        };
        writeln!(
            out,
            "  {} pass · {} warn · {} fail · {} skipped",
            count("pass"),
            count("warn"),
            count("fail"),
            count("skipped")
        )?;
        for (n, c) in doc.credentials.iter().enumerate() {
            print_credential(&mut out, n + 1, c)?;
        }
    }
    out.flush()
}

/// One `--as` credential's listing against the one without it.
fn print_credential(out: &mut impl Write, n: usize, c: &CredentialView) -> std::io::Result<()> {
    if let Some(error) = &c.error {
        return writeln!(out, "  as #{n} {}: not listed: {error}", c.credential);
    }
    writeln!(
        out,
        "  as #{n} {}: {} resources, {} listed only with it, {} only without it",
        c.credential,
        crate::units::thousands(c.count as u64),
        crate::units::thousands(c.only_here_count as u64),
        crate::units::thousands(c.missing_here_count as u64)
    )?;
    for (sign, uris, total) in [
        ("+", &c.only_here, c.only_here_count),
        ("-", &c.missing_here, c.missing_here_count),
    ] {
        for uri in uris {
            writeln!(out, "    {sign} {uri}")?;
        }
        if total > uris.len() {
            writeln!(out, "    {sign} … and {} more", total - uris.len())?;
        }
    }
    Ok(())
}
