//! The contents pane's state: which resource it shows, the latest read (latest wins, by
//! generation), the scroll, and a small cache of read documents.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use super::super::contents::ContentsDoc;
use super::super::contents::rows::{ContentsView, PrefixFacts, ServerFacts, Subject, rows};
use super::super::keymap::Mode;
use super::super::layout::inner;
use super::{App, Effect, Selection, Status, View};
use crate::catalog::ItemId;
use crate::mcp::log::LogSource;
use crate::sanitize;

/// Contents-pane documents kept, most recent first.
const CONTENTS_CACHE: usize = 64;
/// A server row shows at most this many of its newest notes.
const NOTES_SHOWN: usize = 3;

/// What the contents pane is about.
#[derive(Debug, Clone, Default)]
pub struct ContentsState {
    pub item: Option<ItemId>,
    /// The read of `item` (latest wins: moving on drops it).
    read: super::job::Job,
    /// First row shown (after wrapping).
    pub scroll: usize,
    cache: HashMap<ItemId, Arc<ContentsDoc>>,
    cache_order: VecDeque<ItemId>,
    /// When a cached document stops being fresh (the server's `ttlMs`); none: until dropped.
    stale_at: HashMap<ItemId, std::time::Instant>,
    /// The resource the server said changed while shown (the pane says so).
    pub updated: Option<ItemId>,
}

impl ContentsState {
    /// The read of the shown resource is in flight.
    pub fn loading(&self) -> bool {
        self.read.in_flight()
    }

    /// The generation of the newest read asked for.
    pub fn generation(&self) -> u64 {
        self.read.generation()
    }

    /// Starts a read of the shown resource: its generation.
    pub(super) fn start_read(&mut self) -> u64 {
        self.read.start()
    }

    /// Shows a document read elsewhere (a template expansion): no read of it is waited for.
    pub(super) fn show_read(
        &mut self,
        item: ItemId,
        doc: Arc<ContentsDoc>,
        fresh_for: Option<std::time::Duration>,
    ) {
        self.read.cancel();
        self.on_read(self.read.generation(), item, doc, fresh_for);
    }

    pub fn cached(&self, item: ItemId) -> Option<&Arc<ContentsDoc>> {
        self.cache.get(&item)
    }

    /// Whether `item` has a cached document that is still fresh (its `ttlMs` not passed).
    fn fresh(&self, item: ItemId) -> bool {
        self.cache.contains_key(&item)
            && self
                .stale_at
                .get(&item)
                .is_none_or(|&at| std::time::Instant::now() < at)
    }

    fn remember(&mut self, item: ItemId, doc: Arc<ContentsDoc>) {
        if self.cache.insert(item, doc).is_none() {
            self.cache_order.push_back(item);
            while self.cache_order.len() > CONTENTS_CACHE {
                if let Some(old) = self.cache_order.pop_front() {
                    self.cache.remove(&old);
                    self.stale_at.remove(&old);
                }
            }
        }
    }

    /// Drops `item`'s cached document (it changed), so it is read again when shown.
    pub(super) fn forget(&mut self, item: ItemId) {
        self.stale_at.remove(&item);
        self.cache.remove(&item);
        self.cache_order.retain(|&i| i != item);
    }

    /// After a server's ids changed (a re-list): keeps what still exists under its new id.
    pub(super) fn remap(&mut self, remap: &dyn Fn(ItemId) -> Option<ItemId>) {
        let cache = std::mem::take(&mut self.cache);
        self.cache = cache
            .into_iter()
            .filter_map(|(id, doc)| Some((remap(id)?, doc)))
            .collect();
        self.cache_order = self
            .cache_order
            .iter()
            .filter_map(|&id| remap(id))
            .collect();
        self.updated = self.updated.and_then(remap);
    }

    /// Drops every cached document of `server` (they came from a connection that ended).
    pub(super) fn forget_server(&mut self, server: crate::catalog::ServerId) {
        self.cache.retain(|id, _| id.server != server);
        self.stale_at.retain(|id, _| id.server != server);
        self.cache_order.retain(|id| id.server != server);
    }

    /// Drops the cached document of the resource shown, so it is read again.
    pub(super) fn reload(&mut self) {
        if let Some(item) = self.item {
            self.cache.remove(&item);
            self.cache_order.retain(|&i| i != item);
            self.item = None; // sync_contents reads it again
        }
    }

    /// A read finished: keep it; the pane stops waiting if it was the latest read.
    pub(super) fn on_read(
        &mut self,
        generation: u64,
        item: ItemId,
        doc: Arc<ContentsDoc>,
        fresh_for: Option<std::time::Duration>,
    ) {
        self.remember(item, doc);
        match fresh_for {
            Some(ttl) => {
                self.stale_at.insert(item, std::time::Instant::now() + ttl);
            }
            None => {
                self.stale_at.remove(&item);
            }
        }
        if self.item == Some(item) {
            self.read.finish(generation);
        }
    }
}

impl App {
    /// What the contents pane shows now: the selected row, its mark, and its document.
    pub fn contents_view(&self) -> ContentsView<'_> {
        let (subject, mark, doc) = match self.selection() {
            Selection::None => (Subject::Nothing, None, None),
            Selection::Folder {
                label,
                count,
                server,
            } => {
                let facts = if server {
                    self.server_facts(&label)
                } else {
                    None
                };
                (
                    Subject::Folder {
                        label,
                        count,
                        server: facts,
                    },
                    None,
                    None,
                )
            }
            Selection::Item(id) => (
                Subject::Item {
                    id,
                    catalogue: &self.catalogue,
                },
                self.mark_of(id),
                self.contents.cached(id).map(|d| &**d),
            ),
        };
        ContentsView {
            subject,
            mark,
            doc,
            loading: self.contents.loading(),
            updated: self.contents.item.is_some() && self.contents.updated == self.contents.item,
            prefix: self.prefix_facts(),
            theme: &self.theme,
        }
    }

    /// On a tree folder, server or `•` row: the prefix the folder keys mark there (the same
    /// target they act on) and the mark that decides it.
    fn prefix_facts(&self) -> Option<PrefixFacts<'_>> {
        if self.browse.view != View::Tree {
            return None;
        }
        let &row = self
            .browse
            .tree
            .window(self.browse.tree_cursor.index, 1)
            .first()?;
        let view = self.browse.tree.view(row);
        if !view.folder && !view.server {
            return None;
        }
        let target = self.mark_target(true)?;
        let prefix = target.pattern.text().to_string();
        Some(PrefixFacts {
            mark: self
                .context
                .set
                .marks
                .effective_prefix(&target.server, &prefix),
            prefix,
            server: target.server,
        })
    }

    /// What a server row's pane says about the server named `label`: its newest error, and
    /// its newest notes (information such as the era probe's outcome) apart from errors.
    fn server_facts(&self, label: &str) -> Option<ServerFacts<'_>> {
        let index = self.servers.iter().position(|s| s.name == label)?;
        let s = &self.servers[index];
        let last_error = match &s.status {
            Status::Failed(why) => Some(sanitize::line(&why.why, 1000)),
            _ => self.logs.get(index).and_then(|log| log.last_error(20)),
        };
        let notes = self
            .logs
            .get(index)
            .map(|log| log.tail(LogSource::Note, NOTES_SHOWN))
            .unwrap_or_default();
        Some(ServerFacts {
            state: s.status.describe().1,
            connection: s.detail.as_deref(),
            info: s.info.as_ref(),
            last_error,
            notes,
            no_resources: s.status == Status::NoResources,
        })
    }

    pub fn cached(&self, item: ItemId) -> Option<&Arc<ContentsDoc>> {
        self.contents.cached(item)
    }

    /// Starts a read when the cursor is on a resource whose contents are not cached.
    pub(super) fn sync_contents(&mut self) -> Vec<Effect> {
        let item = match self.selection() {
            Selection::Item(id) => Some(id),
            _ => None,
        };
        if item == self.contents.item {
            return Vec::new();
        }
        self.contents.item = item;
        self.contents.scroll = 0;
        self.contents.updated = None;
        let was_loading = self.contents.loading();
        self.contents.read.cancel();
        if item.is_none() && self.focus == Mode::Contents {
            self.focus = Mode::Browse;
        }
        match item {
            Some(id) if !self.contents.fresh(id) => {
                let Some(resource) = self.catalogue.get(id) else {
                    return Vec::new();
                };
                vec![Effect::Read {
                    generation: self.contents.start_read(),
                    item: id,
                    uri: resource.uri().to_string(),
                }]
            }
            _ if was_loading => vec![Effect::CancelRead],
            _ => Vec::new(),
        }
    }

    pub(super) fn scroll_contents(&mut self, delta: isize) {
        self.contents.scroll = if delta < 0 {
            self.contents.scroll.saturating_sub(delta.unsigned_abs())
        } else {
            self.contents.scroll.saturating_add(delta as usize)
        };
        self.clamp_contents();
    }

    pub(super) fn clamp_contents(&mut self) {
        let areas = self.areas();
        let Some(area) = areas.contents.or(if self.focus == Mode::Contents {
            Some(areas.main)
        } else {
            None
        }) else {
            return;
        };
        let inner = inner(area);
        let total = rows(&self.contents_view(), inner.width).len();
        let max = total.saturating_sub(inner.height as usize);
        self.contents.scroll = self.contents.scroll.min(max);
    }
}
