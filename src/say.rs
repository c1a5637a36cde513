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
