//! The browser's side of a latest-wins background job (a resolution, a sort, a batch of
//! counts): each request gets a generation, an answer for an older one is stale, and a request
//! made while one is in flight is kept as one more to run after it (coalesced, latest wins).
//! The runtime's side, aborting the task in flight, is the executor's `Latest`. Used by the
//! search, the list's sort, the agent view's resolution and counts, the contents pane's read
//! and a template form's completions.

/// One job's bookkeeping.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Job {
    generation: u64,
    in_flight: bool,
    again: bool,
}

impl Job {
    /// Starts a request now, whatever is in flight (whose answer becomes stale); returns its
    /// generation.
    pub fn start(&mut self) -> u64 {
        self.generation += 1;
        self.in_flight = true;
        self.again = false;
        self.generation
    }

    /// Asks for a request: `Some(generation)` to start now, or `None` while one is in flight
    /// (one more follows its answer, see [`Job::finish`]).
    pub fn request(&mut self) -> Option<u64> {
        if self.in_flight {
            self.again = true;
            return None;
        }
        Some(self.start())
    }

    /// The answer of `generation` arrived: `Some(again)` when it is the latest (`again`: a
    /// request was made meanwhile; make it now), `None` when it is stale (drop it).
    pub fn finish(&mut self, generation: u64) -> Option<bool> {
        if generation != self.generation {
            return None;
        }
        self.in_flight = false;
        Some(std::mem::take(&mut self.again))
    }

    /// An answer (one of several, for a job that streams partial answers) of `generation` is
    /// for the latest request.
    pub fn is_current(&self, generation: u64) -> bool {
        generation == self.generation && self.in_flight
    }

    /// Forgets what is in flight (its answer will be stale) and what was asked meanwhile.
    pub fn cancel(&mut self) {
        self.generation += 1;
        self.in_flight = false;
        self.again = false;
    }

    /// The generation of the latest request.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// A request is in flight or waiting to be made.
    pub fn busy(&self) -> bool {
        self.in_flight || self.again
    }

    pub fn in_flight(&self) -> bool {
        self.in_flight
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_coalesce_and_stale_answers_are_dropped() {
        let mut job = Job::default();
        let first = job.request().expect("idle: starts");
        assert!(job.busy());
        assert_eq!(job.request(), None, "in flight: one more later");
        assert_eq!(job.request(), None, "still one more, not two");
        assert_eq!(job.finish(first), Some(true), "latest, and asked again");
        let second = job.request().unwrap();
        assert_eq!(job.finish(first), None, "the first answer is stale now");
        assert_eq!(job.finish(second), Some(false));
        assert!(!job.busy());
        let third = job.start();
        job.cancel();
        assert_eq!(job.finish(third), None, "cancelled");
        assert!(!job.busy());
    }
}
