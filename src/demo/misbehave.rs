//! Deliberate misbehaviour, so clients can be tested against broken servers.
//!
//! One counter of resource requests drives three faults: crash (exit 1), garbage (one
//! non-JSON line on stdout, stdio only) and hang (never answer again). With a limit of `N`,
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
    Hang,
}

/// Request counter and fault thresholds; shared by every connection of one server process.
#[derive(Debug, Default)]
pub(crate) struct Misbehave {
    requests: AtomicU64,
    crash_after: Option<u64>,
    garbage_after: Option<u64>,
    hang_after: Option<u64>,
    /// Set when the garbage line is due; the stdout wrapper clears it when it writes it.
    garbage_due: Arc<AtomicBool>,
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

    /// The flag a [`GarbageWriter`] watches.
    pub(crate) fn garbage_flag(&self) -> Arc<AtomicBool> {
        self.garbage_due.clone()
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
/// set: i.e. at the start of a write when the previous write ended with `\n`.
pub(crate) struct GarbageWriter<W> {
    inner: W,
    due: Arc<AtomicBool>,
    at_boundary: bool,
    /// Bytes of the garbage line already written while injecting it.
    injecting: Option<usize>,
}

impl<W> GarbageWriter<W> {
    pub(crate) fn new(inner: W, due: Arc<AtomicBool>) -> Self {
        GarbageWriter {
            inner,
            due,
            at_boundary: true,
            injecting: None,
        }
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for GarbageWriter<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if this.injecting.is_none() && this.at_boundary && this.due.swap(false, Ordering::SeqCst) {
            this.injecting = Some(0);
        }
        while let Some(done) = this.injecting {
            if done == GARBAGE_LINE.len() {
                this.injecting = None;
                break;
            }
            match ready!(Pin::new(&mut this.inner).poll_write(cx, &GARBAGE_LINE[done..])) {
                Ok(0) => return Poll::Ready(Err(io::ErrorKind::WriteZero.into())),
                Ok(n) => this.injecting = Some(done + n),
                Err(e) => return Poll::Ready(Err(e)),
            }
        }
        let n = ready!(Pin::new(&mut this.inner).poll_write(cx, buf))?;
        if n > 0 {
            this.at_boundary = buf[n - 1] == b'\n';
        }
        Poll::Ready(Ok(n))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
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
}
