//! Frame cost of the interactive browser with big catalogues (DESIGN.md budget: input → next
//! frame ≤ 16 ms at any catalogue size). Each case drives the pure core the way the runtime
//! does (`App::update`, then `ui::render` into a 120×40 `TestBackend`).
//!
//! - `render/*`: drawing one frame (tree, tree fully expanded, list, filtered tree).
//! - `input_to_frame/*`: one key through `update` plus the frame it causes (cursor down,
//!   page down, a character typed into the search line, expand a folder).
//! - `apply_results/*`: taking a complete broad search result into the tree filter and the
//!   list (happens when the search worker reports, not on a keystroke).
//!
//! `cargo bench --bench tui`; `MCPICK_BENCH_SIZES=100000` limits the sizes.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpick::catalog::SearchResults;
use mcpick::tui::app::Effect;
use mcpick::tui::executor::compute;
use mcpick::tui::keymap::Keymap;
use mcpick::tui::theme::Theme;
use mcpick::tui::ui;
use mcpick::tui::{App, Msg, ServerEvent, ServerSetup};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn sizes() -> Vec<usize> {
    std::env::var("MCPICK_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![100_000, 1_000_000])
}

/// An app with `n` synthetic resources loaded page by page, as from a server.
fn loaded(n: usize) -> App {
    let mut app = App::new(
        vec![ServerSetup {
            name: "synthetic".into(),
            error: None,
            held: None,
        }],
        Keymap::default(),
        Theme::colour(),
        100,
    );
    app.size = (120, 40);
    let _ = app.start();
    let ev = |event| Msg::Server {
        server: 0,
        generation: 1,
        event,
    };
    app.update(ev(ServerEvent::Connected {
        protocol: "2026-07-28".into(),
        transport: "stdio".into(),
        resources: true,
        info: Default::default(),
    }));
    const PAGE: usize = 10_000;
    for (i, offset) in (0..n).step_by(PAGE).enumerate() {
        let page = mcpick::demo::demo_page(n, offset, PAGE.min(n - offset));
        app.update(ev(ServerEvent::Page {
            number: i + 1,
            received: offset + page.len(),
            resources: page,
        }));
    }
    app.update(ev(ServerEvent::Listed {
        count: n,
        capped: false,
    }));
    app
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// Runs sorts synchronously, through the runtime's own [`compute`] (searches are left to the
/// caller).
fn settle(app: &mut App, effects: Vec<Effect>) {
    for e in effects {
        if matches!(e, Effect::Sort { .. })
            && let Ok(msg) = compute(e)
        {
            let fx = app.update(msg);
            settle(app, fx);
        }
    }
}

fn search(app: &mut App, query: &str) {
    let fx = app.update(key(KeyCode::Char('/')));
    settle(app, fx);
    for c in query.chars() {
        app.update(key(KeyCode::Char(c)));
    }
    let results = complete_results(app);
    app.update(Msg::SearchResults(results));
}

fn complete_results(app: &App) -> Arc<SearchResults> {
    let search = Effect::Search {
        generation: app.search.generation(),
        snapshot: app.catalogue.snapshot(),
        query: app.search.query.clone(),
    };
    match compute(search) {
        Ok(Msg::SearchResults(results)) => results,
        _ => unreachable!("a search is answered with its results"),
    }
}

fn bench(c: &mut Criterion) {
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    for n in sizes() {
        let mut app = loaded(n);
        let mut group = c.benchmark_group("render");
        group
            .sample_size(30)
            .measurement_time(Duration::from_secs(3));
        group.bench_function(BenchmarkId::new("tree", n), |b| {
            b.iter(|| {
                terminal.draw(|f| ui::render(black_box(&app), f)).unwrap();
            });
        });
        app.update(key(KeyCode::Char('E')));
        group.bench_function(BenchmarkId::new("tree_expanded", n), |b| {
            b.iter(|| {
                terminal.draw(|f| ui::render(black_box(&app), f)).unwrap();
            });
        });
        let fx = app.update(key(KeyCode::Char('t')));
        settle(&mut app, fx);
        group.bench_function(BenchmarkId::new("list", n), |b| {
            b.iter(|| {
                terminal.draw(|f| ui::render(black_box(&app), f)).unwrap();
            });
        });
        group.finish();

        let mut group = c.benchmark_group("input_to_frame");
        group
            .sample_size(30)
            .measurement_time(Duration::from_secs(3));
        group.bench_function(BenchmarkId::new("list_down", n), |b| {
            b.iter(|| {
                app.update(key(KeyCode::Down));
                terminal.draw(|f| ui::render(&app, f)).unwrap();
            });
        });
        group.bench_function(BenchmarkId::new("list_page_down", n), |b| {
            b.iter(|| {
                app.update(key(KeyCode::PageDown));
                terminal.draw(|f| ui::render(&app, f)).unwrap();
            });
        });
        let fx = app.update(key(KeyCode::Char('t')));
        settle(&mut app, fx);
        app.update(key(KeyCode::Home));
        group.bench_function(BenchmarkId::new("tree_down", n), |b| {
            b.iter(|| {
                app.update(key(KeyCode::Down));
                terminal.draw(|f| ui::render(&app, f)).unwrap();
            });
        });
        // Collapse all, then open and close one folder: the visible rows are rebuilt.
        app.update(key(KeyCode::Char('C')));
        app.update(key(KeyCode::Home));
        app.update(key(KeyCode::Down));
        group.bench_function(BenchmarkId::new("tree_toggle_folder", n), |b| {
            b.iter(|| {
                app.update(key(KeyCode::Enter));
                terminal.draw(|f| ui::render(&app, f)).unwrap();
            });
        });
        // A character typed into the search line: the search itself runs on the worker.
        search(&mut app, "src");
        group.bench_function(BenchmarkId::new("search_keystroke", n), |b| {
            b.iter(|| {
                app.update(key(KeyCode::Char('x')));
                terminal.draw(|f| ui::render(&app, f)).unwrap();
                app.update(key(KeyCode::Backspace));
            });
        });
        group.bench_function(BenchmarkId::new("filtered_tree_down", n), |b| {
            b.iter(|| {
                app.update(key(KeyCode::Down));
                terminal.draw(|f| ui::render(&app, f)).unwrap();
            });
        });
        group.finish();

        let mut group = c.benchmark_group("apply_results");
        group
            .sample_size(10)
            .measurement_time(Duration::from_secs(5));
        // A broad query (most resources match): the worst case for the tree filter.
        app.update(key(KeyCode::Esc));
        search(&mut app, "e");
        let broad = complete_results(&app);
        eprintln!("broad query 'e' at {n}: {} matches", broad.matches.len());
        group.bench_function(BenchmarkId::new("broad_query", n), |b| {
            b.iter(|| {
                app.update(Msg::SearchResults(broad.clone()));
                terminal.draw(|f| ui::render(&app, f)).unwrap();
            });
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
