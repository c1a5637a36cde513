//! End-to-end tests of the interactive browser: the real binary runs inside tmux (an
//! interactive bash in a 120×40 pane), keys go in with `send-keys`, the screen comes back with
//! `capture-pane`. Against the built-in demo server and server-everything: start, search,
//! navigate, preview, quit, and the terminal restored afterwards (normal screen, cursor shown,
//! mouse reporting off, canonical mode back), plus Ctrl-Z and `fg`.
//!
//! tmux is required: these tests fail (they do not skip) when it is missing. `.ci/run` installs
//! it.

mod common;

use std::time::{Duration, Instant};

use common::tmux::Tmux;
use common::{everything_js, mcpick_bin};

/// One tmux session with an interactive bash, on a tmux server of its own.
struct Pane {
    tmux: Tmux,
}

impl Pane {
    fn new() -> Pane {
        Pane {
            tmux: Tmux::bash(&[]),
        }
    }

    /// A pane of `width`×`height`.
    fn sized(width: u16, height: u16) -> Pane {
        Pane {
            tmux: Tmux::bash_sized(width, height, &[]),
        }
    }

    fn keys(&self, keys: &[&str]) {
        self.tmux.keys(keys);
    }

    /// Types text literally.
    fn type_text(&self, text: &str) {
        self.tmux.type_text(text);
    }

    fn screen(&self) -> String {
        self.tmux.screen()
    }

    /// The screen with its escape sequences (colours, modifiers).
    fn screen_styled(&self) -> String {
        self.tmux.screen_styled()
    }

    fn format(&self, f: &str) -> String {
        self.tmux.format(f)
    }

    /// Waits up to 30 s for the screen to satisfy `ok`.
    fn wait_for(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        self.tmux.wait_for(what, ok)
    }

    fn wait_text(&self, text: &str) -> String {
        self.wait_for(text, |s| s.contains(text))
    }

    /// Starts mcpick with `args` in the pane's shell, then checks the first frame.
    fn start(&self, args: &str) {
        self.type_text(&format!(
            "{} {args}; echo \"EXIT=$?\"; stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'\n",
            mcpick_bin()
        ));
        self.wait_text("press / to search");
        assert_eq!(
            self.format("#{alternate_on}"),
            "1",
            "the browser uses the alternate screen"
        );
    }

    /// Quits with `q` and checks the terminal is as it was.
    fn quit_and_check_restored(&self) {
        self.keys(&["q"]);
        // `icanon` (not `-icanon`) printed by stty: raw mode is off again.
        let screen = self.wait_for("the exit status and canonical mode back", |s| {
            s.contains("EXIT=0") && s.lines().any(|l| l.trim() == "icanon")
        });
        assert!(
            !screen.contains("press / to search"),
            "the browser's frame is gone:\n{screen}"
        );
        assert_eq!(
            self.format("#{alternate_on}"),
            "0",
            "back on the normal screen"
        );
        assert_eq!(self.format("#{cursor_flag}"), "1", "the cursor is shown");
        assert_eq!(
            self.format("#{mouse_any_flag}"),
            "0",
            "mouse reporting is off"
        );
        assert_eq!(
            self.format("#{mouse_standard_flag}"),
            "0",
            "mouse reporting is off"
        );
    }
}

#[test]
fn demo_start_search_navigate_preview_quit() {
    let pane = Pane::new();
    pane.start("--demo");
    pane.wait_text("ready · 300 resources");
    // Search: the tree narrows to the matches with their folders open.
    pane.type_text("/logo.png");
    let screen = pane.wait_text("of 300 match");
    assert!(screen.contains("Tree (filtered)"), "{screen}");
    // The best match is selected and read into the preview.
    let screen = pane.wait_text("PNG image 16×16");
    assert!(screen.contains("demo://assets/logo.png"), "{screen}");
    assert!(screen.contains("00000000  89 50 4e 47"), "{screen}");
    pane.keys(&["Enter"]);
    // Walk down to another resource, whose preview follows.
    pane.keys(&["Escape"]);
    pane.wait_for("the search cleared", |s| s.contains("press / to search"));
    pane.type_text("/bundle");
    pane.keys(&["Enter"]);
    let screen = pane.wait_text("part 3/3");
    assert!(screen.contains("Part 1 of the bundle"), "{screen}");
    // The list view, and the help. (Esc and the next key go separately, or the terminal
    // reads them as Alt+key.)
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.keys(&["t"]);
    pane.wait_text("List · order: priority");
    pane.keys(&["j", "j", "?"]);
    pane.wait_text("Help · keys");
    pane.keys(&["Escape"]);
    pane.wait_for("the help closed", |s| !s.contains("Help · keys"));
    pane.keys(&["L"]);
    pane.wait_text("Log · all servers");
    pane.keys(&["Escape"]);
    pane.wait_text("LIST");
    pane.quit_and_check_restored();
}

/// The pane's shell has `NO_COLOR=1`: the browser is monochrome, unless `--color always`.
#[test]
fn color_always_wins_over_no_color() {
    let pane = Pane::new();
    pane.start("--demo");
    pane.wait_text("ready · 300 resources");
    // A foreground colour, as tmux writes it back: `38;5;N`, `38;2;…` or `3N` (N 0–7).
    let coloured = |s: &str| {
        s.contains("38;5;")
            || s.contains("38;2;")
            || (0..8).any(|n| s.contains(&format!("\x1b[3{n}m")) || s.contains(&format!(";3{n}m")))
    };
    let mono = pane.screen_styled();
    assert!(!coloured(&mono), "{mono:?}");
    pane.quit_and_check_restored();
    pane.type_text("clear\n");
    pane.start("--demo --color always");
    pane.wait_text("ready · 300 resources");
    let styled = pane.screen_styled();
    assert!(coloured(&styled), "{styled:?}");
    pane.quit_and_check_restored();
}

/// A server that dies after listing is shown as failed, with its reason, not as ready.
#[test]
fn a_server_that_dies_after_listing_is_shown_failed() {
    let pane = Pane::new();
    pane.start(&format!(
        "-- {} --count 10 --crash-after 2",
        common::fixture_bin()
    ));
    pane.wait_text("ready · 10 resources");
    // The listing and the templates' are its first two requests; resting on a resource reads
    // it: the third, on which it exits.
    pane.keys(&["j", "j"]);
    pane.wait_text("logo.png");
    let screen = pane.wait_text("failed: the server closed the connection after listing");
    assert!(!screen.contains("ready · 10 resources"), "{screen}");
    pane.quit_and_check_restored();
}

/// Keys take effect while a big catalogue is still streaming in: the search line opens and
/// shows what is typed before the listing ends (how fast is `benches/keys.rs`'s job).
#[test]
fn typing_while_a_million_resources_stream_in() {
    let pane = Pane::new();
    pane.start(&format!("-- {} demo-server --count 1000000", mcpick_bin()));
    // Well into the listing, when pages arrive faster than the browser takes them.
    pane.wait_for("20,000 resources loaded", |s| {
        let header = s.lines().next().unwrap_or("");
        header.contains("loading page")
            && header
                .split(" · ")
                .nth(1)
                .and_then(|n| n.split_whitespace().next())
                .and_then(|n| n.replace(',', "").parse::<u64>().ok())
                .is_some_and(|n| n >= 20_000)
    });
    pane.keys(&["/", "n", "o", "t", "e"]);
    let screen = pane.wait_text("/ note");
    assert!(
        screen.contains("loading page"),
        "the keys showed only after the listing: {screen}"
    );
    // Its first matches show while the listing still streams in (they used to wait behind
    // the pages until the listing ended).
    let screen = pane.wait_for("the search's first matches", |s| {
        let line = s.lines().nth(1).unwrap_or("");
        line.split(" of ")
            .next()
            .and_then(|before| before.split_whitespace().last())
            .and_then(|n| n.replace(',', "").parse::<u64>().ok())
            .is_some_and(|n| n > 0)
    });
    assert!(
        screen.contains("loading page"),
        "the matches showed only after the listing: {screen}"
    );
    pane.keys(&["Down", "Escape"]);
    let screen = pane.wait_text("press / to search");
    assert!(screen.contains("loading page"), "{screen}");
    pane.quit_and_check_restored();
}

/// A `[keys]` entry the browser cannot use, and a config file it cannot parse, are named on
/// its status line even when only ad-hoc servers are used (the config is loaded once, for the
/// servers and the keys together).
#[test]
fn config_and_key_table_errors_reach_the_status_line() {
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    for (file, text, shown) in [
        ("k.toml", "[keys.browse]\nj = \"fly\"\n", "keys.browse.j"),
        ("b.toml", "[keys.browse\n", "not valid TOML"),
    ] {
        let path = dir.path().join(file);
        std::fs::write(&path, text).unwrap();
        let pane = Pane::new();
        pane.start(&format!("--demo --config {}", path.display()));
        pane.wait_text(shown);
        pane.quit_and_check_restored();
    }
}

#[test]
fn escape_sequences_render_harmlessly() {
    let pane = Pane::new();
    pane.start("--demo");
    pane.wait_text("ready · 300 resources");
    pane.type_text("/escape-sequences");
    let screen = pane.wait_text("carriage return");
    assert!(screen.contains("Totally normal title"), "{screen}");
    assert!(!screen.contains("[31m"), "{screen}");
    // The screen was not cleared, retitled or recoloured by the resource.
    assert!(
        screen.contains("demo://untrusted/escape-sequences"),
        "{screen}"
    );
    assert_eq!(pane.format("#{alternate_on}"), "1");
    pane.keys(&["Escape"]);
    // Wait for the search to close before `q`: tmux writes an Escape and a key sent straight
    // after it in one read, which the terminal decoder takes as Alt+q.
    pane.wait_text("press / to search");
    pane.quit_and_check_restored();
}

#[test]
fn ctrl_z_suspends_and_fg_resumes() {
    let pane = Pane::new();
    pane.start("--demo");
    pane.wait_text("ready · 300 resources");
    pane.keys(&["C-z"]);
    let screen = pane.wait_text("Stopped");
    assert_eq!(
        pane.format("#{alternate_on}"),
        "0",
        "suspended: normal screen\n{screen}"
    );
    pane.type_text("fg\n");
    pane.wait_text("ready · 300 resources");
    assert_eq!(pane.format("#{alternate_on}"), "1");
    // bash does not run the rest of a command list after a stopped job: check by hand.
    pane.keys(&["q"]);
    pane.wait_for("the shell", |s| {
        s.lines().filter(|l| l.starts_with('$')).count() >= 2
    });
    assert_eq!(pane.format("#{alternate_on}"), "0");
    assert_eq!(pane.format("#{mouse_any_flag}"), "0");
    pane.type_text("stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'\n");
    pane.wait_for("canonical mode", |s| {
        s.lines().any(|l| l.trim() == "icanon")
    });
}

#[test]
fn ctrl_c_quits_and_restores() {
    let pane = Pane::new();
    pane.start("--demo");
    pane.type_text("/abc");
    pane.keys(&["C-c"]);
    pane.wait_text("EXIT=0");
    assert_eq!(pane.format("#{alternate_on}"), "0");
}

#[test]
fn server_everything_browse_and_read() {
    let js = everything_js();
    let pane = Pane::new();
    pane.start(&format!("-- node {js} stdio"));
    pane.wait_text("ready · 7 resources");
    // A small catalogue opens fully.
    pane.wait_text("architecture.md");
    pane.type_text("/features");
    pane.keys(&["Enter"]);
    let screen = pane.wait_for("a Markdown resource's contents", |s| {
        s.contains("mimeType     text/markdown") && s.contains("# Everything Server - Features")
    });
    assert!(
        screen.contains("demo://resource/static/document/features.md"),
        "{screen}"
    );
    // Clear the search (the cursor stays on features.md) and walk on: the next resource is
    // read in turn.
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.keys(&["j"]);
    pane.wait_text("# Everything Server - How It Works");
    pane.quit_and_check_restored();
}

/// server-everything answers the era probe with "method not found": the browser says so as a
/// note on the server row, not as its last error, and its startup line (written before it
/// read the probe) is not labelled `[era probe]`.
#[test]
fn server_everything_probe_note_is_information_not_an_error() {
    let js = everything_js();
    // A fresh era memory, so the probe runs.
    let cache = tempfile::tempdir().unwrap();
    let pane = Pane::new();
    pane.type_text(&format!(
        "export MCPICK_CACHE_DIR={}\n",
        cache.path().display()
    ));
    pane.start(&format!("-- node {js} stdio"));
    let screen = pane.wait_text("ready · 7 resources");
    assert!(screen.contains("▶  ▾ server-everything"), "{screen}");
    let screen = pane.wait_text("notes        era: the server answered");
    assert!(screen.contains("last error   none"), "{screen}");
    assert!(screen.contains("\"method not"), "{screen}");
    pane.keys(&["L"]);
    let screen = pane.wait_text("Starting default (STDIO) server...");
    assert!(
        screen.contains("stderr Starting default (STDIO) server..."),
        "{screen}"
    );
    assert!(!screen.contains("[era probe]"), "{screen}");
    pane.keys(&["L"]);
    pane.quit_and_check_restored();
}

/// The contents pane of a clock that ticks only for legacy `resources/subscribe` (the Python
/// SDK peer with `--clock`, declaring `subscribe` only after `initialize`) changes: the
/// browser greets that server with `initialize`, and the pane's subscription reaches it.
#[test]
fn a_clock_that_ticks_only_for_legacy_subscribe_changes_in_the_contents_pane() {
    let cache = tempfile::tempdir().unwrap();
    let pane = Pane::new();
    pane.type_text(&format!(
        "export MCPICK_CACHE_DIR={}\n",
        cache.path().display()
    ));
    pane.start(&format!(
        "-- {} {} --clock --count 3",
        common::python(),
        common::py_server()
    ));
    let screen = pane.wait_text("ready · 4 resources");
    assert!(screen.contains("2025-11-25"), "the legacy era:\n{screen}");
    pane.type_text("/now");
    pane.keys(&["Enter"]);
    let time_of = |s: &str| {
        s.lines()
            .find_map(|l| l.split("Current time: ").nth(1))
            .map(|t| t.split_whitespace().next().unwrap_or_default().to_string())
    };
    let first = time_of(&pane.wait_text("Current time: ")).unwrap();
    // It ticks every 0.5 s; each update is read again.
    let screen = pane.wait_for("the clock to change", |s| {
        time_of(s).is_some_and(|t| t != first)
    });
    assert!(screen.contains("Contents · updated"), "{screen}");
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.quit_and_check_restored();
}

/// The included rows the agent view shows (number → URI as drawn, maybe cut at the border).
fn agent_rows(screen: &str, rows: &mut std::collections::BTreeMap<usize, String>) {
    for line in screen.lines() {
        let inner = line.trim_start_matches('│').trim_end_matches('│');
        let Some(number) = inner.get(..4).and_then(|n| n.trim().parse::<usize>().ok()) else {
            continue;
        };
        let Some(at) = inner.rfind("  demo  ") else {
            continue;
        };
        rows.insert(number, inner[at + 8..].trim_end().to_string());
    }
}

#[test]
fn marks_budget_agent_view_and_preview_agree() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("team.context.json");
    let pane = Pane::new();
    pane.start(&format!("--demo --set {}", set.display()));
    pane.wait_text("ready · 300 resources");
    // A folder: search a resource in it, go to its parent folder row, pin the folder.
    pane.type_text("/kustomization.yaml");
    pane.keys(&["Enter"]);
    pane.wait_text("mimeType");
    pane.keys(&["p"]);
    pane.keys(&["+"]);
    pane.wait_text("pinned file:///project/config/*");
    // Two resources.
    for (query, uri) in [
        ("/README.md", "file:///project/README.md"),
        ("/logo.png", "demo://assets/logo.png"),
    ] {
        pane.keys(&["Escape"]);
        pane.wait_text("press / to search");
        pane.type_text(query);
        pane.keys(&["Enter"]);
        pane.wait_text(&format!("uri          {uri}"));
        pane.keys(&["+"]);
        pane.wait_text(&format!("pinned {uri}"));
    }
    // Exclude one.
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.type_text("/ranking.rs");
    pane.keys(&["Enter"]);
    pane.wait_text("uri          file:///project/src/ranking.rs");
    pane.keys(&["x"]);
    pane.wait_text("excluded file:///project/src/ranking.rs");
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    let screen = pane.screen();
    assert!(screen.contains("+3 x1"), "{screen}");
    // The budget: none set (pinned only) → 500 → … → 16,000.
    for _ in 0..6 {
        pane.keys(&["]"]);
    }
    pane.wait_text("budget 16,000 tokens");
    // The agent view: counts are read in the background until nothing is estimated.
    pane.keys(&["a"]);
    // Its rows drawn too: tmux can capture a frame half drawn (seen once: the title and two
    // rows over the tree's last frame).
    let screen = pane.wait_for("exact counts in the agent view", |s| {
        let mut rows = std::collections::BTreeMap::new();
        agent_rows(s, &mut rows);
        s.contains("Agent view · budget 16,000")
            && !s.contains("counting")
            && !s.contains("estimated from size")
            && rows.len() > 5
    });
    let mut rows = std::collections::BTreeMap::new();
    agent_rows(&screen, &mut rows);
    assert!(rows.len() > 5, "{screen}");
    // Scroll down to the cut line, collecting the rows.
    let mut screen = screen;
    while !screen.contains("── cut line") {
        for _ in 0..20 {
            pane.keys(&["j"]);
        }
        let before = rows.len();
        std::thread::sleep(Duration::from_millis(300));
        screen = pane.screen();
        agent_rows(&screen, &mut rows);
        assert!(
            rows.len() > before || screen.contains("── cut line"),
            "{screen}"
        );
    }
    assert!(screen.contains("Left out"), "{screen}");
    pane.keys(&["a"]);
    pane.wait_text("press / to search");
    pane.quit_and_check_restored();

    // The saved set, with `mcpick preview`.
    let text = std::fs::read_to_string(&set).expect("the set was saved");
    assert!(
        text.contains("\"prefix\": \"file:///project/config/\""),
        "{text}"
    );
    assert!(text.contains("\"budget\": 16000"), "{text}");
    let set_arg = set.to_string_lossy().into_owned();
    let (code, doc, err) = common::mcpick_json_in(
        dir.path(),
        &[],
        &["preview", "--set", &set_arg, "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let included: Vec<&str> = doc["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["uri"].as_str().unwrap())
        .collect();
    assert_eq!(
        rows.keys().copied().collect::<Vec<_>>(),
        (1..=included.len()).collect::<Vec<_>>(),
        "the agent view shows as many resources as mcpick preview includes: {included:?}"
    );
    for (n, shown) in &rows {
        assert!(
            included[n - 1].starts_with(shown.as_str()),
            "row {n}: the agent view shows {shown}, mcpick preview has {}",
            included[n - 1]
        );
    }
    assert!(included.contains(&"file:///project/README.md"));
    assert!(included.contains(&"demo://assets/logo.png"));
    assert!(!included.contains(&"file:///project/src/ranking.rs"));
    let left: Vec<(&str, &str)> = doc["leftOut"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["uri"].as_str().unwrap(), l["reason"].as_str().unwrap()))
        .collect();
    assert!(
        left.contains(&("file:///project/src/ranking.rs", "excluded")),
        "{left:?}"
    );
}

#[test]
fn the_browser_and_a_headless_pin_share_one_set() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("shared.json");
    let set_arg = set.to_string_lossy().into_owned();
    let pane = Pane::new();
    pane.start(&format!("--demo --set {set_arg}"));
    pane.wait_text("ready · 300 resources");
    pane.type_text("/README.md");
    pane.keys(&["Enter"]);
    pane.wait_text("uri          file:///project/README.md");
    pane.keys(&["+"]);
    pane.wait_text("pinned file:///project/README.md");
    pane.wait_for("the browser's save", |_| {
        std::fs::read_to_string(&set).is_ok_and(|t| t.contains("README.md"))
    });

    // Another process pins while the browser is open: the browser picks it up.
    let out = common::mcpick_in(
        dir.path(),
        &[],
        &["pin", "--set", &set_arg, "--demo", "demo://assets/logo.png"],
    );
    assert_eq!(common::exit_code(&out), 0, "{}", common::stderr(&out));
    let screen = pane.wait_text("reloaded: another process changed the set");
    assert!(screen.contains("+2"), "{screen}");

    // The browser's next mark keeps the other's.
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.type_text("/ranking.rs");
    pane.keys(&["Enter"]);
    pane.wait_text("uri          file:///project/src/ranking.rs");
    pane.keys(&["x"]);
    pane.wait_text("excluded file:///project/src/ranking.rs");
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.quit_and_check_restored();
    let text = std::fs::read_to_string(&set).unwrap();
    for uri in [
        "file:///project/README.md",
        "demo://assets/logo.png",
        "file:///project/src/ranking.rs",
    ] {
        assert!(text.contains(uri), "{uri} lost: {text}");
    }
}

#[test]
fn a_mark_the_browser_cannot_save_ends_with_status_1_and_the_reason() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("locked.json");
    std::fs::write(&set, "{\"version\": 1}\n").unwrap();
    std::fs::set_permissions(&set, std::fs::Permissions::from_mode(0o444)).unwrap();
    let pane = Pane::new();
    pane.start(&format!("--demo --set {}", set.display()));
    pane.wait_text("ready · 300 resources");
    pane.type_text("/README.md");
    pane.keys(&["Enter"]);
    pane.wait_text("uri          file:///project/README.md");
    pane.keys(&["+"]);
    pane.wait_text("not saved");
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.keys(&["q"]);
    let screen = pane.wait_text("EXIT=1");
    assert!(screen.contains("read-only (mode 0444)"), "{screen}");
    assert_eq!(std::fs::read_to_string(&set).unwrap(), "{\"version\": 1}\n");
}

/// `Y` in the browser puts on the clipboard exactly what `mcpick export` prints for the same
/// set: tmux with `set-clipboard on` keeps what an application sends through OSC 52 as its
/// newest paste buffer, like a terminal's clipboard.
#[test]
fn capital_y_copies_the_bundle_export_prints() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("copy.json");
    let set_arg = set.to_string_lossy().into_owned();
    for args in [
        vec![
            "pin",
            "--set",
            &set_arg,
            "--demo",
            "file:///project/README.md",
        ],
        vec!["policy", "--set", &set_arg, "--budget", "3000"],
    ] {
        let out = common::mcpick_in(dir.path(), &[], &args);
        assert_eq!(common::exit_code(&out), 0, "{}", common::stderr(&out));
    }
    let export = common::mcpick_in(dir.path(), &[], &["export", "--set", &set_arg, "--demo"]);
    assert_eq!(common::exit_code(&export), 0, "{}", common::stderr(&export));
    let expected = String::from_utf8(export.stdout).unwrap();
    assert!(expected.contains("file:///project/README.md"), "{expected}");

    let pane = Pane::new();
    pane.tmux
        .output(&["set-option", "-s", "set-clipboard", "on"]);
    pane.start(&format!("--demo --set {set_arg}"));
    pane.wait_text("ready · 300 resources");
    pane.keys(&["Y"]);
    let screen = pane.wait_text("copied the bundle");
    assert!(screen.contains("tokens"), "{screen}");
    let copied = pane.tmux.output(&["show-buffer"]);
    assert_eq!(copied, expected, "the clipboard holds the export");
    // `y` copies the selected resource's URI.
    pane.type_text("/README.md");
    pane.keys(&["Enter"]);
    pane.wait_text("uri          file:///project/README.md");
    pane.keys(&["y"]);
    pane.wait_text("copied URI file:///project/README.md");
    assert_eq!(
        pane.tmux.output(&["show-buffer"]),
        "file:///project/README.md"
    );
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.quit_and_check_restored();
}

/// A server that adds resources while the browser is open: they appear without a key press,
/// the header says what changed, and the shown resource refreshes when the server updates it.
#[test]
fn resources_a_server_adds_appear_and_the_shown_one_refreshes() {
    let pane = Pane::new();
    let fixture = common::fixture_bin();
    pane.start(&format!("-- {fixture} --count 20 --churn 700"));
    pane.wait_text("ready ·");
    // No key pressed: the list grows and the header counts the change.
    pane.wait_for("a list change in the header", |s| s.contains("+1 −0"));
    pane.wait_text("demo://live");
    // The live resource that changes on every tick, shown and refreshed in place.
    pane.type_text("/live/0");
    pane.keys(&["Enter"]);
    let first = pane.wait_text("revision");
    let revision = |screen: &str| {
        screen
            .lines()
            .find_map(|l| l.split("revision ").nth(1))
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<u64>().ok())
    };
    let before = revision(&first).expect("a revision number");
    let later = pane.wait_for("a newer revision without a key press", |s| {
        revision(s).is_some_and(|r| r > before)
    });
    assert!(later.contains("Contents · updated"), "{later}");
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.quit_and_check_restored();
}

/// `R` on the row of a server that crashed connects to it again.
#[test]
fn capital_r_brings_back_a_crashed_server() {
    let dir = tempfile::tempdir().unwrap();
    let flag = dir.path().join("crashed-once");
    let bin = mcpick_bin();
    let fixture = common::fixture_bin();
    // The first start crashes right after listing; the next one stays up.
    let script = dir.path().join("server.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nif [ -e '{f}' ]; then exec '{bin}' demo-server --count 10; fi\ntouch '{f}'\nexec '{fixture}' --count 10 --crash-after 1\n",
            f = flag.display()
        ),
    )
    .unwrap();
    let pane = Pane::new();
    pane.start(&format!("-- sh {}", script.display()));
    pane.wait_text("closed the connection after listing");
    // The cursor starts on the server's row.
    pane.keys(&["g"]);
    pane.keys(&["R"]);
    let screen = pane.wait_text("ready · 10 resources");
    // The header says so; the old connection's error may stay in the log and the row's facts.
    let header = screen.lines().next().unwrap_or("");
    assert!(!header.contains("failed"), "{screen}");
    pane.quit_and_check_restored();
}

/// An HTTP server that goes away is tried again, further apart each time, with the next
/// attempt in the header; when it is back, its listing is replaced (what changed meanwhile
/// shows as `+N −M`).
#[test]
fn an_http_server_that_went_away_is_reconnected() {
    let first = common::Background::demo_http(&["--count", "30"]);
    let url = first.url.clone();
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let pane = Pane::new();
    pane.start(&format!("--url {url}"));
    pane.wait_text("ready · 30 resources");
    drop(first);
    pane.wait_text("reconnecting: attempt");
    let _second = common::Background::start(
        mcpick_bin(),
        &["demo-server", "--http", &addr, "--count", "31"],
        &[],
    );
    let screen = pane.wait_text("ready · 31 resources");
    assert!(screen.contains("+1 −0"), "{screen}");
    pane.quit_and_check_restored();
}

/// A server that needs a sign-in says so in the browser; `l` on its row runs the OAuth flow in
/// the background (the test's "browser" approves it) and the server then connects and lists.
#[test]
fn l_on_a_server_that_needs_login_signs_in_and_connects() {
    let server = common::Background::fixture_http(&["--oauth", "--count", "5"]);
    let data = tempfile::tempdir().unwrap();
    let browser = common::repo_root().join("tests/peers/browser.sh");
    // The pane's environment is fixed: the sign-in's data directory and browser go on the
    // command line.
    let pane = Pane::new();
    pane.type_text(&format!(
        "MCPICK_DATA_DIR={d} BROWSER={b} {bin} --url {u} --set {d}/set.json; echo \"EXIT=$?\"; stty -a | tr ' ' '\\n' | grep -x -- '-\\?icanon'\n",
        d = data.path().display(),
        b = browser.display(),
        bin = mcpick_bin(),
        u = server.url,
    ));
    pane.wait_text("needs login");
    // The cursor starts on the server's row.
    pane.keys(&["g"]);
    pane.keys(&["l"]);
    let screen = pane.wait_text("ready · 5 resources");
    assert!(
        !screen.lines().next().unwrap_or("").contains("failed"),
        "{screen}"
    );
    // The tokens went to the store, nowhere else on screen.
    assert!(std::fs::read_dir(data.path()).unwrap().count() >= 1);
    pane.quit_and_check_restored();
}

/// The running `demo-server` processes that are children of the browser (the reaper, a fork
/// of mcpick itself, is not one: its command line is mcpick's own).
fn demo_servers_of(pane: &Pane) -> Vec<i32> {
    let shell: i32 = pane.format("#{pane_pid}").parse().unwrap();
    let children_of = |parent: i32| -> Vec<i32> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| {
                let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                    return false;
                };
                let Some((_, rest)) = stat.rsplit_once(')') else {
                    return false;
                };
                let fields: Vec<&str> = rest.split_whitespace().collect();
                fields.first().is_some_and(|s| *s != "Z" && *s != "X")
                    && fields.get(1) == Some(&parent.to_string().as_str())
            })
            .collect()
    };
    let mcpick = children_of(shell);
    assert_eq!(mcpick.len(), 1, "the shell runs one mcpick: {mcpick:?}");
    children_of(mcpick[0])
        .into_iter()
        .filter(|pid| {
            let argv = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            argv.split(|b| *b == 0).nth(1) == Some(b"demo-server".as_slice())
        })
        .collect()
}

/// `R` replaces the server's process, also while the contents pane is subscribed to one of
/// its resources, and keeps the folders that were open.
#[test]
fn capital_r_replaces_the_server_process_and_keeps_folders_open() {
    let pane = Pane::new();
    let bin = mcpick_bin();
    let dir = tempfile::tempdir().unwrap();
    pane.start(&format!(
        "--set {}/set.json -- {bin} demo-server",
        dir.path().display()
    ));
    pane.wait_text("ready · 300 resources");
    // Open file:///project, then show demo://clock/now (it ticks: the pane subscribes to it;
    // alone in its folder, it shares the folder's row).
    pane.keys(&["G"]);
    pane.keys(&["k"]);
    pane.keys(&["k"]);
    pane.wait_for("the cursor on file:///project", |s| {
        s.lines()
            .any(|l| l.contains("▶") && l.contains("file:///project"))
    });
    pane.keys(&["l"]);
    pane.wait_text("▾ file:///project");
    pane.keys(&["g"]);
    pane.keys(&["j"]);
    pane.keys(&["j"]);
    pane.wait_for("the cursor on demo://clock/now", |s| {
        s.lines()
            .any(|l| l.contains("▶") && l.contains("demo://clock/now"))
    });
    pane.wait_text("Current time");
    // Read, then subscribed (the subscription follows the read).
    pane.wait_text("reads: ");
    std::thread::sleep(Duration::from_millis(500));
    let first = demo_servers_of(&pane);
    assert_eq!(first.len(), 1, "{first:?}");
    let mut before = first;
    for round in 1..=3 {
        pane.keys(&["g"]);
        pane.keys(&["R"]);
        pane.wait_text("ready · 300 resources");
        let start = Instant::now();
        let servers = loop {
            let servers = demo_servers_of(&pane);
            if servers.len() == 1 && servers != before {
                break servers;
            }
            assert!(
                start.elapsed() < Duration::from_secs(15),
                "after R number {round}, the servers running are {servers:?} (before: {before:?})"
            );
            std::thread::sleep(Duration::from_millis(100));
        };
        let screen = pane.screen();
        assert!(
            screen.contains("▾ file:///project") && screen.contains("Cargo.toml"),
            "R number {round} closed the open folder:\n{screen}"
        );
        before = servers;
    }
    // The clock, shown again, is read from the new server and still updates.
    pane.keys(&["j"]);
    pane.keys(&["j"]);
    pane.wait_text("reads: ");
    pane.wait_text("Contents · updated");
    pane.quit_and_check_restored();
}

/// The template form against the demo server: a suggestion is taken as a value and encoded
/// once (`docs/My Notes.md` → `docs%2FMy%20Notes.md`, never `%2520`), the expansion that reads
/// joins the tree, and one that does not read is not added.
#[test]
fn a_template_expansion_is_encoded_once_and_added_only_when_it_reads() {
    let pane = Pane::new();
    let bin = mcpick_bin();
    let dir = tempfile::tempdir().unwrap();
    pane.start(&format!(
        "--set {}/set.json -- {bin} demo-server",
        dir.path().display()
    ));
    pane.wait_text("ready · 300 resources");
    pane.keys(&["T"]);
    pane.wait_text("file:///project/{path}");
    pane.keys(&["Enter"]);
    pane.wait_text("Fill in file:///project/{path}");
    pane.type_text("docs/My");
    pane.wait_text("docs/My Notes.md");
    pane.keys(&["Tab"]);
    let screen = pane.wait_text("reads    file:///project/docs%2FMy%20Notes.md");
    assert!(!screen.contains("%25"), "{screen}");
    pane.keys(&["Enter"]);
    // Read, shown and added (the listed URI spells `/` as `/`, so this is a new entry).
    pane.wait_text("pinned expansion file:///project/docs%2FMy%20Notes.md");
    pane.wait_text("301");
    // One that does not read is not added, and the form says why.
    pane.keys(&["T"]);
    pane.wait_text("file:///project/{path}");
    pane.keys(&["Enter"]);
    pane.wait_text("Fill in file:///project/{path}");
    pane.type_text("no/such/file.txt");
    pane.keys(&["Enter"]);
    pane.wait_text("could not be read, so it was not added");
    pane.keys(&["Escape"]);
    let screen = pane.wait_for("the form closed", |s| !s.contains("Fill in"));
    assert!(
        screen.contains("301") && !screen.contains("302"),
        "{screen}"
    );
    pane.quit_and_check_restored();
}

/// The number of resources the agent view on `screen` includes (its first line).
fn agent_included(screen: &str) -> Option<usize> {
    let line = screen
        .lines()
        .skip_while(|l| !l.contains("Agent view"))
        .nth(1)?;
    let digits: String = line
        .trim_start_matches('│')
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// What `mcpick preview` includes for `set` over the demo server as the browser ran it.
fn preview_included(dir: &std::path::Path, set: &std::path::Path) -> Vec<String> {
    let set = set.to_string_lossy().into_owned();
    let (code, doc, err) = common::mcpick_json_in(
        dir,
        &[],
        &[
            "preview",
            "--set",
            &set,
            "--format",
            "json",
            "--",
            mcpick_bin(),
            "demo-server",
        ],
    );
    assert_eq!(code, 0, "{err}");
    doc["included"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["uri"].as_str().unwrap().to_string())
        .collect()
}

/// Issue 45 item 7: an expansion read in the browser joins the set as `mcpick preview` sees
/// it (it counted in the agent view, 27, and not in `preview`, 26): reading it pins it in the
/// set file, and unmarking it takes it out of the browser too. Both ways, the agent view
/// includes as many resources as `preview` does, and the expansion in both or in neither.
#[test]
fn a_template_expansion_read_in_the_browser_counts_the_same_in_preview() {
    let pane = Pane::new();
    let bin = mcpick_bin();
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("set.json");
    let expansion = "file:///project/docs%2FMy%20Notes.md";
    pane.start(&format!("--set {} -- {bin} demo-server", set.display()));
    pane.wait_text("ready · 300 resources");
    pane.keys(&["T"]);
    pane.wait_text("file:///project/{path}");
    pane.keys(&["Enter"]);
    pane.wait_text("Fill in file:///project/{path}");
    pane.type_text("docs/My");
    pane.wait_text("docs/My Notes.md");
    pane.keys(&["Tab"]);
    pane.wait_text(&format!("reads    {expansion}"));
    pane.keys(&["Enter"]);
    pane.wait_text(&format!("pinned expansion {expansion}"));
    pane.wait_for("the expansion's pin saved", |_| {
        std::fs::read_to_string(&set).is_ok_and(|t| t.contains(expansion))
    });
    let agent = |pane: &Pane| {
        pane.keys(&["a"]);
        let screen = pane.wait_for("the agent view's final figures", |s| {
            s.contains("Agent view") && !s.contains("resolving") && agent_included(s).is_some()
        });
        pane.keys(&["a"]);
        pane.wait_for("the agent view closed", |s| !s.contains("Agent view"));
        agent_included(&screen).unwrap()
    };
    let shown = agent(&pane);
    let included = preview_included(dir.path(), &set);
    assert_eq!(shown, included.len(), "agent view vs preview: {included:?}");
    assert!(included.iter().any(|u| u == expansion), "{included:?}");

    // Unmarked (`u` undoes the pin), it leaves the set and the browser alike.
    pane.keys(&["u"]);
    pane.wait_text("undone: 1 mark");
    pane.wait_for("the unmark saved", |_| {
        std::fs::read_to_string(&set).is_ok_and(|t| !t.contains(expansion))
    });
    let after = agent(&pane);
    let included = preview_included(dir.path(), &set);
    assert_eq!(after, included.len(), "agent view vs preview: {included:?}");
    assert!(!included.iter().any(|u| u == expansion), "{included:?}");
    assert_eq!(after + 1, shown);
    let screen = pane.screen();
    assert!(
        !screen.contains("My Notes.md"),
        "the tree has no row for it\n{screen}"
    );
    pane.quit_and_check_restored();
}

/// A mark made in the browser reaches the set's session-start delivery (`mcpick install`):
/// once the marks settle, the delivered file is written again, without drawing on the screen.
#[test]
fn a_mark_in_the_browser_reaches_the_session_start_delivery() {
    let dir = tempfile::tempdir().unwrap();
    let project = std::fs::canonicalize(dir.path()).unwrap();
    let bin = std::path::Path::new(mcpick_bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = [("PATH", path.as_str())];
    for args in [
        &["pin", "--demo", "file:///project/README.md"][..],
        &["policy", "--budget", "300"][..],
        &["install", "claude-code"][..],
    ] {
        let out = common::mcpick_in(&project, &env, args);
        assert_eq!(
            common::exit_code(&out),
            0,
            "{args:?}: {}",
            common::stderr(&out)
        );
    }
    let delivered = project.join(".mcpick/mcpick.claude-code.md");
    let before = std::fs::read_to_string(&delivered).unwrap();
    // The block's header line names the resource (the README's text mentions the URI too).
    let header = "server `demo` · `demo://assets/logo.png`";
    assert!(!before.contains(header), "not pinned yet");
    let set = project.join("mcpick.context.json");
    let pane = Pane::new();
    pane.start(&format!("--set {}", set.display()));
    pane.wait_text("ready · 300 resources");
    pane.type_text("/logo.png");
    pane.keys(&["Enter"]);
    pane.wait_text("uri          demo://assets/logo.png");
    pane.keys(&["+"]);
    pane.wait_text("pinned demo://assets/logo.png");
    pane.wait_for("the delivery written again", |_| {
        std::fs::read_to_string(&delivered).is_ok_and(|t| t.contains(header))
    });
    pane.quit_and_check_restored();
}

/// A mark's redelivery goes through the browser's own connections: the delivered file is
/// written again while no `mcpick deliver` runs and no server is started or listed a second
/// time (the fixture's request log has no `resources/list` after the mark). It used to run
/// `mcpick deliver --quiet`, which started every server again and listed it again.
#[test]
fn a_mark_redelivers_with_no_second_mcpick_and_no_second_listing() {
    let dir = tempfile::tempdir().unwrap();
    let project = std::fs::canonicalize(dir.path()).unwrap();
    let log = project.join("requests.log");
    let set = project.join("mcpick.context.json");
    let server = serde_json::json!({
        "type": "stdio",
        "command": common::fixture_bin(),
        "args": ["--request-log", log.to_str().unwrap()],
    });
    let doc = serde_json::json!({
        "version": 1,
        "marks": [],
        "policy": { "audience": "any", "tokenizer": "o200k_base", "budget": 300 },
        "servers": { "demo": server },
    });
    std::fs::write(&set, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let bin = std::path::Path::new(mcpick_bin()).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = [("PATH", path.as_str())];
    for args in [
        &["trust", "--yes"][..],
        &["pin", "file:///project/README.md"][..],
        &["install", "claude-code"][..],
    ] {
        let out = common::mcpick_in(&project, &env, args);
        assert_eq!(
            common::exit_code(&out),
            0,
            "{args:?}: {}",
            common::stderr(&out)
        );
    }
    let delivered = project.join(".mcpick/mcpick.claude-code.md");
    let header = "server `demo` · `demo://assets/logo.png`";
    assert!(
        !std::fs::read_to_string(&delivered)
            .unwrap()
            .contains(header)
    );
    let listings = || {
        std::fs::read_to_string(&log)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("resources/list"))
            .count()
    };
    let pane = Pane::new();
    pane.start(&format!("--set {}", set.display()));
    pane.wait_text("ready · 300 resources");
    let listed = listings();
    pane.type_text("/logo.png");
    pane.keys(&["Enter"]);
    pane.wait_text("uri          demo://assets/logo.png");
    pane.keys(&["+"]);
    pane.wait_text("pinned demo://assets/logo.png");
    let children = std::cell::RefCell::new(Vec::new());
    pane.wait_for("the delivery written again", |_| {
        children.borrow_mut().extend(delivering(&set));
        std::fs::read_to_string(&delivered).is_ok_and(|t| t.contains(header))
    });
    assert_eq!(
        children.take(),
        Vec::<String>::new(),
        "a child `mcpick deliver` ran"
    );
    assert_eq!(listings(), listed, "a server was listed again");
    pane.quit_and_check_restored();
}

/// The command lines of running `mcpick deliver` processes for the set at `set`.
fn delivering(set: &std::path::Path) -> Vec<String> {
    let set = set.to_string_lossy().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|raw| String::from_utf8_lossy(&raw).replace('\0', " "))
        .filter(|line| line.contains(" deliver ") && line.contains(&set))
        .collect()
}

#[test]
fn capital_i_installs_into_a_host_after_showing_the_dry_run_change() {
    let dir = tempfile::tempdir().unwrap();
    let project = std::fs::canonicalize(dir.path()).unwrap();
    let set = project.join("mcpick.context.json");
    let pane = Pane::new();
    pane.type_text(&format!("cd '{}'\n", project.display()));
    pane.start("--demo --set mcpick.context.json");
    pane.wait_text("ready · 300 resources");
    pane.type_text("/README.md");
    pane.keys(&["Enter"]);
    pane.wait_text("uri          file:///project/README.md");
    pane.keys(&["+"]);
    pane.wait_for("the browser's save", |_| {
        std::fs::read_to_string(&set).is_ok_and(|t| t.contains("README.md"))
    });
    // What the command line would show, before anything is written.
    let dry = common::mcpick_in(
        &project,
        &[],
        &[
            "install",
            "claude-code",
            "--dry-run",
            "--set",
            "mcpick.context.json",
        ],
    );
    assert_eq!(common::exit_code(&dry), 0, "{}", common::stderr(&dry));
    let dry = String::from_utf8_lossy(&dry.stdout).into_owned();
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.keys(&["I"]);
    pane.wait_text("‹ Claude Code › project scope");
    pane.keys(&["Enter"]);
    let screen = pane.wait_text("enter makes it");
    for line in dry
        .lines()
        .filter(|l| l.starts_with('+') || l.starts_with("  "))
    {
        assert!(
            screen.contains(line.trim_end()),
            "{line:?} of the dry run not shown:\n{screen}"
        );
    }
    assert!(
        !project.join(".mcp.json").exists(),
        "nothing written before confirming"
    );
    pane.keys(&["Enter"]);
    // Its last line, not "Done:": a capture can catch the terminal halfway through drawing
    // the frame (seen on a loaded machine).
    let screen = pane.wait_text("delivered at session start: ");
    assert!(screen.contains("Done:"), "{screen}");
    assert!(screen.contains("installed `mcpick`"), "{screen}");
    // The commands stay listed for copying.
    assert!(screen.contains("mcpick serve --set"), "{screen}");
    let entry = std::fs::read_to_string(project.join(".mcp.json")).unwrap();
    assert!(
        entry.contains(r#""mcpick""#) && entry.contains("mcpick.context.json"),
        "{entry}"
    );
    let claude = std::fs::read_to_string(project.join("CLAUDE.md")).unwrap();
    assert!(
        claude.contains("@.mcpick/mcpick.claude-code.md"),
        "{claude}"
    );
    let delivered = std::fs::read_to_string(project.join(".mcpick/mcpick.claude-code.md")).unwrap();
    assert!(
        delivered.contains("file:///project/README.md"),
        "{delivered}"
    );
    // `install --list` sees the browser's delivery as its own.
    let list = common::mcpick_in(
        &project,
        &[],
        &["install", "--list", "--set", "mcpick.context.json"],
    );
    assert!(
        String::from_utf8_lossy(&list.stdout).contains("mcpick.claude-code.md"),
        "{}",
        String::from_utf8_lossy(&list.stdout)
    );
    // The per-turn hooks the dry run named, written by the browser as by `install`.
    assert!(
        dry.contains("and on every turn, through Claude Code's hooks"),
        "{dry}"
    );
    assert!(screen.contains("per-turn hooks in "), "{screen}");
    let settings = std::fs::read_to_string(project.join(".claude/settings.json")).unwrap();
    // `mcpick`, or this binary by its path when no `mcpick` on PATH is it (the test's PATH).
    assert!(
        settings.contains(r#"mcpick turn claude-code --set mcpick.context.json""#),
        "{settings}"
    );
    assert!(
        String::from_utf8_lossy(&list.stdout).contains("per-turn hooks for `mcpick`"),
        "{}",
        String::from_utf8_lossy(&list.stdout)
    );
    pane.keys(&["Escape"]);
    pane.wait_for("the overlay closed", |s| !s.contains("Hand off this set"));
    pane.quit_and_check_restored();
}

/// "Codex receives N of M" (or another host) in `text`: (N, M).
fn receives(text: &str, host: &str) -> (usize, usize) {
    let key = format!("{host} receives ");
    let words: Vec<&str> = text
        .match_indices(&key)
        .map(|(at, _)| &text[at + key.len()..])
        .find(|rest| rest.starts_with(|c: char| c.is_ascii_digit() || c == '~'))
        .unwrap_or_else(|| panic!("no `{key}N of M` in:\n{text}"))
        .split_whitespace()
        .collect();
    let number = |w: &str| w.replace([',', '~'], "").parse::<usize>().unwrap();
    assert_eq!(words[1], "of", "{text}");
    (number(words[0]), number(words[2]))
}

#[test]
fn the_agent_view_shows_what_each_host_receives_as_preview_host_does() {
    let dir = tempfile::tempdir().unwrap();
    let project = std::fs::canonicalize(dir.path()).unwrap();
    for args in [
        &["pin", "--demo", "file:///project/README.md"][..],
        &["policy", "--budget", "20000"][..],
    ] {
        let out = common::mcpick_in(&project, &[], args);
        assert_eq!(common::exit_code(&out), 0, "{}", common::stderr(&out));
    }
    let set = project.join("mcpick.context.json");
    let set_arg = set.to_str().unwrap();
    let preview = |host: &str| {
        let out = common::mcpick_in(
            &project,
            &[],
            &["preview", "--set", set_arg, "--host", host],
        );
        assert_eq!(common::exit_code(&out), 0, "{}", common::stderr(&out));
        common::stderr(&out)
    };
    let pane = Pane::new();
    pane.type_text(&format!("cd {}\n", project.display()));
    pane.start(&format!("--set {set_arg}"));
    pane.wait_text("ready · 300 resources");
    pane.keys(&["a"]);
    pane.wait_text("Agent view");
    for (host, name) in [
        ("claude-code", "Claude Code"),
        ("gemini", "Gemini CLI"),
        ("codex", "Codex"),
        ("opencode", "opencode"),
        ("copilot-cli", "GitHub Copilot CLI"),
        ("qwen-code", "Qwen Code"),
        ("kilo", "Kilo CLI"),
        ("cline", "Cline CLI"),
        ("pi", "pi"),
        ("vscode", "VS Code"),
        ("cursor", "Cursor"),
        ("windsurf", "Windsurf"),
    ] {
        pane.keys(&["H"]);
        // tmux may capture a frame half drawn: for Codex, wait for its cut rows too.
        let screen = pane.wait_for(name, |s| {
            s.contains(&format!("as {name} receives it"))
                && s.contains(&format!("{name} receives "))
                && !s.contains("reading the set")
                && (!matches!(host, "codex" | "windsurf")
                    || s.lines()
                        .any(|l| l.contains("host limit") && l.contains("file://")))
        });
        // The IDE hosts' channels come from their docs, and say so.
        let from_docs = matches!(host, "vscode" | "cursor" | "windsurf");
        let words = screen.replace('│', " ");
        let words: Vec<&str> = words.split_whitespace().collect();
        assert_eq!(
            words.join(" ").contains("(from docs, not measured)"),
            from_docs,
            "{name}\n{screen}"
        );
        // opencode reads its file again before every model call: the next turn gets it whole
        // (pi's extension and Kilo's plugin hand on each turn's change, as hooks do).
        assert_eq!(
            words
                .join(" ")
                .contains("next turn: the same, whole (read again before every model call)"),
            host == "opencode",
            "{name}\n{screen}"
        );
        let told = preview(host);
        assert_eq!(
            receives(&screen, name),
            receives(&told, host),
            "{name}: the agent view and `preview --host` disagree\n{screen}\n{told}"
        );
        // Each warning `preview --host` gives can be read whole in the view (wrapped).
        let warnings: Vec<&str> = told
            .lines()
            .filter_map(|l| l.strip_prefix("mcpick: warning: "))
            .take(2)
            .collect();
        assert!(host != "claude-code" || !warnings.is_empty(), "{told}");
        let shown = warnings_shown(&screen);
        for w in &warnings {
            assert!(shown.iter().any(|s| s == w), "{w}\nnot whole in:\n{screen}");
        }
        if matches!(host, "codex" | "windsurf") {
            let (kept, of) = receives(&screen, name);
            assert!(kept < of, "the set is over the host's limit: {screen}");
            // The first resource the channel cuts is the first `host limit` row.
            let first_cut = told
                .lines()
                .find(|l| l.contains("not delivered at session start"))
                .and_then(|l| l.split_whitespace().nth(2))
                .unwrap()
                .trim_end_matches(':')
                .to_string();
            let row = screen
                .lines()
                .find(|l| l.contains("host limit") && l.contains("file://"))
                .unwrap_or_else(|| panic!("no host-limit row:\n{screen}"));
            // A long URI is cut at the pane's edge.
            let shown: String = first_cut.chars().take(50).collect();
            assert!(row.contains(&shown), "{row} / {first_cut}");
        } else {
            let (kept, of) = receives(&screen, name);
            assert_eq!(kept, of, "{name} carries the whole set");
        }
    }
    // Past the last host: the plain preview again.
    pane.keys(&["H"]);
    pane.wait_for("the plain preview", |s| {
        !s.contains("receives it at session start")
    });
    pane.keys(&["a"]);
    pane.wait_for("the agent view closed", |s| !s.contains("Agent view"));
    pane.quit_and_check_restored();
}

/// The agent view's warnings, each put back together from its wrapped rows (continuations
/// are indented two spaces inside the pane's border).
fn warnings_shown(screen: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut open = false;
    for line in screen.lines() {
        let inner = line
            .trim_start_matches('│')
            .trim_end()
            .trim_end_matches('│')
            .trim_end();
        if let Some(w) = inner.strip_prefix("warning: ") {
            out.push(w.to_string());
            open = true;
        } else if open && let Some(more) = inner.strip_prefix("  ") {
            let last = out.last_mut().unwrap();
            last.push(' ');
            last.push_str(more.trim());
        } else {
            open = false;
        }
    }
    out
}

/// Issue 45's demo case: under a search, the row joining the server's `file:///project` to
/// `scripts` names `file:///project/scripts`, and `+` there pins that folder (it pinned
/// `file:///project/Cargo.toml/`); the contents pane names the same prefix first.
#[test]
fn a_joined_folder_row_under_a_search_pins_the_folder_it_shows() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("demo.context.json");
    let pane = Pane::new();
    pane.start(&format!("--demo --set {}", set.display()));
    pane.wait_text("ready · 300 resources");
    pane.type_text("/'/scripts/");
    pane.wait_text("10 of 300 match");
    pane.keys(&["Enter"]);
    pane.wait_text("▶        build.sh");
    pane.keys(&["g"]);
    pane.keys(&["j"]);
    pane.wait_text("prefix       file:///project/scripts/*");
    pane.keys(&["+"]);
    pane.wait_text("pinned file:///project/scripts/*");
    pane.wait_for("the browser's save", |_| {
        std::fs::read_to_string(&set).is_ok_and(|t| t.contains("scripts"))
    });
    pane.keys(&["Escape"]);
    pane.wait_text("press / to search");
    pane.quit_and_check_restored();
    let text = std::fs::read_to_string(&set).unwrap();
    assert!(
        text.contains(r#""prefix": "file:///project/scripts/""#),
        "{text}"
    );
    assert!(!text.contains("Cargo.toml"), "{text}");
}

/// The rows of the tree pane on `screen`: the lines between its top border (`Tree`) and its
/// bottom border.
fn tree_rows(screen: &str) -> usize {
    screen
        .lines()
        .skip_while(|l| !l.contains("Tree"))
        .skip(1)
        .take_while(|l| l.starts_with('│'))
        .count()
}

/// 80x24 and 60x20 are sizes people use (issue 45 item 6): on a terminal under 30 rows the
/// servers share one header line, and the tree keeps two thirds of the rest over the contents
/// pane: twelve rows at 80x24 (it had six with four servers, then nine) and nine at 60x20
/// (five, then eight); the status line keeps its first key hints (`? help`, `/ search`,
/// `+ pin`), saying its state shorter; and the panes follow each other, none over another.
#[test]
fn small_terminals_keep_a_tree_worth_walking() {
    let dir = tempfile::tempdir_in("/tmp").unwrap();
    let config = dir.path().join("four.toml");
    let mut text = String::new();
    for name in ["one", "two", "three", "four"] {
        text.push_str(&format!(
            "[servers.{name}]\ncommand = \"{}\"\nargs = [\"demo-server\", \"--count\", \"40\"]\n",
            mcpick_bin()
        ));
    }
    std::fs::write(&config, text).unwrap();
    // (size, servers, the header once every server is ready, the fewest tree rows).
    let four = format!("--config {}", config.display());
    for (width, height, args, ready, least) in [
        (
            80,
            24,
            four.as_str(),
            "● 4 servers: 4 ready · 160 resources",
            12,
        ),
        (
            60,
            20,
            four.as_str(),
            "● 4 servers: 4 ready · 160 resources",
            9,
        ),
        (80, 24, "--demo", "● demo  ready · 300 resources", 12),
        (60, 20, "--demo", "● demo  ready · 300 resources", 9),
    ] {
        let pane = Pane::sized(width, height);
        pane.start(args);
        let screen = pane.wait_for("every server ready", |s| s.starts_with(ready));
        let rows = tree_rows(&screen);
        assert!(
            rows >= least,
            "{width}x{height}: {rows} tree rows\n{screen}"
        );
        // Top to bottom: one header line, the search line, the tree's box, the contents'
        // box, the status line; every line within the width.
        let lines: Vec<&str> = screen.lines().collect();
        assert_eq!(lines.len(), height as usize, "{screen}");
        assert!(lines[1].starts_with("/ "), "{screen}");
        assert!(
            lines[2].starts_with('┌') && lines[2].contains("Tree"),
            "{screen}"
        );
        let tree_end = 3 + rows;
        assert!(lines[tree_end].starts_with('└'), "{screen}");
        assert!(
            lines[tree_end + 1].starts_with('┌') && lines[tree_end + 1].contains("Contents"),
            "{width}x{height}: the contents pane right below the tree\n{screen}"
        );
        assert!(lines[height as usize - 2].starts_with('└'), "{screen}");
        for line in &lines {
            assert!(line.chars().count() <= width as usize, "{line:?}");
        }
        let status = lines[height as usize - 1];
        assert!(status.starts_with(" TREE"), "{status:?}");
        for hint in ["? help", "/ search", "+ pin"] {
            assert!(
                status.contains(hint),
                "{width}x{height}: {hint} in {status:?}"
            );
        }
        pane.quit_and_check_restored();
    }
}

/// The browser's host view (`a`, then `H`) says, as `install` and `preview --host` do, when
/// the host on `PATH` is another version than its facts were measured on.
#[test]
fn the_host_view_names_a_host_at_another_version_than_measured() {
    let dir = tempfile::tempdir().unwrap();
    let project = std::fs::canonicalize(dir.path()).unwrap().join("p");
    let bin = project.parent().unwrap().join("bin");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    let claude = bin.join("claude");
    std::fs::write(&claude, "#!/bin/sh\necho '9.9.9 (Claude Code)'\n").unwrap();
    let mut perms = std::fs::metadata(&claude).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&claude, perms).unwrap();
    let out = common::mcpick_in(
        &project,
        &[],
        &["pin", "--demo", "file:///project/README.md"],
    );
    assert_eq!(common::exit_code(&out), 0, "{}", common::stderr(&out));
    let pane = Pane::new();
    pane.type_text(&format!(
        "export PATH={}:$PATH; cd {}\n",
        bin.display(),
        project.display()
    ));
    pane.start("--set mcpick.context.json");
    pane.keys(&["a"]);
    pane.wait_text("Agent view");
    pane.keys(&["H"]);
    let screen = pane.wait_for("the Claude Code view", |s| {
        s.contains("Claude Code receives ") && !s.contains("reading the set")
    });
    let words = screen.replace('│', " ");
    let words: Vec<&str> = words.split_whitespace().collect();
    assert!(
        words
            .join(" ")
            .contains("note: measured with Claude Code 2.1.332; this machine has 9.9.9"),
        "{screen}"
    );
}

/// Issue 45 item 5: the status line's token figure is never a guess shown as the total
/// (`~121,856 tok` against 247,528 counted): while any of it is an estimate it says so (`~`
/// and how much is counted), the browser counts the rest in the background, and the figure it
/// settles on is the one `mcpick preview` counts.
#[test]
fn the_status_line_counts_its_token_figure_as_preview_does() {
    let dir = tempfile::tempdir().unwrap();
    let set = dir.path().join("set.json");
    // Everything the demo publishes, no limit: a figure worth counting.
    let out = common::mcpick_in(
        dir.path(),
        &[],
        &["policy", "--set", set.to_str().unwrap(), "--budget", "all"],
    );
    assert_eq!(common::exit_code(&out), 0, "{}", common::stderr(&out));
    let pane = Pane::new();
    pane.start(&format!("--demo --set {}", set.display()));
    let screen = pane.wait_for("the counted figure", |s| {
        let status = s.lines().last().unwrap_or_default();
        status.contains(" tok (budget all)") && !status.contains('~') && !status.contains("counted")
    });
    let status = screen.lines().last().unwrap().to_string();
    pane.quit_and_check_restored();
    let set_arg = set.to_string_lossy().into_owned();
    let (code, doc, err) = common::mcpick_json_in(
        dir.path(),
        &[],
        &["preview", "--demo", "--set", &set_arg, "--format", "json"],
    );
    assert_eq!(code, 0, "{err}");
    let total = doc["totalTokens"].as_u64().unwrap();
    let shown = total
        .to_string()
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect::<Vec<_>>()
        .join(",");
    assert!(
        status.contains(&format!("· {shown} tok (budget all)")),
        "{status:?}: preview counts {total}"
    );
}
