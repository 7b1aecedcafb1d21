//! The transposition table: what earlier visits of a position found, keyed by its hash.

use crate::moves::Move;

/// How an entry's score relates to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bound {
    /// The true value.
    Exact,
    /// The true value is at least the score (the search failed high).
    Lower,
    /// The true value is at most the score (the search failed low).
    Upper,
}

#[derive(Clone, Copy)]
struct Entry {
    key: u64,
    mv: Option<Move>,
    score: i32,
    depth: i8,
    bound: Bound,
}

/// A found entry.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    pub(crate) mv: Option<Move>,
    pub(crate) score: i32,
    pub(crate) depth: i8,
    pub(crate) bound: Bound,
}

/// A fixed-size table, one entry per slot, replaced when the new entry is at least as deep or the
/// slot holds another position (depth-preferred with always-replace for collisions keeps the
/// table fresh without losing the expensive entries of the current position).
pub(crate) struct Table {
    entries: Vec<Option<Entry>>,
    mask: usize,
}

impl Table {
    /// A table of at least `min_entries` slots (rounded up to a power of two).
    pub(crate) fn new(min_entries: usize) -> Table {
        let size = min_entries.max(1024).next_power_of_two();
        Table {
            entries: vec![None; size],
            mask: size - 1,
        }
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        // The low bits choose the slot; the whole key is checked on a hit.
        (key as usize) & self.mask
    }

    #[inline]
    pub(crate) fn probe(&self, key: u64) -> Option<Hit> {
        let e = self.entries[self.slot(key)]?;
        (e.key == key).then_some(Hit {
            mv: e.mv,
            score: e.score,
            depth: e.depth,
            bound: e.bound,
        })
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
        let slot = self.slot(key);
        let keep = self.entries[slot].is_some_and(|e| e.key == key && e.depth > depth);
        if !keep {
            // Without a better move, keep the one this position had.
            let mv = mv.or_else(|| {
                self.entries[slot]
                    .filter(|e| e.key == key)
                    .and_then(|e| e.mv)
            });
            self.entries[slot] = Some(Entry {
                key,
                mv,
                score,
                depth,
                bound,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
