//! The help overlay, generated from the key table.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::pane;
use crate::tui::keymap::{Action, Keymap, Mode};
use crate::tui::text::wrap;
use crate::tui::theme::Theme;

/// The help text, generated from the key table.
pub fn help_lines(keymap: &Keymap, t: &Theme) -> Vec<Line<'static>> {
    help_lines_from(keymap, Mode::Browse, t)
}

/// The help text opened from `from`: its keys first, then every other mode's.
pub fn help_lines_from(keymap: &Keymap, from: Mode, t: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let modes = std::iter::once(from).chain(Mode::ALL.into_iter().filter(|&m| m != from));
    for mode in modes {
        lines.push(Line::styled(mode.title().to_string(), t.title));
        for &action in Action::ALL {
            let keys = keymap.keys_for(mode, action);
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
        let typed = match mode {
            Mode::Search => Some("Type into the query"),
            Mode::Form => Some("Type into the field"),
            _ => None,
        };
        if let Some(typed) = typed {
            lines.push(Line::from(vec![
                Span::styled(format!("  {:<18}", "other keys"), t.key),
                Span::styled(typed.to_string(), t.text),
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
        "A • row is both a resource and a folder: the mark column is the resource's (+ x 0 \
         mark it), the mark after • is the folder's URI prefix (F, ctrl-x mark it)."
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

/// The help overlay, centred over the body: the keys of `from` (where it was opened) first.
pub fn draw(frame: &mut Frame, body: Rect, keymap: &Keymap, from: Mode, t: &Theme, scroll: usize) {
    draw_text(
        frame,
        body,
        "Help · keys",
        help_lines_from(keymap, from, t),
        84,
        20,
        t,
        Scroll::Rows(scroll),
    );
}

/// The hand-off overlay (`I`): the commands that serve, install or export the set.
pub fn draw_handoff(frame: &mut Frame, body: Rect, lines: &[String], t: &Theme, scroll: usize) {
    let lines = lines
        .iter()
        // The set's path is the person's, but a file name can hold control characters.
        .map(|l| match l.strip_prefix("  ") {
            Some(command) => {
                Line::styled(format!("  {}", crate::sanitize::line(command, 500)), t.text)
            }
            None => Line::styled(crate::sanitize::line(l, 500), t.title),
        })
        .collect();
    draw_text(
        frame,
        body,
        "Hand off this set · esc closes",
        lines,
        110,
        4,
        t,
        Scroll::Rows(scroll),
    );
}

/// Asking to start the project's servers held back: the page of them the question shows,
/// each whole (shown for a decision when it was made: escapes, never hidden characters),
/// then the answers. Its width and indent are the ones [`crate::tui::app::App::approve_page`]
/// measured the page with, so what `y` approves is what is drawn.
pub fn draw_approve(
    frame: &mut Frame,
    body: Rect,
    title: &str,
    lines: &[String],
    t: &Theme,
    scroll: usize,
) {
    let lines = lines
        .iter()
        .map(|l| match l.strip_prefix("  ") {
            Some(part) => Line::styled(format!("  {}", crate::sanitize::whole_line(part)), t.text),
            None => Line::styled(crate::sanitize::whole_line(l), t.title),
        })
        .collect();
    draw_text(
        frame,
        body,
        title,
        lines,
        crate::tui::app::APPROVE_WIDTH,
        crate::tui::app::APPROVE_INDENT,
        t,
        Scroll::Rows(scroll),
    );
}

/// Which rows of an overlay are shown.
#[derive(Debug, Clone, Copy)]
pub(super) enum Scroll {
    /// From this wrapped row on (the help, the hand-off).
    Rows(usize),
    /// As few rows down as keep this line (by index, before wrapping) whole on screen.
    Keep(usize),
}

/// Lines in a bordered box centred over the body, wrapped (continuations indented by
/// `indent`), scrolled. The box is as tall as the lines once wrapped (up to the body), so a
/// line that wraps never pushes the next ones out of sight.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_text(
    frame: &mut Frame,
    body: Rect,
    title: &str,
    lines: Vec<Line<'static>>,
    width: u16,
    indent: usize,
    t: &Theme,
    scroll: Scroll,
) {
    let inner_width = width.min(body.width).saturating_sub(2).max(1) as usize;
    let mut rows = Vec::new();
    // The first wrapped row of each line.
    let mut starts = Vec::with_capacity(lines.len());
    for l in lines {
        starts.push(rows.len());
        wrap(l, inner_width, indent, &mut rows);
    }
    let height = (rows.len() as u16).saturating_add(2);
    let area = centered(body, width, height);
    frame.render_widget(Clear, area);
    let block = pane(t, title.into(), true);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let shown = inner.height as usize;
    let most = rows.len().saturating_sub(shown);
    let scroll = match scroll {
        Scroll::Rows(n) => n.min(most),
        Scroll::Keep(line) => {
            let first = starts.get(line).copied().unwrap_or(0);
            let end = starts.get(line + 1).copied().unwrap_or(rows.len());
            end.saturating_sub(shown).min(first).min(most)
        }
    };
    let visible: Vec<Line> = rows.into_iter().skip(scroll).take(shown).collect();
    frame.render_widget(Paragraph::new(visible), inner);
}
