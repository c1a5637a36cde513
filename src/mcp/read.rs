//! `resources/read`, with "not found" and "empty" told apart from failure.

use rmcp::model::{ReadResourceRequestParams, ReadResourceResponse, ResourceContents};

use super::connection::Connection;
use super::error::{McpError, NotFound};

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

impl Connection {
    /// Reads one resource. Server errors that mean "not found" become
    /// [`ReadOutcome::NotFound`]; everything else is an error.
    pub async fn read(&self, uri: &str) -> Result<ReadOutcome, McpError> {
        const METHOD: &str = "resources/read";
        if !self.has_resources() {
            return Ok(ReadOutcome::NotFound(NotFound {
                code: 0,
                message: "the server publishes no resources".into(),
            }));
        }
        let response = self
            .request(
                METHOD,
                self.peer()
                    .read_resource_once(ReadResourceRequestParams::new(uri)),
            )
            .await;
        match response {
            Ok(ReadResourceResponse::Complete(result)) if result.contents.is_empty() => {
                Ok(ReadOutcome::Empty)
            }
            Ok(ReadResourceResponse::Complete(result)) => Ok(ReadOutcome::Contents(result.contents)),
            Ok(ReadResourceResponse::InputRequired(_)) => Err(McpError::Transport {
                method: METHOD,
                reason: "the server asked for more input (input_required), which mcpick does not provide"
                    .into(),
            }),
            Ok(_) => Err(McpError::Transport {
                method: METHOD,
                reason: "the server sent a reply mcpick does not understand".into(),
            }),
            Err(error) => match error.not_found(self.is_modern()) {
                Some(not_found) => Ok(ReadOutcome::NotFound(not_found)),
                None => Err(error),
            },
        }
    }
}
