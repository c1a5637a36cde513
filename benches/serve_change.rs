//! What one change costs `mcpick serve` at N published resources (one upstream, `--expose
//! allowed`, no budget, every audience: all N published), through its engine as the upkeep
//! drives it (`Upstreams::apply` of what the upstream's supervisor told, then the engine's
//! resolution and publication), without processes or sockets:
//!
//! - a re-list with one resource added (told as what changed, as a supervisor sends it);
//! - a re-list in which every URI is new (the whole listing replaced: for scale);
//! - an `updated` notification for one published resource;
//! - a resolution again with nothing changed (what every list change pays at least: the
//!   candidates, the ranking, the published list compared);
//! - with one pinned template expansion: the expansion step of a refresh (the listings'
//!   merged catalogue taken, the expansion found and added to it), and a resolution again.
//!
//! Building each event (its listing, and the supervisor's diff of it against the last one,
//! timed in `benches/list_change.rs`) is not timed. Prints the median and worst of each.
//!
//! `cargo bench --bench serve_change` (release); in a debug build, `cargo test --bench
//! serve_change -- --bench`. `MCPICK_BENCH_SIZES=20000` sets the size (default 100000);
//! without `--bench` (as `cargo test --benches` runs it) it is a smoke test at 2,000.

use std::future::Future;
use std::time::{Duration, Instant};

use mcpick::context::{Audience, ContextSet, Mark, Target};
use mcpick::mcp::supervisor::Event;
use mcpick::mcp::{Fingerprint, ListOutcome};
use mcpick::serve::Engine;
use mcpick::serve::exposed::Expose;
use mcpick::serve::upstream::Upstreams;
use rmcp::model::{Resource, ResourceTemplate};

#[path = "common/stats.rs"]
mod stats;
use stats::stats;

/// A re-list's event as the upstream's supervisor sends it: diffed against `last`.
fn relisted(last: &mut Fingerprint, resources: Vec<Resource>) -> Event {
    let count = resources.len();
    Event::Relisted {
        change: last.diff(resources),
        outcome: ListOutcome {
            pages: 1,
            count,
            capped: false,
            warnings: 0,
            cache: Default::default(),
        },
    }
}

/// Times `f` `samples` times; `prepare` builds each sample's input, untimed.
fn time<T, F: Future<Output = ()>>(
    runtime: &tokio::runtime::Runtime,
    samples: usize,
    mut prepare: impl FnMut() -> T,
    mut f: impl FnMut(T) -> F,
) -> Vec<Duration> {
    (0..samples)
        .map(|_| {
            let input = prepare();
            let start = Instant::now();
            runtime.block_on(f(input));
            start.elapsed()
        })
        .collect()
}

fn main() {
    let n: usize = std::env::var("MCPICK_BENCH_SIZES")
        .ok()
        .and_then(|s| s.split(',').next_back()?.trim().parse().ok())
        .unwrap_or(100_000);
    let full = std::env::args().any(|a| a == "--bench");
    let n = if full { n } else { 2_000 };
    let samples = if full { 7 } else { 3 };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let mut listing = mcpick::demo::demo_page(n, 0, n);
    let mut set = ContextSet::default();
    set.policy.audience = Audience::Any;
    let upstreams = Upstreams::already_listed(vec![("up".into(), listing.clone())]);
    let mut last = Fingerprint::default();
    last.reset(&listing);
    let engine = runtime.block_on(Engine::over(upstreams, set, Expose::Allowed));
    assert_eq!(engine.current().len(), n, "every resource published");
    println!(
        "{n} resources published; one upstream ({})",
        if cfg!(debug_assertions) {
            "DEBUG build"
        } else {
            "release build"
        }
    );
    let upstreams = runtime.block_on(engine.ready());

    let mut tick = 0;
    let mut added = time(
        &runtime,
        samples,
        || {
            tick += 1;
            listing.push(Resource::new(
                format!("demo://live/{tick}"),
                format!("live-{tick}"),
            ));
            relisted(&mut last, listing.clone())
        },
        |event| async {
            upstreams.apply(0, event);
            assert!(engine.refresh().await, "the published list changed");
        },
    );
    let one_added = stats("a re-list with one added, published", &mut added);
    assert_eq!(engine.current().len(), listing.len());

    let uri = listing[n / 2].uri.clone();
    let mut updated = time(
        &runtime,
        samples,
        || (),
        |()| async {
            // As the upkeep does: a resolution only when a count used by one went stale.
            if engine.updated("up", &uri).await {
                engine.refresh().await;
            }
        },
    );
    stats(
        "an update of one published resource (no budget)",
        &mut updated,
    );

    let mut again = time(
        &runtime,
        samples,
        || (),
        |()| async {
            assert!(!engine.refresh().await, "nothing changed");
        },
    );
    stats("resolved again, nothing changed", &mut again);

    let mut generation = 0;
    let mut replaced = time(
        &runtime,
        samples.min(3),
        || {
            generation += 1;
            for r in &mut listing {
                r.uri = format!("{}#{generation}", r.uri.split('#').next().unwrap_or(""));
            }
            relisted(&mut last, listing.clone())
        },
        |event| async {
            upstreams.apply(0, event);
            assert!(engine.refresh().await, "the published list changed");
        },
    );
    let whole = stats("a re-list with every URI new (for scale)", &mut replaced);
    println!(
        "{:<52} {:>10.1}× the time of one added",
        "the whole listing replaced",
        whole.as_secs_f64() / one_added.as_secs_f64().max(1e-9)
    );
    drop(engine);

    // The same listing, and a pin on a URI only a template of the upstream produces.
    let upstreams =
        Upstreams::already_listed(vec![("up".into(), mcpick::demo::demo_page(n, 0, n))]);
    let template = ResourceTemplate::new("x://expanded/{id}", "expanded");
    upstreams.set_templates("up", vec![template]);
    let mut set = ContextSet::default();
    set.policy.audience = Audience::Any;
    let expanded = "x://expanded/1";
    set.marks
        .set(Target::exact("up", expanded), Some(Mark::Pin));
    let marks = set.marks.clone();
    let engine = runtime.block_on(Engine::over(upstreams, set, Expose::Allowed));
    assert_eq!(
        engine.current().get(expanded).map(|r| r.pinned()),
        Some(true),
        "the expansion is published, pinned"
    );
    let upstreams = runtime.block_on(engine.ready());
    let mut step = time(
        &runtime,
        samples,
        || upstreams.listings(),
        |mut listings| {
            let found = listings.add_expansions(&marks).len();
            async move { assert_eq!(found, 1) }
        },
    );
    stats("one pinned expansion: the expansion step", &mut step);
    let mut again = time(
        &runtime,
        samples,
        || (),
        |()| async {
            assert!(!engine.refresh().await, "nothing changed");
        },
    );
    stats(
        "one pinned expansion: resolved again, unchanged",
        &mut again,
    );
}
