//! A folder's children, sorted, in chunks that each know how many visible rows their
//! children's subtrees hold. Placing a child costs a binary search and a copy within one
//! chunk (O(log n + CHUNK)), never a pass over a big folder; finding the child that holds
//! the k-th row skips whole chunks by their row sums. This is what lets the URI tree take a
//! page in O(page) and find a window of rows without flattening a folder of 750,000.

use std::cmp::Ordering;

use super::tree::NodeId;

/// A chunk is split in two when it grows past twice this.
const CHUNK: usize = 256;

#[derive(Debug, Clone, Default)]
pub(crate) struct Chunk {
    pub ids: Vec<NodeId>,
    /// The sum of the children's visible rows (see `UriTree`'s `Node::rows`).
    pub rows: u64,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Children {
    pub chunks: Vec<Chunk>,
}

impl Children {
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// True when there is exactly one child.
    pub fn is_single(&self) -> bool {
        self.chunks.len() == 1 && self.chunks[0].ids.len() == 1
    }

    /// The child when there is exactly one.
    pub fn only(&self) -> Option<NodeId> {
        self.is_single().then(|| self.chunks[0].ids[0])
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = NodeId> + '_ {
        self.chunks.iter().flat_map(|c| c.ids.iter().copied())
    }

    /// Rows of every child's subtree.
    pub fn rows(&self) -> u64 {
        self.chunks.iter().map(|c| c.rows).sum()
    }

    /// The chunk a child with this key is in, or would go into. `cmp(c)` orders child `c`
    /// against the key.
    fn chunk_for(&self, cmp: &impl Fn(NodeId) -> Ordering) -> usize {
        let i = self
            .chunks
            .partition_point(|c| cmp(*c.ids.last().expect("chunks are never empty")).is_lt());
        i.min(self.chunks.len().saturating_sub(1))
    }

    /// Puts `id` (with `rows` visible rows) into its sorted place; `rows_of` gives any
    /// child's rows (to split a full chunk).
    pub fn insert(
        &mut self,
        id: NodeId,
        rows: u64,
        cmp: impl Fn(NodeId) -> Ordering,
        rows_of: impl Fn(NodeId) -> u64,
    ) {
        if self.chunks.is_empty() {
            self.chunks.push(Chunk {
                ids: vec![id],
                rows,
            });
            return;
        }
        let ci = self.chunk_for(&cmp);
        let chunk = &mut self.chunks[ci];
        let at = chunk.ids.partition_point(|&c| cmp(c).is_lt());
        chunk.ids.insert(at, id);
        chunk.rows += rows;
        if chunk.ids.len() > 2 * CHUNK {
            let tail = chunk.ids.split_off(CHUNK);
            let tail_rows: u64 = tail.iter().map(|&c| rows_of(c)).sum();
            chunk.rows -= tail_rows;
            self.chunks.insert(
                ci + 1,
                Chunk {
                    ids: tail,
                    rows: tail_rows,
                },
            );
        }
    }

    /// Takes `id` (with `rows` visible rows) out; `cmp` finds its place. A chunk left empty
    /// goes, so every chunk keeps a last child to search by.
    pub fn remove(&mut self, id: NodeId, rows: u64, cmp: impl Fn(NodeId) -> Ordering) {
        if self.chunks.is_empty() {
            return;
        }
        let ci = self.chunk_for(&cmp);
        let chunk = &mut self.chunks[ci];
        let Some(at) = chunk.ids.iter().position(|&c| c == id) else {
            return;
        };
        chunk.ids.remove(at);
        chunk.rows -= rows.min(chunk.rows);
        if chunk.ids.is_empty() {
            self.chunks.remove(ci);
        }
    }

    /// Adds `delta` to the rows of the chunk holding the child `cmp` finds.
    pub fn adjust(&mut self, delta: i64, cmp: impl Fn(NodeId) -> Ordering) {
        if self.chunks.is_empty() {
            return;
        }
        let ci = self.chunk_for(&cmp);
        let chunk = &mut self.chunks[ci];
        chunk.rows = chunk.rows.wrapping_add_signed(delta);
    }

    /// Recomputes every chunk's rows.
    pub fn recount(&mut self, rows_of: impl Fn(NodeId) -> u64) {
        for c in &mut self.chunks {
            c.rows = c.ids.iter().map(|&i| rows_of(i)).sum();
        }
    }

    /// The child whose subtree holds row `k` (counting the children's rows in order), and
    /// `k` within that subtree: (chunk, position, k).
    pub fn seek(&self, mut k: u64, rows_of: impl Fn(NodeId) -> u64) -> Option<(usize, usize, u64)> {
        for (ci, chunk) in self.chunks.iter().enumerate() {
            if k >= chunk.rows {
                k -= chunk.rows;
                continue;
            }
            for (pos, &id) in chunk.ids.iter().enumerate() {
                let r = rows_of(id);
                if k < r {
                    return Some((ci, pos, k));
                }
                k -= r;
            }
            return None; // the sums disagree with the children (never)
        }
        None
    }

    /// As [`Children::seek`], counting every child's rows itself instead of trusting the
    /// chunks' sums (a filtered tree's rows are not in them): O(children).
    pub fn seek_each(
        &self,
        mut k: u64,
        rows_of: impl Fn(NodeId) -> u64,
    ) -> Option<(usize, usize, u64)> {
        for (ci, chunk) in self.chunks.iter().enumerate() {
            for (pos, &id) in chunk.ids.iter().enumerate() {
                let r = rows_of(id);
                if k < r {
                    return Some((ci, pos, k));
                }
                k -= r;
            }
        }
        None
    }

    /// Rows of the children before `id` (which `cmp` finds).
    pub fn rows_before(
        &self,
        id: NodeId,
        cmp: impl Fn(NodeId) -> Ordering,
        rows_of: impl Fn(NodeId) -> u64,
    ) -> u64 {
        if self.chunks.is_empty() {
            return 0;
        }
        let ci = self.chunk_for(&cmp);
        let before: u64 = self.chunks[..ci].iter().map(|c| c.rows).sum();
        let within: u64 = self.chunks[ci]
            .ids
            .iter()
            .take_while(|&&c| c != id)
            .map(|&c| rows_of(c))
            .sum();
        before + within
    }

    /// The child at (chunk, position), if any.
    pub fn at(&self, chunk: usize, pos: usize) -> Option<NodeId> {
        self.chunks.get(chunk)?.ids.get(pos).copied()
    }

    /// The position after (chunk, position), if there is a child there.
    pub fn next(&self, chunk: usize, pos: usize) -> Option<(usize, usize)> {
        let c = self.chunks.get(chunk)?;
        if pos + 1 < c.ids.len() {
            Some((chunk, pos + 1))
        } else {
            (chunk + 1 < self.chunks.len()).then_some((chunk + 1, 0))
        }
    }
}
