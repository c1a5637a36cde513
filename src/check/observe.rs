//! What the audit sees: whole listings taken page by page as the server sent them (cursors,
//! entries and all), kept as JSON so the rules judge the wire, not mcpick's repairs.

use std::collections::HashSet;

use serde_json::Value;

use crate::mcp::Connection;

/// Pages followed at most; far past any real catalogue the check is meant for.
const MAX_PAGES: usize = 10_000;
/// Entries kept at most; the listing stops there (a note says so).
const MAX_ITEMS: usize = 200_000;

/// Why a listing stopped before the server said it was done.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// The server sent a cursor it had sent before.
    CursorRepeated { cursor: String, page: usize },
    /// Too many pages or entries for the check.
    Limit(String),
    /// A request failed (the error, with the page it was for).
    Error(String),
    /// A reply that is not a page (its shape, quoted).
    Malformed(String),
}

/// One listing (`resources/list` or `resources/templates/list`) on one connection.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub method: &'static str,
    pub pages: usize,
    /// Every entry of every page, in order, as sent.
    pub items: Vec<Value>,
    /// The first page's reply without its entries (for the caching rule).
    pub first_page: Option<Value>,
    /// `None` when the server ended the listing itself.
    pub stop: Option<Stop>,
}

impl Listing {
    /// The URIs (or URI templates) of the entries that have one, in order.
    pub fn uris(&self) -> Vec<&str> {
        let key = if self.method == TEMPLATES {
            "uriTemplate"
        } else {
            "uri"
        };
        self.items
            .iter()
            .filter_map(|i| i.get(key).and_then(Value::as_str))
            .collect()
    }
}

const RESOURCES: &str = "resources/list";
const TEMPLATES: &str = "resources/templates/list";

/// Lists everything, following `nextCursor` (an empty-string cursor continues in the modern
/// era and ends the listing in the legacy one, as in [`crate::mcp::list`]), and stops at a
/// repeated cursor, an error or a malformed page, saying which.
pub async fn list(conn: &Connection, templates: bool) -> Listing {
    let (method, key) = if templates {
        (TEMPLATES, "resourceTemplates")
    } else {
        (RESOURCES, "resources")
    };
    let mut listing = Listing {
        method,
        ..Listing::default()
    };
    let modern = conn.is_modern();
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = match conn.probe_list(templates, cursor.as_deref()).await {
            Ok(page) => page,
            Err(e) => {
                listing.stop = Some(Stop::Error(format!(
                    "page {}: {}",
                    listing.pages + 1,
                    conn.explain(&e)
                )));
                return listing;
            }
        };
        listing.pages += 1;
        let Value::Object(mut page) = page else {
            listing.stop = Some(Stop::Malformed(format!(
                "page {}: the reply is {}",
                listing.pages,
                super::quote(&page)
            )));
            return listing;
        };
        match page.remove(key) {
            Some(Value::Array(items)) => listing.items.extend(items),
            other => {
                listing.stop = Some(Stop::Malformed(format!(
                    "page {}: `{key}` is {}",
                    listing.pages,
                    other.as_ref().map_or("missing".into(), super::quote)
                )));
                return listing;
            }
        }
        let next = page.get("nextCursor").cloned();
        if listing.first_page.is_none() {
            listing.first_page = Some(Value::Object(page));
        }
        let next = match next {
            None | Some(Value::Null) => return listing,
            Some(Value::String(c)) if c.is_empty() && !modern => return listing,
            Some(Value::String(c)) => c,
            Some(other) => {
                listing.stop = Some(Stop::Malformed(format!(
                    "page {}: `nextCursor` is {}, not a string",
                    listing.pages,
                    super::quote(&other)
                )));
                return listing;
            }
        };
        if !seen.insert(next.clone()) {
            listing.stop = Some(Stop::CursorRepeated {
                cursor: crate::sanitize::line(&next, 80),
                page: listing.pages,
            });
            return listing;
        }
        if listing.pages >= MAX_PAGES || listing.items.len() >= MAX_ITEMS {
            listing.stop = Some(Stop::Limit(format!(
                "stopped after {} pages and {} entries, the check's limit",
                listing.pages,
                listing.items.len()
            )));
            return listing;
        }
        cursor = Some(next);
    }
}
