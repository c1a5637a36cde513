//! Text helpers shared by the core and the panes: numbers as people read them, and wrapping.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

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

/// Wraps a line to `width` columns, by character; continuation rows start with `indent`
/// spaces.
pub fn wrap(line: Line<'static>, width: usize, indent: usize, out: &mut Vec<Line<'static>>) {
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
