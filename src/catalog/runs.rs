//! A list of item ids in a given order, kept as runs: ids of one server with consecutive
//! indexes, as a catalogue (or a snapshot of it) gives them in its own order, cost one run
//! (12 bytes), not 8 bytes an id. A resolution of a million candidates keeps its candidates'
//! ids this way.

use super::store::ItemId;

/// One run: `len` ids from `first` on (same server, index + 1 each), from position `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    at: u32,
    first: ItemId,
}

/// Ids by position, as runs. Built once, in order ([`FromIterator`]); read by position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdRuns {
    runs: Vec<Run>,
    len: u32,
}

impl IdRuns {
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The id at `position`.
    pub fn get(&self, position: usize) -> Option<ItemId> {
        let position = u32::try_from(position).ok().filter(|&p| p < self.len)?;
        // The last run starting at or before `position`.
        let run = self.runs[self.runs.partition_point(|r| r.at <= position) - 1];
        Some(ItemId {
            server: run.first.server,
            index: run.first.index + (position - run.at),
        })
    }

    /// Every id, in order.
    pub fn iter(&self) -> impl Iterator<Item = ItemId> + '_ {
        (0..self.len()).filter_map(|p| self.get(p))
    }

    fn push(&mut self, id: ItemId) {
        let extends = self.runs.last().is_some_and(|r| {
            r.first.server == id.server
                && u64::from(r.first.index) + u64::from(self.len - r.at) == u64::from(id.index)
        });
        if !extends {
            self.runs.push(Run {
                at: self.len,
                first: id,
            });
        }
        self.len += 1;
    }
}

impl FromIterator<ItemId> for IdRuns {
    fn from_iter<I: IntoIterator<Item = ItemId>>(ids: I) -> Self {
        let mut runs = IdRuns::default();
        for id in ids {
            runs.push(id);
        }
        runs.runs.shrink_to_fit();
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn id(server: u16, index: u32) -> ItemId {
        ItemId { server, index }
    }

    #[test]
    fn consecutive_ids_of_a_server_are_one_run() {
        let ids: Vec<ItemId> = (0..1000)
            .map(|i| id(0, i))
            .chain([id(1, 5), id(1, 6)])
            .collect();
        let runs: IdRuns = ids.iter().copied().collect();
        assert_eq!(runs.runs.len(), 2);
        assert_eq!(runs.len(), 1002);
        assert_eq!(runs.get(999), Some(id(0, 999)));
        assert_eq!(runs.get(1001), Some(id(1, 6)));
        assert_eq!(runs.get(1002), None);
    }

    proptest! {
        /// Whatever the ids (gaps where items were removed, servers interleaved), every
        /// position gives back the id pushed there.
        #[test]
        fn every_position_gives_back_its_id(
            ids in proptest::collection::vec((0u16..3, 0u32..50), 0..200)
        ) {
            let ids: Vec<ItemId> = ids.into_iter().map(|(s, i)| id(s, i)).collect();
            let runs: IdRuns = ids.iter().copied().collect();
            prop_assert_eq!(runs.len(), ids.len());
            for (position, want) in ids.iter().enumerate() {
                prop_assert_eq!(runs.get(position), Some(*want));
            }
            prop_assert_eq!(runs.get(ids.len()), None);
        }
    }
}
