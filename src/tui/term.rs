//! The terminal: raw mode, alternate screen, mouse capture and bracketed paste on start, all
//! undone on exit, on error (a drop guard) and on panic (a hook that restores first, then lets
//! the previous hook print). Ctrl-Z restores, stops the process, and sets everything up again.

use std::io::{self, Stdout, Write, stdout};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use crossterm::{cursor, execute};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

pub type Term = Terminal<CrosstermBackend<Stdout>>;

/// Tells crossterm whether to write colours: it drops every colour on its own when `NO_COLOR`
/// is set, which would leave `--color always` (the theme with colours) nearly unstyled.
/// The theme decides ([`crate::tui::theme::Theme::choose`]): `always` wins over `NO_COLOR`.
pub fn use_theme_colours(theme: &crate::tui::theme::Theme) {
    crossterm::style::Colored::set_ansi_color_disabled(!theme.color);
}

/// True while the terminal is in the browser's state.
static ACTIVE: AtomicBool = AtomicBool::new(false);

fn enter() -> io::Result<()> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    execute!(
        stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste,
        cursor::Hide
    )
}

/// Puts the terminal back as it was. Safe to call more than once.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut out = stdout();
    let _ = execute!(
        out,
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
    let _ = out.flush();
}

/// Restores the terminal when dropped (early returns and errors included).
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}

/// Sets the terminal up and returns it with its guard.
pub fn init() -> io::Result<(Term, Guard)> {
    install_panic_hook();
    let guard = Guard;
    enter()?;
    let terminal = Terminal::new(CrosstermBackend::new(stdout()))?;
    Ok((terminal, guard))
}

fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}

/// Ctrl-Z: gives the terminal back, stops until `fg`, then takes it again and redraws all.
pub fn suspend(terminal: &mut Term) -> io::Result<()> {
    restore();
    #[cfg(unix)]
    // SAFETY: raising a signal on our own process; execution continues after SIGCONT.
    unsafe {
        libc::raise(libc::SIGTSTP);
    }
    enter()?;
    terminal.clear()
}
