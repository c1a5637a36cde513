//! Requests for audits (`mcpick check`): sent through rmcp's peer like every other request,
//! but the reply is handed back as JSON, whatever its shape, and errors keep their code. An
//! audit needs what the server really sent (a priority of 1.5, a missing `ttlMs`), which
//! the typed and lenient paths repair or drop on purpose.

#![allow(deprecated)] // resources/subscribe is the legacy era's way, probed only there

use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams,
    ListResourceTemplatesRequest, ListResourcesRequest, PaginatedRequestParams,
    ReadResourceRequest, ReadResourceRequestParams, Reference, SubscribeRequest,
    SubscribeRequestParams,
};
use serde_json::Value;

use super::connection::Connection;
use super::error::McpError;
use super::raw;

impl Connection {
    /// One page of `resources/list` (or `resources/templates/list`), as sent.
    pub async fn probe_list(
        &self,
        templates: bool,
        cursor: Option<&str>,
    ) -> Result<Value, McpError> {
        let params = cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c.into())));
        let (method, request) = if templates {
            (
                "resources/templates/list",
                ClientRequest::ListResourceTemplatesRequest(ListResourceTemplatesRequest {
                    method: Default::default(),
                    params,
                    extensions: Default::default(),
                }),
            )
        } else {
            (
                "resources/list",
                ClientRequest::ListResourcesRequest(ListResourcesRequest {
                    method: Default::default(),
                    params,
                    extensions: Default::default(),
                }),
            )
        };
        self.probe(method, request).await
    }

    /// `resources/read` of `uri`, as sent.
    pub async fn probe_read(&self, uri: &str) -> Result<Value, McpError> {
        let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(
            ReadResourceRequestParams::new(uri),
        ));
        self.probe("resources/read", request).await
    }

    /// `resources/subscribe` to `uri` (the legacy era's subscription), as sent.
    pub async fn probe_subscribe(&self, uri: &str) -> Result<Value, McpError> {
        let request = ClientRequest::SubscribeRequest(SubscribeRequest::new(
            SubscribeRequestParams::new(uri),
        ));
        self.probe("resources/subscribe", request).await
    }

    /// `completion/complete` of `argument` of the template `template`, from `value`.
    pub async fn probe_complete(
        &self,
        template: &str,
        argument: &str,
        value: &str,
    ) -> Result<Value, McpError> {
        let request =
            ClientRequest::CompleteRequest(CompleteRequest::new(CompleteRequestParams::new(
                Reference::for_resource(template),
                ArgumentInfo::new(argument, value),
            )));
        self.probe("completion/complete", request).await
    }

    async fn probe(&self, method: &'static str, request: ClientRequest) -> Result<Value, McpError> {
        self.request(method, raw::send(self.peer(), request))
            .await
            .map(raw::into_value)
    }
}
