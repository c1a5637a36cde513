//! What every front end says to a person on stderr, and how a command ends. Low in the tree
//! so the browser, `wrap` and `serve` can use it without naming the headless commands.

use crate::sanitize;

/// How a command ended, as a process exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Ok = 0,
    ServerFailed = 1,
    Usage = 2,
    NotFound = 3,
}

/// Reports a usage error (bad flags, unknown server) and gives its exit status.
pub fn usage_error(message: &str) -> Exit {
    report(message);
    Exit::Usage
}

/// Prints one message for a person on stderr, `mcpick: ` first. Every command's error,
/// warning and note goes through here: messages quote config strings and server text, so
/// escape sequences and control characters are removed (line breaks kept).
pub fn report(message: &str) {
    tell(&format!("mcpick: {message}"));
}

/// Prints a line for a person on stderr as it is, without `mcpick: ` (the steps of a
/// sign-in), cleaned as [`report`] cleans.
pub fn tell(line: &str) {
    use std::io::Write;
    // Not `eprintln!`: it panics when stderr is gone (a closed terminal or pipe).
    crate::progress::clear();
    let _ = writeln!(std::io::stderr(), "{}", sanitize::text(line));
}

/// Set once stdout's reader has gone away: nothing more is written there.
static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Writes what a command prints for its reader to stdout (through [`out!`] and [`outln!`]).
/// A reader that went away (`mcpick install … | head -1`, a closed pipe: `EPIPE`) is the end
/// of the output, not of the command: the rest is dropped and the command finishes what it
/// is doing (an install half written because `println!` panicked is worse than no output).
/// Any other write error is dropped the same way, as [`tell`] does for stderr.
pub fn out(text: std::fmt::Arguments<'_>) {
    use std::io::Write;
    use std::sync::atomic::Ordering;
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = std::io::stdout().lock();
    let written = stdout.write_fmt(text).and_then(|()| stdout.flush());
    if written.is_err() {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// `print!` for a command's output, through [`out`]: a closed stdout never panics.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => { $crate::say::out(format_args!($($arg)*)) };
}

/// `println!` for a command's output, through [`out`]: a closed stdout never panics.
#[macro_export]
macro_rules! outln {
    () => { $crate::say::out(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::say::out(format_args!("{}\n", format_args!($($arg)*))) };
}
