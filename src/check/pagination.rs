//! `pagination.terminates`: cursors end, never repeat, every page is a page.
//! `pagination.invalid-cursor`: a cursor the server never sent is error -32602, not a page
//! (a SHOULD: broken, it warns).

use serde_json::Value;

use super::observe::{Listing, Stop};
use super::{Finding, Judge};
use crate::mcp::{Connection, McpError};

pub const TERMINATES: &str = "pagination.terminates";
pub const INVALID_CURSOR: &str = "pagination.invalid-cursor";

/// JSON-RPC "Invalid params", the code the specification names for an invalid cursor.
const INVALID_PARAMS: i32 = -32602;

pub fn terminates(first: &Listing) -> Finding {
    let mut judge = Judge::new(TERMINATES);
    let method = first.method;
    match &first.stop {
        None => judge.note(format!(
            "{method}: {} page(s), {} entries, ended by the server",
            first.pages,
            first.items.len()
        )),
        Some(Stop::CursorRepeated { cursor, page }) => judge.fail(format!(
            "{method}: page {page} sent the cursor `{cursor}` that an earlier page sent; \
             following it would never end"
        )),
        Some(Stop::Malformed(what)) => judge.fail(format!("{method}: {what}")),
        Some(Stop::Error(what)) => judge.fail(format!("{method}: {what}")),
        Some(Stop::Limit(what)) => judge.warn(format!("{method}: {what}")),
    }
    judge.finish()
}

pub async fn invalid_cursor(conn: &Connection, first: &Listing) -> Finding {
    let mut judge = Judge::new(INVALID_CURSOR);
    let cursor = format!("mcpick-check-invalid-{:016x}", super::reads::random());
    match conn.probe_list(false, Some(&cursor)).await {
        Err(McpError::Server { code, message, .. }) if code == INVALID_PARAMS => judge.note(
            format!("resources/list with cursor `{cursor}`: error {code}: {message}"),
        ),
        Err(McpError::Server { code, message, .. }) => judge.fail(format!(
            "resources/list with the made-up cursor `{cursor}`: error {code} ({INVALID_PARAMS} expected): {message}"
        )),
        Err(e) => judge.warn(format!(
            "resources/list with cursor `{cursor}`: not a JSON-RPC error: {}",
            conn.explain(&e)
        )),
        Ok(page) => {
            let uris: Vec<&str> = page
                .get("resources")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(|r| r["uri"].as_str()).collect())
                .unwrap_or_default();
            let first_uris = first.uris();
            let again = !uris.is_empty() && first_uris.starts_with(&uris);
            judge.fail(format!(
                "resources/list with the made-up cursor `{cursor}` succeeded with {} resources{}",
                uris.len(),
                if again { " (the first page again)" } else { "" }
            ));
        }
    }
    judge.finish()
}
