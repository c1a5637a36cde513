//! Drawing: `render(&App, &mut Frame)` reads the state and never changes it. Only the rows
//! on screen are built (tree and list windows, highlights for visible rows only), so a frame
//! costs the same with a hundred resources or a million.

use std::time::SystemTime;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthChar;

use super::app::{App, Overlay, Selection, Status, View};
use super::contents::{Body, ContentsDoc, human_size};
use super::keymap::{Action, Mode};
use crate::catalog::item::{AUDIENCE_ASSISTANT, AUDIENCE_USER};
use crate::catalog::{ItemId, SortKey};
use crate::context::{Mark, Reason};
use crate::sanitize;

/// The area inside a pane's border.
pub fn inner(area: Rect) -> Rect {
    Block::default().borders(Borders::ALL).inner(area)
}

pub fn render(app: &App, frame: &mut Frame) {
    let areas = app.areas();
    let buf_area = frame.area();
    if buf_area.width == 0 || buf_area.height == 0 {
        return;
    }
    render_header(app, frame, areas.header);
    render_search(app, frame, areas.search);
    match app.overlay {
        Some(Overlay::Log { filter, scroll }) => {
            render_log(app, frame, areas.body, filter, scroll);
        }
        _ if app.agent_open => render_agent(app, frame, areas.body),
        _ => {
            if app.focus == Mode::Contents && areas.contents.is_none() {
                render_contents(app, frame, areas.main);
            } else {
                match app.view {
                    View::Tree => render_tree(app, frame, areas.main),
                    View::List => render_list(app, frame, areas.main),
                }
                if let Some(p) = areas.contents {
                    render_contents(app, frame, p);
                }
            }
        }
    }
    render_status(app, frame, areas.status);
    if let Some(Overlay::Help { scroll }) = app.overlay {
        render_help(app, frame, areas.body, scroll);
    }
}

fn pane<'a>(app: &App, title: String, focused: bool) -> Block<'a> {
    let t = &app.theme;
    Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.border_focused } else { t.border })
        .title(Span::styled(
            if focused {
                format!("▶ {title} ")
            } else {
                format!(" {title} ")
            },
            t.title,
        ))
}

// ---- header ------------------------------------------------------------------------

fn render_header(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mut lines = Vec::new();
    let shown = if app.servers.len() > area.height as usize {
        (area.height as usize).saturating_sub(1)
    } else {
        app.servers.len()
    };
    for s in app.servers.iter().take(shown) {
        let (glyph, style, text) = match &s.status {
            Status::Connecting => ("◌", t.busy, "connecting…".to_string()),
            Status::Loading { page, received } => (
                "◐",
                t.busy,
                if *page == 0 {
                    "listing…".to_string()
                } else {
                    format!("loading page {page} · {} resources", thousands(*received))
                },
            ),
            Status::Ready { count, capped } => (
                "●",
                t.ok,
                format!(
                    "ready · {} resource{}{}",
                    thousands(*count),
                    if *count == 1 { "" } else { "s" },
                    if *capped { " (cap reached)" } else { "" }
                ),
            ),
            Status::NoResources => ("○", t.dim, "no resources".to_string()),
            Status::Failed(reason) => (
                "✗",
                t.error,
                format!("failed: {}", sanitize::line(reason, 300)),
            ),
        };
        let mut spans = vec![
            Span::styled(format!("{glyph} "), style),
            Span::styled(s.name.clone(), t.server),
            Span::raw("  "),
            Span::styled(text, style),
        ];
        if let Some(detail) = &s.detail
            && !matches!(s.status, Status::Failed(_))
        {
            spans.push(Span::styled(format!("  ({detail})"), t.dim));
        }
        lines.push(Line::from(spans));
    }
    if shown < app.servers.len() {
        let rest = &app.servers[shown..];
        let count = |f: fn(&Status) -> bool| rest.iter().filter(|s| f(&s.status)).count();
        lines.push(Line::styled(
            format!(
                "… {} more: {} ready, {} loading, {} failed",
                rest.len(),
                count(|s| matches!(s, Status::Ready { .. } | Status::NoResources)),
                count(|s| matches!(s, Status::Connecting | Status::Loading { .. })),
                count(|s| matches!(s, Status::Failed(_))),
            ),
            t.dim,
        ));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

// ---- search line -------------------------------------------------------------------

fn render_search(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let focused = app.mode() == Mode::Search;
    let mut spans = vec![Span::styled("/ ", if focused { t.key } else { t.dim })];
    if app.query.is_empty() && !focused {
        let key = app
            .keymap
            .hint(Mode::Browse, Action::Search)
            .unwrap_or_default();
        spans.push(Span::styled(format!("press {key} to search"), t.dim));
    } else {
        spans.push(Span::styled(app.query.clone(), t.text));
        if focused {
            spans.push(Span::styled("▏", t.key));
        }
    }
    if let Some(n) = app.matching() {
        let mut info = format!("  {} of {} match", thousands(n), thousands(app.total()));
        if app.searching {
            let (scanned, total) = app.search_progress;
            if total > 0 {
                info.push_str(&format!(" · searching {}%", scanned * 100 / total.max(1)));
            } else {
                info.push_str(" · searching…");
            }
        }
        spans.push(Span::styled(info, t.dim));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

// ---- tree and list -----------------------------------------------------------------

/// `text` with the characters at `positions` (char indices) in the `matched` style.
fn highlighted(text: &str, positions: &[u32], base: Style, matched: Style) -> Vec<Span<'static>> {
    if positions.is_empty() {
        return vec![Span::styled(text.to_string(), base)];
    }
    let mut spans = Vec::new();
    let mut current = String::new();
    let mut current_hit = false;
    for (i, c) in text.chars().enumerate() {
        let hit = positions.binary_search(&(i as u32)).is_ok();
        if hit != current_hit && !current.is_empty() {
            spans.push(Span::styled(
                std::mem::take(&mut current),
                if current_hit {
                    base.patch(matched)
                } else {
                    base
                },
            ));
        }
        current_hit = hit;
        current.push(c);
    }
    if !current.is_empty() {
        spans.push(Span::styled(
            current,
            if current_hit {
                base.patch(matched)
            } else {
                base
            },
        ));
    }
    spans
}

fn highlights(app: &App, text: &str) -> Vec<u32> {
    if app.query.is_empty() {
        Vec::new()
    } else {
        app.search.highlight(&app.query, text)
    }
}

fn row_line(app: &App, selected: bool, mut spans: Vec<Span<'static>>, width: u16) -> Line<'static> {
    let t = &app.theme;
    let marker = if selected { "▶" } else { " " };
    spans.insert(
        0,
        Span::styled(marker, if selected { t.key } else { t.text }),
    );
    let mut line = Line::from(spans);
    if selected {
        // Pad so the selection bar spans the row.
        let w = line.width();
        if w < width as usize {
            line.spans.push(Span::raw(" ".repeat(width as usize - w)));
        }
        line = line.patch_style(t.selection);
    }
    line
}

/// Width of the mark column at the start of tree and list rows.
pub const MARK_W: u16 = 2;

/// The mark glyphs: `+` pinned, `x` excluded (on the row itself); `⁺` `ˣ` inherited from a
/// folder's prefix mark (dimmed too). Never colour alone: the glyph says it.
pub fn mark_glyph(mark: Option<(Mark, bool)>) -> &'static str {
    match mark {
        None => " ",
        Some((Mark::Pin, true)) => "+",
        Some((Mark::Exclude, true)) => "x",
        Some((Mark::Pin, false)) => "⁺",
        Some((Mark::Exclude, false)) => "ˣ",
    }
}

fn mark_span(app: &App, mark: Option<(Mark, bool)>) -> Span<'static> {
    let t = &app.theme;
    let style = match mark {
        None => t.text,
        Some((Mark::Pin, direct)) => {
            if direct {
                t.pin
            } else {
                t.pin.patch(t.dim)
            }
        }
        Some((Mark::Exclude, direct)) => {
            if direct {
                t.exclude
            } else {
                t.exclude.patch(t.dim)
            }
        }
    };
    Span::styled(format!("{} ", mark_glyph(mark)), style)
}

fn render_tree(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let title = match app.matching() {
        Some(_) => "Tree (filtered)".to_string(),
        None => "Tree".to_string(),
    };
    let block = pane(app, title, app.focus != Mode::Contents);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let cursor = app.cursor();
    let mut lines = Vec::new();
    for (i, &row) in app
        .tree
        .window(cursor.offset, inner.height as usize)
        .iter()
        .enumerate()
    {
        let index = cursor.offset + i;
        let view = app.tree.view(row);
        let label = sanitize::line(&view.label, 300);
        let mut spans = vec![
            mark_span(app, app.row_mark(row)),
            Span::raw("  ".repeat(view.depth as usize)),
        ];
        let (glyph, style) = if view.server {
            (if view.expanded { "▾ " } else { "▸ " }, t.server)
        } else if view.folder {
            (if view.expanded { "▾ " } else { "▸ " }, t.folder)
        } else {
            ("  ", t.text)
        };
        spans.push(Span::styled(glyph, style));
        spans.extend(highlighted(
            &label,
            &highlights(app, &label),
            style,
            t.matched,
        ));
        if view.folder {
            spans.push(Span::styled(
                format!("  {}", thousands(view.count as usize)),
                t.dim,
            ));
        }
        if let (Some(id), true) = (view.item, view.folder) {
            // A resource that is also a folder.
            let _ = id;
            spans.push(Span::styled(" •", t.dim));
        }
        lines.push(row_line(app, index == cursor.index, spans, inner.width));
    }
    if lines.is_empty() {
        lines.push(Line::styled(empty_message(app), t.dim));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn empty_message(app: &App) -> String {
    if app.matching() == Some(0) && !app.searching {
        "no resource matches".into()
    } else if app
        .servers
        .iter()
        .any(|s| matches!(s.status, Status::Connecting | Status::Loading { .. }))
    {
        "waiting for servers…".into()
    } else {
        "no resources".into()
    }
}

fn order_value(app: &App, id: ItemId) -> String {
    let Some(item) = app.catalogue.get(id) else {
        return String::new();
    };
    match app.order {
        SortKey::Priority => item
            .priority()
            .map(|p| format!("{p:.2}"))
            .unwrap_or_default(),
        SortKey::LastModified => item
            .last_modified()
            .map(|d| sanitize::line(d, 20))
            .unwrap_or_default(),
        SortKey::Size => item.size().map(human_size).unwrap_or_default(),
        SortKey::Server => sanitize::line(app.catalogue.server_name(id.server), 20),
        SortKey::Name | SortKey::Uri => String::new(),
    }
}

fn render_list(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let title = if app.matching().is_some() {
        "List · best match first".to_string()
    } else if app.list_key != Some(app.order) {
        format!("List · order: {} (sorting…)", app.order.label())
    } else {
        format!("List · order: {}", app.order.label())
    };
    let block = pane(app, title, app.focus != Mode::Contents);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let cursor = app.cursor();
    let ids = app.list_ids();
    let end = (cursor.offset + inner.height as usize).min(ids.len());
    let mut lines = Vec::new();
    for (i, &id) in ids[cursor.offset.min(end)..end].iter().enumerate() {
        let index = cursor.offset + i;
        let Some(item) = app.catalogue.get(id) else {
            continue;
        };
        let name = sanitize::line(item.display_name(), 200);
        let uri = sanitize::line(item.uri(), 500);
        let value = order_value(app, id);
        let mut spans = vec![mark_span(
            app,
            app.mark_of(id).map(|e| (e.mark, e.is_direct())),
        )];
        if !value.is_empty() {
            spans.push(Span::styled(format!("{value:>6} "), t.dim));
        }
        spans.extend(highlighted(
            &name,
            &highlights(app, &name),
            t.text,
            t.matched,
        ));
        spans.push(Span::raw("  "));
        spans.extend(highlighted(&uri, &highlights(app, &uri), t.dim, t.matched));
        lines.push(row_line(app, index == cursor.index, spans, inner.width));
    }
    if lines.is_empty() {
        lines.push(Line::styled(empty_message(app), t.dim));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

// ---- preview -----------------------------------------------------------------------

/// Every row of the preview at `width`, wrapped: the fields, then the contents.
pub fn contents_rows(app: &App, width: u16) -> Vec<Line<'static>> {
    let width = width.max(1) as usize;
    let mut out = Vec::new();
    for line in contents_lines(app, width) {
        // Field values wrap under the value, not under the field name.
        let indent = if line
            .spans
            .first()
            .is_some_and(|s| s.style == app.theme.field && s.content.len() == FIELD_W)
        {
            FIELD_W
        } else {
            0
        };
        wrap(line, width, indent, &mut out);
    }
    out
}

/// Width of the field-name column.
const FIELD_W: usize = 13;

fn contents_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    let field = |name: &str, value: String| {
        Line::from(vec![
            Span::styled(format!("{name:<FIELD_W$}"), t.field),
            Span::styled(value, t.text),
        ])
    };
    let id = match app.selection() {
        Selection::Item(id) => id,
        Selection::Folder {
            label,
            count,
            server,
        } => {
            let what = if server { "server" } else { "folder" };
            lines.push(field(what, sanitize::line(&label, 1000)));
            lines.push(field("resources", thousands(count as usize)));
            if server
                && let Some(s) = app.servers.iter().find(|s| s.name == label)
                && let Some(detail) = &s.detail
            {
                lines.push(field("connection", detail.clone()));
            }
            return lines;
        }
        Selection::None => {
            lines.push(Line::styled("nothing selected", t.dim));
            return lines;
        }
    };
    let Some(item) = app.catalogue.get(id) else {
        return lines;
    };
    lines.push(field("uri", sanitize::line(item.uri(), 4000)));
    if let Some(e) = app.mark_of(id) {
        let what = match e.mark {
            Mark::Pin => "+ pinned",
            Mark::Exclude => "x excluded",
        };
        lines.push(field(
            "mark",
            match e.prefix {
                None => what.to_string(),
                Some(p) => format!("{what} (from {}*)", sanitize::line(p, 1000)),
            },
        ));
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
    let mime = app.catalogue.mimes().get(item.mime_id());
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
        let mut roles = Vec::new();
        if bits & AUDIENCE_USER != 0 {
            roles.push("user");
        }
        if bits & AUDIENCE_ASSISTANT != 0 {
            roles.push("assistant");
        }
        lines.push(field("audience", roles.join(", ")));
    }
    if let Some(p) = item.priority() {
        lines.push(field("priority", format!("{p}")));
    }
    if let Some(m) = item.last_modified() {
        lines.push(field("lastModified", sanitize::line(m, 60)));
    }
    lines.push(field(
        "server",
        sanitize::line(app.catalogue.server_name(id.server), 200),
    ));
    lines.push(Line::styled("─".repeat(width), t.border));
    match app.cached(id) {
        None if app.contents.loading => lines.push(Line::styled("reading…", t.dim)),
        None => lines.push(Line::styled("not read", t.dim)),
        Some(doc) => doc_lines(app, doc, width, &mut lines),
    }
    lines
}

fn doc_lines(app: &App, doc: &ContentsDoc, width: usize, lines: &mut Vec<Line<'static>>) {
    let t = &app.theme;
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
                        for h in super::contents::hex_head(first_bytes, per_row) {
                            lines.push(Line::styled(h, t.dim));
                        }
                    }
                }
            }
        }
    }
}

/// Wraps a line to `width` columns, by character; continuation rows start with `indent`
/// spaces.
fn wrap(line: Line<'static>, width: usize, indent: usize, out: &mut Vec<Line<'static>>) {
    if line.width() <= width {
        out.push(line);
        return;
    }
    let indent = if indent * 2 > width { 0 } else { indent };
    let mut current: Vec<Span<'static>> = Vec::new();
    let mut used = 0;
    for span in line.spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && used > 0 {
                if !text.is_empty() {
                    current.push(Span::styled(std::mem::take(&mut text), span.style));
                }
                out.push(Line::from(std::mem::take(&mut current)));
                used = indent;
                if indent > 0 {
                    current.push(Span::raw(" ".repeat(indent)));
                }
            }
            text.push(c);
            used += w;
        }
        if !text.is_empty() {
            current.push(Span::styled(text, span.style));
        }
    }
    if !current.is_empty() {
        out.push(Line::from(current));
    }
}

fn render_contents(app: &App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Mode::Contents;
    let mut title = "Contents".to_string();
    if app.contents.loading {
        title.push_str(" · reading…");
    }
    let block = pane(app, title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = contents_rows(app, inner.width);
    let max = rows.len().saturating_sub(inner.height as usize);
    let scroll = app.contents.scroll.min(max);
    let visible: Vec<Line> = rows
        .into_iter()
        .skip(scroll)
        .take(inner.height as usize)
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
    if max > 0 && inner.height > 0 {
        let pct = scroll * 100 / max;
        let label = format!(" {pct}% ");
        let x = area.right().saturating_sub(label.len() as u16 + 1);
        frame.render_widget(
            Paragraph::new(Span::styled(label, app.theme.dim)),
            Rect::new(x, area.bottom() - 1, 6.min(area.width), 1),
        );
    }
}

// ---- status line -------------------------------------------------------------------

fn render_status(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let mode = app.mode();
    let mut spans = vec![Span::styled(
        match app.view {
            View::Tree => " TREE ",
            View::List => " LIST ",
        },
        t.selection,
    )];
    let mut info = format!(" {} resources", thousands(app.total()));
    if let Some(n) = app.matching() {
        info.push_str(&format!(" · {} matching", thousands(n)));
    }
    if app.view == View::List && app.matching().is_none() {
        info.push_str(&format!(" · order {}", app.order.label()));
    }
    spans.push(Span::styled(info, t.text));
    let (pins, excludes) = app.context.set.marks.counts();
    if pins + excludes > 0 {
        spans.push(Span::styled(" · ", t.text));
        spans.push(Span::styled(format!("+{pins}"), t.pin));
        spans.push(Span::styled(" ", t.text));
        spans.push(Span::styled(format!("x{excludes}"), t.exclude));
    }
    spans.push(Span::styled(" · ", t.text));
    spans.extend(meter(app));
    if let Some((done, total)) = app.measure_progress() {
        spans.push(Span::styled(format!(" · counting {done}/{total}"), t.busy));
    }
    if let Some(e) = &app.context.save_error {
        spans.push(Span::styled(format!(" · not saved: {e}"), t.error));
    } else if app.context.load_error.is_some() {
        spans.push(Span::styled(" · set not saved", t.error));
    }
    if let Some(notice) = &app.notice {
        spans.push(Span::styled(format!(" · {notice}"), t.error));
    }
    if let Some(info) = &app.info {
        spans.push(Span::styled(format!(" · {info}"), t.dim));
    }
    spans.push(Span::raw("   "));
    let hints: &[(Action, &str)] = match mode {
        Mode::Browse => &[
            (Action::Help, "help"),
            (Action::Search, "search"),
            (Action::ToggleView, "tree/list"),
            (Action::FocusContents, "preview"),
            (Action::Log, "log"),
            (Action::Quit, "quit"),
        ],
        Mode::Search => &[
            (Action::AcceptSearch, "keep"),
            (Action::ClearSearch, "clear"),
            (Action::Down, "next"),
        ],
        Mode::Contents => &[
            (Action::Down, "scroll"),
            (Action::FocusList, "back"),
            (Action::Reload, "reload"),
            (Action::Quit, "quit"),
        ],
        Mode::Log => &[
            (Action::LogFilter, "server filter"),
            (Action::Close, "close"),
        ],
        Mode::Help => &[(Action::Close, "close")],
        Mode::Agent => &[
            (Action::BudgetUp, "budget+"),
            (Action::BudgetDown, "budget-"),
            (Action::CycleAudience, "audience"),
            (Action::Close, "close"),
        ],
    };
    for (action, label) in hints {
        if let Some(key) = app.keymap.hint(mode, *action) {
            spans.push(Span::styled(key, t.key));
            spans.push(Span::styled(format!(" {label}  "), t.dim));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The budget meter: `▕███░░░░░▏ ~1,234/8,000 tok` (`~`: some count is still an estimate
/// from `size`; `!`: pins alone are over the budget).
pub fn meter(app: &App) -> Vec<Span<'static>> {
    let t = &app.theme;
    let Some(agent) = &app.context.agent else {
        return vec![Span::styled("tokens …", t.dim)];
    };
    let p = &agent.preview;
    let (used, budget) = p.meter();
    let est = if p.is_estimated() { "~" } else { "" };
    match budget {
        Some(b) => {
            const CELLS: u64 = 8;
            let filled = used
                .saturating_mul(CELLS)
                .checked_div(b)
                .map_or(CELLS, |f| f.min(CELLS));
            let over = p.pins_over_budget || used > b;
            vec![
                Span::styled(
                    format!(
                        "▕{}{}▏",
                        "█".repeat(filled as usize),
                        "░".repeat((CELLS - filled) as usize)
                    ),
                    if over { t.error } else { t.ok },
                ),
                Span::styled(
                    format!(
                        " {}{est}{}/{} tok",
                        if over { "!" } else { "" },
                        thousands(used as usize),
                        thousands(b as usize)
                    ),
                    if over { t.error } else { t.text },
                ),
            ]
        }
        None => vec![Span::styled(
            format!("{est}{} tok (no budget)", thousands(used as usize)),
            t.text,
        )],
    }
}

// ---- agent view --------------------------------------------------------------------

/// Scrolling rows of the agent view: the included resources, the cut line, the left-out
/// heading and entries, the missing-marks heading and entries.
pub fn agent_row_count(app: &App) -> usize {
    let Some(agent) = &app.context.agent else {
        return 1;
    };
    let p = &agent.preview;
    let mut n = p.included.len() + 1;
    let left_out = p.left_out.len() + p.unavailable.len();
    if left_out > 0 {
        n += 1 + left_out;
    }
    if !p.missing.is_empty() {
        n += 1 + p.missing.len();
    }
    n
}

fn agent_line(app: &App, row: usize) -> Line<'static> {
    let t = &app.theme;
    let Some(agent) = &app.context.agent else {
        return Line::styled("resolving…", t.dim);
    };
    let p = &agent.preview;
    let describe = |index: usize| -> (String, String) {
        let Some(id) = agent.id(index) else {
            return (String::new(), String::new());
        };
        let Some(item) = app.catalogue.get(id) else {
            return (String::new(), String::new());
        };
        (
            sanitize::line(item.display_name(), 80),
            format!(
                "{}  {}",
                sanitize::line(app.catalogue.server_name(id.server), 40),
                sanitize::line(item.uri(), 500)
            ),
        )
    };
    let mut row = row;
    if row < p.included.len() {
        let inc = &p.included[row];
        let (name, uri) = describe(inc.index);
        return Line::from(vec![
            Span::styled(format!("{:>4} ", row + 1), t.dim),
            Span::styled(
                if inc.pinned { "+ " } else { "  " },
                if inc.pinned { t.pin } else { t.text },
            ),
            Span::styled(
                format!(
                    "{:>9} ",
                    format!(
                        "{}{}",
                        if inc.estimated { "~" } else { "" },
                        thousands(inc.tokens as usize)
                    )
                ),
                t.text,
            ),
            Span::styled(
                format!("{:>10}  ", thousands(inc.running_total as usize)),
                t.dim,
            ),
            Span::styled(name, t.text),
            Span::styled(format!("  {uri}"), t.dim),
        ]);
    }
    row -= p.included.len();
    if row == 0 {
        let text = match p.budget {
            Some(b) if p.pins_over_budget => format!(
                "── cut line · pins alone need {} tokens, over the budget of {} ──",
                thousands(p.total_tokens as usize),
                thousands(b as usize)
            ),
            Some(b) => format!(
                "── cut line · budget {} · used {} · {} left ──",
                thousands(b as usize),
                thousands(p.total_tokens as usize),
                thousands(b.saturating_sub(p.total_tokens) as usize)
            ),
            None => format!(
                "── end · no budget · {} tokens ──",
                thousands(p.total_tokens as usize)
            ),
        };
        return Line::styled(text, if p.pins_over_budget { t.error } else { t.title });
    }
    row -= 1;
    if !p.left_out.is_empty() || !p.unavailable.is_empty() {
        if row == 0 {
            return Line::styled(
                format!(
                    "Left out ({})",
                    thousands(p.left_out.len() + p.unavailable.len())
                ),
                t.title,
            );
        }
        row -= 1;
        if row < p.left_out.len() {
            let l = &p.left_out[row];
            let (name, uri) = describe(l.index);
            let tokens = match l.tokens {
                Some(n) => format!(
                    "{}{}",
                    if l.estimated { "~" } else { "" },
                    thousands(n as usize)
                ),
                None => String::new(),
            };
            let mut spans = vec![
                if l.reason == Reason::Excluded {
                    Span::styled("     x ", t.exclude)
                } else {
                    Span::styled("     - ", t.dim)
                },
                Span::styled(format!("{:<22}", l.reason.name()), t.field),
                Span::styled(format!("{tokens:>9}  "), t.text),
                Span::styled(name, t.text),
                Span::styled(format!("  {uri}"), t.dim),
            ];
            if let Reason::ReadFailed(why) = &l.reason {
                spans.push(Span::styled(
                    format!("  ({})", sanitize::line(why, 200)),
                    t.error,
                ));
            }
            return Line::from(spans);
        }
        row -= p.left_out.len();
        // Marks on servers that could not be listed: the agent gets nothing for them.
        if let Some(u) = p.unavailable.get(row) {
            return Line::from(vec![
                Span::styled(
                    format!("     {} ", if u.mark == Mark::Pin { "+" } else { "x" }),
                    if u.mark == Mark::Pin {
                        t.pin
                    } else {
                        t.exclude
                    },
                ),
                Span::styled(format!("{:<22}", "server unavailable"), t.field),
                Span::styled(
                    format!(
                        "{:>9}  {}  {}",
                        u.mark.name(),
                        sanitize::line(&u.target.server, 40),
                        sanitize::line(&u.target.pattern.to_string(), 500)
                    ),
                    t.text,
                ),
                Span::styled(format!("  ({})", sanitize::line(&u.error, 200)), t.error),
            ]);
        }
        row -= p.unavailable.len();
    }
    if row == 0 {
        return Line::styled(
            format!(
                "Missing marks ({}): kept in the set, they match no listed resource",
                p.missing.len()
            ),
            t.title,
        );
    }
    row -= 1;
    match p.missing.get(row) {
        Some(m) => Line::from(vec![
            Span::styled(
                format!("     {} ", if m.mark == Mark::Pin { "+" } else { "x" }),
                if m.mark == Mark::Pin {
                    t.pin
                } else {
                    t.exclude
                },
            ),
            Span::styled(format!("{:<8}", m.mark.name()), t.field),
            Span::styled(
                format!(
                    "{}  {}",
                    sanitize::line(&m.target.server, 40),
                    sanitize::line(&m.target.pattern.to_string(), 500)
                ),
                t.text,
            ),
        ]),
        None => Line::raw(""),
    }
}

fn render_agent(app: &App, frame: &mut Frame, area: Rect) {
    let t = &app.theme;
    let policy = &app.context.set.policy;
    let title = format!(
        "Agent view · budget {} · audience {} · min priority {}",
        policy
            .budget
            .map_or("none".to_string(), |b| thousands(b as usize)),
        policy.audience.name(),
        policy
            .min_priority
            .map_or("none".to_string(), |m| format!("{m:.2}")),
    );
    let block = pane(app, title, true);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 {
        return;
    }
    let mut lines = Vec::new();
    let mut summary = vec![];
    if let Some(agent) = &app.context.agent {
        let p = &agent.preview;
        summary.push(Span::styled(
            format!(
                "{} resource{} · {}{} tokens",
                thousands(p.included.len()),
                if p.included.len() == 1 { "" } else { "s" },
                if p.is_estimated() { "~" } else { "" },
                thousands(p.total_tokens as usize)
            ),
            t.text,
        ));
    }
    match app.measure_progress() {
        Some((done, total)) => {
            summary.push(Span::styled(format!(" · counting {done}/{total}…"), t.busy))
        }
        None if app
            .context
            .agent
            .as_ref()
            .is_some_and(|a| a.preview.is_estimated()) =>
        {
            summary.push(Span::styled(" · ~ estimated from size", t.dim))
        }
        None => {}
    }
    summary.push(Span::styled(
        format!(
            " · {} counts, an estimate of the host model's tokenizer",
            policy.tokenizer.name()
        ),
        t.dim,
    ));
    lines.push(Line::from(summary));
    lines.push(Line::styled(
        format!(
            "{:>4} {:<2}{:>9} {:>10}  resource",
            "#", "", "tokens", "total"
        ),
        t.field,
    ));
    let height = inner.height.saturating_sub(2) as usize;
    let rows = agent_row_count(app);
    let scroll = app.agent_scroll.min(rows.saturating_sub(height));
    for r in scroll..(scroll + height).min(rows) {
        lines.push(agent_line(app, r));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

// ---- help --------------------------------------------------------------------------

/// The help text, generated from the key table.
pub fn help_lines(app: &App) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = Vec::new();
    for mode in Mode::ALL {
        lines.push(Line::styled(mode.title().to_string(), t.title));
        for &action in Action::ALL {
            let keys = app.keymap.keys_for(mode, action);
            if keys.is_empty() {
                continue;
            }
            let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<18}", keys.join(", ")), t.key),
                Span::styled(action.description().to_string(), t.text),
                Span::styled(format!("  ({})", action.name()), t.dim),
            ]));
        }
        if mode == Mode::Search {
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<18}", "other keys"), t.key),
                Span::styled("Type into the query".to_string(), t.text),
            ]));
        }
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled(
        "Marks: + pinned, x excluded; ⁺ ˣ (dimmed) inherited from a folder's prefix mark."
            .to_string(),
        t.dim,
    ));
    lines.push(Line::styled(
        "Mouse: wheel scrolls, click selects, click a folder's ▸ or a selected folder to open it."
            .to_string(),
        t.dim,
    ));
    lines.push(Line::styled(
        "Change keys in mcpick's config: [keys.browse] \"x\" = \"quit\" (names in parentheses)."
            .to_string(),
        t.dim,
    ));
    lines
}

fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn render_help(app: &App, frame: &mut Frame, body: Rect, scroll: usize) {
    let lines = help_lines(app);
    let area = centered(body, 84, lines.len() as u16 + 2);
    frame.render_widget(Clear, area);
    let block = pane(app, "Help · keys".into(), true);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut rows = Vec::new();
    for l in lines {
        wrap(l, inner.width.max(1) as usize, 20, &mut rows);
    }
    let scroll = scroll.min(rows.len().saturating_sub(inner.height as usize));
    let visible: Vec<Line> = rows
        .into_iter()
        .skip(scroll)
        .take(inner.height as usize)
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
}

// ---- log ---------------------------------------------------------------------------

/// `HH:MM:SS` in local time.
pub fn clock(at: SystemTime) -> String {
    let secs = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs() as libc::time_t)
        .unwrap_or(0);
    // SAFETY: localtime_r writes only into `tm`.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let ok = unsafe { !libc::localtime_r(&secs, &mut tm).is_null() };
    if ok {
        format!("{:02}:{:02}:{:02}", tm.tm_hour, tm.tm_min, tm.tm_sec)
    } else {
        let s = secs.rem_euclid(86_400);
        format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    }
}

/// The log rows shown: every server's entries (or one server's), oldest first.
pub fn log_lines(app: &App, filter: Option<u16>) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut entries = Vec::new();
    for (i, log) in app.logs.iter().enumerate() {
        if filter.is_some_and(|f| f as usize != i) {
            continue;
        }
        for e in log.entries() {
            entries.push((e.at, i, e));
        }
    }
    entries.sort_by_key(|(at, i, _)| (*at, *i));
    entries
        .into_iter()
        .map(|(at, i, e)| {
            let source = match e.source {
                crate::mcp::log::LogSource::Stderr => "stderr",
                crate::mcp::log::LogSource::Notification => "notice",
                crate::mcp::log::LogSource::Client => "mcpick",
            };
            let style = if matches!(e.source, crate::mcp::log::LogSource::Client) {
                t.error
            } else {
                t.text
            };
            Line::from(vec![
                Span::styled(format!("{} ", clock(at)), t.dim),
                Span::styled(
                    format!("{} ", app.servers.get(i).map_or("?", |s| s.name.as_str())),
                    t.server,
                ),
                Span::styled(format!("{source:<6} "), t.field),
                Span::styled(e.text, style),
            ])
        })
        .collect()
}

fn render_log(app: &App, frame: &mut Frame, area: Rect, filter: Option<u16>, scroll: usize) {
    let name = filter
        .and_then(|f| app.servers.get(f as usize))
        .map_or("all servers".to_string(), |s| s.name.clone());
    let block = pane(app, format!("Log · {name}"), true);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut rows = Vec::new();
    for l in log_lines(app, filter) {
        wrap(l, inner.width.max(1) as usize, 0, &mut rows);
    }
    if rows.is_empty() {
        rows.push(Line::styled("no log entries yet", app.theme.dim));
    }
    let h = inner.height as usize;
    let bottom = rows
        .len()
        .saturating_sub(scroll.min(rows.len().saturating_sub(h)));
    let top = bottom.saturating_sub(h);
    let visible: Vec<Line> = rows[top..bottom].to_vec();
    frame.render_widget(Paragraph::new(visible), inner);
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
