//! The template list (`T`) and the form that fills one in, over the body.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::help::{Scroll, draw_text};
use crate::catalog::{ServerId, TemplateEntry};
use crate::sanitize;
use crate::tui::app::form::TemplateForm;
use crate::tui::theme::Theme;

/// Every server's templates, the one at `cursor` marked.
pub fn draw_list(
    frame: &mut Frame,
    body: Rect,
    rows: &[(ServerId, &TemplateEntry)],
    cursor: usize,
    t: &Theme,
) {
    let lines = rows
        .iter()
        .enumerate()
        .map(|(i, (_, e))| {
            let mut spans = vec![
                Span::styled(if i == cursor { "▶ " } else { "  " }, t.title),
                Span::styled(format!("{}  ", sanitize::line(&e.server, 40)), t.server),
                Span::styled(sanitize::line(&e.uri_template, 200), t.text),
                Span::styled(format!("  {}", sanitize::line(&e.name, 80)), t.dim),
            ];
            if let Some(d) = &e.description {
                spans.push(Span::styled(
                    format!(" · {}", sanitize::line(d, 200)),
                    t.dim,
                ));
            }
            Line::from(spans)
        })
        .collect();
    draw_text(
        frame,
        body,
        "Templates · enter fills one in · esc closes",
        lines,
        110,
        4,
        t,
        Scroll::Keep(cursor),
    );
}

/// The form: a field per variable, the expansion so far, the server's suggestions.
pub fn draw_form(frame: &mut Frame, body: Rect, form: &TemplateForm, t: &Theme) {
    let mut lines = Vec::new();
    for (i, (name, value)) in form.fields.iter().enumerate() {
        let focused = i == form.focus;
        lines.push(Line::from(vec![
            Span::styled(if focused { "▶ " } else { "  " }, t.title),
            Span::styled(format!("{:<16}", sanitize::line(name, 40)), t.field),
            Span::styled(sanitize::line(value, 300), t.text),
            Span::styled(if focused { "▏" } else { "" }, t.title),
        ]));
    }
    lines.push(Line::raw(""));
    match form.uri() {
        Ok(uri) => lines.push(Line::from(vec![
            Span::styled("reads    ", t.dim),
            Span::styled(sanitize::line(&uri, 500), t.text),
        ])),
        Err(e) => lines.push(Line::styled(sanitize::line(&e, 300), t.error)),
    }
    if let Some(uri) = &form.reading {
        lines.push(Line::styled(
            format!("reading {}…", sanitize::line(uri, 300)),
            t.dim,
        ));
    }
    if let Some(e) = &form.error {
        lines.push(Line::styled(sanitize::line(e, 500), t.error));
    }
    let suggesting = !form.suggestions.is_empty();
    if suggesting {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            "suggestions (↑/↓ choose, tab takes it):",
            t.dim,
        ));
        for (i, s) in form.suggestions.iter().enumerate() {
            let chosen = i == form.chosen;
            lines.push(Line::from(vec![
                Span::styled(if chosen { "▶ " } else { "  " }, t.title),
                Span::styled(sanitize::line(s, 200), t.text),
            ]));
        }
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        if suggesting {
            "enter reads the expansion (then + pins it) · tab/shift-tab field · esc cancels"
        } else {
            "enter reads the expansion (then + pins it) · ↑/↓ field · esc cancels"
        },
        t.dim,
    ));
    let title = format!(
        "Fill in {}",
        sanitize::line(&form.template.uri_template, 200)
    );
    draw_text(frame, body, &title, lines, 100, 4, t, Scroll::Rows(0));
}
