//! Catalogue engine benchmarks on synthetic catalogues of 1k, 10k, 100k and 1M resources.
//!
//! - `typing`: one iteration types a query keystroke by keystroke and waits for complete
//!   results after each (narrowing like the TUI does); throughput is keystrokes per second.
//! - `keystroke`: results-complete time of single keystrokes: the broad first keystrokes that
//!   scan everything, and a query that matches nothing.
//! - `tree`: building the URI tree, flattening it with every folder open, reading a window.
//!
//! Both matchers run side by side in the same run. `MCPICK_BENCH_SIZES=1000,100000` limits
//! the sizes.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use mcpick::catalog::{Catalogue, MatcherKind, Search, UriTree};
use mcpick::demo::synth;

const TYPED: &str = "mcp mod";
const NO_MATCH: &str = "qzxj";
const BROAD: [&str; 3] = ["s", "rs", "src"];

fn sizes() -> Vec<usize> {
    std::env::var("MCPICK_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000, 1_000_000])
}

fn catalogues() -> Vec<(usize, Catalogue)> {
    sizes()
        .into_iter()
        .map(|n| (n, synth::catalogue(n)))
        .collect()
}

fn matchers() -> [(&'static str, MatcherKind); 2] {
    [
        ("nucleo", MatcherKind::Nucleo),
        ("fuzzy-matcher", MatcherKind::Skim),
    ]
}

/// Types `query` one character at a time, each keystroke waiting for complete results.
fn type_query(search: &Search, cat: &Catalogue, query: &str) -> usize {
    let snapshot = cat.snapshot();
    let mut previous: Option<(String, Vec<mcpick::catalog::Match>)> = None;
    for end in query.char_indices().map(|(i, c)| i + c.len_utf8()) {
        let q = &query[..end];
        let results = match &previous {
            Some((old, matches)) if search.kind.narrows(old, q) => {
                search.narrow(&snapshot, q, matches)
            }
            _ => search.find(&snapshot, q),
        };
        previous = Some((q.to_string(), results));
    }
    previous.map_or(0, |(_, m)| m.len())
}

fn configure(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    n: usize,
) {
    group.sample_size(if n >= 1_000_000 {
        10
    } else if n >= 100_000 {
        20
    } else {
        50
    });
    group.measurement_time(Duration::from_secs(if n >= 1_000_000 { 10 } else { 3 }));
    group.warm_up_time(Duration::from_millis(500));
}

fn bench_search(c: &mut Criterion) {
    for (n, cat) in catalogues() {
        let mut group = c.benchmark_group("typing");
        configure(&mut group, n);
        group.throughput(Throughput::Elements(TYPED.chars().count() as u64));
        for (name, kind) in matchers() {
            let search = Search {
                kind,
                ..Search::default()
            };
            group.bench_with_input(BenchmarkId::new(name, n), &cat, |b, cat| {
                b.iter(|| black_box(type_query(&search, cat, TYPED)))
            });
        }
        group.finish();

        let mut group = c.benchmark_group("keystroke");
        configure(&mut group, n);
        let snapshot = cat.snapshot();
        for (name, kind) in matchers() {
            let search = Search {
                kind,
                ..Search::default()
            };
            for query in BROAD.iter().chain([&NO_MATCH]) {
                group.bench_with_input(
                    BenchmarkId::new(format!("{name}/{query}"), n),
                    &snapshot,
                    |b, snapshot| b.iter(|| black_box(search.find(snapshot, query).len())),
                );
            }
        }
        group.finish();
    }
}

fn bench_tree(c: &mut Criterion) {
    for (n, cat) in catalogues() {
        let mut group = c.benchmark_group("tree");
        configure(&mut group, n);
        group.bench_with_input(BenchmarkId::new("build", n), &cat, |b, cat| {
            b.iter(|| black_box(UriTree::build(cat).node_count()))
        });
        let mut tree = UriTree::build(&cat);
        group.bench_function(BenchmarkId::new("expand_all_and_flatten", n), |b| {
            b.iter(|| {
                tree.set_all_expanded(true);
                tree.refresh();
                black_box(tree.row_count())
            })
        });
        tree.set_all_expanded(true);
        tree.refresh();
        let middle = tree.row_count() / 2;
        group.bench_function(BenchmarkId::new("window_of_50_rows", n), |b| {
            b.iter(|| {
                let views: Vec<_> = tree
                    .window(middle, 50)
                    .iter()
                    .map(|&r| tree.view(r))
                    .collect();
                black_box(views.len())
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench_search, bench_tree);
criterion_main!(benches);
