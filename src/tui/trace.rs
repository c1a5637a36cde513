//! What the UI thread did between a key and its frame: `MCPICK_TRACE_KEYS=FILE` appends one
//! line per key to FILE, from the moment the input thread read the key to the moment its frame
//! was flushed, with the loop's phases that overlapped that time (each message taken, the
//! bursts drained by kind, the effects run, the frames drawn: wall time, the UI thread's CPU
//! time, and how often it blocked or was preempted meanwhile) and the work other threads did
//! in it that is known to contend with it (the heap handed back, resolutions, sorts).
//!
//! Unset, a [`Keys`] is `None` inside and every call returns at once: no clock is read.
//!
//! A line, offsets in ms from the key's read:
//! `key 12 Down 94.1 ms: cpu 3.2 ms, 4 waits, 9 preempted | -5.1 server.edited 80.3 ms (cpu 2.0, 3 waits, 7 preempted) | +75.4 draw 0.4 ms | other threads: +2.0 malloc_trim 70.1 ms`.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::app::{Effect, Msg, ServerEvent};

/// Phases kept, newest last (a key's window rarely holds more than a few dozen).
const KEPT: usize = 512;

/// The UI thread's CPU time and context switches so far.
#[derive(Clone, Copy, Default)]
struct Usage {
    cpu: Duration,
    /// Gave the CPU up waiting (a lock, I/O).
    waits: i64,
    /// Was taken off the CPU for another thread.
    preempted: i64,
}

impl Usage {
    #[cfg(not(target_os = "linux"))]
    fn now() -> Self {
        Usage::default()
    }

    #[cfg(target_os = "linux")]
    fn now() -> Self {
        // SAFETY: getrusage writes one rusage.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: a valid pointer to a rusage.
        if unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) } != 0 {
            return Usage::default();
        }
        let time = |t: libc::timeval| {
            Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
        };
        Usage {
            cpu: time(usage.ru_utime) + time(usage.ru_stime),
            waits: usage.ru_nvcsw,
            preempted: usage.ru_nivcsw,
        }
    }

    fn since(self, earlier: Usage) -> Usage {
        Usage {
            cpu: self.cpu.saturating_sub(earlier.cpu),
            waits: self.waits - earlier.waits,
            preempted: self.preempted - earlier.preempted,
        }
    }
}

/// One phase of the loop.
struct Phase {
    name: &'static str,
    detail: String,
    start: Instant,
    end: Instant,
    usage: Usage,
}

/// A phase begun ([`Keys::begin`]).
pub struct Begun {
    start: Instant,
    usage: Usage,
}

/// A key read and not yet drawn.
struct Pending {
    seq: u64,
    key: String,
    read: Instant,
}

struct Tracing {
    file: std::fs::File,
    phases: VecDeque<Phase>,
    pending: Option<Pending>,
    seq: u64,
}

/// The per-key trace of the event loop (see the module's text).
pub struct Keys(Option<Tracing>);

/// Spans of other threads, kept while tracing.
static OTHERS_ON: AtomicBool = AtomicBool::new(false);
/// (id, name, start, end: `None` while it runs).
type OtherSpan = (u64, &'static str, Instant, Option<Instant>);
static OTHERS: Mutex<VecDeque<OtherSpan>> = Mutex::new(VecDeque::new());
static OTHER_IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A span of work on another thread ([`other`]), ended when dropped.
pub struct Other(Option<u64>);

/// Records `name` from now until the guard is dropped, if keys are traced.
pub fn other(name: &'static str) -> Other {
    if !OTHERS_ON.load(Ordering::Relaxed) {
        return Other(None);
    }
    let id = OTHER_IDS.fetch_add(1, Ordering::Relaxed);
    let mut others = crate::sync::Locked::locked(&OTHERS);
    if others.len() >= KEPT {
        others.pop_front();
    }
    others.push_back((id, name, Instant::now(), None));
    Other(Some(id))
}

impl Drop for Other {
    fn drop(&mut self) {
        if let Some(id) = self.0.take() {
            let mut others = crate::sync::Locked::locked(&OTHERS);
            if let Some(span) = others.iter_mut().rev().find(|s| s.0 == id) {
                span.3 = Some(Instant::now());
            }
        }
    }
}

/// A message's kind, as the trace names it.
pub fn kind(msg: &Msg) -> &'static str {
    match msg {
        Msg::Key(_) => "key",
        Msg::Mouse(_) => "mouse",
        Msg::Resize(..) => "resize",
        Msg::Paste(_) => "paste",
        Msg::Server { event, .. } => match event {
            ServerEvent::Connected { .. } => "server.connected",
            ServerEvent::Page { .. } => "server.page",
            ServerEvent::Relisting { .. } => "server.relisting",
            ServerEvent::Listed { .. } => "server.listed",
            ServerEvent::Failed(_) => "server.failed",
            ServerEvent::Relisted { .. } => "server.relisted",
            ServerEvent::Edited(_) => "server.edited",
            ServerEvent::Updated(_) => "server.updated",
            ServerEvent::Retrying { .. } => "server.retrying",
            _ => "server.other",
        },
        Msg::SearchResults(_) => "search_results",
        Msg::Sorted { .. } => "sorted",
        Msg::Contents { .. } => "contents",
        Msg::Log { .. } => "log",
        Msg::Resolved(_) => "resolved",
        Msg::Measured { .. } => "measured",
        _ => "other",
    }
}

/// Effects' kinds, for the phase that runs them.
pub fn effects(effects: &[Effect]) -> Vec<&'static str> {
    effects
        .iter()
        .map(|e| match e {
            Effect::Connect { .. } => "connect",
            Effect::Search { .. } => "search",
            Effect::Sort { .. } => "sort",
            Effect::Resolve(_) => "resolve",
            Effect::Read { .. } => "read",
            Effect::ReleaseMemory => "release_memory",
            Effect::Save { .. } => "save",
            _ => "other",
        })
        .collect()
}

/// Counts by kind for a drained burst.
#[derive(Default)]
pub struct Burst {
    kinds: Vec<(&'static str, u32, Duration)>,
}

impl Burst {
    pub fn add(&mut self, kind: &'static str, took: Duration) {
        match self.kinds.iter_mut().find(|k| k.0 == kind) {
            Some(k) => {
                k.1 += 1;
                k.2 += took;
            }
            None => self.kinds.push((kind, 1, took)),
        }
    }

    fn describe(&self) -> String {
        self.kinds
            .iter()
            .map(|(kind, n, took)| format!("{kind}×{n} {:.1}", ms(*took)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn offset(t: Instant, from: Instant) -> f64 {
    if t >= from {
        ms(t - from)
    } else {
        -ms(from - t)
    }
}

impl Keys {
    /// Traces to the file `MCPICK_TRACE_KEYS` names, if it is set and can be opened.
    pub fn from_env() -> Self {
        let Some(path) = std::env::var_os("MCPICK_TRACE_KEYS") else {
            return Keys(None);
        };
        let Ok(file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        else {
            return Keys(None);
        };
        OTHERS_ON.store(true, Ordering::Relaxed);
        Keys(Some(Tracing {
            file,
            phases: VecDeque::with_capacity(KEPT),
            pending: None,
            seq: 0,
        }))
    }

    pub fn on(&self) -> bool {
        self.0.is_some()
    }

    /// A phase starts.
    pub fn begin(&self) -> Option<Begun> {
        self.0.as_ref().map(|_| Begun {
            start: Instant::now(),
            usage: Usage::now(),
        })
    }

    /// The phase ended; `detail` is only made when tracing.
    pub fn end(
        &mut self,
        begun: Option<Begun>,
        name: &'static str,
        detail: impl FnOnce() -> String,
    ) {
        let (Some(t), Some(begun)) = (&mut self.0, begun) else {
            return;
        };
        if t.phases.len() >= KEPT {
            t.phases.pop_front();
        }
        t.phases.push_back(Phase {
            name,
            detail: detail(),
            start: begun.start,
            end: Instant::now(),
            usage: Usage::now().since(begun.usage),
        });
    }

    /// A drained burst's phase.
    pub fn end_burst(&mut self, begun: Option<Begun>, burst: &Burst) {
        if burst.kinds.is_empty() {
            return;
        }
        self.end(begun, "drain", || burst.describe());
    }

    /// A key was taken from the input, read at `read`.
    pub fn key(&mut self, msg: &Msg, read: Instant) {
        let Some(t) = &mut self.0 else { return };
        let Msg::Key(k) = msg else { return };
        let seq = t.seq;
        t.seq += 1;
        t.pending = Some(Pending {
            seq,
            key: format!("{:?}", k.code),
            read,
        });
    }

    /// The frame after a key was flushed: its line is written.
    pub fn flushed(&mut self) {
        let Some(t) = &mut self.0 else { return };
        let Some(key) = t.pending.take() else { return };
        let now = Instant::now();
        let shown: Vec<&Phase> = t.phases.iter().filter(|p| p.end > key.read).collect();
        let mut usage = Usage::default();
        for p in &shown {
            usage.cpu += p.usage.cpu;
            usage.waits += p.usage.waits;
            usage.preempted += p.usage.preempted;
        }
        let mut line = format!(
            "key {} {} {:.1} ms: cpu {:.1} ms, {} waits, {} preempted",
            key.seq,
            key.key,
            ms(now - key.read),
            ms(usage.cpu),
            usage.waits,
            usage.preempted
        );
        for p in shown {
            line.push_str(&format!(
                " | {:+.1} {} {:.1} ms (cpu {:.1}, {} waits, {} preempted)",
                offset(p.start, key.read),
                p.name,
                ms(p.end - p.start),
                ms(p.usage.cpu),
                p.usage.waits,
                p.usage.preempted
            ));
            if !p.detail.is_empty() {
                line.push_str(&format!(" [{}]", p.detail));
            }
        }
        let others: Vec<String> = crate::sync::Locked::locked(&OTHERS)
            .iter()
            .filter(|(_, _, start, end)| end.is_none_or(|e| e > key.read) && *start < now)
            .map(|(_, name, start, end)| match end {
                Some(end) => format!(
                    "{:+.1} {name} {:.1} ms",
                    offset(*start, key.read),
                    ms(*end - *start)
                ),
                None => format!("{:+.1} {name} still running", offset(*start, key.read)),
            })
            .collect();
        if !others.is_empty() {
            line.push_str(" | other threads: ");
            line.push_str(&others.join(", "));
        }
        line.push('\n');
        let _ = t.file.write_all(line.as_bytes());
    }
}
