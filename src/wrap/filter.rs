//! The proxy's decisions, one JSON-RPC line at a time: pure, no I/O.
//!
//! A line that cannot concern resources passes as the very bytes it came in, without being
//! parsed: one that has neither `resources` nor a `\u` escape in it (a method name written
//! with escapes, `"resources\/read"` or `"\u0072esources/read"`, still has one of the two),
//! and, from the upstream, a reply whose `id` (found by [`IdScanner`], which builds nothing)
//! answers no resources request. Everything else is parsed, and passes unchanged too unless
//! it is a resources method: `resources/list` and `resources/templates/list` replies keep
//! what the set allows, reads and subscriptions of anything else are answered "not found"
//! here (`-32002` legacy, `-32602` 2026-07-28) and never reach the upstream, a read's
//! contents parts under another URI are dropped, and `notifications/resources/updated` is
//! relayed for allowed URIs only.
//!
//! What "allowed" means is the `--expose` choice ([`Expose`], as `serve`'s):
//! `allowed` (the default) publishes what the marks and the policy let through; `included`
//! only what the set includes under its budget, ranked by [`Sources::resolve`] over
//! everything listed so far with counts estimated from each resource's `size` (the proxy
//! reads nothing on its own). A URI no listing named (a template's expansion) follows the
//! `allowed` rule either way. When a later page or a changed set moves a resource the host
//! was given in or out, the host is told its list changed.

use std::collections::{HashMap, HashSet};

use serde_json::{Value, json};

use crate::catalog::item::{AUDIENCE_ASSISTANT, AUDIENCE_USER};
use crate::catalog::{Item, ItemId};
use crate::context::{Candidate, ContextSet, Marks, Measures, Sources, alias, filtered};
use crate::mcp::is_part_of;
use crate::mcp::limit::IdScanner;
pub use crate::serve::Expose;

/// The `_meta` key a 2026-07-28 request names its protocol version with.
const MODERN_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

/// The `_meta` key a 2026-07-28 notification names the `subscriptions/listen` it belongs to
/// with.
const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// What to do with a line from the host.
#[derive(Debug, PartialEq)]
pub enum FromHost {
    /// Pass it to the upstream as it came.
    Forward,
    /// Answer the host with this line; the upstream is not asked.
    Answer(Vec<u8>),
}

/// What to do with a line from the upstream.
#[derive(Debug, PartialEq)]
pub enum FromUpstream {
    Forward,
    /// Send this line in its place.
    Replace(Vec<u8>),
    Drop,
}

/// A resources request waiting for its reply.
#[derive(Debug, Clone, PartialEq)]
enum Pending {
    List,
    Templates,
    Read(String),
}

/// What a listing said about a resource: the annotations the set's policy looks at, and
/// what ranking under a budget uses.
#[derive(Debug, Clone, Default)]
struct Annotated {
    priority: Option<f32>,
    audience: Option<u8>,
    name: String,
    modified_ms: Option<i64>,
    size: Option<u64>,
}

/// One proxied session's state.
pub struct Filter {
    /// The server name the set's marks use.
    server: String,
    set: ContextSet,
    /// The set's marks on `server` in canonical form ([`alias::canonical_marks`]): what a
    /// URI asked for is compared with, whatever its spelling.
    canonical: Marks,
    expose: Expose,
    /// By the request id's JSON text.
    pending: HashMap<String, Pending>,
    /// What listings said about each URI, for deciding reads.
    listed: HashMap<String, Annotated>,
    /// The listed URIs in the order they came (candidates for ranking).
    order: Vec<String>,
    /// `--expose included`: the listed URIs the set includes under its budget.
    included: HashSet<String>,
    /// Notifications for the host the proxy owes it (see [`Filter::take_notices`]).
    notices: Vec<Vec<u8>>,
    /// The host asked for the list: it is told when the set changes what the list holds.
    host_listed: bool,
    /// The host speaks the 2026-07-28 era (its requests carry the protocol version).
    modern: bool,
    /// 2026-07-28: the host's open `subscriptions/listen` requests that asked for list
    /// changes, by id; a list change reaches the host through them.
    listens: Vec<Value>,
    /// What mcpick writes for the set: never handed on, wherever the upstream lists it
    /// ([`crate::context::OwnOutputs`]).
    own: std::sync::Arc<crate::context::OwnOutputs>,
}

impl Filter {
    pub fn new(server: &str, set: ContextSet, expose: Expose) -> Filter {
        Filter {
            server: server.to_string(),
            canonical: alias::canonical_marks(&set.marks, server),
            set,
            expose,
            pending: HashMap::new(),
            listed: HashMap::new(),
            order: Vec::new(),
            included: HashSet::new(),
            notices: Vec::new(),
            host_listed: false,
            modern: false,
            listens: Vec::new(),
            own: Default::default(),
        }
    }

    /// This filter with mcpick's own outputs left out, as every resolution leaves them out.
    pub fn leaving_out(self, own: std::sync::Arc<crate::context::OwnOutputs>) -> Filter {
        Filter { own, ..self }
    }

    /// The set changed: decisions from now on follow it. Returns the notifications that tell
    /// the host its list changed, when the change shows or hides a resource the upstream
    /// listed and the host has a list: `notifications/resources/list_changed`, on each open
    /// `subscriptions/listen` that asked for it (2026-07-28), or once (legacy).
    pub fn set_changed(&mut self, set: ContextSet) -> Vec<Vec<u8>> {
        let before = self.published();
        self.canonical = alias::canonical_marks(&set.marks, &self.server);
        self.set = set;
        self.rank();
        if before == self.published() {
            return Vec::new();
        }
        self.list_changed()
    }

    /// Notifications owed to the host since the last call: a later listing page moved a
    /// resource it was given in or out of the budget (`--expose included`).
    pub fn take_notices(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.notices)
    }

    /// Which listed URIs the host is given, in listing order.
    fn published(&self) -> Vec<bool> {
        self.order
            .iter()
            .map(|u| self.allows_as_listed(u))
            .collect()
    }

    /// `--expose included`: ranks everything listed so far under the set's budget, with
    /// counts estimated from sizes.
    fn rank(&mut self) {
        if self.expose != Expose::Included {
            return;
        }
        let items: Vec<Item> = self
            .order
            .iter()
            .map(|uri| {
                let a = &self.listed[uri];
                Item::ranked(uri, &a.name, a.priority, a.audience, a.modified_ms, a.size)
            })
            .collect();
        let cands: Vec<Candidate<'_>> = items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let id = ItemId {
                    server: 0,
                    index: index as u32,
                };
                Candidate::from_item(id, &self.server, item)
            })
            .collect();
        let sources = Sources::new(cands, [self.server.as_str()], [])
            .leaving_out(std::sync::Arc::clone(&self.own));
        let preview = sources.resolve(&self.set.marks, &self.set.policy, &Measures::new());
        self.included = preview
            .included
            .iter()
            .map(|i| sources.candidates[i.index].uri().to_string())
            .collect();
    }

    /// `notifications/resources/list_changed` for the host, once it has a list: on each open
    /// `subscriptions/listen` that asked for it (2026-07-28), or once (legacy).
    fn list_changed(&self) -> Vec<Vec<u8>> {
        if !self.host_listed {
            return Vec::new();
        }
        let notice = |meta: Option<&Value>| {
            let mut n = json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"});
            if let Some(id) = meta {
                n["params"] = json!({ "_meta": { SUBSCRIPTION_ID_KEY: id } });
            }
            n.to_string().into_bytes()
        };
        if self.modern {
            self.listens.iter().map(|id| notice(Some(id))).collect()
        } else {
            vec![notice(None)]
        }
    }

    /// True when the host may have the resource `uri`: the set allows it as written, and
    /// excludes it under no spelling an upstream that normalises paths reads as the same
    /// resource ([`alias::excluded`]: the case of scheme and host, percent-encoding, dot and
    /// empty segments, `localhost` for a `file:` host, a query, a fragment, a trailing
    /// slash), so `file:///p//secret` cannot reach an excluded `file:///p/secret`.
    fn allows(&self, uri: &str) -> bool {
        self.allows_as_listed(uri)
            && !alias::excluded(&self.set.marks, &self.canonical, &self.server, uri)
            && self.own.why(uri).is_none()
            && self.own.why(&alias::canonical(uri)).is_none()
    }

    /// True when the set allows the resource `uri` exactly as written: what a listing
    /// keeps (a listed URI is what the person marked).
    fn allows_as_listed(&self, uri: &str) -> bool {
        if self.own.why(uri).is_some() {
            return false;
        }
        if self.expose == Expose::Included && self.listed.contains_key(uri) {
            return self.included.contains(uri);
        }
        let a = self.listed.get(uri).cloned().unwrap_or_default();
        let mark = self.set.marks.effective(&self.server, uri).map(|e| e.mark);
        filtered(mark, &self.set.policy, a.priority, a.audience).is_none()
    }

    /// True when the set allows some expansion of the template: its literal part (up to the
    /// first `{`) is not excluded, and its annotations pass the policy.
    fn allows_template(&self, template: &Value) -> bool {
        let Some(text) = template.get("uriTemplate").and_then(Value::as_str) else {
            return false;
        };
        let literal = &text[..text.find('{').unwrap_or(text.len())];
        let mark = self
            .set
            .marks
            .effective_prefix(&self.server, literal)
            .map(|e| e.mark);
        let a = annotated(template);
        filtered(mark, &self.set.policy, a.priority, a.audience).is_none()
    }

    pub fn from_host(&mut self, line: &[u8]) -> FromHost {
        if !may_concern_resources(line) && !self.may_end_a_listen(line) {
            return FromHost::Forward;
        }
        let Ok(message) = serde_json::from_slice::<Value>(line) else {
            return FromHost::Forward; // the upstream answers what it cannot parse
        };
        // A JSON-RPC batch (legacy eras allow them) would carry its requests past the
        // filter, which decides one message at a time: each request in it is refused.
        if let Value::Array(batch) = &message {
            return FromHost::Answer(batch_refused(batch));
        }
        if message
            .pointer("/params/_meta")
            .and_then(|m| m.get(MODERN_VERSION_KEY))
            .is_some()
        {
            self.modern = true;
        }
        match message.get("method").and_then(Value::as_str) {
            Some("subscriptions/listen") => {
                if message.pointer("/params/notifications/resourcesListChanged")
                    == Some(&json!(true))
                    && let Some(id) = message.get("id")
                {
                    self.listens.push(id.clone());
                }
                return FromHost::Forward;
            }
            Some("notifications/cancelled") => {
                if let Some(id) = message.pointer("/params/requestId") {
                    self.listens.retain(|l| l != id);
                }
                return FromHost::Forward;
            }
            _ => {}
        }
        let (Some(method), Some(id)) = (
            message.get("method").and_then(Value::as_str),
            message.get("id"),
        ) else {
            return FromHost::Forward;
        };
        let key = id.to_string();
        let uri = || {
            message
                .pointer("/params/uri")
                .and_then(Value::as_str)
                .unwrap_or("")
        };
        match method {
            "resources/list" => {
                self.host_listed = true;
                self.pending.insert(key, Pending::List);
            }
            "resources/templates/list" => {
                self.pending.insert(key, Pending::Templates);
            }
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
                let uri = uri();
                if !self.allows(uri) {
                    let modern = message
                        .pointer("/params/_meta")
                        .and_then(|m| m.get(MODERN_VERSION_KEY))
                        .is_some();
                    return FromHost::Answer(not_found(id, uri, modern));
                }
                if method == "resources/read" {
                    self.pending.insert(key, Pending::Read(uri.to_string()));
                }
            }
            _ => {}
        }
        FromHost::Forward
    }

    pub fn from_upstream(&mut self, line: &[u8]) -> FromUpstream {
        let concerns = may_concern_resources(line);
        if !concerns && self.pending.is_empty() {
            return FromUpstream::Forward;
        }
        if !concerns {
            // A reply to a resources request always names resources (`resources`,
            // `contents`…)? Not an empty page: look the id up without parsing.
            let mut scanner = IdScanner::default();
            scanner.feed(line);
            match scanner.id() {
                Some(id) if self.pending.contains_key(&id.to_string()) => {}
                _ => return FromUpstream::Forward,
            }
        }
        let Ok(mut message) = serde_json::from_slice::<Value>(line) else {
            return FromUpstream::Forward;
        };
        if let Some(method) = message.get("method").and_then(Value::as_str) {
            if method == "notifications/resources/updated" {
                let uri = message
                    .pointer("/params/uri")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                if !self.allows(uri) {
                    return FromUpstream::Drop;
                }
            }
            return FromUpstream::Forward;
        }
        let Some(pending) = message
            .get("id")
            .and_then(|id| self.pending.remove(&id.to_string()))
        else {
            return FromUpstream::Forward;
        };
        let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) else {
            return FromUpstream::Forward; // an error passes as it is
        };
        match pending {
            Pending::List => {
                let Some(Value::Array(resources)) = result.get_mut("resources") else {
                    return FromUpstream::Forward;
                };
                // Only a budget can move what earlier pages published (`allowed` decides
                // each resource on its own): the comparison, O(listed), is made for it alone.
                let ranked = self.expose == Expose::Included;
                let before = if ranked { self.published() } else { Vec::new() };
                for r in resources.iter() {
                    if let Some(uri) = r.get("uri").and_then(Value::as_str)
                        && self.listed.insert(uri.to_string(), annotated(r)).is_none()
                    {
                        self.order.push(uri.to_string());
                    }
                }
                self.rank();
                // A page that moves a resource of an earlier one in or out of the budget.
                if ranked && self.published()[..before.len()] != before[..] {
                    let notices = self.list_changed();
                    self.notices.extend(notices);
                }
                let n = resources.len();
                resources.retain(|r| {
                    r.get("uri")
                        .and_then(Value::as_str)
                        .is_some_and(|uri| self.allows_as_listed(uri))
                });
                if resources.len() == n {
                    return FromUpstream::Forward;
                }
            }
            Pending::Templates => {
                let Some(Value::Array(templates)) = result.get_mut("resourceTemplates") else {
                    return FromUpstream::Forward;
                };
                let n = templates.len();
                templates.retain(|t| self.allows_template(t));
                if templates.len() == n {
                    return FromUpstream::Forward;
                }
            }
            Pending::Read(uri) => {
                let Some(Value::Array(contents)) = result.get_mut("contents") else {
                    return FromUpstream::Forward;
                };
                let n = contents.len();
                contents.retain(|part| {
                    part.get("uri")
                        .and_then(Value::as_str)
                        .is_some_and(|part| is_part_of(part, &uri) && self.allows_part(part, &uri))
                });
                if contents.len() == n {
                    return FromUpstream::Forward;
                }
            }
        }
        // Only what was cut is written again; a reply kept whole goes as its own bytes.
        FromUpstream::Replace(message.to_string().into_bytes())
    }

    /// A line to parse beyond resources methods: a cancellation, which may end an open
    /// listen.
    fn may_end_a_listen(&self, line: &[u8]) -> bool {
        !self.listens.is_empty() && memchr::memmem::find(line, b"notifications/cancelled").is_some()
    }

    /// A part of an allowed read: the resource itself, or a sub-part the set does not
    /// exclude on its own.
    fn allows_part(&self, part: &str, uri: &str) -> bool {
        part == uri || self.allows(part)
    }
}

/// True unless the line certainly has nothing to do with resources (see the module doc).
fn may_concern_resources(line: &[u8]) -> bool {
    memchr::memmem::find(line, b"resources").is_some()
        || memchr::memmem::find(line, b"\\u").is_some()
}

/// What a listed resource or template says about itself.
fn annotated(item: &Value) -> Annotated {
    let annotations = item.get("annotations");
    let priority = annotations
        .and_then(|a| a.get("priority"))
        .and_then(Value::as_f64)
        .map(|p| p as f32);
    let audience = annotations
        .and_then(|a| a.get("audience"))
        .and_then(Value::as_array)
        .map(|roles| {
            roles.iter().fold(0, |bits, role| match role.as_str() {
                Some("user") => bits | AUDIENCE_USER,
                Some("assistant") => bits | AUDIENCE_ASSISTANT,
                _ => bits,
            })
        });
    let text = |key: &str| item.get(key).and_then(Value::as_str);
    Annotated {
        priority,
        audience,
        name: text("title").or(text("name")).unwrap_or("").to_string(),
        modified_ms: annotations
            .and_then(|a| a.get("lastModified"))
            .and_then(Value::as_str)
            .and_then(crate::catalog::time::parse_timestamp),
        size: item.get("size").and_then(Value::as_u64),
    }
}

/// The errors answering a batch that concerns resources: one per request in it (a batch of
/// notifications only gets `[]`, which a client ignores).
fn batch_refused(batch: &[Value]) -> Vec<u8> {
    let errors: Vec<Value> = batch
        .iter()
        .filter_map(|m| m.get("id"))
        .map(|id| {
            json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {
                    "code": -32_600,
                    "message": "a JSON-RPC batch that concerns resources is not passed on by mcpick's filter; send its requests one at a time",
                },
            })
        })
        .collect();
    Value::Array(errors).to_string().into_bytes()
}

/// The era's "resource not found" error for request `id`.
fn not_found(id: &Value, uri: &str, modern: bool) -> Vec<u8> {
    let code = if modern { -32_602 } else { -32_002 };
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": code,
            "message": format!("Resource not found: {uri}"),
            "data": { "uri": uri },
        },
    })
    .to_string()
    .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Mark, Target};

    fn filter() -> Filter {
        let mut set = ContextSet::default();
        set.marks.set(
            Target::prefix("up", "py://items/beta/"),
            Some(Mark::Exclude),
        );
        Filter::new("up", set, Expose::Allowed)
    }

    fn text(bytes: Vec<u8>) -> Value {
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn other_methods_pass_as_they_are_and_resources_are_filtered() {
        let mut f = filter();
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#;
        assert_eq!(f.from_host(call), FromHost::Forward);
        assert_eq!(
            f.from_upstream(br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#),
            FromUpstream::Forward
        );

        let list = br#"{"jsonrpc":"2.0","id":"a","method":"resources\/list"}"#;
        assert_eq!(f.from_host(list), FromHost::Forward);
        let page = br#"{"jsonrpc":"2.0","id":"a","result":{"resources":[{"uri":"py://items/alpha/1","name":"1"},{"uri":"py://items/beta/2","name":"2"}]}}"#;
        let FromUpstream::Replace(kept) = f.from_upstream(page) else {
            panic!()
        };
        assert_eq!(
            text(kept)["result"]["resources"],
            json!([{"uri":"py://items/alpha/1","name":"1"}])
        );

        let read = br#"{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"py://items/beta/2"}}"#;
        let FromHost::Answer(answer) = f.from_host(read) else {
            panic!()
        };
        assert_eq!(text(answer)["error"]["code"], -32002);
        let modern = br#"{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"py://items/beta/2","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        let FromHost::Answer(answer) = f.from_host(modern) else {
            panic!()
        };
        assert_eq!(text(answer)["error"]["code"], -32602);

        let read = br#"{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"py://items/alpha/1"}}"#;
        assert_eq!(f.from_host(read), FromHost::Forward);
        let reply = br#"{"jsonrpc":"2.0","id":9,"result":{"contents":[{"uri":"py://items/alpha/1","text":"a"},{"uri":"file:///etc/passwd","text":"x"}]}}"#;
        let FromUpstream::Replace(kept) = f.from_upstream(reply) else {
            panic!()
        };
        assert_eq!(
            text(kept)["result"]["contents"],
            json!([{"uri":"py://items/alpha/1","text":"a"}])
        );

        let updated = br#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"py://items/beta/2"}}"#;
        assert_eq!(f.from_upstream(updated), FromUpstream::Drop);
        let updated = br#"{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"py://items/alpha/1"}}"#;
        assert_eq!(f.from_upstream(updated), FromUpstream::Forward);
    }

    /// mcpick's own outputs, listed by an upstream that publishes the project, are neither
    /// listed to the host nor read for it, in any form the upstream may resolve.
    #[test]
    fn mcpicks_own_outputs_are_never_handed_on() {
        let mut own = crate::context::OwnOutputs::default();
        own.folder(std::path::Path::new("/p/.mcpick"), "deliveries");
        let mut f = filter().leaving_out(std::sync::Arc::new(own));
        let list = br#"{"jsonrpc":"2.0","id":"a","method":"resources/list"}"#;
        assert_eq!(f.from_host(list), FromHost::Forward);
        let page = br#"{"jsonrpc":"2.0","id":"a","result":{"resources":[{"uri":"file:///p/README.md","name":"r"},{"uri":"file:///p/.mcpick/set.claude-code.md","name":"d"}]}}"#;
        let FromUpstream::Replace(kept) = f.from_upstream(page) else {
            panic!()
        };
        assert_eq!(
            text(kept)["result"]["resources"],
            json!([{"uri":"file:///p/README.md","name":"r"}])
        );
        for uri in [
            "file:///p/.mcpick/set.claude-code.md",
            "file:///p/x/../.mcpick/a.md",
        ] {
            let read = format!(
                r#"{{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{{"uri":"{uri}"}}}}"#
            );
            let FromHost::Answer(answer) = f.from_host(read.as_bytes()) else {
                panic!("{uri} read")
            };
            assert_eq!(text(answer)["error"]["code"], -32002, "{uri}");
        }
    }

    /// A read of an excluded resource written in another form the upstream may resolve to
    /// it is refused too; a batch is refused request by request.
    #[test]
    fn another_form_of_an_excluded_uri_and_a_batch_are_refused() {
        let mut f = filter();
        let read = |uri: &str| {
            json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": uri}})
                .to_string()
        };
        for form in [
            "py://items/beta/1",
            "PY://items/beta/1",
            "py://ITEMS/beta/1",
            "py://items/%62eta/1",
            "py://items/alpha/../beta/1",
            "py://items/./beta/1",
            "py://items/beta/1#part",
            "py://items/beta/1?x=1",
            "py://items/beta/1/",
            "py://items//beta/1",
            "py://items/beta//1",
        ] {
            assert!(
                matches!(f.from_host(read(form).as_bytes()), FromHost::Answer(_)),
                "{form} reached the upstream"
            );
        }
        assert_eq!(
            f.from_host(read("py://items/alpha/1").as_bytes()),
            FromHost::Forward
        );
        let batch = format!(
            "[{},{}]",
            read("py://items/alpha/1"),
            read("py://items/beta/1")
        );
        let FromHost::Answer(reply) = f.from_host(batch.as_bytes()) else {
            panic!("a batch reached the upstream")
        };
        let reply = text(reply);
        assert_eq!(reply.as_array().map(Vec::len), Some(2), "{reply}");
        assert_eq!(reply[0]["error"]["code"], -32600);
    }

    /// `file:` aliases a path-normalising server reads as the excluded file, also when the
    /// exclude was written in one of them, and after the set changed.
    #[test]
    fn every_spelling_of_an_excluded_file_is_refused() {
        let mut set = ContextSet::default();
        set.marks.set(
            Target::exact("fs", "file://localhost/proj/secret.env"),
            Some(Mark::Exclude),
        );
        let mut f = Filter::new("fs", ContextSet::default(), Expose::Allowed);
        f.set_changed(set);
        let read = |uri: &str| {
            json!({"jsonrpc": "2.0", "id": 7, "method": "resources/read", "params": {"uri": uri}})
                .to_string()
        };
        for form in [
            "file:///proj/secret.env",
            "file:///proj//secret.env",
            "file:////proj/secret.env",
            "file://localhost/proj/secret.env",
            "file:/proj/secret.env",
            "file:///proj/%2Fsecret.env",
        ] {
            assert!(
                matches!(f.from_host(read(form).as_bytes()), FromHost::Answer(_)),
                "{form} reached the upstream"
            );
        }
        assert_eq!(
            f.from_host(read("file:///proj/README.md").as_bytes()),
            FromHost::Forward
        );
    }

    #[test]
    fn a_set_change_that_shows_or_hides_a_listed_resource_tells_the_host() {
        let page = br#"{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"py://items/alpha/1","name":"1"},{"uri":"py://items/beta/2","name":"2"}]}}"#;
        let exclude_alpha = || {
            let mut set = ContextSet::default();
            set.marks.set(
                Target::prefix("up", "py://items/alpha/"),
                Some(Mark::Exclude),
            );
            set
        };
        // Legacy: one notification, once the host has a list.
        let mut f = filter();
        assert!(
            f.set_changed(exclude_alpha()).is_empty(),
            "nothing listed yet"
        );
        let mut f = filter();
        f.from_host(br#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#);
        f.from_upstream(page);
        let notes = f.set_changed(exclude_alpha());
        assert_eq!(notes.len(), 1);
        assert_eq!(
            text(notes[0].clone()),
            json!({"jsonrpc":"2.0","method":"notifications/resources/list_changed"})
        );
        // The same set again changes nothing.
        assert!(f.set_changed(exclude_alpha()).is_empty());
        // A mark on a resource nobody listed changes nothing either.
        let mut other = exclude_alpha();
        other
            .marks
            .set(Target::exact("up", "py://elsewhere"), Some(Mark::Pin));
        assert!(f.set_changed(other).is_empty());

        // 2026-07-28: through each open listen that asked for list changes.
        let mut f = filter();
        let listen = br#"{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"resourcesListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#;
        assert_eq!(f.from_host(listen), FromHost::Forward);
        f.from_host(br#"{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#);
        f.from_upstream(page);
        let notes = f.set_changed(exclude_alpha());
        assert_eq!(notes.len(), 1);
        assert_eq!(
            text(notes[0].clone())["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
            "L"
        );
        // The host cancelled its listen: nothing to send it through.
        f.from_host(
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}"#,
        );
        assert!(f.set_changed(filter().set).is_empty());
    }

    #[test]
    fn the_policy_hides_what_listings_annotate_out() {
        let mut f = filter();
        f.from_host(br#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#);
        let page = br#"{"jsonrpc":"2.0","id":1,"result":{"resources":[{"uri":"u:1","name":"1","annotations":{"audience":["user"]}}]}}"#;
        let FromUpstream::Replace(kept) = f.from_upstream(page) else {
            panic!()
        };
        assert_eq!(text(kept)["result"]["resources"], json!([]));
        let read = br#"{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"u:1"}}"#;
        assert!(matches!(f.from_host(read), FromHost::Answer(_)));
    }

    #[test]
    fn expose_included_publishes_what_the_budget_takes_and_says_when_a_page_moves_it() {
        let mut set = ContextSet::default();
        set.marks.set(Target::exact("up", "u:pin"), Some(Mark::Pin));
        set.policy.budget = crate::context::Budget::Tokens(300);
        let page1 = br#"{"jsonrpc":"2.0","id":0,"result":{"resources":[{"uri":"u:low","name":"low","size":800,"annotations":{"priority":0.5}},{"uri":"u:pin","name":"pin","size":400,"annotations":{"priority":0.1}}],"nextCursor":"2"}}"#;
        let page2 = br#"{"jsonrpc":"2.0","id":0,"result":{"resources":[{"uri":"u:high","name":"high","size":800,"annotations":{"priority":0.9}}]}}"#;
        let uris = |line: Vec<u8>| -> Vec<String> {
            text(line)["result"]["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["uri"].as_str().unwrap().to_string())
                .collect()
        };
        let list = |f: &mut Filter, id: u32, page: &[u8]| {
            let request = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"resources/list"}}"#);
            assert_eq!(f.from_host(request.as_bytes()), FromHost::Forward);
            let page =
                String::from_utf8_lossy(page).replacen(r#""id":0"#, &format!(r#""id":{id}"#), 1);
            match f.from_upstream(page.as_bytes()) {
                FromUpstream::Replace(line) => uris(line),
                // Nothing cut: the page goes as it came.
                FromUpstream::Forward => uris(page.into_bytes()),
                other => panic!("{other:?}"),
            }
        };

        // Allowed (the default): the budget cuts nothing.
        let mut f = Filter::new("up", set.clone(), Expose::Allowed);
        assert_eq!(list(&mut f, 1, page1), ["u:low", "u:pin"]);
        assert_eq!(list(&mut f, 2, page2), ["u:high"]);
        assert!(f.take_notices().is_empty());

        // Included: the pin (100 tokens) and what fits after it (200 of 300).
        let mut f = Filter::new("up", set.clone(), Expose::Included);
        assert_eq!(list(&mut f, 1, page1), ["u:low", "u:pin"]);
        assert!(f.take_notices().is_empty());
        // The second page ranks `high` above `low`: `low` no longer fits, and the host,
        // which has it from the first page, is told.
        assert_eq!(list(&mut f, 2, page2), ["u:high"]);
        let notices = f.take_notices();
        assert_eq!(notices.len(), 1);
        assert_eq!(
            text(notices[0].clone())["method"],
            "notifications/resources/list_changed"
        );
        // A fresh listing: what the budget takes, and nothing owed.
        assert_eq!(list(&mut f, 3, page1), ["u:pin"]);
        assert_eq!(list(&mut f, 4, page2), ["u:high"]);
        assert!(f.take_notices().is_empty());
        let read =
            br#"{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"u:low"}}"#;
        assert!(matches!(f.from_host(read), FromHost::Answer(_)));
        let read =
            br#"{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"u:high"}}"#;
        assert_eq!(f.from_host(read), FromHost::Forward);

        // A bigger budget takes `low` back in: the host is told.
        set.policy.budget = crate::context::Budget::Tokens(1000);
        assert_eq!(f.set_changed(set).len(), 1);
        assert_eq!(list(&mut f, 7, page1), ["u:low", "u:pin"]);
    }
}
