//! `resources/list` and `resources/templates/list` with full pagination. Pages reach the
//! caller as they arrive (a browser shows them at once); the loop guards against servers that
//! repeat a cursor or page forever, and stops at a cap.
//!
//! A page rmcp can type is taken as it is (the fast path). A page it cannot (one entry with a
//! wrongly typed field makes the whole page untyped) is read entry by entry by
//! [`super::lenient`]: one bad entry costs that entry, and each problem is reported as a
//! [`Warning`](super::warning::Warning) with the page.

use std::collections::HashSet;
use std::hash::{BuildHasher, DefaultHasher, Hash, Hasher};

use rmcp::model::{
    ClientRequest, ListResourceTemplatesRequest, ListResourcesRequest, PaginatedRequestParams,
    Resource, ResourceTemplate, ServerResult,
};

use super::connection::Connection;
use super::error::McpError;
use super::lenient::{self, LenientPage};
use super::log::{LogSource, ServerLog};
use super::raw;
use super::warning::{MAX_KEPT, Site, Warnings};
use crate::sanitize;

/// Consecutive empty pages tolerated before the listing is declared endless.
const MAX_EMPTY_PAGES: usize = 100;
/// Consecutive pages adding no new entry (empty, or only URIs already listed) tolerated:
/// fresh cursors over the same URI pass the cursor check, so this ends that loop at once.
const MAX_STALE_PAGES: usize = 100;
/// Repeated entries tolerated beyond the number of distinct ones: a server mixing a few new
/// URIs into pages of old ones gets at most twice a real listing's work, never an endless one.
const REPEAT_SLACK: usize = 10_000;

#[derive(Debug, Clone)]
pub struct ListOptions {
    /// Stop after this many entries (with a notice), whatever the server still offers.
    pub cap: usize,
}

/// The default cap: a million resources per server.
pub const DEFAULT_CAP: usize = 1_000_000;

impl Default for ListOptions {
    fn default() -> Self {
        Self { cap: DEFAULT_CAP }
    }
}

/// One page as it arrives, its entries by value (a listing of a million hands each one on
/// once, never copied).
#[derive(Debug)]
pub struct Page<T> {
    /// 1-based page number.
    pub number: usize,
    pub items: Vec<T>,
    /// Entries received so far, this page included.
    pub received: usize,
    /// Problems with this page's entries: malformed fields dropped, entries skipped. Empty
    /// when rmcp could type the page.
    pub warnings: Warnings,
    /// For each item, its index in the array the server sent; `None` when nothing was
    /// skipped (the same index).
    origin: Option<Vec<u32>>,
}

impl<T> Page<T> {
    /// The index the server gave `items[i]` in its page (differs from `i` when malformed
    /// entries before it were skipped), for warnings about it.
    pub fn source_index(&self, i: usize) -> usize {
        self.origin
            .as_ref()
            .and_then(|o| o.get(i))
            .map_or(i, |&index| index as usize)
    }
}

/// How a listing ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListOutcome {
    pub pages: usize,
    /// Entries received (after skipping malformed ones, before any de-duplication).
    pub count: usize,
    /// True when the cap stopped the listing while the server still had more.
    pub capped: bool,
    /// How many warnings the pages carried (see [`Page::warnings`]).
    pub warnings: usize,
    /// The cache hints of the 2026-07-28 era, over every page: the smallest `ttlMs`, and
    /// `private` when any page said so. `mcpick serve` passes them on.
    pub cache: CacheHints,
}

/// `ttlMs` and `cacheScope` of modern results (SEP-2549), merged over several results.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheHints {
    pub ttl_ms: Option<u64>,
    pub scope: Option<rmcp::model::CacheScope>,
}

impl CacheHints {
    /// Merges `other` in: the shorter freshness wins, and `private` over `public`.
    pub fn merge(&mut self, other: CacheHints) {
        self.ttl_ms = match (self.ttl_ms, other.ttl_ms) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        use rmcp::model::CacheScope::Private;
        self.scope = match (self.scope, other.scope) {
            (Some(Private), _) | (_, Some(Private)) => Some(Private),
            (a, b) => a.or(b),
        };
    }
}

/// One page as fetched: the entries, the next cursor, and what was wrong with the page.
#[derive(Debug)]
pub(crate) struct Fetched<T> {
    items: Vec<T>,
    /// The cursor; an error when the server sent one mcpick cannot follow (the page's own
    /// entries are still delivered).
    next: Result<Option<String>, McpError>,
    warnings: Warnings,
    origin: Option<Vec<u32>>,
    cache: CacheHints,
}

impl<T> Fetched<T> {
    /// The page's cache hints (typed pages carry them; lenient ones are read without).
    pub(crate) fn with_cache(
        mut self,
        ttl_ms: Option<u64>,
        scope: Option<rmcp::model::CacheScope>,
    ) -> Self {
        self.cache = CacheHints { ttl_ms, scope };
        self
    }

    /// A page rmcp typed: nothing skipped, nothing to report.
    pub(crate) fn typed(items: Vec<T>, next: Option<String>) -> Self {
        Fetched {
            items,
            next: Ok(next),
            warnings: Warnings::new(),
            origin: None,
            cache: CacheHints::default(),
        }
    }

    fn lenient(method: &'static str, page: LenientPage<T>) -> Self {
        let skipped = page.entries.origin.len() != page.entries.items.len()
            || page
                .entries
                .origin
                .iter()
                .enumerate()
                .any(|(i, &o)| o as usize != i);
        Fetched {
            items: page.entries.items,
            next: page
                .next
                .map_err(|reason| McpError::Transport { method, reason }),
            warnings: page.entries.warnings,
            origin: skipped.then_some(page.entries.origin),
            cache: CacheHints::default(),
        }
    }
}

/// Where a person is sent when a server publishes no resources (a tools-only server such as
/// server-filesystem): the list of servers that do, and how to serve a folder's files.
pub const NO_RESOURCES_HELP: &str =
    "servers that publish resources, and how to serve a folder's files: docs/servers.md";

impl Connection {
    /// Lists every resource, handing each page to `on_page` as it arrives.
    /// A server without the `resources` capability lists nothing, successfully.
    pub async fn list_resources(
        &self,
        options: &ListOptions,
        on_page: impl FnMut(Page<Resource>),
    ) -> Result<ListOutcome, McpError> {
        const METHOD: &str = "resources/list";
        if !self.has_resources() {
            return Ok(ListOutcome::default());
        }
        paginate(
            METHOD,
            self.is_modern(),
            options.cap,
            self.log(),
            on_page,
            |r: &Resource| r.uri.as_str(),
            |cursor, number| async move {
                let request = ClientRequest::ListResourcesRequest(ListResourcesRequest {
                    method: Default::default(),
                    params: params(cursor),
                    extensions: Default::default(),
                });
                match self
                    .request(METHOD, raw::send(self.peer(), request))
                    .await?
                {
                    ServerResult::ListResourcesResult(page) => {
                        Ok(Fetched::typed(page.resources, page.next_cursor)
                            .with_cache(page.ttl_ms, page.cache_scope))
                    }
                    other => {
                        self.lenient_page(METHOD, number, other, "resources", lenient::resource)
                    }
                }
            },
        )
        .await
    }

    /// `completion/complete` for variable `argument` of `template` typed so far as `value`,
    /// with the variables already filled in `context`: the server's suggestions.
    pub async fn complete_template(
        &self,
        template: &str,
        argument: &str,
        value: &str,
        context: std::collections::HashMap<String, String>,
    ) -> Result<Vec<String>, McpError> {
        let context =
            (!context.is_empty()).then(|| rmcp::model::CompletionContext::with_arguments(context));
        let info = self
            .request(
                "completion/complete",
                self.peer()
                    .complete_resource_argument(template, argument, value, context),
            )
            .await?;
        Ok(info.values)
    }

    /// A `ping`: is the server still answering on this connection?
    pub async fn ping(&self) -> Result<(), McpError> {
        let request = ClientRequest::PingRequest(rmcp::model::PingRequest::default());
        self.request("ping", raw::send(self.peer(), request))
            .await
            .map(|_| ())
    }

    /// Every URI the server lists now (the order is not kept; duplicates are one).
    pub async fn list_uris(&self) -> Result<std::collections::BTreeSet<String>, McpError> {
        let mut uris = std::collections::BTreeSet::new();
        self.list_resources(&ListOptions::default(), |page| {
            uris.extend(page.items.into_iter().map(|r| r.uri))
        })
        .await?;
        Ok(uris)
    }

    /// Lists every resource template, page by page, like [`Connection::list_resources`].
    pub async fn list_templates(
        &self,
        options: &ListOptions,
        on_page: impl FnMut(Page<ResourceTemplate>),
    ) -> Result<ListOutcome, McpError> {
        const METHOD: &str = "resources/templates/list";
        if !self.has_resources() {
            return Ok(ListOutcome::default());
        }
        paginate(
            METHOD,
            self.is_modern(),
            options.cap,
            self.log(),
            on_page,
            |t: &ResourceTemplate| t.uri_template.as_str(),
            |cursor, number| async move {
                let request =
                    ClientRequest::ListResourceTemplatesRequest(ListResourceTemplatesRequest {
                        method: Default::default(),
                        params: params(cursor),
                        extensions: Default::default(),
                    });
                match self
                    .request(METHOD, raw::send(self.peer(), request))
                    .await?
                {
                    ServerResult::ListResourceTemplatesResult(page) => {
                        Ok(Fetched::typed(page.resource_templates, page.next_cursor))
                    }
                    other => self.lenient_page(
                        METHOD,
                        number,
                        other,
                        "resourceTemplates",
                        lenient::template,
                    ),
                }
            },
        )
        .await
    }

    /// A page rmcp could not type, read entry by entry; an error when it is no page at all.
    fn lenient_page<T>(
        &self,
        method: &'static str,
        number: usize,
        reply: ServerResult,
        key: &str,
        entry: fn(serde_json::Value, &mut Site<'_>) -> Option<T>,
    ) -> Result<Fetched<T>, McpError> {
        match lenient::page(method, number, raw::into_value(reply), key, entry) {
            Ok(page) => Ok(Fetched::lenient(method, page)),
            Err(reason) => {
                let error = McpError::Transport {
                    method,
                    reason: format!("the server sent a reply that is not a page: {reason}"),
                };
                self.log().push(LogSource::Client, &error.to_string());
                Err(error)
            }
        }
    }
}

fn params(cursor: Option<String>) -> Option<PaginatedRequestParams> {
    cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)))
}

/// How many pages in a row brought no entry, and no new entry: a server that keeps paging
/// without progress is stopped by a named limit.
#[derive(Default)]
struct Runs {
    empty: usize,
    stale: usize,
}

impl Runs {
    /// Counts a page that was empty or not and brought `fresh` new entries.
    fn next(
        &mut self,
        method: &'static str,
        was_empty: bool,
        fresh: usize,
    ) -> Result<(), McpError> {
        self.empty = if was_empty { self.empty + 1 } else { 0 };
        if self.empty >= MAX_EMPTY_PAGES {
            return Err(McpError::EmptyPages {
                method,
                pages: self.empty,
            });
        }
        self.stale = if fresh == 0 { self.stale + 1 } else { 0 };
        if self.stale >= MAX_STALE_PAGES {
            return Err(McpError::RepeatedPages {
                method,
                pages: self.stale,
            });
        }
        Ok(())
    }
}

/// The pagination loop, independent of what is listed so it can be tested without a server.
///
/// A missing `nextCursor` ends the listing. An empty-string cursor is a real cursor in the
/// modern era, and the end in the legacy era (where servers use it to mean "no more").
/// Warnings go to `log` as they arrive, the first [`MAX_KEPT`] in detail, then as a count.
///
/// `key` is an entry's identity (its URI): a server that pages the same entries under fresh
/// cursors is stopped by a named limit ([`McpError::RepeatedPages`],
/// [`McpError::RepeatedEntries`]). The keys seen are kept as 8-byte hashes for the listing.
pub(crate) async fn paginate<T, K, F, Fut>(
    method: &'static str,
    modern: bool,
    cap: usize,
    log: &ServerLog,
    mut on_page: impl FnMut(Page<T>),
    key: fn(&T) -> &K,
    mut fetch: F,
) -> Result<ListOutcome, McpError>
where
    K: std::hash::Hash + ?Sized,
    F: FnMut(Option<String>, usize) -> Fut,
    Fut: Future<Output = Result<Fetched<T>, McpError>>,
{
    let mut outcome = ListOutcome::default();
    let mut logged = 0;
    let result = async {
        let mut seen = HashSet::new();
        let mut cursor: Option<String> = None;
        let mut runs = Runs::default();
        let state = foldhash::fast::RandomState::default();
        let mut keys: hashbrown::HashSet<u64, _> = hashbrown::HashSet::with_hasher(state.clone());
        loop {
            let Fetched {
                mut items,
                next,
                warnings,
                origin,
                cache,
            } = fetch(cursor.take(), outcome.pages + 1).await?;
            outcome.pages += 1;
            outcome.cache.merge(cache);
            let room = cap - outcome.count;
            let over_cap = items.len() > room;
            items.truncate(room);
            outcome.count += items.len();
            outcome.warnings += warnings.total();
            for warning in warnings.kept().iter().take(MAX_KEPT - logged) {
                log.warn(&warning.to_string());
                logged += 1;
            }
            let was_empty = items.is_empty();
            let fresh = items
                .iter()
                .filter(|item| keys.insert(state.hash_one(key(item))))
                .count();
            on_page(Page {
                number: outcome.pages,
                items,
                received: outcome.count,
                warnings,
                origin,
            });
            let next = match next {
                Ok(next) => next.filter(|c| modern || !c.is_empty()),
                Err(error) => {
                    log.push(LogSource::Client, &error.to_string());
                    return Err(error);
                }
            };
            let Some(next) = next else {
                return Ok(());
            };
            if over_cap || outcome.count >= cap {
                outcome.capped = true;
                return Ok(());
            }
            runs.next(method, was_empty, fresh)?;
            let distinct = keys.len();
            if outcome.count - distinct > distinct + REPEAT_SLACK {
                return Err(McpError::RepeatedEntries {
                    method,
                    received: outcome.count,
                    distinct,
                });
            }
            let mut hasher = DefaultHasher::new();
            next.hash(&mut hasher);
            if !seen.insert(hasher.finish()) {
                return Err(McpError::CursorLoop {
                    method,
                    cursor: sanitize::line(&next, 80),
                    page: outcome.pages,
                });
            }
            cursor = Some(next);
        }
    }
    .await;
    if outcome.warnings > logged {
        log.warn(&format!(
            "{method}: {} more warnings about malformed entries, not logged one by one",
            outcome.warnings - logged
        ));
    }
    result.map(|()| outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A fake server: `pages[i]` is (items, next cursor) for the i-th request.
    async fn run(
        pages: Vec<(Vec<u32>, Option<&str>)>,
        modern: bool,
        cap: usize,
    ) -> (Result<ListOutcome, McpError>, Vec<u32>, Vec<Option<String>>) {
        let got = RefCell::new(Vec::new());
        let asked = RefCell::new(Vec::new());
        let pages = RefCell::new(pages.into_iter());
        let result = paginate(
            "resources/list",
            modern,
            cap,
            &ServerLog::new(10),
            |page: Page<u32>| got.borrow_mut().extend(page.items),
            |n: &u32| n,
            |cursor, number| {
                asked.borrow_mut().push(cursor);
                let next = pages.borrow_mut().next();
                assert_eq!(number, asked.borrow().len(), "pages are numbered from 1");
                async move {
                    let (items, next) = next.expect("asked for a page past the end");
                    Ok(Fetched::typed(items, next.map(str::to_owned)))
                }
            },
        )
        .await;
        (result, got.into_inner(), asked.into_inner())
    }

    #[tokio::test]
    async fn follows_cursors_to_the_end() {
        let (result, got, asked) = run(
            vec![
                (vec![1, 2], Some("a")),
                (vec![3], Some("b")),
                (vec![4], None),
            ],
            false,
            100,
        )
        .await;
        let outcome = result.unwrap();
        assert_eq!(got, [1, 2, 3, 4]);
        assert_eq!(asked, [None, Some("a".into()), Some("b".into())]);
        assert_eq!(
            (outcome.pages, outcome.count, outcome.capped),
            (3, 4, false)
        );
    }

    #[tokio::test]
    async fn empty_cursor_continues_only_in_the_modern_era() {
        let pages = || vec![(vec![1], Some("")), (vec![2], None)];
        let (_, legacy, _) = run(pages(), false, 100).await;
        assert_eq!(legacy, [1]);
        let (_, modern, asked) = run(pages(), true, 100).await;
        assert_eq!(modern, [1, 2]);
        assert_eq!(asked[1].as_deref(), Some(""));
    }

    #[tokio::test]
    async fn repeated_cursor_is_an_error() {
        let (result, got, _) = run(
            vec![
                (vec![1], Some("x")),
                (vec![2], Some("y")),
                (vec![3], Some("x")),
            ],
            false,
            100,
        )
        .await;
        assert!(matches!(result, Err(McpError::CursorLoop { page: 3, .. })));
        assert_eq!(got, [1, 2, 3], "pages before the loop are still delivered");
    }

    #[tokio::test]
    async fn cap_stops_with_notice() {
        let (result, got, _) = run(
            vec![(vec![1, 2], Some("a")), (vec![3, 4], Some("b"))],
            false,
            3,
        )
        .await;
        assert_eq!(got, [1, 2, 3]);
        assert!(result.unwrap().capped);
    }

    #[tokio::test]
    async fn cap_reached_exactly_at_the_end_is_not_capped() {
        let (result, _, _) = run(vec![(vec![1, 2], Some("a")), (vec![3], None)], false, 3).await;
        assert!(!result.unwrap().capped);
    }

    #[tokio::test]
    async fn endless_empty_pages_stop() {
        let pages = (0..MAX_EMPTY_PAGES + 5)
            .map(|i| {
                (
                    vec![],
                    Some(Box::leak(format!("c{i}").into_boxed_str()) as &str),
                )
            })
            .collect();
        let (result, _, _) = run(pages, false, 100).await;
        assert!(matches!(result, Err(McpError::EmptyPages { .. })));
    }

    /// Fresh cursors, the same URI on every page: the cursor check never fires, and the
    /// listing once ran until the million-entry cap (`ls`, `preview`, `serve` hung). It stops
    /// after [`MAX_STALE_PAGES`] pages that add nothing, naming that limit.
    #[tokio::test]
    async fn fresh_cursors_over_the_same_entries_stop() {
        let pages = (0..MAX_STALE_PAGES + 5)
            .map(|i| (vec![7, 7], Some(&*format!("c{i}").leak())))
            .collect();
        let (result, got, _) = run(pages, false, 1_000_000).await;
        let error = result.unwrap_err();
        assert!(
            matches!(error, McpError::RepeatedPages { pages, .. } if pages == MAX_STALE_PAGES),
            "{error}"
        );
        assert!(error.to_string().contains("limit on repeated pages"));
        assert_eq!(
            got.len(),
            2 * (MAX_STALE_PAGES + 1),
            "the first page was new"
        );
    }

    /// One new URI per page among repeated ones resets the run of stale pages; the repeats
    /// are bounded by the distinct entries instead.
    #[tokio::test]
    async fn repeats_beyond_the_distinct_entries_stop() {
        let per_page = 1000;
        let pages = (0..100)
            .map(|i| {
                let mut items = vec![0; per_page];
                items[0] = i as u32 + 1; // one new entry per page
                (items, Some(&*format!("c{i}").leak()))
            })
            .collect();
        let (result, got, _) = run(pages, false, 1_000_000).await;
        let error = result.unwrap_err();
        let McpError::RepeatedEntries {
            received, distinct, ..
        } = error
        else {
            panic!("{error}")
        };
        assert!(received - distinct > distinct + REPEAT_SLACK);
        assert!(received <= 2 * distinct + REPEAT_SLACK + per_page);
        assert_eq!(got.len(), received);
    }

    /// A listing with a few duplicates that ends is not an error.
    #[tokio::test]
    async fn a_finite_listing_with_duplicates_is_kept() {
        let (result, got, _) = run(
            vec![
                (vec![1, 1], Some("a")),
                (vec![1], Some("b")),
                (vec![2], None),
            ],
            false,
            100,
        )
        .await;
        assert_eq!(result.unwrap().count, 4);
        assert_eq!(got, [1, 1, 1, 2]);
    }

    /// Pages read entry by entry: warnings reach the caller with their page and the log
    /// (the first [`MAX_KEPT`] in detail), and indices map back to the server's array.
    #[tokio::test]
    async fn lenient_pages_carry_their_warnings() {
        use serde_json::json;
        let log = ServerLog::new(1000);
        let replies = RefCell::new(
            vec![
                json!({"resources": [{"uri": "a://1", "name": "1"}, {"uri": 5},
                                     {"uri": "a://2", "name": "2", "size": "big"}],
                       "nextCursor": "p2"}),
                json!({"resources": (0..150).map(|i| json!({"uri": i})).collect::<Vec<_>>(),
                       "nextCursor": "p3"}),
                json!({"resources": [{"uri": "a://3", "name": "3"}], "nextCursor": 7}),
            ]
            .into_iter(),
        );
        let pages = RefCell::new(Vec::new());
        let result = paginate(
            "resources/list",
            false,
            100,
            &log,
            |page: Page<Resource>| {
                let origin: Vec<usize> = (0..page.items.len())
                    .map(|i| page.source_index(i))
                    .collect();
                let fields: Vec<Option<String>> = page
                    .warnings
                    .kept()
                    .iter()
                    .map(|w| w.field.clone())
                    .collect();
                pages.borrow_mut().push((
                    page.number,
                    page.items.len(),
                    origin,
                    page.warnings.total(),
                    fields,
                ));
            },
            |r: &Resource| r.uri.as_str(),
            |_cursor, number| {
                let reply = replies.borrow_mut().next().unwrap();
                let page = lenient::page(
                    "resources/list",
                    number,
                    reply,
                    "resources",
                    lenient::resource,
                );
                async move { Ok(Fetched::lenient("resources/list", page.unwrap())) }
            },
        )
        .await;
        let pages = pages.into_inner();
        assert_eq!(
            pages[0],
            (
                1,
                2,
                vec![0, 2],
                2,
                vec![Some("uri".into()), Some("size".into())]
            )
        );
        assert_eq!((pages[1].0, pages[1].1, pages[1].3), (2, 0, 150));
        assert_eq!(
            pages[2].1, 1,
            "the last page is delivered before its bad cursor fails"
        );
        let error = result.unwrap_err().to_string();
        assert!(
            error.contains("nextCursor") && error.contains("page 3"),
            "{error}"
        );
        let lines: Vec<String> = log.entries().into_iter().map(|e| e.text).collect();
        let detailed = lines.iter().filter(|l| l.contains(" entry ")).count();
        assert_eq!(detailed, MAX_KEPT, "{lines:#?}");
        assert!(
            lines.iter().any(|l| l.contains("52 more warnings")),
            "{lines:#?}"
        );
        assert!(lines.iter().any(|l| l.contains("nextCursor")), "{lines:#?}");
        assert!(
            lines[0].starts_with("warning: resources/list page 1, entry 1: `uri` is a number (5)"),
            "{}",
            lines[0]
        );
    }
}

#[cfg(test)]
mod cache_tests {
    use super::CacheHints;
    use rmcp::model::CacheScope;

    #[test]
    fn the_shortest_freshness_and_private_win() {
        let mut hints = CacheHints::default();
        hints.merge(CacheHints {
            ttl_ms: Some(5000),
            scope: Some(CacheScope::Public),
        });
        hints.merge(CacheHints {
            ttl_ms: None,
            scope: None,
        });
        assert_eq!(hints.ttl_ms, Some(5000));
        hints.merge(CacheHints {
            ttl_ms: Some(100),
            scope: Some(CacheScope::Private),
        });
        hints.merge(CacheHints {
            ttl_ms: Some(900),
            scope: Some(CacheScope::Public),
        });
        assert_eq!(hints.ttl_ms, Some(100));
        assert_eq!(hints.scope, Some(CacheScope::Private));
    }
}
