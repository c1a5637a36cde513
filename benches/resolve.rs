//! What a resolution of the agent's view costs at N resources (a synthetic catalogue, one
//! server, every resource admitted: the heaviest walk), on both paths resolution has:
//!
//! - `sorting path`: the candidates in catalogue order, ranked by a sort first (what
//!   `preview`, `export` and `serve` run, and what the browser ran after every change);
//! - `advance, one appended` / `one removed` / `one changed`: the browser's kept rank order
//!   ([`mcpick::context::RankOrder`]) advanced through one list change to the catalogue
//!   of N (the change applied to a copy of it, and the ids it touched, are not timed);
//! - `walk over the kept order`: the resolution itself over the candidates in that order
//!   (candidates built from it, then one walk; no sort).
//!
//! The browser pays an advance and a walk per list change where it paid the sorting path.
//! Criterion times each; the median of the single runs is printed after each group.
//!
//! `cargo bench --bench resolve` (release; `MCPICK_BENCH_SIZES=100000,1000000`, default
//! 1,000,000). Without `--bench` (as `cargo test --benches` runs it) it is a smoke test at
//! 2,000, each step run once.

use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use mcpick::catalog::{Catalogue, ItemId};
use mcpick::context::ranking::RankUpdate;
use mcpick::context::{
    Audience, Mark, Marks, Measures, Policy, RankOrder, Sources, Target, candidates_in,
};
use mcpick::demo::synth;
use mcpick::mcp::ListingEdit;
use rmcp::model::Resource;

#[path = "common/stats.rs"]
mod stats;
use stats::stats;

fn sizes() -> Vec<usize> {
    if !std::env::args().any(|a| a == "--bench") {
        return vec![2_000];
    }
    std::env::var("MCPICK_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000_000])
}

/// What is resolved: everything admitted, one pin and an excluded folder, no budget.
struct Ask {
    marks: Marks,
    policy: Policy,
    measures: Measures,
    listed: Vec<String>,
    unavailable: Vec<(String, String)>,
}

fn ask(cat: &Catalogue) -> Ask {
    let pinned = cat
        .iter()
        .nth(cat.len() / 3)
        .map(|(_, i)| i.uri().to_string());
    let mut marks = Marks::default();
    if let Some(uri) = pinned {
        marks.set(Target::exact("synthetic", uri), Some(Mark::Pin));
    }
    marks.set(
        Target::prefix("synthetic", "file:///project/tests/"),
        Some(Mark::Exclude),
    );
    Ask {
        marks,
        policy: Policy {
            audience: Audience::Any,
            ..Policy::default()
        },
        measures: Measures::new(),
        listed: vec!["synthetic".into()],
        unavailable: Vec::new(),
    }
}

/// Times `step` once per iteration with `prepare`'s input (untimed), keeping every single
/// run's time for the median.
fn timed<T>(
    times: &RefCell<Vec<Duration>>,
    iters: u64,
    mut prepare: impl FnMut() -> T,
    mut step: impl FnMut(T),
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        let input = prepare();
        let start = Instant::now();
        step(input);
        let took = start.elapsed();
        times.borrow_mut().push(took);
        total += took;
    }
    total
}

fn bench_resolve(c: &mut Criterion) {
    for n in sizes() {
        let cat = synth::catalogue(n);
        let server = 0;
        let ask = ask(&cat);
        let names = vec![cat.server_name(server).clone()];
        println!(
            "{n} resources, one server ({})",
            if cfg!(debug_assertions) {
                "DEBUG build"
            } else {
                "release build"
            }
        );
        let mut group = c.benchmark_group(format!("resolve/{n}"));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(100));
        group.measurement_time(Duration::from_secs(if n >= 1_000_000 { 20 } else { 5 }));
        let mut medians = Vec::new();

        let times = RefCell::new(Vec::new());
        let snapshot = cat.snapshot();
        group.bench_function("sorting path", |b| {
            b.iter_custom(|iters| {
                timed(
                    &times,
                    iters,
                    || (),
                    |()| {
                        let cands = candidates_in(&snapshot, &names);
                        let sources = Sources::from_lists(cands, &ask.listed, &ask.unavailable);
                        std::hint::black_box(sources.resolve(
                            &ask.marks,
                            &ask.policy,
                            &ask.measures,
                        ));
                    },
                )
            })
        });
        medians.push(stats("a whole resolution, sorting path", &mut times.take()));

        let order = Arc::new(RankOrder::of(&snapshot));
        let tick = RefCell::new(0usize);
        // Each run changes a copy of the catalogue (its chunks shared) and advances the same
        // order, so every run is one change to a catalogue of n.
        let mut advance = |label: &str, change: &dyn Fn(&mut Catalogue, usize)| {
            let times = RefCell::new(Vec::new());
            group.bench_function(label, |b| {
                b.iter_custom(|iters| {
                    timed(
                        &times,
                        iters,
                        || {
                            let mut changed = cat.clone();
                            *tick.borrow_mut() += 1;
                            change(&mut changed, *tick.borrow());
                            let touched = changed.touched_since(order.extent());
                            (changed.snapshot(), touched)
                        },
                        |(snapshot, touched)| {
                            let next = order.advance(&snapshot, touched.as_deref());
                            assert!(matches!(next.made(), RankUpdate::Merged { .. }), "merged");
                            std::hint::black_box(next);
                        },
                    )
                })
            });
            let median = stats(
                &format!("advance the kept order, {label}"),
                &mut times.take(),
            );
            medians.push(median);
        };
        advance("one appended", &|cat, tick| {
            let uri = format!("demo://live/{tick}");
            cat.append(server, &[Resource::new(uri, format!("live-{tick}"))]);
        });
        advance("one removed", &|cat, tick| {
            let position = (tick * 7919) % cat.server_len(server);
            let edit = ListingEdit {
                removed: vec![position as u32],
                ..ListingEdit::default()
            };
            cat.apply(server, &edit);
        });
        advance("one changed", &|cat, tick| {
            let id = ItemId {
                server,
                index: ((tick * 104_729) % cat.len()) as u32,
            };
            let uri = cat.get(id).expect("a resource").uri().to_string();
            let changed = Resource::new(uri, format!("changed-{tick}")).with_size(99);
            let edit = ListingEdit {
                changed: vec![changed],
                ..ListingEdit::default()
            };
            cat.apply(server, &edit);
        });

        let times = RefCell::new(Vec::new());
        assert_eq!(order.extent(), &snapshot.extent());
        group.bench_function("walk over the kept order", |b| {
            b.iter_custom(|iters| {
                timed(
                    &times,
                    iters,
                    || (),
                    |()| {
                        let sources =
                            Sources::ranked(&order, &snapshot, &ask.listed, &ask.unavailable);
                        std::hint::black_box(sources.resolve(
                            &ask.marks,
                            &ask.policy,
                            &ask.measures,
                        ));
                    },
                )
            })
        });
        medians.push(stats(
            "a whole resolution, walk over the kept order",
            &mut times.take(),
        ));
        group.finish();

        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let (sorting, walk) = (medians[0], medians[4]);
        let worst_advance = medians[1..4].iter().max().copied().unwrap_or_default();
        println!(
            "per list change at {n}: sorting path {:.3} ms; advance + walk {:.3} ms ({:.1}× less)",
            ms(sorting),
            ms(worst_advance + walk),
            sorting.as_secs_f64() / (worst_advance + walk).as_secs_f64().max(1e-9),
        );
    }
}

criterion_group!(benches, bench_resolve);
criterion_main!(benches);
