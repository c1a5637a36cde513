//! `resources/read`, with "not found" and "empty" told apart from failure. A reply rmcp cannot
//! type (one malformed contents item) is read item by item: a bad item costs that item.

use rmcp::model::{
    ClientRequest, ReadResourceRequest, ReadResourceRequestParams, ResourceContents, ServerResult,
};
use serde_json::Value;

use super::connection::Connection;
use super::error::{McpError, NotFound};
use super::lenient;
use super::log::LogSource;
use super::raw;
use super::warning::{Warnings, describe, wrong};

/// What a read produced.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadOutcome {
    /// One or more contents items (a read may return several sub-resources, each with its
    /// own URI).
    Contents(Vec<ResourceContents>),
    /// The server answered with an empty `contents` array: the resource exists and is empty.
    Empty,
    /// The server says there is no such resource.
    NotFound(NotFound),
}

const METHOD: &str = "resources/read";

/// True when a contents item's `item_uri` is the requested `uri` or a part of it (a
/// multi-part read: `uri/part`, `uri#part`). Anything else is a foreign part: `check` reports
/// it (`read.matches-list`) and `wrap` drops it.
pub fn is_part_of(item_uri: &str, uri: &str) -> bool {
    item_uri == uri
        || item_uri
            .strip_prefix(uri.trim_end_matches('/'))
            .is_some_and(|rest| rest.starts_with(['/', '#']))
}

impl Connection {
    /// Reads one resource. Server errors that mean "not found" become
    /// [`ReadOutcome::NotFound`]; everything else is an error. Malformed contents items are
    /// skipped and logged (see [`Connection::read_checked`] to get them).
    pub async fn read(&self, uri: &str) -> Result<ReadOutcome, McpError> {
        self.read_checked(uri).await.map(|(outcome, _)| outcome)
    }

    /// [`Connection::read`], with the warnings about contents items that were skipped or
    /// repaired (also written to the server's log).
    pub async fn read_checked(&self, uri: &str) -> Result<(ReadOutcome, Warnings), McpError> {
        self.read_hinted(uri)
            .await
            .map(|(outcome, warnings, _)| (outcome, warnings))
    }

    /// [`Connection::read`] with how long the answer may be kept (`ttlMs`, 2026-07-28), for
    /// a client's cache.
    pub async fn read_fresh_for(
        &self,
        uri: &str,
    ) -> Result<(ReadOutcome, Option<std::time::Duration>), McpError> {
        self.read_hinted(uri)
            .await
            .map(|(outcome, _, ttl)| (outcome, ttl))
    }

    async fn read_hinted(
        &self,
        uri: &str,
    ) -> Result<(ReadOutcome, Warnings, Option<std::time::Duration>), McpError> {
        self.read_once(uri).await.map(|(outcome, warnings, ttl)| {
            (outcome, warnings, ttl.map(std::time::Duration::from_millis))
        })
    }

    async fn read_once(&self, uri: &str) -> Result<(ReadOutcome, Warnings, Option<u64>), McpError> {
        if !self.has_resources() {
            return Ok((
                ReadOutcome::NotFound(NotFound {
                    code: 0,
                    message: "the server publishes no resources".into(),
                }),
                Warnings::new(),
                None,
            ));
        }
        let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(
            ReadResourceRequestParams::new(uri),
        ));
        match self.request(METHOD, raw::send(self.peer(), request)).await {
            Ok(ServerResult::ReadResourceResult(result)) => Ok((
                contents_outcome(result.contents),
                Warnings::new(),
                result.ttl_ms,
            )),
            Ok(ServerResult::InputRequiredResult(_)) => Err(McpError::Transport {
                method: METHOD,
                reason: "the server asked for more input (input_required), which mcpick does not provide"
                    .into(),
            }),
            Ok(other) => {
                let read = lenient_read(raw::into_value(other));
                let (Ok((_, warnings)) | Err((_, warnings))) = &read;
                for warning in warnings.kept() {
                    self.log()
                        .push(LogSource::Client, &format!("warning: {warning}"));
                }
                read.map(|(outcome, warnings)| (outcome, warnings, None))
                    .map_err(|(error, _)| {
                        self.log().push(LogSource::Client, &error.to_string());
                        error
                    })
            }
            Err(error) => match error.not_found(self.is_modern()) {
                Some(not_found) => Ok((ReadOutcome::NotFound(not_found), Warnings::new(), None)),
                None => Err(error),
            },
        }
    }
}

fn contents_outcome(contents: Vec<ResourceContents>) -> ReadOutcome {
    if contents.is_empty() {
        ReadOutcome::Empty
    } else {
        ReadOutcome::Contents(contents)
    }
}

/// A read reply rmcp could not type, item by item. An error when it has no `contents` array,
/// or when it had items and none of them is usable (that is not "empty").
fn lenient_read(reply: Value) -> Result<(ReadOutcome, Warnings), (McpError, Warnings)> {
    let error = |reason: String, warnings| {
        Err((
            McpError::Transport {
                method: METHOD,
                reason,
            },
            warnings,
        ))
    };
    let array = match reply {
        Value::Object(mut reply) => match reply.remove("contents") {
            Some(Value::Array(array)) => array,
            other => {
                return error(
                    format!(
                        "the server sent a reply without contents: `contents` {}",
                        wrong(other.as_ref(), "an array")
                    ),
                    Warnings::new(),
                );
            }
        },
        other => {
            return error(
                format!("the server sent {}, not a read result", describe(&other)),
                Warnings::new(),
            );
        }
    };
    let sent = array.len();
    let parsed = lenient::contents(array);
    if sent > 0 && parsed.items.is_empty() {
        let first = parsed
            .warnings
            .kept()
            .first()
            .map(|w| format!(" (first: {w})"))
            .unwrap_or_default();
        return error(
            format!("none of the {sent} contents items the server sent is usable{first}"),
            parsed.warnings,
        );
    }
    Ok((contents_outcome(parsed.items), parsed.warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_bad_item_costs_that_item() {
        let (outcome, warnings) = lenient_read(json!({"contents": [
            {"uri": "demo://a", "text": "hello"},
            {"uri": "demo://a#2", "text": 42},
        ]}))
        .unwrap();
        assert_eq!(
            outcome,
            ReadOutcome::Contents(vec![ResourceContents::TextResourceContents {
                uri: "demo://a".into(),
                mime_type: None,
                text: "hello".into(),
                meta: None
            }])
        );
        assert_eq!(warnings.total(), 1);
        assert_eq!(warnings.kept()[0].index, 1);
        assert_eq!(warnings.kept()[0].page, None);
    }

    #[test]
    fn nothing_usable_is_an_error_and_nothing_sent_is_empty() {
        let (error, warnings) =
            lenient_read(json!({"contents": [{"uri": 1, "text": "x"}]})).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("none of the 1 contents items"), "{text}");
        assert!(text.contains("`uri` is a number (1)"), "{text}");
        assert_eq!(warnings.total(), 1);
        // An empty array only fails rmcp's typing when something else is wrong; it stays
        // "empty", not an error.
        let (outcome, _) = lenient_read(json!({"contents": [], "ttlMs": "soon"})).unwrap();
        assert_eq!(outcome, ReadOutcome::Empty);
        for reply in [json!({}), json!({"contents": "x"}), json!("x")] {
            assert!(lenient_read(reply).is_err());
        }
    }
}
