//! The clipboard through OSC 52: the terminal (also over SSH) puts base64 text on the system
//! clipboard. Inside tmux the sequence reaches the outer terminal only with
//! `set -s set-clipboard on`.

use base64::Engine;

/// The OSC 52 sequence that sets the clipboard to `text`.
pub fn osc52(text: &str) -> String {
    format!(
        "\x1b]52;c;{}\x07",
        base64::engine::general_purpose::STANDARD.encode(text.as_bytes())
    )
}

/// The note to show inside tmux (`TMUX` set), else `None`.
pub fn tmux_note(tmux: Option<&str>) -> Option<&'static str> {
    tmux.filter(|v| !v.is_empty()).map(|_| {
        "inside tmux the clipboard is set only with `set -s set-clipboard on` in tmux.conf (tmux then passes it on to the terminal)"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_is_base64_between_the_markers() {
        let seq = osc52("héllo\n");
        let body = seq
            .strip_prefix("\x1b]52;c;")
            .and_then(|s| s.strip_suffix('\x07'))
            .unwrap();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(body)
            .unwrap();
        assert_eq!(decoded, "héllo\n".as_bytes());
        assert!(tmux_note(Some("/tmp/tmux-0/default,1,0")).is_some());
        assert!(tmux_note(Some("")).is_none());
        assert!(tmux_note(None).is_none());
    }
}
