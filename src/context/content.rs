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
pub fn measure(
    outcome: Result<ReadOutcome, String>,
    tokenizer: TokenizerKind,
) -> (Measure, Option<String>) {
    match outcome {
        Ok(ReadOutcome::Contents(contents)) => {
            let text = agent_text(&contents);
            (Measure::Counted(tokenizer.count(&text)), Some(text))
        }
        Ok(ReadOutcome::Empty) => (Measure::Counted(0), Some(String::new())),
        Ok(ReadOutcome::NotFound(nf)) => (
            Measure::Failed(format!("not found: {}", sanitize::line(&nf.message, 300))),
            None,
        ),
        Err(e) => (Measure::Failed(sanitize::line(&e, 300)), None),
    }
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
}
