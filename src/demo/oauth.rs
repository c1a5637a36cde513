//! `--oauth`: the demo server as an OAuth-protected MCP server with its own authorization
//! server, as the MCP authorization specification describes, small enough to read:
//!
//! - `/mcp` (and the legacy `/sse` endpoints) answer 401 with
//!   `WWW-Authenticate: Bearer resource_metadata="…"` unless the request carries a live token;
//! - protected-resource metadata (RFC 9728) at `/.well-known/oauth-protected-resource/mcp`;
//! - authorization-server metadata (RFC 8414) at `/.well-known/oauth-authorization-server/oauth`;
//! - dynamic client registration (RFC 7591) at `/oauth/register`;
//! - `/oauth/authorize` approves at once: it redirects to the registered `redirect_uri` with a
//!   code and the client's `state`;
//! - `/oauth/token`: the code with its PKCE verifier (S256, checked), or a refresh token
//!   (rotated); access tokens live `--token-ttl` seconds.
//!
//! `--revoke-after N` revokes every grant once N requests were let through (a sign-in
//! revoked in the middle of a session). Test controls, what an administrator would do: `POST /oauth/expire-all` ends every access
//! token (refresh tokens keep working), `POST /oauth/revoke-all` ends every grant, and
//! `GET /oauth/stats` counts codes exchanged and refreshes.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, Hasher};
use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use bytes::Bytes;
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use url::Url;

/// Where the authorization server lives on the demo server (its issuer's path).
const ISSUER_PATH: &str = "/oauth";
/// The protected-resource metadata of `/mcp` (RFC 9728 §3.1: the path after the well-known).
const RESOURCE_METADATA_PATH: &str = "/.well-known/oauth-protected-resource/mcp";
const SERVER_METADATA_PATH: &str = "/.well-known/oauth-authorization-server/oauth";

/// How the fixture behaves: `--token-ttl`, `--oauth-client`, `--revoke-after`.
#[derive(Debug, Clone, Default)]
pub(crate) struct OAuthOptions {
    pub ttl: u64,
    pub client: Option<String>,
    pub revoke_after: Option<u64>,
}

/// The authorization server and the token check of one demo server.
pub(crate) struct Authority {
    base: String,
    ttl: u64,
    /// A client ID known without registration (`--oauth-client`); any loopback redirect
    /// URI is accepted for it (RFC 8252 §7.3).
    preregistered: Option<String>,
    /// `--revoke-after N`: every grant is revoked once N requests were let through.
    revoke_after: Option<u64>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// client_id → registered redirect URIs.
    clients: HashMap<String, Vec<String>>,
    codes: HashMap<String, Grant>,
    /// access token → expiry (seconds since the epoch).
    access: HashMap<String, u64>,
    refresh: HashSet<String>,
    registered: u64,
    exchanged: u64,
    refreshed: u64,
    /// MCP requests let through with a live token.
    served: u64,
}

struct Grant {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    scope: Option<String>,
}

/// One answer: status, content type and body, plus a `Location` or `WWW-Authenticate`.
pub(crate) struct Answer {
    pub status: StatusCode,
    pub body: Bytes,
    pub headers: Vec<(&'static str, String)>,
}

impl Answer {
    fn json(status: StatusCode, value: Value) -> Self {
        Answer {
            status,
            body: Bytes::from(value.to_string()),
            headers: vec![("content-type", "application/json".into())],
        }
    }

    fn error(error: &str, description: &str) -> Self {
        Self::json(
            StatusCode::BAD_REQUEST,
            json!({ "error": error, "error_description": description }),
        )
    }

    /// As a hyper response with `body` turned into the caller's body type.
    pub fn into_response<B>(self, body: impl FnOnce(Bytes) -> B) -> Response<B> {
        let mut response = Response::new(body(self.body));
        *response.status_mut() = self.status;
        for (name, value) in self.headers {
            if let Ok(value) = http::HeaderValue::from_str(&value) {
                response.headers_mut().append(name, value);
            }
        }
        response
    }
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A fresh unguessable value (two random-keyed hashes; the fixture needs no crypto crate).
fn random(prefix: &str) -> String {
    let state = std::collections::hash_map::RandomState::new();
    let mut a = state.build_hasher();
    a.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    let b = std::collections::hash_map::RandomState::new().hash_one(a.finish());
    format!("{prefix}{:016x}{b:016x}", a.finish())
}

impl Authority {
    pub(crate) fn new(local: SocketAddr, options: OAuthOptions) -> Self {
        Authority {
            base: format!("http://{local}"),
            ttl: options.ttl,
            preregistered: options.client,
            revoke_after: options.revoke_after,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `None` when the request carries a live access token; else the 401 to send.
    pub(crate) fn check(&self, headers: &http::HeaderMap) -> Option<Answer> {
        let presented = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let mut state = self.state();
        let live = presented.is_some_and(|token| {
            state
                .access
                .get(token)
                .is_some_and(|&expiry| now() < expiry)
        });
        if live {
            state.served += 1;
            if self.revoke_after.is_some_and(|n| state.served >= n) {
                state.access.clear();
                state.refresh.clear();
            }
            return None;
        }
        drop(state);
        let mut challenge = format!(
            "Bearer resource_metadata=\"{}{RESOURCE_METADATA_PATH}\", scope=\"mcp\"",
            self.base
        );
        if presented.is_some() {
            challenge.push_str(", error=\"invalid_token\"");
        }
        Some(Answer {
            status: StatusCode::UNAUTHORIZED,
            body: Bytes::from_static(b"unauthorized: sign in with OAuth\n"),
            headers: vec![("www-authenticate", challenge)],
        })
    }

    /// The answer to an OAuth path, or `None` for any other path.
    pub(crate) async fn route(&self, req: Request<hyper::body::Incoming>) -> Option<Answer> {
        let path = req.uri().path().to_string();
        let query = req.uri().query().unwrap_or("").to_string();
        let method = req.method().clone();
        let answer = match (method, path.as_str()) {
            (Method::GET, RESOURCE_METADATA_PATH | "/.well-known/oauth-protected-resource") => {
                self.resource_metadata()
            }
            (Method::GET, SERVER_METADATA_PATH) => self.server_metadata(),
            (Method::POST, "/oauth/register") => {
                let body = super::sse::read_body(req.into_body()).await?;
                self.register(&body)
            }
            (Method::GET, "/oauth/authorize") => self.authorize(&form(query.as_bytes())),
            (Method::POST, "/oauth/token") => {
                let body = super::sse::read_body(req.into_body()).await?;
                self.token(&form(&body))
            }
            (Method::POST, "/oauth/expire-all") => {
                self.state().access.clear();
                Answer::json(StatusCode::OK, json!({}))
            }
            (Method::POST, "/oauth/revoke-all") => {
                let mut state = self.state();
                state.access.clear();
                state.refresh.clear();
                Answer::json(StatusCode::OK, json!({}))
            }
            (Method::GET, "/oauth/stats") => {
                let state = self.state();
                Answer::json(
                    StatusCode::OK,
                    json!({
                        "registered": state.registered,
                        "exchanged": state.exchanged,
                        "refreshed": state.refreshed,
                    }),
                )
            }
            _ => return None,
        };
        Some(answer)
    }

    fn resource_metadata(&self) -> Answer {
        Answer::json(
            StatusCode::OK,
            json!({
                "resource": format!("{}{}", self.base, super::http::MCP_PATH),
                "authorization_servers": [format!("{}{ISSUER_PATH}", self.base)],
                "scopes_supported": ["mcp"],
                "bearer_methods_supported": ["header"],
            }),
        )
    }

    fn server_metadata(&self) -> Answer {
        let base = &self.base;
        Answer::json(
            StatusCode::OK,
            json!({
                "issuer": format!("{base}{ISSUER_PATH}"),
                "authorization_endpoint": format!("{base}/oauth/authorize"),
                "token_endpoint": format!("{base}/oauth/token"),
                "registration_endpoint": format!("{base}/oauth/register"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "scopes_supported": ["mcp"],
            }),
        )
    }

    fn register(&self, body: &[u8]) -> Answer {
        let Ok(request) = serde_json::from_slice::<Value>(body) else {
            return Answer::error("invalid_client_metadata", "not JSON");
        };
        let redirect_uris: Vec<String> = request["redirect_uris"]
            .as_array()
            .map(|uris| {
                uris.iter()
                    .filter_map(|u| u.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default();
        if redirect_uris.is_empty() {
            return Answer::error("invalid_redirect_uri", "redirect_uris is required");
        }
        let client_id = random("client-");
        let mut state = self.state();
        state
            .clients
            .insert(client_id.clone(), redirect_uris.clone());
        state.registered += 1;
        Answer::json(
            StatusCode::CREATED,
            json!({
                "client_id": client_id,
                "redirect_uris": redirect_uris,
                "token_endpoint_auth_method": "none",
                "grant_types": ["authorization_code", "refresh_token"],
                "response_types": ["code"],
            }),
        )
    }

    /// Approves at once: a real server would show a consent page here.
    fn authorize(&self, query: &HashMap<String, String>) -> Answer {
        let field = |name: &str| query.get(name).cloned().unwrap_or_default();
        let (client_id, redirect_uri) = (field("client_id"), field("redirect_uri"));
        let registered = if self.preregistered.as_ref() == Some(&client_id) {
            redirect_uri.starts_with("http://127.0.0.1:")
        } else {
            self.state()
                .clients
                .get(&client_id)
                .is_some_and(|uris| uris.contains(&redirect_uri))
        };
        if !registered {
            return Answer::error("invalid_request", "unknown client_id or redirect_uri");
        }
        if field("response_type") != "code" || field("code_challenge_method") != "S256" {
            return Answer::error(
                "invalid_request",
                "response_type=code and S256 PKCE required",
            );
        }
        let Ok(mut to) = Url::parse(&redirect_uri) else {
            return Answer::error("invalid_request", "bad redirect_uri");
        };
        let code = random("code-");
        self.state().codes.insert(
            code.clone(),
            Grant {
                client_id,
                redirect_uri,
                challenge: field("code_challenge"),
                scope: query.get("scope").cloned(),
            },
        );
        to.query_pairs_mut()
            .append_pair("code", &code)
            .append_pair("state", &field("state"));
        Answer {
            status: StatusCode::FOUND,
            body: Bytes::new(),
            headers: vec![("location", to.to_string())],
        }
    }

    fn token(&self, form: &HashMap<String, String>) -> Answer {
        let field = |name: &str| form.get(name).map(String::as_str).unwrap_or_default();
        let mut state = self.state();
        let scope = match field("grant_type") {
            "authorization_code" => {
                let Some(grant) = state.codes.remove(field("code")) else {
                    return Answer::error("invalid_grant", "unknown or used code");
                };
                let verified = base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .encode(Sha256::digest(field("code_verifier").as_bytes()));
                if grant.client_id != field("client_id")
                    || grant.redirect_uri != field("redirect_uri")
                    || verified != grant.challenge
                {
                    return Answer::error("invalid_grant", "PKCE or client check failed");
                }
                state.exchanged += 1;
                grant.scope
            }
            "refresh_token" => {
                if !state.refresh.remove(field("refresh_token")) {
                    return Answer::error("invalid_grant", "unknown or revoked refresh token");
                }
                state.refreshed += 1;
                None
            }
            _ => return Answer::error("unsupported_grant_type", "code or refresh_token"),
        };
        let access = random("at-");
        let refresh = random("rt-");
        state.access.insert(access.clone(), now() + self.ttl);
        state.refresh.insert(refresh.clone());
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.ttl,
            "refresh_token": refresh,
        });
        if let Some(scope) = scope {
            answer["scope"] = json!(scope);
        }
        let mut answer = Answer::json(StatusCode::OK, answer);
        answer.headers.push(("cache-control", "no-store".into()));
        answer
    }
}

fn form(bytes: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(bytes).into_owned().collect()
}
