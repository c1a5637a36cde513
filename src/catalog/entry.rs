//! Catalogue entries: one resource or template as a server published it, tagged with the
//! server's name. Only the fields mcpick uses are kept (icons and `_meta` are dropped), which
//! keeps a million-resource catalogue small.

use std::sync::Arc;

use rmcp::model::{Annotations, Resource, ResourceTemplate, Role};
use serde::Serialize;

/// One entry of `resources/list`. Fields the server did not send are `None` (JSON `null`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceEntry {
    pub server: Arc<str>,
    pub uri: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub size: Option<u64>,
    pub annotations: Option<AnnotationsEntry>,
    /// The skill this resource is a file of (`skill://NAME/…`, [`crate::skills`]): a skill is
    /// picked and handed on whole. Left out of the JSON for other resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
}

/// One entry of `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateEntry {
    pub server: Arc<str>,
    pub uri_template: String,
    pub name: String,
    pub title: Option<String>,
    pub description: Option<String>,
    pub mime_type: Option<String>,
    pub annotations: Option<AnnotationsEntry>,
}

/// The ranking hints a server attaches: who it is for, how important, how fresh.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnnotationsEntry {
    pub audience: Option<Vec<String>>,
    pub priority: Option<f64>,
    pub last_modified: Option<String>,
}

/// The skill `uri` is a file of, if it is one.
pub fn skill_of(uri: &str) -> Option<String> {
    crate::skills::split(uri).map(|(name, _)| name.to_string())
}

impl ResourceEntry {
    pub fn new(server: Arc<str>, r: Resource) -> Self {
        Self {
            server,
            skill: skill_of(&r.uri),
            uri: r.uri,
            name: r.name,
            title: r.title,
            description: r.description,
            mime_type: r.mime_type,
            size: r.size,
            annotations: r.annotations.map(AnnotationsEntry::from),
        }
    }

    /// The name to show: the title when the server gave one, else the name.
    pub fn display_name(&self) -> &str {
        self.title.as_deref().unwrap_or(&self.name)
    }
}

impl TemplateEntry {
    pub fn new(server: Arc<str>, t: ResourceTemplate) -> Self {
        Self {
            server,
            uri_template: t.uri_template,
            name: t.name,
            title: t.title,
            description: t.description,
            mime_type: t.mime_type,
            annotations: t.annotations.map(AnnotationsEntry::from),
        }
    }
}

impl From<Annotations> for AnnotationsEntry {
    fn from(a: Annotations) -> Self {
        Self {
            audience: a.audience.map(|roles| {
                roles
                    .into_iter()
                    .map(|r| match r {
                        Role::User => "user".to_string(),
                        Role::Assistant => "assistant".to_string(),
                    })
                    .collect()
            }),
            // Through the decimal text so 0.8f32 shows as 0.8, not 0.800000011920929.
            priority: a.priority.and_then(|p| p.to_string().parse::<f64>().ok()),
            last_modified: a.last_modified,
        }
    }
}
