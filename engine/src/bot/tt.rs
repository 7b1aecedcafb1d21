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

// The entry word: move (24 bits) | score + OFFSET (20 bits) | depth + 128 (8 bits) | bound (2 bits).
const SCORE_SHIFT: u32 = 24;
const DEPTH_SHIFT: u32 = 44;
const BOUND_SHIFT: u32 = 52;
const SCORE_OFFSET: i32 = 1 << 19;

fn pack(mv: Option<Move>, score: i32, depth: i8, bound: Bound) -> u64 {
    let mv = mv.map_or(0, Move::to_bits) as u64;
    let score = (score.clamp(-SCORE_OFFSET + 1, SCORE_OFFSET - 1) + SCORE_OFFSET) as u64;
    let depth = (i32::from(depth) + 128) as u64;
    mv | score << SCORE_SHIFT | depth << DEPTH_SHIFT | (bound as u64) << BOUND_SHIFT
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

/// A fixed-size table, one entry per slot, replaced unless the slot holds a deeper entry of the
/// same position (entries of other positions are always replaced, which keeps the table fresh).
pub(crate) struct Table {
    /// Key and entry of each slot, side by side.
    words: Vec<u64>,
    mask: usize,
}

impl Table {
    /// The memory one slot takes: a key and an entry.
    pub(crate) const SLOT_BYTES: usize = 16;

    /// A table of at least `min_entries` slots (rounded up to a power of two).
    pub(crate) fn new(min_entries: usize) -> Table {
        let size = min_entries.max(1024).next_power_of_two();
        Table {
            words: vec![0; 2 * size],
            mask: size - 1,
        }
    }

    /// How many slots the table has.
    pub(crate) fn slots(&self) -> usize {
        self.mask + 1
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        // The low bits choose the slot; the whole key is checked on a hit.
        2 * ((key as usize) & self.mask)
    }

    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Hit> {
        let i = self.slot(key);
        if self.words[i] != key {
            return None;
        }
        unpack(self.words[i + 1])
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
        let i = self.slot(key);
        let old = (self.words[i] == key)
            .then(|| unpack(self.words[i + 1]))
            .flatten();
        if old.is_some_and(|e| e.depth > depth) {
            return;
        }
        // Without a better move, keep the one this position had.
        let mv = mv.or_else(|| old.and_then(|e| e.mv));
        self.words[i] = key;
        self.words[i + 1] = pack(mv, score, depth, bound);
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
        // Another position in the same slot replaces it.
        let other = key ^ (1 << 40);
        t.store(other, None, 7, 0, Bound::Upper);
        assert!(t.probe(key).is_none());
        assert_eq!(t.probe(other).unwrap().score, 7);
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
            let hit = unpack(pack(Some(mv), score, depth, bound)).unwrap();
            assert_eq!(
                (hit.mv, hit.score, hit.depth, hit.bound),
                (Some(mv), score, depth, bound)
            );
        }
    }
}
