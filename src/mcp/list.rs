//! `resources/list` and `resources/templates/list` with full pagination. Pages reach the
//! caller as they arrive (a browser shows them at once); the loop guards against servers that
//! repeat a cursor or page forever, and stops at a cap.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use rmcp::model::{PaginatedRequestParams, Resource, ResourceTemplate};

use super::connection::Connection;
use super::error::McpError;
use crate::sanitize;

/// Consecutive empty pages tolerated before the listing is declared endless.
const MAX_EMPTY_PAGES: usize = 100;

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

/// One page as it arrives.
#[derive(Debug)]
pub struct Page<'a, T> {
    /// 1-based page number.
    pub number: usize,
    pub items: &'a [T],
    /// Entries received so far, this page included.
    pub received: usize,
}

/// How a listing ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ListOutcome {
    pub pages: usize,
    pub count: usize,
    /// True when the cap stopped the listing while the server still had more.
    pub capped: bool,
}

impl Connection {
    /// Lists every resource, handing each page to `on_page` as it arrives.
    /// A server without the `resources` capability lists nothing, successfully.
    pub async fn list_resources(
        &self,
        options: &ListOptions,
        on_page: impl FnMut(Page<'_, Resource>),
    ) -> Result<ListOutcome, McpError> {
        const METHOD: &str = "resources/list";
        if !self.has_resources() {
            return Ok(ListOutcome::default());
        }
        paginate(
            METHOD,
            self.is_modern(),
            options.cap,
            on_page,
            |cursor| async move {
                let result = self
                    .request(METHOD, self.peer().list_resources(params(cursor)))
                    .await?;
                Ok((result.resources, result.next_cursor))
            },
        )
        .await
    }

    /// Lists every resource template, page by page, like [`Connection::list_resources`].
    pub async fn list_templates(
        &self,
        options: &ListOptions,
        on_page: impl FnMut(Page<'_, ResourceTemplate>),
    ) -> Result<ListOutcome, McpError> {
        const METHOD: &str = "resources/templates/list";
        if !self.has_resources() {
            return Ok(ListOutcome::default());
        }
        paginate(
            METHOD,
            self.is_modern(),
            options.cap,
            on_page,
            |cursor| async move {
                let result = self
                    .request(METHOD, self.peer().list_resource_templates(params(cursor)))
                    .await?;
                Ok((result.resource_templates, result.next_cursor))
            },
        )
        .await
    }
}

fn params(cursor: Option<String>) -> Option<PaginatedRequestParams> {
    cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)))
}

/// The pagination loop, independent of what is listed so it can be tested without a server.
///
/// A missing `nextCursor` ends the listing. An empty-string cursor is a real cursor in the
/// modern era, and the end in the legacy era (where servers use it to mean "no more").
pub(crate) async fn paginate<T, F, Fut>(
    method: &'static str,
    modern: bool,
    cap: usize,
    mut on_page: impl FnMut(Page<'_, T>),
    mut fetch: F,
) -> Result<ListOutcome, McpError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), McpError>>,
{
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut outcome = ListOutcome::default();
    let mut empty_run = 0;
    loop {
        let (mut items, next) = fetch(cursor.take()).await?;
        outcome.pages += 1;
        let room = cap - outcome.count;
        let over_cap = items.len() > room;
        items.truncate(room);
        outcome.count += items.len();
        on_page(Page {
            number: outcome.pages,
            items: &items,
            received: outcome.count,
        });
        let next = next.filter(|c| modern || !c.is_empty());
        let Some(next) = next else {
            return Ok(outcome);
        };
        if over_cap || outcome.count >= cap {
            outcome.capped = true;
            return Ok(outcome);
        }
        empty_run = if items.is_empty() { empty_run + 1 } else { 0 };
        if empty_run >= MAX_EMPTY_PAGES {
            return Err(McpError::EmptyPages {
                method,
                pages: empty_run,
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
            |page: Page<'_, u32>| got.borrow_mut().extend_from_slice(page.items),
            |cursor| {
                asked.borrow_mut().push(cursor);
                let next = pages.borrow_mut().next();
                async move {
                    let (items, next) = next.expect("asked for a page past the end");
                    Ok((items, next.map(str::to_owned)))
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
}
