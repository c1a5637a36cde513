//! What `resources/read` returns for each catalogue entry.
//!
//! Generated text has a size fixed by the entry's seed, so the `size` published in the list
//! is exact without generating the text at list time: [`fill`] builds kind-appropriate text
//! (Rust, Markdown, JSON, ...) and pads or cuts it to that many bytes. All generated text is
//! ASCII, so bytes and characters agree.

use std::fmt::Write;

use base64::Engine;
use rmcp::model::ResourceContents;

use super::catalogue::{
    COMMIT_MESSAGES, Catalogue, Entry, FILE_PREFIX, FileSpec, Kind, Special, commit_hash, humanize,
    last_modified, wiki_parts,
};
use super::time;

/// The demo logo: a 16x16 RGBA PNG.
pub(crate) const LOGO_PNG: &[u8] = include_bytes!("../../assets/demo/logo.png");

const README: &str = "# Demo project\n\
\n\
This catalogue is served by `mcpick demo-server`, mcpick's built-in demo and fixture\n\
MCP server. Nothing here is real: every resource is generated from its position in the\n\
list, so the same flags always publish the same catalogue.\n\
\n\
## Layout\n\
\n\
- `src/`: Rust sources (`src/mcp/`, `src/catalog/`, `src/tui/views/`, ...)\n\
- `docs/`: guides, ADRs and an API reference\n\
- `tests/fixtures/`: recorded protocol exchanges, some nested 7 levels deep\n\
- `git://project/commits/...`, `https://example.com/wiki/...`, `demo://notes/...`\n\
\n\
## Things worth trying\n\
\n\
- `demo://clock/now` changes on every read; subscribe to it for update notifications.\n\
- `demo://multi/bundle` reads as three contents; `demo://empty` reads as none.\n\
- `demo://assets/logo.png` is binary (base64 `blob`).\n\
- Templates: `file:///project/{path}` and `demo://notes/{id}`, with completions.\n";

const NOTES_INDEX_HEAD: &str =
    "# Notes\n\nEvery `demo://notes/<n>` is readable; these are listed:\n\n";

const SEARCH_JSON: &str = r#"{
  "query": "budget",
  "results": [
    { "uri": "file:///project/src/budget.rs", "score": 0.92 },
    { "uri": "https://example.com/wiki/Budget_Planning", "score": 0.81 },
    { "uri": "file:///project/docs/ranking-policy.md", "score": 0.44 }
  ]
}
"#;

const MY_NOTES: &str = "# My Notes\n\
\n\
A file whose name has a space, so its URI is percent-encoded (`My%20Notes.md`).\n\
\n\
- [ ] pin the README\n\
- [ ] exclude `logs/`\n\
- [x] check the cut line at a 4k-token budget\n";

const CARGO_TOML: &str = "[package]\n\
name = \"demo-project\"\n\
version = \"0.3.1\"\n\
edition = \"2024\"\n\
\n\
[dependencies]\n\
serde = { version = \"1\", features = [\"derive\"] }\n\
tokio = { version = \"1\", features = [\"full\"] }\n";

const MAIN_RS: &str = "//! Entry point of the demo project.\n\
\n\
fn main() {\n\
    let budget = demo_project::budget::Budget::new(4_000);\n\
    println!(\"context budget: {} tokens\", budget.limit());\n\
}\n";

/// Content that a careless client would pass straight to the terminal.
const UNTRUSTED: &str = "This text carries terminal control sequences:\n\
\u{1b}[2J\u{1b}[H(clear screen)\n\
\u{1b}[31mred text\u{1b}[0m\n\
\u{1b}]52;c;aGVsbG8=\u{7}(OSC 52 clipboard write)\n\
\u{1b}]8;;https://example.com\u{1b}\\a hyperlink\u{1b}]8;;\u{1b}\\\n\
bidi: \u{202e}gnp.exe\u{202c}\n\
bell: \u{7}\n\
carriage return: visible\roverwritten\n";

const BUNDLE_PART_1: &str = "Part 1 of the bundle: plain text.\n";
const BUNDLE_PART_2: &str = "# Part 2\n\nThe second part is Markdown.\n";

/// The published `size` of a special, when it has one (changing or multi-part reads don't).
pub(crate) fn special_size(s: Special) -> Option<u64> {
    let len = match s {
        Special::Readme => README.len(),
        Special::Logo => LOGO_PNG.len(),
        Special::Empty => 0,
        Special::FirstNote => generated_size(Entry::Note(1)),
        Special::Search => SEARCH_JSON.len(),
        Special::MyNotes => MY_NOTES.len(),
        Special::CargoToml => CARGO_TOML.len(),
        Special::MainRs => MAIN_RS.len(),
        Special::Untrusted => UNTRUSTED.len(),
        Special::Clock | Special::Bundle | Special::GuidesDir | Special::NotesIndex => {
            return None;
        }
    };
    Some(len as u64)
}

/// The exact byte length of a generated entry's text.
pub(crate) fn generated_size(entry: Entry) -> usize {
    let seed = entry.seed();
    match entry {
        Entry::Note(_) => 300 + ((seed >> 40) % 900) as usize,
        _ => 700 + ((seed >> 40) % 5300) as usize,
    }
}

/// The contents of `entry`, labelled with the URI the client asked for.
///
/// `clock_reads` is the 1-based number of this read of the clock resource.
pub(crate) fn read(
    catalogue: Catalogue,
    entry: Entry,
    uri: &str,
    clock_reads: u64,
) -> Vec<ResourceContents> {
    let text = |t: &str, mime: &str| vec![ResourceContents::text(t, uri).with_mime_type(mime)];
    let special = match entry {
        Entry::Special(s) => s,
        Entry::File(_) | Entry::Commit(_) | Entry::Wiki(_) | Entry::Note(_) => {
            return text(&generated_text(entry), entry.mime());
        }
    };
    match special {
        Special::Readme => text(README, "text/markdown"),
        Special::Logo => vec![blob(LOGO_PNG, uri, "image/png")],
        Special::Clock => text(
            &format!(
                "uri: {uri}\ntime: {}\nreads: {clock_reads}\n",
                time::now_rfc3339()
            ),
            "text/plain",
        ),
        Special::Bundle => vec![
            ResourceContents::text(BUNDLE_PART_1, "demo://multi/bundle/part-1.txt"),
            ResourceContents::text(BUNDLE_PART_2, "demo://multi/bundle/part-2.md")
                .with_mime_type("text/markdown"),
            blob(LOGO_PNG, "demo://multi/bundle/logo.png", "image/png"),
        ],
        Special::Empty => Vec::new(),
        Special::GuidesDir => text(
            &directory_listing(catalogue, "docs/guides/"),
            "text/uri-list",
        ),
        Special::NotesIndex => {
            let mut out = String::from(NOTES_INDEX_HEAD);
            for id in catalogue.note_ids().take(50) {
                let _ = writeln!(out, "- [Note {id}](demo://notes/{id})");
            }
            text(&out, "text/markdown")
        }
        Special::FirstNote => text(&generated_text(Entry::Note(1)), "text/markdown"),
        Special::Search => text(SEARCH_JSON, "application/json"),
        Special::MyNotes => text(MY_NOTES, "text/markdown"),
        Special::CargoToml => text(CARGO_TOML, "text/x-toml"),
        Special::MainRs => text(MAIN_RS, "text/x-rust"),
        Special::Untrusted => text(UNTRUSTED, "text/plain"),
    }
}

fn blob(bytes: &[u8], uri: &str, mime: &str) -> ResourceContents {
    let b64 = base64::engine::general_purpose::STANDARD.encode(bytes);
    ResourceContents::blob(b64, uri).with_mime_type(mime)
}

/// A `text/uri-list` of the published files directly or indirectly under `dir` (capped).
fn directory_listing(catalogue: Catalogue, dir: &str) -> String {
    let mut out = String::from("# files under file:///project/docs/guides/\r\n");
    let mut n = 0;
    catalogue.for_each_file_path(|path| {
        if n < 1000 && path.len() > dir.len() && path.starts_with(dir) {
            let _ = write!(out, "{FILE_PREFIX}{path}\r\n");
            n += 1;
        }
    });
    out
}

/// Builds `head`, then as many `item(n)` as fit, then `tail`, padded with whitespace (valid
/// in every format used here) to exactly `size` bytes; cut to `size` if even `head` is too
/// long.
fn fill(head: String, tail: &str, size: usize, mut item: impl FnMut(usize) -> String) -> String {
    let mut out = head;
    for n in 0.. {
        let next = item(n);
        if next.is_empty() || out.len() + next.len() + tail.len() > size {
            break;
        }
        out.push_str(&next);
    }
    if out.len() + tail.len() <= size {
        let pad = size - out.len() - tail.len();
        if pad > 0 {
            out.extend(std::iter::repeat_n(' ', pad - 1));
            out.push('\n');
        }
        out.push_str(tail);
    } else {
        out.push_str(tail);
        out.truncate(size);
    }
    out
}

const SENTENCES: [&str; 8] = [
    "The catalogue lists what each server offers; the context set records what we keep.",
    "Pinned resources always reach the agent, whatever the budget says.",
    "Unmarked resources are ranked by priority first, then by how recently they changed.",
    "Excluded prefixes hide whole subtrees, such as build logs or vendored code.",
    "The cut line shows where the token budget runs out.",
    "Servers are untrusted: names and titles are sanitised before they are drawn.",
    "A hung server costs only itself; the rest of the catalogue stays usable.",
    "Templates describe resources that exist only when a client fills in the blanks.",
];

/// `session_store` → `SessionStore`.
fn camel(stem: &str) -> String {
    stem.split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The text of a generated (non-special) entry; exactly [`generated_size`] bytes.
pub(crate) fn generated_text(entry: Entry) -> String {
    let seed = entry.seed();
    let size = generated_size(entry);
    let uri = entry.uri();
    let sentence = move |n: usize| SENTENCES[(n + seed as usize % 8) % 8];
    match entry {
        Entry::File(j) => file_text(FileSpec::of(j), &uri, seed, size),
        Entry::Commit(j) => {
            let hash = commit_hash(j);
            let head = format!(
                "commit {hash}\nAuthor: Demo Dev <dev@example.com>\nDate:   {}\n\n    {}\n\n\
                 diff --git a/src/lib.rs b/src/lib.rs\n--- a/src/lib.rs\n+++ b/src/lib.rs\n\
                 @@ -1,3 +1,40 @@\n",
                last_modified(seed),
                COMMIT_MESSAGES[(seed % 16) as usize],
            );
            fill(head, "", size, |n| format!("+// {}\n", sentence(n)))
        }
        Entry::Wiki(j) => {
            let (page, rev) = wiki_parts(j);
            let mut title = page.replace('_', " ");
            if rev > 0 {
                let _ = write!(title, " (revision {rev})");
            }
            let head = format!(
                "<!doctype html>\n<html><head><title>{title}</title></head>\n<body>\n<h1>{title}</h1>\n"
            );
            fill(head, "</body></html>\n", size, |n| {
                format!("<p>{}</p>\n", sentence(n))
            })
        }
        Entry::Note(n) => {
            let head = format!("# Note {n}\n\nWritten {}.\n\n", last_modified(seed));
            fill(head, "", size, |i| format!("- {}\n", sentence(i)))
        }
        Entry::Special(_) => String::new(),
    }
}

fn file_text(f: FileSpec, uri: &str, seed: u64, size: usize) -> String {
    let sentence = move |n: usize| SENTENCES[(n + seed as usize % 8) % 8];
    let name = f.file_name();
    match (f.kind, f.ext) {
        (Kind::Rust, _) => {
            let ty = camel(f.stem);
            let head = format!(
                "//! `{name}`: the {} part of the demo project.\n//!\n//! Source: {uri}\n\n\
                 use std::collections::BTreeMap;\n\n\
                 /// {ty} keeps the {} state of the demo project.\n\
                 #[derive(Debug, Default)]\npub struct {ty} {{\n    entries: BTreeMap<String, u64>,\n}}\n\n\
                 impl {ty} {{\n",
                f.stem, f.stem
            );
            fill(head, "}\n", size, |n| {
                format!(
                    "    /// {}\n    pub fn step_{n}(&mut self, key: &str) -> u64 {{\n        \
                     let seen = self.entries.entry(format!(\"{n}:{{key}}\")).or_insert(0);\n        \
                     *seen += 1;\n        *seen\n    }}\n\n",
                    sentence(n)
                )
            })
        }
        (Kind::Docs, _) => {
            let head = format!(
                "# {}\n\n> Demo document `{}` served by mcpick's demo server.\n\n",
                humanize(f.stem),
                f.path()
            );
            fill(head, "---\n*End of document.*\n", size, |n| {
                format!(
                    "## Section {}\n\n{} {}\n\n- point {n}.a\n- point {n}.b\n\n",
                    n + 1,
                    sentence(n),
                    sentence(n + 3)
                )
            })
        }
        (Kind::Json, _) => {
            let head = format!(
                "{{\n  \"$schema\": \"https://example.com/schemas/fixture.json\",\n  \
                 \"name\": \"{}\",\n  \"source\": \"{uri}\",\n  \"items\": [\n",
                f.stem
            );
            fill(head, "\n  ]\n}\n", size, |n| {
                let sep = if n == 0 { "" } else { ",\n" };
                format!(
                    "{sep}    {{ \"id\": {n}, \"ok\": {}, \"note\": \"{}\" }}",
                    n % 3 != 0,
                    sentence(n)
                )
            })
        }
        (Kind::Config, "toml") => {
            let head = format!(
                "# {name}: demo configuration\n\n[package]\nname = \"{}\"\n\n",
                f.stem
            );
            fill(head, "", size, |n| {
                format!(
                    "[section_{n}]\nenabled = {}\nlimit = {}\n\n",
                    n % 2 == 0,
                    n * 10
                )
            })
        }
        (Kind::Config, _) => {
            let head = format!("# {name}: demo configuration\nname: {}\nitems:\n", f.stem);
            fill(head, "", size, |n| {
                format!("  - id: {n}\n    enabled: {}\n", n % 2 == 0)
            })
        }
        (Kind::Scripts, "sh") => {
            let head = format!("#!/bin/sh\n# {name}: demo script\nset -eu\n\n");
            fill(head, "exit 0\n", size, |n| format!("echo \"step {n}\"\n"))
        }
        (Kind::Scripts, _) => {
            let head = format!(
                "#!/usr/bin/env python3\n\"\"\"{name}: demo script.\"\"\"\n\n\ndef main() -> None:\n"
            );
            fill(
                head,
                "\n\nif __name__ == \"__main__\":\n    main()\n",
                size,
                |n| format!("    print(\"step {n}\")\n"),
            )
        }
        (Kind::Web, "css") => {
            let head = format!("/* {name} */\n:root {{ --accent: #1f8a8a; }}\n\n");
            fill(head, "", size, |n| {
                format!(".item-{n} {{ margin: {}px; }}\n", n % 16)
            })
        }
        (Kind::Web, "tsx") => {
            let head = format!(
                "// {name}\nexport function {}() {{\n  return (\n    <ul>\n",
                camel(f.stem)
            );
            fill(head, "    </ul>\n  );\n}\n", size, |n| {
                format!("      <li key=\"{n}\">{}</li>\n", sentence(n))
            })
        }
        (Kind::Web, _) => {
            let head = format!("// {name}\nexport const items = [\n");
            fill(head, "];\n", size, |n| {
                format!("  {{ id: {n}, label: \"{}\" }},\n", sentence(n))
            })
        }
        (Kind::Logs, _) => {
            let base = time::SPAN_START + 365 * 86_400 + (seed % 86_400) as i64;
            fill(String::new(), "", size, |n| {
                let level = ["INFO", "INFO", "DEBUG", "WARN", "INFO", "ERROR"][n % 6];
                let ts = time::rfc3339(base + n as i64 * 7, time::Style::Utc);
                format!("{ts} {level} {}: step {n} done\n", f.stem)
            })
        }
        (Kind::Assets, _) => {
            let head = format!(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">\n  <title>{}</title>\n",
                f.stem
            );
            fill(head, "</svg>\n", size, |n| {
                format!(
                    "  <rect x=\"{}\" y=\"{}\" width=\"1\" height=\"1\" fill=\"#1f8a8a\"/>\n",
                    n % 16,
                    n / 16 % 16
                )
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_text_matches_published_size() {
        let cat = Catalogue::new(3_000);
        for r in cat.page(0, cat.len()) {
            let entry = cat.lookup(&r.uri).expect("listed");
            let Entry::Special(_) = entry else {
                let text = generated_text(entry);
                assert_eq!(text.len(), generated_size(entry), "{}", r.uri);
                assert!(text.is_ascii(), "{}", r.uri);
                if let Some(size) = r.size {
                    assert_eq!(size as usize, text.len(), "{}", r.uri);
                }
                continue;
            };
            // Specials with a size report it exactly too.
            if let Some(size) = r.size {
                let contents = read(cat, entry, &r.uri, 1);
                let len = match &contents[..] {
                    [] => 0,
                    [ResourceContents::TextResourceContents { text, .. }] => text.len(),
                    [ResourceContents::BlobResourceContents { .. }] => LOGO_PNG.len(),
                    _ => panic!("unexpected contents for {}", r.uri),
                };
                assert_eq!(size as usize, len, "{}", r.uri);
            }
        }
    }

    #[test]
    fn json_fixtures_parse() {
        let cat = Catalogue::new(2_000);
        let mut n = 0;
        for r in cat.page(0, cat.len()) {
            if r.uri.ends_with(".json") {
                let text = generated_text(cat.lookup(&r.uri).unwrap());
                serde_json::from_str::<serde_json::Value>(&text)
                    .unwrap_or_else(|e| panic!("{}: {e}\n{text}", r.uri));
                n += 1;
            }
        }
        assert!(n > 50, "{n}");
        serde_json::from_str::<serde_json::Value>(SEARCH_JSON).unwrap();
    }

    #[test]
    fn rust_files_look_like_rust() {
        let text = generated_text(Entry::File(1)); // src/mcp/lib.rs
        assert!(text.starts_with("//! `lib.rs`"), "{text}");
        assert!(text.contains("pub struct Lib {"));
        assert!(text.trim_end().ends_with('}'));
    }

    #[test]
    fn fill_is_exact() {
        for size in [0, 1, 5, 10, 11, 37, 100] {
            let s = fill("head\n".into(), "tail\n", size, |n| format!("item {n}\n"));
            assert_eq!(s.len(), size);
        }
        let s = fill("h\n".into(), "t\n", 30, |n| format!("i{n}\n"));
        assert!(
            s.starts_with("h\ni0\ni1\n") && s.ends_with("\nt\n"),
            "{s:?}"
        );
    }

    #[test]
    fn specials_read_as_documented() {
        let cat = Catalogue::new(300);
        let read_special = |s: Special| read(cat, Entry::Special(s), s.uri(), 1);
        assert!(read_special(Special::Empty).is_empty());
        let bundle = read_special(Special::Bundle);
        assert_eq!(bundle.len(), 3);
        let ResourceContents::BlobResourceContents {
            blob, mime_type, ..
        } = &read_special(Special::Logo)[0]
        else {
            panic!("logo is a blob");
        };
        assert_eq!(mime_type.as_deref(), Some("image/png"));
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(blob)
            .unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let ResourceContents::TextResourceContents { text, .. } =
            &read_special(Special::GuidesDir)[0]
        else {
            panic!("directory is text");
        };
        assert!(text.contains("file:///project/docs/guides/"), "{text}");
        assert!(text.lines().count() > 2, "{text}");
    }
}
