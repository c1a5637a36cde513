//! Server definitions: how to reach one MCP server. Config files and the command line both
//! produce these; the connection layer consumes them.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::redact;

/// One MCP server definition with the name it is shown under.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerSpec {
    pub name: String,
    #[serde(flatten)]
    pub transport: TransportSpec,
}

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum TransportSpec {
    /// A child process speaking MCP on its stdin/stdout.
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP; falls back to the legacy HTTP+SSE transport when the server answers
    /// the way the specification's backwards-compatibility rule describes.
    Http {
        url: String,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
    },
    /// The legacy (2024-11-05) HTTP+SSE transport only.
    Sse {
        url: String,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
    },
}

/// How a connection is carried, as connected (an HTTP definition may fall back to SSE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Stdio,
    Http,
    Sse,
}

impl Transport {
    /// The name reports and JSON use.
    pub fn name(self) -> &'static str {
        match self {
            Transport::Stdio => "stdio",
            Transport::Http => "http",
            Transport::Sse => "sse",
        }
    }

    /// A server over the network that went away is tried again, further apart each time;
    /// a stdio server that ended stays failed until a person asks (its process exited).
    pub fn retried(self) -> bool {
        self != Transport::Stdio
    }
}

impl TransportSpec {
    /// For a stdio server whose program cannot be found (not on `PATH`, or no executable file
    /// at the path it names), why: such a server cannot start, and a person should hear it
    /// before a host or a browser tries. `None` when found, or not a stdio server.
    pub fn missing_program(&self) -> Option<String> {
        let TransportSpec::Stdio {
            command, env, cwd, ..
        } = self
        else {
            return None;
        };
        let runnable = |path: &std::path::Path| {
            use std::os::unix::fs::PermissionsExt;
            std::fs::metadata(path)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        };
        if command.contains('/') {
            let path = match cwd {
                Some(dir) => dir.join(command),
                None => PathBuf::from(command),
            };
            return (!runnable(&path)).then(|| {
                format!("`{command}` is not an executable file: the server cannot start")
            });
        }
        let search = env
            .get("PATH")
            .map(std::ffi::OsString::from)
            .or_else(|| std::env::var_os("PATH"))
            .unwrap_or_default();
        let found = std::env::split_paths(&search).any(|dir| runnable(&dir.join(command)));
        (!found).then(|| format!("`{command}` is not on PATH: the server cannot start"))
    }

    /// The transport a connection made from this definition uses (HTTP may become SSE,
    /// which is retried alike).
    pub fn transport_kind(&self) -> Transport {
        match self {
            TransportSpec::Stdio { .. } => Transport::Stdio,
            TransportSpec::Http { .. } => Transport::Http,
            TransportSpec::Sse { .. } => Transport::Sse,
        }
    }

    /// The transport's short name: `stdio`, `http` or `sse`.
    pub fn kind(&self) -> &'static str {
        self.transport_kind().name()
    }

    /// A one-line description for messages: the command line or the URL, with literal
    /// secrets masked (userinfo, query values, secret arguments; see [`crate::redact`]).
    /// Placeholders are kept, so a definition as written shows `${VAR}`.
    pub fn target(&self) -> String {
        match self {
            TransportSpec::Stdio { command, args, .. } => redact::command_line(command, args),
            TransportSpec::Http { url, .. } | TransportSpec::Sse { url, .. } => redact::url(url),
        }
    }

    /// Every secret value this (expanded) definition holds, to be scrubbed from messages
    /// built from text mcpick does not control (reqwest and rmcp errors, server stderr):
    /// the URL and its parts, header values, environment values, secret arguments.
    pub fn secrets(&self) -> redact::Secrets {
        let mut secrets = redact::Secrets::default();
        match self {
            TransportSpec::Stdio {
                command, args, env, ..
            } => {
                secrets.add_args(std::slice::from_ref(command));
                secrets.add_args(args);
                for (name, value) in env {
                    secrets.add_if_secret(name, value);
                }
            }
            TransportSpec::Http { url, headers } | TransportSpec::Sse { url, headers } => {
                secrets.add_url(url);
                for (name, value) in headers {
                    secrets.add_if_secret(name, value);
                    // `Bearer X`: X alone may be quoted too.
                    if let Some((_, rest)) = value.split_once(' ') {
                        secrets.add_if_secret(name, rest.trim());
                    }
                }
            }
        }
        secrets
    }
}

/// What an HTTP definition sends: the URL without its userinfo, and the headers with an
/// `Authorization: Basic …` made of the userinfo ([`redact::basic_of_userinfo`]) — unless
/// the headers hold their own `Authorization` (any case), which wins. So exactly one
/// `Authorization` goes out, and the credential is a header mcpick set (and masks), not one
/// the HTTP library adds behind its back.
pub fn http_wire(
    url: &str,
    headers: &BTreeMap<String, String>,
) -> (String, BTreeMap<String, String>) {
    let mut headers = headers.clone();
    let Some(basic) = redact::basic_of_userinfo(url) else {
        return (url.to_string(), headers);
    };
    let mut bare = match url::Url::parse(url) {
        Ok(parsed) => parsed,
        Err(_) => return (url.to_string(), headers),
    };
    let _ = bare.set_username("");
    let _ = bare.set_password(None);
    if !headers
        .keys()
        .any(|k| k.eq_ignore_ascii_case("authorization"))
    {
        headers.insert("Authorization".to_string(), basic);
    }
    (bare.to_string(), headers)
}

/// Parses a `Name: value` header as given on the command line (`-H`).
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| format!("header `{s}` must look like `Name: value`"))?;
    let name = name.trim();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
        return Err(format!(
            "header name `{name}` is not a valid HTTP header name"
        ));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Masking replaces secrets, never mcpick's own words: a definition's plain settings
    /// (`NODE_ENV=production`, `Accept: application/json`, a user name, `mode=read`) are not
    /// searched for in messages; its credentials are, by name or by shape.
    #[test]
    fn masking_replaces_secrets_not_plain_settings() {
        let stdio = TransportSpec::Stdio {
            command: "node".into(),
            args: vec!["server.js".into()],
            env: BTreeMap::from([
                ("NODE_ENV".into(), "production".into()),
                ("LOG_LEVEL".into(), "debug".into()),
                ("GITHUB_TOKEN".into(), "plainword".into()),
                ("DATABASE_URL".into(), "postgres://app:hunter22@db/x".into()),
            ]),
            cwd: None,
        };
        let said = "could not read the user data in production at debug level: \
                    plainword hunter22 postgres://app:hunter22@db/x";
        let clean = stdio.secrets().scrub(said);
        assert!(
            clean.starts_with("could not read the user data in production at debug level: "),
            "{clean}"
        );
        assert!(
            !clean.contains("plainword") && !clean.contains("hunter22"),
            "{clean}"
        );

        let http = TransportSpec::Http {
            url: "https://user:s3cretpass@h/mcp?mode=read&api_key=PLANTEDVALUE".into(),
            headers: BTreeMap::from([
                ("Accept".into(), "application/json".into()),
                ("X-Api-Key".into(), "keyvalue".into()),
            ]),
        };
        let said = "could not read the user's application/json answer in mode read: \
                    s3cretpass PLANTEDVALUE keyvalue";
        let clean = http.secrets().scrub(said);
        assert!(
            clean.starts_with("could not read the user's application/json answer in mode read: "),
            "{clean}"
        );
        for secret in ["s3cretpass", "PLANTEDVALUE", "keyvalue"] {
            assert!(!clean.contains(secret), "{clean}");
        }
    }

    #[test]
    fn parses_headers() {
        assert_eq!(
            parse_header("Authorization: Bearer abc:def").unwrap(),
            ("Authorization".into(), "Bearer abc:def".into())
        );
        assert!(parse_header("no colon").is_err());
        assert!(parse_header(": empty").is_err());
        assert!(parse_header("bad name: x").is_err());
    }

    #[test]
    fn spec_json_round_trip() {
        let spec = ServerSpec {
            name: "x".into(),
            transport: TransportSpec::Stdio {
                command: "node".into(),
                args: vec!["a.js".into()],
                env: BTreeMap::new(),
                cwd: None,
            },
        };
        let json = serde_json::to_value(&spec).unwrap();
        assert_eq!(json["type"], "stdio");
        assert_eq!(json["command"], "node");
        let back: ServerSpec = serde_json::from_value(json).unwrap();
        assert_eq!(back, spec);
        assert_eq!(spec.transport.target(), "node a.js");
    }

    #[test]
    fn the_userinfo_becomes_one_authorization_header_and_an_explicit_one_wins() {
        let none = BTreeMap::new();
        let (url, headers) = http_wire("http://alice:s3cretpass@h:9/mcp?x=1", &none);
        assert_eq!(url, "http://h:9/mcp?x=1");
        assert_eq!(
            headers,
            [(
                "Authorization".to_string(),
                "Basic YWxpY2U6czNjcmV0cGFzcw==".to_string()
            )]
            .into()
        );
        let given: BTreeMap<String, String> =
            [("authorization".to_string(), "Bearer T".to_string())].into();
        let (url, headers) = http_wire("http://alice:s3cretpass@h:9/mcp", &given);
        assert_eq!(url, "http://h:9/mcp");
        assert_eq!(headers, given);
        let (url, headers) = http_wire("http://h:9/mcp", &none);
        assert_eq!((url.as_str(), headers.len()), ("http://h:9/mcp", 0));
    }

    #[test]
    fn targets_are_masked_and_secrets_collected() {
        let http = TransportSpec::Http {
            url: "http://u:pw12345@h/mcp?token=PLANTED1".into(),
            headers: [("X-Key".to_string(), "HEADERSECRET".to_string())].into(),
        };
        assert_eq!(http.target(), "http://***@h/mcp?token=***");
        let scrubbed = http
            .secrets()
            .scrub("GET http://u:pw12345@h/mcp?token=PLANTED1 sent HEADERSECRET");
        assert_eq!(scrubbed, "GET http://***@h/mcp?token=*** sent ***");
        let stdio = TransportSpec::Stdio {
            command: "srv".into(),
            args: vec!["--token".into(), "PLANTED2".into()],
            env: [
                ("API_TOKEN".to_string(), "ENVSECRET".to_string()),
                ("K".to_string(), "Pass=word;42".to_string()),
            ]
            .into(),
            cwd: None,
        };
        assert_eq!(stdio.target(), "srv --token ***");
        let scrubbed = stdio
            .secrets()
            .scrub("srv --token PLANTED2 failed; ENVSECRET Pass=word;42");
        assert_eq!(scrubbed, "srv --token *** failed; *** ***");
    }
}
