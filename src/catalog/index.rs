//! A hash index that holds only ids (4 bytes each) and reads each id's key from the arena the
//! id points into (the URI tree's nodes, the catalogue's items): a third of the memory of a
//! map with the key copied in.
//!
//! It is split into [`SHARDS`] tables by the hash's top bits. A table grows by rehashing all
//! it holds, and rehashing reads every key back from the arena (random reads); one table of a
//! million ids took over 400 ms to grow, on the UI thread, while a page was being added. A
//! shard holds 1/256 of the ids, so growing it costs about a millisecond at a million.
//!
//! Shards are shared between copies of an index and copied only when written: an index
//! cloned to add one id (a catalogue that adopted a listing and adds an expansion to it)
//! copies the one shard the id goes to, not every id.

use std::hash::{BuildHasher, Hash};
use std::sync::Arc;

use hashbrown::HashTable;

pub(crate) const SHARDS: usize = 256;

#[derive(Debug, Clone, Default)]
pub struct IdIndex {
    /// Empty until the first id (a catalogue has many small indices: one per server); each
    /// shared with the index's copies until written.
    shards: Vec<Arc<HashTable<u32>>>,
    /// Seeded per process, so a server cannot choose URIs that collide.
    state: foldhash::fast::RandomState,
}

impl IdIndex {
    fn shard(hash: u64) -> usize {
        (hash >> 56) as usize % SHARDS
    }

    /// The id with this key: among the ids whose key hashes alike, the one `is_key` accepts.
    pub fn find(&self, key: impl Hash, mut is_key: impl FnMut(u32) -> bool) -> Option<u32> {
        let hash = self.state.hash_one(key);
        self.shards
            .get(Self::shard(hash))?
            .find(hash, |&id| is_key(id))
            .copied()
    }

    /// Adds an id whose key is not in the index yet; `key_of` gives the key of an id already
    /// in it (to rehash its shard when the shard grows).
    pub fn insert<K: Hash>(&mut self, key: K, id: u32, key_of: impl Fn(u32) -> K) {
        if self.shards.is_empty() {
            self.shards.resize_with(SHARDS, Arc::default);
        }
        let state = &self.state;
        let hash = state.hash_one(key);
        Arc::make_mut(&mut self.shards[Self::shard(hash)])
            .insert_unique(hash, id, |&other| state.hash_one(key_of(other)));
    }
}

impl IdIndex {
    /// How many shards both hold in the same memory.
    #[cfg(test)]
    pub(crate) fn shards_shared(&self, other: &IdIndex) -> usize {
        self.shards
            .iter()
            .zip(&other.shards)
            .filter(|(a, b)| Arc::ptr_eq(a, b))
            .count()
    }

    /// Gives every id the one `to` says (`None`: takes it out); the keys stay, so nothing is
    /// rehashed and no key is read. One pass over the ids.
    pub fn remap(&mut self, mut to: impl FnMut(u32) -> Option<u32>) {
        for shard in &mut self.shards {
            Arc::make_mut(shard).retain(|id| match to(*id) {
                Some(new) => {
                    *id = new;
                    true
                }
                None => false,
            });
        }
    }

    /// Takes out the id with this key (see [`IdIndex::find`]); true if there was one.
    pub fn remove(&mut self, key: impl Hash, mut is_key: impl FnMut(u32) -> bool) -> bool {
        let hash = self.state.hash_one(key);
        let Some(shard) = self.shards.get_mut(Self::shard(hash)) else {
            return false;
        };
        if shard.find(hash, |&id| is_key(id)).is_none() {
            return false;
        }
        match Arc::make_mut(shard).find_entry(hash, |&id| is_key(id)) {
            Ok(entry) => {
                entry.remove();
                true
            }
            Err(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_key_and_no_other() {
        let keys: Vec<String> = (0..20_000).map(|i| format!("x://{i}")).collect();
        let mut index = IdIndex::default();
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(index.find(k.as_str(), |id| keys[id as usize] == *k), None);
            index.insert(k.as_str(), i as u32, |id| keys[id as usize].as_str());
        }
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(
                index.find(k.as_str(), |id| keys[id as usize] == *k),
                Some(i as u32)
            );
        }
        assert_eq!(
            index.find("x://20000", |id| keys[id as usize] == "x://20000"),
            None
        );
        assert!(
            index.shards.iter().filter(|s| !s.is_empty()).count() > SHARDS / 2,
            "ids spread over the shards"
        );
        // Taken out, a key is not found; the others are.
        assert!(index.remove("x://7", |id| keys[id as usize] == "x://7"));
        assert!(!index.remove("x://7", |id| keys[id as usize] == "x://7"));
        assert_eq!(index.find("x://7", |id| keys[id as usize] == "x://7"), None);
        assert_eq!(
            index.find("x://8", |id| keys[id as usize] == "x://8"),
            Some(8)
        );
        // Remapped: every key at its new id, the one mapped to nothing gone.
        let moved: Vec<&String> = keys.iter().rev().collect();
        let last = keys.len() as u32 - 1;
        index.remap(|id| (id != 9).then(|| last - id));
        for (i, k) in moved.iter().enumerate() {
            let found = index.find(k.as_str(), |id| *moved[id as usize] == **k);
            let gone = ["x://7", "x://9"].contains(&k.as_str());
            assert_eq!(found, (!gone).then_some(i as u32), "{k}");
        }
    }
}
