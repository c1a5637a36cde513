//! What one resource added to or removed from a big catalogue costs the UI thread, the way a
//! server with `--churn` adds one: before, as the whole re-listing (`ServerEvent::Relisted`:
//! the catalogue replaced, the tree rebuilt, every id remapped; every removal went this way),
//! and now, as what the per-server task found changed (`ServerEvent::Edited`: one append and
//! one tree insert; or one removed item, one tree leaf taken out, one pass over the list).
//! Also the diff the per-server task does off the UI thread to tell them apart
//! (`Fingerprint::diff`), for an addition and for a removal.
//!
//! Each sample is one event through `App::update` plus the frame it causes (`ui::render`
//! into a 120×40 `TestBackend`); building the event is not timed. Effects asked for (search,
//! sort, resolution) are not run: they run off the UI thread. A snapshot of the catalogue is
//! held through each event, as a search or resolution in flight holds one (so an append
//! copies the last chunk, as it does in the running browser). Prints the median and worst
//! of each, and the ratio of the medians.
//!
//! `cargo bench --bench list_change` (release); in a debug build, `cargo test --bench
//! list_change -- --bench`. `MCPICK_BENCH_SIZES=200000` sets the size (default 1000000);
//! without `--bench` (as `cargo test --benches` runs it) it is a smoke test at 20,000.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpick::mcp::{Fingerprint, ListingChange, ListingEdit};
use mcpick::tui::keymap::Keymap;
use mcpick::tui::theme::Theme;
use mcpick::tui::ui;
use mcpick::tui::{App, Msg, ServerEvent, ServerSetup};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rmcp::model::Resource;

#[path = "common/stats.rs"]
mod stats;
use stats::stats;

const PAGE: usize = 10_000;

fn ev(event: ServerEvent) -> Msg {
    Msg::Server {
        server: 0,
        generation: 1,
        event,
    }
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// The resource the `k`-th tick of `--churn` adds.
fn live(k: usize) -> Resource {
    Resource::new(format!("demo://live/{k}"), format!("live-{k}"))
}

/// An app with `listing` loaded page by page, a folder open and the cursor in it.
fn loaded(listing: &[Resource]) -> App {
    let mut app = App::new(
        vec![ServerSetup {
            name: "demo".into(),
            error: None,
            held: None,
        }],
        Keymap::default(),
        Theme::colour(),
        100,
    );
    app.size = (120, 40);
    let _ = app.start();
    app.update(ev(ServerEvent::Connected {
        protocol: "2026-07-28".into(),
        transport: "stdio".into(),
        resources: true,
        info: Default::default(),
    }));
    for (i, page) in listing.chunks(PAGE).enumerate() {
        app.update(ev(ServerEvent::Page {
            number: i + 1,
            received: i * PAGE + page.len(),
            resources: page.to_vec(),
        }));
    }
    app.update(ev(ServerEvent::Listed {
        count: listing.len(),
        capped: false,
    }));
    for code in [KeyCode::Down, KeyCode::Enter, KeyCode::Down, KeyCode::Down] {
        app.update(key(code));
    }
    app
}

fn main() {
    let n: usize = std::env::var("MCPICK_BENCH_SIZES")
        .ok()
        .and_then(|s| s.split(',').next_back()?.trim().parse().ok())
        .unwrap_or(1_000_000);
    let full = std::env::args().any(|a| a == "--bench");
    let n = if full { n } else { 20_000 };
    let (relists, grows) = if full { (5, 201) } else { (3, 11) };
    let removals = grows;
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let mut listing = mcpick::demo::demo_page(n, 0, n);
    let mut app = loaded(&listing);
    let mut tick = 0;
    println!(
        "{} resources; one added per event ({})",
        app.catalogue.len(),
        if cfg!(debug_assertions) {
            "DEBUG build"
        } else {
            "release build"
        }
    );

    // For scale: the frame alone, which every sample below includes.
    let mut frames = Vec::new();
    for _ in 0..21 {
        let start = Instant::now();
        terminal.draw(|f| ui::render(&app, f)).unwrap();
        frames.push(start.elapsed());
    }
    stats("a frame alone", &mut frames);

    // Before: the whole listing again, replaced on the UI thread.
    let mut before = Vec::new();
    for _ in 0..relists {
        tick += 1;
        listing.push(live(tick));
        let event = ev(ServerEvent::Relisted {
            resources: listing.clone(),
        });
        let held = app.catalogue.snapshot();
        let start = Instant::now();
        let fx = app.update(event);
        terminal.draw(|f| ui::render(&app, f)).unwrap();
        before.push(start.elapsed());
        drop((fx, held));
    }
    let before = stats("UI thread, as Relisted (whole listing)", &mut before);

    // Now: what changed, found off the UI thread.
    let mut after = Vec::new();
    for _ in 0..grows {
        tick += 1;
        listing.push(live(tick));
        let event = ev(ServerEvent::Edited(ListingEdit {
            added: vec![live(tick)],
            ..Default::default()
        }));
        let held = app.catalogue.snapshot();
        let start = Instant::now();
        let fx = app.update(event);
        terminal.draw(|f| ui::render(&app, f)).unwrap();
        after.push(start.elapsed());
        drop((fx, held));
    }
    let after = stats("UI thread, one added (what changed)", &mut after);
    assert_eq!(app.catalogue.len(), listing.len(), "every tick was applied");
    println!(
        "{:<44} {:>10.0}× less time on the UI thread",
        "ratio of the medians",
        before.as_secs_f64() / after.as_secs_f64().max(1e-9)
    );

    // One removed, from the middle of the listing (a different one each time): as what
    // changed, the removed entry named by its position.
    let mut removed = Vec::new();
    for k in 0..removals {
        let position = listing.len() / 3 + k * 7;
        listing.remove(position);
        let event = ev(ServerEvent::Edited(ListingEdit {
            removed: vec![position as u32],
            ..Default::default()
        }));
        let held = app.catalogue.snapshot();
        let start = Instant::now();
        let fx = app.update(event);
        terminal.draw(|f| ui::render(&app, f)).unwrap();
        removed.push(start.elapsed());
        drop((fx, held));
    }
    let one_removed = stats("UI thread, one removed (what changed)", &mut removed);
    assert_eq!(
        app.catalogue.len(),
        listing.len(),
        "every removal was applied"
    );
    println!(
        "{:<44} {:>10.0}× less time on the UI thread than Relisted",
        "ratio of the medians (removed)",
        before.as_secs_f64() / one_removed.as_secs_f64().max(1e-9)
    );

    // The diff that tells them apart, in the per-server task.
    let mut last = Fingerprint::default();
    last.reset(&listing);
    let mut diffs = Vec::new();
    for _ in 0..relists {
        tick += 1;
        listing.push(live(tick));
        let relisted = listing.clone();
        let start = Instant::now();
        let change = last.diff(relisted);
        diffs.push(start.elapsed());
        assert!(
            matches!(&change, ListingChange::Edited(e) if e.changed.is_empty() && e.removed.is_empty() && e.added.len() == 1)
        );
        drop(change);
    }
    stats("off the UI thread: the diff, one added", &mut diffs);
    let mut diffs = Vec::new();
    for _ in 0..relists {
        let position = listing.len() / 2;
        listing.remove(position);
        let relisted = listing.clone();
        let start = Instant::now();
        let change = last.diff(relisted);
        diffs.push(start.elapsed());
        assert!(
            matches!(&change, ListingChange::Edited(e) if e.removed == [position as u32] && e.added.is_empty())
        );
        drop(change);
    }
    stats("off the UI thread: the diff, one removed", &mut diffs);
}
