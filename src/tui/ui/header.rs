//! The header: one line per server (glyph, name, state, connection). When there are more
//! servers than lines, failed servers keep their lines (named, with the reason) and the
//! others are counted on the last line.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::app::{ServerState, Status};
use crate::tui::theme::Theme;

/// Which servers get a line of `lines`: all when they fit; otherwise `lines - 1` of them,
/// failed ones first (in their order), and the rest folded into a count.
pub fn shown(servers: &[ServerState], lines: usize) -> Vec<usize> {
    if servers.len() <= lines {
        return (0..servers.len()).collect();
    }
    let room = lines.saturating_sub(1);
    let failed = |i: &usize| matches!(servers[*i].status, Status::Failed(_));
    let mut picked: Vec<usize> = (0..servers.len()).filter(failed).take(room).collect();
    let others = (0..servers.len()).filter(|i| !failed(i));
    picked.extend(others.take(room - picked.len()));
    picked.sort_unstable();
    picked
}

/// One line per server with its state; the ones that do not fit are counted (a failed one
/// that does not fit either is named on the fold line).
pub fn draw(frame: &mut Frame, area: Rect, servers: &[ServerState], t: &Theme) {
    let mut lines = Vec::new();
    let picked = shown(servers, area.height as usize);
    for &i in &picked {
        let s = &servers[i];
        let (glyph, text) = s.status.describe();
        let style = match s.status {
            Status::Connecting | Status::Loading { .. } | Status::Retrying { .. } => t.busy,
            Status::Ready { .. } => t.ok,
            Status::NoResources => t.dim,
            Status::Failed(_) => t.error,
        };
        let mut spans = vec![
            Span::styled(format!("{glyph} "), style),
            Span::styled(s.name.clone(), t.server),
            Span::raw("  "),
            Span::styled(text, style),
        ];
        if let Some((appeared, disappeared)) = s.changes
            && !matches!(s.status, Status::Failed(_))
        {
            spans.push(Span::styled(
                format!("  +{appeared} −{disappeared}"),
                t.busy,
            ));
        }
        if let Some(detail) = &s.detail
            && !matches!(s.status, Status::Failed(_))
        {
            spans.push(Span::styled(format!("  ({detail})"), t.dim));
        }
        lines.push(Line::from(spans));
    }
    if picked.len() < servers.len() {
        let rest: Vec<&ServerState> = (0..servers.len())
            .filter(|i| picked.binary_search(i).is_err())
            .map(|i| &servers[i])
            .collect();
        let count = |f: fn(&Status) -> bool| rest.iter().filter(|s| f(&s.status)).count();
        let ready = count(|s| matches!(s, Status::Ready { .. } | Status::NoResources));
        let loading = count(|s| matches!(s, Status::Connecting | Status::Loading { .. }));
        let mut spans = if picked.is_empty() {
            // One line for every server (a short terminal): the sum, then who failed.
            summary(&rest, ready, loading, t)
        } else {
            vec![Span::styled(
                format!("… {} more: {ready} ready, {loading} loading", rest.len()),
                t.dim,
            )]
        };
        let failed: Vec<String> = rest
            .iter()
            .filter_map(|s| match &s.status {
                Status::Failed(why) => Some(format!(
                    "{} ({})",
                    s.name,
                    crate::sanitize::line(&why.why, 60)
                )),
                _ => None,
            })
            .collect();
        if !failed.is_empty() {
            spans.push(Span::styled(
                format!(", {} failed: {}", failed.len(), failed.join(", ")),
                t.error,
            ));
        }
        lines.push(Line::from(spans));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The header's one line for several servers: `● 4 servers: 3 ready (1 without resources),
/// 1 loading` (the glyph of the least ready), and what each failed one said, after it.
fn summary(
    servers: &[&ServerState],
    ready: usize,
    loading: usize,
    t: &Theme,
) -> Vec<Span<'static>> {
    let failed = servers
        .iter()
        .any(|s| matches!(s.status, Status::Failed(_)));
    let (glyph, style) = if failed {
        ("✗", t.error)
    } else if loading > 0 {
        ("◌", t.busy)
    } else {
        ("●", t.ok)
    };
    let bare = servers
        .iter()
        .filter(|s| matches!(s.status, Status::NoResources))
        .count();
    let resources: usize = servers
        .iter()
        .filter_map(|s| match s.status {
            Status::Ready { count, .. } => Some(count),
            _ => None,
        })
        .sum();
    let mut text = format!("{} servers: {ready} ready", servers.len());
    if bare > 0 {
        text.push_str(&format!(" ({bare} without resources)"));
    }
    if loading > 0 {
        text.push_str(&format!(", {loading} loading"));
    }
    text.push_str(&format!(
        " · {} resources",
        crate::tui::text::thousands(resources)
    ));
    vec![
        Span::styled(format!("{glyph} "), style),
        Span::styled(text, t.dim),
    ]
}
