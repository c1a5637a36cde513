//! The reaper: what ends stdio servers when mcpick ends in a way that runs none of its code
//! (SIGKILL, the OOM killer, a crash that aborts).
//!
//! It is a small process forked once, on the first stdio spawn. It holds the reading end of a
//! pipe whose only writing end mcpick holds (close-on-exec, so no server inherits it); mcpick
//! tells it each process group it starts and each one it has ended itself. When mcpick is gone,
//! by whatever means, the kernel closes the writing end; the reaper reads end of file, kills
//! every group it was told about, and exits. It sits in a process group of its own, so a
//! signal sent to mcpick's group (Ctrl-C in a shell) does not end it first.
//!
//! The reaper runs in a child of a threaded process, where only async-signal-safe calls are
//! allowed: it reads fixed-size records into a fixed array and calls `read`, `close`,
//! `killpg` and `_exit`, nothing that allocates or locks.
//!
//! On Linux the server itself also gets a parent-death signal ([`parent_death_signal`]), which
//! covers the moment between its start and its registration here.

use std::sync::OnceLock;

/// How many groups the reaper remembers at once (far more than servers ever run together).
const CAPACITY: usize = 4096;

/// The writing end of the pipe to the reaper, or `None` when it could not be started (then
/// only the parent-death signal and mcpick's own exit paths remain).
static REAPER: OnceLock<Option<libc::c_int>> = OnceLock::new();

/// Tells the reaper about a new process group (starting the reaper on first use).
pub(crate) fn watch(pgid: libc::pid_t) {
    send(pgid);
}

/// Tells the reaper a group has been ended already, so a later process reusing its id is
/// never hit.
pub(crate) fn forget(pgid: libc::pid_t) {
    send(-pgid);
}

fn send(record: libc::pid_t) {
    let Some(fd) = *REAPER.get_or_init(start) else {
        return;
    };
    let bytes = record.to_ne_bytes();
    // SAFETY: writes 4 bytes from a live buffer to a descriptor this module owns. Writes of
    // up to PIPE_BUF bytes are atomic, so records never interleave.
    unsafe {
        libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    }
}

/// Forks the reaper and returns the writing end of its pipe.
fn start() -> Option<libc::c_int> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: `pipe` fills the two-element array; the ends get close-on-exec right after.
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return None;
    }
    let [read_end, write_end] = fds;
    for fd in fds {
        // SAFETY: sets a flag on descriptors just created here.
        unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    }
    // SAFETY: the child only runs `reap`, which is async-signal-safe, and never returns.
    match unsafe { libc::fork() } {
        -1 => {
            // SAFETY: closes descriptors created above.
            unsafe {
                libc::close(read_end);
                libc::close(write_end);
            }
            None
        }
        0 => reap(read_end),
        _ => {
            // SAFETY: the reading end belongs to the reaper now.
            unsafe { libc::close(read_end) };
            Some(write_end)
        }
    }
}

/// The reaper's whole life, in the forked child.
fn reap(read_end: libc::c_int) -> ! {
    // SAFETY: only async-signal-safe calls on plain integers and a stack array.
    unsafe {
        #[cfg(target_os = "linux")]
        libc::prctl(libc::PR_SET_NAME, c"mcpick-reaper".as_ptr());
        libc::setpgid(0, 0);
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGHUP, libc::SIG_IGN);
        libc::signal(libc::SIGQUIT, libc::SIG_IGN);
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
        // Keep nothing of mcpick's open: not its terminal, not a server's pipes.
        if libc::dup2(read_end, 0) == 0 {
            close_from(1);
        }
        let mut groups = [0 as libc::pid_t; CAPACITY];
        let mut record = [0u8; 4];
        let mut have = 0usize;
        loop {
            let n = libc::read(0, record.as_mut_ptr().add(have).cast(), 4 - have);
            if n < 0 && *errno() == libc::EINTR {
                continue;
            }
            if n <= 0 {
                break;
            }
            have += n as usize;
            if have < 4 {
                continue;
            }
            have = 0;
            let value = libc::pid_t::from_ne_bytes(record);
            if value > 1 {
                if let Some(slot) = groups.iter_mut().find(|g| **g == 0) {
                    *slot = value;
                }
            } else if value < -1 {
                for slot in groups.iter_mut().filter(|g| **g == -value) {
                    *slot = 0;
                }
            }
        }
        for &group in &groups {
            if group > 1 {
                libc::killpg(group, libc::SIGKILL);
            }
        }
        libc::_exit(0)
    }
}

/// Closes every descriptor from `first` on.
///
/// # Safety
/// Only for the freshly forked reaper.
unsafe fn close_from(first: libc::c_int) {
    #[cfg(target_os = "linux")]
    // SAFETY: close_range only closes descriptors of this process.
    if unsafe {
        libc::syscall(
            libc::SYS_close_range,
            first as libc::c_uint,
            libc::c_uint::MAX,
            0,
        )
    } == 0
    {
        return;
    }
    // SAFETY: getrlimit fills the struct.
    let mut limit = unsafe { std::mem::zeroed::<libc::rlimit>() };
    let max = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0 {
        (limit.rlim_cur as u64).min(1 << 16) as libc::c_int
    } else {
        1024
    };
    for fd in first..max {
        // SAFETY: closing a descriptor that may not exist yields EBADF, ignored.
        unsafe { libc::close(fd) };
    }
}

#[cfg(target_os = "linux")]
unsafe fn errno() -> *mut libc::c_int {
    // SAFETY: the thread's errno location.
    unsafe { libc::__errno_location() }
}

#[cfg(not(target_os = "linux"))]
unsafe fn errno() -> *mut libc::c_int {
    // SAFETY: the thread's errno location.
    unsafe { libc::__error() }
}

/// Makes the kernel SIGKILL the spawned server when the thread that spawned it ends (Linux
/// only; elsewhere a no-op). Servers are spawned from one thread that lives as long as mcpick
/// (see [`super::group`]), so for them that is when mcpick ends.
pub(crate) fn parent_death_signal(command: &mut tokio::process::Command) {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid has no preconditions.
        let parent = unsafe { libc::getpid() };
        // SAFETY: the hook runs in the forked child before exec and only calls prctl and
        // getppid, both async-signal-safe.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // mcpick died between the fork and the prctl: the signal will never come.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = command;
}
