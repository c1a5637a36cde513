//! Problems in a server's reply that cost less than the whole reply: a malformed field dropped,
//! a name made up, one entry skipped. They are reported (server log, `ls --json`
//! `servers[].warnings`, stderr) instead of failing the page.
//!
//! Warning text quotes what the server sent, so it is cleaned and capped when it is made, and a
//! server can make only [`MAX_KEPT`] of them in detail: the rest are counted, never stored.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::sanitize;

/// Warnings kept in detail per listing or read; the rest are only counted.
pub const MAX_KEPT: usize = 100;
/// Longest URI quoted in a warning, in characters.
const MAX_URI_CHARS: usize = 300;
/// Longest quoted value in a warning, in characters.
const MAX_VALUE_CHARS: usize = 40;

/// What mcpick did about the problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// The entry is kept without the malformed field.
    FieldDropped,
    /// The entry had no usable `name`; it is kept under a name made from its URI.
    NameDerived,
    /// The entry is not kept at all (no usable URI, not an object, or a duplicate URI).
    EntrySkipped,
}

impl Effect {
    fn describe(self) -> &'static str {
        match self {
            Effect::FieldDropped => "field dropped",
            Effect::NameDerived => "named from its URI",
            Effect::EntrySkipped => "entry skipped",
        }
    }
}

/// One problem with one entry of a reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    /// `resources/list`, `resources/templates/list` or `resources/read`.
    pub method: &'static str,
    /// 1-based page of a listing; `null` for a read.
    pub page: Option<usize>,
    /// 0-based position of the entry in the array the server sent (`resources`,
    /// `resourceTemplates` or `contents`).
    pub index: usize,
    /// The entry's URI (or URI template), cleaned and capped; `null` when it had none.
    pub uri: Option<String>,
    /// The field at fault (`annotations.priority`); `null` when the entry as a whole is.
    pub field: Option<String>,
    /// What was wrong, cleaned and capped.
    pub problem: String,
    pub effect: Effect,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.method)?;
        if let Some(page) = self.page {
            write!(f, " page {page},")?;
        }
        write!(f, " entry {}", self.index)?;
        if let Some(uri) = &self.uri {
            write!(f, " ({uri})")?;
        }
        f.write_str(": ")?;
        if let Some(field) = &self.field {
            write!(f, "`{field}` ")?;
        }
        write!(f, "{}; {}", self.problem, self.effect.describe())
    }
}

impl Warning {
    /// A resource skipped because the server had already listed its URI (the first is kept).
    pub fn duplicate(page: usize, index: usize, uri: &str) -> Self {
        Warning {
            method: "resources/list",
            page: Some(page),
            index,
            uri: Some(sanitize::line(uri, MAX_URI_CHARS)),
            field: Some("uri".into()),
            problem: "was already listed by this server (the first entry is kept)".into(),
            effect: Effect::EntrySkipped,
        }
    }
}

/// Where an entry sits in a reply; makes the warnings about it.
#[derive(Debug)]
pub(crate) struct Site<'a> {
    pub(crate) method: &'static str,
    pub(crate) page: Option<usize>,
    pub(crate) index: usize,
    pub(crate) uri: Option<String>,
    pub(crate) warnings: &'a mut Warnings,
}

impl Site<'_> {
    /// Records one problem with the current entry.
    pub(crate) fn warn(&mut self, field: Option<&str>, problem: &str, effect: Effect) {
        // Counting is all a hostile flood gets once the detailed ones are full.
        if self.warnings.is_full() {
            self.warnings.total += 1;
            return;
        }
        self.warnings.push(Warning {
            method: self.method,
            page: self.page,
            index: self.index,
            uri: self.uri.clone(),
            field: field.map(|f| sanitize::line(f, 100)),
            problem: sanitize::line(problem, 300),
            effect,
        });
    }

    /// Names the current entry by its URI in the warnings that follow.
    pub(crate) fn set_uri(&mut self, uri: &str) {
        self.uri = Some(sanitize::line(uri, MAX_URI_CHARS));
    }
}

/// The warnings of one listing or read: the first [`MAX_KEPT`] in detail, and how many in all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Warnings {
    kept: Vec<Warning>,
    total: usize,
}

impl Warnings {
    pub fn new() -> Self {
        Self::default()
    }

    fn is_full(&self) -> bool {
        self.kept.len() >= MAX_KEPT
    }

    /// Adds one warning; past [`MAX_KEPT`] it is only counted.
    pub fn push(&mut self, warning: Warning) {
        self.total += 1;
        if !self.is_full() {
            self.kept.push(warning);
        }
    }

    /// Adds every warning of `other` (its detailed ones while there is room, all to the count).
    pub fn extend(&mut self, other: &Warnings) {
        let room = MAX_KEPT.saturating_sub(self.kept.len());
        self.kept.extend(other.kept.iter().take(room).cloned());
        self.total += other.total;
    }

    /// The warnings kept in detail, in the order they were found.
    pub fn kept(&self) -> &[Warning] {
        &self.kept
    }

    /// How many warnings there were, kept in detail or not.
    pub fn total(&self) -> usize {
        self.total
    }

    /// How many were counted but not kept in detail.
    pub fn omitted(&self) -> usize {
        self.total - self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.total == 0
    }
}

/// A JSON value described for a person: its type, and the value itself when short.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) => format!("a number ({})", sanitize::line(&n.to_string(), 30)),
        Value::String(s) => format!("a string (\"{}\")", sanitize::line(s, MAX_VALUE_CHARS)),
        Value::Array(a) => format!("an array of {}", a.len()),
        Value::Object(_) => "an object".into(),
    }
}

/// "is missing" or "is a number (12345)", for a field that should have been `expected`.
pub(crate) fn wrong(value: Option<&Value>, expected: &str) -> String {
    match value {
        None => format!("is missing (expected {expected})"),
        Some(v) => format!("is {}, not {expected}", describe(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn site(warnings: &mut Warnings) -> Site<'_> {
        Site {
            method: "resources/list",
            page: Some(2),
            index: 7,
            uri: None,
            warnings,
        }
    }

    #[test]
    fn a_warning_reads_as_one_line_with_page_index_uri_and_field() {
        let mut warnings = Warnings::new();
        let mut s = site(&mut warnings);
        s.set_uri("demo://x");
        s.warn(
            Some("annotations.priority"),
            &wrong(Some(&json!("high")), "a number"),
            Effect::FieldDropped,
        );
        assert_eq!(
            warnings.kept()[0].to_string(),
            "resources/list page 2, entry 7 (demo://x): `annotations.priority` is a string (\"high\"), not a number; field dropped"
        );
        let json = serde_json::to_value(&warnings.kept()[0]).unwrap();
        assert_eq!(
            json,
            json!({"method": "resources/list", "page": 2, "index": 7, "uri": "demo://x",
                   "field": "annotations.priority",
                   "problem": "is a string (\"high\"), not a number", "effect": "field-dropped"})
        );
    }

    #[test]
    fn server_text_is_cleaned_and_capped() {
        let mut warnings = Warnings::new();
        let mut s = site(&mut warnings);
        s.set_uri(&format!("demo://\u{1b}[2J{}", "u".repeat(1000)));
        let value = json!(format!("\u{1b}[31mpwned\u{9b}{}", "v".repeat(1000)));
        s.warn(
            Some("title"),
            &wrong(Some(&value), "a string"),
            Effect::FieldDropped,
        );
        let w = &warnings.kept()[0];
        let text = w.to_string();
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{9b}'),
            "{text:?}"
        );
        assert!(w.uri.as_ref().unwrap().chars().count() <= MAX_URI_CHARS);
        assert!(w.problem.chars().count() <= 300, "{}", w.problem);
        assert!(w.problem.contains("pwned"), "the value is quoted, cleaned");
    }

    #[test]
    fn only_the_first_hundred_are_kept_in_detail() {
        let mut warnings = Warnings::new();
        for i in 0..1000 {
            let mut s = site(&mut warnings);
            s.index = i;
            s.warn(None, "is a number, not an object", Effect::EntrySkipped);
        }
        assert_eq!(warnings.kept().len(), MAX_KEPT);
        assert_eq!((warnings.total(), warnings.omitted()), (1000, 900));
        let mut all = Warnings::new();
        all.extend(&warnings);
        all.extend(&warnings);
        assert_eq!((all.kept().len(), all.total()), (MAX_KEPT, 2000));
        assert_eq!(all.kept()[99].index, 99);
    }
}
