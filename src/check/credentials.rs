//! Per credential (`mcpick check --as 'Header: value'`): the catalogue listed under each
//! credential, compared with the one listed without it. Information, never a verdict: the
//! specification allows a server's resources to vary by authorization.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::mcp::supervisor::{Event, Supervisor};
use crate::mcp::{ConnectOptions, ServerSpec, TransportSpec};
use crate::sanitize;

/// URIs named per difference, at most.
const SHOWN: usize = 20;

/// What one credential lists, against the listing without it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CredentialView {
    /// The header's name with its value masked.
    pub credential: String,
    /// Why nothing could be listed with it.
    pub error: Option<String>,
    pub count: usize,
    /// Listed with this credential only (the first few) and how many in all.
    pub only_here: Vec<String>,
    pub only_here_count: usize,
    /// Listed without it, not with it.
    pub missing_here: Vec<String>,
    pub missing_here_count: usize,
}

/// Lists `spec` again with `header` added (replacing a header of the same name) and compares
/// with `base`. Servers that are not reached over HTTP have no headers: `None`.
pub async fn compare(
    spec: &ServerSpec,
    options: &ConnectOptions,
    base: &BTreeSet<String>,
    header: &(String, String),
) -> Option<CredentialView> {
    let mut spec = spec.clone();
    match &mut spec.transport {
        TransportSpec::Http { headers, .. } | TransportSpec::Sse { headers, .. } => {
            headers.retain(|name, _| !name.eq_ignore_ascii_case(&header.0));
            headers.insert(header.0.clone(), header.1.clone());
        }
        TransportSpec::Stdio { .. } => return None,
    }
    let credential = format!(
        "{}: {}",
        sanitize::line(&header.0, 100),
        crate::redact::value(&header.1)
    );
    let supervisor = Supervisor::for_command(spec, options);
    let mut listed = Ok(BTreeSet::new());
    if let Some(conn) = supervisor
        .list_once(|event| match event {
            Event::Page(page) => {
                if let Ok(uris) = &mut listed {
                    uris.extend(page.items.into_iter().map(|r| r.uri));
                }
            }
            Event::Ended { reason, .. } => listed = Err(reason),
            _ => {}
        })
        .await
    {
        conn.close().await;
    }
    let mut view = CredentialView {
        credential,
        error: None,
        count: 0,
        only_here: Vec::new(),
        only_here_count: 0,
        missing_here: Vec::new(),
        missing_here_count: 0,
    };
    match listed {
        Err(why) => view.error = Some(scrub(&why.why, &header.1)),
        Ok(uris) => {
            view.count = uris.len();
            let only: Vec<&String> = uris.difference(base).collect();
            let missing: Vec<&String> = base.difference(&uris).collect();
            view.only_here_count = only.len();
            view.missing_here_count = missing.len();
            view.only_here = only
                .iter()
                .take(SHOWN)
                .map(|u| sanitize::line(u, 300))
                .collect();
            view.missing_here = missing
                .iter()
                .take(SHOWN)
                .map(|u| sanitize::line(u, 300))
                .collect();
        }
    }
    Some(view)
}

/// An error for a person, cleaned and without the credential's value.
fn scrub(text: &str, secret: &str) -> String {
    let text = if secret.len() >= 4 {
        text.replace(secret, crate::redact::MASK)
    } else {
        text.to_string()
    };
    sanitize::line(&text, 500)
}
