//! The agent view: the ranked, budgeted list an agent would receive (the preview).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::pane;
use crate::catalog::Catalogue;
use crate::context::{Budget, Included, LeftOut, Mark, Missing, Preview, Reason, Unavailable};
use crate::sanitize;
use crate::tui::agent::{AgentPreview, Row, row};
use crate::tui::app::ContextState;
use crate::tui::text::thousands;
use crate::tui::theme::Theme;

/// What the agent view draws from.
pub struct AgentView<'a> {
    pub context: &'a ContextState,
    pub catalogue: &'a Catalogue,
    /// (done, total) of the token counts in flight.
    pub progress: Option<(usize, usize)>,
    /// The figures are not final yet, and why ([`crate::tui::App::figures_pending`]).
    pub pending: Option<&'static str>,
    /// The command that serves this set to a host.
    pub serve: Option<String>,
    pub theme: &'a Theme,
}

/// The agent view's row `index`: the kind of row ([`row`]), drawn by its formatter.
fn agent_line(v: &AgentView, index: usize) -> Line<'static> {
    let Some(agent) = v.context.shown_agent() else {
        let text = match v.context.view.host {
            Some(host) => format!("reading the set for {}…", host.dialect().host_name),
            None => "resolving…".to_string(),
        };
        return Line::styled(text, v.theme.dim);
    };
    let p = &agent.preview;
    match row(p, index) {
        Some(Row::Included { rank, entry }) => included_line(v, agent, rank, entry),
        Some(Row::CutLine) => cut_line(v, p),
        Some(Row::LeftOutHeading) => left_out_heading(v.theme, p),
        Some(Row::LeftOut(l)) => left_out_line(v, agent, l),
        Some(Row::Unavailable(u)) => unavailable_line(v.theme, u),
        Some(Row::MissingHeading) => missing_heading(v.theme, p),
        Some(Row::Missing(m)) => missing_line(v.theme, m),
        None => Line::raw(""),
    }
}

/// The name and the `server  uri` of candidate `index` (empty when it is gone).
fn describe(v: &AgentView, agent: &AgentPreview, index: usize) -> (String, String) {
    let Some(id) = agent.id(index) else {
        return (String::new(), String::new());
    };
    let Some(item) = v.catalogue.get(id) else {
        return (String::new(), String::new());
    };
    (
        sanitize::line(item.display_name(), 80),
        format!(
            "{}  {}",
            sanitize::line(v.catalogue.server_name(id.server), 40),
            sanitize::line(item.uri(), 500)
        ),
    )
}

/// `   3 +     1,234     12,345  name  server  uri`
fn included_line(
    v: &AgentView,
    agent: &AgentPreview,
    rank: usize,
    inc: &Included,
) -> Line<'static> {
    let t = v.theme;
    let (name, uri) = describe(v, agent, inc.index);
    Line::from(vec![
        Span::styled(format!("{:>4} ", rank + 1), t.dim),
        Span::styled(
            if inc.pinned { "+ " } else { "  " },
            if inc.pinned { t.pin } else { t.text },
        ),
        Span::styled(
            format!(
                "{:>9} ",
                format!(
                    "{}{}",
                    if inc.estimated { "~" } else { "" },
                    thousands(inc.tokens as usize)
                )
            ),
            t.text,
        ),
        Span::styled(
            format!("{:>10}  ", thousands(inc.running_total as usize)),
            t.dim,
        ),
        Span::styled(name, t.text),
        Span::styled(format!("  {uri}"), t.dim),
    ])
}

/// `── cut line · budget … · used … · … left ──` (or the end, without a budget).
fn cut_line(v: &AgentView, p: &Preview) -> Line<'static> {
    let t = v.theme;
    let pending = if v.pending.is_some() { "~" } else { "" };
    let text = match p.budget {
        Budget::Tokens(b) if p.pins_over_budget => format!(
            "── cut line · pins alone need {} tokens, over the budget of {} ──",
            thousands(p.total_tokens as usize),
            thousands(b as usize)
        ),
        Budget::Tokens(b) => format!(
            "── cut line · budget {} · used {pending}{} · {pending}{} left ──",
            thousands(b as usize),
            thousands(p.total_tokens as usize),
            thousands(b.saturating_sub(p.total_tokens) as usize)
        ),
        Budget::All => format!(
            "── end · budget all (no limit) · {pending}{} tokens ──",
            thousands(p.total_tokens as usize)
        ),
        Budget::Unset => format!(
            "── end · no budget set: pinned only · {pending}{} tokens ──",
            thousands(p.total_tokens as usize)
        ),
    };
    let text = match v.pending {
        Some(why) => format!("{text} {why}"),
        None => text,
    };
    Line::styled(text, if p.pins_over_budget { t.error } else { t.title })
}

/// `Left out (N)`: the resources and the unavailable servers' marks.
fn left_out_heading(t: &Theme, p: &Preview) -> Line<'static> {
    Line::styled(
        format!(
            "Left out ({})",
            thousands(p.left_out.len() + p.unavailable.len())
        ),
        t.title,
    )
}

/// `     x excluded                   1,234  name  server  uri  (why)`
fn left_out_line(v: &AgentView, agent: &AgentPreview, l: &LeftOut) -> Line<'static> {
    let t = v.theme;
    let (name, uri) = describe(v, agent, l.index as usize);
    let tokens = match l.tokens {
        Some(n) => format!(
            "{}{}",
            if l.estimated { "~" } else { "" },
            thousands(n as usize)
        ),
        None => String::new(),
    };
    let mut spans = vec![
        if l.reason == Reason::Excluded {
            Span::styled("     x ", t.exclude)
        } else {
            Span::styled("     - ", t.dim)
        },
        Span::styled(format!("{:<22}", l.reason.name()), t.field),
        Span::styled(format!("{tokens:>9}  "), t.text),
        Span::styled(name, t.text),
        Span::styled(format!("  {uri}"), t.dim),
    ];
    match &l.reason {
        Reason::ReadFailed(why) => spans.push(Span::styled(
            format!("  ({})", sanitize::line(why, 200)),
            t.error,
        )),
        Reason::HostLimit(why) | Reason::OwnOutput(why) => spans.push(Span::styled(
            format!("  ({})", sanitize::line(why, 300)),
            t.dim,
        )),
        _ => {}
    }
    Line::from(spans)
}

/// A mark on a server that could not be listed: the agent gets nothing for it.
fn unavailable_line(t: &Theme, u: &Unavailable) -> Line<'static> {
    Line::from(vec![
        mark_span(t, u.mark),
        Span::styled(format!("{:<22}", "server unavailable"), t.field),
        Span::styled(
            format!(
                "{:>9}  {}  {}",
                u.mark.name(),
                sanitize::line(&u.target.server, 40),
                sanitize::line(&u.target.pattern.to_string(), 500)
            ),
            t.text,
        ),
        Span::styled(format!("  ({})", sanitize::line(&u.error, 200)), t.error),
    ])
}

/// `Missing marks (N): …`
fn missing_heading(t: &Theme, p: &Preview) -> Line<'static> {
    Line::styled(
        format!(
            "Missing marks ({}): kept in the set, they match no listed resource",
            p.missing.len()
        ),
        t.title,
    )
}

/// `     + pin     server  pattern`
fn missing_line(t: &Theme, m: &Missing) -> Line<'static> {
    Line::from(vec![
        mark_span(t, m.mark),
        Span::styled(format!("{:<8}", m.mark.name()), t.field),
        Span::styled(
            format!(
                "{}  {}",
                sanitize::line(&m.target.server, 40),
                sanitize::line(&m.target.pattern.to_string(), 500)
            ),
            t.text,
        ),
    ])
}

/// `     + ` or `     x `, in the mark's colour.
fn mark_span(t: &Theme, mark: Mark) -> Span<'static> {
    if mark == Mark::Pin {
        Span::styled("     + ", t.pin)
    } else {
        Span::styled("     x ", t.exclude)
    }
}

/// The agent view: what the agent is handed, the cut line, what is left out and why.
pub fn draw(frame: &mut Frame, area: Rect, v: &AgentView) {
    let t = v.theme;
    let policy = &v.context.set.policy;
    let title = format!(
        "Agent view · budget {} · audience {} · min priority {}",
        match policy.budget {
            Budget::Unset => "none set (pinned only)".to_string(),
            Budget::Tokens(b) => thousands(b as usize),
            Budget::All => "all".to_string(),
        },
        policy.audience.name(),
        policy
            .min_priority
            .map_or("none".to_string(), |m| format!("{m:.2}")),
    );
    let title = match v.context.view.host {
        Some(host) => format!(
            "{title} · as {} receives it at session start",
            host.dialect().host_name
        ),
        None => title,
    };
    let block = pane(t, title, true);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if inner.height == 0 {
        return;
    }
    let mut lines = Vec::new();
    let mut summary = vec![];
    let pending = if v.pending.is_some() { "~" } else { "" };
    if v.context.view.host.is_some() {
        lines.extend(host_lines(v, inner.width as usize));
    }
    if let Some(agent) = &v.context.agent {
        let p = &agent.preview;
        if v.context.view.host.is_some() {
            summary.push(Span::styled("the set: ", t.dim));
        }
        summary.push(Span::styled(
            format!(
                "{pending}{} resource{} · {}{} tokens",
                thousands(p.included.len()),
                if p.included.len() == 1 { "" } else { "s" },
                if p.is_estimated() || v.pending.is_some() {
                    "~"
                } else {
                    ""
                },
                thousands(p.total_tokens as usize)
            ),
            t.text,
        ));
    }
    if let Some(why) = v.pending {
        summary.push(Span::styled(format!(" · {why}"), t.busy));
    }
    match v.progress {
        Some((done, total)) => {
            summary.push(Span::styled(format!(" · counting {done}/{total}…"), t.busy))
        }
        None if v
            .context
            .agent
            .as_ref()
            .is_some_and(|a| a.preview.is_estimated()) =>
        {
            summary.push(Span::styled(" · ~ estimated from size", t.dim))
        }
        None => {}
    }
    summary.push(Span::styled(
        format!(
            " · {} counts, an estimate of the host model's tokenizer",
            policy.tokenizer.name()
        ),
        t.dim,
    ));
    lines.push(Line::from(summary));
    if policy.budget == Budget::Unset {
        // The rule that decides this list, said where the list is (`]` is the key for it).
        let rule = format!("{}; `]` sets one here", Budget::UNSET_RULE);
        crate::tui::text::wrap(
            Line::styled(rule, t.busy),
            inner.width as usize,
            2,
            &mut lines,
        );
    }
    if let Some(serve) = &v.serve {
        lines.push(serve_line(t, serve, inner.width as usize));
    }
    lines.push(Line::styled(
        format!(
            "{:>4} {:<2}{:>9} {:>10}  resource",
            "#", "", "tokens", "total"
        ),
        t.field,
    ));
    let height = inner.height.saturating_sub(lines.len() as u16) as usize;
    let rows = v.context.shown_agent().map_or(1, |a| a.row_count());
    let scroll = v.context.view.scroll.min(rows.saturating_sub(height));
    for r in scroll..(scroll + height).min(rows) {
        lines.push(agent_line(v, r));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// How to hand the set to a host (`serve`'s command line), and the keys that do it, as many
/// as fit in `width`.
fn serve_line(t: &Theme, serve: &str, width: usize) -> Line<'static> {
    let serve = sanitize::line(serve, 500);
    let mut used = "hand it to a host: ".len() + serve.chars().count();
    let mut spans = vec![
        Span::styled("hand it to a host: ", t.dim),
        Span::styled(serve, t.text),
    ];
    // Whole hints only, as many as fit.
    for hint in ["I: install in a host", "Y: copy the bundle", "H: host view"] {
        let gap = if spans.len() == 2 { 3 } else { 2 };
        if used + gap + hint.len() > width {
            break;
        }
        used += gap + hint.len();
        spans.push(Span::styled(format!("{:gap$}{hint}", ""), t.dim));
    }
    Line::from(spans)
}

/// With a host chosen: what its model receives at session start, through which channel, what
/// its cut leaves out, and its warnings (as `mcpick preview --host` says them, wrapped to
/// `width` so each can be read whole).
fn host_lines(v: &AgentView, width: usize) -> Vec<Line<'static>> {
    let t = v.theme;
    let Some(host) = v.context.view.host else {
        return Vec::new();
    };
    let name = host.dialect().host_name;
    let mut lines = Vec::new();
    if let Some(why) = &v.context.view.host_error {
        lines.push(Line::styled(format!("{name}: {why}"), t.error));
        return lines;
    }
    let Some(h) = v.context.host_view() else {
        lines.push(Line::styled(
            format!("{name}: reading the set to see what its channel carries…"),
            t.busy,
        ));
        return lines;
    };
    let stale = if v.context.host_stale() { "~" } else { "" };
    let n = h.agent.preview.included.len();
    let cut = h.cut();
    let mut spans = vec![Span::styled(
        format!(
            "{name} receives {stale}{} of {stale}{} included resource{} at session start through {}{} · {} bytes",
            thousands(n),
            thousands(n + cut),
            if n + cut == 1 { "" } else { "s" },
            h.what,
            h.provenance,
            thousands(h.bytes),
        ),
        t.text,
    )];
    if cut > 0 {
        spans.push(Span::styled(
            format!(" · {} left out: host limit", thousands(cut)),
            t.field,
        ));
    }
    if let Some(next) = &h.next_turn {
        spans.push(Span::styled(format!(" · {next}"), t.field));
    }
    if stale == "~" {
        spans.push(Span::styled(" · reading the set again…", t.busy));
    }
    // Wrapped, not cut at the pane's edge: the end says where the channel's figures come from
    // when they are not measured.
    crate::tui::text::wrap(Line::from(spans), width.max(20), 2, &mut lines);
    let mut list = |items: &[String], prefix: &str, what: &str, style| {
        const SHOWN: usize = 2;
        for item in items.iter().take(SHOWN) {
            let line = Line::styled(format!("{prefix}{}", sanitize::line(item, 1000)), style);
            crate::tui::text::wrap(line, width.max(20), 2, &mut lines);
        }
        if items.len() > SHOWN {
            lines.push(Line::styled(
                format!(
                    "{} more {what}: `mcpick preview --host {}` lists them",
                    items.len() - SHOWN,
                    host.name()
                ),
                style,
            ));
        }
    };
    list(&h.skills, "", "skills", t.field);
    list(h.drift.as_slice(), "note: ", "notes", t.field);
    list(&h.warnings, "warning: ", "warnings", t.error);
    lines
}
