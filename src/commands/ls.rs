//! `mcpick ls`: every resource (and template) of every selected server, as a table or JSON.

use std::cell::RefCell;
use std::io::Write;

use serde::Serialize;

use super::ls_json::{JsonOut, Sink};
use super::{Exit, Session, close_all, report, take_selection};
use crate::catalog::{
    Catalogue, ItemId, ResourceEntry, Search, ServerId, SortKey, TemplateEntry, UriTree, order,
};
use crate::cli::LsArgs;
use crate::config::select::select_servers;
use crate::mcp::supervisor::Event;
use crate::mcp::{ListOptions, ServerSummary, Warning, Warnings};
use crate::sanitize;
use crate::units::human_size;

/// The `--json` document, in the order it is written: the resources stream out as pages
/// arrive ([`super::ls_json`]); the templates and the servers' reports, known only when
/// every listing has ended, follow.
#[derive(Debug, Clone, Serialize)]
pub struct Listing {
    pub resources: Vec<ResourceEntry>,
    pub templates: Vec<TemplateEntry>,
    pub servers: Vec<ServerReport>,
}

/// One server's line in the listing: how it was reached and how it went.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerReport {
    pub name: String,
    pub transport: &'static str,
    pub protocol_version: Option<String>,
    pub server_info: Option<ServerInfoReport>,
    pub capabilities: Option<serde_json::Value>,
    /// False when the server does not advertise the `resources` capability.
    pub has_resources: bool,
    pub resource_count: usize,
    pub template_count: usize,
    /// True when `--cap` stopped the listing before the server's end.
    pub capped: bool,
    pub error: Option<String>,
    /// Problems with single entries that cost only that entry or field (malformed fields
    /// dropped, entries skipped, duplicate URIs): the first 100 in detail.
    pub warnings: Vec<Warning>,
    /// How many warnings there were in all (more than `warnings` holds when over 100).
    pub warning_count: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct ServerInfoReport {
    pub name: Option<String>,
    pub title: Option<String>,
    pub version: Option<String>,
}

pub async fn run(args: LsArgs) -> Exit {
    let specs = match take_selection(select_servers(&args.servers.choice())) {
        Ok(specs) => specs,
        Err(exit) => return exit,
    };
    let options = ListOptions { cap: args.cap };
    let mut catalogue = Catalogue::new();
    for selected in &specs {
        catalogue.server(&selected.spec.name);
    }
    // Without a filter or a sort, JSON needs no resource but the page at hand: it streams.
    let sink = if args.json && args.filter.is_none() && args.sort.is_none() {
        let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        Sink::stream(out, catalogue)
    } else {
        Sink::Keep(catalogue)
    };
    let sink = RefCell::new(sink);
    let heard = RefCell::new(vec![Heard::default(); specs.len()]);
    // A reader that went away (`| head`) ends the listing at once.
    let broken = sink.borrow().broken();
    let connect = args.servers.connect_options();
    let listing_all =
        super::list_each(specs, &connect, &options, args.templates, |index, event| {
            heard.borrow_mut()[index].take(index as ServerId, event, &sink)
        });
    let listed = tokio::select! {
        sessions = listing_all => Some(sessions),
        () = broken.notified() => None,
    };
    let servers = match listed {
        Some(sessions) => {
            let servers = sessions
                .iter()
                .zip(heard.into_inner())
                .enumerate()
                .map(|(i, (session, heard))| {
                    heard.report(session, sink.borrow().count(i as ServerId))
                })
                .collect();
            close_all(sessions).await;
            servers
        }
        None => Vec::new(),
    };

    let failed = servers.iter().any(|s| s.error.is_some());
    for server in &servers {
        if let Some(error) = &server.error {
            super::report(error);
        }
        let detail = if args.json { 0 } else { STDERR_DETAIL };
        report_warnings(
            &server.name,
            &server.warnings,
            server.warning_count,
            detail,
            "`mcpick ls --json` lists them in servers[].warnings",
        );
        if server.capped {
            report(&format!(
                "server `{}`: stopped after {} resources (--cap); the server has more",
                sanitize::line(&server.name, 200),
                crate::units::thousands(server.resource_count as u64)
            ));
        }
    }
    let written = match sink.into_inner() {
        Sink::Stream(stream) => {
            let templates: Vec<TemplateEntry> = stream.waiting.templates().cloned().collect();
            stream.json.finish(&templates, &servers).map(drop)
        }
        Sink::Keep(catalogue) => {
            let ids = select(&catalogue, args.filter.as_deref(), args.sort);
            if args.json {
                print_json(&catalogue, &ids, &servers)
            } else if args.tree {
                print_tree(&catalogue, &ids, args.filter.is_some())
            } else {
                print_table(&listing(&catalogue, &ids, servers), args.templates)
            }
        }
    };
    if let Err(e) = written
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        report(&format!("cannot write the listing: {e}"));
        return Exit::ServerFailed;
    }
    if failed { Exit::ServerFailed } else { Exit::Ok }
}

/// Warnings printed one by one on stderr under a table or tree; the rest are counted.
const STDERR_DETAIL: usize = 5;

/// Tells stderr about a server's warnings: the first `detail` one by one, then one line with
/// the count and `where_to_look` for the rest. Nothing when there are none.
pub fn report_warnings(
    server: &str,
    warnings: &[Warning],
    count: usize,
    detail: usize,
    where_to_look: &str,
) {
    if count == 0 {
        return;
    }
    let server = sanitize::line(server, 200);
    for warning in warnings.iter().take(detail) {
        report(&format!("warning: server `{server}`: {warning}"));
    }
    let noun = if count == 1 { "warning" } else { "warnings" };
    report(&format!(
        "warning: server `{server}`: {count} {noun} about malformed or duplicate entries \
         in its listing (fields dropped or entries skipped, the rest kept); {where_to_look}"
    ));
}

/// The document for the resources `ids` of `catalogue`, in that order.
pub fn listing(catalogue: &Catalogue, ids: &[ItemId], servers: Vec<ServerReport>) -> Listing {
    Listing {
        resources: ids.iter().filter_map(|&id| catalogue.entry(id)).collect(),
        templates: catalogue.templates().cloned().collect(),
        servers,
    }
}

/// The resources to show: all, or the matches of `filter` (best first), in `sort` order if
/// given (ties keep the previous order).
pub fn select(catalogue: &Catalogue, filter: Option<&str>, sort: Option<SortKey>) -> Vec<ItemId> {
    let mut ids: Vec<ItemId> = match filter {
        Some(query) => Search::default()
            .find(&catalogue.snapshot(), query)
            .into_iter()
            .map(|m| m.id)
            .collect(),
        None => catalogue.iter().map(|(id, _)| id).collect(),
    };
    if let Some(key) = sort {
        order::sort_ids(catalogue, &mut ids, key);
    }
    ids
}

/// What `ls` heard of one server while it was listed, for its report.
#[derive(Debug, Clone, Default)]
struct Heard {
    warnings: Warnings,
    capped: bool,
    template_count: usize,
    /// Why the server could not be reached or listed, or its templates not listed.
    failed: Option<String>,
}

impl Heard {
    /// Takes one event of server `server`: its pages go to `sink` as they arrive (a URI
    /// listed twice is skipped, with a warning), its templates to the sink's catalogue.
    fn take<W: Write>(&mut self, server: ServerId, event: Event, sink: &RefCell<Sink<W>>) {
        match event {
            Event::Page(page) => {
                self.warnings.extend(&page.warnings);
                let added = sink.borrow_mut().page(server, &page.items);
                for duplicate in added.duplicates {
                    let at = page.source_index(duplicate.index);
                    self.warnings
                        .push(Warning::duplicate(page.number, at, &duplicate.uri));
                }
            }
            Event::Listed(outcome) => {
                self.capped = outcome.capped;
                sink.borrow_mut().finished(server);
            }
            Event::Templates(listed) => {
                self.warnings.extend(&listed.warnings);
                self.template_count = listed.templates.len();
                sink.borrow_mut()
                    .catalogue_mut()
                    .set_templates(server, &listed.templates);
                self.failed = listed.failed;
            }
            Event::Ended { reason, .. } => {
                self.failed = Some(reason.why);
                sink.borrow_mut().finished(server);
            }
            Event::Connected(_)
            | Event::Relisted { .. }
            | Event::RelistFailed(_)
            | Event::Updated(_) => {}
        }
    }

    /// The server's line in the listing, `count` resources listed.
    fn report(self, session: &Session, count: usize) -> ServerReport {
        let mut report = ServerReport {
            name: session.spec.name.clone(),
            transport: session.spec.transport.kind(),
            protocol_version: None,
            server_info: None,
            capabilities: None,
            has_resources: false,
            resource_count: count,
            template_count: self.template_count,
            capped: self.capped,
            error: self.failed.map(|reason| session.say(&reason)),
            warnings: self.warnings.kept().to_vec(),
            warning_count: self.warnings.total(),
        };
        if let Ok(connection) = &session.connection {
            fill_summary(&mut report, connection.summary());
            report.transport = connection.transport();
            report.has_resources = connection.has_resources();
        }
        report
    }
}

/// A server's listing so far, for the progress line: `3000 in 30 pages`.
pub(crate) fn pages_status(pages: usize, received: usize) -> String {
    format!(
        "{received} in {}",
        crate::units::count(pages as u64, "page", "pages")
    )
}

fn fill_summary(report: &mut ServerReport, summary: ServerSummary) {
    report.protocol_version = Some(summary.protocol_version);
    report.capabilities = Some(summary.capabilities);
    report.server_info = Some(ServerInfoReport {
        name: summary.server_name,
        title: summary.server_title,
        version: summary.server_version,
    });
}

/// The document for sorted or filtered resources, written one resource at a time as the
/// streamed one is (no copy of the listing in between).
fn print_json(
    catalogue: &Catalogue,
    ids: &[ItemId],
    servers: &[ServerReport],
) -> std::io::Result<()> {
    let mut json = JsonOut::start(std::io::BufWriter::new(std::io::stdout().lock()));
    for &id in ids {
        if let Some(entry) = catalogue.entry(id) {
            json.resource(&entry);
        }
    }
    let templates: Vec<TemplateEntry> = catalogue.templates().cloned().collect();
    json.finish(&templates, servers).map(drop)
}

/// The tree with every folder open, drawn with box-drawing lines like `tree(1)`. With a
/// filter, only matches and their ancestors are shown.
fn print_tree(catalogue: &Catalogue, ids: &[ItemId], filtered: bool) -> std::io::Result<()> {
    let mut tree = UriTree::build(catalogue);
    if filtered {
        tree.set_filter(Some(ids));
    }
    tree.set_all_expanded(true);
    tree.refresh();
    let rows = tree.window(0, tree.row_count());
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    // `open[d]`: whether the ancestor at depth d has siblings still to come.
    let mut open: Vec<bool> = Vec::new();
    for (i, &row) in rows.iter().enumerate() {
        let view = tree.view(row);
        let depth = view.depth as usize;
        let last = rows[i + 1..]
            .iter()
            .find(|r| (r.depth as usize) <= depth)
            .is_none_or(|r| (r.depth as usize) < depth);
        open.truncate(depth);
        let mut line = String::new();
        if depth > 0 {
            for &more in &open[1..] {
                line.push_str(if more { "│   " } else { "    " });
            }
            line.push_str(if last { "└── " } else { "├── " });
        }
        open.push(!last);
        line.push_str(&sanitize::line(&view.label, 200));
        if view.folder {
            if !view.server {
                line.push('/');
            }
            line.push_str(&format!(" ({})", view.count));
        }
        if let Some(item) = view.item.and_then(|id| catalogue.get(id))
            && let Some(title) = item.title()
            && title != view.label
        {
            line.push_str("  ");
            line.push_str(&sanitize::line(title, 80));
        }
        writeln!(out, "{line}")?;
    }
    out.flush()
}

/// Widest a URI column gets before values are cut with `…`.
const MAX_URI_WIDTH: usize = 72;
const MAX_NAME_WIDTH: usize = 40;

fn print_table(listing: &Listing, templates: bool) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for server in &listing.servers {
        let state = match (&server.error, server.has_resources) {
            (Some(_), _) => "failed".to_string(),
            (None, false) => format!(
                "no resources (the server has no `resources` capability; {})",
                crate::mcp::list::NO_RESOURCES_HELP
            ),
            (None, true) => format!(
                "{} resources{}",
                crate::units::thousands(server.resource_count as u64),
                if templates {
                    format!(
                        ", {} templates",
                        crate::units::thousands(server.template_count as u64)
                    )
                } else {
                    String::new()
                }
            ),
        };
        let version = server.protocol_version.as_deref().unwrap_or("-");
        writeln!(
            out,
            "# {} ({}, protocol {}): {}",
            sanitize::line(&server.name, 200),
            server.transport,
            version,
            state
        )?;
    }
    let show_server = listing.servers.len() > 1;
    let rows: Vec<[String; 7]> = listing
        .resources
        .iter()
        .map(|r| {
            let a = r.annotations.as_ref();
            [
                sanitize::line(&r.server, 30),
                sanitize::line(&r.uri, MAX_URI_WIDTH),
                match &r.skill {
                    // A skill's file: the skill, then the file (`skill pdf-forms: SKILL.md`).
                    Some(skill) => sanitize::line(
                        &format!(
                            "skill {skill}: {}",
                            crate::skills::split(&r.uri).map_or("", |(_, path)| path)
                        ),
                        MAX_NAME_WIDTH,
                    ),
                    None => sanitize::line(r.display_name(), MAX_NAME_WIDTH),
                },
                sanitize::line(r.mime_type.as_deref().unwrap_or("-"), 30),
                r.size.map(human_size).unwrap_or_else(|| "-".into()),
                a.and_then(|a| a.priority)
                    .map(|p| format!("{p:.2}"))
                    .unwrap_or_else(|| "-".into()),
                a.and_then(|a| a.audience.as_ref())
                    .map(|aud| sanitize::line(&aud.join(","), 20))
                    .unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    let header = ["SERVER", "URI", "NAME", "MIME", "SIZE", "PRIO", "AUDIENCE"];
    let first = if show_server { 0 } else { 1 };
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    if !rows.is_empty() {
        writeln!(out)?;
        write_row(&mut out, &header.map(String::from), &widths, first)?;
        for row in &rows {
            write_row(&mut out, row, &widths, first)?;
        }
    }
    if templates && !listing.templates.is_empty() {
        writeln!(out)?;
        writeln!(out, "Templates:")?;
        for t in &listing.templates {
            let name = t.title.as_deref().unwrap_or(&t.name);
            if show_server {
                write!(out, "  {}  ", sanitize::line(&t.server, 30))?;
            } else {
                write!(out, "  ")?;
            }
            writeln!(
                out,
                "{}  {}  {}",
                sanitize::line(&t.uri_template, MAX_URI_WIDTH),
                sanitize::line(name, MAX_NAME_WIDTH),
                sanitize::line(t.mime_type.as_deref().unwrap_or("-"), 30)
            )?;
        }
    }
    out.flush()
}

fn write_row(
    out: &mut impl Write,
    row: &[String; 7],
    widths: &[usize; 7],
    first: usize,
) -> std::io::Result<()> {
    let mut line = String::new();
    for (i, (cell, width)) in row.iter().zip(widths).enumerate().skip(first) {
        if i > first {
            line.push_str("  ");
        }
        line.push_str(cell);
        if i + 1 < row.len() {
            line.extend(std::iter::repeat_n(' ', width - cell.chars().count()));
        }
    }
    writeln!(out, "{}", line.trim_end())
}
