//! The log view: every server's stderr, notifications and mcpick's own notes, with times.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::pane;
use crate::tui::app::{Log, ServerState};
use crate::tui::text::{clock, wrap};
use crate::tui::theme::Theme;

/// The log rows shown: every server's entries (or one server's), oldest first; with no
/// filter also the status line's messages (`messages`, shown as mcpick's `status`).
pub fn log_lines(
    logs: &[Log],
    messages: &Log,
    servers: &[ServerState],
    filter: Option<u16>,
    t: &Theme,
) -> Vec<Line<'static>> {
    let mut entries = Vec::new();
    for (i, log) in logs.iter().enumerate() {
        if filter.is_some_and(|f| f as usize != i) {
            continue;
        }
        for e in log.entries() {
            entries.push((e.at, i, e));
        }
    }
    if filter.is_none() {
        for e in messages.entries() {
            entries.push((e.at, usize::MAX, e));
        }
    }
    entries.sort_by_key(|(at, i, _)| (*at, *i));
    entries
        .into_iter()
        .map(|(at, i, e)| {
            let source = match (i, e.source) {
                (usize::MAX, _) => "status",
                (_, crate::mcp::log::LogSource::Stderr) => "stderr",
                (_, crate::mcp::log::LogSource::Notification) => "notice",
                (_, crate::mcp::log::LogSource::Client | crate::mcp::log::LogSource::Note) => {
                    "mcpick"
                }
            };
            let style = if matches!(e.source, crate::mcp::log::LogSource::Client) {
                t.error
            } else {
                t.text
            };
            let name = match servers.get(i) {
                Some(s) => s.name.as_str(),
                None if i == usize::MAX => "mcpick",
                None => "?",
            };
            Line::from(vec![
                Span::styled(format!("{} ", clock(at)), t.dim),
                Span::styled(format!("{name} "), t.server),
                Span::styled(format!("{source:<6} "), t.field),
                Span::styled(e.text.clone(), style),
            ])
        })
        .collect()
}

/// The log view: the newest entries at the bottom, `scroll` rows up from them.
#[allow(clippy::too_many_arguments)]
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    logs: &[Log],
    messages: &Log,
    servers: &[ServerState],
    filter: Option<u16>,
    scroll: usize,
    t: &Theme,
) {
    let name = filter
        .and_then(|f| servers.get(f as usize))
        .map_or("all servers".to_string(), |s| s.name.clone());
    let block = pane(t, format!("Log · {name}"), true);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut rows = Vec::new();
    for l in log_lines(logs, messages, servers, filter, t) {
        wrap(l, inner.width.max(1) as usize, 0, &mut rows);
    }
    if rows.is_empty() {
        rows.push(Line::styled("no log entries yet", t.dim));
    }
    let h = inner.height as usize;
    let bottom = rows
        .len()
        .saturating_sub(scroll.min(rows.len().saturating_sub(h)));
    let top = bottom.saturating_sub(h);
    let visible: Vec<Line> = rows[top..bottom].to_vec();
    frame.render_widget(Paragraph::new(visible), inner);
}
