//! The demo catalogue: a deterministic resource list generated from the index alone.
//!
//! Index `i` always names the same resource, so a page is built on demand from its offset
//! and a 1,000,000-resource catalogue costs nothing until a client asks for a page. The
//! generator is also invertible: a URI maps back to its index, which is how a read checks
//! that the URI was really published (no table of URIs is ever held in memory).
//!
//! Layout: a fixed list of [`Special`] resources first (README, a PNG, a changing clock,
//! a multi-part read, an empty read, a directory, ...), then generated slots that are mostly
//! `file:///project/...` files with a few commits, wiki pages and notes mixed in.

use rmcp::model::{Annotations, Resource, Role};

use super::{content, time};

/// Prefix of every project file URI (and of the `file:///project/{path}` template).
pub(crate) const FILE_PREFIX: &str = "file:///project/";
/// Prefix of every note URI (and of the `demo://notes/{id}` template).
pub(crate) const NOTE_PREFIX: &str = "demo://notes/";
const COMMIT_PREFIX: &str = "git://project/commits/";
const WIKI_PREFIX: &str = "https://example.com/wiki/";
/// The resource whose content changes on every read; subscriptions tick for it.
pub(crate) const CLOCK_URI: &str = "demo://clock/now";
/// Generated notes are numbered from here (note 1 is a special; the rest are template-only).
const FIRST_GENERATED_NOTE: u64 = 100;

/// Hand-written resources that cover the awkward cases; always at the start of the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Special {
    Readme,
    Logo,
    Clock,
    Bundle,
    Empty,
    GuidesDir,
    NotesIndex,
    FirstNote,
    Search,
    MyNotes,
    CargoToml,
    MainRs,
    Untrusted,
}

/// Specials in listing order.
pub(crate) const SPECIALS: [Special; 13] = [
    Special::Readme,
    Special::Logo,
    Special::Clock,
    Special::Bundle,
    Special::Empty,
    Special::GuidesDir,
    Special::NotesIndex,
    Special::FirstNote,
    Special::Search,
    Special::MyNotes,
    Special::CargoToml,
    Special::MainRs,
    Special::Untrusted,
];

impl Special {
    pub(crate) fn uri(self) -> &'static str {
        match self {
            Special::Readme => "file:///project/README.md",
            Special::Logo => "demo://assets/logo.png",
            Special::Clock => CLOCK_URI,
            Special::Bundle => "demo://multi/bundle",
            Special::Empty => "demo://empty",
            Special::GuidesDir => "file:///project/docs/guides/",
            Special::NotesIndex => "demo://notes",
            Special::FirstNote => "demo://notes/1",
            Special::Search => "demo://search?q=budget",
            Special::MyNotes => "file:///project/docs/My%20Notes.md",
            Special::CargoToml => "file:///project/Cargo.toml",
            Special::MainRs => "file:///project/src/main.rs",
            Special::Untrusted => "demo://untrusted/escape-sequences",
        }
    }

    fn resource(self) -> Resource {
        let size = content::special_size(self);
        let r = match self {
            Special::Readme => Resource::new(self.uri(), "README.md")
                .with_title("Project README")
                .with_description("Start here: what the demo project is and how it is laid out.")
                .with_mime_type("text/markdown")
                .with_annotations(annotations(
                    Some(vec![Role::Assistant]),
                    Some(1.0),
                    Some("2026-02-14T09:30:00Z"),
                )),
            Special::Logo => Resource::new(self.uri(), "logo.png")
                .with_title("Project logo")
                .with_description("A 16x16 PNG, served base64-encoded in `blob`.")
                .with_mime_type("image/png")
                .with_annotations(annotations(Some(vec![Role::User]), Some(0.25), None)),
            Special::Clock => Resource::new(self.uri(), "now")
                .with_title("Current time")
                .with_description(
                    "A resource that changes: the current time and a read counter. \
                     Subscribers get notifications/resources/updated every 2 seconds.",
                )
                .with_mime_type("text/plain")
                .with_annotations(annotations(None, Some(0.5), None)),
            Special::Bundle => Resource::new(self.uri(), "bundle")
                .with_title("Multi-part bundle")
                .with_description("Reading returns three contents: two text parts and a PNG.")
                .with_annotations(annotations(
                    Some(vec![Role::User, Role::Assistant]),
                    None,
                    None,
                )),
            Special::Empty => Resource::new(self.uri(), "empty")
                .with_description(
                    "Reading returns an empty contents array (which is not 'not found').",
                )
                .with_mime_type("text/plain")
                .with_annotations(Annotations::default()),
            Special::GuidesDir => Resource::new(self.uri(), "guides")
                .with_title("Guides")
                .with_description("A directory; reading it returns a text/uri-list of its files.")
                .with_mime_type("inode/directory")
                .with_annotations(annotations(None, None, Some("2025-09-01T12:00:00Z"))),
            Special::NotesIndex => Resource::new(self.uri(), "notes")
                .with_title("All notes")
                .with_description("Both a resource and the prefix of every note URI.")
                .with_mime_type("text/markdown")
                .with_annotations(annotations(None, Some(0.8), None)),
            Special::FirstNote => Resource::new(self.uri(), "note-1")
                .with_title("Note 1: kickoff")
                .with_mime_type("text/markdown")
                .with_annotations(annotations(
                    Some(vec![Role::User]),
                    None,
                    Some("2025-01-06T08:15:00+01:00"),
                )),
            Special::Search => Resource::new(self.uri(), "search-budget")
                .with_title("Saved search: budget")
                .with_description("A URI with a query string.")
                .with_mime_type("application/json")
                .with_annotations(annotations(None, Some(0.0), None)),
            Special::MyNotes => Resource::new(self.uri(), "My Notes.md")
                .with_description("A percent-encoded URI (a space in the file name).")
                .with_mime_type("text/markdown")
                .with_annotations(annotations(
                    Some(vec![Role::User]),
                    Some(0.25),
                    Some("2026-03-30T17:45:12.250Z"),
                )),
            Special::CargoToml => Resource::new(self.uri(), "Cargo.toml")
                .with_title("Cargo manifest")
                .with_mime_type("text/x-toml")
                .with_annotations(annotations(Some(vec![Role::Assistant]), Some(0.8), None)),
            Special::MainRs => Resource::new(self.uri(), "main.rs")
                .with_mime_type("text/x-rust")
                .with_annotations(annotations(
                    Some(vec![Role::User, Role::Assistant]),
                    Some(0.5),
                    Some("2026-01-20T10:00:00Z"),
                )),
            Special::Untrusted => Resource::new(self.uri(), "escape-sequences")
                .with_title(
                    "Totally normal title \u{1b}[31mRED\u{1b}[0m\u{7}\u{9b}2J\u{7f}\u{85}\u{2066}",
                )
                .with_description(
                    "Untrusted strings: line one\nline two, a bidi override \u{202e}txt.exe\u{202c}, \
                     an OSC 52 clipboard write \u{1b}]52;c;aGk=\u{7} and a BEL \u{7}.",
                )
                .with_mime_type("text/plain")
                .with_annotations(annotations(None, Some(0.25), None)),
        };
        match size {
            Some(size) => r.with_size(size),
            None => r,
        }
    }
}

/// What a catalogue entry is; enough to build its resource and its content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    Special(Special),
    /// The `j`-th generated project file.
    File(u64),
    /// The `j`-th generated commit.
    Commit(u64),
    /// The `j`-th generated wiki page.
    Wiki(u64),
    /// Note number `n` (listed when `n >= 100` and its slot is in range; any `n` is readable).
    Note(u64),
}

/// The generated part of the list repeats in blocks of 20 slots; these are the file slots.
const FILE_SLOTS: [u64; 16] = [0, 1, 2, 4, 5, 6, 8, 9, 10, 11, 12, 14, 15, 16, 18, 19];
const BLOCK: u64 = 20;

/// Maps a generated slot `k` to its entry.
fn slot_entry(k: u64) -> Entry {
    match k % BLOCK {
        3 => Entry::Wiki(k / BLOCK),
        13 => Entry::Note(FIRST_GENERATED_NOTE + k / BLOCK),
        7 | 17 => Entry::Commit(k / 10),
        r => {
            let pos = FILE_SLOTS.iter().position(|&s| s == r).unwrap_or(0) as u64;
            Entry::File(k / BLOCK * FILE_SLOTS.len() as u64 + pos)
        }
    }
}

/// The generated slot of an entry, if it has one (inverse of [`slot_entry`]). `None` also
/// when the slot would not fit in a `u64` (URIs are client input).
fn entry_slot(entry: Entry) -> Option<u64> {
    let slot = |block: u64, offset: u64| block.checked_mul(BLOCK)?.checked_add(offset);
    match entry {
        Entry::Special(_) => None,
        Entry::Wiki(j) => slot(j, 3),
        Entry::Note(n) => slot(n.checked_sub(FIRST_GENERATED_NOTE)?, 13),
        Entry::Commit(j) => slot(j / 2, if j % 2 == 0 { 7 } else { 17 }),
        Entry::File(j) => {
            let per = FILE_SLOTS.len() as u64;
            slot(j / per, FILE_SLOTS[(j % per) as usize])
        }
    }
}

/// The category of a generated file's directory; decides names, extension and content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Rust,
    Docs,
    Json,
    Config,
    Scripts,
    Web,
    Logs,
    Assets,
}

/// Directories of generated files, 1 to 7 levels deep (8 with a `vN` revision directory).
const DIRS: [(&str, Kind); 24] = [
    ("src", Kind::Rust),
    ("src/mcp", Kind::Rust),
    ("docs", Kind::Docs),
    ("tests/fixtures", Kind::Json),
    ("src/catalog", Kind::Rust),
    ("docs/guides", Kind::Docs),
    ("config", Kind::Config),
    ("src/tui/views", Kind::Rust),
    ("scripts", Kind::Scripts),
    ("web/src/components", Kind::Web),
    ("docs/reference/api/v2", Kind::Docs),
    ("tests/fixtures/servers/python/legacy", Kind::Json),
    ("src/context", Kind::Rust),
    ("logs/2026/01/build", Kind::Logs),
    ("assets/icons", Kind::Assets),
    ("crates/core/src/model/resource/annotations", Kind::Rust),
    ("docs/adr", Kind::Docs),
    ("deploy/k8s/overlays/staging", Kind::Config),
    ("src/export/render", Kind::Rust),
    ("tests/fixtures/catalogs/large/2025/q3/batch", Kind::Json),
    ("tools/ci", Kind::Scripts),
    ("web/src/styles", Kind::Web),
    ("logs", Kind::Logs),
    ("src/mcp/transport", Kind::Rust),
];
const STEMS_PER_KIND: u64 = 16;

impl Kind {
    fn stems(self) -> &'static [&'static str; 16] {
        match self {
            Kind::Rust => &[
                "lib", "app", "handler", "session", "cursor", "catalog", "ranking", "budget",
                "tree", "picker", "preview", "export", "runtime", "matcher", "policy", "marks",
            ],
            Kind::Docs => &[
                "getting-started",
                "architecture",
                "configuration",
                "faq",
                "troubleshooting",
                "changelog",
                "roadmap",
                "security",
                "contributing",
                "glossary",
                "context-sets",
                "ranking-policy",
                "keybindings",
                "servers",
                "release-process",
                "design-notes",
            ],
            Kind::Json => &[
                "initialize",
                "resources-list",
                "resources-read",
                "templates",
                "completion",
                "error-not-found",
                "error-invalid-cursor",
                "subscribe",
                "discover",
                "large-page",
                "empty-page",
                "annotations",
                "binary-blob",
                "unicode-names",
                "tools-list",
                "server-info",
            ],
            // Even index: TOML, odd: YAML (see `ext`).
            Kind::Config => &[
                "Cargo",
                "docker-compose",
                "rustfmt",
                "kustomization",
                "clippy",
                "values",
                "deny",
                "ci",
                "mcpick",
                "release",
                "servers",
                "settings",
                "keymap",
                "profile",
                "theme",
                "workspace",
            ],
            // Even index: shell, odd: Python.
            Kind::Scripts => &[
                "build",
                "gen_fixtures",
                "release",
                "bench_report",
                "install",
                "check_links",
                "lint",
                "compare_catalogs",
                "bootstrap",
                "plot_latency",
                "test-all",
                "export_schema",
                "fmt",
                "seed_demo",
                "publish",
                "summarize_logs",
            ],
            // Index mod 3: ts, tsx, css.
            Kind::Web => &[
                "index",
                "App",
                "theme",
                "api",
                "ResourceTree",
                "layout",
                "store",
                "Preview",
                "tokens",
                "hooks",
                "Picker",
                "reset",
                "format",
                "Budget",
                "print",
                "router",
            ],
            // Even index: .log, odd: .txt.
            Kind::Logs => &[
                "build", "test", "server", "client", "bench", "audit", "deploy", "crash", "access",
                "error", "sync", "import", "export", "cron", "session", "trace",
            ],
            Kind::Assets => &[
                "logo",
                "icon-pin",
                "icon-exclude",
                "icon-folder",
                "spinner",
                "badge",
                "banner",
                "cursor",
                "arrow-up",
                "arrow-down",
                "check",
                "cross",
                "star",
                "clock",
                "search",
                "tree",
            ],
        }
    }

    fn ext(self, stem_index: usize) -> &'static str {
        match self {
            Kind::Rust => "rs",
            Kind::Docs => "md",
            Kind::Json => "json",
            Kind::Config => ["toml", "yaml"][stem_index % 2],
            Kind::Scripts => ["sh", "py"][stem_index % 2],
            Kind::Web => ["ts", "tsx", "css"][stem_index % 3],
            Kind::Logs => ["log", "txt"][stem_index % 2],
            Kind::Assets => "svg",
        }
    }
}

/// The MIME type servers conventionally report for an extension.
pub(crate) fn mime_for_ext(ext: &str) -> &'static str {
    match ext {
        "rs" => "text/x-rust",
        "md" => "text/markdown",
        "json" => "application/json",
        "toml" => "text/x-toml",
        "yaml" => "application/yaml",
        "sh" => "application/x-sh",
        "py" => "text/x-python",
        "ts" | "tsx" => "text/typescript",
        "css" => "text/css",
        "svg" => "image/svg+xml",
        _ => "text/plain",
    }
}

/// A generated project file, decoded from its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FileSpec {
    pub dir: &'static str,
    pub kind: Kind,
    pub stem: &'static str,
    pub ext: &'static str,
    /// 0 for the first file of that name; `n > 0` puts it under a `v{n+1}` directory.
    pub revision: u64,
}

impl FileSpec {
    pub(crate) fn of(j: u64) -> Self {
        let dirs = DIRS.len() as u64;
        let (dir, kind) = DIRS[(j % dirs) as usize];
        let w = ((j / dirs) % STEMS_PER_KIND) as usize;
        FileSpec {
            dir,
            kind,
            stem: kind.stems()[w],
            ext: kind.ext(w),
            revision: j / (dirs * STEMS_PER_KIND),
        }
    }

    /// The path below `/project/`, e.g. `src/mcp/v3/session.rs`.
    pub(crate) fn path(&self) -> String {
        let mut out = String::with_capacity(64);
        self.write_path(&mut out);
        out
    }

    fn write_path(&self, out: &mut String) {
        use std::fmt::Write;
        out.push_str(self.dir);
        if self.revision > 0 {
            let _ = write!(out, "/v{}", self.revision + 1);
        }
        let _ = write!(out, "/{}.{}", self.stem, self.ext);
    }

    pub(crate) fn file_name(&self) -> String {
        format!("{}.{}", self.stem, self.ext)
    }
}

/// Inverse of [`FileSpec::of`] for a path below `/project/`.
fn file_index(path: &str) -> Option<u64> {
    let (dir_part, file) = path.rsplit_once('/')?;
    let (stem, ext) = file.rsplit_once('.')?;
    // The directory either is a known one, or a known one plus a `vN` revision directory.
    let mut candidates = vec![(dir_part, 0u64)];
    if let Some((parent, last)) = dir_part.rsplit_once('/')
        && let Some(n) = last.strip_prefix('v').and_then(|n| n.parse::<u64>().ok())
        && n >= 2
    {
        candidates.push((parent, n - 1));
    }
    let dirs = DIRS.len() as u64;
    candidates.into_iter().find_map(|(dir, revision)| {
        let d = DIRS.iter().position(|(p, _)| *p == dir)?;
        let kind = DIRS[d].1;
        let w = kind.stems().iter().position(|s| *s == stem)?;
        if kind.ext(w) != ext {
            return None;
        }
        revision
            .checked_mul(dirs * STEMS_PER_KIND)?
            .checked_add(w as u64 * dirs + d as u64)
    })
}

const WIKI_PAGES: [&str; 12] = [
    "Release_Process",
    "Onboarding",
    "On-call_Runbook",
    "Architecture_Overview",
    "Incident_2025-11-03",
    "Glossary",
    "Budget_Planning",
    "Style_Guide",
    "Meeting_Notes",
    "API_Conventions",
    "Security_Review",
    "Roadmap_2026",
];

/// A wiki page (`revision == 0`) or one of its history entries.
pub(crate) fn wiki_parts(j: u64) -> (&'static str, u64) {
    let pages = WIKI_PAGES.len() as u64;
    (WIKI_PAGES[(j % pages) as usize], j / pages)
}

pub(crate) const COMMIT_MESSAGES: [&str; 16] = [
    "Fix cursor loop guard on repeated nextCursor",
    "Add fuzzy index for 1M resources",
    "Rank by priority, then recency",
    "Keep marks when a server restarts",
    "Strip escape sequences from titles",
    "Render preview cut line",
    "Import Claude Desktop config",
    "Write context sets atomically",
    "Handle empty contents arrays",
    "Classify not-found by code and message",
    "Show server stderr in the log view",
    "Bump rmcp to 3.11",
    "Speed up tree flattening",
    "Add --budget flag to preview",
    "Document the context-set schema",
    "Time out hung servers after 10 s",
];

// Commit hashes: an invertible permutation of `j` (so a hash maps back to its index)
// followed by hash bits that only make it look like a SHA-1.
const PERM_XOR: u64 = 0x5bd1_e995_cafe_f00d;
const PERM_MUL: u64 = 0x9e37_79b9_7f4a_7c15; // odd, hence invertible mod 2^64
const PERM_INV: u64 = mod_inverse(PERM_MUL);

const fn mod_inverse(a: u64) -> u64 {
    // Newton's iteration: each step doubles the number of correct low bits.
    let mut x = a;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u64.wrapping_sub(a.wrapping_mul(x)));
        i += 1;
    }
    x
}

pub(crate) fn commit_hash(j: u64) -> String {
    let head = (j ^ PERM_XOR).wrapping_mul(PERM_MUL);
    let tail =
        ((u128::from(mix(j ^ 0xc0)) << 32) | u128::from(mix(j ^ 0xc1) >> 32)) & ((1 << 96) - 1);
    format!("{head:016x}{tail:024x}")
}

fn commit_index(hash: &str) -> Option<u64> {
    if hash.len() != 40
        || !hash
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    {
        return None;
    }
    let head = u64::from_str_radix(&hash[..16], 16).ok()?;
    Some(head.wrapping_mul(PERM_INV) ^ PERM_XOR)
}

/// SplitMix64's finalizer: a cheap, well-mixed, deterministic hash.
pub(crate) const fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Entry {
    /// The canonical URI of this entry.
    pub(crate) fn uri(self) -> String {
        match self {
            Entry::Special(s) => s.uri().to_owned(),
            Entry::File(j) => {
                let mut out = String::from(FILE_PREFIX);
                FileSpec::of(j).write_path(&mut out);
                out
            }
            Entry::Commit(j) => format!("{COMMIT_PREFIX}{}", commit_hash(j)),
            Entry::Wiki(j) => match wiki_parts(j) {
                (page, 0) => format!("{WIKI_PREFIX}{page}"),
                (page, rev) => format!("{WIKI_PREFIX}{page}/history/{rev}"),
            },
            Entry::Note(n) => format!("{NOTE_PREFIX}{n}"),
        }
    }

    /// Per-entry seed for everything that varies (annotations, sizes, optional fields).
    pub(crate) fn seed(self) -> u64 {
        match self {
            Entry::Special(s) => mix(s as u64 ^ 0x5eed),
            Entry::File(j) => mix(j ^ 0xf11e_0000),
            Entry::Commit(j) => mix(j ^ 0xc0_0000),
            Entry::Wiki(j) => mix(j ^ 0x3131_0000),
            Entry::Note(n) => mix(n ^ 0x4e07_0000),
        }
    }

    /// The MIME type the content is served with.
    pub(crate) fn mime(self) -> &'static str {
        match self {
            Entry::Special(_) => "text/plain",
            Entry::File(j) => mime_for_ext(FileSpec::of(j).ext),
            Entry::Commit(_) => "text/x-diff",
            Entry::Wiki(_) => "text/html",
            Entry::Note(_) => "text/markdown",
        }
    }

    /// The resource as `resources/list` publishes it.
    pub(crate) fn resource(self) -> Resource {
        let seed = self.seed();
        let (name, title, description) = match self {
            Entry::Special(s) => return s.resource(),
            Entry::File(j) => {
                let f = FileSpec::of(j);
                let title = format!("{} ({})", humanize(f.stem), f.dir);
                let description = match f.kind {
                    Kind::Rust => format!("Rust module `{}` of the demo project.", f.stem),
                    Kind::Docs => format!("Documentation page about {}.", humanize(f.stem)),
                    Kind::Json => format!("Recorded protocol fixture: {}.", f.stem),
                    Kind::Config => format!("Configuration file for {}.", f.stem),
                    Kind::Scripts => format!("Helper script: {}.", f.stem),
                    Kind::Web => format!("Web UI source: {}.", f.stem),
                    Kind::Logs => format!("Log output of the {} job.", f.stem),
                    Kind::Assets => format!("Icon: {}.", f.stem),
                };
                (f.file_name(), title, description)
            }
            Entry::Commit(j) => {
                let hash = commit_hash(j);
                let message = COMMIT_MESSAGES[(seed % 16) as usize];
                (
                    hash[..7].to_owned(),
                    message.to_owned(),
                    format!("Commit {hash}: {message}."),
                )
            }
            Entry::Wiki(j) => {
                let (page, rev) = wiki_parts(j);
                let title = page.replace('_', " ");
                if rev == 0 {
                    let description = format!("Wiki page: {title}.");
                    (page.to_owned(), title, description)
                } else {
                    let name = format!("{page} r{rev}");
                    (
                        name,
                        format!("{title} (revision {rev})"),
                        "Wiki history entry.".into(),
                    )
                }
            }
            Entry::Note(n) => (
                format!("note-{n}"),
                format!("Note {n}"),
                "A short note; any demo://notes/<n> is readable via the template.".into(),
            ),
        };
        let mut r = Resource::new(self.uri(), name);
        if (seed >> 10).is_multiple_of(3) {
            r = r.with_title(title);
        }
        if (seed >> 14).is_multiple_of(4) {
            r = r.with_description(description);
        }
        if !(seed >> 22).is_multiple_of(25) {
            r = r.with_mime_type(self.mime());
        }
        if !(seed >> 18).is_multiple_of(10) {
            r = r.with_size(content::generated_size(self) as u64);
        }
        if let Some(a) = generated_annotations(seed) {
            r = r.with_annotations(a);
        }
        r
    }
}

/// `release-process` → `Release process`.
pub(crate) fn humanize(stem: &str) -> String {
    let spaced = stem.replace(['-', '_'], " ");
    let mut chars = spaced.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn annotations(
    audience: Option<Vec<Role>>,
    priority: Option<f32>,
    last_modified: Option<&str>,
) -> Annotations {
    let mut a = Annotations::default();
    a.audience = audience;
    a.priority = priority;
    a.last_modified = last_modified.map(str::to_owned);
    a
}

/// One of the 48 combinations of audience × priority × lastModified, chosen by the seed.
/// The all-absent combination is sent either as no `annotations` or as an empty object.
fn generated_annotations(seed: u64) -> Option<Annotations> {
    let c = seed % 48;
    let audience = match c % 4 {
        0 => None,
        1 => Some(vec![Role::User]),
        2 => Some(vec![Role::Assistant]),
        _ => Some(vec![Role::User, Role::Assistant]),
    };
    let priority = match (c / 4) % 6 {
        0 => None,
        1 => Some(0.0),
        2 => Some(0.25),
        3 => Some(0.5),
        4 => Some(0.8),
        _ => Some(1.0),
    };
    let last_modified = (c / 24 == 1).then(|| last_modified(seed));
    if audience.is_none() && priority.is_none() && last_modified.is_none() {
        return ((seed >> 8) & 1 == 1).then(Annotations::default);
    }
    let mut a = annotations(audience, priority, None);
    a.last_modified = last_modified;
    Some(a)
}

/// A deterministic timestamp in 2025–2026, in one of the spellings servers use.
pub(crate) fn last_modified(seed: u64) -> String {
    let secs = time::SPAN_START + ((seed >> 28) % time::SPAN_SECONDS) as i64;
    let style = match (seed >> 5) % 8 {
        6 => time::Style::UtcMillis(((seed >> 50) % 1000) as u32),
        7 => time::Style::Offset([120, -300, 330, 60][((seed >> 3) % 4) as usize]),
        _ => time::Style::Utc,
    };
    time::rfc3339(secs, style)
}

/// A catalogue of `count` resources; cheap to copy, generates everything on demand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Catalogue {
    count: usize,
}

impl Catalogue {
    pub(crate) fn new(count: usize) -> Self {
        Catalogue { count }
    }

    pub(crate) fn len(self) -> usize {
        self.count
    }

    /// The entry at list index `i` (`i < len()`).
    pub(crate) fn entry(self, i: usize) -> Entry {
        match SPECIALS.get(i) {
            Some(s) => Entry::Special(*s),
            None => slot_entry((i - SPECIALS.len()) as u64),
        }
    }

    /// Resources `offset..offset+limit`, clipped to the catalogue.
    pub(crate) fn page(self, offset: usize, limit: usize) -> Vec<rmcp::model::Resource> {
        let end = offset.saturating_add(limit).min(self.count);
        (offset.min(end)..end)
            .map(|i| self.entry(i).resource())
            .collect()
    }

    /// The list index of an entry, if it is published by this catalogue.
    pub(crate) fn index_of(self, entry: Entry) -> Option<usize> {
        let i = match entry {
            Entry::Special(s) => SPECIALS.iter().position(|x| *x == s)?,
            // Note 1 is listed as a special.
            Entry::Note(1) => return self.index_of(Entry::Special(Special::FirstNote)),
            other => SPECIALS
                .len()
                .checked_add(usize::try_from(entry_slot(other)?).ok()?)?,
        };
        (i < self.count).then_some(i)
    }

    /// Resolves a URI to the entry it names: a published resource, or any note (the
    /// `demo://notes/{id}` template makes every note number readable).
    ///
    /// `file:///project/` URIs may spell `/` as `%2F`, as strict RFC 6570 `{path}` expansion
    /// does.
    pub(crate) fn lookup(self, uri: &str) -> Option<Entry> {
        if let Some(s) = SPECIALS.iter().find(|s| s.uri() == uri)
            && self.index_of(Entry::Special(*s)).is_some()
        {
            return Some(Entry::Special(*s));
        }
        if let Some(id) = uri.strip_prefix(NOTE_PREFIX) {
            let canonical = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit());
            return id.parse().ok().filter(|_| canonical).map(Entry::Note);
        }
        let candidate = if let Some(path) = uri.strip_prefix(FILE_PREFIX) {
            let path = path.replace("%2F", "/").replace("%2f", "/");
            if path != uri[FILE_PREFIX.len()..] {
                return self.lookup(&format!("{FILE_PREFIX}{path}"));
            }
            Entry::File(file_index(&path)?)
        } else if let Some(hash) = uri.strip_prefix(COMMIT_PREFIX) {
            Entry::Commit(commit_index(hash)?)
        } else if let Some(rest) = uri.strip_prefix(WIKI_PREFIX) {
            let (page, rev) = match rest.split_once("/history/") {
                Some((page, rev)) => (page, rev.parse::<u64>().ok().filter(|r| *r > 0)?),
                None => (rest, 0),
            };
            let p = WIKI_PAGES.iter().position(|x| *x == page)? as u64;
            Entry::Wiki(rev.checked_mul(WIKI_PAGES.len() as u64)?.checked_add(p)?)
        } else {
            return None;
        };
        // Published, and spelled exactly as published (no leading zeros, no aliases).
        (self.index_of(candidate).is_some() && candidate.uri() == uri).then_some(candidate)
    }

    /// Paths (below `/project/`) of every published `file:///project/` resource, in list
    /// order, handed to `f` one at a time without allocating per path.
    pub(crate) fn for_each_file_path(self, mut f: impl FnMut(&str)) {
        let mut buf = String::with_capacity(96);
        for s in SPECIALS.iter().take(self.count) {
            if let Some(path) = s.uri().strip_prefix(FILE_PREFIX) {
                f(path);
            }
        }
        let generated = self.count.saturating_sub(SPECIALS.len()) as u64;
        let per = FILE_SLOTS.len() as u64;
        let mut j = 0u64;
        loop {
            let k = j / per * BLOCK + FILE_SLOTS[(j % per) as usize];
            if k >= generated {
                break;
            }
            buf.clear();
            FileSpec::of(j).write_path(&mut buf);
            f(&buf);
            j += 1;
        }
    }

    /// Ids of every published note, ascending.
    pub(crate) fn note_ids(self) -> impl Iterator<Item = u64> {
        let first = self.index_of(Entry::Special(Special::FirstNote)).map(|_| 1);
        let generated = self.count.saturating_sub(SPECIALS.len()) as u64;
        // Note slots are the generated slots `k` with `k % BLOCK == 13`.
        let notes = generated.saturating_sub(13).div_ceil(BLOCK);
        first
            .into_iter()
            .chain((0..notes).map(|j| FIRST_GENERATED_NOTE + j))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{HashMap, HashSet};

    use super::*;

    #[test]
    fn deterministic() {
        let a = Catalogue::new(2000).page(0, 2000);
        let b = Catalogue::new(2000).page(0, 2000);
        assert_eq!(a, b);
        // A page is the same slice whatever the catalogue size.
        assert_eq!(
            Catalogue::new(1_000_000).page(500, 100),
            a[500..600].to_vec()
        );
    }

    #[test]
    fn count_is_respected() {
        for count in [0, 1, 5, SPECIALS.len(), SPECIALS.len() + 1, 299, 300, 1234] {
            let all = Catalogue::new(count).page(0, usize::MAX);
            assert_eq!(all.len(), count, "count {count}");
        }
        assert!(Catalogue::new(10).page(10, 5).is_empty());
        assert!(Catalogue::new(10).page(50, 5).is_empty());
        assert_eq!(Catalogue::new(10).page(8, 5).len(), 2);
    }

    #[test]
    fn every_uri_unique_at_10k() {
        let all = Catalogue::new(10_000).page(0, 10_000);
        let mut seen = HashSet::new();
        for r in &all {
            assert!(seen.insert(r.uri.clone()), "duplicate {}", r.uri);
        }
        assert_eq!(seen.len(), 10_000);
    }

    #[test]
    fn uris_unique_far_into_a_million() {
        // Spot-check a window near the end, where revision directories are deep.
        let cat = Catalogue::new(1_000_000);
        let window = cat.page(990_000, 10_000);
        let set: HashSet<_> = window.iter().map(|r| r.uri.clone()).collect();
        assert_eq!(set.len(), 10_000);
        let early: HashSet<_> = cat.page(0, 10_000).into_iter().map(|r| r.uri).collect();
        assert!(set.is_disjoint(&early));
    }

    #[test]
    fn specials_come_first_and_are_well_formed() {
        let all = Catalogue::new(300).page(0, 300);
        let uris: Vec<_> = all.iter().map(|r| r.uri.as_str()).collect();
        for (i, s) in SPECIALS.iter().enumerate() {
            assert_eq!(uris[i], s.uri());
        }
        let readme = &all[0];
        let a = readme.annotations.as_ref().unwrap();
        assert_eq!(a.priority, Some(1.0));
        assert_eq!(a.audience, Some(vec![Role::Assistant]));
        assert_eq!(all[1].mime_type.as_deref(), Some("image/png"));
        assert_eq!(all[5].mime_type.as_deref(), Some("inode/directory"));
        // `demo://notes` is a resource and a prefix of other resources.
        assert!(uris.contains(&"demo://notes"));
        assert!(uris.iter().any(|u| u.starts_with("demo://notes/")));
        assert!(uris.iter().any(|u| u.contains('?')));
        assert!(uris.iter().any(|u| u.contains("%20")));
        for scheme in [
            "file:///project/",
            "git://project/commits/",
            "https://example.com/wiki/",
        ] {
            assert!(uris.iter().any(|u| u.starts_with(scheme)), "{scheme}");
        }
        // Small catalogues keep a prefix of the specials.
        let tiny = Catalogue::new(3).page(0, 10);
        assert_eq!(tiny.len(), 3);
        assert_eq!(tiny[2].uri, CLOCK_URI);
    }

    #[test]
    fn mostly_files_with_realistic_fields() {
        let all = Catalogue::new(10_000).page(0, 10_000);
        let files = all
            .iter()
            .filter(|r| r.uri.starts_with(FILE_PREFIX))
            .count();
        assert!(files > 7_000 && files < 9_000, "{files}");
        let with_size = all.iter().filter(|r| r.size.is_some()).count();
        assert!(with_size > 8_000, "{with_size}");
        let titled = all.iter().filter(|r| r.title.is_some()).count();
        assert!(titled > 2_000 && titled < 5_000, "{titled}");
        let described = all.iter().filter(|r| r.description.is_some()).count();
        assert!(described > 1_500 && described < 4_000, "{described}");
        let no_mime = all.iter().filter(|r| r.mime_type.is_none()).count();
        assert!(no_mime > 50 && no_mime < 1_000, "{no_mime}");
        let mimes: HashSet<_> = all.iter().filter_map(|r| r.mime_type.as_deref()).collect();
        for m in [
            "text/x-rust",
            "text/markdown",
            "application/json",
            "text/x-toml",
            "text/plain",
            "text/x-diff",
            "text/html",
        ] {
            assert!(mimes.contains(m), "{m}");
        }
        // Depth: some file paths are 5 to 8 segments below /project/.
        let depths: HashSet<usize> = all
            .iter()
            .filter_map(|r| r.uri.strip_prefix(FILE_PREFIX))
            .map(|p| p.split('/').count())
            .collect();
        for d in 5..=8 {
            assert!(depths.contains(&d), "depth {d} missing: {depths:?}");
        }
    }

    #[test]
    fn all_annotation_kinds_present() {
        let all = Catalogue::new(10_000).page(0, 10_000);
        type Combo = (Option<Vec<String>>, Option<u32>, bool);
        let mut combos: HashMap<Combo, usize> = HashMap::new();
        let mut none = 0;
        let mut empty_object = 0;
        let mut styles = HashSet::new();
        for r in &all {
            let Some(a) = &r.annotations else {
                none += 1;
                continue;
            };
            if a.audience.is_none() && a.priority.is_none() && a.last_modified.is_none() {
                empty_object += 1;
            }
            let audience = a
                .audience
                .as_ref()
                .map(|v| v.iter().map(|r| format!("{r:?}")).collect());
            let priority = a.priority.map(|p| (p * 100.0) as u32);
            if let Some(ts) = &a.last_modified {
                assert!(ts.starts_with("2025-") || ts.starts_with("2026-"), "{ts}");
                styles.insert(if ts.ends_with('Z') {
                    if ts.contains('.') { "millis" } else { "utc" }
                } else {
                    "offset"
                });
            }
            *combos
                .entry((audience, priority, a.last_modified.is_some()))
                .or_default() += 1;
        }
        assert!(none > 0 && empty_object > 0, "{none} {empty_object}");
        // 4 audiences × 6 priorities × 2 (lastModified or not).
        assert_eq!(combos.len(), 48, "{:?}", combos.keys());
        let priorities: HashSet<_> = combos.keys().filter_map(|k| k.1).collect();
        assert_eq!(priorities, HashSet::from([0, 25, 50, 80, 100]));
        assert_eq!(styles.len(), 3, "{styles:?}");
    }

    #[test]
    fn paging_with_page_size_7_covers_everything_once() {
        for count in [0, 1, 7, 13, 14, 100, 1_001] {
            let cat = Catalogue::new(count);
            let mut seen = Vec::new();
            let mut offset = 0;
            while offset < count {
                let page = cat.page(offset, 7);
                assert!(!page.is_empty() && page.len() <= 7);
                offset += page.len();
                seen.extend(page.into_iter().map(|r| r.uri));
            }
            assert_eq!(seen.len(), count);
            let unique: HashSet<_> = seen.iter().collect();
            assert_eq!(unique.len(), count);
            assert_eq!(
                seen,
                cat.page(0, count)
                    .into_iter()
                    .map(|r| r.uri)
                    .collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn lookup_inverts_every_listed_uri() {
        let cat = Catalogue::new(5_000);
        for i in 0..cat.len() {
            let entry = cat.entry(i);
            let uri = entry.uri();
            assert_eq!(cat.lookup(&uri), Some(entry), "{uri}");
            assert_eq!(cat.index_of(entry), Some(i), "{uri}");
        }
        // Far into a big catalogue too.
        let big = Catalogue::new(1_000_000);
        for i in (0..1_000_000).step_by(9_973).chain([999_999]) {
            let entry = big.entry(i);
            assert_eq!(big.lookup(&entry.uri()), Some(entry));
        }
    }

    #[test]
    fn lookup_rejects_unpublished_uris() {
        let cat = Catalogue::new(300);
        let beyond = Catalogue::new(100_000).entry(50_000).uri();
        for uri in [
            "file:///project/nope.rs",
            "file:///project/src/mcp/session.py",
            "file:///project/src/mcp/v1/session.rs",
            "file:///project/src/mcp/v02/session.rs",
            "git://project/commits/0000000000000000000000000000000000000000",
            "https://example.com/wiki/Not_A_Page",
            "https://example.com/wiki/Glossary/history/0",
            "demo://nothing",
            "demo://notes/abc",
            "demo://notes/",
            "demo://notes/-3",
            "file:///project/src/mcp/v18446744073709551615/session.rs",
            "https://example.com/wiki/Glossary/history/18446744073709551615",
            "git://project/commits/ffffffffffffffffffffffffffffffffffffffff",
            beyond.as_str(),
        ] {
            assert_eq!(cat.lookup(uri), None, "{uri}");
        }
        // Specials beyond `count` are not published either.
        assert_eq!(Catalogue::new(2).lookup("demo://empty"), None);
        // Notes resolve through the template whatever their number.
        assert_eq!(
            cat.lookup("demo://notes/987654"),
            Some(Entry::Note(987_654))
        );
        assert_eq!(
            cat.lookup("demo://notes/1"),
            Some(Entry::Special(Special::FirstNote))
        );
        assert_eq!(
            Catalogue::new(0).lookup("demo://notes/1"),
            Some(Entry::Note(1))
        );
        // `%2F` for `/` is accepted in project paths.
        assert_eq!(
            cat.lookup("file:///project/src%2Fmain.rs"),
            Some(Entry::Special(Special::MainRs))
        );
    }

    #[test]
    fn commit_hash_round_trips() {
        for j in [0, 1, 2, 77, 123_456, u64::from(u32::MAX)] {
            let h = commit_hash(j);
            assert_eq!(h.len(), 40);
            assert_eq!(commit_index(&h), Some(j));
        }
    }

    #[test]
    fn file_paths_and_note_ids_match_the_list() {
        for count in [0, 5, 13, 14, 40, 1_000] {
            let cat = Catalogue::new(count);
            let listed: Vec<String> = cat
                .page(0, count)
                .into_iter()
                .filter_map(|r| r.uri.strip_prefix(FILE_PREFIX).map(str::to_owned))
                .collect();
            let mut walked = Vec::new();
            cat.for_each_file_path(|p| walked.push(p.to_owned()));
            assert_eq!(walked, listed, "count {count}");

            let mut listed_notes: Vec<u64> = cat
                .page(0, count)
                .into_iter()
                .filter_map(|r| r.uri.strip_prefix(NOTE_PREFIX)?.parse().ok())
                .collect();
            listed_notes.sort_unstable();
            assert_eq!(
                cat.note_ids().collect::<Vec<_>>(),
                listed_notes,
                "count {count}"
            );
        }
    }
}
