//! How mcpick uses glibc's allocator. A browser holding a million resources allocates its
//! items on one thread while pages are parsed on others; with glibc's default of an arena per
//! thread (up to 8 × cores), the freed pages of each arena stay scattered and held. Measured
//! with `benches/browser_rss.sh` at 1M (release, this 2-core machine, one run each): glibc's
//! arenas 442 B/resource with the agent view open, 455 with a budget, 575 at the peak; one
//! arena 413, 427 and 556. The price: the two threads share one arena's lock, and 1M take
//! 1.3–1.4 times as long to list (`benches/browser_ready.sh`, medians of three: 17.4 s against
//! 14.5, 17.9 against 13.6; 13.9 against 10.0 earlier in the day); `ls --json` 15.3 s
//! instead of 14.3, so only the browser uses one arena.

/// Keeps every thread on one malloc arena, unless `MALLOC_ARENA_MAX` says otherwise (a
/// person's own tuning wins). Call before any thread starts.
pub fn one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt only changes the allocator's tuning; called before other threads run.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
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
