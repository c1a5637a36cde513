//! What the agent is handed for one resource: the text its tokens are counted on. The TUI and
//! `mcpick preview` both count and render this text, so their figures agree.

use base64::Engine;
use rmcp::model::ResourceContents;

use super::resolve::Measure;
use super::tokens::TokenizerKind;
use crate::mcp::ReadOutcome;
use crate::sanitize;

/// The measure of one read (a failure already explained for people), and the agent text
/// when there is one. `mcpick preview` and the TUI's agent view both measure reads with this,
/// so their token figures agree. Counting loads the tokenizer on first use: call it off a
/// UI thread.
///
/// The count is the text's and the `label`'s ([`label`]: the name and URI the resource's
/// block carries too), so a resource with a huge name or URI pays for it in the budget.
pub fn measure(
    outcome: Result<ReadOutcome, String>,
    tokenizer: TokenizerKind,
    label: &str,
) -> (Measure, Option<String>) {
    match outcome {
        Ok(ReadOutcome::Contents(contents)) => {
            let text = agent_text(&contents);
            let tokens = tokenizer.count(&text) + tokenizer.count(label);
            (Measure::Counted(tokens), Some(text))
        }
        Ok(ReadOutcome::Empty) => (
            Measure::Counted(tokenizer.count(label)),
            Some(String::new()),
        ),
        Ok(ReadOutcome::NotFound(nf)) => (
            Measure::Failed(format!("not found: {}", sanitize::line(&nf.message, 300))),
            None,
        ),
        Err(e) => (Measure::Failed(sanitize::line(&e, 300)), None),
    }
}

/// `outcome` without the contents parts that `marks` exclude for `server` (a part's own URI
/// decides, as for a listed resource), and the URIs dropped. The one rule every path that
/// hands a read on follows (`preview`, `export`, the delivery, `serve`): a part under an
/// excluded URI inside the read of an included resource is excluded too. The requested
/// resource's own part is never dropped: it was included.
pub fn without_excluded(
    marks: &super::Marks,
    server: &str,
    uri: &str,
    outcome: ReadOutcome,
) -> (ReadOutcome, Vec<String>) {
    let ReadOutcome::Contents(parts) = outcome else {
        return (outcome, Vec::new());
    };
    if !marks.on_server(server) {
        return (ReadOutcome::Contents(parts), Vec::new());
    }
    let is_exclude = |form: &str| {
        marks
            .effective(server, form)
            .is_some_and(|e| e.mark == super::Mark::Exclude)
    };
    let own = super::alias::canonical(uri);
    let mut dropped = Vec::new();
    let kept: Vec<ResourceContents> = parts
        .into_iter()
        .filter(|part| {
            let part_uri = match part {
                ResourceContents::TextResourceContents { uri, .. }
                | ResourceContents::BlobResourceContents { uri, .. } => uri.as_str(),
                _ => return true,
            };
            // As written, or under another spelling of an excluded URI (`//`, `localhost`,
            // `%XX`, `..`: [`super::alias`]) that is not the resource read itself.
            let excluded = part_uri != uri
                && (is_exclude(part_uri)
                    || (super::alias::canonical(part_uri) != own
                        && super::alias::forms(part_uri).iter().any(|f| is_exclude(f))));
            if excluded {
                dropped.push(part_uri.to_string());
            }
            !excluded
        })
        .collect();
    let outcome = if kept.is_empty() {
        ReadOutcome::Empty
    } else {
        ReadOutcome::Contents(kept)
    };
    (outcome, dropped)
}

/// The most characters of a resource's name a block carries ([`crate::export`] cuts it
/// there): a name is a label, and a megabyte of one is not the model's to read.
pub const NAME_CHARS: usize = 200;

/// What a resource's block carries besides its text and counts with it: its name (cut at
/// [`NAME_CHARS`]) and its URI (whole: a cut URI names another resource).
pub fn label(name: &str, uri: &str) -> String {
    format!("{} {uri}", sanitize::line(name, NAME_CHARS))
}

/// The agent text of a read: text parts as text, blob parts as a one-line header and their
/// base64 (a text bundle carries binary data that way); several parts are separated by a
/// `--- part URI (MIME) ---` line. Escape sequences, control characters and bidirectional
/// overrides are removed (see [`crate::sanitize::text`]): a bundle never carries them.
pub fn agent_text(contents: &[ResourceContents]) -> String {
    let several = contents.len() > 1;
    let mut out = String::new();
    for (i, part) in contents.iter().enumerate() {
        let (uri, mime, body) = match part {
            ResourceContents::TextResourceContents {
                uri,
                mime_type,
                text,
                ..
            } => (uri.as_str(), mime_type.as_deref(), sanitize::text(text)),
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(blob)
                    .map(|b| b.len())
                    .unwrap_or(0);
                let body = format!(
                    "[binary {}, {bytes} bytes, base64]\n{}",
                    sanitize::line(
                        mime_type.as_deref().unwrap_or("application/octet-stream"),
                        100
                    ),
                    blob.chars()
                        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '='))
                        .collect::<String>()
                );
                (uri.as_str(), mime_type.as_deref(), body)
            }
            _ => (
                "",
                None,
                "[contents of a kind mcpick does not know]".to_string(),
            ),
        };
        if several {
            if i > 0 && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!(
                "--- part {} ({}) ---\n",
                sanitize::line(uri, 500),
                sanitize::line(mime.unwrap_or("unknown type"), 100)
            ));
        }
        out.push_str(&body);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_blob_and_parts() {
        let text = ResourceContents::text("hello \u{1b}[31mred\u{1b}[0m", "x://a");
        assert_eq!(agent_text(std::slice::from_ref(&text)), "hello red");
        let blob = ResourceContents::BlobResourceContents {
            uri: "x://b".into(),
            mime_type: Some("image/png".into()),
            blob: "AAEC".into(),
            meta: None,
        };
        let both = agent_text(&[text, blob]);
        assert!(both.starts_with("--- part x://a ("), "{both}");
        assert!(both.contains(") ---\nhello red\n--- part x://b"), "{both}");
        assert!(both.ends_with(
            "--- part x://b (image/png) ---\n[binary image/png, 3 bytes, base64]\nAAEC"
        ));
        assert_eq!(agent_text(&[]), "");
    }

    /// A part under an excluded URI is dropped from an included resource's read; its own
    /// part and parts under unmarked or pinned URIs stay.
    #[test]
    fn an_excluded_part_leaves_an_included_read() {
        use crate::context::{Mark, Marks, Target};
        let mut marks = Marks::default();
        marks.set(
            Target::exact("s", "file:///p/secret.txt"),
            Some(Mark::Exclude),
        );
        marks.set(
            Target::prefix("s", "file:///p/private/"),
            Some(Mark::Exclude),
        );
        let parts = [
            "file:///p/",
            "file:///p/secret.txt",
            "file:///p/private/a",
            "file:///p/ok.txt",
            "file:///p//secret.txt",
            "file://localhost/p/private/b",
            "file:///p/./",
        ]
        .map(|u| ResourceContents::text(format!("text of {u}"), u))
        .to_vec();
        let (outcome, dropped) =
            without_excluded(&marks, "s", "file:///p/", ReadOutcome::Contents(parts));
        assert_eq!(
            dropped,
            [
                "file:///p/secret.txt",
                "file:///p/private/a",
                "file:///p//secret.txt",
                "file://localhost/p/private/b"
            ]
        );
        let ReadOutcome::Contents(kept) = outcome else {
            panic!("{outcome:?}")
        };
        assert_eq!(agent_text(&kept).matches("text of").count(), 3);
        // A resource read by its own excluded-looking URI is what was included: kept.
        let own = vec![ResourceContents::text("x", "file:///p/secret.txt")];
        let (outcome, dropped) = without_excluded(
            &marks,
            "s",
            "file:///p/secret.txt",
            ReadOutcome::Contents(own),
        );
        assert!(dropped.is_empty() && matches!(outcome, ReadOutcome::Contents(_)));
    }

    /// The name and URI a block carries count with its text; a huge name counts only as
    /// far as the block carries it.
    #[test]
    fn the_label_counts_toward_the_budget() {
        let tok = TokenizerKind::Cl100kBase;
        let read = || {
            Ok(ReadOutcome::Contents(vec![ResourceContents::text(
                "a", "u://1",
            )]))
        };
        let count = |label: &str| match measure(read(), tok, label).0 {
            Measure::Counted(n) => n,
            other => panic!("{other:?}"),
        };
        let plain = count("");
        let long_uri = format!("u://{}", "segment/".repeat(2_000));
        assert!(count(&label("n", &long_uri)) > plain + 1_000);
        let huge_name = label(&"word ".repeat(200_000), "u://1");
        assert!(count(&huge_name) < plain + 2 * NAME_CHARS as u64);
    }
}
