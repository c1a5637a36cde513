//! Searching off the UI thread. The TUI sends each query with a generation number; a
//! background thread runs it on every core, publishes partial results while it scans and
//! the complete result at the end, and abandons a search as soon as a newer one arrives. A
//! result is only ever replaced by one of a newer (or the same) generation, so a stale result
//! can never overwrite a fresh one.

use crate::sync::Locked;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::search::{Match, Search, sort};
use super::store::{Extent, Snapshot};

/// What a search has found so far.
#[derive(Debug, Clone)]
pub struct SearchResults {
    pub generation: u64,
    pub query: String,
    /// Best first. While `complete` is false these are the best of the part scanned so far.
    pub matches: Vec<Match>,
    pub complete: bool,
    /// Items scanned so far, of `total`.
    pub scanned: usize,
    pub total: usize,
}

struct Request {
    generation: u64,
    snapshot: Snapshot,
    query: String,
}

/// Handle on the search thread. Dropping it stops the thread.
pub struct SearchWorker {
    tx: mpsc::Sender<Request>,
    newest: Arc<AtomicU64>,
    latest: Arc<Mutex<Option<Arc<SearchResults>>>>,
}

/// How often partial results are published while a long search runs.
const PARTIAL_EVERY: Duration = Duration::from_millis(40);

impl SearchWorker {
    /// Starts the thread. `notify(generation)` is called (from that thread) whenever new
    /// results are ready; the UI then reads [`SearchWorker::latest`].
    pub fn spawn(search: Search, notify: impl Fn(u64) + Send + 'static) -> Self {
        let (tx, rx) = mpsc::channel::<Request>();
        let newest = Arc::new(AtomicU64::new(0));
        let latest: Arc<Mutex<Option<Arc<SearchResults>>>> = Arc::default();
        let (thread_newest, thread_latest) = (newest.clone(), latest.clone());
        std::thread::Builder::new()
            .name("mcpick-search".into())
            .spawn(move || {
                // A scan on every core gives way to the UI thread (its scoped threads too).
                crate::sched::background();
                let mut previous: Option<(Extent, Arc<SearchResults>)> = None;
                while let Ok(mut request) = rx.recv() {
                    // Only the newest waiting request matters.
                    while let Ok(newer) = rx.try_recv() {
                        request = newer;
                    }
                    let results = run(
                        &search,
                        &request,
                        previous.as_ref(),
                        &thread_newest,
                        &|partial| {
                            publish(&thread_latest, partial);
                            notify(request.generation);
                        },
                    );
                    if let Some(results) = results {
                        let results = Arc::new(results);
                        previous = Some((request.snapshot.extent(), results.clone()));
                        publish(&thread_latest, results);
                        notify(request.generation);
                    }
                }
            })
            .expect("start the search thread");
        Self { tx, newest, latest }
    }

    /// Starts a search; any older one still running is abandoned.
    pub fn search(&self, generation: u64, snapshot: Snapshot, query: &str) {
        self.newest.fetch_max(generation, Ordering::SeqCst);
        let _ = self.tx.send(Request {
            generation,
            snapshot,
            query: query.to_string(),
        });
    }

    /// The newest results published so far.
    pub fn latest(&self) -> Option<Arc<SearchResults>> {
        self.latest.locked().clone()
    }
}

/// Stores `results` unless something newer is already there.
fn publish(slot: &Mutex<Option<Arc<SearchResults>>>, results: Arc<SearchResults>) {
    let mut slot = slot.locked();
    if slot
        .as_ref()
        .is_none_or(|current| current.generation <= results.generation)
    {
        *slot = Some(results);
    }
}

fn run(
    search: &Search,
    request: &Request,
    previous: Option<&(Extent, Arc<SearchResults>)>,
    newest: &AtomicU64,
    partial: &dyn Fn(Arc<SearchResults>),
) -> Option<SearchResults> {
    // What a pass reads: removed items are passed over too.
    let total = request.snapshot.slots();
    let extent = request.snapshot.extent();
    let current = || newest.load(Ordering::SeqCst) == request.generation;
    let done = |matches: Vec<Match>| SearchResults {
        generation: request.generation,
        query: request.query.clone(),
        matches,
        complete: true,
        scanned: total,
        total,
    };
    let mut last = Instant::now();
    // Publishes, at most every PARTIAL_EVERY, `known` (already sorted) with the new matches
    // so far, `known_scanned` items counted as scanned before this run.
    let mut publish_partial = |known: &[Match], known_scanned: usize, scanned, so_far: &[Match]| {
        if last.elapsed() >= PARTIAL_EVERY && current() {
            last = Instant::now();
            let mut matches = Vec::with_capacity(known.len() + so_far.len());
            matches.extend_from_slice(known);
            matches.extend_from_slice(so_far);
            sort(&request.snapshot, &mut matches);
            partial(Arc::new(SearchResults {
                generation: request.generation,
                query: request.query.clone(),
                matches,
                complete: false,
                scanned: known_scanned + scanned,
                total,
            }));
        }
    };
    if let Some((earlier, old)) = previous
        && old.complete
    {
        // Same catalogue, and the query only got longer: re-score the last matches.
        if *earlier == extent && search.kind.narrows(&old.query, &request.query) {
            return Some(done(search.narrow(
                &request.snapshot,
                &request.query,
                &old.matches,
            )));
        }
        // The same query on a catalogue that only grew (pages arrived while it ran): the
        // earlier items' matches stand, only the new items are scanned. The partial results
        // start from those matches and the progress from what they covered, so neither goes
        // back while a big catalogue loads.
        if old.query == request.query && earlier.grew_into(&extent) {
            let known = &old.matches;
            let before = earlier.len();
            let new = search.run_after(
                &request.snapshot,
                earlier,
                &request.query,
                &current,
                |scanned, so_far| publish_partial(known, before, scanned, so_far),
            )?;
            let mut matches = known.clone();
            matches.extend(new);
            sort(&request.snapshot, &mut matches);
            return Some(done(matches));
        }
    }
    let matches = search.run(
        &request.snapshot,
        &request.query,
        &current,
        |scanned, so_far| publish_partial(&[], 0, scanned, so_far),
    )?;
    Some(done(matches))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::synth;

    fn wait_for(worker: &SearchWorker, generation: u64) -> Arc<SearchResults> {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(r) = worker.latest()
                && r.generation == generation
                && r.complete
            {
                return r;
            }
            assert!(
                Instant::now() < deadline,
                "no result for generation {generation}"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn results_match_a_direct_search_and_newer_generations_win() {
        let cat = synth::catalogue(5_000);
        let search = Search::default();
        let worker = SearchWorker::spawn(search, |_| {});
        worker.search(1, cat.snapshot(), "src");
        worker.search(2, cat.snapshot(), "src/mcp");
        let r = wait_for(&worker, 2);
        assert_eq!(r.matches, search.find(&cat.snapshot(), "src/mcp"));
        // An older generation arriving late never replaces the newer result.
        publish(
            &worker.latest,
            Arc::new(SearchResults {
                generation: 1,
                query: "stale".into(),
                matches: Vec::new(),
                complete: true,
                scanned: 0,
                total: 0,
            }),
        );
        assert_eq!(worker.latest().unwrap().generation, 2);
    }

    #[test]
    fn narrowing_gives_the_same_results_as_a_full_search() {
        let cat = synth::catalogue(3_000);
        let search = Search::default();
        let worker = SearchWorker::spawn(search, |_| {});
        for (g, q) in ["s", "sr", "src", "src/", "src/m"].iter().enumerate() {
            worker.search(g as u64 + 1, cat.snapshot(), q);
            let r = wait_for(&worker, g as u64 + 1);
            assert_eq!(r.matches, search.find(&cat.snapshot(), q), "query {q}");
        }
    }

    /// Pages arrived while a search ran: the re-run scans only the new items, its partial
    /// results start from the matches already found and its progress from what was scanned
    /// (before, each re-run began again at `0 of N match`, and the progress went back).
    #[test]
    fn a_rerun_on_a_grown_catalogue_keeps_its_matches_and_progress() {
        use crate::catalog::Catalogue;
        let total = 200_000;
        let mut cat = Catalogue::new();
        let server = cat.server("synthetic");
        cat.append(server, &crate::demo::demo_page(total, 0, total / 2));
        let search = Search::default();
        let newest = AtomicU64::new(1);
        let first = Request {
            generation: 1,
            snapshot: cat.snapshot(),
            query: "src".into(),
        };
        let earlier = run(&search, &first, None, &newest, &|_| {}).unwrap();
        assert!(!earlier.matches.is_empty());
        cat.append(server, &crate::demo::demo_page(total, total / 2, total / 2));
        newest.store(2, Ordering::SeqCst);
        let second = Request {
            generation: 2,
            snapshot: cat.snapshot(),
            query: "src".into(),
        };
        let partials = Mutex::new(Vec::new());
        let previous = (first.snapshot.extent(), Arc::new(earlier.clone()));
        let done = run(&search, &second, Some(&previous), &newest, &|p| {
            partials.lock().unwrap().push(p)
        })
        .unwrap();
        assert_eq!(done.matches, search.find(&second.snapshot, "src"));
        assert_eq!((done.scanned, done.total), (total, total));
        let partials = partials.into_inner().unwrap();
        assert!(
            !partials.is_empty(),
            "the re-run published no partial result"
        );
        for p in &partials {
            assert!(
                p.matches.len() >= earlier.matches.len(),
                "a partial result has {} matches, fewer than the {} already found",
                p.matches.len(),
                earlier.matches.len()
            );
            assert!(
                p.scanned >= total / 2,
                "progress went back to {}",
                p.scanned
            );
        }
        // A replaced listing is not a grown one: the next search scans everything.
        let replaced = {
            let mut cat = cat.clone();
            cat.replace(server, &crate::demo::demo_page(total, 0, 10));
            cat.snapshot().extent()
        };
        assert!(!second.snapshot.extent().grew_into(&replaced));
    }
}
