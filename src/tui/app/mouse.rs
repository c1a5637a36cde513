//! The mouse: the wheel scrolls what is under it, a click selects (and opens folders).

use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
use ratatui::layout::Position;

use super::super::keymap::{Action, Mode};
use super::super::layout::{MARK_W, inner};
use super::{App, Effect, View};

/// Rows the mouse wheel moves.
const WHEEL_ROWS: usize = 3;

impl App {
    pub(super) fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Effect> {
        let at = Position::new(mouse.column, mouse.row);
        let areas = self.areas();
        let in_contents = areas.contents.is_some_and(|p| p.contains(at))
            || (self.focus == Mode::Contents
                && areas.contents.is_none()
                && areas.main.contains(at));
        match mouse.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = mouse.kind == MouseEventKind::ScrollDown;
                if self.overlay.is_some() {
                    let action = if down { Action::Down } else { Action::Up };
                    for _ in 0..WHEEL_ROWS {
                        self.scroll_overlay(action, 1);
                    }
                } else if in_contents {
                    self.scroll_contents(if down { 3 } else { -3 });
                } else if areas.main.contains(at) {
                    self.move_by(if down {
                        WHEEL_ROWS as isize
                    } else {
                        -(WHEEL_ROWS as isize)
                    });
                }
                Vec::new()
            }
            MouseEventKind::Down(MouseButton::Left) => {
                if self.overlay.is_some() {
                    return Vec::new();
                }
                if in_contents {
                    if self.contents.item.is_some() {
                        self.focus = Mode::Contents;
                    }
                    return Vec::new();
                }
                let inner = inner(areas.main);
                if self.focus == Mode::Contents {
                    self.focus = Mode::Browse;
                }
                if !inner.contains(at) {
                    return Vec::new();
                }
                let index = self.cursor().offset + (at.y - inner.y) as usize;
                if index >= self.row_count() {
                    return Vec::new();
                }
                if self.focus == Mode::Search {
                    self.focus = Mode::Browse;
                }
                let again = index == self.cursor().index;
                self.move_to(index);
                if self.browse.view == View::Tree {
                    // A click on the folder glyph, or on the selected folder, opens/closes it.
                    if let Some(&row) = self.browse.tree.window(index, 1).first() {
                        let view = self.browse.tree.view(row);
                        let glyph_x = inner.x + 1 + MARK_W + view.depth * 2;
                        if view.folder && (again || at.x == glyph_x) && self.search.query.is_empty()
                        {
                            self.browse.tree.set_expanded(row, !view.expanded);
                            self.reanchor();
                        }
                    }
                }
                Vec::new()
            }
            _ => Vec::new(),
        }
    }
}
