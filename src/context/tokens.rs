//! Token counts. They come from a real BPE tokenizer (tiktoken's `o200k_base` by default, or
//! `cl100k_base`), whose data is compiled into mcpick: nothing is downloaded. The host model's
//! own tokenizer may differ, so every count is an *estimate* of what the agent pays.
//!
//! Before a resource is read its count is estimated from its `size`: one token per
//! [`BYTES_PER_TOKEN`] bytes, rounded up; a resource without `size` is taken to be
//! [`UNKNOWN_SIZE_BYTES`] long. Such counts are flagged `tokensEstimated`.

use serde::{Deserialize, Serialize};

/// Bytes per token for estimates before a read (English text and code average about 4 with
/// both tokenizers).
pub const BYTES_PER_TOKEN: u64 = 4;

/// The size assumed for a resource that did not say its `size`, for estimates before a read.
pub const UNKNOWN_SIZE_BYTES: u64 = 2048;

/// The estimate before a read: `ceil(size / 4)`, with an unknown size taken as 2048 bytes.
pub fn estimate(size: Option<u64>) -> u64 {
    size.unwrap_or(UNKNOWN_SIZE_BYTES).div_ceil(BYTES_PER_TOKEN)
}

/// The tokenizers mcpick has built in.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, clap::ValueEnum,
)]
pub enum TokenizerKind {
    /// GPT-4o / o-series and later; the default.
    #[default]
    #[serde(rename = "o200k_base")]
    #[value(name = "o200k_base")]
    O200kBase,
    /// GPT-4 / GPT-3.5.
    #[serde(rename = "cl100k_base")]
    #[value(name = "cl100k_base")]
    Cl100kBase,
}

impl TokenizerKind {
    pub fn name(self) -> &'static str {
        match self {
            TokenizerKind::O200kBase => "o200k_base",
            TokenizerKind::Cl100kBase => "cl100k_base",
        }
    }

    /// Counts the tokens of `text` (special-token text such as `<|endoftext|>` is counted as
    /// ordinary text). The first call per tokenizer loads its tables (tens of milliseconds):
    /// the TUI should call it off the UI thread. Pure otherwise: no I/O.
    pub fn count(self, text: &str) -> u64 {
        let bpe = match self {
            TokenizerKind::O200kBase => tiktoken_rs::o200k_base_singleton(),
            TokenizerKind::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        bpe.encode_ordinary(text).len() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_round_up() {
        assert_eq!(estimate(Some(0)), 0);
        assert_eq!(estimate(Some(1)), 1);
        assert_eq!(estimate(Some(4000)), 1000);
        assert_eq!(estimate(None), 512);
    }

    #[test]
    fn real_tokenizers_count() {
        // Known counts from tiktoken.
        assert_eq!(TokenizerKind::O200kBase.count("hello world"), 2);
        assert_eq!(TokenizerKind::Cl100kBase.count("hello world"), 2);
        assert_eq!(TokenizerKind::O200kBase.count(""), 0);
        let text = "The budget meter shows what the agent is handed. ".repeat(20);
        let n = TokenizerKind::O200kBase.count(&text);
        assert!((150..=300).contains(&n), "{n}");
        // Special-token text is plain text, not a panic.
        assert!(TokenizerKind::Cl100kBase.count("<|endoftext|>") > 1);
    }
}
