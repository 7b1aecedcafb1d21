//! The transposition table: what earlier visits of a position found, keyed by its hash.
//!
//! Each slot is two words, the key and the packed entry, all zero when empty: the table is a
//! zeroed allocation, which the system hands out lazily, so even a large table costs nothing to
//! make for a search that ends up small (a profile showed building a table of `Option`s taking
//! longer than short searches themselves).

use crate::moves::Move;

/// How an entry's score relates to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The true value.
    Exact = 1,
    /// The true value is at least the score (the search failed high).
    Lower = 2,
    /// The true value is at most the score (the search failed low).
    Upper = 3,
}

/// A found entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    pub(crate) mv: Option<Move>,
    pub(crate) score: i32,
    pub(crate) depth: i8,
    pub(crate) bound: Bound,
}

// The entry word: move (24 bits) | score + OFFSET (20 bits) | depth + 128 (8 bits) | bound (2 bits)
// | generation (6 bits).
const SCORE_SHIFT: u32 = 24;
const DEPTH_SHIFT: u32 = 44;
const BOUND_SHIFT: u32 = 52;
const GENERATION_SHIFT: u32 = 54;
const GENERATIONS: u8 = 64;
const SCORE_OFFSET: i32 = 1 << 19;

fn pack(mv: Option<Move>, score: i32, depth: i8, bound: Bound, generation: u8) -> u64 {
    let mv = mv.map_or(0, Move::to_bits) as u64;
    let score = (score.clamp(-SCORE_OFFSET + 1, SCORE_OFFSET - 1) + SCORE_OFFSET) as u64;
    let depth = (i32::from(depth) + 128) as u64;
    mv | score << SCORE_SHIFT
        | depth << DEPTH_SHIFT
        | (bound as u64) << BOUND_SHIFT
        | u64::from(generation) << GENERATION_SHIFT
}

fn unpack(word: u64) -> Option<Hit> {
    let bound = match word >> BOUND_SHIFT & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    let mv = (word & 0xff_ffff) as u32;
    Some(Hit {
        mv: (mv != 0).then(|| Move::from_bits(mv)),
        score: ((word >> SCORE_SHIFT) & 0xf_ffff) as i32 - SCORE_OFFSET,
        depth: (((word >> DEPTH_SHIFT) & 0xff) as i32 - 128) as i8,
        bound,
    })
}

fn generation_of(word: u64) -> u8 {
    (word >> GENERATION_SHIFT) as u8 & (GENERATIONS - 1)
}

/// Plies of depth that one search of age weigh against an entry when a slot is chosen for
/// another position.
const AGE_WEIGHT: i32 = 8;

/// A fixed-size table of two-slot buckets. A position is looked for in both slots of its bucket;
/// a new one takes the slot whose entry is worth less (shallower, or left by an earlier search),
/// so the deep entries near the root survive the many shallow ones stored near the leaves, and a
/// table kept from move to move (see `SearchMemory`) does not fill up with the deep entries of
/// old searches. An entry of the same position is replaced unless it is deeper.
pub(crate) struct Table {
    /// Key and entry of each slot, side by side, two slots a bucket.
    words: Vec<u64>,
    /// Buckets less one.
    mask: usize,
    /// The search storing now, stamped on its entries (wrapping).
    generation: u8,
}

impl Table {
    /// The memory one slot takes: a key and an entry.
    pub(crate) const SLOT_BYTES: usize = 16;

    /// A table of at least `min_entries` slots (rounded up to a power of two).
    pub(crate) fn new(min_entries: usize) -> Table {
        let buckets = (min_entries / 2).max(512).next_power_of_two();
        Table {
            words: vec![0; 4 * buckets],
            mask: buckets - 1,
            generation: 0,
        }
    }

    /// How many slots the table has.
    pub(crate) fn slots(&self) -> usize {
        2 * (self.mask + 1)
    }

    /// Marks the entries stored from now on as those of a new search.
    pub(crate) fn next_search(&mut self) {
        self.generation = (self.generation + 1) % GENERATIONS;
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        // The low bits choose the bucket; the whole key is checked on a hit.
        4 * ((key as usize) & self.mask)
    }

    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Hit> {
        let i = self.bucket(key);
        if self.words[i] == key {
            unpack(self.words[i + 1])
        } else if self.words[i + 2] == key {
            unpack(self.words[i + 3])
        } else {
            None
        }
    }

    #[inline]
    pub(crate) fn store(
        &mut self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        depth: i8,
        bound: Bound,
    ) {
        let bucket = self.bucket(key);
        let slot = if self.words[bucket + 2] == key {
            bucket + 2
        } else if self.words[bucket] == key {
            bucket
        } else {
            let worth_0 = self.worth(self.words[bucket + 1]);
            let worth_1 = self.worth(self.words[bucket + 3]);
            if worth_1 < worth_0 {
                bucket + 2
            } else {
                bucket
            }
        };
        let old = (self.words[slot] == key)
            .then(|| unpack(self.words[slot + 1]))
            .flatten();
        if old.is_some_and(|e| e.depth > depth) {
            return;
        }
        // Without a better move, keep the one this position had.
        let mv = mv.or_else(|| old.and_then(|e| e.mv));
        self.words[slot] = key;
        self.words[slot + 1] = pack(mv, score, depth, bound, self.generation);
    }

    /// What keeping an entry is worth: its depth, less for each search since it was stored; an
    /// empty slot is worth least.
    fn worth(&self, word: u64) -> i32 {
        let Some(hit) = unpack(word) else {
            return i32::MIN;
        };
        let age = (self.generation + GENERATIONS - generation_of(word)) % GENERATIONS;
        i32::from(hit.depth) - AGE_WEIGHT * i32::from(age)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::square::Square;

    #[test]
    fn stores_and_finds_and_prefers_depth() {
        let mut t = Table::new(16);
        let key = 0xdead_beef_u64 << 20 | 5;
        assert!(t.probe(key).is_none());
        t.store(key, None, 10, 3, Bound::Exact);
        t.store(key, None, 20, 1, Bound::Lower);
        let hit = t.probe(key).unwrap();
        assert_eq!((hit.score, hit.depth, hit.bound), (10, 3, Bound::Exact));
        // Another position of the same bucket takes the other slot.
        let other = key ^ (1 << 40);
        t.store(other, None, 7, 0, Bound::Upper);
        assert_eq!(t.probe(key).unwrap().score, 10);
        assert_eq!(t.probe(other).unwrap().score, 7);
        // A third replaces the shallower of the two.
        let third = key ^ (1 << 41);
        t.store(third, None, 5, 1, Bound::Lower);
        assert_eq!(t.probe(key).unwrap().score, 10);
        assert!(t.probe(other).is_none());
        assert_eq!(t.probe(third).unwrap().score, 5);
    }

    #[test]
    fn entries_of_earlier_searches_give_way() {
        let mut t = Table::new(16);
        let key = 0xdead_beef_u64 << 20 | 5;
        let deep = key ^ (1 << 40);
        t.store(deep, None, 1, 12, Bound::Exact);
        t.store(key, None, 2, 9, Bound::Exact);
        // In the same search the shallower entry gives way to a newcomer.
        t.store(key ^ (1 << 41), None, 3, 2, Bound::Exact);
        assert!(t.probe(key).is_none());
        assert_eq!(t.probe(deep).unwrap().score, 1);
        // Two searches later the deep entry has aged below a fresh shallow one.
        t.next_search();
        t.next_search();
        t.store(key ^ (1 << 42), None, 4, 1, Bound::Exact);
        t.store(key ^ (1 << 43), None, 5, 1, Bound::Exact);
        assert!(t.probe(deep).is_none());
        assert_eq!(t.probe(key ^ (1 << 43)).unwrap().score, 5);
    }

    #[test]
    fn entries_round_trip() {
        let mv = Move::normal(Square::new(7, 1).unwrap(), Square::new(7, 3).unwrap())
            .promoting(crate::piece::Role::Knight);
        for (score, depth, bound) in [
            (-99_990, -1, Bound::Upper),
            (0, 0, Bound::Exact),
            (99_999, 64, Bound::Lower),
        ] {
            let hit = unpack(pack(Some(mv), score, depth, bound, 63)).unwrap();
            assert_eq!(
                (hit.mv, hit.score, hit.depth, hit.bound),
                (Some(mv), score, depth, bound)
            );
        }
    }
}
