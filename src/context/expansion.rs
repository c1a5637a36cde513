//! Expansions in a context set: an exact mark on a URI its server does not list, but that one
//! of the server's templates produces (RFC 6570, [`crate::catalog::template`]), stands for a
//! resource of that server. It is built from the template (name, title, description, MIME
//! type, annotations; the URI is the marked one), added to the catalogue after the server's
//! listing, and from then on read, counted and ranked like any listed resource.
//!
//! One mechanism for every front end: the commands (`preview`, `export`, `lock`, `marks
//! --check`, `pin`) and `serve` call [`expansions`] on their catalogue (with the servers'
//! templates set) and [`add`] the result.

use std::collections::HashMap;

use rmcp::model::{Annotations, Resource, Role};

use super::mark::{Marks, Pattern};
use super::resolve::Candidate;
use crate::catalog::template::Template;
use crate::catalog::{AnnotationsEntry, Catalogue, TemplateEntry};

/// One marked URI that a template of its server produces.
#[derive(Debug, Clone, PartialEq)]
pub struct Expansion {
    pub server: String,
    /// The `uriTemplate` it matches.
    pub template: String,
    /// The resource it stands for.
    pub resource: Resource,
}

/// Every exact mark of `marks` on a server of `catalogue` that no listed resource of that
/// server answers and that one of its templates (the first in listing order) matches.
pub fn expansions(catalogue: &Catalogue, marks: &Marks) -> Vec<Expansion> {
    let mut by_server: HashMap<&str, Vec<(Template, &TemplateEntry)>> = HashMap::new();
    for entry in catalogue.templates() {
        if let Ok(t) = Template::parse(&entry.uri_template) {
            by_server.entry(&entry.server).or_default().push((t, entry));
        }
    }
    let mut out = Vec::new();
    for id in 0..catalogue.server_count() {
        let id = id as crate::catalog::ServerId;
        let server: &str = catalogue.server_name(id);
        let Some(templates) = by_server.get(server) else {
            continue;
        };
        for (target, _) in marks.iter().filter(|(t, _)| t.server == server) {
            let Pattern::Exact(uri) = target.pattern else {
                continue;
            };
            if catalogue.find(id, &uri).is_some() {
                continue;
            }
            if let Some((_, entry)) = templates.iter().find(|(t, _)| t.matches(&uri).is_some()) {
                out.push(Expansion {
                    server: server.to_string(),
                    template: entry.uri_template.clone(),
                    resource: resource(entry, uri),
                });
            }
        }
    }
    out
}

/// The servers of `catalogue` (among `known`, by name) with an exact mark in `marks` that
/// none of their listed resources answers: only their templates can make it an expansion,
/// so only they need `resources/templates/list`.
pub fn servers_needing_templates(
    catalogue: &Catalogue,
    marks: &Marks,
    known: &[String],
) -> Vec<String> {
    (0..catalogue.server_count())
        .map(|id| id as crate::catalog::ServerId)
        .filter(|&id| known.iter().any(|k| **k == **catalogue.server_name(id)))
        .filter(|&id| {
            let server: &str = catalogue.server_name(id);
            marks.iter().any(|(t, _)| {
                t.server == server
                    && matches!(&t.pattern, Pattern::Exact(uri) if catalogue.find(id, uri).is_none())
            })
        })
        .map(|id| catalogue.server_name(id).to_string())
        .collect()
}

/// The templates of `catalogue`'s server `server` that `uri` is an expansion of (listing
/// order).
pub fn templates_of<'a>(catalogue: &'a Catalogue, server: &str, uri: &str) -> Vec<&'a str> {
    catalogue
        .templates()
        .filter(|t| &*t.server == server)
        .filter(|t| Template::parse(&t.uri_template).is_ok_and(|p| p.matches(uri).is_some()))
        .map(|t| t.uri_template.as_str())
        .collect()
}

/// Adds `expansions` to the catalogue as resources of their servers, after their listings
/// (not as listed entries: a list change keeps them).
pub fn add(catalogue: &mut Catalogue, expansions: &[Expansion]) {
    for e in expansions {
        let id = catalogue.server(&e.server);
        catalogue.add_unlisted(id, &e.resource);
    }
}

/// Tells each candidate that is an expansion which template it came from.
pub fn tag<'a>(candidates: &mut [Candidate<'a>], expansions: &'a [Expansion]) {
    if expansions.is_empty() {
        return;
    }
    let by_key: HashMap<(&str, &str), &str> = expansions
        .iter()
        .map(|e| {
            (
                (e.server.as_str(), e.resource.uri.as_str()),
                e.template.as_str(),
            )
        })
        .collect();
    for c in candidates {
        if let Some(t) = by_key.get(&(c.server, c.uri())) {
            c.expansion_of = Some(t);
        }
    }
}

/// The resource an expansion stands for: the template's fields, the marked URI.
/// The resource an expansion of template `t` stands for: the template's fields, the URI.
pub fn resource(t: &TemplateEntry, uri: String) -> Resource {
    let mut r = Resource::new(uri, t.name.clone());
    r.title = t.title.clone();
    r.description = t.description.clone();
    r.mime_type = t.mime_type.clone();
    r.annotations = t.annotations.as_ref().map(annotations);
    r
}

fn annotations(a: &AnnotationsEntry) -> Annotations {
    let mut out = Annotations::default();
    out.audience = a.audience.as_ref().map(|roles| {
        roles
            .iter()
            .filter_map(|r| match r.as_str() {
                "user" => Some(Role::User),
                "assistant" => Some(Role::Assistant),
                _ => None,
            })
            .collect()
    });
    out.priority = a.priority.map(|p| p as f32);
    out.last_modified = a.last_modified.clone();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::{Mark, Target, candidates};
    use rmcp::model::ResourceTemplate;

    fn catalogue() -> Catalogue {
        let mut c = Catalogue::new();
        let id = c.server("demo");
        c.append(id, [&Resource::new("demo://listed/1", "one")]);
        let mut t = ResourceTemplate::new("demo://items/{id}", "item");
        t.description = Some("An item".into());
        t.mime_type = Some("text/plain".into());
        t.annotations = Some(Annotations::default().with_priority(0.25));
        c.set_templates(id, [&t]);
        c.server("other");
        c
    }

    #[test]
    fn an_exact_mark_a_template_produces_is_an_expansion() {
        let mut c = catalogue();
        let marks = Marks::from_list([
            (Target::exact("demo", "demo://items/7"), Mark::Pin),
            (Target::exact("demo", "demo://listed/1"), Mark::Pin),
            (Target::exact("demo", "demo://nothing/7"), Mark::Pin),
            (Target::prefix("demo", "demo://items/"), Mark::Pin),
            (Target::exact("other", "demo://items/8"), Mark::Pin),
        ]);
        let known = ["demo".to_string(), "other".to_string()];
        assert_eq!(servers_needing_templates(&c, &marks, &known), known);
        assert_eq!(
            servers_needing_templates(&c, &marks, &known[1..]),
            ["other"]
        );
        let listed_only = Marks::from_list([(Target::exact("demo", "demo://listed/1"), Mark::Pin)]);
        assert!(servers_needing_templates(&c, &listed_only, &known).is_empty());
        let found = expansions(&c, &marks);
        assert_eq!(found.len(), 1, "{found:?}");
        let e = &found[0];
        assert_eq!(
            (e.server.as_str(), e.template.as_str()),
            ("demo", "demo://items/{id}")
        );
        assert_eq!(e.resource.uri, "demo://items/7");
        assert_eq!(e.resource.name, "item");
        assert_eq!(e.resource.mime_type.as_deref(), Some("text/plain"));
        assert_eq!(
            e.resource.annotations.as_ref().and_then(|a| a.priority),
            Some(0.25)
        );

        add(&mut c, &found);
        let mut cands = candidates(&c);
        tag(&mut cands, &found);
        let uris: Vec<(&str, Option<&str>)> =
            cands.iter().map(|c| (c.uri(), c.expansion_of)).collect();
        assert_eq!(
            uris,
            [
                ("demo://listed/1", None),
                ("demo://items/7", Some("demo://items/{id}"))
            ]
        );
        assert_eq!(
            templates_of(&c, "demo", "demo://items/9"),
            ["demo://items/{id}"]
        );
        assert!(templates_of(&c, "other", "demo://items/9").is_empty());
    }
}
