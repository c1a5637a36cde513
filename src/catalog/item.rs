//! The compact in-memory form of one resource. A catalogue may hold a million of them, so an
//! item is one allocation: every text field lives in a single string, found by offsets, and
//! small fields are packed (interned MIME type, audience bits, priority as `f32`).

use std::sync::Arc;

use rmcp::model::{Annotations, Resource, Role};

use super::entry::{AnnotationsEntry, ResourceEntry};
use super::time::parse_timestamp;

/// Audience bits.
pub const AUDIENCE_USER: u8 = 1;
pub const AUDIENCE_ASSISTANT: u8 = 2;

const HAS_TITLE: u8 = 1;
const HAS_DESCRIPTION: u8 = 2;
const HAS_ANNOTATIONS: u8 = 4;
const HAS_AUDIENCE: u8 = 8;
const HAS_LAST_MODIFIED: u8 = 16;
/// A resource its server did not list (a pinned expansion, see [`Item::unlisted`]).
const UNLISTED: u8 = 64;

/// One resource as a server listed it.
///
/// `text` is `title␠name␠uri␠description␠lastModified` (a missing title or description is
/// empty); search looks at each field on its own (see [`super::query`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    text: Box<str>,
    /// End offsets of title, name, uri and description in `text`.
    ends: [u32; 4],
    size: u64,
    priority: f32,
    /// `lastModified` in milliseconds since the epoch, or `i64::MIN` when absent/unparsable.
    modified: i64,
    mime: u16,
    audience: u8,
    flags: u8,
}

const NO_SIZE: u64 = u64::MAX;

impl Item {
    /// Builds an item; `mimes` interns the MIME type.
    pub fn new(resource: &Resource, mimes: &mut MimeTable) -> Self {
        let annotations = resource.annotations.as_ref();
        let last_modified = annotations.and_then(|a| a.last_modified.as_deref());
        let title = resource.title.as_deref();
        let description = resource.description.as_deref();
        let mut text = String::with_capacity(
            resource.uri.len()
                + resource.name.len()
                + title.map_or(0, str::len)
                + description.map_or(0, str::len)
                + last_modified.map_or(0, str::len)
                + 4,
        );
        let mut ends = [0u32; 4];
        for (i, field) in [
            title.unwrap_or(""),
            &resource.name,
            &resource.uri,
            description.unwrap_or(""),
        ]
        .into_iter()
        .enumerate()
        {
            if i > 0 {
                text.push(' ');
            }
            text.push_str(field);
            ends[i] = u32::try_from(text.len()).unwrap_or(u32::MAX);
        }
        text.push(' ');
        text.push_str(last_modified.unwrap_or(""));

        let mut flags = 0;
        if title.is_some() {
            flags |= HAS_TITLE;
        }
        if description.is_some() {
            flags |= HAS_DESCRIPTION;
        }
        let mut audience = 0;
        if let Some(a) = annotations {
            flags |= HAS_ANNOTATIONS;
            if let Some(roles) = &a.audience {
                flags |= HAS_AUDIENCE;
                for role in roles {
                    audience |= match role {
                        Role::User => AUDIENCE_USER,
                        Role::Assistant => AUDIENCE_ASSISTANT,
                    };
                }
            }
            if a.last_modified.is_some() {
                flags |= HAS_LAST_MODIFIED;
            }
        }
        Item {
            text: text.into_boxed_str(),
            ends,
            size: resource.size.unwrap_or(NO_SIZE),
            priority: annotations.and_then(|a| a.priority).unwrap_or(f32::NAN),
            modified: last_modified.and_then(parse_timestamp).unwrap_or(i64::MIN),
            mime: mimes.intern(resource.mime_type.as_deref()),
            audience,
            flags,
        }
    }

    /// An item from only the fields ranking looks at: for listings not read through rmcp's
    /// model (`wrap` sees raw JSON) and for tests. No title, description or MIME type;
    /// `name` is the name shown.
    pub fn ranked(
        uri: &str,
        name: &str,
        priority: Option<f32>,
        audience: Option<u8>,
        modified_ms: Option<i64>,
        size: Option<u64>,
    ) -> Self {
        let offset = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let text = format!(" {name} {uri}  ");
        let (name_end, uri_end) = (1 + name.len(), 2 + name.len() + uri.len());
        let mut flags = 0;
        if priority.is_some() || audience.is_some() || modified_ms.is_some() {
            flags |= HAS_ANNOTATIONS;
        }
        if audience.is_some() {
            flags |= HAS_AUDIENCE;
        }
        Item {
            text: text.into_boxed_str(),
            ends: [0, offset(name_end), offset(uri_end), offset(uri_end + 1)],
            size: size.unwrap_or(NO_SIZE),
            priority: priority.unwrap_or(f32::NAN),
            modified: modified_ms.unwrap_or(i64::MIN),
            mime: 0,
            audience: audience.unwrap_or(0),
            flags,
        }
    }

    /// What stays at the id of a resource its server stopped listing, when no snapshot
    /// holds its chunk: nothing of it (no text). The catalogue knows it is removed.
    pub fn removed() -> Self {
        Item {
            text: Box::default(),
            ends: [0; 4],
            size: NO_SIZE,
            priority: f32::NAN,
            modified: i64::MIN,
            mime: 0,
            audience: 0,
            flags: 0,
        }
    }

    /// The same resource, as one its server did not list (a pinned template expansion): a
    /// list change leaves it, and the server listing its URI replaces it.
    pub fn unlisted(mut self) -> Self {
        self.flags |= UNLISTED;
        self
    }

    /// See [`Item::unlisted`].
    pub fn is_unlisted(&self) -> bool {
        self.flags & UNLISTED != 0
    }

    fn field(&self, i: usize) -> &str {
        let start = if i == 0 {
            0
        } else {
            self.ends[i - 1] as usize + 1
        };
        let end = if i == 4 {
            self.text.len()
        } else {
            self.ends[i] as usize
        };
        // A removed item has no text (see `Item::removed`).
        self.text.get(start..end).unwrap_or_default()
    }

    pub fn uri(&self) -> &str {
        self.field(2)
    }

    pub fn name(&self) -> &str {
        self.field(1)
    }

    pub fn title(&self) -> Option<&str> {
        (self.flags & HAS_TITLE != 0).then(|| self.field(0))
    }

    pub fn description(&self) -> Option<&str> {
        (self.flags & HAS_DESCRIPTION != 0).then(|| self.field(3))
    }

    /// The name to show: the title when there is one, else the name.
    pub fn display_name(&self) -> &str {
        self.title().unwrap_or_else(|| self.name())
    }

    /// The description, empty when there is none (what search looks at).
    pub fn description_haystack(&self) -> &str {
        self.field(3)
    }

    pub fn size(&self) -> Option<u64> {
        (self.size != NO_SIZE).then_some(self.size)
    }

    pub fn priority(&self) -> Option<f32> {
        (!self.priority.is_nan()).then_some(self.priority)
    }

    /// `lastModified` as the server wrote it.
    pub fn last_modified(&self) -> Option<&str> {
        (self.flags & HAS_LAST_MODIFIED != 0).then(|| self.field(4))
    }

    /// `lastModified` in milliseconds since the epoch, when it parses.
    pub fn modified_ms(&self) -> Option<i64> {
        (self.modified != i64::MIN).then_some(self.modified)
    }

    /// Audience bits ([`AUDIENCE_USER`], [`AUDIENCE_ASSISTANT`]); `None` when not annotated.
    pub fn audience(&self) -> Option<u8> {
        (self.flags & HAS_AUDIENCE != 0).then_some(self.audience)
    }

    pub fn has_annotations(&self) -> bool {
        self.flags & HAS_ANNOTATIONS != 0
    }

    pub fn mime_id(&self) -> u16 {
        self.mime
    }

    /// The resource back, as an rmcp [`Resource`] (`mimes`: the table it was built with).
    /// Exactly the listed one for most resources; not for what an item does not keep (icons,
    /// `_meta`, an audience out of order or twice, a field too long for an offset, a MIME type
    /// past the table's bound): compare with the original where that matters.
    pub fn to_resource(&self, mimes: &MimeTable) -> Resource {
        let mut resource = Resource::new(self.uri(), self.name());
        resource.title = self.title().map(str::to_string);
        resource.description = self.description().map(str::to_string);
        resource.mime_type = mimes.get(self.mime).map(str::to_string);
        resource.size = self.size();
        if self.has_annotations() {
            let mut annotations = Annotations::default();
            annotations.audience = self.audience().map(|bits| {
                let mut roles = Vec::new();
                if bits & AUDIENCE_USER != 0 {
                    roles.push(Role::User);
                }
                if bits & AUDIENCE_ASSISTANT != 0 {
                    roles.push(Role::Assistant);
                }
                roles
            });
            annotations.priority = self.priority();
            annotations.last_modified = self.last_modified().map(str::to_string);
            resource.annotations = Some(annotations);
        }
        resource
    }

    /// The same item with another MIME id (moving it to a catalogue whose table numbers
    /// MIME types otherwise).
    pub(super) fn with_mime(mut self, mime: u16) -> Self {
        self.mime = mime;
        self
    }

    /// The JSON form used by `ls --json`.
    pub fn to_entry(&self, server: Arc<str>, mimes: &MimeTable) -> ResourceEntry {
        ResourceEntry {
            server,
            skill: super::entry::skill_of(self.uri()),
            uri: self.uri().to_string(),
            name: self.name().to_string(),
            title: self.title().map(str::to_string),
            description: self.description().map(str::to_string),
            mime_type: mimes.get(self.mime).map(str::to_string),
            size: self.size(),
            annotations: self.has_annotations().then(|| AnnotationsEntry {
                audience: self.audience().map(|bits| {
                    let mut roles = Vec::new();
                    if bits & AUDIENCE_USER != 0 {
                        roles.push("user".to_string());
                    }
                    if bits & AUDIENCE_ASSISTANT != 0 {
                        roles.push("assistant".to_string());
                    }
                    roles
                }),
                priority: self
                    .priority()
                    .and_then(|p| p.to_string().parse::<f64>().ok()),
                last_modified: self.last_modified().map(str::to_string),
            }),
        }
    }
}

/// Interned MIME types: a catalogue has a handful of distinct ones.
#[derive(Debug, Clone, Default)]
pub struct MimeTable {
    names: Vec<Arc<str>>,
    index: std::collections::HashMap<Arc<str>, u16>,
}

impl MimeTable {
    /// Id 0 means "no MIME type"; others index the table.
    pub fn intern(&mut self, mime: Option<&str>) -> u16 {
        let Some(mime) = mime else { return 0 };
        if let Some(&id) = self.index.get(mime) {
            return id;
        }
        if self.names.len() >= u16::MAX as usize - 1 {
            // A hostile server inventing MIME types cannot grow the table without bound.
            return 0;
        }
        let name: Arc<str> = mime.into();
        self.names.push(name.clone());
        let id = self.names.len() as u16;
        self.index.insert(name, id);
        id
    }

    /// MIME types in the table (ids 1 to `len`).
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Makes this table number MIME types as `other` does, by adding `other`'s later names:
    /// possible when this one is where `other` started (its first ids, the same names).
    /// False, and nothing changed, otherwise.
    pub fn catch_up(&mut self, other: &MimeTable) -> bool {
        if other.names.len() < self.names.len()
            || self.names.iter().zip(&other.names).any(|(a, b)| a != b)
        {
            return false;
        }
        for name in &other.names[self.names.len()..] {
            self.intern(Some(name));
        }
        true
    }

    pub fn get(&self, id: u16) -> Option<&str> {
        id.checked_sub(1)
            .and_then(|i| self.names.get(i as usize))
            .map(|s| &**s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_from_the_ranked_fields_gives_them_back() {
        let item = Item::ranked(
            "a://x y",
            "X",
            Some(0.5),
            Some(AUDIENCE_USER),
            Some(7),
            Some(9),
        );
        assert_eq!(
            (
                item.uri(),
                item.display_name(),
                item.title(),
                item.description()
            ),
            ("a://x y", "X", None, None)
        );
        assert_eq!(
            (
                item.priority(),
                item.audience(),
                item.modified_ms(),
                item.size()
            ),
            (Some(0.5), Some(AUDIENCE_USER), Some(7), Some(9))
        );
        let bare = Item::ranked("u", "", None, None, None, None);
        assert_eq!((bare.uri(), bare.name(), bare.audience()), ("u", "", None));
        assert!(!bare.has_annotations());
    }
    use rmcp::model::Annotations;

    #[test]
    fn round_trips_every_field() {
        let mut mimes = MimeTable::default();
        let resource = Resource::new("file:///a b.md", "a b.md")
            .with_title("A title")
            .with_description("desc")
            .with_mime_type("text/markdown")
            .with_size(42)
            .with_annotations(
                Annotations::default()
                    .with_priority(0.8)
                    .with_audience(vec![Role::Assistant]),
            );
        let item = Item::new(&resource, &mut mimes);
        assert_eq!(item.uri(), "file:///a b.md");
        assert_eq!(item.name(), "a b.md");
        assert_eq!(item.title(), Some("A title"));
        assert_eq!(item.description(), Some("desc"));
        assert_eq!(item.size(), Some(42));
        assert_eq!(item.priority(), Some(0.8));
        assert_eq!(item.audience(), Some(AUDIENCE_ASSISTANT));
        assert_eq!(item.last_modified(), None);
        assert_eq!(item.description_haystack(), "desc");
        let entry = item.to_entry("s".into(), &mimes);
        assert_eq!(entry.mime_type.as_deref(), Some("text/markdown"));
        assert_eq!(entry.annotations.unwrap().priority, Some(0.8));
    }

    #[test]
    fn absent_fields_stay_absent() {
        let mut mimes = MimeTable::default();
        let item = Item::new(&Resource::new("x://y", "y"), &mut mimes);
        assert_eq!(item.title(), None);
        assert_eq!(item.description(), None);
        assert_eq!(item.size(), None);
        assert_eq!(item.priority(), None);
        assert!(!item.has_annotations());
        assert_eq!(item.display_name(), "y");
        assert_eq!(item.to_entry("s".into(), &mimes).mime_type, None);
    }

    #[test]
    fn gives_back_the_resource_it_was_built_from() {
        let mut mimes = MimeTable::default();
        let full = Resource::new("file:///a b.md", "a b.md")
            .with_title("A title")
            .with_description("")
            .with_mime_type("text/markdown")
            .with_size(42)
            .with_annotations(
                Annotations::default()
                    .with_priority(-0.0)
                    .with_audience(vec![Role::User, Role::Assistant])
                    .with_timestamp_now(),
            );
        let mut no_audience = Resource::new("x://y", "y");
        no_audience.annotations = Some(Annotations::default().with_audience(vec![]));
        let mut empty_annotations = Resource::new("x://z", "z");
        empty_annotations.annotations = Some(Annotations::default());
        for resource in [
            full,
            Resource::new("x://x", ""),
            no_audience,
            empty_annotations,
        ] {
            let item = Item::new(&resource, &mut mimes);
            let back = item.to_resource(&mimes);
            assert_eq!(back, resource);
            assert_eq!(
                serde_json::to_string(&back).unwrap(),
                serde_json::to_string(&resource).unwrap(),
                "the same bytes (-0.0 stays -0.0)"
            );
        }
    }

    #[test]
    fn what_an_item_does_not_keep_does_not_come_back() {
        let mut mimes = MimeTable::default();
        let mut twice = Resource::new("x://1", "1");
        twice.annotations =
            Some(Annotations::default().with_audience(vec![Role::Assistant, Role::User]));
        let mut meta = Resource::new("x://2", "2");
        meta.meta = Some(Default::default());
        let huge = Resource::new("x://3", "3").with_size(u64::MAX);
        for resource in [twice, meta, huge] {
            let item = Item::new(&resource, &mut mimes);
            assert_ne!(item.to_resource(&mimes), resource, "{}", resource.uri);
        }
    }

    #[test]
    fn a_table_catches_up_only_with_one_it_started_as() {
        let mut start = MimeTable::default();
        start.intern(Some("a"));
        let mut later = start.clone();
        later.intern(Some("b"));
        assert!(start.catch_up(&later));
        assert_eq!(start.get(2), Some("b"));
        let mut other = MimeTable::default();
        other.intern(Some("b"));
        assert!(!other.catch_up(&later), "id 1 means another type there");
        assert_eq!(other.len(), 1);
    }

    #[test]
    fn item_is_small() {
        assert!(
            std::mem::size_of::<Item>() <= 64,
            "{}",
            std::mem::size_of::<Item>()
        );
    }
}
