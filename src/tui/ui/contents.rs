//! The contents pane: the selected row's fields and its read document (built in
//! [`crate::tui::contents::rows`]), scrolled.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::pane;
use crate::tui::contents::rows::{ContentsView, rows};

/// The contents pane: its rows at the pane's width, from `scroll`, with a position label.
pub fn draw(frame: &mut Frame, area: Rect, view: &ContentsView, scroll: usize, focused: bool) {
    let mut title = "Contents".to_string();
    if view.updated {
        title.push_str(" · updated");
    }
    if view.loading {
        title.push_str(" · reading…");
    }
    let block = pane(view.theme, title, focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = rows(view, inner.width);
    let max = rows.len().saturating_sub(inner.height as usize);
    let scroll = scroll.min(max);
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
            Paragraph::new(Span::styled(label, view.theme.dim)),
            Rect::new(x, area.bottom() - 1, 6.min(area.width), 1),
        );
    }
}
