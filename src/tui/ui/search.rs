//! The search line.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::SearchState;
use crate::tui::text::thousands;
use crate::tui::theme::Theme;

/// The search line: the query (or how to start one) and how many match.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    search: &SearchState,
    focused: bool,
    key: &str,
    total: usize,
    t: &Theme,
) {
    let mut spans = vec![Span::styled("/ ", if focused { t.key } else { t.dim })];
    if search.query.is_empty() && !focused {
        spans.push(Span::styled(format!("press {key} to search"), t.dim));
    } else {
        let q = &search.query;
        let at = search.cursor.min(q.len());
        if !focused {
            spans.push(Span::styled(q.clone(), t.text));
        } else if at == q.len() {
            spans.push(Span::styled(q.clone(), t.text));
            spans.push(Span::styled("▏", t.key));
        } else {
            // The cursor on a character: that character in reverse video.
            let c = q[at..].chars().next().map_or(0, char::len_utf8);
            spans.push(Span::styled(q[..at].to_string(), t.text));
            spans.push(Span::styled(q[at..at + c].to_string(), t.selection));
            spans.push(Span::styled(q[at + c..].to_string(), t.text));
        }
    }
    if let Some(n) = search.matching() {
        let mut info = format!("  {} of {} match", thousands(n), thousands(total));
        if search.searching() {
            let (scanned, total) = search.progress;
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
