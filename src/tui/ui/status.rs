//! The status line.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::catalog::SortKey;
use crate::tui::agent::AgentPreview;
use crate::tui::app::{ContextState, View};
use crate::tui::keymap::{Action, Keymap, Mode};
use crate::tui::text::{ellipsize, thousands, width_of};
use crate::tui::theme::Theme;

/// What the status line draws from.
pub struct StatusView<'a> {
    pub mode: Mode,
    /// What has the focus, as the mode label says it (`TREE`, `AGENT`, `SEARCH`, …).
    pub label: &'static str,
    pub view: View,
    /// Resources in the catalogue.
    pub total: usize,
    /// How many match, while searching.
    pub matching: Option<usize>,
    pub order: SortKey,
    pub context: &'a ContextState,
    /// (done, total) of the token counts in flight.
    pub progress: Option<(usize, usize)>,
    /// The figures are not final yet, and why ([`crate::tui::App::figures_pending`]).
    pub pending: Option<&'static str>,
    pub notice: Option<&'a str>,
    pub info: Option<&'a str>,
    pub keymap: &'a Keymap,
    pub theme: &'a Theme,
}

/// The status line: view, counts, marks, the budget meter, messages, key hints. When the
/// state and the first key hints ([`KEPT_HINTS`]; the first alone while a message shows) do
/// not fit, the state is said shorter (`160 res`, no `(no budget)`), and then, but for a
/// message, cut, so those hints stay at 80 and 60 columns.
pub fn draw(frame: &mut Frame, area: Rect, v: &StatusView) {
    let t = v.theme;
    let mode = v.mode;
    let hints = hints_of(mode);
    let hints: Vec<Vec<Span<'static>>> = hints
        .iter()
        .filter_map(|(action, label)| {
            let key = v.keymap.hint(mode, *action)?;
            Some(vec![
                Span::styled(key, t.key),
                Span::styled(format!(" {label}"), t.dim),
            ])
        })
        .collect();
    let width = area.width as usize;
    // While a message shows (what a key did, an error), only `? help` is looked for room for.
    let message = v.notice.is_some()
        || v.info.is_some()
        || v.context.saving.save_error.is_some()
        || v.context.saving.load_error.is_some();
    let kept = hints
        .iter()
        .take(if message { 1 } else { KEPT_HINTS })
        .enumerate()
        .map(|(i, h)| if i == 0 { HINT_GAP.len() } else { BETWEEN_HINTS.len() } + width_of(h))
        .sum::<usize>();
    let full = state(v, false, true);
    let line = if width_of(&full) + kept <= width {
        fit(full, hints, width, 0)
    } else {
        // A message is never cut for a hint; else half the line at least stays the state's.
        let reserve = if !message && kept * 2 <= width {
            kept
        } else {
            0
        };
        // Short, a message keeps its words before the meter's counted share (its `~`
        // still says the figure is an estimate).
        fit(state(v, true, !message), hints, width, reserve)
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// The key hints kept when the line is short (the first ones of each mode: `? help`,
/// `/ search`, `+ pin` in the tree).
pub const KEPT_HINTS: usize = 3;

/// What the status line says before its key hints; `short`: in fewer columns; `share`: with
/// how much of the figure is counted.
fn state(v: &StatusView, short: bool, share: bool) -> Vec<Span<'static>> {
    let t = v.theme;
    let mut spans = vec![Span::styled(format!(" {} ", v.label), t.selection)];
    let mut info = if short {
        format!(" {} res", thousands(v.total))
    } else {
        format!(" {} resources", thousands(v.total))
    };
    if let Some(n) = v.matching {
        info.push_str(&format!(" · {} matching", thousands(n)));
    }
    if v.view == View::List && v.matching.is_none() {
        info.push_str(&format!(" · order {}", v.order.label()));
    }
    spans.push(Span::styled(info, t.text));
    let (pins, excludes) = v.context.set.marks.counts();
    if pins + excludes > 0 {
        spans.push(Span::styled(" · ", t.text));
        spans.push(Span::styled(format!("+{pins}"), t.pin));
        spans.push(Span::styled(" ", t.text));
        spans.push(Span::styled(format!("x{excludes}"), t.exclude));
    }
    spans.push(Span::styled(" · ", t.text));
    spans.extend(meter(
        v.context.agent.as_deref(),
        v.pending,
        short,
        share,
        t,
    ));
    if let Some((done, total)) = v.progress {
        spans.push(Span::styled(format!(" · counting {done}/{total}"), t.busy));
    }
    if let Some(e) = &v.context.saving.save_error {
        spans.push(Span::styled(format!(" · not saved: {e}"), t.error));
    } else if v.context.saving.load_error.is_some() {
        spans.push(Span::styled(" · set not saved", t.error));
    }
    if let Some(notice) = v.notice {
        spans.push(Span::styled(format!(" · {notice}"), t.error));
    }
    if let Some(info) = v.info {
        spans.push(Span::styled(format!(" · {info}"), t.dim));
    }
    spans
}

/// The actions the status line offers in `mode`, with their labels.
fn hints_of(mode: Mode) -> &'static [(Action, &'static str)] {
    match mode {
        Mode::Browse => &[
            (Action::Help, "help"),
            (Action::Search, "search"),
            (Action::Pin, "pin"),
            (Action::Exclude, "exclude"),
            (Action::AgentView, "agent"),
            (Action::ToggleView, "tree/list"),
            (Action::FocusContents, "contents"),
            (Action::Log, "log"),
            (Action::Quit, "quit"),
        ],
        Mode::Search => &[
            (Action::AcceptSearch, "keep"),
            (Action::ClearSearch, "clear"),
            (Action::Down, "next"),
        ],
        Mode::Contents => &[
            (Action::Down, "scroll"),
            (Action::FocusList, "back"),
            (Action::Pin, "pin"),
            (Action::Exclude, "exclude"),
            (Action::Reload, "reload"),
            (Action::Quit, "quit"),
        ],
        Mode::Log => &[
            (Action::LogFilter, "server filter"),
            (Action::Close, "close"),
        ],
        Mode::Help => &[(Action::Close, "close")],
        Mode::Templates => &[
            (Action::FillTemplate, "fill in"),
            (Action::Close, "close"),
            (Action::Help, "help"),
        ],
        Mode::Form => &[
            (Action::ReadExpansion, "read"),
            (Action::TakeSuggestion, "take suggestion"),
            (Action::Close, "close"),
            (Action::Help, "help"),
        ],
        Mode::Handoff => &[(Action::Close, "close"), (Action::Help, "help")],
        Mode::Approve => &[
            (Action::Approve, "start those shown"),
            (Action::KeepStopped, "keep them stopped"),
        ],
        Mode::Agent => &[
            (Action::BudgetUp, "budget+"),
            (Action::BudgetDown, "budget-"),
            (Action::CycleAudience, "audience"),
            (Action::Close, "close"),
        ],
    }
}

/// Space before the key hints, and between two hints.
const HINT_GAP: &str = "   ";
const BETWEEN_HINTS: &str = "  ";

/// The status line within `width`: the state first (its messages matter more than a key
/// hint; a state too long for the line ends in `…`, `reserve` columns before the end), then as
/// many whole key hints as fit, in their order (the least important last, so dropped first); a
/// hint is never cut.
fn fit(
    state: Vec<Span<'static>>,
    hints: Vec<Vec<Span<'static>>>,
    width: usize,
    reserve: usize,
) -> Line<'static> {
    let mut spans = ellipsize(state, width - reserve.min(width));
    let mut used = width_of(&spans);
    for (i, hint) in hints.into_iter().enumerate() {
        let gap = if i == 0 { HINT_GAP } else { BETWEEN_HINTS };
        let need = gap.len() + width_of(&hint);
        if used + need > width {
            break;
        }
        spans.push(Span::raw(gap));
        spans.extend(hint);
        used += need;
    }
    Line::from(spans)
}

/// The budget meter: `▕███░░░░░▏ ~1,234/8,000 tok` (`~`: some count is still an estimate
/// from `size`, or the figure is not final: `pending` says why, `resolving…`; `!`: counted
/// figures over the budget; an estimate is never said to be over). While some counts are
/// estimates it says how many are counted (`· 40 of 217 counted`; `short`: `· 40/217
/// counted`): a guess for a server that gives no `size` can be off by half, so a figure
/// with any estimate in it is never shown as the plain total. The browser counts them in the
/// background ([`crate::tui::App`]'s measuring), and the figure becomes exact.
pub fn meter(
    agent: Option<&AgentPreview>,
    pending: Option<&'static str>,
    short: bool,
    share: bool,
    t: &Theme,
) -> Vec<Span<'static>> {
    let Some(agent) = agent else {
        return vec![Span::styled("tokens resolving…", t.dim)];
    };
    let mut spans = meter_of(agent, pending.is_some(), short, t);
    let included = &agent.preview.included;
    let counted = included.iter().filter(|i| !i.estimated).count();
    if share && counted < included.len() {
        spans.push(Span::styled(
            if short {
                format!(
                    " · {}/{} counted",
                    thousands(counted),
                    thousands(included.len())
                )
            } else {
                format!(
                    " · {} of {} counted",
                    thousands(counted),
                    thousands(included.len())
                )
            },
            t.busy,
        ));
    }
    if let Some(why) = pending {
        spans.push(Span::styled(format!(" {why}"), t.busy));
    }
    spans
}

fn meter_of(agent: &AgentPreview, pending: bool, short: bool, t: &Theme) -> Vec<Span<'static>> {
    let p = &agent.preview;
    let (used, budget) = p.meter();
    let est = if p.is_estimated() || pending { "~" } else { "" };
    match budget {
        Some(b) => {
            const CELLS: u64 = 8;
            let filled = used
                .saturating_mul(CELLS)
                .checked_div(b)
                .map_or(CELLS, |f| f.min(CELLS));
            // Over on estimates is not said as over: `~` says the figure is not counted yet.
            // Pins counted past the budget are over for certain, estimates or not.
            let over =
                p.counted_over_budget() || ((p.pins_over_budget || used > b) && est.is_empty());
            vec![
                Span::styled(
                    format!(
                        "▕{}{}▏",
                        "█".repeat(filled as usize),
                        "░".repeat((CELLS - filled) as usize)
                    ),
                    if over { t.error } else { t.ok },
                ),
                Span::styled(
                    format!(
                        " {}{est}{}/{} tok",
                        if over { "!" } else { "" },
                        thousands(used as usize),
                        thousands(b as usize)
                    ),
                    if over { t.error } else { t.text },
                ),
            ]
        }
        None => vec![Span::styled(
            if short {
                format!("{est}{} tok", thousands(used as usize))
            } else {
                format!(
                    "{est}{} tok ({})",
                    thousands(used as usize),
                    if p.budget.is_unset() {
                        "pins only"
                    } else {
                        "budget all"
                    }
                )
            },
            t.text,
        )],
    }
}
