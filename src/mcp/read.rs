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

/// One `resources/read`, whatever asked for it: what it produced and everything said about
/// it. The one shape every read returns ([`Connection::read`], [`Connection::read_for_agent`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    pub outcome: ReadOutcome,
    /// Contents items skipped or repaired (also written to the server's log).
    pub warnings: Warnings,
    /// How long the answer may be kept (`ttlMs`, 2026-07-28), for a client's cache.
    pub fresh_for: Option<std::time::Duration>,
    /// URIs of contents parts of other resources dropped from a read handed on
    /// ([`Connection::read_for_agent`]); empty for a plain read.
    pub dropped: Vec<String>,
}

impl Read {
    /// A read that produced `outcome` and nothing else to say.
    pub fn of(outcome: ReadOutcome) -> Read {
        Read {
            outcome,
            warnings: Warnings::new(),
            fresh_for: None,
            dropped: Vec::new(),
        }
    }

    /// The bytes of its contents: text as UTF-8, a blob as decoded (estimated from its
    /// base64 length).
    pub fn size(&self) -> usize {
        let ReadOutcome::Contents(parts) = &self.outcome else {
            return 0;
        };
        parts
            .iter()
            .map(|part| match part {
                ResourceContents::TextResourceContents { text, .. } => text.len(),
                ResourceContents::BlobResourceContents { blob, .. } => blob.len() / 4 * 3,
                _ => 0,
            })
            .sum()
    }
}

const METHOD: &str = "resources/read";

impl Connection {
    /// Reads one resource as the server answers it. Server errors that mean "not found"
    /// become [`ReadOutcome::NotFound`]; everything else is an error. Malformed contents items
    /// are skipped, logged and named in [`Read::warnings`].
    pub async fn read(&self, uri: &str) -> Result<Read, McpError> {
        self.read_once(uri)
            .await
            .map(|(outcome, warnings, ttl)| Read {
                outcome,
                warnings,
                fresh_for: ttl.map(std::time::Duration::from_millis),
                dropped: Vec::new(),
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
                    self.log().warn(&warning.to_string());
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

impl Connection {
    /// Reads one resource as it may be handed on (to an agent, a host, a bundle): only the
    /// contents parts [`is_part_of`] the requested URI are kept, so a server cannot slip
    /// another resource's text (an excluded one) into a published resource's read. Each part
    /// dropped is written to the server's log and its URI returned, for the caller to say.
    /// An answer with parts but none of them the requested resource's is an error naming
    /// them.
    async fn read_own(&self, uri: &str) -> Result<Read, McpError> {
        let read = self.read(uri).await?;
        let (outcome, dropped) = own_parts(uri, read.outcome);
        for other in &dropped {
            self.log().warn(&dropped_part_words(uri, other));
        }
        match outcome {
            Some(outcome) => Ok(Read {
                outcome,
                dropped,
                ..read
            }),
            None => Err(McpError::Transport {
                method: METHOD,
                reason: format!(
                    "the server answered {uri} with contents of other resources only ({}); dropped",
                    dropped.join(", ")
                ),
            }),
        }
    }
}

/// One read for an agent (contents parts of other resources dropped, named in
/// [`Read::dropped`]), or why it failed, worded for people.
pub type AgentRead = Result<Read, String>;

/// Why a resource of a server that is not connected is not read.
pub const NOT_CONNECTED: &str = "the server is not connected";

impl Connection {
    /// The read every front end hands on to an agent ([`Connection::read_own`]), its failure
    /// explained one way ([`Connection::explain_gone`]: the server's last stderr lines where
    /// they say why, credentials masked).
    pub async fn read_for_agent(&self, uri: &str) -> AgentRead {
        match self.read_own(uri).await {
            Ok(read) => Ok(read),
            Err(e) => Err(self.explain_gone(&e).await),
        }
    }
}

/// [`Connection::read_for_agent`] through a connection that may be missing.
pub async fn for_agent(connection: Option<&Connection>, uri: &str) -> AgentRead {
    match connection {
        Some(c) => c.read_for_agent(uri).await,
        None => Err(NOT_CONNECTED.to_string()),
    }
}

/// True when a contents part's URI is the requested URI or a part of it (`/…` or `#…`
/// below it, as a multi-part read has). The one definition of "its own contents":
/// `mcpick check`'s `read.matches-list` rule and [`Connection::read_own`] both use it.
pub fn is_part_of(part_uri: &str, uri: &str) -> bool {
    part_uri == uri
        || part_uri
            .strip_prefix(uri.trim_end_matches('/'))
            .is_some_and(|rest| rest.starts_with(['/', '#']))
}

/// The warning for one dropped part.
pub fn dropped_part(uri: &str, other: &str) -> String {
    format!("warning: {}", dropped_part_words(uri, other))
}

/// What is wrong with one dropped part, as a log's warning says it.
fn dropped_part_words(uri: &str, other: &str) -> String {
    format!(
        "resources/read {uri}: dropped a contents part under `{other}`, not the requested resource"
    )
}

/// `outcome` with only the parts of `uri` ([`is_part_of`]), and the URIs of the parts
/// dropped. `None` when there were parts and none was `uri`'s.
pub fn own_parts(uri: &str, outcome: ReadOutcome) -> (Option<ReadOutcome>, Vec<String>) {
    let ReadOutcome::Contents(parts) = outcome else {
        return (Some(outcome), Vec::new());
    };
    let (own, others): (Vec<ResourceContents>, Vec<ResourceContents>) = parts
        .into_iter()
        .partition(|part| part_uri(part).is_some_and(|p| is_part_of(p, uri)));
    let dropped: Vec<String> = others
        .iter()
        .map(|p| part_uri(p).unwrap_or("(a part without a URI)").to_string())
        .collect();
    if own.is_empty() {
        return (None, dropped);
    }
    (Some(ReadOutcome::Contents(own)), dropped)
}

fn part_uri(part: &ResourceContents) -> Option<&str> {
    match part {
        ResourceContents::TextResourceContents { uri, .. }
        | ResourceContents::BlobResourceContents { uri, .. } => Some(uri),
        _ => None,
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
    fn a_reads_size_counts_text_bytes_and_decoded_blobs() {
        let read = Read::of(ReadOutcome::Contents(vec![
            ResourceContents::text("héllo", "a://1"),
            ResourceContents::BlobResourceContents {
                uri: "a://2".into(),
                mime_type: None,
                blob: "AAAAAAAA".into(),
                meta: None,
            },
        ]));
        assert_eq!(read.size(), 6 + 6);
        assert_eq!(Read::of(ReadOutcome::Empty).size(), 0);
    }

    fn text(uri: &str) -> ResourceContents {
        ResourceContents::text("x", uri)
    }

    #[test]
    fn only_the_requested_resources_parts_are_kept() {
        let (kept, dropped) = own_parts(
            "demo://multi/bundle",
            ReadOutcome::Contents(vec![
                text("demo://multi/bundle"),
                text("file:///secret.md"),
                text("demo://multi/bundle/part-1.txt"),
                text("demo://multi/bundle#2"),
                text("demo://multi/bundler"),
            ]),
        );
        assert_eq!(
            kept,
            Some(ReadOutcome::Contents(vec![
                text("demo://multi/bundle"),
                text("demo://multi/bundle/part-1.txt"),
                text("demo://multi/bundle#2"),
            ]))
        );
        assert_eq!(dropped, ["file:///secret.md", "demo://multi/bundler"]);
        // Nothing of its own: no outcome (an error for the caller), the others named.
        let (kept, dropped) = own_parts("a://x", ReadOutcome::Contents(vec![text("a://y")]));
        assert_eq!((kept, dropped), (None, vec!["a://y".to_string()]));
        // Empty and not-found pass through.
        assert_eq!(
            own_parts("a://x", ReadOutcome::Empty),
            (Some(ReadOutcome::Empty), vec![])
        );
    }

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
