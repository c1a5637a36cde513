//! Text helpers shared by the core and the panes: numbers as people read them, and wrapping.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// `HH:MM:SS` in local time.
pub fn clock(at: std::time::SystemTime) -> String {
    let secs = at
        .duration_since(std::time::SystemTime::UNIX_EPOCH)
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

/// `1234567` → `1,234,567`, as the command line prints figures ([`crate::units::thousands`]).
pub fn thousands(n: usize) -> String {
    crate::units::thousands(n as u64)
}

/// Wraps a line to `width` columns by word: a row breaks at its last space (the space is
/// dropped), and only a word longer than a row is cut. Continuation rows start with `indent`
/// spaces. Styles are kept across breaks.
pub fn wrap(line: Line<'static>, width: usize, indent: usize, out: &mut Vec<Line<'static>>) {
    if line.width() <= width {
        out.push(line);
        return;
    }
    let width = width.max(1);
    let indent = if indent * 2 > width { 0 } else { indent };
    let cells: Vec<(char, usize, Style)> = line
        .spans
        .iter()
        .flat_map(|span| {
            let style = line.style.patch(span.style);
            span.content
                .chars()
                .map(move |c| (c, c.width().unwrap_or(0), style))
        })
        .collect();
    let mut start = 0;
    let mut first = true;
    while start < cells.len() {
        let room = if first { width } else { width - indent };
        // The longest run from `start` that fits, and the last space in it.
        let mut used = 0;
        let mut end = start;
        let mut space = None;
        while end < cells.len() && (used + cells[end].1 <= room || end == start) {
            if cells[end].0 == ' ' && end > start {
                space = Some(end);
            }
            used += cells[end].1;
            end += 1;
        }
        let (row_end, next) = match space {
            Some(p) if end < cells.len() && cells[end].0 != ' ' => (p, p + 1),
            _ if end < cells.len() && cells[end].0 == ' ' => (end, end + 1),
            _ => (end, end),
        };
        let mut spans = Vec::new();
        if !first && indent > 0 {
            spans.push(Span::raw(" ".repeat(indent)));
        }
        for &(c, _, style) in &cells[start..row_end] {
            match spans.last_mut() {
                Some(last) if last.style == style => last.content.to_mut().push(c),
                _ => spans.push(Span::styled(c.to_string(), style)),
            }
        }
        out.push(Line::from(spans));
        start = next;
        first = false;
    }
}

/// The display width of `spans`, in terminal columns.
pub fn width_of(spans: &[Span]) -> usize {
    spans.iter().map(Span::width).sum()
}

/// Cuts `spans` to at most `width` columns: a row that does not fit ends in `…` (in the style
/// of the text it replaces), so a cut is never silent. Widths are display widths: a wide
/// character that would straddle the edge goes whole.
pub fn ellipsize(spans: Vec<Span<'static>>, width: usize) -> Vec<Span<'static>> {
    if width_of(&spans) <= width {
        return spans;
    }
    if width == 0 {
        return Vec::new();
    }
    let room = width - 1;
    let mut used = 0;
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut last_style = Style::default();
    'spans: for span in spans {
        let mut kept = String::new();
        last_style = span.style;
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > room {
                if !kept.is_empty() {
                    out.push(Span::styled(kept, span.style));
                }
                break 'spans;
            }
            used += w;
            kept.push(c);
        }
        out.push(Span::styled(kept, span.style));
    }
    out.push(Span::styled("…", last_style));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(spans: &[&str], width: usize) -> String {
        let spans = spans.iter().map(|s| Span::raw(s.to_string())).collect();
        let out = ellipsize(spans, width);
        let text: String = out.iter().map(|s| s.content.as_ref()).collect();
        assert!(width_of(&out) <= width, "{text:?} is wider than {width}");
        text
    }

    #[test]
    fn a_cut_row_ends_in_an_ellipsis_by_display_width() {
        assert_eq!(cut(&["abc", "def"], 6), "abcdef");
        assert_eq!(cut(&["abc", "def"], 5), "abcd…");
        assert_eq!(cut(&["abc", "def"], 3), "ab…");
        assert_eq!(cut(&["abc"], 1), "…");
        assert_eq!(cut(&["abc"], 0), "");
        // Wide characters count two columns; one that would straddle the edge goes whole.
        assert_eq!(cut(&["日本語"], 6), "日本語");
        assert_eq!(cut(&["日本語"], 5), "日本…");
        assert_eq!(cut(&["日本語"], 4), "日…");
        // Multi-byte but narrow: bytes do not count.
        assert_eq!(cut(&["éééé"], 3), "éé…");
    }

    fn wrapped(text: &str, width: usize, indent: usize) -> Vec<String> {
        let mut out = Vec::new();
        wrap(Line::raw(text.to_string()), width, indent, &mut out);
        out.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn wraps_by_word() {
        assert_eq!(
            wrapped("the quick brown fox jumps", 10, 0),
            ["the quick", "brown fox", "jumps"]
        );
        // Continuation rows are indented; words are never cut when they fit a row.
        assert_eq!(
            wrapped("description of a resource", 14, 2),
            ["description of", "  a resource"]
        );
    }

    #[test]
    fn cuts_only_words_longer_than_a_row() {
        assert_eq!(wrapped("ab abcdefghijkl", 6, 0), ["ab", "abcdef", "ghijkl"]);
        assert_eq!(wrapped("abcdefghij", 4, 0), ["abcd", "efgh", "ij"]);
    }

    #[test]
    fn keeps_styles_across_breaks() {
        let bold = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
        let line = Line::from(vec![
            Span::raw("plain words "),
            Span::styled("bold words", bold),
        ]);
        let mut out = Vec::new();
        wrap(line, 12, 0, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].to_string(), "plain words");
        assert_eq!(out[1].spans, [Span::styled("bold words", bold)]);
    }
}
