//! How mcpick uses glibc's allocator. A browser holding a million resources allocates its
//! items on one thread while pages are parsed on others; with glibc's default of an arena per
//! thread (up to 8 × cores), the freed pages of each arena stay scattered and held. Measured
//! with `benches/browser_rss.sh` at 1M (release, this 2-core machine, one run each): glibc's
//! arenas 442 B/resource with the agent view open, 455 with a budget, 575 at the peak; one
//! arena 413, 427 and 556. The price: the two threads share one arena's lock, and 1M take
//! 1.3–1.4 times as long to list (`benches/browser_ready.sh`, medians of three: 17.4 s against
//! 14.5, 17.9 against 13.6; 13.9 against 10.0 earlier in the day); `ls --json` 15.3 s
//! instead of 14.3, so only the browser uses one arena.
//!
//! With one arena, every thread's small frees land in its "fastbins" (freed chunks kept
//! unmerged), and the next large allocation merges them all first (`malloc_consolidate`):
//! after a re-list of a million resources was freed on a runtime thread, a frame's allocation
//! on the UI thread spent 300 ms there (a `perf` sample of the keys bench under churn: 440 of
//! 503 samples of a 322 ms key in `malloc_consolidate` and `unlink_chunk`). Without fastbins a
//! free merges at once (tcache still serves small sizes): the worst key after the listing in
//! `MCPICK_BENCH_CHURN=500 cargo bench --bench keys` went from 277–390 ms (7 runs of 8) to
//! 26–44 ms (3 runs), following the churn at 0.27–0.29 of a core (0.25–0.34 before). Since
//! re-lists are diffed page by page (a page freed at a time, not a million resources at once)
//! the pause did not come back with fastbins either (2 runs, `GLIBC_TUNABLES=
//! glibc.malloc.mxfast=128`: worst 16–40 ms, the same CPU); they stay off for the other mass
//! frees of small blocks (a replaced listing, a dropped catalogue).

/// The browser's allocator: every thread on one malloc arena, and no fastbins, unless
/// `MALLOC_ARENA_MAX` or `GLIBC_TUNABLES` say otherwise (a person's own tuning wins). Call
/// before any thread starts.
pub fn for_browser() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let tuned = |name: &str| std::env::var("GLIBC_TUNABLES").is_ok_and(|t| t.contains(name));
        // SAFETY: mallopt only changes the allocator's tuning; called before other threads run.
        unsafe {
            if std::env::var_os("MALLOC_ARENA_MAX").is_none() && !tuned("arena_max") {
                libc::mallopt(libc::M_ARENA_MAX, 1);
            }
            if !tuned("mxfast") {
                libc::mallopt(libc::M_MXFAST, 0);
            }
        }
    }
}

/// Returns free heap memory to the system (glibc keeps it otherwise: after a million
/// resources' pages, hundreds of MB).
pub fn release() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory of the allocator's own arenas.
    unsafe {
        libc::malloc_trim(0);
    }
}
