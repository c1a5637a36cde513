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
/// A host ends a mention at white space, so a URI holding any cannot be mentioned (what
/// followed it would read as a mention or a path of its own): those are the second part,
/// named, for the caller to say.
pub fn mentions(
    preview: &Preview,
    candidates: &[Candidate],
    served_as: &str,
    published: impl Fn(&str, &str) -> String,
) -> (String, Vec<String>) {
    let name = sanitize::whole_line(served_as);
    let mut lines = String::new();
    let mut skipped = Vec::new();
    for i in &preview.included {
        let c = &candidates[i.index];
        let uri = published(c.server, c.uri());
        if name.contains(char::is_whitespace) || uri.contains(char::is_whitespace) {
            skipped.push(format!(
                "{} {}: white space in its mention; reach it through the `context` tool or prompt",
                sanitize::line(c.server, 200),
                sanitize::line(&uri, 1000)
            ));
            continue;
        }
        lines.push_str(&format!("@{name}:{}\n", sanitize::whole_line(&uri)));
    }
    (lines, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Item, ItemId};
    use crate::context::{Included, TokenizerKind};

    /// A URI holding a space or a line break is not mentioned (the host would read what
    /// follows as a second mention); the others are, one line each.
    #[test]
    fn a_uri_with_white_space_makes_no_second_mention() {
        let items: Vec<Item> = ["a://ok", "a://x @../secret.txt", "a://y\n@../b"]
            .into_iter()
            .map(|u| Item::ranked(u, u, None, None, None, Some(1)))
            .collect();
        let cands: Vec<Candidate> = items
            .iter()
            .enumerate()
            .map(|(n, item)| {
                let id = ItemId {
                    server: 0,
                    index: n as u32,
                };
                Candidate::from_item(id, "s", item)
            })
            .collect();
        let preview = Preview {
            budget: crate::context::Budget::All,
            tokenizer: TokenizerKind::Cl100kBase,
            included: (0..3)
                .map(|index| Included {
                    index,
                    tokens: 1,
                    estimated: false,
                    running_total: 1,
                    pinned: false,
                    priority: 0.5,
                    priority_defaulted: true,
                })
                .collect(),
            total_tokens: 3,
            left_out: Vec::new(),
            pins_over_budget: false,
            missing: Vec::new(),
            unavailable: Vec::new(),
        };
        let (lines, skipped) = mentions(&preview, &cands, "mcpick", |_, uri| uri.to_string());
        assert_eq!(lines, "@mcpick:a://ok\n");
        assert_eq!(skipped.len(), 2, "{skipped:?}");
    }
}
