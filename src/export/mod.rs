//! Renderers for the agent's view: markdown, XML and JSON. Pure: they take a resolved
//! [`Preview`], the candidates it indexes and the agent texts, and return a string. Every
//! server string in a heading, attribute or list line is cleaned ([`crate::sanitize`]);
//! contents are already clean ([`crate::context::agent_text`]).

pub mod bundle;
pub mod clipboard;

use serde::Serialize;

use crate::context::{Candidate, Pattern, Preview, Reason, Unavailable};
use crate::sanitize;

/// The note every rendering carries about token counts.
pub const TOKEN_NOTE: &str = "token counts are estimates of the host model's tokenizer";

/// The output formats of `mcpick preview`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    #[default]
    Markdown,
    Xml,
    Json,
}

/// Agent texts by candidate index: the one type [`resolve_measured`] fills.
///
/// [`resolve_measured`]: crate::context::measured::resolve_measured
pub use crate::context::measured::Texts;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonDoc<'a> {
    budget: Option<u64>,
    tokenizer: &'static str,
    total_tokens: u64,
    note: &'static str,
    pins_over_budget: bool,
    included: Vec<JsonIncluded<'a>>,
    left_out: Vec<JsonLeftOut<'a>>,
    missing: Vec<JsonMissing>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonIncluded<'a> {
    server: &'a str,
    uri: &'a str,
    name: &'a str,
    tokens: u64,
    tokens_estimated: bool,
    running_total: u64,
    pinned: bool,
    priority: f32,
    priority_defaulted: bool,
    /// For a pinned expansion: the template it matches.
    #[serde(skip_serializing_if = "Option::is_none")]
    expansion_of: Option<&'a str>,
    contents: Option<&'a str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonLeftOut<'a> {
    server: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<&'a str>,
    /// A prefix mark on an unavailable server.
    #[serde(skip_serializing_if = "Option::is_none")]
    prefix: Option<&'a str>,
    /// The mark, for a mark on an unavailable server.
    #[serde(skip_serializing_if = "Option::is_none")]
    mark: Option<crate::context::Mark>,
    reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    detail: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    expansion_of: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonMissing {
    server: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prefix: Option<String>,
    mark: crate::context::Mark,
}

fn detail(reason: &Reason) -> Option<&str> {
    match reason {
        Reason::ReadFailed(why) | Reason::HostLimit(why) => Some(why),
        _ => None,
    }
}

/// The `--format json` document.
pub fn json(preview: &Preview, candidates: &[Candidate], texts: &Texts) -> String {
    let doc = JsonDoc {
        budget: preview.budget,
        tokenizer: preview.tokenizer.name(),
        total_tokens: preview.total_tokens,
        note: TOKEN_NOTE,
        pins_over_budget: preview.pins_over_budget,
        included: preview
            .included
            .iter()
            .map(|i| {
                let c = &candidates[i.index];
                JsonIncluded {
                    server: c.server,
                    uri: c.uri,
                    name: c.name,
                    tokens: i.tokens,
                    tokens_estimated: i.estimated,
                    running_total: i.running_total,
                    pinned: i.pinned,
                    priority: i.priority,
                    priority_defaulted: i.priority_defaulted,
                    expansion_of: c.expansion_of,
                    contents: texts.get(&i.index).map(String::as_str),
                }
            })
            .collect(),
        left_out: preview
            .left_out
            .iter()
            .map(|l| {
                let c = &candidates[l.index];
                JsonLeftOut {
                    server: c.server,
                    uri: Some(c.uri),
                    prefix: None,
                    mark: None,
                    reason: l.reason.name(),
                    detail: detail(&l.reason),
                    tokens: l.tokens,
                    expansion_of: c.expansion_of,
                }
            })
            .chain(preview.unavailable.iter().map(|u| {
                let (uri, prefix) = match &u.target.pattern {
                    Pattern::Exact(uri) => (Some(uri.as_str()), None),
                    Pattern::Prefix(prefix) => (None, Some(prefix.as_str())),
                };
                JsonLeftOut {
                    server: &u.target.server,
                    uri,
                    prefix,
                    mark: Some(u.mark),
                    reason: Unavailable::REASON,
                    detail: Some(&u.error),
                    tokens: None,
                    expansion_of: None,
                }
            }))
            .collect(),
        missing: preview
            .missing
            .iter()
            .map(|m| {
                let (uri, prefix) = match &m.target.pattern {
                    crate::context::Pattern::Exact(u) => (Some(u.clone()), None),
                    crate::context::Pattern::Prefix(p) => (None, Some(p.clone())),
                };
                JsonMissing {
                    server: m.target.server.clone(),
                    uri,
                    prefix,
                    mark: m.mark,
                }
            })
            .collect(),
    };
    let mut text = crate::safe_json::to_string_pretty(&doc).expect("the preview serialises");
    text.push('\n');
    text
}

fn budget_line(preview: &Preview) -> String {
    let budget = preview
        .budget
        .map_or("no budget".to_string(), |b| format!("budget {b} tokens"));
    let estimated = if preview.is_estimated() {
        "; some counts estimated from size"
    } else {
        ""
    };
    format!(
        "{} tokens used, {budget} ({}: {TOKEN_NOTE}{estimated})",
        preview.total_tokens,
        preview.tokenizer.name()
    )
}

/// A fence longer than any backtick run in `text`.
fn fence(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(3))
}

/// Markdown-safe one-line text: cleaned, and characters that would start markup escaped.
fn md(s: &str, max: usize) -> String {
    let clean = sanitize::line(s, max);
    let mut out = String::with_capacity(clean.len());
    for c in clean.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// One line per left-out resource, then one per mark on an unavailable server (`line` gets
/// the server, the URI or `PREFIX*`, and the reason with its detail).
fn left_out_lines(
    preview: &Preview,
    candidates: &[Candidate],
    line: impl Fn(&str, &str, String) -> String,
) -> Vec<String> {
    let unavailable = preview.unavailable.iter().map(|u| {
        line(
            &u.target.server,
            &u.target.pattern.to_string(),
            format!(
                "{} ({} mark): {}",
                Unavailable::REASON,
                u.mark.name(),
                sanitize::line(&u.error, 300)
            ),
        )
    });
    preview
        .left_out
        .iter()
        .map(|l| {
            let c = &candidates[l.index];
            let mut reason = l.reason.name().to_string();
            if let Some(t) = l.tokens {
                reason.push_str(&format!(
                    ", {t} tokens{}",
                    if l.estimated { " (estimated)" } else { "" }
                ));
            }
            if let Some(d) = detail(&l.reason) {
                reason.push_str(&format!(": {}", sanitize::line(d, 300)));
            }
            line(c.server, c.uri, reason)
        })
        .chain(unavailable)
        .collect()
}

/// The markdown bundle: a header with the token figures, each included resource with its
/// contents, the cut line, and what was left out.
pub fn markdown(preview: &Preview, candidates: &[Candidate], texts: &Texts) -> String {
    let mut out = String::new();
    out.push_str("# Context\n\n");
    out.push_str(&format!("{}\n", budget_line(preview)));
    if preview.pins_over_budget {
        out.push_str("\nPinned resources alone exceed the budget; they are all included.\n");
    }
    for (n, i) in preview.included.iter().enumerate() {
        let c = &candidates[i.index];
        out.push_str(&format!("\n## {}. {}\n\n", n + 1, md(c.name, 200)));
        out.push_str(&format!(
            "server {} · {} · {} tokens{} · running total {}{} · priority {:.2}{}{}\n\n",
            md(c.server, 100),
            md(c.uri, 1000),
            i.tokens,
            if i.estimated { " (estimated)" } else { "" },
            i.running_total,
            if i.pinned { " · pinned" } else { "" },
            i.priority,
            if i.priority_defaulted {
                " (default)"
            } else {
                ""
            },
            c.expansion_of.map_or(String::new(), |t| format!(
                " · expansion of {}",
                md(t, 1000)
            )),
        ));
        match texts.get(&i.index) {
            Some(text) => {
                let f = fence(text);
                out.push_str(&format!("{f}\n{text}"));
                if !text.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(&format!("{f}\n"));
            }
            None => out.push_str("(not read)\n"),
        }
    }
    if preview.has_cut() {
        out.push_str(&format!(
            "\n---- cut line: budget {} tokens ----\n",
            preview.budget.unwrap_or(0)
        ));
    }
    let lines = left_out_lines(preview, candidates, |server, uri, reason| {
        format!("- {} · {}: {reason}", md(server, 100), md(uri, 1000))
    });
    if !lines.is_empty() {
        out.push_str("\n## Left out\n\n");
        for line in lines {
            out.push_str(&line);
            out.push('\n');
        }
    }
    if !preview.missing.is_empty() {
        out.push_str("\n## Missing marks (kept in the set)\n\n");
        for m in &preview.missing {
            out.push_str(&format!(
                "- {} {} · {}\n",
                m.mark.name(),
                md(&m.target.server, 100),
                md(&m.target.pattern.to_string(), 1000)
            ));
        }
    }
    out
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

fn attr(s: &str, max: usize) -> String {
    xml_escape(&sanitize::line(s, max))
}

/// The XML bundle: `<context>` with one `<resource>` per included resource (contents as
/// escaped text), then `<leftOut>` and `<missing>`.
pub fn xml(preview: &Preview, candidates: &[Candidate], texts: &Texts) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "<context tokenizer=\"{}\" totalTokens=\"{}\"{} note=\"{TOKEN_NOTE}\"{}>\n",
        preview.tokenizer.name(),
        preview.total_tokens,
        preview
            .budget
            .map_or(String::new(), |b| format!(" budget=\"{b}\"")),
        if preview.pins_over_budget {
            " pinsOverBudget=\"true\""
        } else {
            ""
        }
    ));
    for i in &preview.included {
        let c = &candidates[i.index];
        out.push_str(&format!(
            "<resource server=\"{}\" uri=\"{}\" name=\"{}\" tokens=\"{}\" tokensEstimated=\"{}\" runningTotal=\"{}\" pinned=\"{}\" priority=\"{}\"{}>\n",
            attr(c.server, 200),
            attr(c.uri, 2000),
            attr(c.name, 500),
            i.tokens,
            i.estimated,
            i.running_total,
            i.pinned,
            i.priority,
            c.expansion_of.map_or(String::new(), |t| format!(
                " expansionOf=\"{}\"",
                attr(t, 2000)
            ))
        ));
        if let Some(text) = texts.get(&i.index) {
            out.push_str(&xml_escape(text));
            if !text.ends_with('\n') {
                out.push('\n');
            }
        }
        out.push_str("</resource>\n");
    }
    if !preview.left_out.is_empty() || !preview.unavailable.is_empty() {
        out.push_str("<leftOut>\n");
        for l in &preview.left_out {
            let c = &candidates[l.index];
            out.push_str(&format!(
                "  <resource server=\"{}\" uri=\"{}\" reason=\"{}\"{}{}/>\n",
                attr(c.server, 200),
                attr(c.uri, 2000),
                l.reason.name(),
                l.tokens
                    .map_or(String::new(), |t| format!(" tokens=\"{t}\"")),
                detail(&l.reason)
                    .map_or(String::new(), |d| format!(" detail=\"{}\"", attr(d, 300)))
            ));
        }
        for u in &preview.unavailable {
            let (key, text) = match &u.target.pattern {
                Pattern::Exact(uri) => ("uri", uri),
                Pattern::Prefix(prefix) => ("prefix", prefix),
            };
            out.push_str(&format!(
                "  <mark server=\"{}\" {key}=\"{}\" mark=\"{}\" reason=\"{}\" detail=\"{}\"/>\n",
                attr(&u.target.server, 200),
                attr(text, 2000),
                u.mark.name(),
                Unavailable::REASON,
                attr(&u.error, 300)
            ));
        }
        out.push_str("</leftOut>\n");
    }
    for m in &preview.missing {
        out.push_str(&format!(
            "<missing server=\"{}\" target=\"{}\" mark=\"{}\"/>\n",
            attr(&m.target.server, 200),
            attr(&m.target.pattern.to_string(), 2000),
            m.mark.name()
        ));
    }
    out.push_str("</context>\n");
    out
}

/// Renders in `format`.
pub fn render(
    format: Format,
    preview: &Preview,
    candidates: &[Candidate],
    texts: &Texts,
) -> String {
    match format {
        Format::Markdown => markdown(preview, candidates, texts),
        Format::Xml => xml(preview, candidates, texts),
        Format::Json => json(preview, candidates, texts),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_and_escapes() {
        assert_eq!(fence("a ```` b"), "`````");
        assert_eq!(fence("plain"), "```");
        assert_eq!(md("# *x*\u{1b}[31m\nnext", 100), "\\# \\*x\\* next");
        assert_eq!(
            xml_escape("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
    }
}
