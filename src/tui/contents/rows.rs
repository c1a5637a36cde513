//! The contents pane's text: the selected row's fields, then the read document, as styled
//! rows wrapped to a width. The pane draws them; the core counts them to keep the scroll in
//! range (the row count lives with the rows, not in drawing).

use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

use super::{Body, ContentsDoc, Part};
use crate::catalog::item::{AUDIENCE_ASSISTANT, AUDIENCE_USER};
use crate::catalog::{Catalogue, ItemId};
use crate::context::{Effective, Mark};
use crate::sanitize;
use crate::tui::server_info::ServerInfo;
use crate::tui::text::{thousands, wrap};
use crate::tui::theme::Theme;
use crate::units::human_size;

/// What the pane is about, with what it needs to show it.
pub struct ContentsView<'a> {
    pub subject: Subject<'a>,
    /// The resource's mark (its own or inherited).
    pub mark: Option<Effective<'a>>,
    /// The read document, once read.
    pub doc: Option<&'a ContentsDoc>,
    /// A read is in flight.
    pub loading: bool,
    /// The server said the resource changed while it was shown.
    pub updated: bool,
    /// On a folder or server row, or a resource that is a folder too (`•`): the URI prefix
    /// the folder keys mark, and the mark that decides it.
    pub prefix: Option<PrefixFacts<'a>>,
    pub theme: &'a Theme,
}

/// A tree folder's mark: what a folder mark on this row applies to, and the mark deciding it.
pub struct PrefixFacts<'a> {
    /// The prefix the folder keys pin or exclude (`""`: the whole server).
    pub prefix: String,
    /// The server the prefix belongs to.
    pub server: String,
    /// The folder's own mark, or the one inherited from a shorter prefix.
    pub mark: Option<Effective<'a>>,
}

impl PrefixFacts<'_> {
    /// The prefix as a person types it (`PREFIX*`), or the whole server.
    fn applies_to(&self) -> String {
        if self.prefix.is_empty() {
            format!(
                "* (every resource of {})",
                sanitize::line(&self.server, 200)
            )
        } else {
            format!("{}*", sanitize::line(&self.prefix, 4000))
        }
    }

    /// The folder's mark in words: its own, inherited (from which prefix), or none.
    fn mark_words(&self) -> String {
        match &self.mark {
            None => "none (left to the policy)".into(),
            Some(e) => {
                let what = mark_words(e.mark);
                match e.prefix {
                    Some(p) if p != self.prefix => {
                        format!("{what} (from {}*)", sanitize::line(p, 1000))
                    }
                    _ => what.to_string(),
                }
            }
        }
    }
}

fn mark_words(mark: Mark) -> &'static str {
    match mark {
        Mark::Pin => "+ pinned",
        Mark::Exclude => "x excluded",
    }
}

/// What the cursor is on, for the pane.
pub enum Subject<'a> {
    Nothing,
    /// A folder or server row: its label, resource count, and (a server row) what is known
    /// about the server.
    Folder {
        label: String,
        count: u32,
        server: Option<ServerFacts<'a>>,
    },
    Item {
        id: ItemId,
        catalogue: &'a Catalogue,
    },
}

/// What a server row's pane says about its server.
pub struct ServerFacts<'a> {
    /// The state in the header's words (`ready · 300 resources`, `failed: …`).
    pub state: String,
    /// Transport and protocol version, once connected.
    pub connection: Option<&'a str>,
    /// What the server said about itself when it connected.
    pub info: Option<&'a ServerInfo>,
    /// Why it failed, or the newest error its connection logged.
    pub last_error: Option<String>,
    /// The newest notes its connection logged that are information, not errors (how the
    /// handshake went), oldest first.
    pub notes: Vec<String>,
    /// Connected without the `resources` capability: it publishes none.
    pub no_resources: bool,
}

/// Every row of the pane at `width`, wrapped: the fields, then the contents.
pub fn rows(view: &ContentsView, width: u16) -> Vec<Line<'static>> {
    let width = width.max(1) as usize;
    let mut out = Vec::new();
    for line in lines(view, width) {
        // Field values wrap under the value, not under the field name.
        let indent = if line
            .spans
            .first()
            .is_some_and(|s| s.style == view.theme.field && s.content.len() == FIELD_W)
        {
            FIELD_W
        } else {
            0
        };
        wrap(line, width, indent, &mut out);
    }
    out
}

/// A server row's facts: connection, identity, protocol, capabilities, last error, notes,
/// then the server's instructions (free text, maybe long, so last; all sanitised where they
/// were made).
fn server_lines(
    facts: &ServerFacts,
    field: &dyn Fn(&str, String) -> Line<'static>,
    lines: &mut Vec<Line<'static>>,
) {
    if let Some(detail) = facts.connection {
        lines.push(field("connection", detail.to_string()));
    }
    if let Some(info) = facts.info {
        if let Some(identity) = info.identity() {
            lines.push(field("server info", identity));
        }
        if !info.protocol.is_empty() {
            lines.push(field("protocol", info.protocol.clone()));
        }
        if info.capabilities.is_empty() {
            lines.push(field("capabilities", "none".into()));
        }
        for (i, c) in info.capabilities.iter().enumerate() {
            lines.push(field(if i == 0 { "capabilities" } else { "" }, c.clone()));
        }
    }
    lines.push(field(
        "last error",
        facts.last_error.clone().unwrap_or_else(|| "none".into()),
    ));
    for (i, note) in facts.notes.iter().enumerate() {
        lines.push(field(if i == 0 { "notes" } else { "" }, note.clone()));
    }
    if let Some(text) = facts.info.and_then(|info| info.instructions.as_ref()) {
        for (i, l) in text.lines().take(20).enumerate() {
            lines.push(field(
                if i == 0 { "instructions" } else { "" },
                l.to_string(),
            ));
        }
    }
}

/// A folder's (or a server's) facts: its name, state, how many resources it holds, its
/// mark, and a server's own facts.
fn folder_lines(
    view: &ContentsView,
    label: &str,
    count: u32,
    server: Option<&ServerFacts>,
    field: &dyn Fn(&str, String) -> Line<'static>,
    lines: &mut Vec<Line<'static>>,
) {
    let what = if server.is_some() { "server" } else { "folder" };
    lines.push(field(what, sanitize::line(label, 1000)));
    if let Some(facts) = server {
        lines.push(field("state", facts.state.clone()));
    }
    if server.is_some_and(|f| f.no_resources) {
        lines.push(field(
            "resources",
            "none: the server has no `resources` capability (tools or prompts only)".into(),
        ));
        lines.push(field("", crate::mcp::list::NO_RESOURCES_HELP.into()));
    } else {
        lines.push(field("resources", thousands(count as usize)));
    }
    if let Some(p) = &view.prefix {
        lines.push(field("prefix", p.applies_to()));
        lines.push(field("mark", p.mark_words()));
    }
    if let Some(facts) = server {
        server_lines(facts, field, lines);
    }
}

/// The roles an `audience` annotation's bits name, as the contents pane lists them.
fn audience_words(bits: u8) -> String {
    let mut roles = Vec::new();
    if bits & AUDIENCE_USER != 0 {
        roles.push("user");
    }
    if bits & AUDIENCE_ASSISTANT != 0 {
        roles.push("assistant");
    }
    roles.join(", ")
}

/// Width of the field-name column.
const FIELD_W: usize = 13;

fn lines(view: &ContentsView, width: usize) -> Vec<Line<'static>> {
    let t = view.theme;
    let mut lines = Vec::new();
    let field = |name: &str, value: String| {
        Line::from(vec![
            Span::styled(format!("{name:<FIELD_W$}"), t.field),
            Span::styled(value, t.text),
        ])
    };
    let (id, item, catalogue) = match &view.subject {
        Subject::Item { id, catalogue } => match catalogue.get(*id) {
            Some(item) => (*id, item, *catalogue),
            None => return lines,
        },
        Subject::Folder {
            label,
            count,
            server,
        } => {
            folder_lines(view, label, *count, server.as_ref(), &field, &mut lines);
            return lines;
        }
        Subject::Nothing => {
            lines.push(Line::styled("nothing selected", t.dim));
            return lines;
        }
    };
    lines.push(field("uri", sanitize::line(item.uri(), 4000)));
    if let Some(e) = &view.mark {
        let what = mark_words(e.mark);
        lines.push(field(
            "mark",
            match e.prefix {
                None => what.to_string(),
                Some(p) => format!("{what} (from {}*)", sanitize::line(p, 1000)),
            },
        ));
    }
    // A resource that is a folder too: which keys mark which of the two, and its folder
    // mark, which the resource's mark hides.
    if let Some(p) = &view.prefix {
        lines.push(field("+ x", "mark this resource alone".into()));
        lines.push(field("folder", p.applies_to()));
        lines.push(field(
            "F ctrl-x",
            "mark the folder: every resource under it".into(),
        ));
        lines.push(field("folder mark", p.mark_words()));
    }
    lines.push(field("name", sanitize::line(item.name(), 1000)));
    if let Some(title) = item.title() {
        lines.push(field("title", sanitize::line(title, 1000)));
    }
    if let Some(d) = item.description() {
        let d = sanitize::text(d);
        for (i, l) in d.lines().take(50).enumerate() {
            let l = l.replace('\t', "    ");
            lines.push(field(if i == 0 { "description" } else { "" }, l));
        }
    }
    let mime = catalogue.mimes().get(item.mime_id());
    lines.push(field(
        "mimeType",
        mime.map(|m| sanitize::line(m, 200))
            .unwrap_or_else(|| "—".into()),
    ));
    lines.push(field(
        "size",
        item.size()
            .map(|s| format!("{} ({} bytes)", human_size(s), thousands(s as usize)))
            .unwrap_or_else(|| "—".into()),
    ));
    if let Some(bits) = item.audience() {
        lines.push(field("audience", audience_words(bits)));
    }
    if let Some(p) = item.priority() {
        lines.push(field("priority", format!("{p}")));
    }
    if let Some(m) = item.last_modified() {
        lines.push(field("lastModified", sanitize::line(m, 60)));
    }
    lines.push(field(
        "server",
        sanitize::line(catalogue.server_name(id.server), 200),
    ));
    lines.push(Line::styled("─".repeat(width), t.border));
    match view.doc {
        None if view.loading => lines.push(Line::styled("reading…", t.dim)),
        None => lines.push(Line::styled("not read", t.dim)),
        Some(doc) => doc_lines(t, doc, width, &mut lines),
    }
    lines
}

/// One part of a read's contents: its text (coloured), or a blob's head in hex.
fn part_lines(t: &Theme, part: &Part, width: usize, lines: &mut Vec<Line<'static>>) {
    match &part.body {
        Body::Text {
            lines: text,
            bytes,
            truncated,
            syntax,
        } => {
            if text.is_empty() {
                lines.push(Line::styled("(empty text)", t.dim));
            }
            for l in text {
                lines.push(Line::from(
                    l.0.iter()
                        .map(|(rgb, s)| {
                            let style = match rgb {
                                Some((r, g, b)) if t.color => {
                                    Style::new().fg(Color::Rgb(*r, *g, *b))
                                }
                                _ => t.text,
                            };
                            Span::styled(s.clone(), style)
                        })
                        .collect::<Vec<_>>(),
                ));
            }
            let mut note = format!("text · {}", human_size(*bytes as u64));
            if let Some(s) = syntax {
                note.push_str(&format!(" · {s}"));
            }
            if *truncated {
                note.push_str(" · cut: only the beginning is shown");
            }
            lines.push(Line::styled(format!("── {note} ──"), t.dim));
        }
        Body::Blob {
            bytes,
            image,
            head: first_bytes,
            error,
        } => {
            let mut head = format!(
                "blob · {} · {} ({} bytes)",
                part.mime.as_deref().unwrap_or("no type"),
                human_size(*bytes as u64),
                thousands(*bytes)
            );
            if let Some(img) = image {
                head.push_str(&format!(
                    " · {} image {}×{}",
                    img.format, img.width, img.height
                ));
            }
            lines.push(Line::styled(head, t.title));
            if let Some(e) = error {
                lines.push(Line::styled(format!("✗ {e}"), t.error));
            }
            let per_row = if width >= 78 { 16 } else { 8 };
            for h in super::hex_head(first_bytes, per_row) {
                lines.push(Line::styled(h, t.dim));
            }
        }
    }
}

fn doc_lines(t: &Theme, doc: &ContentsDoc, width: usize, lines: &mut Vec<Line<'static>>) {
    match doc {
        ContentsDoc::Empty => lines.push(Line::styled(
            "○ empty: the server returned no contents",
            t.dim,
        )),
        ContentsDoc::NotFound(m) => {
            lines.push(Line::styled(format!("✗ not found: {m}"), t.error));
        }
        ContentsDoc::Error(m) => {
            for (i, l) in m.lines().enumerate() {
                let prefix = if i == 0 { "✗ read failed: " } else { "  " };
                lines.push(Line::styled(format!("{prefix}{l}"), t.error));
            }
        }
        ContentsDoc::TimedOut(secs) => lines.push(Line::styled(
            format!("✗ timed out: no answer within {secs:.0}s (r to try again)"),
            t.error,
        )),
        ContentsDoc::Parts(parts) => {
            let many = parts.len() > 1;
            if parts.is_empty() {
                lines.push(Line::styled("○ no contents mcpick can show", t.dim));
            }
            for (n, part) in parts.iter().enumerate() {
                if many {
                    lines.push(Line::styled(
                        format!(
                            "── part {}/{} · {} · {} ──",
                            n + 1,
                            parts.len(),
                            part.uri,
                            part.mime.as_deref().unwrap_or("no type")
                        ),
                        t.title,
                    ));
                }
                part_lines(t, part, width, lines);
            }
        }
    }
}
