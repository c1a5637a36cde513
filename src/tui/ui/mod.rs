//! Drawing: `render(&App, &mut Frame)` reads the state and never changes it. One file per
//! pane, each drawing from the narrow state it shows (a sub-state, the theme, a small view
//! struct), never from `App`; this file composes them. Only the rows on screen are built, so a
//! frame costs the same with a hundred resources or a million.

pub mod agent;
pub mod browse;
pub mod contents;
pub mod header;
pub mod help;
pub mod log;
pub mod search;
pub mod status;
mod templates;

use ratatui::Frame;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders};

use super::app::{App, Overlay, View};
use super::keymap::{Action, Mode};
use super::layout::Areas;
use super::theme::Theme;

pub use browse::mark_glyph;
pub use help::{help_lines, help_lines_from};

/// Draws one frame: each pane from the narrow state it shows.
pub fn render(app: &App, frame: &mut Frame) {
    let areas = app.areas();
    let buf_area = frame.area();
    if buf_area.width == 0 || buf_area.height == 0 {
        return;
    }
    let theme = &app.theme;
    header::draw(frame, areas.header, &app.servers, theme);
    let hint = app
        .keymap
        .hint(Mode::Browse, Action::Search)
        .unwrap_or_default();
    search::draw(
        frame,
        areas.search,
        &app.search,
        app.mode() == Mode::Search,
        &hint,
        app.total(),
        theme,
    );
    // The help is drawn over the overlay it was opened from.
    let (overlay, help) = match &app.overlay {
        Some(Overlay::Help { scroll, under }) => (under.as_deref(), Some(*scroll)),
        other => (other.as_ref(), None),
    };
    match overlay {
        Some(&Overlay::Log { filter, scroll }) => {
            log::draw(
                frame,
                areas.body,
                &app.logs,
                &app.messages,
                &app.servers,
                filter,
                scroll,
                theme,
            );
        }
        _ if app.context.view.open => agent::draw(frame, areas.body, &agent_view(app)),
        _ => draw_browse(app, frame, &areas),
    }
    status::draw(frame, areas.status, &status_view(app));
    match overlay {
        Some(&Overlay::Handoff { scroll }) => {
            help::draw_handoff(frame, areas.body, &app.handoff_lines(), theme, scroll)
        }
        Some(&Overlay::Approve { scroll, .. }) => {
            let page = app.approve_page();
            help::draw_approve(
                frame,
                areas.body,
                &app.approve_title(),
                &page.lines,
                theme,
                scroll,
            )
        }
        Some(&Overlay::Templates { cursor }) => {
            templates::draw_list(frame, areas.body, &app.template_rows(), cursor, theme)
        }
        Some(Overlay::Form) => {
            if let Some(form) = &app.form {
                templates::draw_form(frame, areas.body, form, theme);
            }
        }
        _ => {}
    }
    if let Some(scroll) = help {
        help::draw(
            frame,
            areas.body,
            &app.keymap,
            app.help_from(),
            theme,
            scroll,
        );
    }
}

/// The tree or list with the contents pane beside it, or the contents alone when focused
/// on a screen too narrow for both.
fn draw_browse(app: &App, frame: &mut Frame, areas: &Areas) {
    let contents_focused = app.focus == Mode::Contents;
    if contents_focused && areas.contents.is_none() {
        contents::draw(
            frame,
            areas.main,
            &app.contents_view(),
            app.contents.scroll,
            true,
        );
        return;
    }
    let view = browse_view(app);
    match app.browse.view {
        View::Tree => browse::draw_tree(frame, areas.main, &view),
        View::List => browse::draw_list(frame, areas.main, &view),
    }
    if let Some(p) = areas.contents {
        contents::draw(
            frame,
            p,
            &app.contents_view(),
            app.contents.scroll,
            contents_focused,
        );
    }
}

fn browse_view(app: &App) -> browse::BrowseView<'_> {
    browse::BrowseView {
        browse: &app.browse,
        search: &app.search,
        catalogue: &app.catalogue,
        marks: &app.context.set.marks,
        servers: &app.servers,
        focused: app.focus != Mode::Contents,
        theme: &app.theme,
    }
}

fn agent_view(app: &App) -> agent::AgentView<'_> {
    agent::AgentView {
        context: &app.context,
        catalogue: &app.catalogue,
        progress: app.measure_progress(),
        pending: app.figures_pending(),
        serve: Some(app.serve_command()),
        theme: &app.theme,
    }
}

fn status_view(app: &App) -> status::StatusView<'_> {
    status::StatusView {
        mode: app.mode(),
        label: mode_label(app),
        view: app.browse.view,
        total: app.total(),
        matching: app.matching(),
        order: app.browse.order,
        context: &app.context,
        // The pins counted in the background while the agent view is closed are not news:
        // the meter's `~` says a figure is still an estimate.
        progress: app.measure_progress().filter(|_| app.context.view.open),
        pending: app.figures_pending(),
        notice: app.notice.as_deref(),
        info: app.info.as_deref(),
        keymap: &app.keymap,
        theme: &app.theme,
    }
}

/// The status line's mode label: the view that has the focus (an overlay, the log, the
/// agent view, the search field, the contents pane, or the tree or list), so it always says
/// where the keys go.
pub fn mode_label(app: &App) -> &'static str {
    match app.overlay {
        Some(Overlay::Help { .. }) => "HELP",
        Some(Overlay::Handoff { .. }) => "HAND-OFF",
        Some(Overlay::Approve { .. }) => "APPROVE",
        Some(Overlay::Templates { .. }) => "TEMPLATES",
        Some(Overlay::Form) => "TEMPLATE",
        Some(Overlay::Log { .. }) => "LOG",
        None if app.context.view.open => "AGENT",
        None => match app.focus {
            Mode::Search => "SEARCH",
            Mode::Contents => "CONTENTS",
            _ => match app.browse.view {
                View::Tree => "TREE",
                View::List => "LIST",
            },
        },
    }
}

/// A pane's border with its title (`▶` when it has the focus).
fn pane<'a>(t: &Theme, title: String, focused: bool) -> Block<'a> {
    Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.border_focused } else { t.border })
        .title(Span::styled(
            if focused {
                format!("▶ {title} ")
            } else {
                format!(" {title} ")
            },
            t.title,
        ))
}
