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

/// The most bytes handed to the tokenizer at once. The tokenizer splits text into pieces
/// (words, runs of punctuation) and merges each piece with memory linear in its length and
/// time worse than linear: a 40 MB run of one character is one piece (30 s and 2 GB). Text is
/// cut into chunks of at most this much, so cost is linear in the text and memory bounded.
const CHUNK_BYTES: usize = 16 * 1024;

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
    /// Long text is counted in chunks ([`chunks`]): exact for text with white space at
    /// least every [`CHUNK_BYTES`] / 2 bytes, and within a token or two per chunk of a longer
    /// unbroken run.
    pub fn count(self, text: &str) -> u64 {
        chunks(text).map(|chunk| self.count_whole(chunk)).sum()
    }

    /// The tokenizer's count of `text` as one input (what [`TokenizerKind::count`] sums).
    fn count_whole(self, text: &str) -> u64 {
        let bpe = match self {
            TokenizerKind::O200kBase => tiktoken_rs::o200k_base_singleton(),
            TokenizerKind::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        };
        bpe.encode_ordinary(text).len() as u64
    }
}

/// `text` in chunks of at most [`CHUNK_BYTES`] (a character longer than what is left of a
/// chunk goes whole into the next). A chunk ends, where it can, just before a space that
/// follows something other than white space: the tokenizer's pieces never reach across such
/// a place (a word takes the space before it, never the one after), so cutting there changes
/// no count. Where the last half of a chunk has no such place (a run of one character, a
/// minified line), it ends at the character boundary at the limit.
pub fn chunks(text: &str) -> impl Iterator<Item = &str> {
    chunks_of(text, CHUNK_BYTES)
}

/// [`chunks`] of at most `limit` bytes.
fn chunks_of(text: &str, limit: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = cut(rest, limit);
        let (chunk, after) = rest.split_at(end);
        rest = after;
        Some(chunk)
    })
}

/// Where the first chunk of `text` ends (see [`chunks`]).
fn cut(text: &str, limit: usize) -> usize {
    if text.len() <= limit {
        return text.len();
    }
    let mut limit = limit;
    while !text.is_char_boundary(limit) {
        limit -= 1;
    }
    let bytes = text.as_bytes();
    let floor = limit / 2;
    (floor..limit)
        .rev()
        .find(|&i| bytes[i] == b' ' && i > 0 && !bytes[i - 1].is_ascii_whitespace())
        .unwrap_or(limit)
        .max(1)
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

    /// Prose, code, Markdown and non-Latin text, a few chunks long.
    fn mixed_text(bytes: usize) -> String {
        let parts = [
            "The budget meter shows what the agent is handed, resource by resource.\n",
            "fn main() {\n    let x = vec![1, 2, 3];\n    println!(\"{x:?}\");\n}\n",
            "## Notes\n\n- first item, *emphasised*\n- second: `code`, 12345 numbers\n\n",
            "Größe 16 € — 東京は大きい都市です。 Привет, мир!\n",
            "    indented line\twith\ttabs   and  double  spaces \r\n",
        ];
        let mut text = String::new();
        let mut i = 0;
        while text.len() < bytes {
            text.push_str(parts[i % parts.len()]);
            i += 7;
        }
        text
    }

    #[test]
    fn chunks_cover_the_text_in_order_within_the_limit() {
        for text in [
            mixed_text(300_000),
            "a".repeat(200_001),
            "é".repeat(100_001),
            " ".repeat(150_000),
        ] {
            let parts: Vec<&str> = chunks(&text).collect();
            assert!(parts.len() > 1);
            assert!(
                parts
                    .iter()
                    .all(|c| !c.is_empty() && c.len() <= CHUNK_BYTES)
            );
            assert_eq!(parts.concat(), text);
        }
        assert_eq!(chunks("").count(), 0);
        assert_eq!(chunks("short").collect::<Vec<_>>(), ["short"]);
    }

    #[test]
    fn chunked_counts_of_ordinary_text_are_the_whole_texts() {
        for kind in [TokenizerKind::O200kBase, TokenizerKind::Cl100kBase] {
            let text = mixed_text(400_000);
            assert!(chunks(&text).count() >= 6);
            let exact = kind.count_whole(&text);
            let chunked = kind.count(&text);
            // Cut only where no piece reaches across: the same count (allowing 0.5%).
            assert!(
                chunked.abs_diff(exact) * 200 <= exact,
                "{}: {chunked} counted in chunks, {exact} whole",
                kind.name()
            );
        }
    }

    #[test]
    fn chunked_counts_of_unbroken_runs_are_within_a_token_or_two_a_chunk() {
        for kind in [TokenizerKind::O200kBase, TokenizerKind::Cl100kBase] {
            for run in [
                "a".repeat(300_000),
                "é".repeat(150_000),
                "=".repeat(300_000),
                "ab3$".repeat(75_000),
            ] {
                let cuts = chunks(&run).count() as u64 - 1;
                assert!(cuts >= 4);
                let exact = kind.count_whole(&run);
                let chunked = kind.count(&run);
                assert!(
                    chunked.abs_diff(exact) <= 2 * cuts,
                    "{}: {chunked} counted in {} chunks, {exact} whole",
                    kind.name(),
                    cuts + 1
                );
            }
        }
    }

    /// What `docs/performance.md` reports: one 40 MB run of one character, counted, with the
    /// time and the peak resident memory of the process (run by hand, `--ignored
    /// --nocapture`; a benchmark, not a timed test).
    #[test]
    #[ignore]
    fn forty_megabytes_of_one_character() {
        let kind = TokenizerKind::O200kBase;
        let time = |text: &str, limit: usize| {
            let started = std::time::Instant::now();
            let n: u64 = chunks_of(text, limit).map(|c| kind.count_whole(c)).sum();
            (n, started.elapsed())
        };
        let four = "a".repeat(4 * 1024 * 1024);
        for limit in [1024, 4096, CHUNK_BYTES, 64 * 1024, 256 * 1024, four.len()] {
            let (n, took) = time(&four, limit);
            eprintln!("4 MiB run in chunks of {limit} B: {n} tokens in {took:?}");
        }
        let text = "a".repeat(40 * 1024 * 1024);
        let started = std::time::Instant::now();
        let n = kind.count(&text);
        let took = started.elapsed();
        // SAFETY: getrusage writes into the struct it is given.
        let peak_kb = unsafe {
            let mut usage: libc::rusage = std::mem::zeroed();
            libc::getrusage(libc::RUSAGE_SELF, &mut usage);
            usage.ru_maxrss
        };
        eprintln!(
            "40 MiB run: {n} tokens in {took:?}, peak RSS {} MiB",
            peak_kb / 1024
        );
    }
}
