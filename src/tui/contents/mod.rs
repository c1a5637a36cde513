//! What the contents pane shows of a resource's contents, built off the UI thread from a
//! `resources/read` outcome: text cleaned (escape sequences and controls removed, tabs
//! expanded, lines and size capped) and syntax-highlighted by MIME type or extension; blobs as
//! their type, size, a hex head, and for images the format and dimensions.

pub mod rows;

use std::sync::OnceLock;

use base64::Engine;
use rmcp::model::ResourceContents;
use syntect::easy::HighlightLines;
use syntect::highlighting::{Theme as SynTheme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;

use crate::mcp::ReadOutcome;
use crate::sanitize;

/// Text beyond this many bytes is not shown (a note says so).
pub const MAX_TEXT_BYTES: usize = 512 * 1024;
/// Lines beyond this are not shown.
pub const MAX_LINES: usize = 5000;
/// Characters kept per line.
pub const MAX_LINE_CHARS: usize = 2000;
/// Bytes shown in a blob's hex head.
pub const HEX_HEAD: usize = 256;
/// Lines highlighted; the rest of a long text is shown plain (highlighting is the slow part).
const MAX_HIGHLIGHT_LINES: usize = 2000;

/// An RGB colour from the syntax theme (dropped by the monochrome theme).
pub type Rgb = (u8, u8, u8);

/// One line of text as spans of (colour, text); the text is already safe to draw.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StyledLine(pub Vec<(Option<Rgb>, String)>);

impl StyledLine {
    pub fn plain(s: impl Into<String>) -> Self {
        StyledLine(vec![(None, s.into())])
    }
}

/// Format and size of an image blob.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageInfo {
    pub format: &'static str,
    pub width: u32,
    pub height: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Text {
        lines: Vec<StyledLine>,
        /// Bytes of the whole text.
        bytes: usize,
        /// True when lines or bytes were cut.
        truncated: bool,
        /// The syntax used for highlighting, if any.
        syntax: Option<String>,
    },
    Blob {
        /// Decoded size in bytes.
        bytes: usize,
        image: Option<ImageInfo>,
        /// The first bytes (shown as a hex dump sized to the pane).
        head: Vec<u8>,
        /// The base64 did not decode.
        error: Option<String>,
    },
}

/// One `contents` item (a read may return several).
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// Sanitised.
    pub uri: String,
    /// Sanitised.
    pub mime: Option<String>,
    pub body: Body,
}

/// The outcome of reading a resource, ready to draw.
#[derive(Debug, Clone, PartialEq)]
pub enum ContentsDoc {
    Parts(Vec<Part>),
    /// The server answered with an empty `contents` array.
    Empty,
    /// The server says the resource does not exist (sanitised message).
    NotFound(String),
    /// The read failed (sanitised message).
    Error(String),
    /// No answer within the read timeout.
    TimedOut(f32),
}

/// Builds the contents-pane document of a read. `color` false skips highlighting.
pub fn build(outcome: Result<ReadOutcome, String>, color: bool) -> ContentsDoc {
    match outcome {
        Err(e) => ContentsDoc::Error(sanitize::text(&e)),
        Ok(ReadOutcome::Empty) => ContentsDoc::Empty,
        Ok(ReadOutcome::NotFound(nf)) => ContentsDoc::NotFound(sanitize::line(
            &format!("{} (code {})", nf.message, nf.code),
            1000,
        )),
        Ok(ReadOutcome::Contents(contents)) => ContentsDoc::Parts(
            contents
                .iter()
                .take(64)
                .filter_map(|c| part(c, color))
                .collect(),
        ),
    }
}

fn part(contents: &ResourceContents, color: bool) -> Option<Part> {
    match contents {
        ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            ..
        } => Some(Part {
            uri: sanitize::line(uri, 1000),
            mime: mime_type.as_deref().map(|m| sanitize::line(m, 200)),
            body: text_body(text, mime_type.as_deref(), uri, color),
        }),
        ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            ..
        } => Some(Part {
            uri: sanitize::line(uri, 1000),
            mime: mime_type.as_deref().map(|m| sanitize::line(m, 200)),
            body: blob_body(blob),
        }),
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// Cleans, caps and highlights a text.
pub fn text_body(raw: &str, mime: Option<&str>, uri: &str, color: bool) -> Body {
    let bytes = raw.len();
    let mut cut = raw;
    let mut truncated = false;
    if cut.len() > MAX_TEXT_BYTES {
        let mut end = MAX_TEXT_BYTES;
        while !cut.is_char_boundary(end) {
            end -= 1;
        }
        cut = &cut[..end];
        truncated = true;
    }
    let clean = sanitize::text(cut);
    let mut lines: Vec<&str> = LinesWithEndings::from(&clean).collect();
    if lines.len() > MAX_LINES {
        lines.truncate(MAX_LINES);
        truncated = true;
    }
    let syntax = if color { find_syntax(mime, uri) } else { None };
    let out = match syntax {
        Some((set, syntax)) => {
            let mut h = HighlightLines::new(syntax, theme());
            lines
                .iter()
                .enumerate()
                .map(|(i, line)| {
                    if i >= MAX_HIGHLIGHT_LINES {
                        return finish(vec![(None, line.to_string())]);
                    }
                    match h.highlight_line(line, set) {
                        Ok(ranges) => finish(
                            ranges
                                .into_iter()
                                .map(|(style, text)| {
                                    let c = style.foreground;
                                    (Some((c.r, c.g, c.b)), text.to_string())
                                })
                                .collect(),
                        ),
                        Err(_) => finish(vec![(None, line.to_string())]),
                    }
                })
                .collect()
        }
        None => lines
            .iter()
            .map(|l| finish(vec![(None, l.to_string())]))
            .collect(),
    };
    Body::Text {
        lines: out,
        bytes,
        truncated,
        syntax: syntax.map(|(_, s)| s.name.clone()),
    }
}

/// Drops line endings, expands tabs (stops every 4 columns) and caps the line length.
fn finish(spans: Vec<(Option<Rgb>, String)>) -> StyledLine {
    let mut out = Vec::with_capacity(spans.len());
    let mut column = 0usize;
    for (color, text) in spans {
        let mut s = String::with_capacity(text.len());
        for c in text.chars() {
            if column >= MAX_LINE_CHARS {
                break;
            }
            match c {
                '\n' | '\r' => {}
                '\t' => {
                    let n = 4 - column % 4;
                    s.extend(std::iter::repeat_n(' ', n));
                    column += n;
                }
                c => {
                    s.push(c);
                    column += 1;
                }
            }
        }
        if !s.is_empty() {
            out.push((color, s));
        }
        if column >= MAX_LINE_CHARS {
            out.push((None, "…".to_string()));
            break;
        }
    }
    StyledLine(out)
}

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

fn theme() -> &'static SynTheme {
    static THEME: OnceLock<SynTheme> = OnceLock::new();
    THEME.get_or_init(|| {
        let mut set = ThemeSet::load_defaults();
        set.themes
            .remove("base16-ocean.dark")
            .or_else(|| set.themes.into_values().next())
            .unwrap_or_default()
    })
}

/// The syntax for a MIME type, else for the URI's extension. Plain text gets none.
fn find_syntax(
    mime: Option<&str>,
    uri: &str,
) -> Option<(&'static SyntaxSet, &'static SyntaxReference)> {
    let set = syntaxes();
    let by_mime = mime.and_then(|m| {
        let m = m.split(';').next().unwrap_or(m).trim().to_ascii_lowercase();
        let ext = match m.as_str() {
            "text/markdown" | "text/x-markdown" => "md",
            "application/json" | "application/ld+json" | "application/schema+json" => "json",
            "text/x-rust" | "text/rust" => "rs",
            "text/x-python" | "application/x-python" | "text/python" => "py",
            "text/javascript" | "application/javascript" => "js",
            "application/typescript" | "text/typescript" => "ts",
            "text/html" => "html",
            "text/css" => "css",
            "application/xml" | "text/xml" | "image/svg+xml" => "xml",
            "application/x-yaml" | "application/yaml" | "text/yaml" | "text/x-yaml" => "yaml",
            "application/x-sh" | "text/x-shellscript" | "application/x-shellscript" => "sh",
            "text/x-c" => "c",
            "text/x-c++" => "cpp",
            "text/x-go" => "go",
            "text/x-java" | "text/x-java-source" => "java",
            "application/sql" | "text/x-sql" => "sql",
            "text/csv" => "csv",
            "application/toml" | "text/x-toml" => "toml",
            "text/x-diff" | "text/x-patch" => "diff",
            _ if m.ends_with("+json") => "json",
            _ if m.ends_with("+xml") => "xml",
            _ => return None,
        };
        set.find_syntax_by_extension(ext)
    });
    let syntax = by_mime.or_else(|| {
        let path = uri.split(['?', '#']).next().unwrap_or(uri);
        let file = path.rsplit('/').next().unwrap_or(path);
        let ext = file.rsplit_once('.').map(|(_, e)| e)?;
        set.find_syntax_by_extension(ext)
            .or_else(|| set.find_syntax_by_extension(&ext.to_ascii_lowercase()))
    })?;
    (syntax.name != "Plain Text").then_some((set, syntax))
}

/// Decodes a blob and describes it.
pub fn blob_body(blob: &str) -> Body {
    match base64::engine::general_purpose::STANDARD.decode(blob.trim()) {
        Ok(bytes) => Body::Blob {
            bytes: bytes.len(),
            image: image_info(&bytes),
            head: bytes[..bytes.len().min(HEX_HEAD)].to_vec(),
            error: None,
        },
        Err(e) => Body::Blob {
            bytes: blob.len() / 4 * 3,
            image: None,
            head: Vec::new(),
            error: Some(format!("the blob is not valid base64: {e}")),
        },
    }
}

/// `00000000  89 50 4e 47 0d 0a 1a 0a 00 00 00 0d 49 48 44 52  |.PNG........IHDR|`, with
/// `per_row` bytes a line (16, or 8 for narrow panes).
pub fn hex_head(bytes: &[u8], per_row: usize) -> Vec<String> {
    let per_row = per_row.clamp(1, 16);
    bytes
        .chunks(per_row)
        .enumerate()
        .map(|(i, chunk)| {
            let mut line = format!("{:08x} ", i * per_row);
            for (j, b) in chunk.iter().enumerate() {
                if j == 8 {
                    line.push(' ');
                }
                line.push_str(&format!(" {b:02x}"));
            }
            for j in chunk.len()..per_row {
                if j == 8 {
                    line.push(' ');
                }
                line.push_str("   ");
            }
            line.push_str("  |");
            line.extend(chunk.iter().map(|&b| {
                if b.is_ascii_graphic() || b == b' ' {
                    b as char
                } else {
                    '.'
                }
            }));
            line.push('|');
            line
        })
        .collect()
}

/// Format and dimensions of PNG, GIF, JPEG, WebP and BMP images, from their headers.
pub fn image_info(b: &[u8]) -> Option<ImageInfo> {
    let be32 =
        |i: usize| -> Option<u32> { Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?)) };
    let le16 = |i: usize| -> Option<u32> {
        Some(u16::from_le_bytes(b.get(i..i + 2)?.try_into().ok()?) as u32)
    };
    let be16 = |i: usize| -> Option<u32> {
        Some(u16::from_be_bytes(b.get(i..i + 2)?.try_into().ok()?) as u32)
    };
    let le32 =
        |i: usize| -> Option<u32> { Some(u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?)) };
    let info = |format, width, height| {
        Some(ImageInfo {
            format,
            width,
            height,
        })
    };
    if b.starts_with(b"\x89PNG\r\n\x1a\n") && b.get(12..16) == Some(b"IHDR") {
        return info("PNG", be32(16)?, be32(20)?);
    }
    if b.starts_with(b"GIF87a") || b.starts_with(b"GIF89a") {
        return info("GIF", le16(6)?, le16(8)?);
    }
    if b.starts_with(b"BM") && b.len() >= 26 {
        return info("BMP", le32(18)?, le32(22)?.min(i32::MAX as u32));
    }
    if b.starts_with(b"RIFF") && b.get(8..12) == Some(b"WEBP") {
        return match b.get(12..16)? {
            b"VP8 " => info("WebP", le16(26)? & 0x3fff, le16(28)? & 0x3fff),
            b"VP8L" => {
                let bits = le32(21)?;
                info("WebP", (bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1)
            }
            b"VP8X" => {
                let w = u32::from_le_bytes([*b.get(24)?, *b.get(25)?, *b.get(26)?, 0]) + 1;
                let h = u32::from_le_bytes([*b.get(27)?, *b.get(28)?, *b.get(29)?, 0]) + 1;
                info("WebP", w, h)
            }
            _ => None,
        };
    }
    if b.starts_with(&[0xff, 0xd8]) {
        let mut i = 2;
        while i + 9 < b.len() {
            if b[i] != 0xff {
                i += 1;
                continue;
            }
            let marker = b[i + 1];
            if matches!(marker, 0xc0..=0xc3 | 0xc5..=0xc7 | 0xc9..=0xcb | 0xcd..=0xcf) {
                return info("JPEG", be16(i + 7)?, be16(i + 5)?);
            }
            if marker == 0xd8 || marker == 0x01 || (0xd0..=0xd7).contains(&marker) || marker == 0xff
            {
                i += if marker == 0xff { 1 } else { 2 };
                continue;
            }
            i += 2 + be16(i + 2)? as usize;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_dimensions_and_hex() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        png.extend(640u32.to_be_bytes());
        png.extend(480u32.to_be_bytes());
        let info = image_info(&png).unwrap();
        assert_eq!((info.format, info.width, info.height), ("PNG", 640, 480));
        let hex = hex_head(&png, 16);
        assert!(hex[0].starts_with("00000000  89 50 4e 47"), "{}", hex[0]);
        assert!(hex[0].ends_with("|.PNG........IHDR|"), "{}", hex[0]);
    }

    #[test]
    fn gif_and_not_an_image() {
        let gif = b"GIF89a\x10\x00\x20\x00rest";
        assert_eq!(
            image_info(gif),
            Some(ImageInfo {
                format: "GIF",
                width: 16,
                height: 32
            })
        );
        assert_eq!(image_info(b"hello world"), None);
    }

    #[test]
    fn text_is_cleaned_and_tabs_expanded() {
        let Body::Text { lines, .. } =
            text_body("a\tb\x1b[31mred\x1b]0;title\x07\r\nz", None, "x://y", false)
        else {
            panic!()
        };
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.0.iter().map(|(_, s)| s.as_str()).collect())
            .collect();
        assert_eq!(text, ["a   bred", "z"]);
    }

    #[test]
    fn highlights_by_mime_and_extension() {
        let Body::Text { syntax, .. } =
            text_body("{\"a\": 1}", Some("application/json"), "x://y", true)
        else {
            panic!()
        };
        assert_eq!(syntax.as_deref(), Some("JSON"));
        let Body::Text { syntax, .. } = text_body("fn main() {}", None, "file:///a/b.rs", true)
        else {
            panic!()
        };
        assert_eq!(syntax.as_deref(), Some("Rust"));
        let Body::Text { syntax, .. } = text_body("x", Some("text/plain"), "file:///a/b.txt", true)
        else {
            panic!()
        };
        assert_eq!(syntax, None);
    }
}
