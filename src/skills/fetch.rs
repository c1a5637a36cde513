//! A skill read from its server: the manifest, then every file it lists, each by its own
//! `skill://NAME/PATH` URI (listed or served through a template), bytes as served (text as
//! UTF-8, a blob decoded), then checked against the manifest ([`super::Skill::verified`]).

use base64::Engine;
use rmcp::model::ResourceContents;

use super::{Fetched, MANIFEST, MAX_BYTES, Manifest, Skill, prefix};
use crate::mcp::Connection;
use crate::mcp::read::{ReadOutcome, own_parts};

/// The bytes of resource `uri` exactly as served: one contents part of that URI.
pub async fn bytes(connection: &Connection, uri: &str) -> Result<Vec<u8>, String> {
    let read = connection
        .read(uri)
        .await
        .map_err(|e| format!("cannot read {uri}: {}", connection.explain(&e)))?;
    let (own, _) = own_parts(uri, read.outcome);
    let parts = match own {
        Some(ReadOutcome::Contents(parts)) => parts,
        Some(ReadOutcome::Empty) => return Ok(Vec::new()),
        Some(ReadOutcome::NotFound(_)) => {
            return Err(format!("{uri}: the server has no such resource"));
        }
        None => {
            return Err(format!(
                "{uri}: the server answered with another resource's contents"
            ));
        }
    };
    if parts.len() != 1 {
        return Err(format!(
            "{uri}: the server answered with {} parts, not one file",
            parts.len()
        ));
    }
    match &parts[0] {
        ResourceContents::TextResourceContents { text, .. } => Ok(text.as_bytes().to_vec()),
        ResourceContents::BlobResourceContents { blob, .. } => {
            base64::engine::general_purpose::STANDARD
                .decode(blob)
                .map_err(|e| format!("{uri}: its base64 does not decode: {e}"))
        }
        _ => Err(format!("{uri}: contents of a kind mcpick does not know")),
    }
}

/// Skill `name` of `server` read whole and verified, or refused with why (nothing of it is
/// kept then: a skill is handed on whole or not at all).
pub async fn fetch(connection: &Connection, server: &str, name: &str) -> Fetched {
    let outcome = async {
        let base = prefix(name);
        let manifest = bytes(connection, &format!("{base}{MANIFEST}")).await?;
        let manifest = Manifest::parse(name, &String::from_utf8_lossy(&manifest))?;
        let mut read = Vec::with_capacity(manifest.files.len());
        let mut total: u64 = 0;
        for listed in &manifest.files {
            let got = bytes(connection, &format!("{base}{}", listed.path)).await?;
            total += got.len() as u64;
            if total > MAX_BYTES {
                return Err(format!(
                    "its files hold over {} MiB, the most a skill may",
                    MAX_BYTES >> 20
                ));
            }
            read.push((listed.path.clone(), got));
        }
        Skill::verified(server, &manifest, read)
    }
    .await;
    Fetched {
        server: server.to_string(),
        name: name.to_string(),
        outcome: outcome.map_err(|why| crate::sanitize::line(&why, 2000)),
    }
}
