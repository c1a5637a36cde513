//! Resident memory per resource: builds a synthetic catalogue (page by page, as a server
//! would send it) plus its URI tree, and reports RSS growth per resource. Each size runs in a
//! fresh child process so sizes don't share a heap. Budget (DESIGN.md): ≤ 600 bytes per
//! resource at 100k.
//!
//! `cargo bench --bench memory` prints a table; `MCPICK_BENCH_SIZES` limits the sizes.

use std::process::Command;

const BUDGET_BYTES: f64 = 600.0;

fn rss_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("read /proc/self/statm");
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    // SAFETY: sysconf has no preconditions.
    pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as u64
}

fn trim() {
    // Hand freed pages back to the kernel so RSS counts what is live, not what malloc kept.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory.
    unsafe {
        libc::malloc_trim(0);
    }
}

fn measure(n: usize) {
    trim();
    let before = rss_bytes();
    let catalogue = mcpick::demo::synth::catalogue(n);
    trim();
    let with_catalogue = rss_bytes();
    let mut tree = mcpick::catalog::UriTree::build(&catalogue);
    tree.refresh();
    trim();
    let after = rss_bytes();
    let per = |bytes: u64| bytes as f64 / n as f64;
    println!(
        "{n:>9}  {:>10.0}  {:>10.0}  {:>10.0}  {}",
        per(with_catalogue - before),
        per(after - with_catalogue),
        per(after - before),
        if per(after - before) <= BUDGET_BYTES {
            "ok"
        } else {
            "OVER BUDGET"
        }
    );
    std::hint::black_box((&catalogue, &tree));
}

fn main() {
    if let Ok(n) = std::env::var("MCPICK_MEMORY_CHILD") {
        measure(n.parse().unwrap());
        return;
    }
    // `cargo bench` passes `--bench`; anything else (e.g. `cargo test --benches`) is a dry run.
    let sizes: Vec<usize> = std::env::var("MCPICK_BENCH_SIZES")
        .ok()
        .map(|s| s.split(',').filter_map(|n| n.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![10_000, 100_000, 1_000_000]);
    let sizes = if std::env::args().any(|a| a == "--bench") {
        sizes
    } else {
        vec![1_000]
    };
    println!("resident bytes per resource (budget {BUDGET_BYTES} at 100k)");
    println!(
        "{:>9}  {:>10}  {:>10}  {:>10}",
        "resources", "catalogue", "tree", "total"
    );
    let exe = std::env::current_exe().unwrap();
    for n in sizes {
        let status = Command::new(&exe)
            .env("MCPICK_MEMORY_CHILD", n.to_string())
            .status()
            .expect("run the measurement");
        assert!(status.success());
    }
}
