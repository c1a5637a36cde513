//! The host's requests the upstream has not answered yet, so that when the upstream ends
//! each of them, and every request after, is answered with why (the server failing, with its
//! reason) instead of waiting forever. Pure, no I/O.
//!
//! A line is classified by its envelope only (`id`, `method`, whether it has a `result` or
//! an `error`; the `params.requestId` of a cancellation): a request of the host is in flight from when it is forwarded until the
//! upstream replies to its id or the host cancels it.

use std::collections::HashSet;

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

/// JSON-RPC error code of "the server is gone" (the range JSON-RPC leaves to servers).
pub const SERVER_GONE: i32 = -32_000;

/// The top-level fields of a JSON-RPC message that say what it is.
#[derive(Deserialize)]
struct Envelope {
    id: Option<Value>,
    method: Option<String>,
    result: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
}

/// What a line is.
#[derive(Debug, PartialEq)]
enum Kind {
    /// A request, with its id.
    Request(Value),
    /// A reply to request `id`.
    Reply(Value),
    /// `notifications/cancelled` of request `id`.
    Cancelled(Value),
    Other,
}

fn kind(line: &[u8]) -> Kind {
    let Ok(e) = serde_json::from_slice::<Envelope>(line) else {
        return Kind::Other;
    };
    match (e.method.as_deref(), e.id) {
        // A small notification: parsed whole for its `params.requestId`.
        (Some("notifications/cancelled"), None) => serde_json::from_slice::<Value>(line)
            .ok()
            .and_then(|m| m.pointer("/params/requestId").cloned())
            .map_or(Kind::Other, Kind::Cancelled),
        (Some(_), Some(id)) if is_id(&id) => Kind::Request(id),
        (None, Some(id)) if is_id(&id) && (e.result.is_some() || e.error.is_some()) => {
            Kind::Reply(id)
        }
        _ => Kind::Other,
    }
}

fn is_id(id: &Value) -> bool {
    matches!(id, Value::Number(_) | Value::String(_))
}

/// What to do with a line from the host once the filter let it pass.
#[derive(Debug, PartialEq)]
pub enum Pass {
    /// Forward it to the upstream.
    Forward,
    /// The upstream is gone: answer the host with this line instead.
    Answer(Vec<u8>),
    /// The upstream is gone and the line asks nothing (a notification, a reply): drop it.
    Drop,
}

#[derive(Debug, Default)]
pub struct InFlight {
    /// By the id's JSON text.
    waiting: HashSet<String>,
    /// Why the upstream is gone, once it is.
    gone: Option<String>,
}

impl InFlight {
    /// A line from the host, about to be forwarded.
    pub fn from_host(&mut self, line: &[u8]) -> Pass {
        let kind = kind(line);
        if let Some(reason) = &self.gone {
            return match kind {
                Kind::Request(id) => Pass::Answer(gone_reply(&id, reason)),
                _ => Pass::Drop,
            };
        }
        match kind {
            Kind::Request(id) => {
                self.waiting.insert(id.to_string());
            }
            Kind::Cancelled(id) => {
                self.waiting.remove(&id.to_string());
            }
            _ => {}
        }
        Pass::Forward
    }

    /// A line from the upstream, about to be relayed.
    pub fn from_upstream(&mut self, line: &[u8]) {
        if self.waiting.is_empty() {
            return;
        }
        if let Kind::Reply(id) = kind(line) {
            self.waiting.remove(&id.to_string());
        }
    }

    /// The upstream ended for `reason`: the replies for every request still waiting; every
    /// later request is answered the same way ([`InFlight::from_host`]).
    pub fn gone(&mut self, reason: &str) -> Vec<Vec<u8>> {
        self.gone = Some(reason.to_string());
        let mut ids: Vec<String> = self.waiting.drain().collect();
        ids.sort();
        ids.iter()
            .filter_map(|text| serde_json::from_str::<Value>(text).ok())
            .map(|id| gone_reply(&id, reason))
            .collect()
    }
}

/// The error for request `id` when the upstream is gone.
fn gone_reply(id: &Value, reason: &str) -> Vec<u8> {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": SERVER_GONE, "message": reason },
    })
    .to_string()
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &[u8]) -> Value {
        serde_json::from_slice(line).unwrap()
    }

    #[test]
    fn what_is_unanswered_when_the_upstream_ends_is_answered_with_why() {
        let mut f = InFlight::default();
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;
        assert_eq!(f.from_host(call), Pass::Forward);
        assert_eq!(
            f.from_host(br#"{"jsonrpc":"2.0","id":"b","method":"ping"}"#),
            Pass::Forward
        );
        assert_eq!(
            f.from_host(br#"{"jsonrpc":"2.0","id":"c","method":"ping"}"#),
            Pass::Forward
        );
        // The host answers a request of the upstream's with an id of its own numbering:
        // not in flight.
        assert_eq!(
            f.from_host(br#"{"jsonrpc":"2.0","id":7,"result":{"roots":[]}}"#),
            Pass::Forward
        );
        // The upstream asks the host something with id 1: not a reply to the host's 1.
        f.from_upstream(br#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#);
        // It answers "b"; the host cancels "c".
        f.from_upstream(br#"{"jsonrpc":"2.0","id":"b","result":{}}"#);
        f.from_host(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}"#,
        );

        let replies = f.gone("the server `up` ended (exit status: 1)");
        assert_eq!(replies.len(), 1, "only 1 is waiting");
        let reply = text(&replies[0]);
        assert_eq!(reply["id"], 1);
        assert_eq!(reply["error"]["code"], SERVER_GONE);
        assert_eq!(
            reply["error"]["message"],
            "the server `up` ended (exit status: 1)"
        );

        // After: requests are answered the same way, the rest is dropped.
        let Pass::Answer(reply) = f.from_host(br#"{"jsonrpc":"2.0","id":9,"method":"ping"}"#)
        else {
            panic!()
        };
        assert_eq!(text(&reply)["id"], 9);
        assert_eq!(
            f.from_host(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Pass::Drop
        );
        assert_eq!(
            f.from_host(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#),
            Pass::Drop
        );
    }
}
