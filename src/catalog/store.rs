//! The catalogue: every resource and template of every server, keyed by (server, uri).
//!
//! Items live in fixed-size chunks behind `Arc`s, so a search running on other threads can
//! hold a cheap [`Snapshot`] while pages keep arriving: appending copies at most one
//! partly-filled chunk, never the whole catalogue.
//!
//! An id is a position in its server's items, which are in listing order. A resource the
//! server stops listing is marked removed in a bit set beside the chunks (copied, 1 bit an
//! item, when a snapshot shares it; the chunk itself is not): the ids after it stay as they
//! are, so a removal costs what it removed, not a remap of every id after it. Those ids are
//! given back only when the server's listing is replaced whole.

use std::collections::VecDeque;
use std::sync::Arc;

use rmcp::model::{Resource, ResourceTemplate};

use super::entry::{ResourceEntry, TemplateEntry};
use super::index::IdIndex;
use super::item::{Item, MimeTable};
use crate::mcp::ListingEdit;

/// Items per chunk. Every chunk but a server's last is full, so an index maps to a chunk
/// by division.
pub const CHUNK: usize = 16 * 1024;

/// A server's position in the catalogue.
pub type ServerId = u16;

/// One resource's address: its server and its position in that server's listing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ItemId {
    pub server: ServerId,
    pub index: u32,
}

/// A listed position whose entry was skipped (a URI listed twice).
const SKIPPED: u32 = u32::MAX;

#[derive(Debug, Clone, Default)]
struct ServerItems {
    name: Arc<str>,
    chunks: Vec<Arc<Vec<Item>>>,
    /// Items, removed ones included: the next id.
    len: usize,
    /// Items not removed.
    live: usize,
    /// One bit an item: set when it was removed (shared with snapshots).
    gone: Arc<Vec<u64>>,
    /// The item of each position of the server's listing (`SKIPPED` for a later copy of a
    /// URI), so that a list change can name a removed entry by its position
    /// ([`ListingEdit::removed`]). Items not in it were not listed (pinned expansions).
    /// Shared, like the index by URI, with a catalogue that adopted this server
    /// ([`Catalogue::adopt`]).
    listed: Arc<Vec<u32>>,
    /// Every index, found by its item's URI.
    by_uri: Arc<IdIndex>,
    templates: Vec<TemplateEntry>,
}

/// What appending a page did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AppendReport {
    pub added: usize,
    /// URIs listed again within the same listing: the first is kept, each later one is
    /// skipped and reported here (never merged silently), so every count agrees with the
    /// entries kept.
    pub duplicates: Vec<Duplicate>,
}

/// A resource skipped because its URI was already listed by the same server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duplicate {
    /// Its position in the page that was appended.
    pub index: usize,
    pub uri: String,
}

/// What applying a [`ListingEdit`] did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EditReport {
    /// The items removed, with their URIs (their ids stay taken).
    pub removed: Vec<(ItemId, String)>,
    /// Items changed in place.
    pub changed: Vec<ItemId>,
    /// The appended items' ids run from here to the server's end.
    pub added_from: u32,
    /// Added entries skipped as a URI the server lists already.
    pub duplicates: Vec<Duplicate>,
    /// Unlisted resources ([`Catalogue::add_unlisted`]) removed because the server lists
    /// their URIs now: the listed entries replace them.
    pub superseded: Vec<ItemId>,
}

/// What replacing a server's listing changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplaceReport {
    pub appeared: Vec<String>,
    pub disappeared: Vec<String>,
    pub duplicates: Vec<Duplicate>,
}

#[derive(Debug, Clone, Default)]
pub struct Catalogue {
    servers: Vec<ServerItems>,
    mimes: MimeTable,
    /// Counts the changes that are not appends (a server's listing replaced): while it
    /// stays the same, a later snapshot holds an earlier one's items at the same ids.
    epoch: u64,
    /// The ids those changes touched, for the last few epochs ([`Catalogue::touched_since`]).
    touched: Touched,
}

/// Ids touched per epoch (removed, changed in place, superseded), so that work done on an
/// earlier snapshot (a ranking kept across resolutions) redoes only those, not everything.
/// Bounded: a change that touches more than [`TOUCHED_MAX`] ids, or one that renumbers
/// (a replaced or adopted listing), starts it again, and work from before redoes everything.
#[derive(Debug, Clone, Default)]
struct Touched {
    /// Every epoch after this one is recorded.
    since: u64,
    /// (the epoch a change made, an id it touched), oldest first.
    ids: VecDeque<(u64, ItemId)>,
}

/// The most ids [`Touched`] holds (16 bytes each).
pub const TOUCHED_MAX: usize = 1 << 14;

impl Catalogue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a server (or finds it by name) and returns its id.
    pub fn server(&mut self, name: &str) -> ServerId {
        if let Some(i) = self.servers.iter().position(|s| &*s.name == name) {
            return i as ServerId;
        }
        self.servers.push(ServerItems {
            name: name.into(),
            ..Default::default()
        });
        (self.servers.len() - 1) as ServerId
    }

    pub fn server_count(&self) -> usize {
        self.servers.len()
    }

    pub fn server_name(&self, server: ServerId) -> &Arc<str> {
        &self.servers[server as usize].name
    }

    /// Total number of resources.
    pub fn len(&self) -> usize {
        self.servers.iter().map(|s| s.live).sum()
    }

    /// Ids that a removal left taken, in all (given back when a listing is replaced).
    pub fn removed_count(&self) -> usize {
        self.servers.iter().map(|s| s.len - s.live).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Resources of one server.
    pub fn server_len(&self, server: ServerId) -> usize {
        self.servers[server as usize].live
    }

    /// The end of one server's ids: every id of it is below (removed ones included).
    pub fn server_end(&self, server: ServerId) -> u32 {
        self.servers[server as usize].len as u32
    }

    pub fn mimes(&self) -> &MimeTable {
        &self.mimes
    }

    /// Appends one page of a server's listing, as it arrives.
    pub fn append<'a>(
        &mut self,
        server: ServerId,
        page: impl IntoIterator<Item = &'a Resource>,
    ) -> AppendReport {
        let mut report = AppendReport::default();
        for (position, resource) in page.into_iter().enumerate() {
            let added = self.add(server, resource);
            let slot = &mut self.servers[server as usize];
            Arc::make_mut(&mut slot.listed).push(added.unwrap_or(SKIPPED));
            match added {
                Some(_) => report.added += 1,
                None => report.duplicates.push(Duplicate {
                    index: position,
                    uri: resource.uri.clone(),
                }),
            }
        }
        report
    }

    /// Adds a resource the server did not list (a pinned template expansion): it is not one
    /// of the listing's positions, so a list change leaves it, and a replaced listing keeps
    /// it. `None` when the server has that URI already.
    pub fn add_unlisted(&mut self, server: ServerId, resource: &Resource) -> Option<ItemId> {
        let item = Item::new(resource, &mut self.mimes).unlisted();
        let index = self.add_item(server, item)?;
        Some(ItemId { server, index })
    }

    /// Takes out a resource its server did not list ([`Catalogue::add_unlisted`]), when the
    /// set no longer names it: its URI. `None` (and nothing changed) for a listed resource or
    /// one already gone.
    pub fn remove_unlisted(&mut self, id: ItemId) -> Option<String> {
        if !self.get(id)?.is_unlisted() {
            return None;
        }
        let uri = self.servers[id.server as usize].take_out(id.index);
        // A snapshot taken before no longer holds this catalogue's item at this id.
        self.touch([id]);
        Some(uri)
    }

    /// Adds an item at the server's end unless its URI is there: its index.
    fn add(&mut self, server: ServerId, resource: &Resource) -> Option<u32> {
        let item = Item::new(resource, &mut self.mimes);
        self.add_item(server, item)
    }

    fn add_item(&mut self, server: ServerId, item: Item) -> Option<u32> {
        let slot = &mut self.servers[server as usize];
        let index = slot.len as u32;
        let chunks = &slot.chunks;
        let uri = item.uri();
        if slot
            .by_uri
            .find(uri, |i| item_at(chunks, i).uri() == uri)
            .is_some()
        {
            return None;
        }
        Arc::make_mut(&mut slot.by_uri).insert(uri, index, |i| item_at(chunks, i).uri());
        push(&mut slot.chunks, item);
        slot.len += 1;
        slot.live += 1;
        Some(index)
    }

    /// Applies what a list change changed ([`crate::mcp::Fingerprint::diff`]): the removed
    /// positions' items are removed (their ids stay taken), the changed ones replaced at their
    /// ids, the added ones appended as a page is. O(change), plus one pass over the server's
    /// listed positions when something was removed; copies at most the chunks it touches.
    pub fn apply(&mut self, server: ServerId, edit: &ListingEdit) -> EditReport {
        let mut report = EditReport::default();
        let slot = &mut self.servers[server as usize];
        for &position in &edit.removed {
            let Some(&index) = slot.listed.get(position as usize) else {
                continue;
            };
            if index != SKIPPED {
                let uri = slot.take_out(index);
                report.removed.push((ItemId { server, index }, uri));
            }
        }
        for resource in &edit.added {
            let uri = resource.uri.as_str();
            let chunks = &slot.chunks;
            if let Some(index) = slot.by_uri.find(uri, |i| item_at(chunks, i).uri() == uri)
                && item_at(chunks, index).is_unlisted()
            {
                slot.take_out(index);
                report.superseded.push(ItemId { server, index });
            }
        }
        if !edit.removed.is_empty() {
            // The positions after each removed one move up by one.
            if edit.removed.len() <= 8 {
                for &position in edit.removed.iter().rev() {
                    if (position as usize) < slot.listed.len() {
                        Arc::make_mut(&mut slot.listed).remove(position as usize);
                    }
                }
            } else {
                let mut gone = edit.removed.iter().peekable();
                let mut position = 0u32;
                Arc::make_mut(&mut slot.listed).retain(|_| {
                    let keep = gone.next_if_eq(&&position).is_none();
                    position += 1;
                    keep
                });
            }
        }
        if !edit.removed.is_empty() || !report.superseded.is_empty() {
            // A snapshot taken before no longer holds this catalogue's item at these ids.
            let gone = report.removed.iter().map(|(id, _)| *id);
            self.touch(gone.chain(report.superseded.iter().copied()));
        }
        let mut added: Vec<&Resource> = Vec::new();
        for resource in &edit.changed {
            match self.find(server, &resource.uri) {
                Some(id) if self.update(id, resource) => report.changed.push(id),
                // Not listed before after all (only if two URIs' hashes met): a newcomer.
                _ => added.push(resource),
            }
        }
        report.added_from = self.server_end(server);
        added.extend(&edit.added);
        report.duplicates = self.append(server, added).duplicates;
        report
    }

    /// Replaces a server's whole listing (a re-list after `list_changed`) and reports which
    /// URIs appeared and disappeared. Templates are kept, and so are the resources it did not
    /// list ([`Catalogue::add_unlisted`]: pinned expansions), after the new listing; the
    /// ids removed resources held are given back.
    pub fn replace(&mut self, server: ServerId, resources: &[Resource]) -> ReplaceReport {
        // The ids are given out again: nothing done before holds.
        self.renumber();
        let old = std::mem::take(&mut self.servers[server as usize]);
        let slot = &mut self.servers[server as usize];
        slot.name = old.name.clone();
        slot.templates = old.templates.clone();
        let appended = self.append(server, resources);
        let mut listed = vec![false; old.len];
        for &i in old.listed.iter().filter(|&&i| i != SKIPPED) {
            listed[i as usize] = true;
        }
        for (i, item) in old.chunks.iter().flat_map(|c| c.iter()).enumerate() {
            if !listed[i] && !is_gone(&old.gone, i) {
                self.add_item(server, item.clone());
            }
        }
        let uris = |slot: &ServerItems| -> Vec<String> {
            slot.chunks
                .iter()
                .flat_map(|c| c.iter())
                .enumerate()
                .filter(|&(i, _)| !is_gone(&slot.gone, i))
                .map(|(_, item)| item.uri().to_string())
                .collect()
        };
        let (old_list, new_list) = (uris(&old), uris(&self.servers[server as usize]));
        let old_set: std::collections::HashSet<&str> =
            old_list.iter().map(String::as_str).collect();
        let new_set: std::collections::HashSet<&str> =
            new_list.iter().map(String::as_str).collect();
        let appeared = new_list
            .iter()
            .filter(|u| !old_set.contains(u.as_str()))
            .cloned()
            .collect();
        let disappeared = old_list
            .iter()
            .filter(|u| !new_set.contains(u.as_str()))
            .cloned()
            .collect();
        ReplaceReport {
            appeared,
            disappeared,
            duplicates: appended.duplicates,
        }
    }

    /// Replaces one item's fields with `resource`'s, at the same id (a list change that kept
    /// its URI where it was): copies at most the chunk it is in. False, and nothing changed,
    /// when there is no such id or `resource` has another URI (its place in the index by URI
    /// and in the tree would change: that is a replace).
    pub fn update(&mut self, id: ItemId, resource: &Resource) -> bool {
        let Some(slot) = self.servers.get_mut(id.server as usize) else {
            return false;
        };
        let i = id.index as usize;
        if i >= slot.len
            || is_gone(&slot.gone, i)
            || item_at(&slot.chunks, id.index).uri() != resource.uri
        {
            return false;
        }
        Arc::make_mut(&mut slot.chunks[i / CHUNK])[i % CHUNK] =
            Item::new(resource, &mut self.mimes);
        // A snapshot taken before no longer holds this catalogue's item at this id.
        self.touch([id]);
        true
    }

    pub fn set_templates<'a>(
        &mut self,
        server: ServerId,
        templates: impl IntoIterator<Item = &'a ResourceTemplate>,
    ) {
        let slot = &mut self.servers[server as usize];
        slot.templates = templates
            .into_iter()
            .map(|t| TemplateEntry::new(slot.name.clone(), t.clone()))
            .collect();
    }

    pub fn templates(&self) -> impl Iterator<Item = &TemplateEntry> {
        self.servers.iter().flat_map(|s| s.templates.iter())
    }

    /// The item at an id; `None` past the server's end and for a removed resource.
    pub fn get(&self, id: ItemId) -> Option<&Item> {
        let slot = self.servers.get(id.server as usize)?;
        let i = id.index as usize;
        (i < slot.len && !is_gone(&slot.gone, i)).then(|| item_at(&slot.chunks, id.index))
    }

    /// The item with this URI on this server.
    pub fn find(&self, server: ServerId, uri: &str) -> Option<ItemId> {
        let slot = self.servers.get(server as usize)?;
        slot.by_uri
            .find(uri, |i| item_at(&slot.chunks, i).uri() == uri)
            .map(|index| ItemId { server, index })
    }

    /// Every item in catalogue order (servers in order, each in listing order), removed
    /// ones left out.
    pub fn iter(&self) -> impl Iterator<Item = (ItemId, &Item)> {
        self.servers.iter().enumerate().flat_map(|(s, slot)| {
            slot.chunks
                .iter()
                .flat_map(|c| c.iter())
                .enumerate()
                .filter(|&(i, _)| !is_gone(&slot.gone, i))
                .map(move |(i, item)| {
                    (
                        ItemId {
                            server: s as ServerId,
                            index: i as u32,
                        },
                        item,
                    )
                })
        })
    }

    /// The JSON form of one item.
    pub fn entry(&self, id: ItemId) -> Option<ResourceEntry> {
        let item = self.get(id)?;
        Some(item.to_entry(self.server_name(id.server).clone(), &self.mimes))
    }

    /// Appends a page as [`Catalogue::append`] does, numbering MIME types as `mimes` does: a
    /// table shared by catalogues built side by side (one per server), so that one catalogue
    /// can later [adopt](Catalogue::adopt) the others' servers without copying their items.
    /// `mimes` learns the page's new types.
    pub fn append_sharing<'a>(
        &mut self,
        server: ServerId,
        page: impl IntoIterator<Item = &'a Resource>,
        mimes: &mut MimeTable,
    ) -> AppendReport {
        // Both only grow from the same start, so each is where the other started; if not
        // (a table from elsewhere), ids disagree and an adoption copies: slower, still right.
        self.mimes.catch_up(mimes);
        let report = self.append(server, page);
        mimes.catch_up(&self.mimes);
        report
    }

    /// Applies a list change as [`Catalogue::apply`] does, numbering new MIME types as the
    /// shared table `mimes` does ([`Catalogue::append_sharing`]); `mimes` learns them.
    pub fn apply_sharing(
        &mut self,
        server: ServerId,
        edit: &ListingEdit,
        mimes: &mut MimeTable,
    ) -> EditReport {
        self.mimes.catch_up(mimes);
        let report = self.apply(server, edit);
        mimes.catch_up(&self.mimes);
        report
    }

    /// Makes `server`'s resources those of `theirs` in `from` (replacing what it had; its name
    /// and templates stay): the same ids, sharing `from`'s chunks and indexes, so it costs
    /// nothing per resource. Only where the two MIME tables number types differently
    /// (catalogues not built with one table, see [`Catalogue::append_sharing`]) are the items
    /// copied, with their MIME ids renumbered.
    pub fn adopt(&mut self, server: ServerId, from: &Catalogue, theirs: ServerId) {
        self.renumber();
        self.mimes.catch_up(&from.mimes);
        let mut same = true;
        let mut ids = vec![0u16];
        for id in 1..=from.mimes.len() as u16 {
            let ours = self.mimes.intern(from.mimes.get(id));
            same &= ours == id;
            ids.push(ours);
        }
        let source = &from.servers[theirs as usize];
        let chunks = if same {
            source.chunks.clone()
        } else {
            source
                .chunks
                .iter()
                .map(|chunk| {
                    let items = chunk.iter().map(|item| {
                        let mime = ids.get(item.mime_id() as usize).copied().unwrap_or(0);
                        item.clone().with_mime(mime)
                    });
                    Arc::new(items.collect())
                })
                .collect()
        };
        let slot = &mut self.servers[server as usize];
        slot.chunks = chunks;
        slot.len = source.len;
        slot.live = source.live;
        slot.gone = source.gone.clone();
        slot.listed = source.listed.clone();
        slot.by_uri = source.by_uri.clone();
    }

    /// A handle on the item at an id that keeps its chunk alive (and shares it), for a
    /// published list that outlives this catalogue.
    pub fn item_ref(&self, id: ItemId) -> Option<ItemRef> {
        self.get(id)?;
        let slot = &self.servers[id.server as usize];
        let i = id.index as usize;
        Some(ItemRef {
            chunk: Arc::clone(&slot.chunks[i / CHUNK]),
            at: (i % CHUNK) as u32,
        })
    }

    /// How many shards of the index by URI `server` shares with `theirs` of `other`.
    #[cfg(test)]
    pub(crate) fn index_shards_shared(
        &self,
        server: ServerId,
        other: &Catalogue,
        theirs: ServerId,
    ) -> usize {
        let (ours, theirs) = (
            &self.servers[server as usize].by_uri,
            &other.servers[theirs as usize].by_uri,
        );
        ours.shards_shared(theirs)
    }

    /// A change that is not an append, touching `ids`: a new epoch, and its ids recorded.
    fn touch(&mut self, ids: impl IntoIterator<Item = ItemId>) {
        self.epoch += 1;
        let epoch = self.epoch;
        let record = &mut self.touched;
        record.ids.extend(ids.into_iter().map(|id| (epoch, id)));
        if record.ids.len() > TOUCHED_MAX {
            // The oldest epochs go, each one whole.
            let mut dropped = record.ids.len() - TOUCHED_MAX;
            let last = record.ids[dropped - 1].0;
            while record.ids.get(dropped).is_some_and(|&(e, _)| e == last) {
                dropped += 1;
            }
            record.ids.drain(..dropped);
            record.since = last;
        }
    }

    /// A change after which an id may name another item (ids given back): a new epoch that
    /// nothing before reaches across.
    fn renumber(&mut self) {
        self.epoch += 1;
        self.touched = Touched {
            since: self.epoch,
            ids: VecDeque::new(),
        };
    }

    /// The ids removed, changed in place or superseded since `earlier` (a snapshot of this
    /// catalogue) was taken, each once, in id order: every other item of `earlier` is in this
    /// catalogue at the same id, unchanged. `None` when the record does not reach back that
    /// far (a listing replaced since, too many changes, or another catalogue's extent).
    pub fn touched_since(&self, earlier: &Extent) -> Option<Vec<ItemId>> {
        let record = &self.touched;
        if earlier.epoch < record.since || earlier.epoch > self.epoch {
            return None;
        }
        let from = record.ids.partition_point(|&(e, _)| e <= earlier.epoch);
        let mut ids: Vec<ItemId> = record.ids.range(from..).map(|&(_, id)| id).collect();
        ids.sort_unstable();
        ids.dedup();
        Some(ids)
    }

    /// A cheap, immutable view for searching on other threads.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            servers: self
                .servers
                .iter()
                .map(|s| (s.chunks.clone(), s.len, s.gone.clone()))
                .collect(),
            live: self.len(),
            names: self.servers.iter().map(|s| s.name.clone()).collect(),
            epoch: self.epoch,
        }
    }
}

impl ServerItems {
    /// Leaves a removed item at `index` (its id stays taken) and gives its URI.
    fn take_out(&mut self, index: u32) -> String {
        let i = index as usize;
        let uri = item_at(&self.chunks, index).uri().to_string();
        let chunks = &self.chunks;
        Arc::make_mut(&mut self.by_uri).remove(uri.as_str(), |x| item_at(chunks, x).uri() == uri);
        let gone = Arc::make_mut(&mut self.gone);
        if gone.len() <= i / 64 {
            gone.resize(i / 64 + 1, 0);
        }
        gone[i / 64] |= 1 << (i % 64);
        // Its memory goes now unless a snapshot still holds its chunk (then with the chunk).
        if let Some(chunk) = Arc::get_mut(&mut self.chunks[i / CHUNK]) {
            chunk[i % CHUNK] = Item::removed();
        }
        self.live -= 1;
        uri
    }
}

/// Whether bit `i` of a removed-set is set.
fn is_gone(gone: &[u64], i: usize) -> bool {
    gone.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
}

fn item_at(chunks: &[Arc<Vec<Item>>], index: u32) -> &Item {
    let i = index as usize;
    &chunks[i / CHUNK][i % CHUNK]
}

/// Appends to the last chunk, copying it first only if a snapshot still shares it.
fn push(chunks: &mut Vec<Arc<Vec<Item>>>, item: Item) {
    match chunks.last_mut() {
        Some(last) if last.len() < CHUNK => Arc::make_mut(last).push(item),
        _ => {
            let mut chunk = Vec::with_capacity(CHUNK.min(1024));
            chunk.push(item);
            chunks.push(Arc::new(chunk));
        }
    }
}

/// One item and the chunk it is in, shared ([`Catalogue::item_ref`]): 16 bytes, not a copy.
#[derive(Debug, Clone)]
pub struct ItemRef {
    chunk: Arc<Vec<Item>>,
    at: u32,
}

impl ItemRef {
    pub fn get(&self) -> &Item {
        &self.chunk[self.at as usize]
    }

    /// Whether both are the same item of the same chunk (so certainly equal).
    pub fn same(&self, other: &ItemRef) -> bool {
        Arc::ptr_eq(&self.chunk, &other.chunk) && self.at == other.at
    }
}

/// One server's items in a [`Snapshot`]: its chunks, its end, its removed-set.
type ServerView = (Vec<Arc<Vec<Item>>>, usize, Arc<Vec<u64>>);

/// An immutable view of the catalogue's items, shared with search threads.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    servers: Vec<ServerView>,
    /// Items not removed.
    live: usize,
    /// Server names, by [`ServerId`]: search matches them too.
    names: Vec<Arc<str>>,
    /// The catalogue's [`Catalogue::epoch`] when taken.
    epoch: u64,
}

/// How far a snapshot reached: its catalogue's epoch and each server's length. A later
/// snapshot [`Extent::grew_into`] holds every item of this one at the same id, so work done
/// on the earlier one (a search) only has to be done for the items after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Extent {
    epoch: u64,
    lens: Vec<usize>,
}

impl Extent {
    /// Whether `later` is this extent with items appended (or the same).
    pub fn grew_into(&self, later: &Extent) -> bool {
        self.epoch == later.epoch
            && self.lens.len() <= later.lens.len()
            && self.lens.iter().zip(&later.lens).all(|(a, b)| a <= b)
    }

    /// Whether every server of this extent reaches at most as far in `later` (the epochs
    /// aside: what changed in between is [`Catalogue::touched_since`]'s).
    pub fn within(&self, later: &Extent) -> bool {
        self.lens.len() <= later.lens.len()
            && self.lens.iter().zip(&later.lens).all(|(a, b)| a <= b)
    }

    /// Each server's end (its items, removed ones included), by server id.
    pub fn lens(&self) -> &[usize] {
        &self.lens
    }

    /// Whether `id` is below its server's end here (removed or not).
    pub fn reaches(&self, id: ItemId) -> bool {
        self.lens
            .get(id.server as usize)
            .is_some_and(|&len| (id.index as usize) < len)
    }

    /// Items in all.
    pub fn len(&self) -> usize {
        self.lens.iter().sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A contiguous run of items of one server, the unit of work of a search. It may hold
/// removed items: read it with [`Block::live`].
pub struct Block<'a> {
    pub server: ServerId,
    /// Index of `items[0]` in the server's listing.
    pub first: u32,
    pub items: &'a [Item],
    /// The server's removed-set.
    gone: &'a [u64],
}

impl<'a> Block<'a> {
    /// The block's resources that are not removed, with their ids.
    pub fn live(&self) -> impl Iterator<Item = (ItemId, &'a Item)> + 'a {
        let (server, first, gone) = (self.server, self.first, self.gone);
        self.items
            .iter()
            .enumerate()
            .filter(move |&(i, _)| !is_gone(gone, first as usize + i))
            .map(move |(i, item)| {
                (
                    ItemId {
                        server,
                        index: first + i as u32,
                    },
                    item,
                )
            })
    }
}

impl Snapshot {
    /// Resources (removed ones not counted).
    pub fn len(&self) -> usize {
        self.live
    }

    /// Items in the blocks, removed ones included: what a pass over them reads.
    pub fn slots(&self) -> usize {
        self.servers.iter().map(|(_, len, _)| len).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn get(&self, id: ItemId) -> Option<&Item> {
        let (chunks, len, gone) = self.servers.get(id.server as usize)?;
        let i = id.index as usize;
        (i < *len && !is_gone(gone, i)).then(|| item_at(chunks, id.index))
    }

    /// The name of `server` ("" for an unknown id).
    pub fn server_name(&self, server: ServerId) -> &str {
        self.names.get(server as usize).map_or("", |n| n)
    }

    /// How far this snapshot reaches (see [`Extent`]).
    pub fn extent(&self) -> Extent {
        Extent {
            epoch: self.epoch,
            lens: self.servers.iter().map(|(_, len, _)| *len).collect(),
        }
    }

    /// Every chunk as a block, in catalogue order.
    pub fn blocks(&self) -> Vec<Block<'_>> {
        self.blocks_after(&Extent {
            epoch: self.epoch,
            lens: Vec::new(),
        })
    }

    /// The blocks of the items after `earlier` (each server's items past its length there),
    /// in catalogue order.
    pub fn blocks_after(&self, earlier: &Extent) -> Vec<Block<'_>> {
        let mut blocks = Vec::new();
        for (s, (chunks, len, gone)) in self.servers.iter().enumerate() {
            let from = earlier.lens.get(s).copied().unwrap_or(0);
            for (c, chunk) in chunks.iter().enumerate() {
                let first = c * CHUNK;
                let end = (*len - first).min(chunk.len());
                let start = from.saturating_sub(first).min(end);
                if start == end {
                    continue;
                }
                blocks.push(Block {
                    server: s as ServerId,
                    first: (first + start) as u32,
                    items: &chunk[start..end],
                    gone,
                });
            }
        }
        blocks
    }

    /// For each server, how many ids come before it in catalogue order (for stable
    /// tie-breaking across servers: ordinal = offset + index).
    pub fn server_offsets(&self) -> Vec<u64> {
        let mut total = 0u64;
        self.servers
            .iter()
            .map(|(_, len, _)| {
                let start = total;
                total += *len as u64;
                start
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(uri: &str) -> Resource {
        Resource::new(uri, uri.rsplit('/').next().unwrap())
    }

    #[test]
    fn pages_append_and_duplicates_are_kept_once() {
        let mut cat = Catalogue::new();
        let s = cat.server("a");
        let r1 = cat.append(s, &[res("x://1"), res("x://2")]);
        let r2 = cat.append(s, &[res("x://2"), res("x://3")]);
        assert_eq!(r1.added, 2);
        assert_eq!(r2.added, 1);
        assert_eq!(
            r2.duplicates,
            [Duplicate {
                index: 0,
                uri: "x://2".into()
            }]
        );
        let r3 = cat.append(s, &[res("x://4"), res("x://1"), res("x://4")]);
        let skipped: Vec<_> = r3
            .duplicates
            .iter()
            .map(|d| (d.index, d.uri.as_str()))
            .collect();
        assert_eq!(skipped, [(1, "x://1"), (2, "x://4")]);
        assert_eq!(
            (r3.added, cat.server_len(s)),
            (1, 4),
            "counts agree with what is kept"
        );
        assert_eq!(cat.len(), 4);
        assert_eq!(cat.find(s, "x://3").unwrap().index, 2);
        assert!(cat.find(s, "x://5").is_none());
    }

    #[test]
    fn same_uri_on_two_servers_is_two_resources() {
        let mut cat = Catalogue::new();
        let a = cat.server("a");
        let b = cat.server("b");
        cat.append(a, &[res("x://1")]);
        cat.append(b, &[res("x://1")]);
        assert_eq!(cat.len(), 2);
        assert_eq!(cat.server("b"), b, "servers are found by name");
    }

    #[test]
    fn replace_reports_changes_and_touches_one_server() {
        let mut cat = Catalogue::new();
        let a = cat.server("a");
        let b = cat.server("b");
        cat.append(a, &[res("x://1"), res("x://2")]);
        cat.append(b, &[res("y://1")]);
        let report = cat.replace(a, &[res("x://2"), res("x://3")]);
        assert_eq!(report.appeared, ["x://3"]);
        assert_eq!(report.disappeared, ["x://1"]);
        assert_eq!(cat.server_len(a), 2);
        assert_eq!(cat.server_len(b), 1);
        assert!(cat.find(a, "x://1").is_none());
    }

    #[test]
    fn update_changes_one_item_in_place_and_only_with_its_own_uri() {
        let mut cat = Catalogue::new();
        let s = cat.server("a");
        cat.append(s, &[res("x://1"), res("x://2")]);
        let before = cat.snapshot();
        let id = cat.find(s, "x://2").unwrap();
        let mut changed = res("x://2").with_title("Two");
        changed.size = Some(7);
        assert!(cat.update(id, &changed));
        assert_eq!(cat.get(id).unwrap().title(), Some("Two"));
        assert_eq!(cat.get(id).unwrap().size(), Some(7));
        assert_eq!(cat.find(s, "x://2"), Some(id), "found by its URI as before");
        assert_eq!(cat.server_len(s), 2);
        assert!(
            before.get(id).unwrap().title().is_none(),
            "a snapshot keeps what it held"
        );
        assert!(
            !before.extent().grew_into(&cat.snapshot().extent()),
            "work done on the old snapshot is not taken as still true"
        );
        // Another URI at that id, or no such id: nothing changes.
        assert!(!cat.update(id, &res("x://3")));
        assert!(!cat.update(
            ItemId {
                server: s,
                index: 9
            },
            &res("x://2")
        ));
        assert_eq!(cat.get(id).unwrap().uri(), "x://2");
        assert!(cat.find(s, "x://3").is_none());
    }

    #[test]
    fn adopting_a_server_shares_its_items_and_ids() {
        let typed = |uri: &str, mime: &str| res(uri).with_mime_type(mime);
        let mut shared = MimeTable::default();
        let mut a = Catalogue::new();
        let sa = a.server("a");
        let mut b = Catalogue::new();
        let sb = b.server("b");
        // Built side by side with one table: the ids agree.
        a.append_sharing(
            sa,
            &[typed("x://1", "text/plain"), res("x://2")],
            &mut shared,
        );
        b.append_sharing(sb, &[typed("y://1", "text/html")], &mut shared);
        a.append_sharing(sa, &[typed("x://3", "text/html")], &mut shared);
        let mut merged = Catalogue::new();
        let ma = merged.server("a");
        let mb = merged.server("b");
        merged.adopt(mb, &b, sb);
        merged.adopt(ma, &a, sa);
        assert_eq!(merged.len(), 4);
        for (from, theirs, ours) in [(&a, sa, ma), (&b, sb, mb)] {
            for (id, item) in from.iter().filter(|(id, _)| id.server == theirs) {
                let at = ItemId { server: ours, ..id };
                assert!(
                    merged
                        .item_ref(at)
                        .unwrap()
                        .same(&from.item_ref(id).unwrap())
                );
                assert_eq!(merged.find(ours, item.uri()), Some(at));
                assert_eq!(
                    merged.get(at).unwrap().to_resource(merged.mimes()),
                    item.to_resource(from.mimes())
                );
            }
        }
        // An expansion added to the merged catalogue leaves the adopted listing as it was.
        assert!(merged.add_unlisted(ma, &res("x://9")).is_some());
        assert!(a.find(sa, "x://9").is_none());
        assert_eq!(a.len(), 3);
    }

    /// An unlisted resource (an expansion) is taken out once the set no longer names it; a
    /// listed one never is, and a snapshot taken before sees the removal as a touched id.
    #[test]
    fn only_an_unlisted_resource_is_removed_as_unlisted() {
        let mut c = Catalogue::new();
        let s = c.server("s");
        c.append(s, &[res("x://listed")]);
        let listed = c.find(s, "x://listed").unwrap();
        let added = c.add_unlisted(s, &res("x://expansion")).unwrap();
        let before = c.snapshot().extent();
        assert_eq!(c.remove_unlisted(listed), None);
        assert!(c.get(listed).is_some());
        assert_eq!(c.remove_unlisted(added).as_deref(), Some("x://expansion"));
        assert!(c.get(added).is_none());
        assert_eq!(c.find(s, "x://expansion"), None);
        assert_eq!(c.remove_unlisted(added), None, "gone already");
        assert_eq!(c.touched_since(&before), Some(vec![added]));
        // The URI can be added again (read again in the form).
        assert!(c.add_unlisted(s, &res("x://expansion")).is_some());
    }

    /// `serve` adds the set's expansions to each refresh's catalogue, which adopted the
    /// upstreams' listings: that cost a copy of the listing's whole index by URI each time.
    #[test]
    fn an_item_added_to_an_adopted_server_copies_one_shard_of_its_index_not_all() {
        let mut listing = Catalogue::new();
        let s = listing.server("up");
        let many: Vec<Resource> = (0..20_000).map(|i| res(&format!("x://{i}"))).collect();
        listing.append(s, &many);
        let mut view = Catalogue::new();
        let v = view.server("up");
        view.adopt(v, &listing, s);
        let shards = super::super::index::SHARDS;
        assert_eq!(view.index_shards_shared(v, &listing, s), shards);
        let added = view.add_unlisted(v, &res("x://expansion")).unwrap();
        assert_eq!(view.find(v, "x://expansion"), Some(added));
        assert_eq!(
            listing.find(s, "x://expansion"),
            None,
            "the listing as it was"
        );
        assert_eq!(
            view.index_shards_shared(v, &listing, s),
            shards - 1,
            "only the shard the new URI went to is copied"
        );
        for uri in ["x://0", "x://19999"] {
            assert_eq!(view.find(v, uri), listing.find(s, uri), "{uri}");
        }
        let first = ItemId {
            server: v,
            index: 0,
        };
        assert!(
            view.item_ref(first)
                .unwrap()
                .same(&listing.item_ref(first).unwrap()),
            "full chunks stay shared"
        );
    }

    #[test]
    fn adopting_from_a_catalogue_that_numbers_mime_types_otherwise_copies_them_right() {
        let mut a = Catalogue::new();
        let sa = a.server("a");
        a.append(sa, &[res("x://1").with_mime_type("text/plain")]);
        let mut b = Catalogue::new();
        let sb = b.server("b");
        b.append(sb, &[res("y://1").with_mime_type("text/html")]);
        let mut merged = Catalogue::new();
        let ma = merged.server("a");
        let mb = merged.server("b");
        merged.adopt(ma, &a, sa);
        merged.adopt(mb, &b, sb);
        let y = merged.find(mb, "y://1").unwrap();
        let mime = merged.get(y).unwrap().mime_id();
        assert_eq!(merged.mimes().get(mime), Some("text/html"));
        assert!(
            !merged.item_ref(y).unwrap().same(
                &b.item_ref(ItemId {
                    server: sb,
                    index: 0
                })
                .unwrap()
            )
        );
    }

    #[test]
    fn snapshots_survive_later_appends() {
        let mut cat = Catalogue::new();
        let s = cat.server("a");
        let first: Vec<_> = (0..10).map(|i| res(&format!("x://{i}"))).collect();
        cat.append(s, &first);
        let snap = cat.snapshot();
        let more: Vec<_> = (10..CHUNK + 5).map(|i| res(&format!("x://{i}"))).collect();
        cat.append(s, &more);
        assert_eq!(snap.len(), 10);
        assert_eq!(cat.len(), CHUNK + 5);
        let blocks = cat
            .snapshot()
            .blocks()
            .iter()
            .map(|b| b.items.len())
            .collect::<Vec<_>>();
        assert_eq!(blocks, [CHUNK, 5]);
        let id = ItemId {
            server: s,
            index: (CHUNK + 1) as u32,
        };
        assert_eq!(cat.get(id).unwrap().uri(), format!("x://{}", CHUNK + 1));
        assert_eq!(cat.iter().count(), CHUNK + 5);
    }
}
