//! A skill read from its server: the manifest (from the MCP Skills extension's `skills/get`
//! where the server declares it, else its `skill://NAME/_manifest` resource), then every file
//! it lists, each by its own `skill://NAME/PATH` URI (listed or served through a template),
//! bytes as served (text as UTF-8, a blob decoded), then checked against the manifest
//! ([`super::Skill::verified`]).

use base64::Engine;
use rmcp::model::ResourceContents;

use super::{Fetched, MAIN, MANIFEST, MAX_BYTES, Manifest, Skill, prefix};
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

/// The manifest of skill `name` as its `_manifest` resource holds it.
async fn from_resource(connection: &Connection, name: &str) -> Result<Manifest, String> {
    let text = bytes(connection, &format!("{}{MANIFEST}", prefix(name))).await?;
    Manifest::parse(name, &String::from_utf8_lossy(&text))
}

/// The manifest of skill `name` from the Skills extension (`skills/get` on its `SKILL.md`),
/// checked as a manifest resource is; `None` when the server does not declare the extension.
async fn from_extension(connection: &Connection, name: &str) -> Option<Result<Manifest, String>> {
    use rmcp::model::{GetSkillRequestParams, SkillResources};
    let peer = connection.peer();
    if !peer
        .peer_info()
        .is_some_and(|info| info.capabilities.supports_skills())
    {
        return None;
    }
    let base = prefix(name);
    let uri = format!("{base}{MAIN}");
    let got = connection
        .request(
            "skills/get",
            peer.get_skill(GetSkillRequestParams::new(&uri)),
        )
        .await;
    Some(match got {
        Err(e) => Err(format!("skills/get {uri}: {}", connection.explain(&e))),
        Ok(result) => match result.skill.resources {
            SkillResources::Files(files) => {
                let listed: Result<Vec<serde_json::Value>, String> = files
                    .iter()
                    .map(|f| match f.uri.strip_prefix(&base) {
                        Some(path) => Ok(serde_json::json!({
                            "path": path, "size": f.size, "hash": f.digest
                        })),
                        None => Err(format!(
                            "skills/get {uri}: a file outside the skill, {}",
                            crate::sanitize::line(&f.uri, 200)
                        )),
                    })
                    .collect();
                listed.and_then(|files| {
                    let doc = serde_json::json!({"skill": name, "files": files});
                    Manifest::parse(name, &doc.to_string())
                })
            }
            // `dynamic` (the files are made on request): nothing to verify them against.
            _ => Err(format!(
                "skills/get {uri}: the server lists its files as dynamic, so there is no manifest to verify them against"
            )),
        },
    })
}

/// Skill `name` of `server` read whole and verified, or refused with why (nothing of it is
/// kept then: a skill is handed on whole or not at all).
pub async fn fetch(connection: &Connection, server: &str, name: &str) -> Fetched {
    let outcome = async {
        let base = prefix(name);
        let manifest = match from_extension(connection, name).await {
            None => from_resource(connection, name).await?,
            Some(Ok(manifest)) => manifest,
            // Declared but not answered (FastMCP answers -32601 over `initialize`): the
            // resource, when there is one.
            Some(Err(why)) => from_resource(connection, name)
                .await
                .map_err(|also| format!("{why}; {also}"))?,
        };
        let mut read = Vec::with_capacity(manifest.files.len());
        let mut total: u64 = 0;
        for listed in &manifest.files {
            let got = bytes(connection, &format!("{base}{}", listed.path)).await?;
            // Checked against its manifest at once, before anything counts or keeps it: a
            // file the manifest says is 10 bytes that arrives as 40 MB stops here.
            crate::skills::mismatch(listed, &got)?;
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
