//! Requests whose method `serve` knows but whose params do not fit it.
//!
//! rmcp hands such a request to the handler as a custom (unknown) method, which would be
//! answered "method not found" (-32601). JSON-RPC calls it "invalid params" (-32602), and a
//! client fixing its request needs to know which param is wrong: [`invalid`] says so.

use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, GetPromptRequestParams, InitializeRequestParams, PaginatedRequestParams,
    ReadResourceRequestParams, SubscribeRequestParams, UnsubscribeRequestParams,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// The error for a request of `method` that rmcp could not parse: invalid params naming
/// what is wrong, for a method `serve` answers; `None` for any other method.
pub fn invalid(method: &str, params: Option<&Value>) -> Option<ErrorData> {
    let problem = match method {
        "resources/read" => problem::<ReadResourceRequestParams>(params),
        "resources/subscribe" => problem::<SubscribeRequestParams>(params),
        "resources/unsubscribe" => problem::<UnsubscribeRequestParams>(params),
        "prompts/get" => problem::<GetPromptRequestParams>(params),
        "tools/call" => problem::<CallToolRequestParams>(params),
        "initialize" => problem::<InitializeRequestParams>(params),
        "resources/list" | "resources/templates/list" | "prompts/list" | "tools/list" => {
            problem::<PaginatedRequestParams>(params)
        }
        "ping" | "server/discover" | "subscriptions/listen" => None,
        _ => return None,
    };
    let message = match problem {
        Some(problem) => format!("invalid params for {method}: {problem}"),
        None => format!("invalid params for {method}"),
    };
    Some(ErrorData::invalid_params(message, None))
}

/// Why `params` are not a `T`, in serde's words (they quote only the client's own input).
fn problem<T: DeserializeOwned>(params: Option<&Value>) -> Option<String> {
    let params = params.cloned().unwrap_or(Value::Null);
    serde_json::from_value::<T>(params)
        .err()
        .map(|e| crate::sanitize::line(&e.to_string(), 300))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_known_method_with_bad_params_is_invalid_params_naming_the_field() {
        let error = invalid("resources/read", Some(&json!({ "uri": 5 }))).unwrap();
        assert_eq!(error.code.0, -32602);
        assert!(
            error.message.contains("resources/read"),
            "{}",
            error.message
        );
        assert!(error.message.contains("string"), "{}", error.message);
        let error = invalid("resources/read", None).unwrap();
        assert!(
            error.message.contains("resources/read"),
            "{}",
            error.message
        );
        let error = invalid("prompts/get", Some(&json!({}))).unwrap();
        assert!(error.message.contains("`name`"), "{}", error.message);
    }

    #[test]
    fn an_unknown_method_is_left_to_method_not_found() {
        assert!(invalid("resources/steal", Some(&json!({}))).is_none());
    }
}
