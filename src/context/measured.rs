//! The read-count-resolve loop shared by `mcpick preview` and `mcpick serve`: resolve with
//! what is known, read what would make the preview exact ([`Preview::to_measure`]), count,
//! resolve again, until nothing unread is left above the cut line. Generic over the read, so
//! it does no I/O itself and tests can drive it with a closure.

use std::collections::HashMap;

use futures::StreamExt;

use super::content::measure;
use super::resolve::{Input, Measures, Preview, resolve};
use crate::mcp::ReadOutcome;

/// The agent text of every resource that was read, by candidate index.
pub type Texts = HashMap<usize, String>;

/// Resolves `base` to a fixed point: reads (at most `jobs` at once) what
/// [`Preview::to_measure`] asks for and records it in `measures`. Returns the exact preview
/// and the agent texts read on the way.
pub async fn resolve_measured<R, Fut>(
    base: &Input<'_>,
    measures: &mut Measures,
    jobs: usize,
    read: R,
) -> (Preview, Texts)
where
    R: Fn(usize) -> Fut,
    Fut: Future<Output = Result<ReadOutcome, String>>,
{
    let mut texts = Texts::new();
    loop {
        let preview = resolve(&Input { measures, ..*base });
        let wanted = preview.to_measure();
        if wanted.is_empty() {
            return (preview, texts);
        }
        let reads = futures::stream::iter(wanted.into_iter().map(|index| {
            let read = &read;
            async move { (index, read(index).await) }
        }))
        .buffer_unordered(jobs.max(1))
        .collect::<Vec<_>>()
        .await;
        for (index, outcome) in reads {
            let c = base.candidates[index];
            let (m, text) = measure(outcome, base.policy.tokenizer);
            if let Some(text) = text {
                texts.insert(index, text);
            }
            measures.insert(c.server, c.uri, m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::ItemId;
    use crate::context::{Candidate, Marks, Policy};
    use rmcp::model::ResourceContents;

    fn cand(uri: &'static str, size: u64) -> Candidate<'static> {
        Candidate {
            id: ItemId {
                server: 0,
                index: 0,
            },
            server: "s",
            uri,
            name: uri,
            priority: None,
            audience: None,
            modified_ms: None,
            size: Some(size),
            expansion_of: None,
        }
    }

    #[tokio::test]
    async fn reads_until_exact_and_keeps_texts() {
        let cands = [cand("a://1", 10), cand("a://2", 10)];
        let marks = Marks::default();
        let policy = Policy::default();
        let mut measures = Measures::new();
        let base = Input {
            candidates: &cands,
            listed: &["s"],
            unavailable: &[],
            marks: &marks,
            policy: &policy,
            measures: &Measures::new(),
        };
        let (preview, texts) = resolve_measured(&base, &mut measures, 2, |i| async move {
            Ok(ReadOutcome::Contents(vec![ResourceContents::text(
                format!("text {i}"),
                cands[i].uri,
            )]))
        })
        .await;
        assert_eq!(preview.included.len(), 2);
        assert!(!preview.is_estimated(), "every included count is exact");
        assert_eq!(texts.len(), 2);
        assert_eq!(texts[&1], "text 1");
    }
}
