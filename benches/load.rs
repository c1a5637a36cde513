//! Key → frame latency while a million resources stream in, and the browser's memory after.
//!
//! Drives the pure core the way the runtime does: pages of 100 resources (the demo server's
//! page size) arrive as `Msg::Server` page events; after every 10th page a key arrives and a
//! frame is drawn (`ui::render` into a 120×40 `TestBackend`). A key's latency is measured from
//! the moment the page in front of it starts to be applied (the worst case: a key that arrives
//! just as the UI thread starts on a page waits for that page) to the end of the frame the key
//! causes. Keys cycle through tree moves, opening the search line, typing and deleting a query,
//! and closing it. Effects the runtime runs off the UI thread (search, sort, resolution) are
//! run here synchronously between measurements, untimed, so the core sees their results as it
//! would; reads asked for by the agent view are counted, not run.
//!
//! Reports median / p99 / max latency for the keys sent up to 100k, 500k and 1M resources
//! loaded, the page cost, and the resident memory (RSS from /proc, no trimming) after the
//! load, after a search, and after opening the agent view with no budget.
//!
//! `cargo bench --bench load`; `MCPICK_BENCH_SIZES=200000` sets the size (default 1000000).

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpick::tui::app::Effect;
use mcpick::tui::executor::compute;
use mcpick::tui::keymap::Keymap;
use mcpick::tui::theme::Theme;
use mcpick::tui::ui;
use mcpick::tui::{App, Msg, ServerEvent, ServerSetup};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const PAGE: usize = 100;
const KEY_EVERY: usize = 10;

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("read /proc/self/statm");
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    // SAFETY: sysconf has no preconditions.
    pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// The keys typed while loading, in a loop.
fn script() -> Vec<KeyCode> {
    use KeyCode::*;
    let mut keys = vec![Down, Down, Down, Up, PageDown, PageUp, Char('/')];
    keys.extend("note".chars().map(Char));
    keys.extend([Backspace, Backspace, Backspace, Backspace, Esc, Down, Up]);
    keys
}

/// Runs what the runtime runs off the UI thread, synchronously, through the runtime's own
/// [`compute`]; counts the reads asked for.
struct Offload {
    reads: usize,
}

impl Offload {
    fn run(&mut self, app: &mut App, effects: Vec<Effect>) {
        let mut queue = effects;
        while let Some(e) = queue.pop() {
            let next = match compute(e) {
                Ok(msg) => app.update(msg),
                Err(Effect::Measure { items, .. }) => {
                    self.reads += items.len();
                    Vec::new()
                }
                Err(_) => Vec::new(),
            };
            queue.extend(next);
        }
    }
}

fn stats(label: &str, samples: &mut [Duration]) {
    if samples.is_empty() {
        return;
    }
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label:<28} {:>6} keys  median {:>8.2} ms  p99 {:>8.2} ms  max {:>8.2} ms",
        samples.len(),
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        samples[samples.len() - 1].as_secs_f64() * 1e3,
    );
}

fn main() {
    let n: usize = std::env::var("MCPICK_BENCH_SIZES")
        .ok()
        .and_then(|s| s.split(',').next_back()?.trim().parse().ok())
        .unwrap_or(1_000_000);
    // `cargo test --benches` runs this as a smoke test: keep it small.
    let n = if std::env::args().any(|a| a == "--bench") {
        n
    } else {
        20_000
    };
    let start_rss = rss_bytes();
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
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
    let mut off = Offload { reads: 0 };
    let fx = app.start();
    off.run(&mut app, fx);
    let ev = |event| Msg::Server {
        server: 0,
        generation: 1,
        event,
    };
    let fx = app.update(ev(ServerEvent::Connected {
        protocol: "2025-06-18".into(),
        transport: "stdio".into(),
        resources: true,
        info: Default::default(),
    }));
    off.run(&mut app, fx);
    terminal.draw(|f| ui::render(&app, f)).unwrap();

    let keys = script();
    let checkpoints = [100_000.min(n), 500_000.min(n), n];
    let mut buckets: Vec<Vec<Duration>> = vec![Vec::new(); checkpoints.len()];
    let mut pages: Vec<Duration> = Vec::new();
    let mut sent = 0usize;
    let load = Instant::now();
    let mut core = Duration::ZERO;
    for (number, offset) in (0..n).step_by(PAGE).enumerate() {
        let page = mcpick::demo::demo_page(n, offset, PAGE.min(n - offset));
        let received = offset + page.len();
        let t0 = Instant::now();
        let fx = app.update(ev(ServerEvent::Page {
            number: number + 1,
            received,
            resources: page,
        }));
        let page_done = Instant::now();
        pages.push(page_done - t0);
        core += page_done - t0;
        off.run(&mut app, fx);
        if (number + 1) % KEY_EVERY == 0 {
            let k = keys[sent % keys.len()];
            sent += 1;
            let t1 = Instant::now();
            let fx = app.update(key(k));
            terminal.draw(|f| ui::render(&app, f)).unwrap();
            let frame_done = Instant::now();
            core += frame_done - t1;
            let latency = (page_done - t0) + (frame_done - t1);
            let b = checkpoints.iter().position(|&c| received <= c).unwrap();
            buckets[b].push(latency);
            off.run(&mut app, fx);
        }
    }
    let fx = app.update(ev(ServerEvent::Listed {
        count: n,
        capped: false,
    }));
    off.run(&mut app, fx);
    let wall = load.elapsed();
    terminal.draw(|f| ui::render(&app, f)).unwrap();
    println!("{n} resources in pages of {PAGE}, a key every {KEY_EVERY} pages");
    println!(
        "load: {:.1} s in all, {:.1} s of it on the UI thread (pages + keys + frames)",
        wall.as_secs_f64(),
        core.as_secs_f64()
    );
    let mut from = 0;
    for (b, c) in checkpoints.iter().enumerate() {
        stats(&format!("key→frame {from}..{c}"), &mut buckets[b]);
        from = *c;
    }
    stats("page applied (per page)", &mut pages);
    let mb = |b: u64| b as f64 / 1e6;
    let loaded = rss_bytes();
    println!(
        "RSS after load: {:.0} MB ({:.0} bytes per resource over the {:.0} MB at start)",
        mb(loaded),
        (loaded - start_rss) as f64 / n as f64,
        mb(start_rss)
    );
    // A search, typed and completed.
    for c in ['/', 'n', 'o', 't', 'e'] {
        let fx = app.update(key(KeyCode::Char(c)));
        off.run(&mut app, fx);
    }
    let fx = app.update(key(KeyCode::Enter));
    off.run(&mut app, fx);
    terminal.draw(|f| ui::render(&app, f)).unwrap();
    let searched = rss_bytes();
    println!(
        "RSS after a search: {:.0} MB ({:.0} bytes per resource)",
        mb(searched),
        (searched - start_rss) as f64 / n as f64
    );
    // The agent view with no budget.
    let t = Instant::now();
    let fx = app.update(key(KeyCode::Char('a')));
    let open = t.elapsed();
    off.run(&mut app, fx);
    terminal.draw(|f| ui::render(&app, f)).unwrap();
    let agent = rss_bytes();
    println!(
        "agent view (no budget): opened in {:.2} ms, {} reads requested; RSS {:.0} MB ({:.0} bytes per resource)",
        open.as_secs_f64() * 1e3,
        off.reads,
        mb(agent),
        (agent - start_rss) as f64 / n as f64
    );
    std::hint::black_box(&app);
}
