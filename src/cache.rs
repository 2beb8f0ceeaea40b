//! Small shared pieces of the readers: a fast hasher for small keys and a
//! bounded, sharded cache of decompressed blocks.

use crate::index::Subspace;
use std::collections::HashMap;
use std::sync::Mutex;

const SHARDS: usize = 64;

/// A block of one subspace's file: the subspace and the block number.
pub type BlockKey = (Subspace, u32);

/// A hasher for small keys that need no protection from chosen inputs
/// (table and block numbers, position classes): a multiply per word
/// instead of SipHash, which showed in the profile of `verify`.
#[derive(Default)]
pub struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 32)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, k: u64) {
        self.0 = (self.0.rotate_left(5) ^ k).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
    fn write_u32(&mut self, k: u32) {
        self.write_u64(k as u64);
    }
    fn write_u8(&mut self, k: u8) {
        self.write_u64(k as u64);
    }
}

pub type FastMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<FastHasher>>;

/// A bounded cache of decompressed blocks, sharded to keep threads apart.
pub struct BlockCache<B> {
    shards: Vec<Mutex<FastMap<BlockKey, B>>>,
    per_shard: usize,
}

impl<B> BlockCache<B> {
    pub fn new(blocks: usize) -> BlockCache<B> {
        BlockCache {
            shards: (0..SHARDS)
                .map(|_| Mutex::new(FastMap::default()))
                .collect(),
            per_shard: blocks.div_ceil(SHARDS).max(1),
        }
    }

    fn shard(&self, key: &BlockKey) -> &Mutex<FastMap<BlockKey, B>> {
        let h = (key.0.us as usize * 31 + key.0.them as usize) * 7 + key.1 as usize * 13;
        &self.shards[h % SHARDS]
    }

    /// Applies `read` to a decompressed block, loading it first if it is
    /// not cached. `read` runs under the shard's lock: the block is not
    /// shared out, so no reference count is touched (threads probing the
    /// same hot blocks would fight over it). It may complete the entry
    /// (a code block joining its win/draw/loss block).
    pub fn with_block<T, E>(
        &self,
        key: BlockKey,
        load: impl FnOnce() -> Result<B, E>,
        read: impl FnOnce(&mut B) -> T,
    ) -> Result<T, E> {
        let shard = self.shard(&key);
        if let Some(b) = shard
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_mut(&key)
        {
            return Ok(read(b));
        }
        // Decompress outside the lock; two threads may both do it once.
        let mut block = load()?;
        let out = read(&mut block);
        let mut map = shard.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() >= self.per_shard {
            // Evict an arbitrary half: hash order is as good as random here.
            let drop: Vec<BlockKey> = map.keys().take(self.per_shard / 2 + 1).copied().collect();
            for k in drop {
                map.remove(&k);
            }
        }
        map.insert(key, block);
        Ok(out)
    }
}
