//! Entry-by-entry parsing of replies rmcp could not type.
//!
//! rmcp types a whole reply at once: one resource with `priority: "high"` makes the whole
//! `resources/list` page untyped (it arrives as `CustomResult`), and the server would show
//! nothing. Here such a reply is read one entry at a time: a valid entry is kept as is, a
//! malformed optional field is dropped, an entry without a usable `name` is named after its
//! URI, and only an entry without a string URI is skipped. Every problem becomes a
//! [`Warning`](super::warning::Warning) naming page, index, URI and field.
//!
//! Pages rmcp typed never come here: the fast path stays untouched.

use rmcp::model::{
    Annotations, Icon, MetaObject, Resource, ResourceContents, ResourceTemplate, Role,
};
use serde::Deserialize as _;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::warning::{Effect, Site, Warnings, describe, wrong};

/// The entries of one reply that survived, and what was wrong with the others.
#[derive(Debug)]
pub(crate) struct Entries<T> {
    pub(crate) items: Vec<T>,
    /// For each kept item, its index in the array the server sent.
    pub(crate) origin: Vec<u32>,
    pub(crate) warnings: Warnings,
}

/// One listing page read entry by entry.
#[derive(Debug)]
pub(crate) struct LenientPage<T> {
    pub(crate) entries: Entries<T>,
    /// The next cursor; an error when `nextCursor` is there but not a string (the listing
    /// cannot go on, and must not silently end either).
    pub(crate) next: Result<Option<String>, String>,
}

/// Reads a listing page (`resources/list` or `resources/templates/list`): the array under
/// `key`, each entry with `entry`. An error when the reply has no such array at all.
pub(crate) fn page<T>(
    method: &'static str,
    number: usize,
    reply: Value,
    key: &str,
    entry: fn(Value, &mut Site<'_>) -> Option<T>,
) -> Result<LenientPage<T>, String> {
    let Value::Object(mut reply) = reply else {
        return Err(format!("the reply is {}, not an object", describe(&reply)));
    };
    let next = match reply.remove("nextCursor") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(cursor)) => Ok(Some(cursor)),
        Some(other) => Err(format!(
            "page {number}: `nextCursor` is {}, not a string; the listing cannot continue",
            describe(&other)
        )),
    };
    let array = match reply.remove(key) {
        Some(Value::Array(array)) => array,
        other => {
            return Err(format!(
                "page {number}: `{key}` {}",
                wrong(other.as_ref(), "an array")
            ));
        }
    };
    Ok(LenientPage {
        entries: entries(method, Some(number), array, entry),
        next,
    })
}

/// Reads `resources/read` contents items one by one.
pub(crate) fn contents(array: Vec<Value>) -> Entries<ResourceContents> {
    entries("resources/read", None, array, contents_item)
}

fn entries<T>(
    method: &'static str,
    page: Option<usize>,
    array: Vec<Value>,
    entry: fn(Value, &mut Site<'_>) -> Option<T>,
) -> Entries<T> {
    let mut out = Entries {
        items: Vec::with_capacity(array.len()),
        origin: Vec::with_capacity(array.len()),
        warnings: Warnings::new(),
    };
    for (index, value) in array.into_iter().enumerate() {
        let mut site = Site {
            method,
            page,
            index,
            uri: None,
            warnings: &mut out.warnings,
        };
        if let Some(item) = entry(value, &mut site) {
            out.items.push(item);
            out.origin.push(index as u32);
        }
    }
    out
}

/// One `resources/list` entry.
pub(crate) fn resource(value: Value, site: &mut Site<'_>) -> Option<Resource> {
    let mut object = object(value, site)?;
    let uri = required_uri(&mut object, "uri", site)?;
    let name = name(&mut object, || name_from_uri(&uri), site);
    let mut resource = Resource::new(uri, name);
    resource.title = optional(&mut object, "title", "a string", site);
    resource.description = optional(&mut object, "description", "a string", site);
    resource.mime_type = optional(&mut object, "mimeType", "a string", site);
    resource.size = optional(&mut object, "size", "a whole number of bytes", site);
    resource.icons = optional::<Vec<Icon>>(&mut object, "icons", "an array of icons", site);
    resource.meta = optional::<MetaObject>(&mut object, "_meta", "an object", site);
    resource.annotations = annotations(object.remove("annotations"), site);
    Some(resource)
}

/// One `resources/templates/list` entry.
pub(crate) fn template(value: Value, site: &mut Site<'_>) -> Option<ResourceTemplate> {
    let mut object = object(value, site)?;
    let uri_template = required_uri(&mut object, "uriTemplate", site)?;
    let name = name(&mut object, || uri_template.clone(), site);
    let mut template = ResourceTemplate::new(uri_template, name);
    template.title = optional(&mut object, "title", "a string", site);
    template.description = optional(&mut object, "description", "a string", site);
    template.mime_type = optional(&mut object, "mimeType", "a string", site);
    template.icons = optional::<Vec<Icon>>(&mut object, "icons", "an array of icons", site);
    template.meta = optional::<MetaObject>(&mut object, "_meta", "an object", site);
    template.annotations = annotations(object.remove("annotations"), site);
    Some(template)
}

/// One `resources/read` contents item: a `uri` and a string `text` or `blob` are needed.
fn contents_item(value: Value, site: &mut Site<'_>) -> Option<ResourceContents> {
    let mut object = object(value, site)?;
    let uri = required_uri(&mut object, "uri", site)?;
    let text = object.remove("text");
    let blob = object.remove("blob");
    let mime_type = optional(&mut object, "mimeType", "a string", site);
    let meta = optional::<MetaObject>(&mut object, "_meta", "an object", site);
    // rmcp reads `text` first when both are there; so does this.
    match (text, blob) {
        (Some(Value::String(text)), _) => Some(ResourceContents::TextResourceContents {
            uri,
            mime_type,
            text,
            meta,
        }),
        (_, Some(Value::String(blob))) => Some(ResourceContents::BlobResourceContents {
            uri,
            mime_type,
            blob,
            meta,
        }),
        (None, None) => {
            site.warn(None, "has neither `text` nor `blob`", Effect::EntrySkipped);
            None
        }
        (Some(text), _) => {
            site.warn(
                Some("text"),
                &wrong(Some(&text), "a string"),
                Effect::EntrySkipped,
            );
            None
        }
        (None, Some(blob)) => {
            site.warn(
                Some("blob"),
                &wrong(Some(&blob), "a base64 string"),
                Effect::EntrySkipped,
            );
            None
        }
    }
}

fn object(value: Value, site: &mut Site<'_>) -> Option<Map<String, Value>> {
    match value {
        Value::Object(object) => Some(object),
        other => {
            site.warn(
                None,
                &format!("is {}, not an object", describe(&other)),
                Effect::EntrySkipped,
            );
            None
        }
    }
}

/// The entry's URI (or URI template): without a string one there is nothing to key it by.
fn required_uri(object: &mut Map<String, Value>, key: &str, site: &mut Site<'_>) -> Option<String> {
    match object.remove(key) {
        Some(Value::String(uri)) => {
            site.set_uri(&uri);
            Some(uri)
        }
        other => {
            site.warn(
                Some(key),
                &wrong(other.as_ref(), "a string"),
                Effect::EntrySkipped,
            );
            None
        }
    }
}

/// The entry's `name`, or one made by `derive` when it is missing or not a string.
fn name(
    object: &mut Map<String, Value>,
    derive: impl FnOnce() -> String,
    site: &mut Site<'_>,
) -> String {
    match object.remove("name") {
        Some(Value::String(name)) => name,
        other => {
            let derived = derive();
            site.warn(
                Some("name"),
                &wrong(other.as_ref(), "a string"),
                Effect::NameDerived,
            );
            derived
        }
    }
}

/// A name for a resource that has none: the last segment of its URI's path (a file name,
/// mostly), else the whole URI.
pub(crate) fn name_from_uri(uri: &str) -> String {
    let path = uri.split(['?', '#']).next().unwrap_or(uri);
    let after_scheme = path.split_once("://").map_or(path, |(_, rest)| rest);
    after_scheme
        .rsplit('/')
        .find(|s| !s.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| uri.to_owned())
}

/// An optional field, as rmcp would read it; `null` counts as absent (as in rmcp). A value
/// rmcp would reject is dropped with a warning.
fn optional<T: DeserializeOwned>(
    object: &mut Map<String, Value>,
    key: &str,
    expected: &str,
    site: &mut Site<'_>,
) -> Option<T> {
    optional_as(object, key, key, expected, site)
}

fn optional_as<T: DeserializeOwned>(
    object: &mut Map<String, Value>,
    key: &str,
    field: &str,
    expected: &str,
    site: &mut Site<'_>,
) -> Option<T> {
    let value = object.remove(key)?;
    if value.is_null() {
        return None;
    }
    match T::deserialize(&value) {
        Ok(parsed) => Some(parsed),
        Err(_) => {
            site.warn(
                Some(field),
                &wrong(Some(&value), expected),
                Effect::FieldDropped,
            );
            None
        }
    }
}

/// `annotations`, field by field: a malformed one is dropped, the others kept.
fn annotations(value: Option<Value>, site: &mut Site<'_>) -> Option<Annotations> {
    let mut object = match value? {
        Value::Null => return None,
        Value::Object(object) => object,
        other => {
            site.warn(
                Some("annotations"),
                &wrong(Some(&other), "an object"),
                Effect::FieldDropped,
            );
            return None;
        }
    };
    let mut annotations = Annotations::default();
    annotations.audience = audience(object.remove("audience"), site);
    annotations.priority = optional_as::<f64>(
        &mut object,
        "priority",
        "annotations.priority",
        "a number",
        site,
    )
    .map(|p| p as f32);
    annotations.last_modified = optional_as(
        &mut object,
        "lastModified",
        "annotations.lastModified",
        "an ISO 8601 string",
        site,
    );
    Some(annotations)
}

/// `audience`: dropped whole when any element is not a role (the field is what is dropped;
/// the warning names the first bad element).
fn audience(value: Option<Value>, site: &mut Site<'_>) -> Option<Vec<Role>> {
    const FIELD: &str = "annotations.audience";
    const ROLE: &str = "\"user\" or \"assistant\"";
    let array = match value? {
        Value::Null => return None,
        Value::Array(array) => array,
        other => {
            site.warn(
                Some(FIELD),
                &wrong(Some(&other), &format!("an array of {ROLE}")),
                Effect::FieldDropped,
            );
            return None;
        }
    };
    let mut roles = Vec::with_capacity(array.len());
    for (i, element) in array.iter().enumerate() {
        match Role::deserialize(element) {
            Ok(role) => roles.push(role),
            Err(_) => {
                site.warn(
                    Some(FIELD),
                    &format!("[{i}] is {}, not {ROLE}", describe(element)),
                    Effect::FieldDropped,
                );
                return None;
            }
        }
    }
    Some(roles)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::warning::Warning;
    use rmcp::model::{ListResourcesResult, ServerResult};
    use serde_json::json;

    fn resources(array: Value) -> Entries<Resource> {
        let Value::Array(array) = array else { panic!() };
        entries("resources/list", Some(3), array, resource)
    }

    /// The one warning of a single-entry page.
    fn only_warning(entry: Value) -> (Vec<Resource>, Warning) {
        let parsed = resources(json!([entry]));
        assert_eq!(parsed.warnings.total(), 1, "{:?}", parsed.warnings);
        (parsed.items, parsed.warnings.kept()[0].clone())
    }

    fn valid(i: usize) -> Value {
        json!({"uri": format!("demo://ok/{i}"), "name": format!("ok{i}"), "title": "T",
               "description": "D", "mimeType": "text/plain", "size": 12,
               "annotations": {"audience": ["user"], "priority": 0.5,
                               "lastModified": "2025-01-01T00:00:00Z"}})
    }

    /// The page shapes servers send, typed by rmcp: one bad field falls through to
    /// `CustomResult`, so the raw reply is still there to read entry by entry.
    #[test]
    fn rmcp_hands_an_untyped_page_over_as_custom_result() {
        let bad = json!({"uri": "demo://x", "name": "x", "annotations": {"priority": "high"}});
        for reply in [
            json!({"resources": [valid(0), bad]}),
            json!({"resources": [valid(0), bad], "nextCursor": "c"}),
            json!({"resources": [bad], "resultType": "complete", "ttlMs": 0,
                   "cacheScope": "public"}),
            json!({"resourceTemplates": [{"uriTemplate": 5, "name": "t"}]}),
            json!({"contents": [{"uri": "demo://x", "text": 42}]}),
            json!({"contents": [{"uri": 5, "text": "t"}], "resultType": "complete"}),
        ] {
            let typed: ServerResult = serde_json::from_value(reply.clone()).unwrap();
            assert!(
                matches!(&typed, ServerResult::CustomResult(c) if c.0 == reply),
                "{reply} became {typed:?}"
            );
        }
    }

    #[test]
    fn valid_entries_parse_exactly_as_rmcp_parses_them() {
        let reply = json!({"resources": [valid(0), valid(1),
            {"uri": "demo://min", "name": "min"},
            {"uri": "demo://nulls", "name": "n", "title": null, "size": null, "annotations": null},
            {"uri": "demo://meta", "name": "m", "_meta": {"k": 1}, "icons": [{"src": "x.png"}],
             "extra": true, "annotations": {}}]});
        let typed: ListResourcesResult = serde_json::from_value(reply.clone()).unwrap();
        let lenient = page("resources/list", 1, reply, "resources", resource).unwrap();
        assert_eq!(lenient.entries.items, typed.resources);
        assert!(lenient.entries.warnings.is_empty());
        assert_eq!(lenient.entries.origin, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_malformed_optional_field_is_dropped_and_the_entry_kept() {
        let cases = [
            (
                json!({"annotations": {"priority": "high"}}),
                "annotations.priority",
            ),
            (
                json!({"annotations": {"audience": ["user", 42]}}),
                "annotations.audience",
            ),
            (
                json!({"annotations": {"audience": "user"}}),
                "annotations.audience",
            ),
            (json!({"annotations": "yes"}), "annotations"),
            (
                json!({"annotations": {"lastModified": 5}}),
                "annotations.lastModified",
            ),
            (json!({"size": "big"}), "size"),
            (json!({"size": -1}), "size"),
            (json!({"mimeType": 7}), "mimeType"),
            (json!({"title": 12}), "title"),
            (json!({"description": ["x"]}), "description"),
            (json!({"icons": "x"}), "icons"),
            (json!({"_meta": 5}), "_meta"),
        ];
        for (bad, field) in cases {
            let mut entry = json!({"uri": "demo://bad", "name": "bad", "title": "kept"});
            for (k, v) in bad.as_object().unwrap() {
                entry[k] = v.clone();
            }
            let (items, warning) = only_warning(entry);
            assert_eq!(items.len(), 1, "{field}");
            assert_eq!(
                (warning.page, warning.index, warning.uri.as_deref()),
                (Some(3), 0, Some("demo://bad"))
            );
            assert_eq!(warning.field.as_deref(), Some(field));
            assert_eq!(warning.effect, Effect::FieldDropped);
            let kept = &items[0];
            assert_eq!(
                (kept.uri.as_str(), kept.name.as_str()),
                ("demo://bad", "bad")
            );
            let a = kept.annotations.clone().unwrap_or_default();
            match field {
                "annotations.priority" => assert_eq!(a.priority, None),
                "annotations.audience" => assert_eq!(a.audience, None),
                "annotations.lastModified" => assert_eq!(a.last_modified, None),
                "annotations" => assert!(kept.annotations.is_none()),
                "size" => assert_eq!(kept.size, None),
                "mimeType" => assert_eq!(kept.mime_type, None),
                "title" => assert_eq!(kept.title, None),
                "description" => assert_eq!(kept.description, None),
                "icons" => assert_eq!(kept.icons, None),
                "_meta" => assert_eq!(kept.meta, None),
                _ => unreachable!(),
            }
            if field != "title" {
                assert_eq!(kept.title.as_deref(), Some("kept"), "{field}");
            }
        }
    }

    #[test]
    fn the_other_annotations_survive_a_bad_one() {
        let (items, warning) = only_warning(json!({"uri": "demo://a", "name": "a",
            "annotations": {"priority": "high", "audience": ["assistant"],
                            "lastModified": "2025-01-01T00:00:00Z"}}));
        let a = items[0].annotations.clone().unwrap();
        assert_eq!(a.audience, Some(vec![Role::Assistant]));
        assert_eq!(a.last_modified.as_deref(), Some("2025-01-01T00:00:00Z"));
        assert_eq!(a.priority, None);
        assert_eq!(warning.problem, "is a string (\"high\"), not a number");
        let (_, warning) = only_warning(json!({"uri": "demo://a", "name": "a",
            "annotations": {"audience": ["user", 42]}}));
        assert_eq!(
            warning.problem,
            "[1] is a number (42), not \"user\" or \"assistant\""
        );
    }

    #[test]
    fn a_missing_or_wrong_name_is_made_from_the_uri() {
        for (entry, name) in [
            (json!({"uri": "file:///project/src/main.rs"}), "main.rs"),
            (json!({"uri": "demo://notes/7/", "name": 99}), "7"),
            (
                json!({"uri": "https://x.example/wiki/Page?rev=2#top", "name": null}),
                "Page",
            ),
            (json!({"uri": "urn:isbn:123"}), "urn:isbn:123"),
            (json!({"uri": "demo://host"}), "host"),
            (json!({"uri": ""}), ""),
        ] {
            let (items, warning) = only_warning(entry.clone());
            assert_eq!(items[0].name, name, "{entry}");
            assert_eq!(warning.field.as_deref(), Some("name"));
            assert_eq!(warning.effect, Effect::NameDerived);
        }
    }

    #[test]
    fn only_entries_without_a_string_uri_are_skipped() {
        let parsed = resources(json!([
            valid(0),
            {"name": "no uri"},
            {"uri": 12345, "name": "numeric"},
            {"uri": null, "name": "null"},
            "just a string",
            valid(5),
        ]));
        let uris: Vec<&str> = parsed.items.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris, ["demo://ok/0", "demo://ok/5"]);
        assert_eq!(parsed.origin, [0, 5]);
        let w = parsed.warnings.kept();
        assert_eq!(w.len(), 4);
        assert!(
            w.iter()
                .all(|w| w.effect == Effect::EntrySkipped && w.uri.is_none())
        );
        assert_eq!(w.iter().map(|w| w.index).collect::<Vec<_>>(), [1, 2, 3, 4]);
        assert_eq!(w[0].problem, "is missing (expected a string)");
        assert_eq!(w[1].problem, "is a number (12345), not a string");
        assert_eq!(w[1].field.as_deref(), Some("uri"));
        assert_eq!(w[3].field, None);
        assert_eq!(
            w[3].problem,
            "is a string (\"just a string\"), not an object"
        );
    }

    #[test]
    fn next_cursor_of_the_wrong_type_is_an_error_not_the_end() {
        let parsed = page(
            "resources/list",
            4,
            json!({"resources": [valid(0)], "nextCursor": 17}),
            "resources",
            resource,
        )
        .unwrap();
        assert_eq!(
            parsed.entries.items.len(),
            1,
            "the page itself is still read"
        );
        let error = parsed.next.unwrap_err();
        assert!(
            error.contains("page 4") && error.contains("nextCursor"),
            "{error}"
        );
        for (reply, cursor) in [
            (json!({"resources": [], "nextCursor": null}), None),
            (json!({"resources": [], "nextCursor": "n"}), Some("n")),
        ] {
            let parsed = page("resources/list", 1, reply, "resources", resource).unwrap();
            assert_eq!(parsed.next.unwrap().as_deref(), cursor);
        }
    }

    #[test]
    fn a_reply_without_the_array_is_an_error() {
        for reply in [
            json!({}),
            json!({"resources": "x"}),
            json!([1]),
            json!(null),
        ] {
            assert!(page("resources/list", 1, reply.clone(), "resources", resource).is_err());
        }
    }

    #[test]
    fn templates_need_a_uri_template_and_drop_bad_fields() {
        let reply = json!({"resourceTemplates": [
            {"uriTemplate": "demo://t/{id}", "name": "t"},
            {"uriTemplate": 5, "name": "numeric"},
            {"name": "none"},
            {"uriTemplate": "demo://n/{id}", "name": 3},
            {"uriTemplate": "demo://m/{id}", "name": "m", "mimeType": 7,
             "annotations": {"priority": "high"}},
        ]});
        let parsed = page(
            "resources/templates/list",
            1,
            reply,
            "resourceTemplates",
            template,
        )
        .unwrap()
        .entries;
        let names: Vec<&str> = parsed.items.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["t", "demo://n/{id}", "m"]);
        assert_eq!(parsed.items[2].mime_type, None);
        assert_eq!(
            parsed.items[2].annotations.as_ref().map(|a| a.priority),
            Some(None)
        );
        let fields: Vec<_> = parsed
            .warnings
            .kept()
            .iter()
            .map(|w| (w.index, w.field.clone().unwrap_or_default(), w.effect))
            .collect();
        assert_eq!(
            fields,
            [
                (1, "uriTemplate".into(), Effect::EntrySkipped),
                (2, "uriTemplate".into(), Effect::EntrySkipped),
                (3, "name".into(), Effect::NameDerived),
                (4, "mimeType".into(), Effect::FieldDropped),
                (4, "annotations.priority".into(), Effect::FieldDropped),
            ]
        );
        assert!(
            parsed
                .warnings
                .kept()
                .iter()
                .all(|w| w.method == "resources/templates/list")
        );
    }

    #[test]
    fn a_bad_contents_item_costs_that_item() {
        let Value::Array(array) = json!([
            {"uri": "demo://a", "text": "hello", "mimeType": "text/plain"},
            {"uri": "demo://b", "text": 42},
            {"uri": 5, "text": "no uri"},
            {"uri": "demo://c", "blob": "aGk=", "mimeType": 7},
            {"uri": "demo://d"},
            {"uri": "demo://e", "blob": false},
            {"uri": "demo://f", "text": "both", "blob": "aGk="},
        ]) else {
            unreachable!()
        };
        let parsed = contents(array);
        assert_eq!(parsed.items.len(), 3);
        assert_eq!(parsed.items[0], ResourceContents::text("hello", "demo://a"));
        assert_eq!(
            parsed.items[1],
            ResourceContents::blob("aGk=", "demo://c"),
            "mimeType dropped"
        );
        assert!(matches!(&parsed.items[2],
            ResourceContents::TextResourceContents { text, .. } if text == "both"));
        let w: Vec<_> = parsed
            .warnings
            .kept()
            .iter()
            .map(|w| (w.index, w.field.clone(), w.effect, w.page))
            .collect();
        assert_eq!(
            w,
            [
                (1, Some("text".into()), Effect::EntrySkipped, None),
                (2, Some("uri".into()), Effect::EntrySkipped, None),
                (3, Some("mimeType".into()), Effect::FieldDropped, None),
                (4, None, Effect::EntrySkipped, None),
                (5, Some("blob".into()), Effect::EntrySkipped, None),
            ]
        );
    }

    #[test]
    fn a_flood_of_bad_entries_keeps_a_hundred_warnings() {
        let array: Vec<Value> = (0..100_000).map(|i| json!({"uri": i})).collect();
        let parsed = entries("resources/list", Some(1), array, resource);
        assert!(parsed.items.is_empty());
        assert_eq!(parsed.warnings.total(), 100_000);
        assert_eq!(
            parsed.warnings.kept().len(),
            super::super::warning::MAX_KEPT
        );
    }
}
