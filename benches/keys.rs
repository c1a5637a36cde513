//! Key → screen latency of the real browser while a million resources stream in, as a person
//! at a terminal meets it.
//!
//! Runs the release binary in a pseudo-terminal (120×40) against the demo server, types while
//! the listing streams in and after it, and times each key from the moment it is written to
//! the terminal to the moment the screen shows its effect. The screen is kept by a terminal
//! emulator (`vt100`) fed with every byte mcpick writes, read as it comes (no polling delay,
//! unlike `tmux capture-pane`, and fast enough not to lag behind: a Python emulator tried
//! first did, and measured itself). Budget (DESIGN.md): input → frame ≤ 16 ms at any size,
//! during loading too.
//!
//! `cargo build --release && cargo bench --bench keys` (`MCPICK_BENCH_SIZES=200000` sets the
//! size, `MCPICK_BIN` the binary, default `target/release/mcpick`; `MCPICK_BENCH_VERBOSE=1`
//! prints every key). Under `cargo test` it does nothing.
//!
//! Keys cycle through Down and Up (the tree cursor moves to another row), `/` (the search
//! line opens), `n o t e` typed, four Backspaces and Esc (the search line closes), one every
//! 150 ms. Latencies are grouped by how many resources were loaded when the key was sent:
//! median, p90 and max.
//!
//! `MCPICK_BENCH_KEYS_AFTER=200` types 200 keys after the listing instead of 60 (about 30 s
//! of keys: a churning server's re-lists land among them).
//!
//! `MCPICK_BENCH_TRACE=5` runs the browser with `MCPICK_TRACE_KEYS` (what its UI thread did
//! between each key and its frame, see `mcpick::tui::trace`) and prints the trace of the 5
//! slowest keys after the figures (a browser without it prints nothing there);
//! `MCPICK_BENCH_TRACE_FILE=PATH` keeps the whole trace there.
//!
//! `MCPICK_BENCH_CHURN=500` runs the test fixture (`mcpick-fixture`, next to the binary) with
//! `--churn 500` (a resource added every 500 ms, announced as a list change): the keys after the listing are typed while it churns,
//! and then, with no keys, the browser's CPU share is measured over
//! `MCPICK_BENCH_CPU_SECS` (default 30) from `/proc/PID/stat` (user + system time over wall
//! time; 1.0 is one core), with the header's count before and after (it must grow). Budget
//! (DESIGN.md): ≤ 0.5 of a core following a million resources that change every 500 ms.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const COLS: u16 = 120;
const ROWS: u16 = 40;
const SEARCH_LINE: usize = 1;
/// Keys typed after the listing, unless `MCPICK_BENCH_KEYS_AFTER` says how many.
const KEYS_AFTER: usize = 60;

struct Browser {
    child: Child,
    master: std::fs::File,
    parser: vt100::Parser,
    lines: Vec<String>,
}

fn open_pty() -> (OwnedFd, OwnedFd) {
    let (mut master, mut slave) = (0, 0);
    let size = libc::winsize {
        ws_row: ROWS,
        ws_col: COLS,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: openpty writes two descriptors into the given integers.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            &size,
        )
    };
    assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors were just opened and are owned here.
    unsafe { (OwnedFd::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) }
}

impl Browser {
    fn start(
        bin: &str,
        count: usize,
        churn: Option<u64>,
        dir: &std::path::Path,
        trace: Option<&std::path::Path>,
    ) -> Self {
        let (master, slave) = open_pty();
        let io = |fd: &OwnedFd| Stdio::from(fd.try_clone().expect("dup the pty"));
        let mut cmd = Command::new(bin);
        match churn {
            // The test fixture, next to mcpick (`cargo build --release` builds both): the
            // demo server with its `--churn`.
            Some(ms) => {
                let fixture = std::path::Path::new(bin).with_file_name("mcpick-fixture");
                cmd.arg("--").arg(fixture);
                cmd.args(["--count", &count.to_string(), "--churn", &ms.to_string()]);
            }
            None => {
                cmd.args(["--", bin, "demo-server", "--count", &count.to_string()]);
            }
        }
        if let Some(trace) = trace {
            cmd.env("MCPICK_TRACE_KEYS", trace);
        }
        cmd.current_dir(dir)
            .env("TERM", "xterm-256color")
            .stdin(io(&slave))
            .stdout(io(&slave))
            .stderr(io(&slave));
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                libc::ioctl(0, libc::TIOCSCTTY, 0);
                Ok(())
            });
        }
        let child = cmd.spawn().expect("start mcpick");
        drop(slave);
        Browser {
            child,
            master: std::fs::File::from(master),
            parser: vt100::Parser::new(ROWS, COLS, 0),
            lines: vec![String::new(); ROWS as usize],
        }
    }

    /// Feeds what mcpick wrote within `timeout` to the screen.
    fn pump(&mut self, timeout: Duration) {
        let mut fds = libc::pollfd {
            fd: self.master.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let ready = unsafe { libc::poll(&mut fds, 1, timeout.as_millis() as i32) };
        if ready <= 0 {
            return;
        }
        let mut buf = [0u8; 1 << 16];
        // SAFETY: reads into a buffer of its length.
        let n = unsafe { libc::read(self.master.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n <= 0 {
            panic!("mcpick ended");
        }
        self.parser.process(&buf[..n as usize]);
        self.lines = self.parser.screen().rows(0, COLS).collect();
    }

    fn wait(&mut self, timeout: Duration, done: impl Fn(&Browser) -> bool) -> bool {
        let deadline = Instant::now() + timeout;
        while !done(self) {
            if Instant::now() > deadline {
                return false;
            }
            self.pump(Duration::from_millis(1));
        }
        true
    }

    /// Where the cursor is: its screen row, the label of its row without counts (they grow
    /// as pages come), and the contents pane's first line (what it is on: labels of rows
    /// that are only numbers, `note/918` and `note/919`, differ there).
    fn cursor_label(&self) -> Option<String> {
        self.lines[3..ROWS as usize - 1]
            .iter()
            .enumerate()
            .find_map(|(i, l)| {
                let mut chars = l.chars();
                chars.next();
                (chars.next() == Some('▶')).then(|| {
                    let label: String = chars
                        .take(51)
                        .filter(|c| !c.is_ascii_digit() && *c != ',')
                        .collect();
                    let shown: String = self.lines[3].chars().skip(54).collect();
                    format!("{i} {} {}", label.trim(), shown.trim())
                })
            })
    }

    /// (resources loaded so far, listing finished).
    fn loaded(&self) -> (usize, bool) {
        let header = &self.lines[0];
        let number = |after: &str| -> Option<usize> {
            let rest = &header[header.find(after)? + after.len()..];
            let digits: String = rest
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == ',')
                .filter(char::is_ascii_digit)
                .collect();
            digits.parse().ok()
        };
        if let Some(n) = number("ready · ") {
            return (n, true);
        }
        if let Some(i) = header.find("loading page ") {
            let rest = &header[i..];
            if let Some(j) = rest.find(" · ") {
                let digits: String = rest[j + " · ".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == ',')
                    .filter(char::is_ascii_digit)
                    .collect();
                return (digits.parse().unwrap_or(0), false);
            }
        }
        (0, false)
    }

    fn send(&mut self, key: &str) {
        self.master.write_all(key.as_bytes()).expect("write a key");
    }

    /// The browser's CPU time so far (user + system), from `/proc/PID/stat`.
    fn cpu_time(&self) -> Duration {
        let pid = self.child.id();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc/PID/stat");
        // After the command name (in parentheses, which may hold spaces): field 3 on.
        let fields: Vec<&str> = stat[stat.rfind(')').expect("a stat line") + 2..]
            .split_whitespace()
            .collect();
        let ticks = |i: usize| fields[i].parse::<u64>().expect("a number of ticks");
        // SAFETY: sysconf reads a constant.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
        // utime and stime are fields 14 and 15.
        Duration::from_secs_f64((ticks(11) + ticks(12)) as f64 / per_second)
    }

    /// The browser's CPU share over `window` with no keys typed (the screen read meanwhile,
    /// as a terminal does), and the header's count at its start and end.
    fn cpu_share(&mut self, window: Duration) -> (f64, usize, usize) {
        let (from, cpu, wall) = (self.loaded().0, self.cpu_time(), Instant::now());
        while wall.elapsed() < window {
            self.pump(Duration::from_millis(20));
        }
        let used = self.cpu_time() - cpu;
        (
            used.as_secs_f64() / wall.elapsed().as_secs_f64(),
            from,
            self.loaded().0,
        )
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a key must do: change the cursor's row, or make the search line start with this.
enum Expect {
    Moves,
    Line(String),
}

fn script() -> Vec<(&'static str, Expect)> {
    let mut keys = vec![
        ("\x1b[B", Expect::Moves),
        ("\x1b[A", Expect::Moves),
        ("/", Expect::Line("/ ▏".into())),
    ];
    let mut query = String::new();
    for c in ["n", "o", "t", "e"] {
        query.push_str(c);
        keys.push((c, Expect::Line(format!("/ {query}▏"))));
    }
    for _ in 0..4 {
        query.pop();
        keys.push(("\x7f", Expect::Line(format!("/ {query}▏"))));
    }
    keys.push(("\x1b", Expect::Line("/ press / to search".into())));
    keys
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return; // `cargo test --benches`: nothing to time
    }
    let count: usize = std::env::var("MCPICK_BENCH_SIZES")
        .ok()
        .and_then(|s| s.split(',').next()?.trim().parse().ok())
        .unwrap_or(1_000_000);
    let bin = std::env::var("MCPICK_BIN").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/target/release/mcpick").to_string()
    });
    let bin = match std::fs::canonicalize(&bin) {
        Ok(path) => path.display().to_string(),
        Err(e) => {
            eprintln!("keys: skipped, no browser to run: {bin}: {e} (cargo build --release first)");
            return;
        }
    };
    let churn: Option<u64> = std::env::var("MCPICK_BENCH_CHURN")
        .ok()
        .and_then(|s| s.trim().parse().ok());
    let dir = tempfile::tempdir().expect("a directory for the set file");
    let traced: usize = std::env::var("MCPICK_BENCH_TRACE")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    // `MCPICK_BENCH_TRACE_FILE` keeps the whole trace (appended to).
    let trace_file = std::env::var_os("MCPICK_BENCH_TRACE_FILE")
        .map_or_else(|| dir.path().join("keys.trace"), std::path::PathBuf::from);
    let mut b = Browser::start(
        &bin,
        count,
        churn,
        dir.path(),
        (traced > 0).then_some(trace_file.as_path()),
    );
    assert!(
        b.wait(Duration::from_secs(30), |b| b.loaded().0 > 0),
        "no page listed in 30 s"
    );
    let started = Instant::now();
    let verbose = std::env::var_os("MCPICK_BENCH_VERBOSE").is_some();
    let keys = script();
    // (resources loaded, listing finished, ms, the key's number among those sent).
    let mut samples: Vec<(usize, bool, f64, usize)> = Vec::new();
    let mut after = 0;
    let keys_after: usize = std::env::var("MCPICK_BENCH_KEYS_AFTER")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(KEYS_AFTER);
    for (key, expect) in keys.iter().cycle() {
        if after >= keys_after {
            break;
        }
        let (loaded, finished) = b.loaded();
        let before = b.cursor_label();
        if matches!(expect, Expect::Moves) && before.is_none() {
            continue;
        }
        let t0 = Instant::now();
        b.send(key);
        let shown = b.wait(Duration::from_secs(10), |b| match expect {
            Expect::Moves => b
                .cursor_label()
                .is_some_and(|l| Some(&l) != before.as_ref()),
            Expect::Line(line) => b.lines[SEARCH_LINE].starts_with(line.as_str()),
        });
        assert!(
            shown,
            "key {key:?} showed no effect in 10 s:\n{}",
            b.lines.join("\n")
        );
        samples.push((
            loaded,
            finished,
            t0.elapsed().as_secs_f64() * 1000.0,
            samples.len(),
        ));
        if verbose {
            eprintln!(
                "{:>6.1} s  {:>6.1} ms  {key:?}  {loaded} loaded{}",
                started.elapsed().as_secs_f64(),
                t0.elapsed().as_secs_f64() * 1000.0,
                if finished { ", listed" } else { "" }
            );
        }
        after += usize::from(finished);
        let pause = Instant::now() + Duration::from_millis(150);
        while Instant::now() < pause {
            b.pump(Duration::from_millis(5));
        }
    }
    let total = b.loaded().0;
    println!(
        "mcpick browser, demo server with {total} resources{}, {COLS}x{ROWS} pty, {:.0} s of keys",
        churn.map_or(String::new(), |ms| format!(" (one added every {ms} ms)")),
        started.elapsed().as_secs_f64()
    );
    println!(
        "{:<40} {:>5} {:>9} {:>9} {:>9}",
        "resources loaded when the key came", "keys", "median", "p90", "max"
    );
    let edges = [0, 100_000, 500_000, usize::MAX];
    let mut groups: Vec<(String, Vec<f64>)> = edges
        .windows(2)
        .map(|w| {
            let label = if w[1] == usize::MAX {
                format!("{} and more (loading)", w[0])
            } else {
                format!("{} to {} (loading)", w[0], w[1])
            };
            let ms = samples
                .iter()
                .filter(|(n, f, _, _)| !f && (w[0]..w[1]).contains(n))
                .map(|s| s.2)
                .collect();
            (label, ms)
        })
        .collect();
    groups.push((
        "after the listing".into(),
        samples.iter().filter(|s| s.1).map(|s| s.2).collect(),
    ));
    for (label, mut ms) in groups {
        if ms.is_empty() {
            continue;
        }
        ms.sort_by(f64::total_cmp);
        let p90 = ms[((ms.len() as f64 * 0.9) as usize).min(ms.len() - 1)];
        println!(
            "{label:<40} {:>5} {:>7.1}ms {:>7.1}ms {:>7.1}ms",
            ms.len(),
            ms[ms.len() / 2],
            p90,
            ms[ms.len() - 1]
        );
    }
    if traced > 0 {
        print_traces(&trace_file, &samples, traced);
    }
    if churn.is_some() {
        let secs: u64 = std::env::var("MCPICK_BENCH_CPU_SECS")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(30);
        let (share, from, to) = b.cpu_share(Duration::from_secs(secs));
        println!(
            "{:<40} {:>5.2} of a core over {secs} s; the header's count {from} → {to}{}",
            "following the churn, no keys",
            share,
            if to > from { "" } else { " (DID NOT GROW)" }
        );
        assert!(
            to > from,
            "the header's count did not grow while the server churned"
        );
    }
}

/// The browser's trace of the `n` slowest keys (its lines start `key N`, N counting the keys
/// it took, as `samples` counts those sent).
fn print_traces(file: &std::path::Path, samples: &[(usize, bool, f64, usize)], n: usize) {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        println!("no key trace (a browser without MCPICK_TRACE_KEYS)");
        return;
    }
    let mut worst: Vec<_> = samples.iter().collect();
    worst.sort_by(|a, b| b.2.total_cmp(&a.2));
    println!(
        "the {n} slowest keys, as the browser's UI thread traced them (ms from the key's read):"
    );
    for (loaded, finished, ms, i) in worst.into_iter().take(n) {
        let prefix = format!("key {i} ");
        let line = lines.iter().find(|l| l.starts_with(&prefix));
        println!(
            "{ms:>7.1} ms at {loaded}{}: {}",
            if *finished { ", listed" } else { "" },
            line.unwrap_or(&"(not traced)")
        );
    }
}
