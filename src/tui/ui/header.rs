//! The header: one line per server (glyph, name, state, connection).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::sanitize;
use crate::tui::app::{ServerState, Status};
use crate::tui::text::thousands;
use crate::tui::theme::Theme;

/// One line per server with its state; the ones that do not fit are counted.
pub fn draw(frame: &mut Frame, area: Rect, servers: &[ServerState], t: &Theme) {
    let mut lines = Vec::new();
    let shown = if servers.len() > area.height as usize {
        (area.height as usize).saturating_sub(1)
    } else {
        servers.len()
    };
    for s in servers.iter().take(shown) {
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
    if shown < servers.len() {
        let rest = &servers[shown..];
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
