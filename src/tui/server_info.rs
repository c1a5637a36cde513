//! What a server said about itself when it connected (name, version, protocol version,
//! capabilities), kept as plain sanitised text for the header and a server row's contents.

use crate::mcp::ServerSummary;
use crate::sanitize;

/// A server's identity and capabilities as negotiated (every string sanitised).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerInfo {
    pub name: Option<String>,
    pub title: Option<String>,
    pub version: Option<String>,
    pub protocol: String,
    /// One entry per capability, with its flags: `resources (subscribe, listChanged)`.
    pub capabilities: Vec<String>,
    /// The server's `instructions`, if any.
    pub instructions: Option<String>,
}

impl ServerInfo {
    pub fn from_summary(summary: &ServerSummary) -> Self {
        ServerInfo {
            name: summary.server_name.clone(),
            title: summary.server_title.clone(),
            version: summary.server_version.clone(),
            protocol: sanitize::line(&summary.protocol_version, 40),
            capabilities: capabilities(&summary.capabilities),
            instructions: summary.instructions.clone(),
        }
    }

    /// `name version (title)`, as far as the server told.
    pub fn identity(&self) -> Option<String> {
        let mut out = self.name.clone()?;
        if let Some(v) = &self.version {
            out.push(' ');
            out.push_str(v);
        }
        if let Some(t) = &self.title
            && Some(t) != self.name.as_ref()
        {
            out.push_str(&format!(" ({t})"));
        }
        Some(out)
    }
}

/// The capabilities object as short lines: each capability with the flags that are set.
/// Names can come from a server (`experimental`): sanitised and capped.
pub fn capabilities(value: &serde_json::Value) -> Vec<String> {
    let Some(object) = value.as_object() else {
        return Vec::new();
    };
    object
        .iter()
        .take(30)
        .map(|(name, flags)| {
            let name = sanitize::line(name, 60);
            let set: Vec<String> = flags
                .as_object()
                .map(|f| {
                    f.iter()
                        .filter(|(_, v)| !matches!(v, serde_json::Value::Bool(false)))
                        .take(10)
                        .map(|(k, _)| sanitize::line(k, 60))
                        .collect()
                })
                .unwrap_or_default();
            if set.is_empty() {
                name
            } else {
                format!("{name} ({})", set.join(", "))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_list_their_set_flags() {
        let value = serde_json::json!({
            "resources": {"subscribe": true, "listChanged": false},
            "prompts": {},
            "logging": {},
        });
        assert_eq!(
            capabilities(&value),
            ["logging", "prompts", "resources (subscribe)"]
        );
        assert!(capabilities(&serde_json::Value::Null).is_empty());
    }

    #[test]
    fn identity_says_what_the_server_told() {
        let mut info = ServerInfo::default();
        assert_eq!(info.identity(), None);
        info.name = Some("demo".into());
        info.version = Some("1.2.0".into());
        info.title = Some("Demo server".into());
        assert_eq!(info.identity().as_deref(), Some("demo 1.2.0 (Demo server)"));
    }
}
