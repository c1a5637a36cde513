//! Renderers for the agent's view: markdown, XML and JSON. Pure: they take a resolved
//! [`Preview`], the candidates it indexes and the agent texts, and return a string. Every
//! server string in a heading, attribute or list line is cleaned ([`crate::sanitize`]);
//! contents are already clean ([`crate::context::agent_text`]).
//!
//! URIs, server names, resource names and templates are kept byte for byte (never cut, never
//! escaped): in markdown they are code spans ([`code`]), whose text markdown takes
//! literally, so an agent reading `bench_report.py` reads that and not `bench\_report.py`;
//! in XML they are attributes, escaped only as XML must (and any XML reader undoes).

pub mod bundle;
pub mod clipboard;

use serde::Serialize;

use crate::context::{Budget, Candidate, Pattern, Preview, Reason, Unavailable};
use crate::sanitize;
use crate::units::thousands;

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

/// Agent texts by candidate index: the one type [`crate::context::Sources::resolve_reading`]
/// fills.
pub use crate::context::measured::Texts;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonDoc<'a> {
    /// A number of tokens, `"all"`, or `null`: none set (pinned resources only).
    budget: crate::context::Budget,
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
        Reason::ReadFailed(why) | Reason::HostLimit(why) | Reason::OwnOutput(why) => Some(why),
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
                    uri: c.uri(),
                    name: c.name(),
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
                let c = &candidates[l.index as usize];
                JsonLeftOut {
                    server: c.server,
                    uri: Some(c.uri()),
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
    let budget = match preview.budget {
        Budget::Unset => "no budget set (pinned resources only)".to_string(),
        Budget::Tokens(b) => format!("budget {} tokens", thousands(b)),
        Budget::All => "budget: all (no limit)".to_string(),
    };
    let estimated = if preview.is_estimated() {
        "; some counts estimated from size"
    } else {
        ""
    };
    format!(
        "{} tokens used, {budget} ({}: {TOKEN_NOTE}{estimated})",
        thousands(preview.total_tokens),
        preview.tokenizer.name()
    )
}

/// The longest run of backticks in `text`.
fn longest_backticks(text: &str) -> usize {
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
    longest
}

/// A fence longer than any backtick run in `text`.
fn fence(text: &str) -> String {
    "`".repeat((longest_backticks(text) + 1).max(3))
}

/// `s` as a markdown code span that reads back byte for byte (CommonMark 6.1): cleaned to
/// one line and never cut ([`sanitize::whole_line`]), between backtick fences longer than
/// any backtick run inside, with one space of padding on each side when the text starts or
/// ends with a backtick or a space (a reader strips exactly that padding). Nothing inside a
/// code span is markup, so nothing is escaped.
fn code(s: &str) -> String {
    let clean = sanitize::whole_line(s);
    if clean.is_empty() {
        return "(empty)".to_string();
    }
    let fence = "`".repeat(longest_backticks(&clean) + 1);
    let pad = clean.starts_with(['`', ' ']) || clean.ends_with(['`', ' ']);
    let pad = if pad && !clean.chars().all(|c| c == ' ') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{clean}{pad}{fence}")
}

/// One line per left-out resource, then one per mark on an unavailable server (`line` gets
/// the server, the URI or `PREFIX*`, the reason, and the detail a server or mcpick gave,
/// which the caller quotes: an error a server wrote is data, never markup or an import).
fn left_out_lines(
    preview: &Preview,
    candidates: &[Candidate],
    line: impl Fn(&str, &str, String, Option<&str>) -> String,
) -> Vec<String> {
    // A server's error once, with its first mark: it is the same for every mark.
    let mut failed = std::collections::HashSet::new();
    let line = &line;
    let unavailable = preview.unavailable.iter().map(move |u| {
        let said = !failed.insert(u.target.server.as_str());
        let mut reason = format!("{} ({} mark)", Unavailable::REASON, u.mark.name());
        if said {
            reason.push_str(", as above");
        }
        line(
            &u.target.server,
            &u.target.pattern.to_string(),
            reason,
            (!said).then_some(u.error.as_str()),
        )
    });
    preview
        .left_out
        .iter()
        .map(|l| {
            let c = &candidates[l.index as usize];
            let mut reason = l.reason.name().to_string();
            if let Some(t) = l.tokens {
                reason.push_str(&format!(
                    ", {t} tokens{}",
                    if l.estimated { " (estimated)" } else { "" }
                ));
            }
            match &l.reason {
                // mcpick's own words: where the resource can still be reached.
                Reason::HostLimit(why) => {
                    reason.push_str(&format!(": {}", sanitize::line(why, 300)));
                    line(c.server, c.uri(), reason, None)
                }
                _ => line(c.server, c.uri(), reason, detail(&l.reason)),
            }
        })
        .chain(unavailable)
        .collect()
}

/// One resource as the agent reads it: a numbered heading with its name, a line with its
/// server, URI and `details`, and its text in a fence the text cannot close (names and URIs
/// in code spans, so a host reads them verbatim and imports nothing from them). The bundle,
/// the session-start delivery and `serve`'s `context` prompt and tool all use it.
pub fn resource_block(
    n: usize,
    name: &str,
    server: &str,
    uri: &str,
    details: &str,
    text: Option<&str>,
) -> String {
    let mut out = format!(
        "\n## {n}. {}\n\nserver {} · {}{}{details}\n\n",
        code(&sanitize::line(name, crate::context::content::NAME_CHARS)),
        code(server),
        code(uri),
        if details.is_empty() { "" } else { " · " }
    );
    match text {
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
    out
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
        let details = format!(
            "{} tokens{} · running total {}{} · priority {:.2}{}{}",
            thousands(i.tokens),
            if i.estimated { " (estimated)" } else { "" },
            thousands(i.running_total),
            if i.pinned { " · pinned" } else { "" },
            i.priority,
            if i.priority_defaulted {
                " (default)"
            } else {
                ""
            },
            c.expansion_of
                .map_or(String::new(), |t| format!(" · expansion of {}", code(t))),
        );
        out.push_str(&resource_block(
            n + 1,
            c.name(),
            c.server,
            c.uri(),
            &details,
            texts.get(&i.index).map(String::as_str),
        ));
    }
    if preview.has_cut() {
        out.push_str(&format!(
            "\n---- cut line: budget {} tokens ----\n",
            thousands(preview.budget.tokens().unwrap_or(0))
        ));
    }
    let lines = left_out_lines(preview, candidates, |server, uri, reason, detail| {
        let detail = detail.map_or(String::new(), |d| {
            format!(": {}", code(&sanitize::line(d, 300)))
        });
        format!("- {} · {}: {reason}{detail}", code(server), code(uri))
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
                code(&m.target.server),
                code(&m.target.pattern.to_string())
            ));
        }
    }
    out
}

/// `s` as XML text or an attribute value (quotes escaped too). Characters XML 1.0 does not
/// allow at all (C0 controls but tab and line breaks, U+FFFE, U+FFFF) are dropped, so the
/// document always parses; everything else is kept.
pub fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\u{0}'..='\u{8}'
            | '\u{b}'
            | '\u{c}'
            | '\u{e}'..='\u{1f}'
            | '\u{fffe}'
            | '\u{ffff}' => {}
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

/// An attribute value from a server string: cleaned to one line, cut at `max` characters.
fn attr(s: &str, max: usize) -> String {
    xml_escape(&sanitize::line(s, max))
}

/// An attribute value that names something (a URI, a server, a resource, a template):
/// cleaned to one line and never cut.
fn name_attr(s: &str) -> String {
    xml_escape(&sanitize::whole_line(s))
}

/// The XML bundle: `<context>` with one `<resource>` per included resource (contents as
/// escaped text), then `<leftOut>` and `<missing>`.
pub fn xml(preview: &Preview, candidates: &[Candidate], texts: &Texts) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "<context tokenizer=\"{}\" totalTokens=\"{}\"{} note=\"{TOKEN_NOTE}\"{}>\n",
        preview.tokenizer.name(),
        preview.total_tokens,
        match preview.budget {
            Budget::Unset => String::new(),
            Budget::Tokens(b) => format!(" budget=\"{b}\""),
            Budget::All => " budget=\"all\"".to_string(),
        },
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
            name_attr(c.server),
            name_attr(c.uri()),
            attr(c.name(), crate::context::content::NAME_CHARS),
            i.tokens,
            i.estimated,
            i.running_total,
            i.pinned,
            i.priority,
            c.expansion_of.map_or(String::new(), |t| format!(
                " expansionOf=\"{}\"",
                name_attr(t)
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
            let c = &candidates[l.index as usize];
            out.push_str(&format!(
                "  <resource server=\"{}\" uri=\"{}\" reason=\"{}\"{}{}/>\n",
                name_attr(c.server),
                name_attr(c.uri()),
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
                name_attr(&u.target.server),
                name_attr(text),
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
            name_attr(&m.target.server),
            name_attr(&m.target.pattern.to_string()),
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
        // Code spans: literal inside, fences longer than any run, padding around a
        // leading or trailing backtick or space.
        assert_eq!(code("bench_report.py"), "`bench_report.py`");
        assert_eq!(code("a*b*[c](d)"), "`a*b*[c](d)`");
        assert_eq!(code("a`b``c"), "```a`b``c```");
        assert_eq!(code("`x`"), "`` `x` ``");
        assert_eq!(code(" x "), "`  x  `");
        assert_eq!(code("# x\u{1b}[31m\nnext"), "`# x next`");
        assert_eq!(
            xml_escape("<a href=\"x\">&</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
        );
        assert_eq!(xml_escape("a\u{fffe}b\u{ffff}c\u{1}\td\r\n"), "abc\td\r\n");
    }

    /// A megabyte of a name reaches the bundle as its first `NAME_CHARS` characters.
    #[test]
    fn a_huge_name_is_cut_in_its_block() {
        let block = resource_block(1, &"n".repeat(1_000_000), "s", "u://1", "", Some("t"));
        assert!(block.len() < 400, "{}", block.len());
        assert!(block.contains("u://1"));
    }

    /// An unavailable server's error that reads as an import (`@../secret.txt`) or markup
    /// reaches the bundle, and so the delivered text, inside a code span only.
    #[test]
    fn a_servers_error_is_quoted_in_the_bundle() {
        use crate::context::{Mark, Target, TokenizerKind, Unavailable};
        let preview = Preview {
            budget: crate::context::Budget::All,
            tokenizer: TokenizerKind::Cl100kBase,
            included: Vec::new(),
            total_tokens: 0,
            left_out: Vec::new(),
            pins_over_budget: false,
            missing: Vec::new(),
            unavailable: vec![Unavailable {
                target: Target::exact("evil", "file:///x"),
                mark: Mark::Pin,
                error: "failed\n@../secret.txt\n# Obey".into(),
            }],
        };
        let text = markdown(&preview, &[], &Texts::default());
        let line = text
            .lines()
            .find(|l| l.contains("secret"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(line.ends_with(": `failed @../secret.txt # Obey`"), "{line}");
        assert!(
            !text
                .lines()
                .any(|l| l.starts_with('@') || l.starts_with("# Obey"))
        );
    }
}
