//! Where each pane goes: a pure function of the terminal size, used by rendering and by the
//! core (page size, mouse hit-testing) alike.

use ratatui::layout::Rect;
use ratatui::widgets::{Block, Borders};

/// The panes of one frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// One line per server (at most four).
    pub header: Rect,
    pub search: Rect,
    /// The tree or list, with its border.
    pub main: Rect,
    /// The contents pane beside or below the main pane; `None` when the terminal is too small
    /// (the contents pane then takes the main pane's place while it has the focus).
    pub contents: Option<Rect>,
    pub status: Rect,
    /// Everything between the search line and the status line (overlays cover it).
    pub body: Rect,
}

/// Wide enough for the contents pane beside the tree.
pub const SIDE_BY_SIDE_MIN_WIDTH: u16 = 100;
/// Body rows needed for the contents pane below the tree.
pub const STACKED_MIN_HEIGHT: u16 = 16;

/// The tree's share of the body, in percent, with the contents pane below it: the tree is
/// what a person walks, so it gets two thirds (at 80x24 with four servers, 45% left it six
/// rows; with the one-line header of a short terminal, two thirds give it twelve, and the
/// contents pane five).
pub const STACKED_TREE_SHARE: u16 = 67;

/// Below this many rows the header is one line, whatever the number of servers (at 80x24
/// four server lines, the search line and the contents pane left the tree nine rows; one
/// line gives it twelve).
pub const SHORT_HEIGHT: u16 = 30;

/// Width of the mark column at the start of tree and list rows.
pub const MARK_W: u16 = 2;

/// The area inside a pane's border.
pub fn inner(area: Rect) -> Rect {
    Block::default().borders(Borders::ALL).inner(area)
}

pub fn layout(area: Rect, header_lines: u16, contents_focused: bool) -> Areas {
    let header_h = header_lines.min(area.height);
    let header = Rect::new(area.x, area.y, area.width, header_h);
    let mut y = area.y + header_h;
    let search = Rect::new(
        area.x,
        y,
        area.width,
        1.min(area.bottom().saturating_sub(y)),
    );
    y += search.height;
    let status_h = 1.min(area.bottom().saturating_sub(y));
    let status = Rect::new(area.x, area.bottom() - status_h, area.width, status_h);
    let body_h = area.bottom().saturating_sub(y + status_h);
    let body = Rect::new(area.x, y, area.width, body_h);
    let (main, contents) = if body.width >= SIDE_BY_SIDE_MIN_WIDTH {
        let left = body.width * 45 / 100;
        (
            Rect::new(body.x, body.y, left, body.height),
            Some(Rect::new(
                body.x + left,
                body.y,
                body.width - left,
                body.height,
            )),
        )
    } else if body.height >= STACKED_MIN_HEIGHT {
        let top = body.height * STACKED_TREE_SHARE / 100;
        (
            Rect::new(body.x, body.y, body.width, top),
            Some(Rect::new(
                body.x,
                body.y + top,
                body.width,
                body.height - top,
            )),
        )
    } else {
        let _ = contents_focused;
        (body, None)
    };
    Areas {
        header,
        search,
        main,
        contents,
        status,
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_narrow_and_tiny() {
        let wide = layout(Rect::new(0, 0, 120, 40), 1, false);
        assert_eq!(wide.main.height, 37);
        assert_eq!(wide.contents.unwrap().x, wide.main.width);
        let narrow = layout(Rect::new(0, 0, 40, 24), 1, false);
        assert_eq!(narrow.contents.unwrap().y, narrow.main.bottom());
        // 80x24 with four server lines: the tree keeps more than six rows inside its border.
        let classic = layout(Rect::new(0, 0, 80, 24), 4, false);
        assert!(inner(classic.main).height > 6, "{classic:?}");
        assert!(inner(classic.contents.unwrap()).height >= 4, "{classic:?}");
        // With the one header line of a short terminal: twelve rows at 80x24, nine at 60x20.
        let classic = layout(Rect::new(0, 0, 80, 24), 1, false);
        assert_eq!(inner(classic.main).height, 12, "{classic:?}");
        assert_eq!(inner(classic.contents.unwrap()).height, 5, "{classic:?}");
        let small = layout(Rect::new(0, 0, 60, 20), 1, false);
        assert_eq!(inner(small.main).height, 9, "{small:?}");
        assert_eq!(inner(small.contents.unwrap()).height, 4, "{small:?}");
        let tiny = layout(Rect::new(0, 0, 40, 12), 1, false);
        assert_eq!(tiny.contents, None);
        let none = layout(Rect::new(0, 0, 0, 0), 1, false);
        assert_eq!(none.body.height, 0);
    }
}
