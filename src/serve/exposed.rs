//! What `mcpick serve` publishes, worked out from a resolved [`Preview`]: pure, no I/O.
//!
//! - `included` (the default) exposes exactly the preview's included resources, in the
//!   agent's order; `allowed` adds everything the budget alone cut off (and whatever could not
//!   be read), so only excluded, audience- and priority-filtered resources stay hidden.
//! - Annotations pass through as published, except that a pinned resource carries
//!   `priority: 1.0` and has `assistant` in its `audience`.
//! - A URI published by several servers is exposed once per server: the copy of the server
//!   whose name sorts first keeps the URI, every other copy is `mcpick://SERVER/URI`
//!   (SERVER percent-encoded), so no two servers' resources collide.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{Annotations, Resource, Role};

use crate::catalog::ItemRef;
use crate::catalog::index::IdIndex;
use crate::catalog::item::MimeTable;
use crate::context::{Candidate, Preview, Reason};

/// Which resources `serve` publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Expose {
    /// What the agent view includes: within the budget, in order.
    #[default]
    Included,
    /// Every resource not excluded and passing the audience and minimum-priority filters,
    /// without the budget cut.
    Allowed,
}

/// The scheme of the URIs given to second copies of a URI published by several servers.
pub const ALIAS_SCHEME: &str = "mcpick";

/// A resource as its server listed it: its item in the upstream's listing, shared, not a
/// copy (at a million resources a copy per publication cost hundreds of MB), given back as
/// an rmcp [`Resource`] when asked; for the few an item does not give back exactly, the
/// listed resource itself.
#[derive(Debug, Clone)]
pub struct Listed {
    item: ItemRef,
    form: Form,
}

#[derive(Debug, Clone)]
enum Form {
    /// The item gives it back exactly, with this MIME table.
    Exact(Arc<MimeTable>),
    /// As listed.
    Original(Arc<Resource>),
}

impl Listed {
    /// A resource its item gives back exactly (`mimes`: the item's catalogue's table).
    pub fn exact(item: ItemRef, mimes: Arc<MimeTable>) -> Listed {
        Listed {
            item,
            form: Form::Exact(mimes),
        }
    }

    /// A resource kept as listed beside its item.
    pub fn original(item: ItemRef, resource: Arc<Resource>) -> Listed {
        Listed {
            item,
            form: Form::Original(resource),
        }
    }

    /// As its server listed it.
    pub fn resource(&self) -> Cow<'_, Resource> {
        match &self.form {
            Form::Exact(mimes) => Cow::Owned(self.item.get().to_resource(mimes)),
            Form::Original(resource) => Cow::Borrowed(resource),
        }
    }

    /// Its URI on its server (no resource is built for it).
    pub fn uri(&self) -> &str {
        match &self.form {
            Form::Exact(_) => self.item.get().uri(),
            Form::Original(resource) => &resource.uri,
        }
    }

    /// Whether both are certainly the same listed resource (without building either).
    pub(crate) fn same(&self, other: &Listed) -> bool {
        match (&self.form, &other.form) {
            // A chunk copied by a later change holds equal items at other addresses.
            (Form::Exact(a), Form::Exact(b)) => {
                Arc::ptr_eq(a, b)
                    && (self.item.same(&other.item) || self.item.get() == other.item.get())
            }
            (Form::Original(a), Form::Original(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// One published resource.
#[derive(Debug, Clone)]
pub struct ExposedResource {
    /// The server it comes from.
    pub server: Arc<str>,
    listed: Listed,
    /// The published form where it differs from the listed one (an aliased URI, a pin's
    /// annotations); most resources are published as listed.
    changed: Option<Box<Resource>>,
    pub pinned: bool,
}

impl ExposedResource {
    /// As published by `serve` (URI possibly aliased, annotations adjusted).
    pub fn resource(&self) -> Cow<'_, Resource> {
        match &self.changed {
            Some(changed) => Cow::Borrowed(changed),
            None => self.listed.resource(),
        }
    }

    /// The URI it is published under.
    pub fn uri(&self) -> &str {
        match &self.changed {
            Some(changed) => &changed.uri,
            None => self.listed.uri(),
        }
    }

    /// Its URI on its server.
    pub fn upstream_uri(&self) -> &str {
        self.listed.uri()
    }

    /// Whether a client sees the same resource in both (cheap when both are published from
    /// the same listing, as most are after an unrelated change).
    fn looks_the_same(&self, other: &ExposedResource) -> bool {
        match (&self.changed, &other.changed) {
            (None, None) if self.listed.same(&other.listed) => true,
            _ => self.uri() == other.uri() && self.resource() == other.resource(),
        }
    }
}

impl PartialEq for ExposedResource {
    fn eq(&self, other: &Self) -> bool {
        self.server == other.server && self.pinned == other.pinned && self.looks_the_same(other)
    }
}

/// Everything `serve` publishes at one moment.
#[derive(Debug, Clone, Default)]
pub struct Served {
    /// In the agent's order; the first `bundle` of them are the budgeted set (the prompt and
    /// the tool hand out exactly those).
    pub resources: Vec<ExposedResource>,
    pub bundle: usize,
    /// Tokens of the bundle, and whether any count is an estimate from `size`.
    pub tokens: u64,
    pub estimated: bool,
    pub budget: Option<u64>,
    /// Marks that match no listed resource.
    pub missing: usize,
    /// Servers that could not be connected or listed, with the reason.
    pub unavailable: Vec<(String, String)>,
    /// The upstream listings' cache hints, passed on to 2026-07-28 clients.
    pub cache: crate::mcp::CacheHints,
    /// Every position in `resources`, found by its published URI (4 bytes each, the URI is
    /// not copied).
    by_uri: IdIndex,
}

/// The same publication (the index follows from the resources).
impl PartialEq for Served {
    fn eq(&self, other: &Self) -> bool {
        self.resources == other.resources
            && self.bundle == other.bundle
            && self.tokens == other.tokens
            && self.estimated == other.estimated
            && self.budget == other.budget
            && self.missing == other.missing
            && self.unavailable == other.unavailable
            && self.cache == other.cache
    }
}

impl Served {
    /// The resource published under `uri`, if any.
    pub fn get(&self, uri: &str) -> Option<&ExposedResource> {
        let id = self
            .by_uri
            .find(uri, |i| self.resources[i as usize].uri() == uri)?;
        Some(&self.resources[id as usize])
    }

    /// Adds `resource` unless its published URI is taken; returns whether it was added.
    fn push(&mut self, resource: ExposedResource) -> bool {
        let uri = resource.uri();
        let resources = &self.resources;
        if self
            .by_uri
            .find(uri, |i| resources[i as usize].uri() == uri)
            .is_some()
        {
            return false;
        }
        let id = resources.len() as u32;
        self.by_uri.insert(uri, id, |i| resources[i as usize].uri());
        self.resources.push(resource);
        true
    }

    /// The published URI of a server's resource, if it is published: its own or its
    /// [`alias`] (found by URI, not by a pass over the list).
    pub fn published_uri(&self, server: &str, upstream_uri: &str) -> Option<&str> {
        let is_it = |r: &&ExposedResource| &*r.server == server && r.upstream_uri() == upstream_uri;
        self.get(upstream_uri)
            .filter(is_it)
            .or_else(|| self.get(&alias(server, upstream_uri)).filter(is_it))
            .map(|r| r.uri())
    }

    /// True when a client would see a different list (URIs, order or fields).
    pub fn list_differs(&self, other: &Served) -> bool {
        self.resources.len() != other.resources.len()
            || self
                .resources
                .iter()
                .zip(&other.resources)
                .any(|(a, b)| !a.looks_the_same(b))
    }
}

/// Builds what is served from a preview. `raw` finds a candidate's resource as it was
/// listed; `shared` tells whether another server lists the candidate's URI too (only those
/// can need an alias, so only those are looked at to find each URI's owner).
pub fn build(
    preview: &Preview,
    candidates: &[Candidate],
    raw: impl Fn(&Candidate) -> Option<Listed>,
    shared: impl Fn(&Candidate) -> bool,
    expose: Expose,
) -> Served {
    rebuild(&Served::default(), preview, candidates, raw, shared, expose).0
}

/// [`build`], after `previous` was published: also says whether a client would see a
/// different list ([`Served::list_differs`]), found in the same pass. Where the new list is
/// the previous one with entries added or taken out (an unrelated change leaves the others in
/// their order), the previous index by URI is kept, its ids moved, and only the new entries'
/// URIs are hashed.
pub fn rebuild(
    previous: &Served,
    preview: &Preview,
    candidates: &[Candidate],
    raw: impl Fn(&Candidate) -> Option<Listed>,
    shared: impl Fn(&Candidate) -> bool,
    expose: Expose,
) -> (Served, bool) {
    let mut served = entries(preview, candidates, raw, shared, expose);
    if let Some(differs) = served.index_after(previous) {
        return (served, differs);
    }
    // A URI published twice (or nothing to start from): each entry in order, the first of a
    // URI kept.
    let resources = std::mem::take(&mut served.resources);
    served.by_uri = IdIndex::default();
    for resource in resources {
        served.push(resource);
    }
    served.bundle = served.bundle.min(served.resources.len());
    let differs = previous.list_differs(&served);
    (served, differs)
}

/// What a preview publishes, in order, not indexed yet (a URI may be there twice).
fn entries(
    preview: &Preview,
    candidates: &[Candidate],
    raw: impl Fn(&Candidate) -> Option<Listed>,
    shared: impl Fn(&Candidate) -> bool,
    expose: Expose,
) -> Served {
    let allowed = preview
        .left_out
        .iter()
        .filter(|l| matches!(l.reason, Reason::OverBudget | Reason::ReadFailed(_)))
        .map(|l| (l.index as usize, false));
    let chosen = preview
        .included
        .iter()
        .map(|i| (i.index, i.pinned))
        .chain(allowed.filter(|_| expose == Expose::Allowed));
    let owners = owners(chosen.clone().filter_map(|(index, _)| {
        let c = &candidates[index];
        shared(c).then(|| (c.server, c.uri()))
    }));
    let mut served = Served {
        bundle: preview.included.len(),
        tokens: preview.total_tokens,
        estimated: preview.is_estimated(),
        budget: preview.budget,
        missing: preview.missing.len(),
        resources: Vec::with_capacity(chosen.clone().count()),
        ..Served::default()
    };
    let mut names: HashMap<&str, Arc<str>> = HashMap::new();
    let mut last: Option<(&str, Arc<str>)> = None;
    for (index, pinned) in chosen {
        let c = &candidates[index];
        let Some(listed) = raw(c) else {
            continue;
        };
        // Only a URI another server lists too has an owner (a URI looked at is a cache
        // miss: most are never looked at).
        let alias = (!owners.is_empty())
            .then(|| owners.get(c.uri()).filter(|&&owner| owner != c.server))
            .flatten()
            .map(|_| alias(c.server, c.uri()));
        let changed = (pinned || alias.is_some()).then(|| {
            let mut resource = listed.resource().into_owned();
            if let Some(alias) = alias {
                resource.uri = alias;
            }
            if pinned {
                pin_annotations(&mut resource);
            }
            Box::new(resource)
        });
        // Mostly the last one's server (always, with one upstream): its shared name is
        // looked up only when the server changes.
        let server = match &last {
            Some((name, shared)) if std::ptr::eq(*name, c.server) => shared.clone(),
            _ => {
                let shared = names.entry(c.server).or_insert_with(|| Arc::from(c.server));
                last = Some((c.server, shared.clone()));
                shared.clone()
            }
        };
        served.resources.push(ExposedResource {
            server,
            listed,
            changed,
            pinned,
        });
    }
    served.bundle = served.bundle.min(served.resources.len());
    served
}

/// An id [`Served::index_after`] found no new place for.
const GONE: u32 = u32::MAX;

impl Served {
    /// Indexes the entries (from [`entries`]) by URI from `previous`'s index, walking both
    /// lists once: an entry the same as the previous list's next one (or the one after it,
    /// when one was taken out) keeps its indexed URI at its new position; only the others are
    /// hashed. Whether a client would see a different list; `None` (nothing indexed) when a
    /// URI is published twice, or most entries are new: then they are indexed one by one.
    fn index_after(&mut self, previous: &Served) -> Option<bool> {
        let (new, old) = (&self.resources, &previous.resources);
        if old.is_empty() {
            return None;
        }
        let mut to = vec![GONE; old.len()];
        let mut fresh = Vec::new();
        let mut j = 0;
        for (k, entry) in new.iter().enumerate() {
            if j < old.len() && old[j] == *entry {
                to[j] = k as u32;
                j += 1;
            } else if j + 1 < old.len() && old[j + 1] == *entry {
                to[j + 1] = k as u32;
                j += 2;
            } else {
                fresh.push(k);
            }
        }
        if fresh.len() > new.len() / 2 {
            return None;
        }
        let moved = !fresh.is_empty()
            || new.len() != old.len()
            || to.iter().enumerate().any(|(j, &k)| k != j as u32);
        let mut by_uri = previous.by_uri.clone();
        by_uri.remap(|id| Some(to[id as usize]).filter(|&k| k != GONE));
        for k in fresh {
            let uri = new[k].uri();
            if by_uri.find(uri, |i| new[i as usize].uri() == uri).is_some() {
                return None;
            }
            by_uri.insert(uri, k as u32, |i| new[i as usize].uri());
        }
        self.by_uri = by_uri;
        Some(moved)
    }
}

/// The URI each `(server, uri)` is published under, in the same order: its own for the server
/// whose name sorts first among those publishing it, [`alias`] for the others.
pub fn published_uris<'a>(items: impl Iterator<Item = (&'a str, &'a str)> + Clone) -> Vec<String> {
    let owners = owners(items.clone());
    items
        .map(|(server, uri)| {
            if owners[uri] == server {
                uri.to_string()
            } else {
                alias(server, uri)
            }
        })
        .collect()
}

/// For each URI of `items`, the server that keeps it: the one whose name sorts first among
/// those publishing it.
fn owners<'a>(items: impl Iterator<Item = (&'a str, &'a str)>) -> HashMap<&'a str, &'a str> {
    let mut owner: HashMap<&str, &str> = HashMap::new();
    for (server, uri) in items {
        owner
            .entry(uri)
            .and_modify(|first| *first = (*first).min(server))
            .or_insert(server);
    }
    owner
}

/// `mcpick://SERVER/URI` for the second and later copies of a URI.
pub fn alias(server: &str, uri: &str) -> String {
    let mut out = format!("{ALIAS_SCHEME}://");
    for b in server.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out.push('/');
    out.push_str(uri);
    out
}

/// A pinned resource is as important as it gets, and meant for the assistant.
fn pin_annotations(resource: &mut Resource) {
    let annotations = resource
        .annotations
        .get_or_insert_with(Annotations::default);
    annotations.priority = Some(1.0);
    if let Some(audience) = &mut annotations.audience
        && !audience.contains(&Role::Assistant)
    {
        audience.push(Role::Assistant);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Catalogue, Item, ItemId};
    use crate::context::{Included, LeftOut, TokenizerKind};

    fn cand(server: &'static str, uri: &'static str) -> Candidate<'static> {
        let item = Item::ranked(uri, uri, None, None, None, None);
        let id = ItemId {
            server: 0,
            index: 0,
        };
        Candidate::from_item(id, server, Box::leak(Box::new(item)))
    }

    fn included(index: usize, pinned: bool) -> Included {
        Included {
            index,
            tokens: 1,
            estimated: false,
            running_total: 1,
            pinned,
            priority: 0.5,
            priority_defaulted: true,
        }
    }

    fn preview(included: Vec<Included>, left_out: Vec<LeftOut>) -> Preview {
        Preview {
            budget: Some(10),
            tokenizer: TokenizerKind::default(),
            included,
            total_tokens: 2,
            left_out,
            pins_over_budget: false,
            missing: Vec::new(),
            unavailable: Vec::new(),
        }
    }

    fn listed(uri: &str) -> Resource {
        let mut r = Resource::new(uri, uri);
        r.annotations = Some(
            Annotations::default()
                .with_audience(vec![Role::User])
                .with_priority(0.2),
        );
        r
    }

    /// Each candidate's resource as listed, found by its position in `cands` (the tests'
    /// candidates carry no real ids).
    fn lister(cands: &[Candidate]) -> impl Fn(&Candidate) -> Option<Listed> {
        let mut catalogue = Catalogue::new();
        let items: Vec<ItemRef> = cands
            .iter()
            .map(|c| {
                let server = catalogue.server(c.server);
                catalogue.append(server, [listed(c.uri())].iter());
                let id = catalogue.find(server, c.uri()).unwrap();
                catalogue.item_ref(id).unwrap()
            })
            .collect();
        let mimes = Arc::new(catalogue.mimes().clone());
        let keys: Vec<(String, String)> = cands
            .iter()
            .map(|c| (c.server.to_string(), c.uri().to_string()))
            .collect();
        move |x: &Candidate| {
            let at = keys
                .iter()
                .position(|(s, u)| s == x.server && u == x.uri())?;
            Some(Listed::exact(items[at].clone(), mimes.clone()))
        }
    }

    /// Whether another candidate has the same URI on another server.
    fn shared<'a>(cands: &'a [Candidate<'a>]) -> impl Fn(&Candidate) -> bool + 'a {
        move |x: &Candidate| {
            cands
                .iter()
                .any(|c| c.uri() == x.uri() && c.server != x.server)
        }
    }

    #[test]
    fn order_pins_and_aliases() {
        let cands = [cand("b", "x://1"), cand("a", "x://1"), cand("a", "x://2")];
        let p = preview(
            vec![included(2, true), included(0, false), included(1, false)],
            vec![],
        );
        let served = build(&p, &cands, lister(&cands), shared(&cands), Expose::Included);
        let uris: Vec<&str> = served.resources.iter().map(|r| r.uri()).collect();
        assert_eq!(uris, ["x://2", "mcpick://b/x://1", "x://1"]);
        assert_eq!(&*served.get("x://1").unwrap().server, "a");
        assert_eq!(
            served.resources[1].upstream_uri(),
            "x://1",
            "aliased, read as listed"
        );
        let pinned = served.resources[0].resource().annotations.clone().unwrap();
        assert_eq!(pinned.priority, Some(1.0));
        assert_eq!(pinned.audience, Some(vec![Role::User, Role::Assistant]));
        let unpinned = served.resources[1].resource().annotations.clone().unwrap();
        assert_eq!(unpinned.priority, Some(0.2), "published as listed");
        assert!(served.get("x://3").is_none());
        assert_eq!(served.bundle, 3);
        // A server's resource found under the URI it is published as, aliased or not.
        assert_eq!(served.published_uri("a", "x://1"), Some("x://1"));
        assert_eq!(served.published_uri("b", "x://1"), Some("mcpick://b/x://1"));
        assert_eq!(served.published_uri("a", "x://2"), Some("x://2"));
        assert_eq!(served.published_uri("b", "x://2"), None);
        assert_eq!(served.published_uri("c", "x://1"), None);
    }

    #[test]
    fn allowed_adds_what_the_budget_cut_but_not_exclusions() {
        let cands = [cand("a", "x://1"), cand("a", "x://2"), cand("a", "x://3")];
        let left = |index, reason| LeftOut {
            index,
            reason,
            tokens: None,
            estimated: false,
        };
        let p = preview(
            vec![included(0, false)],
            vec![left(1, Reason::OverBudget), left(2, Reason::Excluded)],
        );
        let find = lister(&cands);
        let included = build(&p, &cands, &find, shared(&cands), Expose::Included);
        assert_eq!(included.resources.len(), 1);
        let allowed = build(&p, &cands, &find, shared(&cands), Expose::Allowed);
        let uris: Vec<&str> = allowed.resources.iter().map(|r| r.uri()).collect();
        assert_eq!(uris, ["x://1", "x://2"]);
        assert_eq!(
            allowed.bundle, 1,
            "the prompt still hands out the budgeted set"
        );
        assert!(included.list_differs(&allowed));
        assert!(!allowed.list_differs(&allowed.clone()));
    }

    #[test]
    fn the_same_list_from_a_new_listing_is_no_change_and_a_changed_field_is() {
        let cands = [cand("a", "x://1"), cand("a", "x://2")];
        let p = preview(vec![included(0, false), included(1, false)], vec![]);
        let before = build(&p, &cands, lister(&cands), shared(&cands), Expose::Included);
        let again = build(&p, &cands, lister(&cands), shared(&cands), Expose::Included);
        assert!(
            !before.list_differs(&again),
            "other chunks, the same resources"
        );
        assert_eq!(before, again);
        let mut catalogue = Catalogue::new();
        let server = catalogue.server("a");
        let mut retitled = listed("x://2");
        retitled.title = Some("new".into());
        catalogue.append(server, [listed("x://1"), retitled].iter());
        let mimes = Arc::new(catalogue.mimes().clone());
        let changed = build(
            &p,
            &cands,
            |x: &Candidate| {
                let id = catalogue.find(server, x.uri())?;
                Some(Listed::exact(catalogue.item_ref(id)?, mimes.clone()))
            },
            shared(&cands),
            Expose::Included,
        );
        assert!(before.list_differs(&changed));
        assert_eq!(
            changed.resources[1].resource().title.as_deref(),
            Some("new")
        );
    }

    #[test]
    fn a_resource_kept_as_listed_is_published_as_listed_and_pinned_from_it() {
        let cands = [cand("a", "x://1")];
        let mut catalogue = Catalogue::new();
        let server = catalogue.server("a");
        let mut odd = listed("x://1");
        odd.meta = Some(Default::default());
        odd.annotations.as_mut().unwrap().audience = Some(vec![Role::User, Role::User]);
        catalogue.append(server, [odd.clone()].iter());
        let item = catalogue.item_ref(ItemId { server, index: 0 }).unwrap();
        let original = Arc::new(odd.clone());
        let find = |_: &Candidate| Some(Listed::original(item.clone(), original.clone()));
        let p = preview(vec![included(0, false)], vec![]);
        let served = build(&p, &cands, find, shared(&cands), Expose::Included);
        assert_eq!(*served.resources[0].resource(), odd);
        let pinned = build(
            &preview(vec![included(0, true)], vec![]),
            &cands,
            find,
            shared(&cands),
            Expose::Included,
        );
        let published = pinned.resources[0].resource();
        assert_eq!(published.meta, odd.meta, "pinned from the listed form");
        assert_eq!(published.annotations.as_ref().unwrap().priority, Some(1.0));
    }

    /// Every published URI is found, at its place.
    fn assert_indexed(served: &Served) {
        for (at, r) in served.resources.iter().enumerate() {
            let found = served.get(r.uri()).map(|f| f as *const ExposedResource);
            assert_eq!(
                found,
                Some(&served.resources[at] as *const _),
                "{}",
                r.uri()
            );
        }
    }

    #[test]
    fn a_rebuild_indexes_as_a_build_does_and_says_whether_the_list_changed() {
        let cands = [
            cand("a", "x://0"),
            cand("a", "x://1"),
            cand("a", "x://2"),
            cand("a", "x://3"),
            cand("a", "x://4"),
            cand("b", "x://0"), // the second copy: published under an alias
        ];
        let find = lister(&cands);
        let at = |order: &[usize]| {
            let included = order.iter().map(|&i| included(i, i == 3)).collect();
            preview(included, vec![])
        };
        let uris = |s: &Served| -> Vec<String> {
            s.resources.iter().map(|r| r.uri().to_string()).collect()
        };
        let first = at(&[0, 1, 2, 3, 5]);
        let before = build(&first, &cands, &find, shared(&cands), Expose::Included);
        let (same, differs) = rebuild(
            &before,
            &first,
            &cands,
            &find,
            shared(&cands),
            Expose::Included,
        );
        assert!(!differs, "the same list");
        assert_eq!(same, before);
        assert_indexed(&same);
        // One taken out, one put in its place, one added at the end.
        let next = at(&[0, 4, 2, 3, 5, 1]);
        let (after, differs) = rebuild(
            &before,
            &next,
            &cands,
            &find,
            shared(&cands),
            Expose::Included,
        );
        assert!(differs);
        let built = build(&next, &cands, &find, shared(&cands), Expose::Included);
        assert_eq!(after, built);
        assert_eq!(
            uris(&after),
            [
                "x://0",
                "x://4",
                "x://2",
                "x://3",
                "mcpick://b/x://0",
                "x://1"
            ]
        );
        assert_indexed(&after);
        // Only reordered: a different list, still indexed right.
        let (moved, differs) = rebuild(
            &after,
            &first,
            &cands,
            &find,
            shared(&cands),
            Expose::Included,
        );
        assert!(differs);
        assert_eq!(moved, before);
        assert_indexed(&moved);
    }

    #[test]
    fn a_rebuild_with_a_uri_listed_twice_publishes_it_once() {
        let cands = [cand("a", "x://0"), cand("a", "x://1"), cand("a", "x://0")];
        let find = lister(&cands);
        let before = build(
            &preview(vec![included(0, false)], vec![]),
            &cands,
            &find,
            shared(&cands),
            Expose::Included,
        );
        let twice = preview(
            vec![included(0, false), included(1, false), included(2, false)],
            vec![],
        );
        let (after, differs) = rebuild(
            &before,
            &twice,
            &cands,
            &find,
            shared(&cands),
            Expose::Included,
        );
        assert!(differs);
        assert_eq!(
            after,
            build(&twice, &cands, &find, shared(&cands), Expose::Included)
        );
        let uris: Vec<&str> = after.resources.iter().map(|r| r.uri()).collect();
        assert_eq!(uris, ["x://0", "x://1"]);
        assert_eq!(after.bundle, 2);
        assert_indexed(&after);
    }

    #[test]
    fn alias_encodes_the_server_name() {
        assert_eq!(alias("my docs", "a://b"), "mcpick://my%20docs/a://b");
    }
}
