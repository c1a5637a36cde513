//! JSON for terminals and files people read: like `serde_json`'s pretty output, but C1
//! controls (U+0080–U+009F, e.g. 8-bit CSI), DEL and the bidirectional controls
//! (U+202A–U+202E, U+2066–U+2069) are written as `\uXXXX` escapes too. `serde_json` escapes
//! only what JSON requires (below U+0020), so a server's string could otherwise move the
//! cursor or reorder text when the output is shown. The result is still valid JSON and parses
//! to exactly the same strings. Every JSON mcpick prints or writes goes through here.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

/// Whether a character is written as a `\uXXXX` escape on top of what JSON requires.
fn escaped(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A pretty formatter that also escapes [`escaped`] characters.
struct SafeFormatter<'a>(PrettyFormatter<'a>);

/// Writes a string fragment with [`escaped`] characters as `\\uXXXX`.
fn write_fragment<W: ?Sized + Write>(writer: &mut W, fragment: &str) -> io::Result<()> {
    let mut start = 0;
    for (i, c) in fragment.char_indices() {
        if escaped(c) {
            writer.write_all(&fragment.as_bytes()[start..i])?;
            write!(writer, "\\u{:04x}", c as u32)?;
            start = i + c.len_utf8();
        }
    }
    writer.write_all(&fragment.as_bytes()[start..])
}

/// The compact (one-line) formatter that also escapes [`escaped`] characters: the
/// trait's defaults are compact output.
struct SafeCompact;

impl Formatter for SafeCompact {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_fragment(writer, fragment)
    }
}

impl Formatter for SafeFormatter<'_> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_fragment(writer, fragment)
    }

    // Everything else is the pretty formatter's.
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Writes `value` as pretty JSON (two-space indent, no trailing newline).
pub fn to_writer_pretty<W: Write, T: ?Sized + Serialize>(writer: W, value: &T) -> io::Result<()> {
    let mut serializer =
        serde_json::Serializer::with_formatter(writer, SafeFormatter(PrettyFormatter::new()));
    value.serialize(&mut serializer).map_err(io::Error::from)
}

/// `value` as pretty JSON in a string (see [`to_writer_pretty`]).
pub fn to_string_pretty<T: ?Sized + Serialize>(value: &T) -> io::Result<String> {
    let mut out = Vec::with_capacity(128);
    to_writer_pretty(&mut out, value)?;
    // Only valid UTF-8 is ever written: string fragments are cut at char boundaries.
    String::from_utf8(out).map_err(io::Error::other)
}

/// `value` as JSON on one line (JSON Lines output), escaped like [`to_writer_pretty`].
pub fn to_line<T: ?Sized + Serialize>(value: &T) -> io::Result<String> {
    let mut out = Vec::with_capacity(128);
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, SafeCompact);
    value.serialize(&mut serializer).map_err(io::Error::from)?;
    String::from_utf8(out).map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn escapes_c1_del_and_bidi_and_round_trips() {
        let hostile = "a\u{9b}2Jb\u{7f}c\u{85}d\u{202e}e\u{2066}f\u{1b}[31mg\u{a0}h é\"\\";
        let value = json!({ "name": hostile, hostile: [hostile] });
        let text = to_string_pretty(&value).unwrap();
        for c in text.chars() {
            assert!(!escaped(c) && c >= ' ' || c == '\n', "raw {c:?} in {text}");
        }
        assert!(text.contains("\\u009b"), "{text}");
        assert!(text.contains("\\u007f"), "{text}");
        assert!(text.contains("\\u202e"), "{text}");
        assert!(text.contains("\\u001b"), "{text}");
        // U+00A0 is not a control: kept as is.
        assert!(text.contains('\u{a0}'), "{text}");
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn plain_output_is_serde_json_pretty() {
        let value = json!({ "a": [1, 2, {"b": null}], "c": "d", "e": [], "f": {} });
        assert_eq!(
            to_string_pretty(&value).unwrap(),
            serde_json::to_string_pretty(&value).unwrap()
        );
    }
}
