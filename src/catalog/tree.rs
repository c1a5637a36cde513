//! The URI tree: servers at the root, then each URI's structure (`scheme://authority`, path
//! segments, the query kept on the leaf).
//!
//! Nodes are stored once in an arena. Each folder keeps its children sorted in chunks that
//! know how many visible rows they hold ([`super::children`]), and each node knows how many
//! rows it shows (itself, plus its children's when open). So adding a resource costs its
//! path (O(depth · log folder)), never a pass over the catalogue, and the rows on screen are
//! found by descending those counts: a frame costs O(rows on screen · depth) whatever the
//! catalogue size, with nothing flattened. A filtered tree (a search) counts each node's
//! matching rows once per filter, in one pass over the nodes, and is read the same way.
//! Chains of single-child folders are shown as one row (`a/b/c`), and so is, without a
//! filter, a folder with one plain leaf (`a/b/x.md`); a URI that is both a
//! resource and a prefix of others is a node with an item and children, shown as both.
//!
//! A million resources make over a million nodes, so a node is kept to 32 bytes: its text is
//! in one shared arena, its children (folders only) in a side table, and the lookup that finds
//! a child by name holds only node ids ([`super::index`]).

use std::cmp::Ordering;
use std::collections::HashMap;

use super::children::Children;
use super::index::IdIndex;
use super::store::{Catalogue, ItemId, ServerId};

pub type NodeId = u32;

/// One node: 32 bytes, with its segment in [`Segments`] and its children (folders only) in
/// [`UriTree::folders`]; a million resources make over a million nodes.
#[derive(Debug, Clone)]
struct Node {
    /// Where the raw URI piece is in [`UriTree::segments`] (never decoded: lookups and paths
    /// use it as published).
    segment: u64,
    parent: NodeId,
    /// Index into [`UriTree::folders`] (children sorted by [`segment_order`]), or `NONE`.
    children: u32,
    /// Visible rows of this node as a row's head, unfiltered: 1, plus its row's tail's
    /// children's rows when that tail is open.
    rows: u32,
    /// Resources in this subtree, this node's own included.
    count: u32,
    /// The index of the resource here in its server's listing, or `NONE`.
    item: u32,
    /// The server whose tree this node is in.
    server: ServerId,
    expanded: bool,
    /// The resource here has MIME type `inode/directory`: a folder even when empty.
    directory: bool,
}

const NONE: u32 = u32::MAX;

impl Node {
    fn item(&self) -> Option<ItemId> {
        (self.item != NONE).then_some(ItemId {
            server: self.server,
            index: self.item,
        })
    }
}

/// Every node's segment text, one after another, each behind its length (LEB128): one
/// allocation for all of them instead of one per node.
#[derive(Debug, Clone, Default)]
struct Segments(Vec<u8>);

impl Segments {
    fn push(&mut self, segment: &str) -> u64 {
        let at = self.0.len() as u64;
        let mut len = segment.len();
        loop {
            let byte = (len & 0x7f) as u8;
            len >>= 7;
            if len == 0 {
                self.0.push(byte);
                break;
            }
            self.0.push(byte | 0x80);
        }
        self.0.extend_from_slice(segment.as_bytes());
        at
    }

    /// The segment at `at` starts with NUL (an `ALONE` leaf), read without decoding it: a
    /// search's row count asks this of every leaf.
    fn starts_with_nul(&self, at: u64) -> bool {
        let mut i = at as usize;
        while self.0[i] & 0x80 != 0 {
            i += 1;
        }
        // A zero length byte is an empty segment: no NUL after it.
        self.0[i] != 0 && self.0.get(i + 1) == Some(&0)
    }

    fn get(&self, at: u64) -> &str {
        let mut i = at as usize;
        let (mut len, mut shift) = (0usize, 0);
        loop {
            let byte = self.0[i];
            i += 1;
            len |= usize::from(byte & 0x7f) << shift;
            shift += 7;
            if byte & 0x80 == 0 {
                break;
            }
        }
        // `push` copied these bytes from a `&str` and stored its length in front.
        std::str::from_utf8(&self.0[i..i + len]).unwrap_or_default()
    }
}

const NO_PARENT: NodeId = NodeId::MAX;

/// Marks the segment of a leaf that holds a whole URI of its own (see `insert`).
const ALONE: char = '\u{0}';

/// How siblings are ordered: naturally (`v2` before `v10`).
fn segment_order(a: &str, b: &str) -> Ordering {
    super::order::natural(a, b)
}

/// One visible row: a node, or a compacted chain of single-child folders from `head` to
/// `tail` (equal when nothing was compacted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub head: NodeId,
    pub tail: NodeId,
    pub depth: u16,
}

/// What a row shows, built only for rows on screen.
#[derive(Debug, Clone, PartialEq)]
pub struct RowView {
    /// Percent-decoded for display (the URI itself is never changed); not yet sanitised.
    pub label: String,
    pub depth: u16,
    pub folder: bool,
    pub expanded: bool,
    /// Resources under this row (matching ones while a filter is set).
    pub count: u32,
    /// The resource at this row, when the row is one.
    pub item: Option<ItemId>,
    /// True for a server's root row.
    pub server: bool,
}

#[derive(Debug, Clone, Default)]
pub struct UriTree {
    nodes: Vec<Node>,
    segments: Segments,
    /// The children of every node that has any.
    folders: Vec<Children>,
    /// One root per server, indexed by server id.
    roots: Vec<NodeId>,
    /// Node of each item: `item_nodes[server][index]`.
    item_nodes: Vec<Vec<NodeId>>,
    /// While a filter is set: the rows of each node as a row's head, as `Node::rows` is
    /// without one (0 for hidden nodes); counted by [`UriTree::refresh`].
    filtered_rows: Vec<u32>,
    /// The filter changed since `filtered_rows` were counted.
    rows_dirty: bool,
    /// While a filter is set: matching resources per node; rows show only nodes with hits,
    /// all open, so the ancestors of every match stay visible.
    hits: Option<Vec<u32>>,
    /// Every node but the roots, found by (parent, segment), so inserting never scans a
    /// folder.
    lookup: IdIndex,
}

/// No children (a leaf), as [`UriTree::children`] gives it.
static NO_CHILDREN: Children = Children { chunks: Vec::new() };

/// Where a walk over the unfiltered rows is: per level, the folder whose children it walks
/// (`NO_PARENT`: the server roots) and the child's position.
#[derive(Debug, Clone, Copy)]
struct Level {
    parent: NodeId,
    chunk: usize,
    pos: usize,
}

impl UriTree {
    /// Builds the tree of a whole catalogue; servers start expanded, folders collapsed.
    pub fn build(catalogue: &Catalogue) -> Self {
        let mut tree = UriTree::default();
        for s in 0..catalogue.server_count() {
            tree.add_server(catalogue.server_name(s as u16));
        }
        for (id, item) in catalogue.iter() {
            let directory = catalogue.mimes().get(item.mime_id()) == Some("inode/directory");
            tree.insert(id, item.uri(), directory);
        }
        tree
    }

    /// Adds a server root (servers are added in id order).
    pub fn add_server(&mut self, name: &str) {
        let server = self.roots.len() as ServerId;
        let id = self.new_node(name, NO_PARENT, server);
        self.nodes[id as usize].expanded = true;
        self.roots.push(id);
        self.item_nodes.push(Vec::new());
        self.rows_dirty = true;
    }

    fn new_node(&mut self, segment: &str, parent: NodeId, server: ServerId) -> NodeId {
        let segment = self.segments.push(segment);
        self.nodes.push(Node {
            segment,
            parent,
            children: NONE,
            rows: 1,
            item: NONE,
            count: 0,
            server,
            expanded: false,
            directory: false,
        });
        (self.nodes.len() - 1) as NodeId
    }

    fn segment(&self, node: NodeId) -> &str {
        self.segments.get(self.nodes[node as usize].segment)
    }

    /// A node's children (none for a leaf).
    fn children(&self, node: NodeId) -> &Children {
        match self.nodes[node as usize].children {
            NONE => &NO_CHILDREN,
            i => &self.folders[i as usize],
        }
    }

    /// Changes a node's children with `f`, which may read the tree meanwhile (the children
    /// are taken out while it runs).
    fn with_children<R>(&mut self, node: NodeId, f: impl FnOnce(&Self, &mut Children) -> R) -> R {
        let mut slot = self.nodes[node as usize].children;
        if slot == NONE {
            slot = self.folders.len() as u32;
            self.folders.push(Children::default());
            self.nodes[node as usize].children = slot;
        }
        let mut children = std::mem::take(&mut self.folders[slot as usize]);
        let out = f(self, &mut children);
        self.folders[slot as usize] = children;
        out
    }

    /// Adds one resource (items arrive in listing order, as pages come in): O(depth · log
    /// of the folder it goes into).
    pub fn insert(&mut self, id: ItemId, uri: &str, directory: bool) {
        let root = self.roots[id.server as usize];
        let mut node = root;
        for segment in split_uri(uri) {
            node = self.child(node, segment);
        }
        if self.nodes[node as usize]
            .item()
            .is_some_and(|other| other != id)
        {
            // Two URIs with one tree position (`x://a/b` and `x://a/b/`): the later one gets
            // a leaf of its own under the same parent, labelled with its whole URI.
            // The NUL prefix keeps this leaf out of segment lookups: no later URI is filed
            // under it, so paths stay unique.
            let parent = self.nodes[node as usize].parent;
            node = self.child(parent, &format!("{ALONE}{uri}"));
        }
        let mut n = node;
        while n != NO_PARENT {
            self.nodes[n as usize].count += 1;
            n = self.nodes[n as usize].parent;
        }
        let n = &mut self.nodes[node as usize];
        n.item = id.index;
        n.directory |= directory;
        let nodes = &mut self.item_nodes[id.server as usize];
        if nodes.len() <= id.index as usize {
            nodes.resize(id.index as usize + 1, NO_PARENT);
        }
        nodes[id.index as usize] = node;
        self.fix_rows(node);
        // Under a filter the new nodes stay hidden until the next filter, so the filtered
        // rows are unchanged: no recount for every page that arrives during a search. Only
        // a shown node that becomes a resource can end a chain of folders.
        if self
            .hits
            .as_ref()
            .is_some_and(|h| (node as usize) < h.len())
        {
            self.rows_dirty = true;
        }
    }

    /// Takes out a resource its server no longer lists: its node stops being a resource, and
    /// goes with every folder left empty above it (their rows and counts go with them; the
    /// other nodes, their open state and ids stay). O(depth · log of the folders it was in).
    pub fn remove(&mut self, id: ItemId) {
        let Some(node) = self
            .item_nodes
            .get_mut(id.server as usize)
            .and_then(|nodes| nodes.get_mut(id.index as usize))
            .map(|n| std::mem::replace(n, NO_PARENT))
            .filter(|&n| n != NO_PARENT)
        else {
            return;
        };
        // Its own hits if it was one of the filter's matches: they go from every node above.
        let own = self.hits.as_ref().map_or(0, |hits| {
            let below: u32 = self
                .children(node)
                .iter()
                .map(|c| hits.get(c as usize).copied().unwrap_or(0))
                .sum();
            hits.get(node as usize)
                .map_or(0, |&h| h.saturating_sub(below))
        });
        let hit = own > 0;
        let mut n = node;
        while n != NO_PARENT {
            let node = &mut self.nodes[n as usize];
            node.count -= 1;
            if let Some(h) = self.hits.as_mut().and_then(|h| h.get_mut(n as usize)) {
                *h -= own.min(*h);
            }
            n = node.parent;
        }
        let leaf = &mut self.nodes[node as usize];
        leaf.item = NONE;
        leaf.directory = false;
        // Folders left with no resource go (a server's root stays).
        let mut n = node;
        while self.nodes[n as usize].parent != NO_PARENT && self.nodes[n as usize].count == 0 {
            let parent = self.nodes[n as usize].parent;
            let rows = u64::from(self.nodes[n as usize].rows);
            self.with_children(parent, |tree, children| {
                children.remove(n, rows, tree.sibling_cmp(n))
            });
            let segment = self.segment(n).to_string();
            let nodes = &self.nodes;
            self.lookup.remove((parent, segment.as_str()), |c| {
                c == n && nodes[c as usize].parent == parent
            });
            n = parent;
        }
        self.fix_rows(n);
        // Under a filter: a match gone, or a folder no longer a resource (which may now run
        // on into its only child), changes the filtered rows.
        if self.hits.is_some() && (hit || n == node) {
            self.rows_dirty = true;
        }
    }

    /// A node still in the tree (a removal takes out folders left empty; their slots stay).
    fn live(&self, node: NodeId) -> bool {
        let n = &self.nodes[node as usize];
        n.parent == NO_PARENT || n.count > 0
    }

    fn child(&mut self, parent: NodeId, segment: &str) -> NodeId {
        let (nodes, segments) = (&self.nodes, &self.segments);
        let same = |c: NodeId| {
            let n = &nodes[c as usize];
            n.parent == parent && segments.get(n.segment) == segment
        };
        if let Some(c) = self.lookup.find((parent, segment), same) {
            return c;
        }
        let id = self.new_node(segment, parent, self.nodes[parent as usize].server);
        self.with_children(parent, |tree, children| {
            children.insert(
                id,
                1,
                |c| segment_order(tree.segment(c), segment),
                |c| tree.nodes[c as usize].rows as u64,
            )
        });
        let (nodes, segments) = (&self.nodes, &self.segments);
        self.lookup.insert((parent, segment), id, |c| {
            let n = &nodes[c as usize];
            (n.parent, segments.get(n.segment))
        });
        id
    }

    /// Orders child `c` against `node` among their siblings.
    fn sibling_cmp(&self, node: NodeId) -> impl Fn(NodeId) -> Ordering + '_ {
        let segment = self.segment(node);
        move |c| segment_order(self.segment(c), segment)
    }

    /// The unfiltered rows of `node` as a row's head.
    fn head_rows(&self, node: NodeId) -> u32 {
        let tail = self.chain_tail_with(node, false);
        let below = if self.nodes[tail as usize].expanded {
            self.children(tail).rows()
        } else {
            0
        };
        u32::try_from(1 + below).unwrap_or(u32::MAX)
    }

    /// After `from` changed (a child, an item, its expand state): recounts the rows of it
    /// and of every ancestor, and the row sums of the chunks holding them. O(depth²).
    fn fix_rows(&mut self, from: NodeId) {
        let mut n = from;
        loop {
            let old = self.nodes[n as usize].rows;
            let new = self.head_rows(n);
            self.nodes[n as usize].rows = new;
            let parent = self.nodes[n as usize].parent;
            if parent == NO_PARENT {
                return;
            }
            if new != old {
                self.with_children(parent, |tree, children| {
                    children.adjust(i64::from(new) - i64::from(old), tree.sibling_cmp(n))
                });
            }
            n = parent;
        }
    }

    /// Recounts every node's rows (after the expand state of many folders changed): O(nodes).
    fn recount_rows(&mut self) {
        // Children are created after their parents: going backwards, every node's children
        // (and its chain's tail) are counted before it.
        for n in (0..self.nodes.len()).rev() {
            if self.nodes[n].children != NONE {
                self.with_children(n as NodeId, |tree, children| {
                    children.recount(|c| tree.nodes[c as usize].rows as u64)
                });
            }
            self.nodes[n].rows = self.head_rows(n as NodeId);
        }
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    fn is_folder(&self, node: NodeId) -> bool {
        let n = &self.nodes[node as usize];
        !self.children(node).is_empty() || n.directory || n.parent == NO_PARENT
    }

    fn visible(&self, node: NodeId) -> bool {
        // Nodes added after the filter was computed stay hidden until the next filter.
        self.hits
            .as_ref()
            .is_none_or(|h| h.get(node as usize).is_some_and(|&n| n > 0))
    }

    /// Follows a chain of single-child folders that carry no resource (`filtered`: counting
    /// only children with hits).
    fn chain_tail_with(&self, head: NodeId, filtered: bool) -> NodeId {
        let mut tail = head;
        if self.nodes[head as usize].parent == NO_PARENT {
            return tail; // a server's root row is never merged
        }
        loop {
            let n = &self.nodes[tail as usize];
            if n.item != NONE || n.directory {
                return tail;
            }
            let only = if filtered {
                let mut children = self.children(tail).iter().filter(|&c| self.visible(c));
                match (children.next(), children.next()) {
                    (Some(only), None) => Some(only),
                    _ => None,
                }
            } else {
                self.children(tail).only()
            };
            let Some(only) = only else { return tail };
            if !self.joins_parent_row(only, filtered) {
                return tail;
            }
            tail = only;
        }
    }

    /// Whether `node`, as its folder's only (shown) child, is drawn on that folder's row: a
    /// folder that is no resource itself (`a/b/`), or, without a filter, a plain leaf
    /// (`a/b/x.md`), so one resource deep in folders takes one row, not one per folder. A
    /// search's matches keep their folder's row (a folder of matches is what one pins from a
    /// search), and so do a folder that is a resource, an `inode/directory` and a leaf holding
    /// a whole URI of its own (`ALONE`).
    fn joins_parent_row(&self, node: NodeId, filtered: bool) -> bool {
        let n = &self.nodes[node as usize];
        if n.directory {
            return false;
        }
        match (n.item != NONE, self.children(node).is_empty()) {
            (false, false) => true,
            (true, true) => !filtered && !self.segments.starts_with_nul(n.segment),
            _ => false,
        }
    }

    fn chain_tail(&self, head: NodeId) -> NodeId {
        self.chain_tail_with(head, self.hits.is_some())
    }

    /// The head of the (unfiltered) row showing `node`.
    fn head_of(&self, node: NodeId) -> NodeId {
        let mut x = node;
        loop {
            let parent = self.nodes[x as usize].parent;
            if parent == NO_PARENT || self.nodes[parent as usize].parent == NO_PARENT {
                return x;
            }
            if self.chain_tail(parent) == parent {
                return x;
            }
            // The parent's chain runs on through `x`: is `parent` the chain's head?
            x = parent;
        }
    }

    fn open(&self, node: NodeId) -> bool {
        self.hits.is_some() || self.nodes[node as usize].expanded
    }

    /// Counts the filtered tree's rows again if a change made them stale (a shown node became
    /// a resource): one pass over the nodes, O(nodes), nothing flattened. Call before reading
    /// rows (a tree without a filter needs nothing; [`UriTree::set_filter`] counts its own).
    pub fn refresh(&mut self) {
        if !self.rows_dirty {
            return;
        }
        self.rows_dirty = false;
        self.count_filtered(false);
    }

    /// The filtered tree's rows per node, in one backward pass (children are created after
    /// their parents, so each node's children are done before it), each node handing its rows
    /// (and, with `aggregate`, its hits) to its parent: no node reads its children's list, so
    /// the pass costs as much as a pass over the nodes, whatever the folders' sizes. Taking a
    /// search result at a million resources took 30–60 ms on the UI thread counting each
    /// folder's shown children separately, after a first pass for the hits.
    ///
    /// A node whose row runs on into its only shown child (see `chain_tail_with`) has that
    /// child's rows; any other has its own row and its shown children's. Which case a node is
    /// in is known from what its children handed it: the two top bits of its hits, cleared
    /// when the node's turn comes (so the counts are plain again once the pass is done).
    fn count_filtered(&mut self, aggregate: bool) {
        /// The shown children a node has been handed so far, in its hits' top bits.
        const SHIFT: u32 = 30;
        const COUNT: u32 = (1 << SHIFT) - 1;
        const ONE_CHAINABLE: u32 = 1;
        const ONE_OTHER: u32 = 2;
        const MANY: u32 = 3;
        let mut rows = std::mem::take(&mut self.filtered_rows);
        rows.clear();
        let Some(mut hits) = self.hits.take() else {
            rows.shrink_to_fit();
            self.filtered_rows = rows;
            return;
        };
        rows.resize(hits.len(), 0);
        for n in (0..hits.len()).rev() {
            let shown_children = hits[n] >> SHIFT;
            let own = hits[n] & COUNT;
            hits[n] = own;
            if own == 0 {
                continue; // hidden, and so is everything below it
            }
            let node = &self.nodes[n];
            let plain = node.item == NONE && !node.directory;
            let runs_on = node.parent != NO_PARENT && plain && shown_children == ONE_CHAINABLE;
            // What the children handed in is their rows' sum.
            if !runs_on {
                rows[n] = rows[n].saturating_add(1);
            }
            let parent = node.parent;
            if parent == NO_PARENT {
                continue;
            }
            let p = parent as usize;
            let chainable = self.joins_parent_row(n as NodeId, true);
            let (count, state) = (hits[p] & COUNT, hits[p] >> SHIFT);
            let state = match state {
                0 if chainable => ONE_CHAINABLE,
                0 => ONE_OTHER,
                _ => MANY,
            };
            let count = if aggregate {
                (count + own).min(COUNT)
            } else {
                count
            };
            hits[p] = count | (state << SHIFT);
            rows[p] = rows[p].saturating_add(rows[n]);
        }
        self.hits = Some(hits);
        self.filtered_rows = rows;
    }

    /// Visible rows of `node` as a row's head (0 when it is hidden by the filter).
    fn rows_of(&self, node: NodeId) -> u64 {
        match &self.hits {
            Some(_) => self
                .filtered_rows
                .get(node as usize)
                .map_or(0, |&r| u64::from(r)),
            None => u64::from(self.nodes[node as usize].rows),
        }
    }

    /// Number of visible rows (after [`UriTree::refresh`]).
    pub fn row_count(&self) -> usize {
        self.roots.iter().map(|&r| self.rows_of(r) as usize).sum()
    }

    /// The visible rows `offset..offset + len`: O(len · depth) without a filter, whatever the
    /// tree's size; with one, plus the hidden siblings passed on the way.
    pub fn window(&self, offset: usize, len: usize) -> Vec<Row> {
        let mut out = Vec::with_capacity(len.min(1024));
        let Some(mut levels) = self.seek(offset) else {
            return out;
        };
        while out.len() < len {
            let Some(row) = self.row_at(&levels) else {
                break;
            };
            out.push(row);
            if !self.step(&mut levels, row) {
                break;
            }
        }
        out
    }

    /// The first shown child of `parent` at or after (chunk, position).
    fn shown_from(&self, parent: NodeId, mut at: (usize, usize)) -> Option<(usize, usize)> {
        let children = self.children(parent);
        loop {
            let c = children.at(at.0, at.1)?;
            if self.visible(c) {
                return Some(at);
            }
            at = children.next(at.0, at.1)?;
        }
    }

    fn level_node(&self, level: &Level) -> Option<NodeId> {
        if level.parent == NO_PARENT {
            self.roots.get(level.pos).copied()
        } else {
            self.children(level.parent).at(level.chunk, level.pos)
        }
    }

    fn row_at(&self, levels: &[Level]) -> Option<Row> {
        let head = self.level_node(levels.last()?)?;
        Some(Row {
            head,
            tail: self.chain_tail(head),
            depth: (levels.len() - 1) as u16,
        })
    }

    /// The walk positioned on unfiltered row `k`.
    fn seek(&self, k: usize) -> Option<Vec<Level>> {
        let mut k = k as u64;
        let mut levels = Vec::new();
        let mut node = None;
        for (pos, &r) in self.roots.iter().enumerate() {
            let rows = self.rows_of(r);
            if k < rows {
                levels.push(Level {
                    parent: NO_PARENT,
                    chunk: 0,
                    pos,
                });
                node = Some(r);
                break;
            }
            k -= rows;
        }
        let mut node = node?;
        while k > 0 {
            k -= 1; // the row of `node` itself
            let tail = self.chain_tail(node);
            let children = self.children(tail);
            let (chunk, pos, rest) = if self.hits.is_some() {
                children.seek_each(k, |c| self.rows_of(c))?
            } else {
                children.seek(k, |c| self.rows_of(c))?
            };
            levels.push(Level {
                parent: tail,
                chunk,
                pos,
            });
            node = self.children(tail).at(chunk, pos)?;
            k = rest;
        }
        Some(levels)
    }

    /// Moves the walk to the row after `row`; false at the end.
    fn step(&self, levels: &mut Vec<Level>, row: Row) -> bool {
        if self.open(row.tail)
            && let Some((chunk, pos)) = self.shown_from(row.tail, (0, 0))
        {
            levels.push(Level {
                parent: row.tail,
                chunk,
                pos,
            });
            return true;
        }
        while let Some(level) = levels.last_mut() {
            if level.parent == NO_PARENT {
                if let Some(pos) =
                    (level.pos + 1..self.roots.len()).find(|&p| self.visible(self.roots[p]))
                {
                    level.pos = pos;
                    return true;
                }
            } else if let Some(at) = self
                .children(level.parent)
                .next(level.chunk, level.pos)
                .and_then(|at| self.shown_from(level.parent, at))
            {
                (level.chunk, level.pos) = at;
                return true;
            }
            levels.pop();
        }
        false
    }

    /// The row index of a row's head, if every folder above it is open (and, under a filter,
    /// it is shown).
    fn index_of_head(&self, head: NodeId) -> Option<usize> {
        if !self.visible(head) {
            return None;
        }
        let parent = self.nodes[head as usize].parent;
        if parent == NO_PARENT {
            let before: u64 = self
                .roots
                .iter()
                .take_while(|&&r| r != head)
                .map(|&r| self.rows_of(r))
                .sum();
            return Some(before as usize);
        }
        if !self.open(parent) {
            return None;
        }
        let above = self.index_of_head(self.head_of(parent))?;
        let children = self.children(parent);
        let before: u64 = if self.hits.is_some() {
            children
                .iter()
                .take_while(|&c| c != head)
                .map(|c| self.rows_of(c))
                .sum()
        } else {
            children.rows_before(head, self.sibling_cmp(head), |c| self.rows_of(c))
        };
        Some(above + 1 + before as usize)
    }

    /// The row showing `node` (as its head or its tail), if it is visible.
    pub fn row_of_node(&self, node: NodeId) -> Option<usize> {
        if node as usize >= self.nodes.len() || !self.live(node) {
            return None;
        }
        self.index_of_head(self.head_of(node))
    }

    /// The stable path of the node row `index` ends on (see [`UriTree::expanded_paths`]):
    /// to find it again after the tree is rebuilt.
    pub fn row_path(&self, index: usize) -> Option<String> {
        let row = *self.window(index, 1).first()?;
        Some(self.path(row.tail))
    }

    /// The node with a path from [`UriTree::row_path`], if it still exists.
    pub fn node_of_path(&self, path: &str) -> Option<NodeId> {
        (0..self.nodes.len() as NodeId).find(|&n| self.live(n) && self.path(n) == path)
    }

    /// What to draw for a row.
    pub fn view(&self, row: Row) -> RowView {
        let mut label = String::new();
        let mut node = row.tail;
        let mut parts = Vec::new();
        loop {
            parts.push(node);
            if node == row.head {
                break;
            }
            node = self.nodes[node as usize].parent;
        }
        for (i, &n) in parts.iter().rev().enumerate() {
            if i > 0 {
                label.push('/');
            }
            let segment = self.segment(n);
            label.push_str(&percent_decode(
                segment.strip_prefix(ALONE).unwrap_or(segment),
            ));
        }
        let tail = &self.nodes[row.tail as usize];
        RowView {
            label,
            depth: row.depth,
            folder: self.is_folder(row.tail),
            expanded: self.open(row.tail),
            count: match &self.hits {
                Some(h) => h.get(row.tail as usize).copied().unwrap_or(0),
                None => tail.count,
            },
            item: tail.item(),
            server: tail.parent == NO_PARENT,
        }
    }

    /// Opens or closes the folder at a row.
    pub fn set_expanded(&mut self, row: Row, expanded: bool) {
        if self.is_folder(row.tail) {
            self.nodes[row.tail as usize].expanded = expanded;
            self.fix_rows(row.tail);
        }
    }

    /// Opens (`true`) or closes every folder; server roots stay open.
    pub fn set_all_expanded(&mut self, expanded: bool) {
        for n in &mut self.nodes {
            if n.parent != NO_PARENT {
                n.expanded = expanded;
            }
        }
        self.recount_rows();
    }

    /// The row index of the parent of the row at `index`, for "jump to parent".
    pub fn parent_row(&self, index: usize) -> Option<usize> {
        let row = *self.window(index, 1).first()?;
        let parent = self.nodes[row.head as usize].parent;
        if parent == NO_PARENT {
            return None;
        }
        self.index_of_head(self.head_of(parent))
    }

    /// The row showing an item, if it is visible.
    pub fn row_of(&self, id: ItemId) -> Option<usize> {
        let node = *self
            .item_nodes
            .get(id.server as usize)?
            .get(id.index as usize)?;
        (node != NO_PARENT).then(|| self.row_of_node(node))?
    }

    /// Opens every folder above an item, so that it has a row.
    pub fn reveal(&mut self, id: ItemId) {
        let Some(&node) = self
            .item_nodes
            .get(id.server as usize)
            .and_then(|nodes| nodes.get(id.index as usize))
            .filter(|&&n| n != NO_PARENT)
        else {
            return;
        };
        let mut n = self.nodes[node as usize].parent;
        while n != NO_PARENT {
            if !self.nodes[n as usize].expanded && self.is_folder(n) {
                self.nodes[n as usize].expanded = true;
                self.fix_rows(n);
            }
            n = self.nodes[n as usize].parent;
        }
    }

    /// Restricts the rows to the ancestors of `matches` (and the matches), all open; `None`
    /// clears the filter and restores the expand state as it was.
    pub fn set_filter(&mut self, matches: Option<&[ItemId]>) {
        // The last filter's buffer is reused: a search at a million resources sets a filter
        // per query typed, and fresh memory is slow to touch.
        let mut reuse = self.hits.take().unwrap_or_default();
        self.hits = matches.map(|ids| {
            let mut hits = std::mem::take(&mut reuse);
            hits.clear();
            hits.resize(self.nodes.len(), 0);
            for id in ids {
                if let Some(&node) = self
                    .item_nodes
                    .get(id.server as usize)
                    .and_then(|n| n.get(id.index as usize))
                    .filter(|&&n| n != NO_PARENT)
                {
                    hits[node as usize] += 1;
                }
            }
            hits
        });
        // Each subtree's hits go into its parent in the same pass that counts the rows.
        self.rows_dirty = false;
        self.count_filtered(true);
    }

    /// The expand state as stable paths (server, then raw segments), to keep across a
    /// rebuild or a restart.
    pub fn expanded_paths(&self) -> Vec<String> {
        (0..self.nodes.len() as NodeId)
            .filter(|&n| self.nodes[n as usize].expanded && self.live(n) && self.is_folder(n))
            .map(|n| self.path(n))
            .collect()
    }

    /// Applies paths from [`UriTree::expanded_paths`]; everything else is closed.
    pub fn restore_expanded(&mut self, paths: &[String]) {
        self.set_all_expanded(false);
        let by_path: HashMap<String, NodeId> = (0..self.nodes.len() as NodeId)
            .filter(|&n| self.live(n) && self.is_folder(n))
            .map(|n| (self.path(n), n))
            .collect();
        for &root in &self.roots {
            self.nodes[root as usize].expanded = false;
        }
        for path in paths {
            if let Some(&n) = by_path.get(path) {
                self.nodes[n as usize].expanded = true;
            }
        }
        self.recount_rows();
    }

    fn path(&self, node: NodeId) -> String {
        let mut parts = Vec::new();
        let mut n = node;
        while n != NO_PARENT {
            parts.push(self.segment(n));
            n = self.nodes[n as usize].parent;
        }
        parts.reverse();
        parts.join("\u{1f}")
    }

    /// The raw URI prefix a folder row stands for (`file:///project/docs/`), with its server:
    /// what a prefix mark on that row should hold. `None` for server rows and leaves.
    pub fn uri_prefix(&self, catalogue: &Catalogue, row: Row) -> Option<(ServerId, String)> {
        let tail = &self.nodes[row.tail as usize];
        if tail.parent == NO_PARENT || !self.is_folder(row.tail) {
            return None;
        }
        // Depth of the tail below its server root = how many URI segments it spans.
        let mut depth = 0;
        let mut n = row.tail;
        while self.nodes[n as usize].parent != NO_PARENT {
            depth += 1;
            n = self.nodes[n as usize].parent;
        }
        // Any resource at or under this row shares those segments; cut its URI after them.
        let id = self.first_item_under(row)?;
        let uri = catalogue.get(id)?.uri();
        let segments = split_uri(uri);
        let last = segments.get(depth - 1)?;
        let end = last.as_ptr() as usize - uri.as_ptr() as usize + last.len();
        let mut prefix = uri[..end].to_string();
        if uri[end..].starts_with('/') || end == uri.len() {
            prefix.push('/');
        }
        Some((id.server, prefix))
    }

    /// The first item under the node a row stands for (its tail: a row joining a folder to
    /// its only child stands for the child), in tree order (stops there: cheap for a folder of
    /// any size). Not under the row's head: on a joined row the head is an outer folder, whose
    /// first item may be in a sibling of the folder shown (`file:///project/Cargo.toml` for the
    /// row `file:///project/scripts` under a search) and may be shallower than the row.
    pub fn first_item_under(&self, row: Row) -> Option<ItemId> {
        let mut stack = vec![row.tail];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            if node.item().is_some() {
                return node.item();
            }
            stack.extend(self.children(n).iter().rev());
        }
        None
    }
}

/// The most tree segments a URI makes; the rest of a deeper URI stays whole on its last
/// segment. Keeping a row's rows up to date costs O(depth²) per insert, and a server's URI of
/// 100,000 segments once froze the browser for most of a minute.
pub const MAX_SEGMENTS: usize = 64;

/// Splits a URI into tree segments: `scheme://authority` (or `scheme:` for URIs without an
/// authority), then the path's segments; a query or fragment stays on the last segment, and a
/// trailing `/` adds no empty leaf (the folder itself is the resource). At most
/// [`MAX_SEGMENTS`]: the last one holds the rest of a deeper URI, slashes and all.
pub fn split_uri(uri: &str) -> Vec<&str> {
    let (before_query, query_len) = match uri.find(['?', '#']) {
        Some(q) => (&uri[..q], uri.len() - q),
        None => (uri, 0),
    };
    let (prefix_end, path) = match before_query.find("://") {
        Some(i) => {
            let after = i + 3;
            match before_query[after..].find('/') {
                Some(slash) => (after + slash, &before_query[after + slash..]),
                None => (before_query.len(), ""),
            }
        }
        None => match before_query.find(':') {
            Some(i) => (i + 1, &before_query[i + 1..]),
            None => (0, before_query),
        },
    };
    let mut out: Vec<&str> = Vec::new();
    if prefix_end > 0 {
        out.push(&uri[..prefix_end]);
    }
    let path_start = prefix_end;
    let trimmed = path.strip_prefix('/').unwrap_or(path);
    let mut offset = path_start + (path.len() - trimmed.len());
    let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
    if !trimmed.is_empty() {
        for segment in trimmed.split('/') {
            out.push(&uri[offset..offset + segment.len()]);
            offset += segment.len() + 1;
        }
    }
    if query_len > 0 {
        // Extend the last segment over the query, or make the query the only segment.
        let start = match out.last() {
            Some(last) => last.as_ptr() as usize - uri.as_ptr() as usize,
            None => 0,
        };
        let end_of_last = start + out.last().map_or(0, |l| l.len());
        let query_start = uri.len() - query_len;
        if out.is_empty() || end_of_last != query_start {
            // e.g. `x://a/?q` (trailing slash before the query): the query is its own leaf.
            out.push(&uri[query_start..]);
        } else {
            *out.last_mut().unwrap() = &uri[start..];
        }
    }
    if out.is_empty() {
        out.push(uri);
    }
    if out.len() > MAX_SEGMENTS {
        // The segments are consecutive slices of `uri`: the last kept one spans them all.
        let offset = |s: &str| s.as_ptr() as usize - uri.as_ptr() as usize;
        let start = offset(out[MAX_SEGMENTS - 1]);
        let last = out[out.len() - 1];
        let end = offset(last) + last.len();
        out.truncate(MAX_SEGMENTS - 1);
        out.push(&uri[start..end]);
    }
    out
}

/// Decodes `%XX` escapes for display; invalid UTF-8 becomes U+FFFD. The URI is not changed.
pub fn percent_decode(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.contains('%') {
        return s.into();
    }
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned().into()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::Resource;

    #[test]
    fn splits_uris() {
        assert_eq!(
            split_uri("file:///project/src/main.rs"),
            ["file://", "project", "src", "main.rs"]
        );
        assert_eq!(
            split_uri("https://example.com/wiki/Page"),
            ["https://example.com", "wiki", "Page"]
        );
        assert_eq!(split_uri("demo://notes"), ["demo://notes"]);
        assert_eq!(split_uri("demo://notes/1"), ["demo://notes", "1"]);
        assert_eq!(
            split_uri("demo://search?q=budget"),
            ["demo://search?q=budget"]
        );
        assert_eq!(split_uri("x://a/b?q=1&r=/2"), ["x://a", "b?q=1&r=/2"]);
        assert_eq!(
            split_uri("file:///project/docs/guides/"),
            ["file://", "project", "docs", "guides"]
        );
        assert_eq!(split_uri("urn:isbn:123"), ["urn:", "isbn:123"]);
        assert_eq!(split_uri("plain"), ["plain"]);
        assert_eq!(split_uri("x://a/?q"), ["x://a", "?q"]);
    }

    /// A URI of thousands of segments once made a chain as deep, and each insert O(depth²):
    /// the rest past [`MAX_SEGMENTS`] stays whole on its leaf.
    #[test]
    fn a_very_deep_uri_makes_a_bounded_chain() {
        let deep = "x://h/".to_string() + &"s/".repeat(5_000) + "end?q=1";
        let segments = split_uri(&deep);
        assert_eq!(segments.len(), MAX_SEGMENTS);
        assert_eq!(segments[0], "x://h");
        assert!(segments[MAX_SEGMENTS - 1].starts_with("s/s/"));
        assert!(segments[MAX_SEGMENTS - 1].ends_with("/s/end?q=1"));
        let (_, mut tree) = build(&[&deep, "x://h/s/other"]);
        assert!(
            tree.node_count() <= MAX_SEGMENTS + 2,
            "{}",
            tree.node_count()
        );
        tree.set_all_expanded(true);
        tree.refresh();
        let rows = labels(&tree);
        assert!(
            rows.last().unwrap().trim_start().ends_with("/s/end?q=1"),
            "{rows:?}"
        );
    }

    #[test]
    fn decodes_for_display_only() {
        assert_eq!(percent_decode("My%20Notes.md"), "My Notes.md");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
        assert_eq!(percent_decode("%E2%9C%93"), "✓");
    }

    fn build(uris: &[&str]) -> (Catalogue, UriTree) {
        let mut cat = Catalogue::new();
        let s = cat.server("srv");
        let resources: Vec<_> = uris.iter().map(|u| Resource::new(*u, *u)).collect();
        cat.append(s, &resources);
        let mut tree = UriTree::build(&cat);
        tree.refresh();
        (cat, tree)
    }

    fn labels(tree: &UriTree) -> Vec<String> {
        tree.window(0, usize::MAX)
            .iter()
            .map(|&r| {
                let v = tree.view(r);
                format!(
                    "{}{}{}",
                    "  ".repeat(v.depth as usize),
                    v.label,
                    if v.folder { "/" } else { "" }
                )
            })
            .collect()
    }

    #[test]
    fn siblings_sort_naturally() {
        let (_, mut tree) = build(&[
            "x://api/v10/a",
            "x://api/v2/a",
            "x://api/v1/a",
            "x://api/page-10.md",
            "x://api/page-9.md",
            "x://api/Z",
        ]);
        tree.set_all_expanded(true);
        tree.refresh();
        assert_eq!(
            labels(&tree),
            [
                "srv/",
                "  x://api/",
                "    Z",
                "    page-9.md",
                "    page-10.md",
                "    v1/a",
                "    v2/a",
                "    v10/a",
            ]
        );
    }

    #[test]
    fn compacts_single_child_chains_and_counts() {
        let (_, mut tree) = build(&[
            "file:///a/b/c/x.rs",
            "file:///a/b/c/y.rs",
            "demo://notes",
            "demo://notes/1",
        ]);
        tree.set_all_expanded(true);
        tree.refresh();
        assert_eq!(
            labels(&tree),
            [
                "srv/",
                "  demo://notes/",
                "    1",
                "  file:///a/b/c/",
                "    x.rs",
                "    y.rs"
            ]
        );
        let root = tree.view(tree.window(0, 1)[0]);
        assert_eq!(root.count, 4);
        let notes = tree.view(tree.window(1, 1)[0]);
        assert_eq!(
            notes.item.map(|i| i.index),
            Some(2),
            "a resource and a folder at once"
        );
        assert_eq!(notes.count, 2);
    }

    #[test]
    fn a_folder_with_a_single_leaf_shares_its_row() {
        let mut cat = Catalogue::new();
        let s = cat.server("srv");
        let uris = ["x://h/docs/guide.md", "x://h/e/f", "x://h/b/c/d.md"];
        cat.append(s, &uris.map(|u| Resource::new(u, u)));
        let mut tree = UriTree::default();
        tree.add_server("srv");
        for (id, item) in cat.iter() {
            // An `inode/directory` is a folder even when empty: it keeps a row of its own.
            tree.insert(id, item.uri(), item.uri() == "x://h/e/f");
        }
        tree.set_all_expanded(true);
        tree.refresh();
        assert_eq!(
            labels(&tree),
            [
                "srv/",
                "  x://h/",
                "    b/c/d.md",
                "    docs/guide.md",
                "    e/",
                "      f/"
            ],
            "a folder chain ending in one leaf is one row"
        );
        let guide = tree.window(3, 1)[0];
        let id = cat.find(0, "x://h/docs/guide.md").unwrap();
        assert_eq!(tree.view(guide).item, Some(id), "the row is the leaf's");
        assert_eq!(
            tree.uri_prefix(&cat, guide),
            None,
            "a leaf row marks no prefix"
        );
        assert_eq!(tree.row_of(id), Some(3));
        tree.set_expanded(guide, false);
        tree.refresh();
        assert_eq!(tree.row_count(), 6, "a leaf row has nothing to close");

        // A second leaf splits the row; taking it out joins it again.
        cat.append(s, &[Resource::new("x://h/docs/faq.md", "faq")]);
        let faq = cat.find(s, "x://h/docs/faq.md").unwrap();
        tree.insert(faq, "x://h/docs/faq.md", false);
        tree.refresh();
        assert_eq!(
            labels(&tree),
            [
                "srv/",
                "  x://h/",
                "    b/c/d.md",
                "    docs/",
                "      faq.md",
                "      guide.md",
                "    e/",
                "      f/"
            ]
        );
        tree.remove(faq);
        tree.refresh();
        assert_eq!(labels(&tree)[3], "    docs/guide.md");

        // Under a filter, a folder of matches keeps its row: it is what one pins from there.
        tree.set_filter(Some(&[id]));
        tree.refresh();
        assert_eq!(labels(&tree), ["srv/", "  x://h/docs/", "    guide.md"]);
    }

    #[test]
    fn a_leaf_holding_a_whole_uri_keeps_its_own_row() {
        let (cat, mut tree) = build(&["x://h/a/b", "x://h/a/b/"]);
        let plain = cat.find(0, "x://h/a/b").unwrap();
        tree.remove(plain);
        tree.set_all_expanded(true);
        tree.refresh();
        assert_eq!(labels(&tree), ["srv/", "  x://h/a/", "    x://h/a/b/"]);
    }

    #[test]
    fn collapsed_folders_hide_children_and_parent_row_works() {
        let (_, mut tree) = build(&["x://h/a/1", "x://h/a/2", "x://h/b/3"]);
        assert_eq!(tree.row_count(), 2, "server open, x://h closed");
        tree.set_all_expanded(true);
        tree.refresh();
        assert_eq!(tree.row_count(), 6, "srv, x://h, a, 1, 2, b/3");
        assert_eq!(tree.parent_row(3), Some(2));
        assert_eq!(tree.parent_row(5), Some(1));
        assert_eq!(tree.parent_row(0), None);
        let a = tree.window(2, 1)[0];
        tree.set_expanded(a, false);
        tree.refresh();
        assert_eq!(tree.row_count(), 4);
    }

    /// A search showing a folder whose parent is a server root's first segment joins the two
    /// on one row: the row's prefix is the folder shown, not the parent's first child (the
    /// demo's `/'/scripts/` row pinned `file:///project/Cargo.toml/`), also for a deeper
    /// joined chain (which found no prefix at all).
    #[test]
    fn a_joined_row_under_a_filter_gives_the_prefix_it_shows() {
        let (cat, mut tree) = build(&[
            "file:///project/Cargo.toml",
            "file:///project/scripts/build.sh",
            "file:///project/scripts/test.sh",
            "file:///project/web/src/a.ts",
            "file:///project/web/src/b.ts",
        ]);
        let under = |folder: &str| -> Vec<ItemId> {
            cat.iter()
                .filter(|(_, i)| i.uri().starts_with(folder))
                .map(|(id, _)| id)
                .collect()
        };
        for (folder, label) in [
            ("file:///project/scripts/", "file:///project/scripts"),
            ("file:///project/web/src/", "file:///project/web/src"),
        ] {
            let hits = under(folder);
            tree.set_filter(Some(&hits));
            tree.refresh();
            let row = *tree
                .window(0, 100)
                .iter()
                .find(|&&r| tree.view(r).label == label)
                .unwrap_or_else(|| panic!("{label}: {:?}", labels(&tree)));
            assert_eq!(
                tree.uri_prefix(&cat, row).map(|(_, p)| p).as_deref(),
                Some(folder),
                "{label}"
            );
        }
    }

    #[test]
    fn folder_rows_give_their_raw_uri_prefix() {
        let (cat, mut tree) = build(&[
            "file:///a/b%20c/x.rs",
            "file:///a/b%20c/y.rs",
            "demo://notes",
            "demo://notes/1",
        ]);
        tree.set_all_expanded(true);
        tree.refresh();
        let prefix = |label: &str| {
            let row = *tree
                .window(0, 100)
                .iter()
                .find(|&&r| tree.view(r).label == label)
                .unwrap();
            tree.uri_prefix(&cat, row).map(|(_, p)| p)
        };
        assert_eq!(prefix("file:///a/b c").as_deref(), Some("file:///a/b%20c/"));
        assert_eq!(prefix("demo://notes").as_deref(), Some("demo://notes/"));
        assert_eq!(prefix("x.rs"), None);
        assert_eq!(prefix("srv"), None);
    }

    #[test]
    fn filter_keeps_ancestors_of_matches() {
        let (cat, mut tree) = build(&["x://h/a/1", "x://h/a/2", "x://h/b/3"]);
        let id = cat.find(0, "x://h/b/3").unwrap();
        tree.set_filter(Some(&[id]));
        tree.refresh();
        assert_eq!(labels(&tree), ["srv/", "  x://h/b/", "    3"]);
        tree.set_filter(None);
        tree.refresh();
        assert_eq!(tree.row_count(), 2, "expand state as before the filter");
    }

    #[test]
    fn resources_added_under_a_filter_wait_for_the_next_filter() {
        let (cat, mut tree) = build(&["x://h/a/1"]);
        let id = cat.find(0, "x://h/a/1").unwrap();
        tree.set_filter(Some(&[id]));
        tree.refresh();
        let before = tree.row_count();
        // A page arrives while the filter is set: new nodes, no hits for them yet.
        tree.insert(
            ItemId {
                server: 0,
                index: 1,
            },
            "x://h/b/c/2",
            false,
        );
        tree.refresh();
        assert_eq!(tree.row_count(), before);
        tree.set_filter(Some(&[
            id,
            ItemId {
                server: 0,
                index: 1,
            },
        ]));
        tree.refresh();
        assert!(tree.row_count() > before);
    }

    #[test]
    fn expand_state_round_trips_through_a_rebuild() {
        let (cat, mut tree) = build(&["x://h/a/1", "x://h/a/4", "x://h/b/2", "y://z/c/3"]);
        tree.set_all_expanded(true);
        tree.refresh();
        let a = tree
            .window(0, 10)
            .iter()
            .copied()
            .find(|&r| tree.view(r).label == "a");
        tree.set_expanded(a.expect("row a"), false);
        tree.refresh();
        let before = labels(&tree);
        let paths = tree.expanded_paths();
        let mut rebuilt = UriTree::build(&cat);
        rebuilt.restore_expanded(&paths);
        rebuilt.refresh();
        assert_eq!(labels(&rebuilt), before);
    }

    /// The rows as the old eager flattening found them: a plain depth-first walk over the
    /// sorted children (the shown ones, under a filter), independent of the row counts the
    /// tree keeps.
    fn reference_rows(tree: &UriTree) -> Vec<Row> {
        let mut rows = Vec::new();
        let mut stack: Vec<(NodeId, u16)> = tree.roots.iter().rev().map(|&r| (r, 0)).collect();
        while let Some((head, depth)) = stack.pop() {
            if !tree.visible(head) {
                continue;
            }
            let tail = tree.chain_tail(head);
            rows.push(Row { head, tail, depth });
            if tree.open(tail) {
                let children: Vec<NodeId> = tree.children(tail).iter().collect();
                assert!(
                    children.windows(2).all(|w| segment_order(
                        tree.segment(w[0]),
                        tree.segment(w[1])
                    )
                    .is_lt()),
                    "children sorted"
                );
                for &c in children.iter().rev() {
                    stack.push((c, depth + 1));
                }
            }
        }
        rows
    }

    fn check_rows(tree: &UriTree) {
        let expected = reference_rows(tree);
        assert_eq!(tree.row_count(), expected.len());
        assert_eq!(tree.window(0, usize::MAX), expected);
        for (i, row) in expected.iter().enumerate() {
            assert_eq!(tree.window(i, 3), expected[i..(i + 3).min(expected.len())]);
            assert_eq!(tree.row_of_node(row.head), Some(i), "row of head");
            assert_eq!(tree.row_of_node(row.tail), Some(i), "row of tail");
            let parent = (0..i).rev().find(|&p| expected[p].depth < row.depth);
            assert_eq!(tree.parent_row(i), parent, "parent of row {i}");
        }
    }

    fn uri_strategy() -> impl Strategy<Value = String> {
        let segment = prop::sample::select(vec!["a", "b", "c", "d", "e%20f", "x?q=1", ""]);
        (
            prop::sample::select(vec!["x://h", "x://h/", "y://", "urn:"]),
            prop::collection::vec(segment, 0..5),
        )
            .prop_map(|(root, segments)| format!("{root}{}", segments.join("/")))
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Pages inserted one by one, with folders opened and closed and filters set and
        /// cleared between them, give the same rows as a plain flattening of the tree, and
        /// the same rows as the same resources built at once with the same folders open.
        #[test]
        fn pages_give_the_rows_of_a_tree_built_at_once(
            uris in prop::collection::vec(uri_strategy(), 1..60),
            page in 1usize..10,
            toggles in prop::collection::vec((0usize..64, any::<bool>()), 0..12),
            filters in prop::collection::vec(
                prop::option::of(prop::collection::vec(any::<prop::sample::Index>(), 0..8)),
                0..12,
            ),
        ) {
            let mut cat = Catalogue::new();
            let s = cat.server("srv");
            cat.server("other");
            let mut tree = UriTree::default();
            tree.add_server("srv");
            tree.add_server("other");
            let mut toggles = toggles.into_iter();
            let mut filters = filters.into_iter();
            for chunk in uris.chunks(page) {
                let before = cat.server_len(s);
                let resources: Vec<_> = chunk.iter().map(|u| Resource::new(u.as_str(), "n")).collect();
                cat.append(s, &resources);
                for index in before..cat.server_len(s) {
                    let id = ItemId { server: s, index: index as u32 };
                    let uri = cat.get(id).unwrap().uri().to_string();
                    tree.insert(id, &uri, uri.ends_with('/'));
                }
                if let Some((at, open)) = toggles.next() {
                    let rows = tree.window(0, usize::MAX);
                    if !rows.is_empty() {
                        tree.set_expanded(rows[at % rows.len()], open);
                    }
                }
                if let Some(filter) = filters.next() {
                    let ids: Option<Vec<ItemId>> = filter.map(|picks| {
                        picks.iter().map(|p| ItemId {
                            server: s,
                            index: p.index(cat.server_len(s)) as u32,
                        }).collect()
                    });
                    tree.set_filter(ids.as_deref());
                }
                tree.refresh();
                check_rows(&tree);
            }
            tree.set_filter(None);
            tree.refresh();
            check_rows(&tree);
            let mut built = UriTree::default();
            built.add_server("srv");
            built.add_server("other");
            for (id, item) in cat.iter() {
                built.insert(id, item.uri(), item.uri().ends_with('/'));
            }
            built.restore_expanded(&tree.expanded_paths());
            built.refresh();
            check_rows(&built);
            let labels_of = |t: &UriTree| -> Vec<(String, u16, u32)> {
                t.window(0, usize::MAX).iter().map(|&r| {
                    let v = t.view(r);
                    (v.label, v.depth, v.count)
                }).collect()
            };
            prop_assert_eq!(labels_of(&tree), labels_of(&built));
            tree.set_all_expanded(true);
            tree.refresh();
            check_rows(&tree);
        }

        /// Resources removed one by one, with folders opened and a filter set between them,
        /// give the same rows as a plain flattening of the tree, and the same rows as the
        /// resources left built at once with the same folders open. (URIs that share a tree
        /// position, `x://h/a` and `x://h/a/`, are left out: the later one keeps the leaf of
        /// its own it got when both were there.)
        #[test]
        fn removals_give_the_rows_of_a_tree_built_at_once(
            uris in prop::collection::vec(uri_strategy(), 1..50),
            removals in prop::collection::vec(any::<prop::sample::Index>(), 1..30),
            toggles in prop::collection::vec((0usize..64, any::<bool>()), 0..12),
            filters in prop::collection::vec(
                prop::option::of(prop::collection::vec(any::<prop::sample::Index>(), 0..8)),
                0..12,
            ),
        ) {
            let mut seen = std::collections::HashSet::new();
            let uris: Vec<&String> = uris.iter().filter(|u| seen.insert(split_uri(u).join("/"))).collect();
            let mut cat = Catalogue::new();
            let s = cat.server("srv");
            let mut tree = UriTree::default();
            tree.add_server("srv");
            let resources: Vec<_> = uris.iter().map(|u| Resource::new(u.as_str(), "n")).collect();
            cat.append(s, &resources);
            for (id, item) in cat.iter() {
                tree.insert(id, item.uri(), item.uri().ends_with('/'));
            }
            let mut live: Vec<ItemId> = cat.iter().map(|(id, _)| id).collect();
            let mut toggles = toggles.into_iter();
            let mut filters = filters.into_iter();
            for at in removals {
                if live.is_empty() {
                    break;
                }
                if let Some((row, open)) = toggles.next() {
                    let rows = tree.window(0, usize::MAX);
                    if !rows.is_empty() {
                        tree.set_expanded(rows[row % rows.len()], open);
                    }
                }
                if let Some(filter) = filters.next() {
                    let ids: Option<Vec<ItemId>> = filter.map(|picks| {
                        picks.iter().map(|p| live[p.index(live.len())]).collect()
                    });
                    tree.set_filter(ids.as_deref());
                }
                tree.refresh();
                let id = live.remove(at.index(live.len()));
                tree.remove(id);
                tree.remove(id); // twice is once
                tree.refresh();
                check_rows(&tree);
                prop_assert_eq!(tree.row_of(id), None);
            }
            tree.set_filter(None);
            tree.refresh();
            check_rows(&tree);
            let mut built = UriTree::default();
            built.add_server("srv");
            for &id in &live {
                let uri = cat.get(id).unwrap().uri();
                built.insert(id, uri, uri.ends_with('/'));
            }
            built.restore_expanded(&tree.expanded_paths());
            built.refresh();
            let labels_of = |t: &UriTree| -> Vec<(String, u16, u32, Option<ItemId>)> {
                t.window(0, usize::MAX).iter().map(|&r| {
                    let v = t.view(r);
                    (v.label, v.depth, v.count, v.item)
                }).collect()
            };
            prop_assert_eq!(labels_of(&tree), labels_of(&built));
        }
    }
}
