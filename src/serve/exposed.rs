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
//! - A change is published as an edit ([`publish`]): the stretch of the list it moved is made
//!   again and the rest kept, so following a changing million costs what changed, not a new
//!   list of a million.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::{Annotations, Resource, Role};

use crate::catalog::index::IdIndex;
use crate::catalog::item::MimeTable;
use crate::catalog::{Item, ItemId, ItemRef, Snapshot};
use crate::context::{Candidate, Preview, Reason};

/// Which resources `serve` publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Expose {
    /// What the agent view includes: within the budget, in order.
    #[default]
    Included,
    /// Every resource not excluded and passing the audience and minimum-priority filters,
    /// without the budget cut (nor, with no budget set, the pins-only rule).
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
}

/// One published resource as kept: which item of the listings it is and how it is
/// published. 32 bytes and, for most, nothing shared: the item is found in the listings'
/// [`Snapshot`] the list holds, so an edit touches only what changed (an entry holding its
/// item's chunk cost an atomic count at each build and drop, a million of each a refresh).
#[derive(Debug, Clone, PartialEq)]
struct Entry {
    /// Its item among the upstreams' listings (for an expansion: among them and the set's
    /// expansions).
    id: ItemId,
    pinned: bool,
    /// A template expansion: published as it was made, made again at every refresh.
    expansion: bool,
    /// As listed, for a resource its item does not give back exactly (and an expansion).
    kept: Option<Arc<Resource>>,
    /// The published form where it differs from the listed one (an aliased URI, a pin's
    /// annotations); most resources are published as listed.
    changed: Option<Box<Resource>>,
}

impl Entry {
    /// A candidate's entry from its resource as listed; `alias`: the URI it is published
    /// under when another server keeps its own.
    fn new(c: &Candidate, pinned: bool, listed: Listed, alias: Option<String>) -> Entry {
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
        let kept = match listed.form {
            Form::Original(resource) => Some(resource),
            Form::Exact(_) => None,
        };
        Entry {
            id: c.id,
            pinned,
            expansion: c.expansion_of.is_some(),
            kept,
            changed,
        }
    }

    /// Its URI on its server, its item found in `items`.
    fn upstream_uri<'a>(&'a self, items: &'a Snapshot) -> &'a str {
        match &self.kept {
            Some(kept) => &kept.uri,
            None => items.get(self.id).map_or("", Item::uri),
        }
    }

    /// The URI it is published under, its item found in `items`.
    fn uri<'a>(&'a self, items: &'a Snapshot) -> &'a str {
        match &self.changed {
            Some(changed) => &changed.uri,
            None => self.upstream_uri(items),
        }
    }

    /// Whether this is what the candidate at the same place publishes, unchanged unless its
    /// item was touched (expansions are made again each time).
    fn is(&self, c: &Candidate, pinned: bool) -> bool {
        self.id == c.id && self.pinned == pinned && !self.expansion && c.expansion_of.is_none()
    }
}

/// One published resource, as `serve` hands it out.
#[derive(Debug, Clone, Copy)]
pub struct ExposedResource<'a> {
    served: &'a Served,
    entry: &'a Entry,
}

impl<'a> ExposedResource<'a> {
    /// The server it comes from.
    pub fn server(&self) -> &'a str {
        self.served.items.server_name(self.entry.id.server)
    }

    /// Pinned by the set (published at priority 1.0).
    pub fn pinned(&self) -> bool {
        self.entry.pinned
    }

    /// As published by `serve` (URI possibly aliased, annotations adjusted).
    pub fn resource(&self) -> Cow<'a, Resource> {
        let entry = self.entry;
        match (&entry.changed, &entry.kept) {
            (Some(changed), _) => Cow::Borrowed(changed),
            (None, Some(kept)) => Cow::Borrowed(kept),
            // An entry's item is in the snapshot it was made with (never `None`).
            (None, None) => Cow::Owned(match self.item() {
                Some(item) => item.to_resource(&self.served.mimes),
                None => Resource::new("", ""),
            }),
        }
    }

    /// The URI it is published under.
    pub fn uri(&self) -> &'a str {
        self.entry.uri(&self.served.items)
    }

    /// Its URI on its server.
    pub fn upstream_uri(&self) -> &'a str {
        self.entry.upstream_uri(&self.served.items)
    }

    /// Its item in the listings (for a resource published from it).
    fn item(&self) -> Option<&'a Item> {
        self.served.items.get(self.entry.id)
    }

    /// Whether a client sees the same resource in both (cheap when both are the same item
    /// in memory, as after an unrelated change).
    fn looks_the_same(&self, other: &ExposedResource) -> bool {
        let (a, b) = (self.entry, other.entry);
        if a.pinned != b.pinned || self.server() != other.server() {
            return false;
        }
        let plain = |e: &Entry| e.kept.is_none() && e.changed.is_none();
        if plain(a)
            && plain(b)
            && let (Some(x), Some(y)) = (self.item(), other.item())
            && std::ptr::eq(x, y)
        {
            return true;
        }
        self.uri() == other.uri() && self.resource() == other.resource()
    }
}

/// Everything `serve` publishes at one moment.
#[derive(Debug, Clone, Default)]
pub struct Served {
    /// In the agent's order; the first `bundle` of them are the budgeted set (the prompt and
    /// the tool hand out exactly those).
    entries: Vec<Entry>,
    /// The upstreams' listings the entries' items are in, as they were when this was made.
    items: Snapshot,
    /// The MIME table the items number their types with (shared by every listing).
    mimes: Arc<MimeTable>,
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
    /// Every position in `entries`, found by its published URI (4 bytes each, the URI is
    /// not copied).
    by_uri: IdIndex,
    /// How many entries are published under an alias.
    aliased: usize,
}

/// The same publication (the index follows from the resources).
impl PartialEq for Served {
    fn eq(&self, other: &Self) -> bool {
        !self.list_differs(other)
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
    /// How many resources are published.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The published resources at `range` of the list (clamped to it), in order.
    pub fn range(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl ExactSizeIterator<Item = ExposedResource<'_>> {
        let end = range.end.min(self.entries.len());
        let start = range.start.min(end);
        self.entries[start..end]
            .iter()
            .map(|entry| ExposedResource {
                served: self,
                entry,
            })
    }

    /// Every published resource, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = ExposedResource<'_>> {
        self.range(0..self.entries.len())
    }

    /// The resource at `at` in the list.
    fn at(&self, at: usize) -> ExposedResource<'_> {
        ExposedResource {
            served: self,
            entry: &self.entries[at],
        }
    }

    /// The resource published under `uri`, if any.
    pub fn get(&self, uri: &str) -> Option<ExposedResource<'_>> {
        let at = self
            .by_uri
            .find(uri, |i| self.at(i as usize).uri() == uri)?;
        Some(self.at(at as usize))
    }

    /// Adds `entry` unless its published URI is taken; returns whether it was added.
    fn push(&mut self, entry: Entry) -> bool {
        let at = self.entries.len() as u32;
        self.entries.push(entry);
        let uri = self.at(at as usize).uri();
        if self
            .by_uri
            .find(uri, |i| self.at(i as usize).uri() == uri)
            .is_some()
        {
            self.entries.pop();
            return false;
        }
        let (entries, items) = (&self.entries, &self.items);
        let uri_of = |i: u32| entries[i as usize].uri(items);
        self.by_uri.insert(uri_of(at), at, uri_of);
        true
    }

    /// The published URI of a server's resource, if it is published: its own or its
    /// [`alias`] (found by URI, not by a pass over the list).
    pub fn published_uri(&self, server: &str, upstream_uri: &str) -> Option<&str> {
        let is_it = |r: &ExposedResource| r.server() == server && r.upstream_uri() == upstream_uri;
        self.get(upstream_uri)
            .filter(is_it)
            .or_else(|| self.get(&alias(server, upstream_uri)).filter(is_it))
            .map(|r| r.uri())
    }

    /// True when a client would see a different list (URIs, order or fields).
    pub fn list_differs(&self, other: &Served) -> bool {
        self.len() != other.len()
            || self
                .iter()
                .zip(other.iter())
                .any(|(a, b)| !a.looks_the_same(&b))
    }

    /// Makes this the publication `edit` was planned to (see [`publish`]) and says whether a
    /// client would see a different list. Costs what changed: the entries taken out and put
    /// in, and when the list's length changed, one pass moving the later positions in the
    /// index (4 bytes each; no URI is read or hashed again).
    pub fn apply(&mut self, edit: Edit) -> bool {
        let Edit {
            start,
            end,
            entries,
            refreshed,
            differs,
            items,
            mimes,
            meta,
        } = edit;
        // Out of the index, by their URIs in the listings they were published from.
        for at in start..end {
            let uri = self.entries[at].uri(&self.items);
            self.by_uri.remove(uri, |i| i as usize == at);
        }
        let put = entries.len();
        self.entries.splice(start..end, entries);
        self.items = items;
        self.mimes = mimes;
        if put != end - start {
            let shift = |i: u32| (i as usize - end + start + put) as u32;
            self.by_uri
                .remap(|i| Some(if i as usize >= end { shift(i) } else { i }));
        }
        let (entries, items) = (&self.entries, &self.items);
        let uri_of = |i: u32| entries[i as usize].uri(items);
        for at in start..start + put {
            self.by_uri.insert(uri_of(at as u32), at as u32, uri_of);
        }
        for (at, entry) in refreshed {
            self.entries[at] = entry;
        }
        meta.onto(self);
        differs
    }
}

/// What a publication says beside its list: the bundle and its tokens, from the preview.
#[derive(Debug, Clone)]
pub struct Meta {
    bundle: usize,
    tokens: u64,
    estimated: bool,
    budget: Option<u64>,
    missing: usize,
}

impl Meta {
    fn of(preview: &Preview) -> Meta {
        Meta {
            bundle: preview.included.len(),
            tokens: preview.total_tokens,
            estimated: preview.is_estimated(),
            budget: preview.budget.tokens(),
            missing: preview.missing.len(),
        }
    }

    fn onto(self, served: &mut Served) {
        served.bundle = self.bundle.min(served.entries.len());
        served.tokens = self.tokens;
        served.estimated = self.estimated;
        served.budget = self.budget;
        served.missing = self.missing;
    }
}

/// How the list published before becomes the next one: the entries from `start` up to
/// `end` replaced by `entries`, and the entries at `refreshed` (places in the new list),
/// whose items changed in place, made again.
#[derive(Debug)]
pub struct Edit {
    start: usize,
    end: usize,
    entries: Vec<Entry>,
    refreshed: Vec<(usize, Entry)>,
    differs: bool,
    items: Snapshot,
    mimes: Arc<MimeTable>,
    meta: Meta,
}

/// The next publication: built whole, or an edit of the one before.
#[derive(Debug)]
pub enum Publication {
    Whole(Served),
    Edit(Edit),
}

/// Where a preview's resources come from: the candidates it indexes, how each was listed
/// (`raw`), whether another server lists its URI too (`shared`: only those can need an
/// alias, so only those are looked at to find each URI's owner), and the listings' items
/// (`items`, whose ids the candidates carry; an expansion is found by `raw`) with their
/// MIME table.
pub struct Inputs<'a, R, S> {
    pub candidates: &'a [Candidate<'a>],
    pub raw: R,
    pub shared: S,
    pub items: Snapshot,
    pub mimes: Arc<MimeTable>,
}

/// Builds what is served from a preview.
pub fn build<R, S>(preview: &Preview, inputs: Inputs<'_, R, S>, expose: Expose) -> Served
where
    R: Fn(&Candidate) -> Option<Listed>,
    S: Fn(&Candidate) -> bool,
{
    whole(preview, &inputs, &chosen(preview, expose))
}

/// The publication after `previous`, for a preview of the same listings with the items
/// `touched` since changed in place, taken out or put in (`None`: not known, so built
/// whole). Where the new list is the previous one with a stretch replaced (the common case:
/// the candidates the change moved lie together), only that stretch is made, and the items
/// touched in place are looked at; the rest of the list is compared by id, 12 bytes a
/// resource, in the order both are in. Built whole when nothing was published before, when
/// a URI is published by several servers (an edit could move which one keeps it) or would
/// be published twice.
pub fn publish<R, S>(
    previous: &Served,
    touched: Option<&[ItemId]>,
    preview: &Preview,
    inputs: Inputs<'_, R, S>,
    expose: Expose,
) -> Publication
where
    R: Fn(&Candidate) -> Option<Listed>,
    S: Fn(&Candidate) -> bool,
{
    let chosen = chosen(preview, expose);
    match edit(previous, touched, preview, &inputs, &chosen) {
        Some(edit) => Publication::Edit(edit),
        None => Publication::Whole(whole(preview, &inputs, &chosen)),
    }
}

/// What a preview publishes, in order: (candidate index, pinned).
fn chosen(preview: &Preview, expose: Expose) -> Vec<(u32, bool)> {
    let allowed = preview
        .left_out
        .iter()
        .filter(|l| {
            matches!(
                l.reason,
                Reason::OverBudget | Reason::NoBudget | Reason::ReadFailed(_)
            )
        })
        .map(|l| (l.index, false));
    preview
        .included
        .iter()
        .map(|i| (i.index as u32, i.pinned))
        .chain(allowed.filter(|_| expose == Expose::Allowed))
        .collect()
}

/// The publication of `chosen`, built whole: each entry in order, the first of a URI kept.
fn whole<R, S>(preview: &Preview, inputs: &Inputs<'_, R, S>, chosen: &[(u32, bool)]) -> Served
where
    R: Fn(&Candidate) -> Option<Listed>,
    S: Fn(&Candidate) -> bool,
{
    let candidates = inputs.candidates;
    let owners = owners(chosen.iter().filter_map(|&(index, _)| {
        let c = &candidates[index as usize];
        (inputs.shared)(c).then(|| (c.server, c.uri()))
    }));
    let mut served = Served {
        entries: Vec::with_capacity(chosen.len()),
        items: inputs.items.clone(),
        mimes: inputs.mimes.clone(),
        ..Served::default()
    };
    for &(index, pinned) in chosen {
        let c = &candidates[index as usize];
        let Some(listed) = (inputs.raw)(c) else {
            continue;
        };
        // Only a URI another server lists too has an owner (a URI looked at is a cache
        // miss: most are never looked at).
        let alias = (in_alias_form(c.uri())
            || (!owners.is_empty() && owners.get(c.uri()).is_some_and(|&owner| owner != c.server)))
        .then(|| alias(c.server, c.uri()));
        let aliased = alias.is_some();
        if served.push(Entry::new(c, pinned, listed, alias)) && aliased {
            served.aliased += 1;
        }
    }
    Meta::of(preview).onto(&mut served);
    served
}

/// [`publish`]'s edit, if one can make the new list from `previous`.
fn edit<R, S>(
    previous: &Served,
    touched: Option<&[ItemId]>,
    preview: &Preview,
    inputs: &Inputs<'_, R, S>,
    chosen: &[(u32, bool)],
) -> Option<Edit>
where
    R: Fn(&Candidate) -> Option<Listed>,
    S: Fn(&Candidate) -> bool,
{
    let touched = touched?;
    let old = &previous.entries;
    if old.is_empty() || previous.aliased > 0 {
        return None;
    }
    let candidates = inputs.candidates;
    let is = |k: usize, at: usize| {
        let (index, pinned) = chosen[k];
        old[at].is(&candidates[index as usize], pinned)
    };
    let (start, same_end) = stretch(chosen.len(), old.len(), is);
    let end = old.len() - same_end;
    let published = |uri: &str| {
        previous
            .by_uri
            .find(uri, |i| previous.at(i as usize).uri() == uri)
            .map(|i| i as usize)
    };
    let mut entries = Vec::new();
    let mut put_in = std::collections::HashSet::new();
    for &(index, pinned) in &chosen[start..chosen.len() - same_end] {
        let c = &candidates[index as usize];
        if (inputs.shared)(c) || in_alias_form(c.uri()) {
            return None;
        }
        let Some(listed) = (inputs.raw)(c) else {
            continue;
        };
        let entry = Entry::new(c, pinned, listed, None);
        // Published by an entry that stays, or twice in the stretch: which copy is kept
        // is the whole list's to say.
        let uri = c.uri();
        if published(uri).is_some_and(|at| at < start || at >= end) || !put_in.insert(uri) {
            return None;
        }
        entries.push(entry);
    }
    let mut differs = entries.len() != end - start
        || entries
            .iter()
            .zip(&old[start..end])
            .any(|(new, was)| new != was);
    // An item changed in place keeps its id and URI: a published one is a change a client
    // sees, and one published in another form than its item's is made again.
    let names = &inputs.items;
    let mut refreshed = Vec::new();
    for &id in touched {
        let Some(item) = names.get(id) else {
            continue; // taken out: not among the candidates, so in the stretch
        };
        let Some(at) = published(item.uri()).filter(|&at| old[at].id == id && !old[at].expansion)
        else {
            continue;
        };
        differs = true;
        if (start..end).contains(&at) {
            continue; // made again with the stretch
        }
        let was = &old[at];
        if was.kept.is_some() || was.changed.is_some() {
            let c = Candidate::from_item(id, names.server_name(id.server), item);
            let listed = (inputs.raw)(&c)?;
            let to = if at < start {
                at
            } else {
                at - end + start + entries.len()
            };
            refreshed.push((to, Entry::new(&c, was.pinned, listed, None)));
        }
    }
    Some(Edit {
        start,
        end,
        entries,
        refreshed,
        differs,
        items: inputs.items.clone(),
        mimes: inputs.mimes.clone(),
        meta: Meta::of(preview),
    })
}

/// The stretch that changed between an old list of `old` entries and a new one of `chosen`:
/// how many lead and how many end both the same (`same(k, at)`: new `k` is old `at`).
fn stretch(chosen: usize, old: usize, same: impl Fn(usize, usize) -> bool) -> (usize, usize) {
    let mut start = 0;
    while start < chosen && start < old && same(start, start) {
        start += 1;
    }
    let mut same_end = 0;
    while same_end < chosen - start
        && same_end < old - start
        && same(chosen - 1 - same_end, old - 1 - same_end)
    {
        same_end += 1;
    }
    (start, same_end)
}

/// The URI each `(server, uri)` is published under, in the same order: its own for the server
/// whose name sorts first among those publishing it, [`alias`] for the others.
pub fn published_uris<'a>(items: impl Iterator<Item = (&'a str, &'a str)> + Clone) -> Vec<String> {
    let owners = owners(items.clone());
    items
        .map(|(server, uri)| {
            if owners[uri] == server && !in_alias_form(uri) {
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

/// True when a server's own URI looks like an [`alias`]: it is published under an alias of
/// its own, so it can never shadow the alias of another server's copy of a shared URI.
fn in_alias_form(uri: &str) -> bool {
    uri.strip_prefix(ALIAS_SCHEME)
        .is_some_and(|rest| rest.starts_with("://"))
}

/// `mcpick://SERVER/URI` for the second and later copies of a URI (and for a server's URI
/// that is itself in that form).
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
    use std::collections::HashMap;

    use proptest::prelude::*;

    use super::*;
    use crate::catalog::Catalogue;
    use crate::context::{Included, LeftOut, TokenizerKind, candidates};
    use crate::mcp::ListingEdit;

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
            budget: crate::context::Budget::Tokens(10),
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

    /// Servers' listings in one catalogue, as `serve`'s merged one: candidates carry its
    /// ids; `originals` are resources published as listed rather than from their items.
    #[derive(Default)]
    struct World {
        catalogue: Catalogue,
        originals: HashMap<ItemId, Arc<Resource>>,
    }

    impl World {
        fn new(servers: &[(&str, &[&str])]) -> World {
            let mut world = World::default();
            for (server, uris) in servers {
                let id = world.catalogue.server(server);
                let listing: Vec<Resource> = uris.iter().map(|u| listed(u)).collect();
                world.catalogue.append(id, listing.iter());
            }
            world
        }

        fn candidates(&self) -> Vec<Candidate<'_>> {
            candidates(&self.catalogue)
        }

        fn inputs<'a>(
            &'a self,
            candidates: &'a [Candidate<'a>],
        ) -> Inputs<'a, impl Fn(&Candidate) -> Option<Listed> + 'a, impl Fn(&Candidate) -> bool + 'a>
        {
            let mimes = Arc::new(self.catalogue.mimes().clone());
            let catalogue = &self.catalogue;
            Inputs {
                candidates,
                raw: move |c: &Candidate| {
                    let item = catalogue.item_ref(c.id)?;
                    Some(match self.originals.get(&c.id) {
                        Some(original) => Listed::original(item, original.clone()),
                        None => Listed::exact(item, mimes.clone()),
                    })
                },
                shared: move |c: &Candidate| {
                    (0..catalogue.server_count() as crate::catalog::ServerId)
                        .any(|s| s != c.id.server && catalogue.find(s, c.uri()).is_some())
                },
                items: catalogue.snapshot(),
                mimes: Arc::new(catalogue.mimes().clone()),
            }
        }
    }

    fn uris(served: &Served) -> Vec<String> {
        served.iter().map(|r| r.uri().to_string()).collect()
    }

    /// Every published URI is found, at its place.
    fn assert_indexed(served: &Served) {
        for (at, r) in served.iter().enumerate() {
            let found = served.get(r.uri()).map(|f| f.entry as *const Entry);
            assert_eq!(found, Some(&served.entries[at] as *const _), "{}", r.uri());
        }
    }

    /// `preview` published after `previous`: the edit applied, or the whole build.
    fn published(
        previous: &Served,
        touched: Option<&[ItemId]>,
        preview: &Preview,
        world: &World,
    ) -> (Served, bool, bool) {
        let cands = world.candidates();
        match publish(
            previous,
            touched,
            preview,
            world.inputs(&cands),
            Expose::Included,
        ) {
            Publication::Edit(edit) => {
                let mut served = previous.clone();
                let differs = served.apply(edit);
                (served, differs, true)
            }
            Publication::Whole(served) => {
                let differs = previous.list_differs(&served);
                (served, differs, false)
            }
        }
    }

    #[test]
    fn order_pins_and_aliases() {
        let world = World::new(&[("b", &["x://1"]), ("a", &["x://1", "x://2"])]);
        let cands = world.candidates();
        let p = preview(
            vec![included(2, true), included(0, false), included(1, false)],
            vec![],
        );
        let served = build(&p, world.inputs(&cands), Expose::Included);
        assert_eq!(uris(&served), ["x://2", "mcpick://b/x://1", "x://1"]);
        assert_eq!(served.get("x://1").unwrap().server(), "a");
        let second = served.range(1..2).next().unwrap();
        assert_eq!(second.upstream_uri(), "x://1", "aliased, read as listed");
        let pinned = served.iter().next().unwrap().resource().into_owned();
        let pinned = pinned.annotations.unwrap();
        assert_eq!(pinned.priority, Some(1.0));
        assert_eq!(pinned.audience, Some(vec![Role::User, Role::Assistant]));
        let unpinned = second.resource().annotations.clone().unwrap();
        assert_eq!(unpinned.priority, Some(0.2), "published as listed");
        assert!(served.get("x://3").is_none());
        assert_eq!(served.bundle, 3);
        // A server's resource found under the URI it is published as, aliased or not.
        assert_eq!(served.published_uri("a", "x://1"), Some("x://1"));
        assert_eq!(served.published_uri("b", "x://1"), Some("mcpick://b/x://1"));
        assert_eq!(served.published_uri("a", "x://2"), Some("x://2"));
        assert_eq!(served.published_uri("b", "x://2"), None);
        assert_eq!(served.published_uri("c", "x://1"), None);
        assert_indexed(&served);
    }

    /// A server that publishes a URI in alias form, ranked first, cannot take the alias of
    /// another server's copy of a shared URI: its own is aliased in turn.
    #[test]
    fn a_uri_in_alias_form_cannot_shadow_an_alias() {
        let world = World::new(&[
            ("c", &["mcpick://b/x://1"]),
            ("a", &["x://1"]),
            ("b", &["x://1"]),
        ]);
        let cands = world.candidates();
        let p = preview(
            vec![included(0, false), included(1, false), included(2, false)],
            vec![],
        );
        let served = build(&p, world.inputs(&cands), Expose::Included);
        assert_eq!(
            uris(&served),
            ["mcpick://c/mcpick://b/x://1", "x://1", "mcpick://b/x://1"]
        );
        assert_eq!(served.get("mcpick://b/x://1").unwrap().server(), "b");
        assert_eq!(
            served.published_uri("c", "mcpick://b/x://1"),
            Some("mcpick://c/mcpick://b/x://1")
        );
        assert_indexed(&served);
    }

    #[test]
    fn allowed_adds_what_the_budget_cut_but_not_exclusions() {
        let world = World::new(&[("a", &["x://1", "x://2", "x://3"])]);
        let cands = world.candidates();
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
        let included = build(&p, world.inputs(&cands), Expose::Included);
        assert_eq!(included.len(), 1);
        let allowed = build(&p, world.inputs(&cands), Expose::Allowed);
        assert_eq!(uris(&allowed), ["x://1", "x://2"]);
        assert_eq!(
            allowed.bundle, 1,
            "the prompt still hands out the budgeted set"
        );
        assert!(included.list_differs(&allowed));
        assert!(!allowed.list_differs(&allowed.clone()));
    }

    #[test]
    fn the_same_list_from_a_new_listing_is_no_change_and_a_changed_field_is() {
        let p = preview(vec![included(0, false), included(1, false)], vec![]);
        let world = World::new(&[("a", &["x://1", "x://2"])]);
        let cands = world.candidates();
        let before = build(&p, world.inputs(&cands), Expose::Included);
        let again = World::new(&[("a", &["x://1", "x://2"])]);
        let cands = again.candidates();
        let again = build(&p, again.inputs(&cands), Expose::Included);
        assert!(
            !before.list_differs(&again),
            "other chunks, the same resources"
        );
        assert_eq!(before, again);
        let mut changed = World::new(&[("a", &["x://1", "x://2"])]);
        let mut retitled = listed("x://2");
        retitled.title = Some("new".into());
        let edit = ListingEdit {
            changed: vec![retitled],
            ..ListingEdit::default()
        };
        let report = changed.catalogue.apply(0, &edit);
        let cands = changed.candidates();
        let changed_list = build(&p, changed.inputs(&cands), Expose::Included);
        assert!(before.list_differs(&changed_list));
        let title = changed_list
            .range(1..2)
            .next()
            .unwrap()
            .resource()
            .title
            .clone();
        assert_eq!(title.as_deref(), Some("new"));
        // The same, as an edit: the item changed in place is the only thing looked at.
        let (edited, differs, was_edit) = published(&before, Some(&report.changed), &p, &changed);
        assert!(was_edit && differs);
        assert_eq!(edited, changed_list);
    }

    #[test]
    fn a_resource_kept_as_listed_is_published_as_listed_and_pinned_from_it() {
        let mut world = World::new(&[("a", &["x://1"])]);
        let mut odd = listed("x://1");
        odd.meta = Some(Default::default());
        odd.annotations.as_mut().unwrap().audience = Some(vec![Role::User, Role::User]);
        world.originals.insert(
            ItemId {
                server: 0,
                index: 0,
            },
            Arc::new(odd.clone()),
        );
        let cands = world.candidates();
        let p = preview(vec![included(0, false)], vec![]);
        let served = build(&p, world.inputs(&cands), Expose::Included);
        assert_eq!(*served.iter().next().unwrap().resource(), odd);
        let pinned = build(
            &preview(vec![included(0, true)], vec![]),
            world.inputs(&cands),
            Expose::Included,
        );
        let published = pinned.iter().next().unwrap().resource().into_owned();
        assert_eq!(published.meta, odd.meta, "pinned from the listed form");
        assert_eq!(published.annotations.as_ref().unwrap().priority, Some(1.0));
    }

    #[test]
    fn an_edit_publishes_what_a_whole_build_does_and_says_whether_the_list_changed() {
        let names: Vec<String> = (0..6).map(|i| format!("x://{i}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let world = World::new(&[("a", &names[..5]), ("b", &names[5..])]);
        let at =
            |order: &[usize]| preview(order.iter().map(|&i| included(i, i == 3)).collect(), vec![]);
        let first = at(&[0, 1, 2, 3, 5]);
        let cands = world.candidates();
        let before = build(&first, world.inputs(&cands), Expose::Included);
        let (same, differs, edit) = published(&before, Some(&[]), &first, &world);
        assert!(edit && !differs, "the same list, by an edit");
        assert_eq!(same, before);
        assert_indexed(&same);
        // One taken out, one put in its place, one added at the end.
        let next = at(&[0, 4, 2, 3, 5, 1]);
        let (after, differs, edit) = published(&before, Some(&[]), &next, &world);
        assert!(edit && differs);
        assert_eq!(after, build(&next, world.inputs(&cands), Expose::Included));
        assert_eq!(
            uris(&after),
            ["x://0", "x://4", "x://2", "x://3", "x://5", "x://1"]
        );
        assert_indexed(&after);
        // Only reordered: a different list, still indexed right.
        let (moved, differs, _) = published(&after, Some(&[]), &first, &world);
        assert!(differs);
        assert_eq!(moved, before);
        assert_indexed(&moved);
        // Nothing known of what changed: built whole.
        let (whole, differs, edit) = published(&before, None, &first, &world);
        assert!(!edit && !differs);
        assert_eq!(whole, before);
    }

    #[test]
    fn a_uri_listed_twice_or_by_two_servers_is_published_as_a_whole_build_does() {
        let world = World::new(&[("a", &["x://0", "x://1"]), ("b", &["x://0"])]);
        let cands = world.candidates();
        let before = build(
            &preview(vec![included(0, false)], vec![]),
            world.inputs(&cands),
            Expose::Included,
        );
        let both = preview(
            vec![included(0, false), included(1, false), included(2, false)],
            vec![],
        );
        let (after, differs, edit) = published(&before, Some(&[]), &both, &world);
        assert!(
            differs && !edit,
            "a URI of two servers is the whole list's to alias"
        );
        assert_eq!(after, build(&both, world.inputs(&cands), Expose::Included));
        assert_eq!(uris(&after), ["x://0", "x://1", "mcpick://b/x://0"]);
        assert_eq!(after.bundle, 3);
        assert_indexed(&after);
    }

    /// One step of a listing's life: entries (by live position) taken out, changed in
    /// place, added; and the next preview's order.
    #[derive(Debug, Clone)]
    struct Step {
        removed: Vec<usize>,
        changed: Vec<usize>,
        added: usize,
        moves: Vec<(usize, usize)>,
        pins: Vec<usize>,
        drop_last: usize,
    }

    fn step() -> impl Strategy<Value = Step> {
        (
            proptest::collection::vec(0usize..40, 0..3),
            proptest::collection::vec(0usize..40, 0..3),
            0usize..3,
            proptest::collection::vec((0usize..40, 0usize..40), 0..3),
            proptest::collection::vec(0usize..40, 0..2),
            0usize..3,
            any::<bool>(),
        )
            .prop_map(|(removed, changed, added, moves, pins, drop_last, quiet)| {
                // Half the steps only change items in place: the list keeps its order.
                let some = |v: Vec<usize>| if quiet { Vec::new() } else { v };
                Step {
                    removed: some(removed),
                    changed,
                    added: if quiet { 0 } else { added },
                    moves: if quiet { Vec::new() } else { moves },
                    pins: some(pins),
                    drop_last: if quiet { 0 } else { drop_last },
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever changes, an edited list is the list a whole build makes, indexed at
        /// every place, and it says it changed exactly when a client would see a change.
        #[test]
        fn edits_publish_what_whole_builds_do(
            first in 5usize..30,
            steps in proptest::collection::vec(step(), 1..5),
        ) {
            let listing: Vec<String> = (0..first).map(|i| format!("x://{i}")).collect();
            let listing: Vec<&str> = listing.iter().map(String::as_str).collect();
            let mut world = World::new(&[("a", &listing)]);
            // The order published, by item id; pinned ids.
            let mut order: Vec<ItemId> = world.catalogue.iter().map(|(id, _)| id).collect();
            let mut pinned: Vec<ItemId> = order.iter().copied().step_by(4).collect();
            let preview_of = |world: &World, order: &[ItemId], pinned: &[ItemId]| {
                let cands = world.candidates();
                let included = order
                    .iter()
                    .filter_map(|id| cands.iter().position(|c| c.id == *id))
                    .map(|i| included(i, pinned.contains(&cands[i].id)))
                    .collect();
                preview(included, vec![])
            };
            let p = preview_of(&world, &order, &pinned);
            let cands = world.candidates();
            let mut served = build(&p, world.inputs(&cands), Expose::Included);
            let mut next_uri = first;
            for step in steps {
                let live: Vec<(ItemId, String)> = world
                    .catalogue
                    .iter()
                    .map(|(id, item)| (id, item.uri().to_string()))
                    .collect();
                let mut removed: Vec<u32> = step
                    .removed
                    .iter()
                    .filter(|&&p| p < live.len())
                    .map(|&p| p as u32)
                    .collect();
                removed.sort_unstable();
                removed.dedup();
                let changed: Vec<Resource> = step
                    .changed
                    .iter()
                    .filter(|&&p| p < live.len() && !removed.contains(&(p as u32)))
                    .map(|&p| {
                        let mut r = listed(&live[p].1);
                        r.title = Some(format!("changed {next_uri}"));
                        r
                    })
                    .collect();
                let added: Vec<Resource> = (0..step.added)
                    .map(|i| listed(&format!("x://{}", next_uri + i)))
                    .collect();
                next_uri += step.added + 1;
                let mut changed = changed;
                changed.sort_by_key(|r| live.iter().position(|(_, u)| *u == r.uri));
                changed.dedup_by(|a, b| a.uri == b.uri);
                let edit = ListingEdit { removed, changed, added };
                let report = world.catalogue.apply(0, &edit);
                let mut touched: Vec<ItemId> =
                    report.removed.iter().map(|(id, _)| *id).collect();
                touched.extend(&report.changed);
                // The next order: the last one without what went, moved about, what came
                // put in, the tail cut.
                order.retain(|id| world.catalogue.get(*id).is_some());
                for (from, to) in &step.moves {
                    if !order.is_empty() {
                        let id = order.remove(from % order.len());
                        order.insert(to % (order.len() + 1), id);
                    }
                }
                let end = world.catalogue.server_end(0);
                for index in report.added_from..end {
                    let id = ItemId { server: 0, index };
                    order.insert((index as usize * 7) % (order.len() + 1), id);
                }
                order.truncate(order.len().saturating_sub(step.drop_last));
                for p in &step.pins {
                    if let Some(id) = order.get(p % order.len().max(1)) {
                        if let Some(at) = pinned.iter().position(|x| x == id) {
                            pinned.remove(at);
                        } else {
                            pinned.push(*id);
                        }
                    }
                }
                let p = preview_of(&world, &order, &pinned);
                let cands = world.candidates();
                let whole = build(&p, world.inputs(&cands), Expose::Included);
                let (edited, differs, _) = published(&served, Some(&touched), &p, &world);
                prop_assert_eq!(&edited, &whole);
                prop_assert_eq!(uris(&edited), uris(&whole));
                prop_assert_eq!(differs, served.list_differs(&whole));
                assert_indexed(&edited);
                served = edited;
            }
        }
    }

    #[test]
    fn alias_encodes_the_server_name() {
        assert_eq!(alias("my docs", "a://b"), "mcpick://my%20docs/a://b");
        // A server's own URI in alias form cannot take the alias of another's copy.
        let items = [("a", "x://1"), ("c", "mcpick://b/x://1"), ("b", "x://1")];
        let published = published_uris(items.iter().copied());
        assert_eq!(
            published,
            ["x://1", "mcpick://c/mcpick://b/x://1", "mcpick://b/x://1"]
        );
    }
}
