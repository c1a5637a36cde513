//! The browser's core driven with no terminal: key sequences and server messages go into
//! `App::update`, effects are run by hand (searches and sorts synchronously, reads answered
//! with prepared documents), and state is checked; then frames are drawn on ratatui's
//! `TestBackend` and compared with insta snapshots (`tests/snapshots/`).

use std::sync::Arc;

use crossterm::event::{KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
use mcpick::catalog::{ItemId, Search, SearchResults, SortKey};
use mcpick::mcp::log::LogSource;
use mcpick::tui::app::{Selection, Status, View, sort_snapshot};
use mcpick::tui::keymap::{Action, Chord, Keymap, Mode};
use mcpick::tui::preview::{self, PreviewDoc};
use mcpick::tui::theme::Theme;
use mcpick::tui::ui;
use mcpick::tui::{App, Effect, Msg, ServerEvent, ServerSetup};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rmcp::model::Resource;

fn new_app(names: &[&str], theme: Theme) -> App {
    let setups = names
        .iter()
        .map(|n| ServerSetup {
            name: n.to_string(),
            error: None,
        })
        .collect();
    let mut app = App::new(setups, Keymap::default(), theme, 100);
    app.size = (100, 30);
    let fx = app.start();
    assert_eq!(fx.len(), names.len());
    app
}

fn server(app: &mut App, server: u16, event: ServerEvent) -> Vec<Effect> {
    app.update(Msg::Server {
        server,
        generation: 1,
        event,
    })
}

/// Connects server 0 and lists `resources` in pages of 100.
fn load(app: &mut App, resources: &[Resource]) {
    let mut fx = server(
        app,
        0,
        ServerEvent::Connected {
            protocol: "2026-07-28".into(),
            transport: "stdio".into(),
            resources: true,
        },
    );
    for (i, page) in resources.chunks(100).enumerate() {
        fx.extend(server(
            app,
            0,
            ServerEvent::Page {
                number: i + 1,
                received: (i * 100 + page.len()),
                resources: page.to_vec(),
            },
        ));
    }
    fx.extend(server(
        app,
        0,
        ServerEvent::Listed {
            count: resources.len(),
            capped: false,
        },
    ));
    run(app, fx);
}

fn demo_app() -> App {
    let mut app = new_app(&["demo"], Theme::colour());
    load(&mut app, &mcpick::demo::demo_resources(300));
    app
}

/// Runs effects the way the runtime would, synchronously; reads get no answer (see
/// [`answer_read`]).
fn run(app: &mut App, effects: Vec<Effect>) -> Vec<Effect> {
    let mut pending = effects;
    let mut reads = Vec::new();
    while let Some(effect) = pending.pop() {
        match effect {
            Effect::Search {
                generation,
                snapshot,
                query,
            } => {
                let matches = Search::default().find(&snapshot, &query);
                let results = SearchResults {
                    generation,
                    query,
                    matches,
                    complete: true,
                    scanned: snapshot.len(),
                    total: snapshot.len(),
                };
                pending.extend(app.update(Msg::SearchResults(Arc::new(results))));
            }
            Effect::Sort {
                generation,
                key,
                snapshot,
                names,
            } => {
                let (ids, lens) = sort_snapshot(&snapshot, &names, key);
                pending.extend(app.update(Msg::Sorted {
                    generation,
                    key,
                    ids,
                    lens,
                }));
            }
            Effect::Resolve(request) => {
                let agent = mcpick::tui::agent::resolve_snapshot(&request);
                pending.extend(app.update(Msg::Resolved(Arc::new(agent))));
            }
            Effect::Save { .. } => {}
            other => reads.push(other),
        }
    }
    reads
}

/// Feeds keys: single characters, or names in angle brackets (`<enter>`, `<ctrl-c>`).
fn drive(app: &mut App, keys: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    let mut rest = keys;
    while let Some(c) = rest.chars().next() {
        let (chord, len) = if c == '<'
            && let Some(end) = rest.find('>')
            && end > 1
        {
            (Chord::parse(&rest[1..end]).unwrap(), end + 1)
        } else {
            (Chord::parse(&c.to_string()).unwrap(), c.len_utf8())
        };
        rest = &rest[len..];
        let mods = chord.mods
            | if matches!(chord.code, crossterm::event::KeyCode::Char(c) if c.is_ascii_uppercase())
            {
                KeyModifiers::SHIFT
            } else {
                KeyModifiers::NONE
            };
        let fx = app.update(Msg::Key(KeyEvent::new(chord.code, mods)));
        out.extend(run(app, fx));
    }
    out
}

fn selected_uri(app: &App) -> Option<String> {
    match app.selection() {
        Selection::Item(id) => app.catalogue.get(id).map(|i| i.uri().to_string()),
        _ => None,
    }
}

fn read_of(effects: &[Effect]) -> Option<(u64, ItemId, String)> {
    effects.iter().rev().find_map(|e| match e {
        Effect::Read {
            generation,
            item,
            uri,
        } => Some((*generation, *item, uri.clone())),
        _ => None,
    })
}

fn answer_read(app: &mut App, read: (u64, ItemId, String), doc: PreviewDoc) {
    let fx = app.update(Msg::Preview {
        generation: read.0,
        item: read.1,
        doc: Arc::new(doc),
    });
    run(app, fx);
}

fn draw(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).unwrap();
    terminal.draw(|f| ui::render(app, f)).unwrap();
    terminal
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    app.update(Msg::Resize(w, h));
    draw(app, w, h).backend().to_string()
}

// ---- state machine -------------------------------------------------------------------

#[test]
fn servers_go_from_connecting_to_loading_to_ready() {
    let mut app = new_app(&["demo", "broken"], Theme::colour());
    assert_eq!(app.servers[0].status, Status::Connecting);
    server(
        &mut app,
        1,
        ServerEvent::Failed("could not start `nope`".into()),
    );
    assert!(matches!(app.servers[1].status, Status::Failed(ref r) if r.contains("nope")));
    server(
        &mut app,
        0,
        ServerEvent::Connected {
            protocol: "2025-11-25".into(),
            transport: "stdio".into(),
            resources: true,
        },
    );
    let resources = mcpick::demo::demo_resources(300);
    server(
        &mut app,
        0,
        ServerEvent::Page {
            number: 1,
            received: 100,
            resources: resources[..100].to_vec(),
        },
    );
    assert_eq!(
        app.servers[0].status,
        Status::Loading {
            page: 1,
            received: 100
        }
    );
    assert_eq!(app.total(), 100);
    // Events of an older generation (a restarted listing) are dropped.
    app.update(Msg::Server {
        server: 0,
        generation: 0,
        event: ServerEvent::Failed("stale".into()),
    });
    assert!(matches!(app.servers[0].status, Status::Loading { .. }));
    server(
        &mut app,
        0,
        ServerEvent::Listed {
            count: 100,
            capped: false,
        },
    );
    assert_eq!(
        app.servers[0].status,
        Status::Ready {
            count: 100,
            capped: false
        }
    );
}

#[test]
fn a_server_without_resources_says_so() {
    let mut app = new_app(&["tools-only"], Theme::colour());
    server(
        &mut app,
        0,
        ServerEvent::Connected {
            protocol: "2025-11-25".into(),
            transport: "stdio".into(),
            resources: false,
        },
    );
    assert_eq!(app.servers[0].status, Status::NoResources);
}

#[test]
fn walking_the_tree() {
    let mut app = demo_app();
    assert_eq!(app.view, View::Tree);
    // The server row, then its top-level folders, collapsed.
    assert!(matches!(
        app.selection(),
        Selection::Folder { server: true, .. }
    ));
    let rows = app.tree.row_count();
    drive(&mut app, "E");
    assert!(app.tree.row_count() > rows, "expand all opens folders");
    drive(&mut app, "C");
    assert_eq!(app.tree.row_count(), rows, "collapse all closes them");
    // Find demo://assets, open it, step onto logo.png.
    let assets = (0..app.tree.row_count())
        .find(|&i| {
            app.tree
                .view(app.tree.window(i, 1)[0])
                .label
                .contains("assets")
        })
        .unwrap();
    for _ in 0..assets {
        drive(&mut app, "j");
    }
    drive(&mut app, "l");
    assert!(app.tree.row_count() > rows);
    let fx = drive(&mut app, "l");
    assert_eq!(
        selected_uri(&app).as_deref(),
        Some("demo://assets/logo.png")
    );
    // Resting on a resource reads it.
    let read = read_of(&fx).expect("a read effect");
    assert_eq!(read.2, "demo://assets/logo.png");
    // h on a resource jumps to its folder; h on an open folder closes it.
    drive(&mut app, "h");
    assert!(matches!(app.selection(), Selection::Folder { .. }));
    drive(&mut app, "h");
    assert_eq!(app.tree.row_count(), rows);
    // G and g go to the ends; p goes to the parent.
    drive(&mut app, "G");
    assert_eq!(app.cursor().index, rows - 1);
    drive(&mut app, "p");
    assert_eq!(app.cursor().index, 0);
    drive(&mut app, "<end><home>");
    assert_eq!(app.cursor().index, 0);
}

#[test]
fn list_view_cycles_orders() {
    let mut app = demo_app();
    drive(&mut app, "t");
    assert_eq!(app.view, View::List);
    assert_eq!(app.list_key, Some(SortKey::Priority));
    let first = |app: &App| app.catalogue.get(app.list_ids()[0]).unwrap().clone();
    let top = first(&app);
    assert!(app.list_ids().iter().all(|&id| {
        app.catalogue.get(id).unwrap().priority().unwrap_or(-1.0) <= top.priority().unwrap()
    }));
    drive(&mut app, "oo");
    assert_eq!(app.order, SortKey::Name);
    assert_eq!(app.list_key, Some(SortKey::Name));
    let names: Vec<String> = app
        .list_ids()
        .iter()
        .take(20)
        .map(|&id| app.catalogue.get(id).unwrap().display_name().to_lowercase())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    drive(&mut app, "<pgdown>");
    assert_eq!(app.cursor().index, app.page_rows());
    drive(&mut app, "t");
    assert_eq!(app.view, View::Tree);
}

#[test]
fn search_filters_the_tree_and_esc_clears() {
    let mut app = demo_app();
    let all_rows = app.tree.row_count();
    drive(&mut app, "/logo.png");
    assert_eq!(app.mode(), Mode::Search);
    assert_eq!(app.query, "logo.png");
    let n = app.matching().unwrap();
    assert!((1..300).contains(&n), "{n}");
    // The best match is selected, with its ancestors open.
    assert_eq!(
        selected_uri(&app).as_deref(),
        Some("demo://assets/logo.png")
    );
    drive(&mut app, "<enter>");
    assert_eq!(app.mode(), Mode::Browse);
    assert_eq!(app.query, "logo.png");
    drive(&mut app, "<esc>");
    assert_eq!(app.query, "");
    assert_eq!(app.matching(), None);
    assert_eq!(app.tree.row_count(), all_rows);
}

#[test]
fn search_typing_and_deleting() {
    let mut app = demo_app();
    drive(&mut app, "/readmX<backspace>");
    assert_eq!(app.query, "readm");
    drive(&mut app, "<ctrl-u>");
    assert_eq!(app.query, "");
    drive(&mut app, "README<down><up><tab>");
    assert_eq!(app.mode(), Mode::Browse);
    // In the list view, matches are listed best first.
    drive(&mut app, "t");
    assert_eq!(
        app.catalogue.get(app.list_ids()[0]).unwrap().name(),
        "README.md"
    );
    // Stale search results are dropped.
    let stale = SearchResults {
        generation: 0,
        query: "x".into(),
        matches: Vec::new(),
        complete: true,
        scanned: 0,
        total: 0,
    };
    let before = app.matching();
    app.update(Msg::SearchResults(Arc::new(stale)));
    assert_eq!(app.matching(), before);
}

#[test]
fn preview_is_latest_wins_and_cached() {
    let mut app = demo_app();
    let fx = drive(&mut app, "/logo.png<enter>");
    let first = read_of(&fx).expect("read logo");
    // Moving on starts a newer read; the older answer is cached but not shown as current.
    let fx = drive(&mut app, "/<ctrl-u>README.md<enter>");
    let second = read_of(&fx).expect("read README");
    assert!(second.0 > first.0);
    answer_read(&mut app, first.clone(), PreviewDoc::Empty);
    assert!(app.preview.loading, "the README read is still in flight");
    answer_read(&mut app, second.clone(), PreviewDoc::Empty);
    assert!(!app.preview.loading);
    // Back on the logo: cached, so no new read.
    let fx = drive(&mut app, "/<ctrl-u>logo.png<enter>");
    assert!(read_of(&fx).is_none(), "cached preview is not read again");
    assert!(app.cached(first.1).is_some());
    // r reads it again.
    let fx = drive(&mut app, "r");
    assert_eq!(
        read_of(&fx).map(|r| r.2),
        Some("demo://assets/logo.png".into())
    );
}

#[test]
fn moving_off_a_resource_cancels_its_read() {
    let mut app = demo_app();
    let fx = drive(&mut app, "/logo.png<enter>");
    assert!(read_of(&fx).is_some());
    let fx = drive(&mut app, "g");
    assert!(fx.iter().any(|e| matches!(e, Effect::CancelRead)));
}

#[test]
fn preview_focus_scrolls() {
    let mut app = demo_app();
    let fx = drive(&mut app, "/README.md<enter>");
    let read = read_of(&fx).unwrap();
    let text: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    let body = preview::text_body(&text, Some("text/plain"), "x", false);
    answer_read(
        &mut app,
        read,
        PreviewDoc::Parts(vec![preview::Part {
            uri: "file:///project/README.md".into(),
            mime: Some("text/plain".into()),
            body,
        }]),
    );
    drive(&mut app, "<tab>");
    assert_eq!(app.mode(), Mode::Preview);
    drive(&mut app, "jjj");
    assert_eq!(app.preview.scroll, 3);
    drive(&mut app, "G");
    let bottom = app.preview.scroll;
    assert!(bottom > 150, "{bottom}");
    drive(&mut app, "j");
    assert_eq!(app.preview.scroll, bottom, "clamped at the end");
    drive(&mut app, "g<esc>");
    assert_eq!(app.preview.scroll, 0);
    assert_eq!(app.mode(), Mode::Browse);
    // J/K scroll the preview from the tree.
    drive(&mut app, "JJ");
    assert_eq!(app.preview.scroll, 2);
}

#[test]
fn help_log_and_quit() {
    let mut app = demo_app();
    drive(&mut app, "?");
    assert_eq!(app.mode(), Mode::Help);
    drive(&mut app, "jq");
    assert_eq!(app.mode(), Mode::Browse);
    assert!(!app.quit, "q closes the help, it does not quit");
    drive(&mut app, "L");
    assert_eq!(app.mode(), Mode::Log);
    drive(&mut app, "s");
    assert!(matches!(
        app.overlay,
        Some(mcpick::tui::app::Overlay::Log {
            filter: Some(0),
            ..
        })
    ));
    drive(&mut app, "<esc>q");
    assert!(app.quit);
    let mut app = demo_app();
    drive(&mut app, "/abc<ctrl-c>");
    assert!(app.quit, "ctrl-c quits even while typing");
    let mut app = demo_app();
    let fx = drive(&mut app, "<ctrl-z>");
    assert!(fx.iter().any(|e| matches!(e, Effect::Suspend)));
}

#[test]
fn mouse_wheel_and_click() {
    let mut app = demo_app();
    drive(&mut app, "E");
    let areas = app.areas();
    let wheel = |kind| {
        Msg::Mouse(MouseEvent {
            kind,
            column: areas.main.x + 3,
            row: areas.main.y + 3,
            modifiers: KeyModifiers::NONE,
        })
    };
    app.update(wheel(MouseEventKind::ScrollDown));
    assert_eq!(app.cursor().index, 3);
    app.update(wheel(MouseEventKind::ScrollUp));
    assert_eq!(app.cursor().index, 0);
    // Click the fifth row.
    app.update(Msg::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: areas.main.x + 10,
        row: areas.main.y + 1 + 4,
        modifiers: KeyModifiers::NONE,
    }));
    assert_eq!(app.cursor().index, 4);
}

#[test]
fn keys_from_config_override_defaults() {
    let mut keymap = Keymap::default();
    let table: toml::Table = toml::from_str("[browse]\nx = \"quit\"\nq = \"none\"").unwrap();
    assert!(keymap.apply_table(&table, "test").is_empty());
    let mut app = App::new(
        vec![ServerSetup {
            name: "demo".into(),
            error: None,
        }],
        keymap,
        Theme::colour(),
        10,
    );
    drive(&mut app, "q");
    assert!(!app.quit);
    drive(&mut app, "x");
    assert!(app.quit);
    // The help is generated from the table, so it shows the new key.
    let help: Vec<String> = ui::help_lines(&app).iter().map(|l| l.to_string()).collect();
    assert!(
        help.iter()
            .any(|l| l.contains('x') && l.contains(Action::Quit.description()))
    );
}

#[test]
fn untrusted_text_never_reaches_the_screen_raw() {
    let mut app = new_app(&["evil\u{1b}[2J"], Theme::colour());
    load(
        &mut app,
        &[Resource::new(
            "x://evil/\u{1b}]52;c;aGk=\u{7}name\u{202e}txt",
            "n\u{1b}[31mred",
        )
        .with_description("line\u{1b}[1mbold\ttab")],
    );
    drive(&mut app, "E/red");
    let text = screen(&mut app, 100, 30);
    assert!(!text.contains('\u{1b}'));
    assert!(!text.contains('\u{202e}'));
    assert!(!text.contains("[2J"), "{text}");
}

// ---- render snapshots ----------------------------------------------------------------

#[test]
fn snapshot_loading() {
    let mut app = new_app(&["demo", "docs", "broken"], Theme::colour());
    server(
        &mut app,
        1,
        ServerEvent::Connected {
            protocol: "2025-11-25".into(),
            transport: "http".into(),
            resources: true,
        },
    );
    server(
        &mut app,
        1,
        ServerEvent::Page {
            number: 2,
            received: 200,
            resources: mcpick::demo::demo_resources(300)[..200].to_vec(),
        },
    );
    server(
        &mut app,
        2,
        ServerEvent::Failed("could not start `no-such-server`: No such file or directory".into()),
    );
    insta::assert_snapshot!("loading", screen(&mut app, 100, 20));
}

#[test]
fn snapshot_loaded_tree() {
    let mut app = demo_app();
    insta::assert_snapshot!("loaded", screen(&mut app, 100, 24));
    drive(&mut app, "jjjjjjjjl");
    insta::assert_snapshot!("tree_open", screen(&mut app, 100, 24));
}

#[test]
fn snapshot_list() {
    let mut app = demo_app();
    drive(&mut app, "t");
    insta::assert_snapshot!("list_priority", screen(&mut app, 100, 24));
    drive(&mut app, "oooo");
    insta::assert_snapshot!("list_size", screen(&mut app, 100, 24));
}

#[test]
fn snapshot_search_with_highlights() {
    let mut app = demo_app();
    drive(&mut app, "/budget");
    insta::assert_snapshot!("search", screen(&mut app, 100, 24));
    // Highlights are styles: check the matched cells carry the match style.
    let terminal = draw(&app, 100, 24);
    let buffer = terminal.backend().buffer();
    let matched = app.theme.matched;
    let styled = buffer
        .content()
        .iter()
        .filter(|c| c.modifier.contains(matched.add_modifier))
        .count();
    assert!(styled >= 6, "{styled} highlighted cells");
}

fn text_doc(uri: &str, mime: &str, text: &str, color: bool) -> PreviewDoc {
    PreviewDoc::Parts(vec![preview::Part {
        uri: uri.into(),
        mime: Some(mime.into()),
        body: preview::text_body(text, Some(mime), uri, color),
    }])
}

#[test]
fn snapshot_previews() {
    let mut app = demo_app();
    let fx = drive(&mut app, "/Cargo.toml<enter>");
    let read = read_of(&fx).unwrap();
    let uri = read.2.clone();
    answer_read(
        &mut app,
        read,
        text_doc(
            &uri,
            "application/toml",
            "[package]\nname = \"demo\"\n\tversion = \"0.1.0\"\n",
            true,
        ),
    );
    insta::assert_snapshot!("preview_text", screen(&mut app, 100, 30));

    let fx = drive(&mut app, "/<ctrl-u>logo.png<enter>");
    let read = read_of(&fx).unwrap();
    let png = "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAM0lEQVR42mNgAAL5rq7/5GAGSjTDDRlcBsAAOhsbH68BxACCLsBl66gBtDZgiCZlSrMzAO2JiCkX0F53AAAAAElFTkSuQmCC";
    answer_read(
        &mut app,
        read,
        PreviewDoc::Parts(vec![preview::Part {
            uri: "demo://assets/logo.png".into(),
            mime: Some("image/png".into()),
            body: preview::blob_body(png),
        }]),
    );
    insta::assert_snapshot!("preview_blob", screen(&mut app, 100, 30));

    let fx = drive(&mut app, "/<ctrl-u>README.md<enter>");
    let read = read_of(&fx).unwrap();
    answer_read(
        &mut app,
        read,
        PreviewDoc::NotFound("Resource not found: file:///project/README.md (code -32002)".into()),
    );
    insta::assert_snapshot!("preview_not_found", screen(&mut app, 100, 30));
    drive(&mut app, "r");
    let fx = drive(&mut app, "j");
    let _ = fx;
    let mut app2 = demo_app();
    let fx = drive(&mut app2, "/README.md<enter>");
    let read = read_of(&fx).unwrap();
    answer_read(&mut app2, read, PreviewDoc::TimedOut(30.0));
    insta::assert_snapshot!("preview_timeout", screen(&mut app2, 100, 30));
}

#[test]
fn snapshot_log() {
    let mut app = new_app(&["demo", "other"], Theme::colour());
    app.logs[0].push(LogSource::Stderr, "demo server starting");
    app.logs[1].push(LogSource::Notification, "[info] indexing 3 files");
    app.logs[0].push(LogSource::Client, "resources/read timed out after 30s");
    drive(&mut app, "L");
    let settings = {
        let mut s = insta::Settings::clone_current();
        s.add_filter(r"\d\d:\d\d:\d\d", "HH:MM:SS");
        s
    };
    settings.bind(|| insta::assert_snapshot!("log_all", screen(&mut app, 100, 14)));
    drive(&mut app, "ss");
    settings.bind(|| insta::assert_snapshot!("log_other", screen(&mut app, 100, 14)));
}

#[test]
fn snapshot_help() {
    let mut app = demo_app();
    drive(&mut app, "?");
    insta::assert_snapshot!("help", screen(&mut app, 100, 60));
}

#[test]
fn snapshot_narrow() {
    let mut app = demo_app();
    drive(&mut app, "/logo.png<enter>");
    insta::assert_snapshot!("narrow_40x24", screen(&mut app, 40, 24));
    // Too small for a preview pane: the preview takes the tree's place while focused.
    insta::assert_snapshot!("narrow_40x12", screen(&mut app, 40, 12));
    drive(&mut app, "<tab>");
    insta::assert_snapshot!("narrow_40x12_preview", screen(&mut app, 40, 12));
}

#[test]
fn snapshot_no_color() {
    let mut app = new_app(&["demo"], Theme::mono());
    load(&mut app, &mcpick::demo::demo_resources(300));
    drive(&mut app, "j/notes");
    let terminal = draw(&app, 60, 12);
    // The monochrome theme uses no colour at all: only modifiers (and glyphs).
    for cell in terminal.backend().buffer().content() {
        assert_eq!(cell.fg, ratatui::style::Color::Reset, "{cell:?}");
        assert_eq!(cell.bg, ratatui::style::Color::Reset, "{cell:?}");
    }
    insta::assert_snapshot!("no_color", terminal.backend());
    insta::assert_debug_snapshot!("no_color_styles", terminal.backend().buffer());
}

#[test]
fn resize_keeps_the_cursor_visible() {
    let mut app = demo_app();
    drive(&mut app, "EG");
    screen(&mut app, 100, 40);
    let c = app.cursor();
    assert!(c.index >= c.offset && c.index < c.offset + app.page_rows());
    screen(&mut app, 40, 10);
    let c = app.cursor();
    assert!(c.index >= c.offset && c.index < c.offset + app.page_rows());
    // Degenerate sizes draw nothing and do not panic.
    screen(&mut app, 1, 1);
    app.update(Msg::Resize(0, 0));
    draw(&app, 0, 0);
}
