//! Which of mcpick's threads give way. The browser's UI thread shares the machine's cores
//! with work done for it in the background (a search scanning a million resources on every
//! core, a resolution, handing memory back); the scheduler treats them all alike, so a key's
//! frame waited while they ran out their time slices (`MCPICK_TRACE_KEYS`: the UI thread taken
//! off the CPU for 4–10 ms of a key's 15–19 ms, with under 2 ms of its own work; see
//! `docs/performance.md`). Background threads run at a lower priority instead: they take
//! every cycle the UI thread does not want, and give the core up when it wants one.

/// How much lower (a nice value, 0 to 19): the UI thread weighs about ten times as much as a
/// thread at 10 when both want a core.
const BACKGROUND_NICE: i32 = 10;

/// Lowers the calling thread's priority (threads it starts afterwards inherit it). Cannot be
/// undone without privileges: call it only on threads that do background work alone.
pub fn background() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority only read and set the calling thread's own attributes.
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
        libc::setpriority(libc::PRIO_PROCESS, tid, BACKGROUND_NICE);
    }
}
