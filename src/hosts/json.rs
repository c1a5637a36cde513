//! JSON and JSONC host files: reading (comments and trailing commas blanked out, every other
//! byte in place) and the conversion into the syntax tree editor's values.

use jsonc_parser::cst::CstInputValue;
use serde_json::Value;

/// JSONC to JSON: comments (`//`, `/* */`) and trailing commas become spaces, so every other
/// byte keeps its position (and parse errors their line and column).
pub fn strip_jsonc(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    // Pass 1: comments.
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
            while i < bytes.len() && bytes[i] != b'\n' {
                bytes[i] = b' ';
                i += 1;
            }
            continue;
        } else if b == b'/' && bytes.get(i + 1) == Some(&b'*') {
            let start = i;
            i += 2;
            while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                i += 1;
            }
            let end = (i + 2).min(bytes.len());
            for byte in &mut bytes[start..end] {
                if *byte != b'\n' {
                    *byte = b' ';
                }
            }
            i = end;
            continue;
        }
        i += 1;
    }
    // Pass 2: trailing commas.
    let mut in_string = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b',' {
            let next = bytes[i + 1..]
                .iter()
                .find(|c| !c.is_ascii_whitespace())
                .copied();
            if matches!(next, Some(b'}' | b']')) {
                bytes[i] = b' ';
            }
        }
        i += 1;
    }
    // Only ASCII bytes outside strings were replaced, and whole comments: still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// Parses a host's JSON or JSONC text (a byte-order mark allowed).
pub fn parse(text: &str) -> Result<Value, serde_json::Error> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(&strip_jsonc(text))
}

/// A JSON value as the syntax tree editor's input.
pub fn to_input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(to_input).collect()),
        Value::Object(map) => {
            let mut fields: Vec<_> = map.iter().collect();
            fields.sort_by_key(|(k, _)| rank(k));
            CstInputValue::Object(
                fields
                    .into_iter()
                    .map(|(k, v)| (k.clone(), to_input(v)))
                    .collect(),
            )
        }
    }
}

/// The order fields of a server entry are written in, as people write them; other keys
/// follow alphabetically.
pub fn rank(key: &str) -> usize {
    const ORDER: [&str; 4] = ["type", "command", "args", "env"];
    ORDER.iter().position(|k| *k == key).unwrap_or(ORDER.len())
}
