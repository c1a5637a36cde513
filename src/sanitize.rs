//! Every string a server sends is untrusted: it may carry terminal escape sequences, control
//! characters or bidirectional overrides meant to disguise what a person reads. Text is cleaned
//! here once, before it reaches the terminal, a table, a log line or a file name.

/// Characters kept in one-line fields (names, URIs, log lines) before they are cut off.
pub const MAX_FIELD_CHARS: usize = 4096;

/// Cleans `s` for display on one line: escape sequences and control characters are removed,
/// line breaks and tabs become spaces, and the result is cut to `max_chars` characters
/// (with a trailing `…` when something was cut).
pub fn line(s: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(s.len().min(max_chars * 4));
    for (count, c) in Cleaned::new(s).enumerate() {
        let c = if matches!(c, '\n' | '\t') { ' ' } else { c };
        if count == max_chars {
            out.pop();
            out.push('…');
            return out;
        }
        out.push(c);
    }
    out
}

/// Cleans an identifier (a URI, a server name) for one line of output like [`line`], but
/// never cuts it: a cut URI names another resource.
pub fn whole_line(s: &str) -> String {
    line(s, s.len() + 1)
}

/// Cleans multi-line text (resource contents, descriptions): like [`line`] but keeps line
/// breaks and tabs, and does not cut.
pub fn text(s: &str) -> String {
    Cleaned::new(s).collect()
}

/// Characters that are never shown: C0/C1 controls (except newline and tab), DEL, and the
/// Unicode bidirectional embedding, override and isolate controls ("Trojan Source").
fn is_dropped(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

/// An iterator over the characters of a string with escape sequences and dropped characters
/// removed. ESC starts a sequence: CSI (`ESC [` … final byte), OSC/DCS/SOS/PM/APC (… up to BEL
/// or `ESC \`), or a single following character.
struct Cleaned<'a> {
    chars: std::str::Chars<'a>,
}

impl<'a> Cleaned<'a> {
    fn new(s: &'a str) -> Self {
        Self { chars: s.chars() }
    }

    fn skip_sequence(&mut self) {
        match self.chars.next() {
            Some('[') => {
                // CSI: parameters and intermediates, then one final byte in 0x40..=0x7e.
                for c in self.chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            }
            Some(']' | 'P' | 'X' | '^' | '_') => {
                // String sequences end with BEL or ST (`ESC \`).
                while let Some(c) = self.chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' {
                        self.chars.next();
                        break;
                    }
                }
            }
            _ => {}
        }
    }
}

impl Iterator for Cleaned<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        loop {
            let c = self.chars.next()?;
            if c == '\u{1b}' || c == '\u{9b}' {
                if c == '\u{9b}' {
                    // 8-bit CSI: behave as if `ESC [` was seen.
                    for c in self.chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            break;
                        }
                    }
                } else {
                    self.skip_sequence();
                }
                continue;
            }
            if is_dropped(c) {
                continue;
            }
            return Some(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_csi_osc_and_controls() {
        assert_eq!(text("a\u{1b}[31mred\u{1b}[0m b"), "ared b");
        assert_eq!(text("x\u{1b}]0;title\u{7}y"), "xy");
        assert_eq!(
            text("x\u{1b}]8;;http://evil\u{1b}\\link\u{1b}]8;;\u{1b}\\y"),
            "xlinky"
        );
        assert_eq!(text("bell\u{7}cr\rnul\u{0}"), "bellcrnul");
        assert_eq!(text("c1\u{9b}2Jz"), "c1z");
        assert_eq!(text("rtl\u{202e}txt.exe"), "rtltxt.exe");
    }

    #[test]
    fn text_keeps_newlines_line_folds_them() {
        assert_eq!(text("a\nb\tc"), "a\nb\tc");
        assert_eq!(line("a\nb\tc", 100), "a b c");
    }

    #[test]
    fn line_cuts_with_ellipsis() {
        assert_eq!(line("abcdef", 3), "ab…");
        assert_eq!(line("abc", 3), "abc");
        assert_eq!(line("ééé", 10), "ééé");
    }

    #[test]
    fn trailing_escape_is_dropped() {
        assert_eq!(text("abc\u{1b}"), "abc");
        assert_eq!(text("abc\u{1b}["), "abc");
    }
}
