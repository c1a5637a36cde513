//! `mcpick servers`: every defined server, where its definition came from, what it shadowed,
//! and what went wrong. Secrets are never printed: env and header values show their
//! placeholder as written, or a masked value.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Exit, report};
use crate::cli::ServersArgs;
use crate::config::{self, Definition, Format, Places, Scope, SourceState};
use crate::mcp::TransportSpec;
use crate::sanitize;

/// The `--json` document.
#[derive(Debug, Serialize)]
pub struct ServerList {
    /// Every server name, in precedence order of the source that defined it.
    pub servers: Vec<ServerEntry>,
    /// Every place mcpick looked, in precedence order.
    pub sources: Vec<SourceEntry>,
}

#[derive(Debug, Serialize)]
pub struct ServerEntry {
    pub name: String,
    #[serde(flatten)]
    pub definition: DefinitionEntry,
    /// Lower-precedence definitions of the same name, which are not used.
    pub shadowed: Vec<DefinitionEntry>,
}

/// One definition, as written (placeholders unexpanded, secrets masked).
#[derive(Debug, Serialize)]
pub struct DefinitionEntry {
    /// `stdio`, `http` or `sse`; null when the definition's shape is invalid.
    pub transport: Option<&'static str>,
    /// The command line or the URL.
    pub target: Option<String>,
    pub env: BTreeMap<String, String>,
    pub headers: BTreeMap<String, String>,
    pub cwd: Option<PathBuf>,
    /// The file that defined it.
    pub file: PathBuf,
    /// Where in the file: `mcpServers.github`, `projects["/home/me/app"].mcpServers.db`.
    pub field: String,
    pub scope: Scope,
    /// The file's dialect: `mcpick`, `claude-code`, `claude-desktop`, `cursor`, `vscode`, `json`.
    pub format: &'static str,
    /// Why the definition cannot be used (names the file and the field).
    pub error: Option<String>,
    /// An HTTP server's OAuth sign-in: `signed in (expires in 59 min)` or `needs login`;
    /// null when it never asked for one. No token is ever shown.
    pub sign_in: Option<String>,
    /// A stdio server whose program cannot be found: why it cannot start.
    pub missing: Option<String>,
    /// A server from this project's files that waits for `mcpick trust`: why it is held.
    pub held: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct SourceEntry {
    pub file: PathBuf,
    pub scope: Scope,
    pub format: &'static str,
    /// For `~/.claude.json`'s per-project section: the project's path.
    pub project: Option<PathBuf>,
    /// `missing`, `loaded` or `failed`.
    pub state: &'static str,
    pub servers: usize,
    pub error: Option<String>,
}

pub fn run(args: ServersArgs) -> Exit {
    if let Some(file) = &args.config.file
        && !file.is_file()
    {
        report(&format!("--config {}: no such file", file.display()));
        return Exit::Usage;
    }
    let places = Places::system();
    let config = config::load_at(&places, args.config.file.as_deref());
    let list = ServerList::new(&config, &places.project);
    let failed = list.servers.iter().any(|s| s.definition.error.is_some())
        || list.sources.iter().any(|s| s.error.is_some());
    let written = if args.json {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        crate::safe_json::to_writer_pretty(&mut out, &list)
            .and_then(|()| writeln!(out))
            .and_then(|()| out.flush())
    } else {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        print_table(&mut out, &list, &places).and_then(|()| out.flush())
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        report(&format!("cannot write the list: {e}"));
        return Exit::ServerFailed;
    }
    if failed { Exit::ServerFailed } else { Exit::Ok }
}

impl ServerList {
    /// The list of `config`'s servers; `project` is the working directory, whose files'
    /// servers wait for the person's approval ([`config::trust`]).
    pub fn new(config: &config::Config, project: &Path) -> Self {
        let approvals = config::trust::Store::system().and_then(|store| store.load().ok());
        let held = |definition: &Definition| {
            let spec = definition.spec.as_ref().ok()?;
            if definition.scope != Scope::Project {
                return None;
            }
            let verdict = approvals
                .as_ref()
                .map_or(config::trust::Verdict::NotApproved, |a| {
                    a.check(project, &spec.transport)
                });
            let why = verdict.why_held(&sanitize::line(&spec.name, 200))?;
            Some(format!(
                "{why}: it is not started until you approve it (`{}`)",
                config::trust::HOW_TO_APPROVE
            ))
        };
        let entry = |definition: &Definition| DefinitionEntry {
            held: held(definition),
            ..DefinitionEntry::new(definition)
        };
        ServerList {
            servers: config
                .servers
                .iter()
                .map(|known| ServerEntry {
                    name: known.name().to_string(),
                    definition: entry(&known.definition),
                    shadowed: known.shadowed.iter().map(DefinitionEntry::new).collect(),
                })
                .collect(),
            sources: config
                .sources
                .iter()
                .map(|report| {
                    let (state, servers, error) = match &report.state {
                        SourceState::Missing => ("missing", 0, None),
                        SourceState::Loaded { servers } => ("loaded", *servers, None),
                        SourceState::Failed(e) => ("failed", 0, Some(e.clone())),
                    };
                    SourceEntry {
                        file: report.source.path.clone(),
                        scope: report.source.scope,
                        format: report.source.format.name(),
                        project: match &report.source.format {
                            Format::ClaudeCodeUser { project } => project.clone(),
                            _ => None,
                        },
                        state,
                        servers,
                        error,
                    }
                })
                .collect(),
        }
    }
}

impl DefinitionEntry {
    fn new(definition: &Definition) -> Self {
        let (env, headers, cwd) = match &definition.shown {
            Some(TransportSpec::Stdio { env, cwd, .. }) => {
                (env.clone(), BTreeMap::new(), cwd.clone())
            }
            Some(TransportSpec::Http { headers, .. } | TransportSpec::Sse { headers, .. }) => {
                (BTreeMap::new(), headers.clone(), None)
            }
            None => Default::default(),
        };
        DefinitionEntry {
            transport: definition.shown.as_ref().map(TransportSpec::kind),
            target: definition.shown.as_ref().map(target),
            env,
            headers,
            cwd,
            file: definition.path.clone(),
            field: definition.field.clone(),
            scope: definition.scope,
            format: definition.format.name(),
            error: definition.error().map(str::to_string),
            sign_in: definition.spec.as_ref().ok().and_then(sign_in),
            missing: definition
                .spec
                .as_ref()
                .ok()
                .and_then(|spec| spec.transport.missing_program()),
            held: None,
        }
    }
}

/// The sign-in state of an HTTP server, in words (see [`crate::mcp::oauth::SignIn`]).
fn sign_in(spec: &crate::mcp::ServerSpec) -> Option<String> {
    use crate::mcp::oauth::{SignIn, TokenStore};
    let TransportSpec::Http { url, .. } = &spec.transport else {
        return None;
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    Some(match TokenStore::for_url(url)?.sign_in()? {
        SignIn::NeedsLogin => "needs login".into(),
        SignIn::SignedIn { expires: None, .. } => "signed in".into(),
        SignIn::SignedIn {
            expires: Some(at),
            refreshable,
        } if at <= now => {
            if refreshable {
                "signed in (token expired; refreshed on next use)".into()
            } else {
                "signed in (token expired; run `mcpick login` again)".into()
            }
        }
        SignIn::SignedIn {
            expires: Some(at), ..
        } => format!(
            "signed in (expires in {})",
            crate::units::duration_words(at - now)
        ),
    })
}

/// The command line (arguments with spaces quoted) or the URL.
fn target(transport: &TransportSpec) -> String {
    match transport {
        TransportSpec::Stdio { command, args, .. } => std::iter::once(command)
            .chain(args)
            .map(|a| {
                if a.is_empty() || a.contains(char::is_whitespace) {
                    format!("'{a}'")
                } else {
                    a.clone()
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
        TransportSpec::Http { url, .. } | TransportSpec::Sse { url, .. } => url.clone(),
    }
}

/// `~/…` under the home directory, `./…` under the working directory.
fn short_path(path: &Path, places: &Places) -> String {
    if let Ok(rest) = path.strip_prefix(&places.project) {
        return format!("./{}", rest.display());
    }
    if let Some(home) = &places.home
        && let Ok(rest) = path.strip_prefix(home)
    {
        return format!("~/{}", rest.display());
    }
    path.display().to_string()
}

fn print_table(out: &mut impl Write, list: &ServerList, places: &Places) -> std::io::Result<()> {
    unparsed_first(out, list)?;
    let origin = |d: &DefinitionEntry| {
        format!(
            "{}  {}",
            sanitize::line(&short_path(&d.file, places), 300),
            sanitize::line(&d.field, 300)
        )
    };
    if list.servers.is_empty() {
        writeln!(
            out,
            "No servers are defined; `mcpick ls` uses the built-in demo server. mcpick looks in:"
        )?;
        let mut listed: Vec<&Path> = Vec::new();
        for source in &list.sources {
            // `~/.claude.json` is one file for two sources (its project section, its top
            // level): one line.
            if listed.contains(&source.file.as_path()) {
                continue;
            }
            listed.push(&source.file);
            writeln!(
                out,
                "  {}  ({}, {})",
                short_path(&source.file, places),
                source.format,
                scope_name(source.scope)
            )?;
        }
    } else {
        let rows: Vec<[String; 4]> = list
            .servers
            .iter()
            .map(|s| {
                [
                    sanitize::line(&s.name, 60),
                    s.definition.transport.unwrap_or("-").to_string(),
                    sanitize::line(s.definition.target.as_deref().unwrap_or("-"), 80),
                    origin(&s.definition),
                ]
            })
            .collect();
        let header = ["NAME", "TRANSPORT", "TARGET", "DEFINED IN"].map(String::from);
        let mut widths = header.clone().map(|h| h.chars().count());
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let line = |row: &[String; 4]| {
            let mut line = String::new();
            for (i, (cell, width)) in row.iter().zip(&widths).enumerate() {
                line.push_str(cell);
                if i + 1 < row.len() {
                    line.extend(std::iter::repeat_n(' ', width - cell.chars().count() + 2));
                }
            }
            line.trim_end().to_string()
        };
        writeln!(out, "{}", line(&header))?;
        for (server, row) in list.servers.iter().zip(&rows) {
            writeln!(out, "{}", line(row))?;
            let d = &server.definition;
            for (what, map) in [("env", &d.env), ("headers", &d.headers)] {
                if !map.is_empty() {
                    let pairs: Vec<String> = map.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    writeln!(out, "    {what}: {}", sanitize::line(&pairs.join(" "), 300))?;
                }
            }
            if let Some(sign_in) = &d.sign_in {
                writeln!(out, "    sign-in: {sign_in}")?;
            }
            if let Some(error) = &d.error {
                writeln!(out, "    error: {}", sanitize::line(error, 1000))?;
            }
            if let Some(held) = &d.held {
                writeln!(out, "    waits: {}", sanitize::line(held, 500))?;
            }
            if let Some(missing) = &d.missing {
                writeln!(out, "    not found: {}", sanitize::line(missing, 500))?;
            }
            for shadowed in &server.shadowed {
                writeln!(out, "    shadows: {}", origin(shadowed))?;
            }
        }
    }
    let found: Vec<&SourceEntry> = list
        .sources
        .iter()
        .filter(|s| s.state != "missing")
        .collect();
    if !found.is_empty() {
        writeln!(out)?;
        writeln!(out, "Files read (highest precedence first):")?;
        // One line per file: `~/.claude.json` is read for two sources (this project's
        // section and the top level), said in one line with its parts.
        let mut files: Vec<(&Path, Vec<&SourceEntry>)> = Vec::new();
        for source in found {
            match files.iter_mut().find(|(f, _)| *f == source.file.as_path()) {
                Some((_, parts)) => parts.push(source),
                None => files.push((&source.file, vec![source])),
            }
        }
        for (file, parts) in files {
            let first = parts[0];
            let servers = |n: usize| crate::units::count(n as u64, "server", "servers");
            let what = match parts.iter().find_map(|p| p.error.as_ref()) {
                Some(error) => format!("error: {error}"),
                None if parts.len() == 1 => servers(first.servers),
                None => {
                    let each: Vec<String> = parts
                        .iter()
                        .map(|p| match &p.project {
                            Some(project) => {
                                format!("{} in projects[{}]", p.servers, project.display())
                            }
                            None => format!("{} at the top level", p.servers),
                        })
                        .collect();
                    let total = parts.iter().map(|p| p.servers).sum();
                    format!("{} ({})", servers(total), each.join(", "))
                }
            };
            writeln!(
                out,
                "  {}  ({}, {}): {}",
                sanitize::line(&short_path(file, places), 300),
                first.format,
                scope_name(first.scope),
                sanitize::line(&what, 1000)
            )?;
        }
    }
    Ok(())
}

/// Files that could not be read or parsed, said before the table: without them the table
/// lacks servers (or says none are defined) and the reason would come last, after it.
fn unparsed_first(out: &mut impl Write, list: &ServerList) -> std::io::Result<()> {
    let mut errors: Vec<&str> = Vec::new();
    for error in list.sources.iter().filter_map(|s| s.error.as_deref()) {
        if !errors.contains(&error) {
            errors.push(error);
        }
    }
    if errors.is_empty() {
        return Ok(());
    }
    let files = crate::units::count(errors.len() as u64, "config file", "config files");
    writeln!(
        out,
        "warning: {files} could not be read; servers defined there are not listed:"
    )?;
    for error in errors {
        writeln!(out, "  {}", sanitize::line(error, 1000))?;
    }
    writeln!(out)
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Explicit => "--config",
        Scope::Project => "project",
        Scope::User => "user",
        Scope::Host => "host",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unparsable_files_are_said_before_the_table() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::write(project.join("mcpick.toml"), "[servers.a\ncommand = \"x\"\n").unwrap();
        std::fs::write(
            project.join(".mcp.json"),
            r#"{"mcpServers": {"b": {"command": "y"}}}"#,
        )
        .unwrap();
        let places = Places::linux_like(&project, dir.path().join("home"));
        let config = config::load_at(&places, None);
        let mut out = Vec::new();
        print_table(&mut out, &ServerList::new(&config, &project), &places).unwrap();
        let out = String::from_utf8(out).unwrap();
        let mut lines = out.lines();
        assert_eq!(
            lines.next(),
            Some("warning: 1 config file could not be read; servers defined there are not listed:"),
            "{out}"
        );
        let error = lines.next().unwrap();
        let toml = project.join("mcpick.toml");
        assert!(
            error.starts_with(&format!("  {}:1:", toml.display())),
            "{out}"
        );
        assert!(
            out.find("NAME").unwrap() > out.find(error).unwrap(),
            "{out}"
        );
    }
}
