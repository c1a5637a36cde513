//! The one message-size limit every transport enforces, and how a reply that breaks it (or
//! is not JSON at all) still fails the request it answers at once instead of timing out.
//!
//! Transports read each message through a [`Message`]: it keeps at most the limit in memory,
//! and past it only scans for the JSON-RPC `id` (with [`IdScanner`]) while the rest streams by.
//! With the id known, the transport hands rmcp a JSON-RPC error for that request carrying a
//! private code ([`TRANSPORT_FAULT`]); [`super::McpError::from_service`] turns it into
//! [`super::McpError::TooLarge`] or [`super::McpError::InvalidJson`].

use serde_json::{Value, json};

/// The default `--max-message-mib`.
pub const DEFAULT_MAX_MESSAGE_MIB: u32 = 64;

/// JSON-RPC error code of the errors mcpick's transports synthesise (in the range JSON-RPC
/// leaves to implementations); `data.mcpick` says which fault.
pub(crate) const TRANSPORT_FAULT: i32 = -32_090;
/// `data.mcpick` of a reply above the limit.
pub(crate) const FAULT_TOO_LARGE: &str = "reply-too-large";
/// `data.mcpick` of a reply that is not valid JSON.
pub(crate) const FAULT_INVALID_JSON: &str = "invalid-json";

/// Longest `id` value (as JSON text) the scanner keeps; longer ones are not request ids
/// mcpick sent.
const MAX_ID_BYTES: usize = 256;

/// The largest message accepted, in MiB and in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MessageLimit {
    mib: u32,
}

impl MessageLimit {
    pub const fn from_mib(mib: u32) -> Self {
        MessageLimit {
            mib: if mib == 0 { 1 } else { mib },
        }
    }

    pub const fn mib(self) -> u32 {
        self.mib
    }

    pub const fn bytes(self) -> usize {
        (self.mib as usize).saturating_mul(1024 * 1024)
    }
}

impl Default for MessageLimit {
    fn default() -> Self {
        MessageLimit::from_mib(DEFAULT_MAX_MESSAGE_MIB)
    }
}

/// A JSON-RPC error response for request `id`, as one line of JSON (no newline): what a
/// transport delivers in place of a reply it could not accept.
pub(crate) fn fault_reply(id: &Value, fault: &str, message: &str, limit: MessageLimit) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": TRANSPORT_FAULT,
            "message": message,
            "data": { "mcpick": fault, "limitMib": limit.mib() },
        },
    })
    .to_string()
}

/// The error line for a reply above `limit`.
pub(crate) fn too_large_reply(id: &Value, limit: MessageLimit) -> String {
    let message = format!("reply larger than {} MiB", limit.mib());
    fault_reply(id, FAULT_TOO_LARGE, &message, limit)
}

/// The error line for a reply that is not valid JSON; `detail` is the parser's complaint.
pub(crate) fn invalid_json_reply(id: &Value, detail: &str, limit: MessageLimit) -> String {
    let message = format!("invalid JSON from the server: {detail}");
    fault_reply(id, FAULT_INVALID_JSON, &message, limit)
}

/// The answer of a server (`mcpick serve`) to a request above `limit`, which it did not
/// read: JSON-RPC "Invalid Request" for `id`, or for `null` when the id could not be found
/// (JSON-RPC 2.0 §5), naming the limit.
pub(crate) fn request_too_large_reply(id: &Value, limit: MessageLimit) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32_600,
            "message": format!("request larger than {} MiB: mcpick serve reads no request above this limit", limit.mib()),
            "data": { "limitMib": limit.mib() },
        },
    })
    .to_string()
}

/// Why [`check_json`] refused a message, and the id of the request it answers (if found).
#[derive(Debug, PartialEq)]
pub(crate) struct InvalidJson {
    pub(crate) id: Option<Value>,
    pub(crate) detail: String,
}

/// Checks that a whole message is JSON (cheaply: nothing is built). rmcp drops lines that
/// are not, silently; this lets the transport fail the request instead.
pub(crate) fn check_json(message: &[u8]) -> Result<(), InvalidJson> {
    match serde_json::from_slice::<serde::de::IgnoredAny>(message) {
        Ok(_) => Ok(()),
        Err(e) => {
            let mut scanner = IdScanner::default();
            scanner.feed(message);
            Err(InvalidJson {
                id: scanner.id().cloned(),
                detail: e.to_string(),
            })
        }
    }
}

/// One incoming message, assembled piece by piece, never holding more than the limit.
#[derive(Debug)]
pub(crate) struct Message {
    limit: MessageLimit,
    buf: Vec<u8>,
    over: Option<Oversized>,
}

#[derive(Debug, Default)]
struct Oversized {
    scanner: IdScanner,
    reported: bool,
}

/// What the transport should do after a piece of an oversized message.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Nothing yet.
    Pending,
    /// The message is too large and answers request `id`: fail it now (reported once).
    TooLarge(Value),
}

/// How a message ended.
#[derive(Debug, PartialEq)]
pub(crate) enum Finished {
    /// Within the limit: the whole message.
    Complete(Vec<u8>),
    /// Above the limit, and its request was already failed through a [`Verdict::TooLarge`].
    Reported,
    /// Above the limit and no `id` found (a notification, or garbage): drop it.
    Dropped,
}

impl Message {
    pub(crate) fn new(limit: MessageLimit) -> Self {
        Message {
            limit,
            buf: Vec::new(),
            over: None,
        }
    }

    /// Bytes kept so far (zero once the message went over the limit).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    /// Adds the next piece of the message.
    pub(crate) fn push(&mut self, piece: &[u8]) -> Verdict {
        if self.over.is_none() && self.buf.len().saturating_add(piece.len()) > self.limit.bytes() {
            let mut over = Oversized::default();
            over.scanner.feed(&self.buf);
            self.buf = Vec::new();
            self.over = Some(over);
        }
        let Some(over) = &mut self.over else {
            self.buf.extend_from_slice(piece);
            return Verdict::Pending;
        };
        if over.reported {
            return Verdict::Pending;
        }
        over.scanner.feed(piece);
        match over.scanner.id() {
            Some(id) => {
                over.reported = true;
                Verdict::TooLarge(id.clone())
            }
            None => Verdict::Pending,
        }
    }

    /// Ends the message and starts the next one.
    pub(crate) fn finish(&mut self) -> Finished {
        match self.over.take() {
            None => Finished::Complete(std::mem::take(&mut self.buf)),
            Some(over) if over.reported => Finished::Reported,
            Some(_) => Finished::Dropped,
        }
    }
}

/// Finds the top-level `"id"` of a JSON-RPC message while it streams by, without keeping
/// the message: a few bytes of state, whatever the message's size or key order.
#[derive(Debug, Default)]
pub(crate) struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1, the next string is a key.
    expect_key: bool,
    /// Capturing a key (its first bytes; `None` once longer than "id").
    key: Option<Vec<u8>>,
    /// The last key read at depth 1 was `"id"`, and its `:` is due.
    key_is_id: bool,
    /// Capturing the value of `"id"`.
    value: Option<Vec<u8>>,
    id: Option<Value>,
    /// Found the id, or the input is not an object: stop looking.
    done: bool,
}

impl IdScanner {
    /// The id found so far.
    pub(crate) fn id(&self) -> Option<&Value> {
        self.id.as_ref()
    }

    pub(crate) fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.done {
                return;
            }
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if let Some(value) = &mut self.value {
            value.push(b);
            if value.len() > MAX_ID_BYTES {
                self.done = true;
                return;
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if let Some(key) = self.key.take() {
                    self.key_is_id = key == b"\"id";
                }
                return;
            }
            if let Some(key) = &mut self.key {
                if key.len() < 3 {
                    key.push(b);
                } else {
                    self.key = None;
                }
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expect_key {
                    self.expect_key = false;
                    self.key = Some(vec![b'"']);
                }
            }
            b'{' | b'[' => {
                if self.depth == 0 && b == b'[' {
                    self.done = true; // a batch or not a message: no single id
                }
                self.depth += 1;
                if self.depth == 1 {
                    self.expect_key = true;
                }
            }
            b'}' | b']' => {
                if self.depth == 1 {
                    self.end_value();
                    self.done = true;
                }
                self.depth = self.depth.saturating_sub(1);
            }
            b',' if self.depth == 1 => {
                self.end_value();
                self.expect_key = true;
            }
            b':' if self.depth == 1 && self.key_is_id => {
                self.key_is_id = false;
                self.value.get_or_insert_with(Vec::new);
            }
            b' ' | b'\t' | b'\r' | b'\n' => {}
            // Anything but whitespace (or a UTF-8 BOM) before the object: not a message.
            _ if self.depth == 0 && ![0xEF, 0xBB, 0xBF].contains(&b) => self.done = true,
            _ => {}
        }
    }

    /// The `,` or `}` that ends a top-level value: if it was the id's, parse it.
    fn end_value(&mut self) {
        let Some(mut value) = self.value.take() else {
            return;
        };
        value.pop(); // the `,` or `}` itself
        match serde_json::from_slice::<Value>(&value) {
            Ok(id @ (Value::Number(_) | Value::String(_))) => {
                self.id = Some(id);
                self.done = true;
            }
            // `"id": null` or junk: not a request id; keep looking is pointless.
            _ => self.done = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Option<Value> {
        let mut s = IdScanner::default();
        s.feed(text.as_bytes());
        s.id().cloned()
    }

    #[test]
    fn finds_the_top_level_id_wherever_it_is() {
        assert_eq!(
            scan(r#"{"jsonrpc":"2.0","id":7,"result":{}}"#),
            Some(json!(7))
        );
        assert_eq!(
            scan(r#"{"result":{"id":1,"x":[{"id":2}]},"jsonrpc":"2.0","id":"a-1"}"#),
            Some(json!("a-1"))
        );
        assert_eq!(scan(r#" { "id" : 12 , "x": "\"id\":3" }"#), Some(json!(12)));
        assert_eq!(
            scan(r#"{"x":"tricky \\","id":4}"#),
            Some(json!(4)),
            "an escaped backslash ends the string"
        );
        assert_eq!(scan(r#"{"idx":1,"id":5}"#), Some(json!(5)));
        assert_eq!(scan(r#"{"jsonrpc":"2.0","id":9}"#), Some(json!(9)));
    }

    #[test]
    fn finds_no_id_where_there_is_none() {
        assert_eq!(scan(r#"{"jsonrpc":"2.0","method":"x"}"#), None);
        assert_eq!(scan(r#"{"id":null,"error":{}}"#), None);
        assert_eq!(scan("this is not json {{{"), None);
        assert_eq!(scan(r#"[{"id":1}]"#), None);
        assert_eq!(scan(r#"{"result":{"id":1}}"#), None);
    }

    #[test]
    fn works_byte_by_byte_and_stops_early() {
        let text = r#"{"jsonrpc":"2.0","id":42,"result":{"contents":[{"text":"#;
        let mut s = IdScanner::default();
        for b in text.bytes() {
            s.feed(&[b]);
        }
        assert_eq!(s.id(), Some(&json!(42)), "found before the message ends");
    }

    #[test]
    fn a_message_within_the_limit_is_kept_whole() {
        let mut m = Message::new(MessageLimit::from_mib(1));
        assert_eq!(m.push(b"{\"id\":1,"), Verdict::Pending);
        assert_eq!(m.push(b"\"result\":{}}"), Verdict::Pending);
        assert_eq!(
            m.finish(),
            Finished::Complete(br#"{"id":1,"result":{}}"#.to_vec())
        );
        assert_eq!(m.len(), 0);
    }

    #[test]
    fn an_oversized_message_is_reported_once_with_its_id() {
        let limit = MessageLimit::from_mib(1);
        let mut m = Message::new(limit);
        assert_eq!(
            m.push(br#"{"jsonrpc":"2.0","id":3,"result":""#),
            Verdict::Pending
        );
        let big = vec![b'x'; limit.bytes()];
        assert_eq!(m.push(&big), Verdict::TooLarge(json!(3)));
        assert_eq!(m.len(), 0, "nothing kept past the limit");
        assert_eq!(m.push(&big), Verdict::Pending);
        assert_eq!(m.finish(), Finished::Reported);
        // The next message starts clean.
        assert_eq!(m.push(b"{}"), Verdict::Pending);
        assert_eq!(m.finish(), Finished::Complete(b"{}".to_vec()));
    }

    #[test]
    fn an_oversized_message_with_the_id_last_is_reported_when_the_id_arrives() {
        let limit = MessageLimit::from_mib(1);
        let mut m = Message::new(limit);
        let mut head = br#"{"result":{"text":""#.to_vec();
        head.extend(vec![b'x'; limit.bytes()]);
        assert_eq!(m.push(&head), Verdict::Pending);
        assert_eq!(m.push(br#""},"id":"r9"}"#), Verdict::TooLarge(json!("r9")));
        assert_eq!(m.finish(), Finished::Reported);
        let mut m = Message::new(limit);
        let mut note = br#"{"method":"x","params":""#.to_vec();
        note.extend(vec![b'x'; limit.bytes()]);
        assert_eq!(m.push(&note), Verdict::Pending);
        assert_eq!(m.finish(), Finished::Dropped);
    }

    #[test]
    fn synthesised_replies_are_json_rpc_errors() {
        let limit = MessageLimit::from_mib(8);
        let line = too_large_reply(&json!(5), limit);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], 5);
        assert_eq!(v["error"]["code"], TRANSPORT_FAULT);
        assert_eq!(v["error"]["message"], "reply larger than 8 MiB");
        assert_eq!(v["error"]["data"]["mcpick"], FAULT_TOO_LARGE);
        let bad = check_json(br#"{"jsonrpc":"2.0","id":"k","result":{"x":Infinity}}"#);
        let bad = bad.unwrap_err();
        assert_eq!(bad.id, Some(json!("k")));
        assert!(bad.detail.contains("line 1"), "{}", bad.detail);
        assert!(check_json(br#"{"id":1}"#).is_ok());
    }
}
