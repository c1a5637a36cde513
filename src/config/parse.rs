//! From a parsed file to [`Definition`]s: the fields of one server, and expansion with errors
//! that name the file and the field. Where each host keeps its servers is its dialect's
//! business ([`crate::hosts`]), shared with `mcpick install`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

#[cfg(test)]
pub(super) use crate::hosts::json::strip_jsonc;
use crate::hosts::{self, Dialect, Host};

use super::expand::{Vars, expand, shown_secret};
use super::{Definition, Format, Source};
use crate::mcp::oauth::ClientConfig;
use crate::mcp::{ServerSpec, TransportSpec};

/// Fields mcpick's own format accepts; any other is a mistake worth reporting.
const MCPICK_FIELDS: [&str; 8] = [
    "type", "command", "args", "env", "cwd", "url", "headers", "oauth",
];

/// The definitions of one source. An error here is about the whole file (its shape); a
/// problem with one server is kept in that server's [`Definition::spec`].
pub(super) fn definitions(
    source: &Source,
    doc: &Value,
    vars: &Vars,
) -> Result<Vec<Definition>, String> {
    let file = source.path.display();
    let root = doc
        .as_object()
        .ok_or_else(|| format!("{file}: expected an object at the top level"))?;
    let inputs = root.get("inputs");
    let (servers, prefix) = match &source.format {
        Format::Mcpick => (root.get("servers"), "servers".to_string()),
        Format::Host(host) => host_servers(host.dialect(), doc),
        Format::ClaudeCodeUser { project: None } => host_servers(Host::ClaudeCode.dialect(), doc),
        Format::ClaudeCodeUser {
            project: Some(project),
        } => match hosts::claude_code::project_section(root, project) {
            Some((key, section)) => (
                section.get("mcpServers"),
                format!("projects{}.mcpServers", key_segment(key, true)),
            ),
            None => (None, String::new()),
        },
        Format::Json => match root.get("mcpServers") {
            Some(servers) => (Some(servers), "mcpServers".to_string()),
            None => (root.get("servers"), "servers".to_string()),
        },
    };
    let Some(servers) = servers else {
        return Ok(Vec::new());
    };
    let servers = servers
        .as_object()
        .ok_or_else(|| format!("{file}: `{prefix}` is not an object of servers"))?;
    let strict = source.format == Format::Mcpick;
    let dialect = source.format.host().map(Host::dialect);
    Ok(servers
        .iter()
        .filter_map(|(name, value)| {
            // The host's entry shape, in mcpick's fields; entries it cannot start are skipped.
            let value = match dialect {
                Some(dialect) => (dialect.read)(value)?,
                None => value.clone(),
            };
            Some((name, value))
        })
        .map(|(name, value)| {
            let field = format!("{prefix}{}", key_segment(name, false));
            let (shown, spec) = server(name, &value, &field, vars, inputs, strict);
            let (oauth, spec) = match oauth_client(&value, &field) {
                Ok(oauth) => (oauth, spec),
                Err(e) => (None, Err(e)),
            };
            Definition {
                name: name.clone(),
                path: source.path.clone(),
                oauth,
                spec: spec.map_err(|e| format!("{file}: {e}")),
                field,
                scope: source.scope,
                format: source.format.clone(),
                shown,
            }
        })
        .collect())
}

/// Where a host dialect keeps its servers, and the field path naming them in messages.
fn host_servers<'a>(dialect: &Dialect, doc: &'a Value) -> (Option<&'a Value>, String) {
    (dialect.servers(doc), dialect.servers_key.join("."))
}

/// `.name` for plain names, `["odd name"]` otherwise (always brackets when `bracket`).
fn key_segment(key: &str, bracket: bool) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain && !bracket {
        format!(".{key}")
    } else {
        format!("[{}]", Value::String(key.to_string()))
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Stdio,
    Http,
    Sse,
}

/// One server: the definition as written (for display) and the expanded spec.
fn server(
    name: &str,
    value: &Value,
    field: &str,
    vars: &Vars,
    inputs: Option<&Value>,
    strict: bool,
) -> (Option<TransportSpec>, Result<ServerSpec, String>) {
    let raw = match RawServer::read(value, field, strict) {
        Ok(raw) => raw,
        Err(e) => return (None, Err(e)),
    };
    let shown = raw.shown();
    let spec = raw.expand(field, vars, inputs).map(|transport| ServerSpec {
        name: name.to_string(),
        transport,
    });
    (Some(shown), spec)
}

/// One server's fields as written.
struct RawServer {
    kind: Kind,
    command: String,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    cwd: Option<String>,
    url: String,
    headers: BTreeMap<String, String>,
}

impl RawServer {
    fn read(value: &Value, field: &str, strict: bool) -> Result<Self, String> {
        let object = value
            .as_object()
            .ok_or_else(|| format!("{field}: expected an object describing the server"))?;
        if strict
            && let Some(unknown) = object.keys().find(|k| !MCPICK_FIELDS.contains(&k.as_str()))
        {
            return Err(format!(
                "{field}: unknown field `{unknown}` (known: {})",
                MCPICK_FIELDS.join(", ")
            ));
        }
        let command = string(object, "command", field)?;
        let url = string(object, "url", field)?;
        let kind = match string(object, "type", field)?.as_deref() {
            Some("stdio") => Kind::Stdio,
            Some("http" | "streamable-http" | "streamableHttp" | "streamable_http") => Kind::Http,
            Some("sse") => Kind::Sse,
            Some(other) => {
                return Err(format!(
                    "{field}.type: unsupported transport type {} (mcpick speaks stdio, http and sse)",
                    Value::String(other.chars().take(40).collect())
                ));
            }
            None => match (&command, &url) {
                (Some(_), None) => Kind::Stdio,
                (None, Some(_)) => Kind::Http,
                (Some(_), Some(_)) => {
                    return Err(format!(
                        "{field}: has both `command` and `url`; add `type` (stdio, http or sse) to say which"
                    ));
                }
                (None, None) => {
                    return Err(format!(
                        "{field}: needs a `command` (a stdio server) or a `url` (an HTTP server)"
                    ));
                }
            },
        };
        let (command, url) = match kind {
            Kind::Stdio => (
                command
                    .filter(|c| !c.trim().is_empty())
                    .ok_or_else(|| format!("{field}: a stdio server needs a `command`"))?,
                String::new(),
            ),
            Kind::Http | Kind::Sse => (
                String::new(),
                url.filter(|u| !u.trim().is_empty())
                    .ok_or_else(|| format!("{field}: an HTTP server needs a `url`"))?,
            ),
        };
        Ok(RawServer {
            kind,
            command,
            url,
            args: strings(object, "args", field)?,
            env: string_map(object, "env", field)?,
            cwd: string(object, "cwd", field)?,
            headers: string_map(object, "headers", field)?,
        })
    }

    /// As written, with env and header values that hold no placeholder masked, and literal
    /// secrets in the URL and the arguments masked (placeholders kept; see [`crate::redact`]).
    fn shown(&self) -> TransportSpec {
        let masked = |map: &BTreeMap<String, String>| {
            map.iter()
                .map(|(k, v)| (k.clone(), shown_secret(v)))
                .collect()
        };
        match self.kind {
            Kind::Stdio => TransportSpec::Stdio {
                command: self.command.clone(),
                args: crate::redact::args(&self.args),
                env: masked(&self.env),
                cwd: self.cwd.clone().map(PathBuf::from),
            },
            Kind::Http => TransportSpec::Http {
                url: crate::redact::url(&self.url),
                headers: masked(&self.headers),
            },
            Kind::Sse => TransportSpec::Sse {
                url: crate::redact::url(&self.url),
                headers: masked(&self.headers),
            },
        }
    }

    fn expand(
        &self,
        field: &str,
        vars: &Vars,
        inputs: Option<&Value>,
    ) -> Result<TransportSpec, String> {
        let one = |raw: &str, at: String| {
            expand(raw, vars, inputs).map_err(|e| format!("{field}{at}: {e}"))
        };
        let map = |map: &BTreeMap<String, String>, what: &str| {
            map.iter()
                .map(|(k, v)| {
                    Ok((
                        k.clone(),
                        one(v, format!(".{what}{}", key_segment(k, false)))?,
                    ))
                })
                .collect::<Result<BTreeMap<_, _>, String>>()
        };
        Ok(match self.kind {
            Kind::Stdio => TransportSpec::Stdio {
                command: one(&self.command, ".command".into())?,
                args: self
                    .args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| one(a, format!(".args[{i}]")))
                    .collect::<Result<_, _>>()?,
                env: map(&self.env, "env")?,
                cwd: self
                    .cwd
                    .as_deref()
                    .map(|c| one(c, ".cwd".into()).map(PathBuf::from))
                    .transpose()?,
            },
            Kind::Http | Kind::Sse => {
                let url = one(&self.url, ".url".into())?;
                let parsed = url::Url::parse(&url)
                    .map_err(|e| format!("{field}.url: `{}` is not a valid URL: {e}", self.url))?;
                if !matches!(parsed.scheme(), "http" | "https") {
                    return Err(format!(
                        "{field}.url: `{}` is not an http:// or https:// URL",
                        self.url
                    ));
                }
                for name in self.headers.keys() {
                    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_graphic() && b != b':') {
                        return Err(format!(
                            "{field}.headers: {} is not a valid HTTP header name",
                            Value::String(name.clone())
                        ));
                    }
                }
                let headers = map(&self.headers, "headers")?;
                match self.kind {
                    Kind::Sse => TransportSpec::Sse { url, headers },
                    _ => TransportSpec::Http { url, headers },
                }
            }
        })
    }
}

/// `oauth = { client_id = "…", scopes = ["…"] }` (`clientId` too, as Claude Code writes it):
/// a client registered beforehand, for servers without dynamic registration.
fn oauth_client(value: &Value, field: &str) -> Result<Option<ClientConfig>, String> {
    let Some(oauth) = value.get("oauth").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let field = format!("{field}.oauth");
    let object = oauth
        .as_object()
        .ok_or_else(|| format!("{field}: expected an object (client_id, scopes)"))?;
    let client_id = match string(object, "client_id", &field)? {
        Some(id) => Some(id),
        None => string(object, "clientId", &field)?,
    };
    Ok(Some(ClientConfig {
        client_id: client_id.filter(|id| !id.trim().is_empty()),
        // A secret never comes from a file a repository can hold (`MCPICK_CLIENT_SECRET`).
        client_secret: None,
        scopes: strings(object, "scopes", &field)?,
    }))
}

fn string(object: &Map<String, Value>, key: &str, field: &str) -> Result<Option<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("{field}.{key}: expected a string")),
    }
}

fn strings(object: &Map<String, Value>, key: &str, field: &str) -> Result<Vec<String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                scalar(item).ok_or_else(|| format!("{field}.{key}[{i}]: expected a string"))
            })
            .collect(),
        Some(_) => Err(format!("{field}.{key}: expected a list of strings")),
    }
}

/// A map of strings; numbers and booleans are taken as their text (VS Code allows numbers in
/// `env`), and `null` values are left out.
fn string_map(
    object: &Map<String, Value>,
    key: &str,
    field: &str,
) -> Result<BTreeMap<String, String>, String> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| {
                scalar(v).map(|v| (k.clone(), v)).ok_or_else(|| {
                    format!("{field}.{key}{}: expected a string", key_segment(k, false))
                })
            })
            .collect(),
        Some(_) => Err(format!("{field}.{key}: expected an object of strings")),
    }
}

fn scalar(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}
