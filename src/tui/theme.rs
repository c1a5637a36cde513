//! Styles by role. Widgets ask for a role (`selection`, `matched`, `error`, …), never for a
//! colour. The colour theme uses ANSI named colours so it follows the terminal's palette; the
//! monochrome theme (NO_COLOR, `--color never`) sets no colour at all, only modifiers, because
//! a colour SGR degraded by NO_COLOR would also reset the modifiers before it. State is always
//! shown by a glyph too (●, ◐, ✗, ▶, and the marks + x ⁺ ˣ), never by colour alone.

use crate::cli::ColorChoice;
use ratatui::style::{Color, Modifier, Style};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// False for the monochrome theme: syntax colours are dropped too.
    pub color: bool,
    pub text: Style,
    pub dim: Style,
    pub title: Style,
    pub selection: Style,
    pub matched: Style,
    pub folder: Style,
    pub server: Style,
    pub ok: Style,
    pub busy: Style,
    pub error: Style,
    pub key: Style,
    pub field: Style,
    pub border: Style,
    pub border_focused: Style,
    /// A pinned resource's mark glyph.
    pub pin: Style,
    /// An excluded resource's mark glyph.
    pub exclude: Style,
}

impl Theme {
    pub fn colour() -> Self {
        Theme {
            color: true,
            text: Style::new(),
            dim: Style::new().fg(Color::DarkGray),
            title: Style::new().add_modifier(Modifier::BOLD),
            selection: Style::new().add_modifier(Modifier::REVERSED),
            matched: Style::new()
                .fg(Color::Yellow)
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            folder: Style::new().fg(Color::Blue).add_modifier(Modifier::BOLD),
            server: Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD),
            ok: Style::new().fg(Color::Green),
            busy: Style::new().fg(Color::Yellow),
            error: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            key: Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
            field: Style::new().fg(Color::Cyan),
            border: Style::new().fg(Color::DarkGray),
            border_focused: Style::new().fg(Color::Cyan),
            pin: Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
            exclude: Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
        }
    }

    pub fn mono() -> Self {
        Theme {
            color: false,
            text: Style::new(),
            dim: Style::new().add_modifier(Modifier::DIM),
            title: Style::new().add_modifier(Modifier::BOLD),
            selection: Style::new().add_modifier(Modifier::REVERSED),
            matched: Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
            folder: Style::new().add_modifier(Modifier::BOLD),
            server: Style::new().add_modifier(Modifier::BOLD),
            ok: Style::new(),
            busy: Style::new(),
            error: Style::new().add_modifier(Modifier::BOLD),
            key: Style::new().add_modifier(Modifier::BOLD),
            field: Style::new().add_modifier(Modifier::BOLD),
            border: Style::new(),
            border_focused: Style::new().add_modifier(Modifier::BOLD),
            pin: Style::new().add_modifier(Modifier::BOLD),
            exclude: Style::new().add_modifier(Modifier::BOLD),
        }
    }

    /// The theme for `--color`: `auto` is monochrome when `NO_COLOR` is set and not empty.
    pub fn choose(choice: ColorChoice, no_color_env: Option<&str>) -> Self {
        match choice {
            ColorChoice::Always => Theme::colour(),
            ColorChoice::Never => Theme::mono(),
            ColorChoice::Auto => match no_color_env {
                Some(v) if !v.is_empty() => Theme::mono(),
                _ => Theme::colour(),
            },
        }
    }
}
