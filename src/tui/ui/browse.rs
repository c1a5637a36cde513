//! The browse panes: the tree and the list. Only the rows on screen are built (tree and list
//! windows, highlights for visible rows only).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::pane;
use crate::catalog::tree::{Row, RowView};
use crate::catalog::{Catalogue, ItemId, SortKey};
use crate::context::{Mark, Marks};
use crate::sanitize;
use crate::tui::app::context::mark_of;
use crate::tui::app::tree::row_marks;
use crate::tui::app::{Browse, SearchState, ServerState, Status};
use crate::tui::text::{ellipsize, thousands, width_of};
use crate::tui::theme::Theme;
use crate::units::human_size;

/// Columns a tree label keeps before its count and marks give way to it.
const MIN_LABEL: usize = 8;

/// What the tree and list panes draw from.
pub struct BrowseView<'a> {
    pub browse: &'a Browse,
    pub search: &'a SearchState,
    pub catalogue: &'a Catalogue,
    pub marks: &'a Marks,
    /// For the empty message (still loading?).
    pub servers: &'a [ServerState],
    pub focused: bool,
    pub theme: &'a Theme,
}

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

/// A row: the cursor marker, then `spans`, cut to `width` with `…` when too long.
fn row_line(t: &Theme, selected: bool, mut spans: Vec<Span<'static>>, width: u16) -> Line<'static> {
    let marker = if selected { "▶" } else { " " };
    spans.insert(
        0,
        Span::styled(marker, if selected { t.key } else { t.text }),
    );
    let mut line = Line::from(ellipsize(spans, width as usize));
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

fn mark_span(t: &Theme, mark: Option<(Mark, bool)>) -> Span<'static> {
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

/// After the `•` of the cursor's row when it is both a resource and a folder: what `+` and
/// `F` mark there.
pub const BOTH_KEYS: &str = " + this · F all";

/// After a server row's name when the server publishes no resources.
pub const NO_RESOURCES_ROW: &str = "  no resources · docs/servers.md";

/// The tree pane: only the rows on screen are built.
pub fn draw_tree(frame: &mut Frame, area: Rect, v: &BrowseView) {
    let t = v.theme;
    let title = match v.search.matching() {
        Some(_) => "Tree (filtered)".to_string(),
        None => "Tree".to_string(),
    };
    let block = pane(v.theme, title, v.focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let cursor = v.browse.cursor();
    let mut lines = Vec::new();
    for (i, &row) in v
        .browse
        .tree
        .window(cursor.offset, inner.height as usize)
        .iter()
        .enumerate()
    {
        let index = cursor.offset + i;
        let view = v.browse.tree.view(row);
        let label = sanitize::line(&view.label, 300);
        let marks = row_marks(&v.browse.tree, v.catalogue, v.marks, row);
        let mut spans = vec![
            mark_span(v.theme, marks.own),
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
        let label = highlighted(&label, &v.search.highlights(&label), style, t.matched);
        let mut tail = Vec::new();
        if view.server
            && view.count == 0
            && v.servers
                .iter()
                .any(|s| s.status == Status::NoResources && s.name == view.label)
        {
            // A tools-only server (server-filesystem): said on its row, with where to look.
            tail.push(Span::styled(NO_RESOURCES_ROW, t.dim));
        } else if view.folder {
            tail.push(Span::styled(
                format!("  {}", thousands(view.count as usize)),
                t.dim,
            ));
        }
        if let Some(about) = skill_about(v, row, &view) {
            tail.push(Span::styled(about, t.dim));
        }
        if view.item.is_some() && view.folder {
            // A resource that is also a folder: the mark column is the resource's; the
            // folder's prefix mark follows the `•`.
            tail.push(Span::styled(" •", t.dim));
            if marks.folder.is_some() {
                let mut folder = mark_span(v.theme, marks.folder);
                folder.content = mark_glyph(marks.folder).into();
                tail.push(folder);
            }
            if index == cursor.index {
                // Which of the two a key marks, where the eye is: `+` here marks the resource
                // alone (a directory's own listing), and a newcomer expects the folder.
                tail.push(Span::styled(BOTH_KEYS, t.dim));
            }
        }
        // A long label is cut (with `…`) before the count and marks after it, which say
        // more than the label's last characters; the cursor marker takes one column.
        let room = (inner.width as usize).saturating_sub(1 + width_of(&spans) + width_of(&tail));
        spans.extend(if room >= MIN_LABEL {
            ellipsize(label, room)
        } else {
            label
        });
        spans.extend(tail);
        lines.push(row_line(v.theme, index == cursor.index, spans, inner.width));
    }
    if lines.is_empty() {
        lines.push(Line::styled(empty_message(v), t.dim));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// On a skill's folder row (`skill://NAME/`): `  skill: DESCRIPTION` (its `SKILL.md`'s listed
/// description, cut), so a skill reads as one thing that opens into its files. Only rows on
/// screen whose label is a skill's are looked at.
fn skill_about(v: &BrowseView, row: Row, view: &RowView) -> Option<String> {
    if view.server || !view.folder || !view.label.starts_with(crate::skills::SCHEME) {
        return None;
    }
    let (server, prefix) = v.browse.tree.uri_prefix(v.catalogue, row)?;
    if crate::skills::unit_of(&prefix).as_deref() != Some(prefix.as_str()) {
        return None;
    }
    let main = v
        .catalogue
        .find(server, &format!("{prefix}{}", crate::skills::MAIN))
        .and_then(|id| v.catalogue.get(id))?;
    Some(format!(
        "  skill: {}",
        sanitize::line(main.description().unwrap_or(""), 80)
    ))
}

fn empty_message(v: &BrowseView) -> String {
    if v.search.matching() == Some(0) && !v.search.searching() {
        "no resource matches".into()
    } else if v
        .servers
        .iter()
        .any(|s| matches!(s.status, Status::Connecting | Status::Loading { .. }))
    {
        "waiting for servers…".into()
    } else {
        "no resources".into()
    }
}

fn order_value(v: &BrowseView, id: ItemId) -> String {
    let Some(item) = v.catalogue.get(id) else {
        return String::new();
    };
    match v.browse.order {
        SortKey::Priority => item
            .priority()
            .map(|p| format!("{p:.2}"))
            .unwrap_or_default(),
        SortKey::LastModified => item
            .last_modified()
            .map(|d| sanitize::line(d, 20))
            .unwrap_or_default(),
        SortKey::Size => item.size().map(human_size).unwrap_or_default(),
        SortKey::Server => sanitize::line(v.catalogue.server_name(id.server), 12),
        SortKey::Name | SortKey::Uri => String::new(),
    }
}

/// The width of the list's value column for an order (`None`: the order shows no column).
fn column_width(order: SortKey) -> Option<usize> {
    match order {
        SortKey::Priority => Some(6),
        SortKey::Size => Some(9),
        SortKey::LastModified => Some(20),
        SortKey::Server => Some(12),
        SortKey::Name | SortKey::Uri => None,
    }
}

/// The list pane: only the rows on screen are built.
pub fn draw_list(frame: &mut Frame, area: Rect, v: &BrowseView) {
    let t = v.theme;
    let title = if v.search.matching().is_some() {
        "List · best match first".to_string()
    } else if v.browse.list_key != Some(v.browse.order) {
        format!("List · order: {} (sorting…)", v.browse.order.label())
    } else {
        format!("List · order: {}", v.browse.order.label())
    };
    let block = pane(v.theme, title, v.focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let cursor = v.browse.cursor();
    let ids = v.browse.list_ids(v.search);
    let end = (cursor.offset + inner.height as usize).min(ids.len());
    let mut lines = Vec::new();
    for (i, &id) in ids[cursor.offset.min(end)..end].iter().enumerate() {
        let index = cursor.offset + i;
        let Some(item) = v.catalogue.get(id) else {
            continue;
        };
        let name = sanitize::line(item.display_name(), 200);
        let uri = sanitize::line(item.uri(), 500);
        let mut spans = vec![mark_span(
            v.theme,
            mark_of(v.catalogue, v.marks, id).map(|e| (e.mark, e.is_direct())),
        )];
        if let Some(width) = column_width(v.browse.order) {
            // A missing value keeps the column: `—` in its place.
            let mut value = order_value(v, id);
            if value.is_empty() {
                value = "—".into();
            }
            spans.push(Span::styled(format!("{value:>width$} "), t.dim));
        }
        spans.extend(highlighted(
            &name,
            &v.search.highlights(&name),
            t.text,
            t.matched,
        ));
        spans.push(Span::raw("  "));
        spans.extend(highlighted(
            &uri,
            &v.search.highlights(&uri),
            t.dim,
            t.matched,
        ));
        lines.push(row_line(v.theme, index == cursor.index, spans, inner.width));
    }
    if lines.is_empty() {
        lines.push(Line::styled(empty_message(v), t.dim));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
