//! Deliberate misbehaviour, so clients can be tested against broken servers.
//!
//! One counter of resource requests drives four faults: crash (exit 1), garbage (one
//! non-JSON line on stdout, stdio only), invalid JSON (one reply carrying a bare `Infinity`,
//! stdio only) and hang (never answer again). With a limit of `N`,
//! the first `N` requests are answered normally and the fault strikes on request `N + 1`.

use std::{
    io,
    pin::Pin,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    task::{Context, Poll, ready},
};

use tokio::io::AsyncWrite;

/// The line written by `--garbage-after`.
pub(crate) const GARBAGE_LINE: &[u8] = b"this is not json {{{\n";

/// What to do with a request, given its 1-based number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fault {
    None,
    Crash,
    Garbage,
    InvalidJson,
    Hang,
}

/// Request counter and fault thresholds; shared by every connection of one server process.
#[derive(Debug, Default)]
pub(crate) struct Misbehave {
    requests: AtomicU64,
    crash_after: Option<u64>,
    garbage_after: Option<u64>,
    hang_after: Option<u64>,
    invalid_json_after: Option<u64>,
    /// Set when the garbage line is due; the stdout wrapper clears it when it writes it.
    garbage_due: Arc<AtomicBool>,
    /// Set when the next reply is to be spoiled; the stdout wrapper clears it.
    invalid_due: Arc<AtomicBool>,
    hung: AtomicBool,
}

impl Misbehave {
    pub(crate) fn new(
        crash_after: Option<u64>,
        garbage_after: Option<u64>,
        hang_after: Option<u64>,
    ) -> Self {
        Misbehave {
            crash_after,
            garbage_after,
            hang_after,
            ..Default::default()
        }
    }

    /// Spoil the reply to request `N + 1` (see [`GarbageWriter::with_invalid_json`]).
    pub(crate) fn with_invalid_json_after(mut self, limit: Option<u64>) -> Self {
        self.invalid_json_after = limit;
        self
    }

    /// The flag a [`GarbageWriter`] watches.
    pub(crate) fn garbage_flag(&self) -> Arc<AtomicBool> {
        self.garbage_due.clone()
    }

    /// The flag [`GarbageWriter::with_invalid_json`] watches.
    pub(crate) fn invalid_json_flag(&self) -> Arc<AtomicBool> {
        self.invalid_due.clone()
    }

    /// Resource requests counted so far.
    #[cfg(test)]
    pub(crate) fn requests(&self) -> u64 {
        self.requests.load(Ordering::SeqCst)
    }

    /// The fault due for request number `n` (1-based); pure, for testing.
    pub(crate) fn fault_for(&self, n: u64) -> Fault {
        if self.crash_after.is_some_and(|limit| n > limit) {
            Fault::Crash
        } else if self.hang_after.is_some_and(|limit| n > limit) {
            Fault::Hang
        } else if self.garbage_after.is_some_and(|limit| n == limit + 1) {
            Fault::Garbage
        } else if self.invalid_json_after.is_some_and(|limit| n == limit + 1) {
            Fault::InvalidJson
        } else {
            Fault::None
        }
    }

    /// Counts one resource request and applies its fault: may exit the process or never
    /// return.
    pub(crate) async fn count_request(&self) {
        let n = self.requests.fetch_add(1, Ordering::SeqCst) + 1;
        match self.fault_for(n) {
            Fault::None => {}
            Fault::Crash => {
                let limit = self.crash_after.unwrap_or_default();
                eprintln!("demo-server: crashing on purpose after {limit} requests");
                std::process::exit(1);
            }
            Fault::Garbage => self.garbage_due.store(true, Ordering::SeqCst),
            Fault::InvalidJson => self.invalid_due.store(true, Ordering::SeqCst),
            Fault::Hang => self.hung.store(true, Ordering::SeqCst),
        }
        self.hang_if_hung().await;
    }

    /// Once hung, every request (pings included) waits forever.
    pub(crate) async fn hang_if_hung(&self) {
        if self.hung.load(Ordering::SeqCst) {
            std::future::pending::<()>().await;
        }
    }
}

/// Wraps stdout and writes [`GARBAGE_LINE`] once, at a message boundary, after the flag is
/// set: i.e. at the start of a write when the previous write ended with `\n`. With
/// [`Self::with_invalid_json`], it also spoils the next reply after that flag is set.
pub(crate) struct GarbageWriter<W> {
    inner: W,
    due: Arc<AtomicBool>,
    invalid_due: Option<Arc<AtomicBool>>,
    at_boundary: bool,
    /// Bytes to write before anything else, and how many are written.
    injecting: Option<(Vec<u8>, usize)>,
    /// The line being held back to be spoiled.
    holding: Option<Vec<u8>>,
}

impl<W> GarbageWriter<W> {
    pub(crate) fn new(inner: W, due: Arc<AtomicBool>) -> Self {
        GarbageWriter {
            inner,
            due,
            invalid_due: None,
            at_boundary: true,
            injecting: None,
            holding: None,
        }
    }

    /// When `due` is set, the next reply line gets a bare `Infinity` in its result (what
    /// Python's `json.dumps` writes for `float("inf")`), which is not JSON.
    pub(crate) fn with_invalid_json(mut self, due: Arc<AtomicBool>) -> Self {
        self.invalid_due = Some(due);
        self
    }
}

/// A reply line with a bare `Infinity` in its result; other lines unchanged.
fn spoil(line: Vec<u8>) -> Option<Vec<u8>> {
    const RESULT: &[u8] = b"\"result\":{";
    let at = line.windows(RESULT.len()).position(|w| w == RESULT)? + RESULT.len();
    let mut spoiled = line[..at].to_vec();
    spoiled.extend_from_slice(b"\"score\":Infinity,");
    spoiled.extend_from_slice(&line[at..]);
    Some(spoiled)
}

impl<W: AsyncWrite + Unpin> GarbageWriter<W> {
    /// Writes out pending injected bytes.
    fn poll_inject(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let Some((bytes, done)) = &mut self.injecting {
            if *done == bytes.len() {
                self.injecting = None;
                break;
            }
            match ready!(Pin::new(&mut self.inner).poll_write(cx, &bytes[*done..])) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(n) => *done += n,
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for GarbageWriter<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.poll_inject(cx))?;
        if this.at_boundary && this.holding.is_none() {
            if this.due.swap(false, Ordering::SeqCst) {
                this.injecting = Some((GARBAGE_LINE.to_vec(), 0));
                ready!(this.poll_inject(cx))?;
            }
            if this
                .invalid_due
                .as_ref()
                .is_some_and(|due| due.swap(false, Ordering::SeqCst))
            {
                this.holding = Some(Vec::new());
            }
        }
        if let Some(held) = &mut this.holding {
            let take = buf
                .iter()
                .position(|b| *b == b'\n')
                .map_or(buf.len(), |i| i + 1);
            held.extend_from_slice(&buf[..take]);
            if held.ends_with(b"\n") {
                let line = this.holding.take().unwrap_or_default();
                match spoil(line.clone()) {
                    Some(spoiled) => this.injecting = Some((spoiled, 0)),
                    None => {
                        // Not a reply (a notification): pass it and wait for the reply.
                        this.injecting = Some((line, 0));
                        this.holding = Some(Vec::new());
                    }
                }
                this.at_boundary = true;
            }
            return Poll::Ready(Ok(take));
        }
        let n = ready!(Pin::new(&mut this.inner).poll_write(cx, buf))?;
        if n > 0 {
            this.at_boundary = buf[n - 1] == b'\n';
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_inject(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_inject(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncWriteExt;

    use super::*;

    #[test]
    fn faults_strike_after_n_requests() {
        let m = Misbehave::new(None, Some(2), None);
        let faults: Vec<_> = (1..=5).map(|n| m.fault_for(n)).collect();
        assert_eq!(
            faults,
            [
                Fault::None,
                Fault::None,
                Fault::Garbage,
                Fault::None,
                Fault::None
            ]
        );
        let m = Misbehave::new(Some(3), None, Some(1));
        assert_eq!(m.fault_for(1), Fault::None);
        assert_eq!(m.fault_for(2), Fault::Hang);
        assert_eq!(m.fault_for(4), Fault::Crash);
        let m = Misbehave::new(Some(0), None, None);
        assert_eq!(m.fault_for(1), Fault::Crash);
        assert_eq!(Misbehave::default().fault_for(u64::MAX), Fault::None);
    }

    #[tokio::test]
    async fn counting_raises_the_garbage_flag_once() {
        let m = Misbehave::new(None, Some(1), None);
        let flag = m.garbage_flag();
        m.count_request().await;
        assert!(!flag.load(Ordering::SeqCst));
        m.count_request().await;
        assert!(flag.swap(false, Ordering::SeqCst));
        m.count_request().await;
        assert!(!flag.load(Ordering::SeqCst));
        assert_eq!(m.requests(), 3);
    }

    #[tokio::test]
    async fn garbage_is_injected_once_between_messages() {
        let due = Arc::new(AtomicBool::new(false));
        let mut w = GarbageWriter::new(Vec::new(), due.clone());
        w.write_all(b"{\"a\":1}\n").await.unwrap();
        w.write_all(b"{\"b\":").await.unwrap();
        due.store(true, Ordering::SeqCst);
        // Mid-message: not yet.
        w.write_all(b"2}\n").await.unwrap();
        w.write_all(b"{\"c\":3}\n").await.unwrap();
        w.write_all(b"{\"d\":4}\n").await.unwrap();
        let out = String::from_utf8(w.inner).unwrap();
        assert_eq!(
            out,
            "{\"a\":1}\n{\"b\":2}\nthis is not json {{{\n{\"c\":3}\n{\"d\":4}\n"
        );
        assert!(!due.load(Ordering::SeqCst));
    }

    #[tokio::test]
    async fn the_next_reply_is_spoiled_once() {
        let invalid = Arc::new(AtomicBool::new(false));
        let mut w =
            GarbageWriter::new(Vec::new(), Arc::default()).with_invalid_json(invalid.clone());
        w.write_all(b"{\"id\":1,\"result\":{}}\n").await.unwrap();
        invalid.store(true, Ordering::SeqCst);
        w.write_all(b"{\"method\":\"n\"}\n").await.unwrap();
        w.write_all(b"{\"id\":2,").await.unwrap();
        w.write_all(b"\"result\":{\"a\":1}}\n{\"id\":3,\"result\":{}}\n")
            .await
            .unwrap();
        w.write_all(b"{\"id\":3,\"result\":{}}\n").await.unwrap();
        w.flush().await.unwrap();
        let out = String::from_utf8(w.inner).unwrap();
        assert_eq!(
            out,
            "{\"id\":1,\"result\":{}}\n{\"method\":\"n\"}\n{\"id\":2,\"result\":{\"score\":Infinity,\"a\":1}}\n{\"id\":3,\"result\":{}}\n{\"id\":3,\"result\":{}}\n"
        );
        assert!(!invalid.load(Ordering::SeqCst));
    }
}
