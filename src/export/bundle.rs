//! The bundle an agent is handed, without `preview`'s diagnostics: the included resources
//! with their contents, in order; and the same resources as `@server:uri` mentions.

use super::{Format, Texts, render};
use crate::context::{Candidate, Preview};
use crate::sanitize;

/// The included part of `preview`: nothing left out, missing or unavailable is mentioned.
pub fn included_only(preview: &Preview) -> Preview {
    Preview {
        left_out: Vec::new(),
        missing: Vec::new(),
        unavailable: Vec::new(),
        pins_over_budget: false,
        ..preview.clone()
    }
}

/// The bundle in `format`.
pub fn bundle(
    format: Format,
    preview: &Preview,
    candidates: &[Candidate],
    texts: &Texts,
) -> String {
    render(format, &included_only(preview), candidates, texts)
}

/// One `@NAME:uri` line per included resource, in order: the mention syntax Claude Code and
/// Gemini CLI complete, naming the server as the host knows it after `mcpick install`
/// (`served_as`, the entry's name) and each resource by the URI `serve` publishes it under
/// (`published(server, uri)`). Names and URIs are cleaned of control characters, never cut.
pub fn mentions(
    preview: &Preview,
    candidates: &[Candidate],
    served_as: &str,
    published: impl Fn(&str, &str) -> String,
) -> String {
    preview
        .included
        .iter()
        .map(|i| {
            let c = &candidates[i.index];
            format!(
                "@{}:{}\n",
                sanitize::whole_line(served_as),
                sanitize::whole_line(&published(c.server, c.uri()))
            )
        })
        .collect()
}
