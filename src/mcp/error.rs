//! Errors of the connection layer, worded for a person: which request, what the server said,
//! and whether it means "not found" (which servers in the wild signal in several ways).

use std::time::Duration;

use rmcp::service::ServiceError;
use serde_json::Value;

use super::limit;
use super::sse::error_chain;
use crate::sanitize;

/// Longest server-provided error message kept, in characters.
const MAX_MESSAGE_CHARS: usize = 1000;

/// Why a request to one server failed. Messages never include the server name: callers wrap
/// them with it (see [`crate::mcp::Connection`]).
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("could not start `{command}`: {reason}")]
    Spawn { command: String, reason: String },
    #[error("could not connect to {target}: {reason}")]
    Connect { target: String, reason: String },
    #[error("{method} timed out after {}s", after.as_secs_f32())]
    Timeout {
        method: &'static str,
        after: Duration,
    },
    #[error("{method} failed: the server answered error {code}: {message}")]
    Server {
        method: &'static str,
        code: i32,
        message: String,
        data: Option<Value>,
    },
    /// A reply above `--max-message-mib`: the request fails at once (never a timeout).
    #[error("{method} failed: reply larger than {limit_mib} MiB (the --max-message-mib limit)")]
    TooLarge {
        method: &'static str,
        limit_mib: u64,
    },
    /// A reply that is not JSON at all (`Infinity`, a cut line, garbage).
    #[error("{method} failed: {message}")]
    InvalidJson {
        method: &'static str,
        message: String,
    },
    #[error("{method} failed: the connection to the server closed")]
    Closed { method: &'static str },
    #[error("{method} failed: {reason}")]
    Transport {
        method: &'static str,
        reason: String,
    },
    #[error(
        "{method} returned the cursor `{cursor}` again on page {page}; stopped to avoid an endless loop"
    )]
    CursorLoop {
        method: &'static str,
        cursor: String,
        page: usize,
    },
    #[error("{method} returned {pages} empty pages in a row; stopped to avoid an endless loop")]
    EmptyPages { method: &'static str, pages: usize },
    /// Fresh cursors over pages of entries already listed (a server paging one URI forever).
    #[error(
        "{method} returned {pages} pages in a row with no entry it had not already listed; stopped at the limit on repeated pages"
    )]
    RepeatedPages { method: &'static str, pages: usize },
    /// More entries repeated than new ones (pages mixing a few new URIs into many old ones).
    #[error(
        "{method} sent {received} entries but only {distinct} different ones; stopped at the limit on repeated entries"
    )]
    RepeatedEntries {
        method: &'static str,
        received: usize,
        distinct: usize,
    },
    /// The server's definition could not be used (an unset variable, a bad field); the reason
    /// names the file and the field. No connection was attempted.
    #[error("{reason}")]
    Config { reason: String },
    /// The server wants an OAuth sign-in (it answered 401 with a challenge, or refused the
    /// stored one and it could not be refreshed).
    /// `login` is what to give `mcpick login`: the server's name, or `--url URL`.
    #[error("needs login: run `mcpick login {login}`")]
    NeedsLogin { login: String },
    /// The sign-in's grant is too narrow for one request: the server answered 403
    /// `insufficient_scope` naming the scope it needs (a step-up, MCP authorization
    /// specification). `scope` is that scope, space-separated (empty: it named none).
    #[error("{}", needs_scope(method, login, scope))]
    NeedsScope {
        method: &'static str,
        login: String,
        scope: String,
    },
}

/// The one line a step-up needs: the `mcpick login` that asks for the wider scope. The
/// scope comes from the server: a token that is not a plain word is quoted for the shell,
/// and one that cannot be (a quote or a control character in it) is not put on a command
/// line at all.
fn needs_scope(method: &str, login: &str, scope: &str) -> String {
    let words: Option<Vec<String>> = scope.split_whitespace().map(shell_word).collect();
    match words {
        Some(words) if !words.is_empty() => {
            let flags: String = words.iter().map(|w| format!(" --scope {w}")).collect();
            format!(
                "the server needs a wider sign-in for {method}: run `mcpick login {login}{flags}`"
            )
        }
        Some(_) => format!(
            "the server refused {method} to this sign-in (403 insufficient_scope, naming no \
             scope): run `mcpick login {login}` to sign in again"
        ),
        None => format!(
            "the server refused {method} to this sign-in (403 insufficient_scope) and named a \
             scope that is not a plain word; sign in again with `mcpick login {login} --scope …`"
        ),
    }
}

/// `word` as the shell reads it: as it is when plain, else in single quotes; `None` when
/// it holds a quote, a backslash or a control character.
fn shell_word(word: &str) -> Option<String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || ":._/-+=@,".contains(c);
    if word.chars().all(plain) {
        Some(word.to_string())
    } else if word
        .chars()
        .all(|c| !c.is_control() && c != '\'' && c != '\\')
    {
        Some(format!("'{word}'"))
    } else {
        None
    }
}

/// What kind of failure stopped a server: what a front end decides on (offer a sign-in,
/// retry, say "not found"), never the words, which are for a person and go with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// The server wants an OAuth sign-in (`mcpick login`).
    NeedsLogin,
    /// Its definition could not be used, or its command could not be started.
    NotStarted,
    /// Its command comes from a project's files and the person has not approved it
    /// (`mcpick trust`): it is never started.
    NotApproved,
    /// Its address could not be reached.
    Unreachable,
    /// It did not answer in time.
    TimedOut,
    /// It answered with an error of its own.
    ServerError,
    /// A reply or a listing went past one of mcpick's limits (size, endless pages).
    Limit,
    /// A reply that is not JSON or not MCP.
    Invalid,
    /// The connection ended (the process exited, the stream closed).
    Closed,
    /// Anything else on the way (a transport error).
    Transport,
}

/// A failure: its kind, for front ends to act on, and the words for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    pub why: String,
}

impl Failure {
    pub fn new(kind: FailureKind, why: impl Into<String>) -> Failure {
        Failure {
            kind,
            why: why.into(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// Methods a server may leave out with nothing wrong: "method not found" from one of them
/// means the server does not offer it.
const OPTIONAL_METHODS: &[&str] = &["resources/templates/list"];

impl McpError {
    /// "Method not found" (-32601) for a method a server may leave out
    /// (`resources/templates/list`): a note about the server, never its "last error".
    pub fn is_optional_missing(&self) -> bool {
        matches!(self, McpError::Server { method, code: METHOD_NOT_FOUND, .. }
            if OPTIONAL_METHODS.contains(method))
    }

    /// The kind of this failure (see [`FailureKind`]).
    pub fn kind(&self) -> FailureKind {
        match self {
            McpError::NeedsLogin { .. } | McpError::NeedsScope { .. } => FailureKind::NeedsLogin,
            McpError::Spawn { .. } | McpError::Config { .. } => FailureKind::NotStarted,
            McpError::Connect { .. } => FailureKind::Unreachable,
            McpError::Timeout { .. } => FailureKind::TimedOut,
            McpError::Server { .. } => FailureKind::ServerError,
            McpError::TooLarge { .. }
            | McpError::CursorLoop { .. }
            | McpError::EmptyPages { .. }
            | McpError::RepeatedPages { .. }
            | McpError::RepeatedEntries { .. } => FailureKind::Limit,
            McpError::InvalidJson { .. } => FailureKind::Invalid,
            McpError::Closed { .. } => FailureKind::Closed,
            McpError::Transport { .. } => FailureKind::Transport,
        }
    }

    /// Maps an rmcp request error, naming the request it belongs to.
    pub(crate) fn from_service(method: &'static str, error: ServiceError) -> Self {
        match error {
            ServiceError::McpError(data) if data.code.0 == limit::TRANSPORT_FAULT => {
                transport_fault(method, &data.message, data.data.as_ref())
            }
            ServiceError::McpError(data) => McpError::Server {
                method,
                code: data.code.0,
                message: sanitize::line(&data.message, MAX_MESSAGE_CHARS),
                data: data.data,
            },
            ServiceError::TransportClosed => McpError::Closed { method },
            ServiceError::Timeout { timeout } => McpError::Timeout {
                method,
                after: timeout,
            },
            // rmcp's wrapper says "Transport [rmcp::…::WorkerTransport<…>] error"; the cause
            // inside it is what a person needs.
            ServiceError::TransportSend(e) => McpError::Transport {
                method,
                reason: sanitize::line(&error_chain(&*e.error), MAX_MESSAGE_CHARS),
            },
            other => McpError::Transport {
                method,
                reason: sanitize::line(&other.to_string(), MAX_MESSAGE_CHARS),
            },
        }
    }

    /// This error with every secret of `secrets` replaced in its text (see
    /// [`crate::redact::Secrets`]); the connection layer applies it to every error it returns.
    pub fn scrubbed(self, secrets: &crate::redact::Secrets) -> Self {
        let s = |text: String| secrets.scrub(&text);
        match self {
            McpError::Spawn { command, reason } => McpError::Spawn {
                command: s(command),
                reason: s(reason),
            },
            McpError::Connect { target, reason } => McpError::Connect {
                target: s(target),
                reason: s(reason),
            },
            McpError::Server {
                method,
                code,
                message,
                data,
            } => McpError::Server {
                method,
                code,
                message: s(message),
                data,
            },
            McpError::Transport { method, reason } => McpError::Transport {
                method,
                reason: s(reason),
            },
            McpError::Config { reason } => McpError::Config { reason: s(reason) },
            other => other,
        }
    }

    /// The message with the server named by `target` (its definition as written) instead of
    /// the target the connection layer knew (the expanded definition, masked).
    pub fn to_string_as(&self, target: &str) -> String {
        match self {
            McpError::Spawn { reason, .. } => McpError::Spawn {
                command: target.to_string(),
                reason: reason.clone(),
            }
            .to_string(),
            McpError::Connect { reason, .. } => McpError::Connect {
                target: target.to_string(),
                reason: reason.clone(),
            }
            .to_string(),
            other => other.to_string(),
        }
    }

    /// The "not found" reading of this error, if it is one (see [`NotFound::classify`]).
    pub fn not_found(&self, modern: bool) -> Option<NotFound> {
        match self {
            McpError::Server {
                code,
                message,
                data,
                ..
            } => NotFound::classify(*code, message, data.as_ref(), modern),
            _ => None,
        }
    }
}

/// The error a transport synthesised for a reply it could not pass on (see
/// [`super::limit`]); a server sending the same code without mcpick's marker is a plain
/// server error.
fn transport_fault(method: &'static str, message: &str, data: Option<&Value>) -> McpError {
    let fault = data.and_then(|d| d.get("mcpick")).and_then(Value::as_str);
    let limit_mib = data
        .and_then(|d| d.get("limitMib"))
        .and_then(Value::as_u64)
        .unwrap_or(u64::from(limit::DEFAULT_MAX_MESSAGE_MIB));
    match fault {
        Some(limit::FAULT_TOO_LARGE) => McpError::TooLarge { method, limit_mib },
        Some(limit::FAULT_INVALID_JSON) => McpError::InvalidJson {
            method,
            message: sanitize::line(message, MAX_MESSAGE_CHARS),
        },
        _ => McpError::Server {
            method,
            code: limit::TRANSPORT_FAULT,
            message: sanitize::line(message, MAX_MESSAGE_CHARS),
            data: data.cloned(),
        },
    }
}

/// A server's answer that the resource does not exist.
#[derive(Debug, Clone, PartialEq)]
pub struct NotFound {
    pub code: i32,
    pub message: String,
}

/// Legacy revisions' "resource not found".
pub const RESOURCE_NOT_FOUND: i32 = -32002;
/// JSON-RPC "invalid params"; the modern era's "resource not found".
pub const INVALID_PARAMS: i32 = -32602;
/// JSON-RPC "method not found".
pub const METHOD_NOT_FOUND: i32 = -32601;

impl NotFound {
    /// Decides whether an error reply means "no such resource".
    ///
    /// `-32002` always does. `-32602` does in the modern era, or when it carries `data.uri`
    /// (the modern shape) or a not-found message; in the legacy era it is otherwise a plain
    /// "invalid params". Any other code counts when the message says so, because SDK servers
    /// often throw generic errors (`Unknown resource: …`, `Resource … not found`).
    pub fn classify(code: i32, message: &str, data: Option<&Value>, modern: bool) -> Option<Self> {
        let has_uri = data.and_then(|d| d.get("uri")).is_some();
        let found = match code {
            RESOURCE_NOT_FOUND => true,
            INVALID_PARAMS => modern || has_uri || message_says_not_found(message),
            // "Method not found" is about the method, never the resource.
            METHOD_NOT_FOUND => false,
            _ => message_says_not_found(message),
        };
        found.then(|| NotFound {
            code,
            message: message.to_string(),
        })
    }
}

fn message_says_not_found(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    [
        "not found",
        "unknown resource",
        "no such resource",
        "no resource",
        "does not exist",
        "doesn't exist",
        "not exist",
    ]
    .iter()
    .any(|needle| m.contains(needle))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_step_up_names_the_login_that_asks_for_the_wider_scope() {
        let line = |scope: &str| needs_scope("resources/read", "docs", scope);
        assert_eq!(
            line("mcp files:read"),
            "the server needs a wider sign-in for resources/read: run \
             `mcpick login docs --scope mcp --scope files:read`"
        );
        assert!(
            line("a;rm").ends_with("--scope 'a;rm'`"),
            "{}",
            line("a;rm")
        );
        assert!(!line("it's").contains("--scope it"), "{}", line("it's"));
        assert!(!line("x\u{1b}[2J").contains('\u{1b}'));
        assert!(line("").contains("naming no scope"));
    }

    #[test]
    fn legacy_code_is_not_found() {
        assert!(NotFound::classify(-32002, "whatever", None, false).is_some());
    }

    #[test]
    fn invalid_params_depends_on_era_uri_and_message() {
        assert!(NotFound::classify(-32602, "Invalid params", None, true).is_some());
        assert!(NotFound::classify(-32602, "Invalid params", None, false).is_none());
        let data = json!({"uri": "x://y"});
        assert!(NotFound::classify(-32602, "Invalid params", Some(&data), false).is_some());
        assert!(NotFound::classify(-32602, "Resource x://y not found", None, false).is_some());
    }

    #[test]
    fn other_codes_by_message() {
        assert!(NotFound::classify(-32603, "Unknown resource: demo://x", None, false).is_some());
        assert!(NotFound::classify(0, "File does not exist", None, false).is_some());
        assert!(NotFound::classify(-32603, "Internal error", None, true).is_none());
        assert!(NotFound::classify(-32601, "Method not found", None, true).is_none());
        let missing = |method, code| McpError::Server {
            method,
            code,
            message: "Method not found".into(),
            data: None,
        };
        assert!(missing("resources/templates/list", METHOD_NOT_FOUND).is_optional_missing());
        assert!(!missing("resources/templates/list", -32603).is_optional_missing());
        assert!(!missing("resources/list", METHOD_NOT_FOUND).is_optional_missing());
    }

    #[test]
    fn synthesised_transport_faults_read_as_limits() {
        let fault = |line: String| {
            let v: Value = serde_json::from_str(&line).unwrap();
            let data: rmcp::ErrorData = serde_json::from_value(v["error"].clone()).unwrap();
            McpError::from_service("resources/read", ServiceError::McpError(data))
        };
        let limit = limit::MessageLimit::from_mib(8);
        let too_large = fault(limit::too_large_reply(&json!(1), limit));
        assert!(matches!(too_large, McpError::TooLarge { limit_mib: 8, .. }));
        assert_eq!(
            too_large.to_string(),
            "resources/read failed: reply larger than 8 MiB (the --max-message-mib limit)"
        );
        let invalid = fault(limit::invalid_json_reply(
            &json!(1),
            "expected value",
            limit,
        ));
        assert_eq!(
            invalid.to_string(),
            "resources/read failed: invalid JSON from the server: expected value"
        );
        // The same code from a server, without mcpick's marker, is the server's error.
        let data = rmcp::ErrorData::new(rmcp::model::ErrorCode(limit::TRANSPORT_FAULT), "x", None);
        let plain = McpError::from_service("resources/read", ServiceError::McpError(data));
        assert!(matches!(plain, McpError::Server { .. }));
    }
}
