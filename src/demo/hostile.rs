//! `--hostile`: replies with malformed entries mixed into valid ones, as real servers send
//! them, to test that one bad entry costs a client that entry only.
//!
//! rmcp's server side serialises typed results, which cannot hold a wrongly typed field. So
//! the demo server runs behind [`Served`], a thin [`Service`] around the handler that, in
//! hostile mode, turns the typed reply into JSON, adds the malformed entries and sends it on
//! as a raw (`CustomResult`) reply. Everything else passes through untouched, era handling
//! included. (rmcp's Streamable HTTP server wants a `ServerHandler`, not any `Service`, so
//! hostile mode is stdio only.)

use std::borrow::Cow;

use rmcp::{
    ErrorData, RoleServer, Service,
    model::{
        ClientNotification, ClientRequest, CustomResult, ProtocolVersion, ServerConfig,
        ServerResult,
    },
    service::{NotificationContext, RequestContext},
};
use serde_json::{Value, json};

use super::server::DemoServer;

/// The malformed entries appended to the first `resources/list` page: one per malformed
/// field (the first one quoting terminal escapes), two without a usable URI. `duplicate` is a URI the
/// page already lists, listed again. Each entry earns a client exactly one warning.
pub fn hostile_resources(duplicate: Option<&str>) -> Vec<Value> {
    let mut entries = vec![
        json!({"uri": "demo://hostile/escape", "name": "escape",
               "annotations": {"priority": "\u{1b}[31mhigh\u{9b}2J\u{1b}]0;pwned\u{7}"}}),
        json!({"uri": "demo://hostile/priority", "name": "priority",
               "annotations": {"priority": "high", "audience": ["user"]}}),
        json!({"uri": "demo://hostile/audience", "name": "audience",
               "annotations": {"audience": ["user", 42], "priority": 0.5}}),
        json!({"uri": "demo://hostile/annotations", "name": "annotations", "annotations": "yes"}),
        json!({"uri": "demo://hostile/size", "name": "size", "size": "big"}),
        json!({"uri": "demo://hostile/last-modified", "name": "last-modified",
               "annotations": {"lastModified": 5}}),
        json!({"uri": "demo://hostile/mime-type", "name": "mime-type", "mimeType": 7}),
        json!({"uri": "demo://hostile/title", "name": "title", "title": 12}),
        json!({"uri": "demo://hostile/description", "name": "description",
               "description": ["not", "a", "string"]}),
        json!({"uri": "demo://hostile/no-name.txt"}),
        json!({"uri": "demo://hostile/numeric-name", "name": 99}),
        json!({"name": "no uri"}),
        json!({"uri": 12345, "name": "numeric uri"}),
    ];
    if let Some(uri) = duplicate {
        entries.push(json!({"uri": uri, "name": "duplicate"}));
    }
    entries
}

/// The malformed templates appended to `resources/templates/list`.
pub fn hostile_templates() -> Vec<Value> {
    vec![
        json!({"uriTemplate": 5, "name": "numeric template"}),
        json!({"name": "no template"}),
        json!({"uriTemplate": "demo://hostile/{id}", "name": 3}),
        json!({"uriTemplate": "demo://hostile/typed/{id}", "name": "bad-mime", "mimeType": 7}),
    ]
}

/// The malformed contents items appended to every `resources/read` reply; none is usable,
/// so what a client keeps is exactly the normal reply.
pub fn hostile_contents(uri: &str) -> Vec<Value> {
    vec![
        json!({"uri": 5, "text": "no usable uri"}),
        json!({"uri": uri, "text": 42}),
        json!({"uri": uri}),
    ]
}

/// The demo server as rmcp runs it: the handler, and in hostile mode the spoiled replies.
#[derive(Debug, Clone)]
pub(crate) struct Served {
    inner: DemoServer,
    hostile: bool,
    /// `--violate no-cache-hints`: list and read results go out raw, so rmcp adds no
    /// `ttlMs`/`cacheScope`.
    no_cache_hints: bool,
}

impl Served {
    pub(crate) fn new(inner: DemoServer, hostile: bool) -> Self {
        Served {
            inner,
            hostile,
            no_cache_hints: false,
        }
    }

    pub(crate) fn without_cache_hints(mut self, no_cache_hints: bool) -> Self {
        self.no_cache_hints = no_cache_hints;
        self
    }
}

impl Service<RoleServer> for Served {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let first_page = matches!(&request, ClientRequest::ListResourcesRequest(r)
            if r.params.as_ref().and_then(|p| p.cursor.as_ref()).is_none());
        let read_uri = match &request {
            ClientRequest::ReadResourceRequest(r) => Some(r.params.uri.clone()),
            _ => None,
        };
        let result = self.inner.handle_request(request, context).await?;
        if self.no_cache_hints
            && matches!(
                result,
                ServerResult::ListResourcesResult(_) | ServerResult::ReadResourceResult(_)
            )
        {
            // rmcp's handler filled the hints in; take them out and send the reply raw.
            let mut value = serde_json::to_value(&result).unwrap_or(Value::Null);
            if let Value::Object(map) = &mut value {
                map.remove("ttlMs");
                map.remove("cacheScope");
            }
            return Ok(ServerResult::CustomResult(CustomResult(value)));
        }
        if !self.hostile {
            return Ok(result);
        }
        Ok(match result {
            ServerResult::ListResourcesResult(page) if first_page => {
                let duplicate = page.resources.first().map(|r| r.uri.clone());
                spoil(&page, "resources", hostile_resources(duplicate.as_deref()))
            }
            ServerResult::ListResourceTemplatesResult(page) => {
                spoil(&page, "resourceTemplates", hostile_templates())
            }
            ServerResult::ReadResourceResult(read) => match read_uri {
                Some(uri) => spoil(&read, "contents", hostile_contents(&uri)),
                None => ServerResult::ReadResourceResult(read),
            },
            other => other,
        })
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner.handle_notification(notification, context).await
    }

    fn get_info(&self) -> ServerConfig {
        Service::get_info(&self.inner)
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Service::supported_protocol_versions(&self.inner)
    }
}

/// `reply` as JSON with `extra` appended to its array `key`, sent raw.
fn spoil(reply: &impl serde::Serialize, key: &str, extra: Vec<Value>) -> ServerResult {
    let mut value = serde_json::to_value(reply).unwrap_or(Value::Null);
    if let Some(Value::Array(array)) = value.get_mut(key) {
        array.extend(extra);
    }
    ServerResult::CustomResult(CustomResult(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{ListResourcesResult, Resource};

    #[test]
    fn a_spoiled_page_keeps_its_entries_and_adds_the_bad_ones() {
        let page = ListResourcesResult::with_all_items(vec![Resource::new("demo://a", "a")]);
        let ServerResult::CustomResult(CustomResult(value)) =
            spoil(&page, "resources", hostile_resources(Some("demo://a")))
        else {
            panic!("not raw")
        };
        let entries = value["resources"].as_array().unwrap();
        assert_eq!(entries.len(), 1 + 14);
        assert_eq!(entries[0], json!({"uri": "demo://a", "name": "a"}));
        assert_eq!(entries[14]["uri"], "demo://a");
        // And rmcp cannot type it, which is the point.
        assert!(serde_json::from_value::<ListResourcesResult>(value).is_err());
    }
}
