//! A set of squares as a 256-bit mask over the grid.

use std::fmt;

use crate::square::Square;

/// A set of squares (one bit per grid cell).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct SquareSet([u64; 4]);

impl SquareSet {
    /// The empty set.
    pub const EMPTY: SquareSet = SquareSet([0; 4]);

    /// Whether `sq` is in the set.
    #[inline]
    pub const fn contains(&self, sq: Square) -> bool {
        let c = sq.cell();
        self.0[(c >> 6) as usize] >> (c & 63) & 1 != 0
    }

    /// Adds `sq`.
    #[inline]
    pub fn insert(&mut self, sq: Square) {
        let c = sq.cell();
        self.0[(c >> 6) as usize] |= 1 << (c & 63);
    }

    /// Removes `sq`.
    #[inline]
    pub fn remove(&mut self, sq: Square) {
        let c = sq.cell();
        self.0[(c >> 6) as usize] &= !(1 << (c & 63));
    }

    /// How many squares the set holds.
    #[inline]
    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    /// The squares in both sets.
    #[inline]
    pub const fn intersection(self, other: SquareSet) -> SquareSet {
        let (a, b) = (self.0, other.0);
        SquareSet([a[0] & b[0], a[1] & b[1], a[2] & b[2], a[3] & b[3]])
    }

    /// The squares in either set.
    #[inline]
    pub const fn union(self, other: SquareSet) -> SquareSet {
        let (a, b) = (self.0, other.0);
        SquareSet([a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]])
    }

    /// The squares in grid order (rank 1 first, file a first within a rank).
    #[inline]
    pub fn iter(&self) -> SquareSetIter {
        SquareSetIter {
            words: self.0,
            word: 0,
        }
    }
}

impl FromIterator<Square> for SquareSet {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> SquareSet {
        let mut set = SquareSet::EMPTY;
        for sq in iter {
            set.insert(sq);
        }
        set
    }
}

impl IntoIterator for SquareSet {
    type Item = Square;
    type IntoIter = SquareSetIter;
    fn into_iter(self) -> SquareSetIter {
        self.iter()
    }
}

impl fmt::Debug for SquareSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Iterates the squares of a [`SquareSet`].
#[derive(Clone, Debug)]
pub struct SquareSetIter {
    words: [u64; 4],
    word: usize,
}

impl Iterator for SquareSetIter {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        while self.word < 4 {
            let w = self.words[self.word];
            if w != 0 {
                self.words[self.word] = w & (w - 1);
                return Some(Square::from_cell(
                    (self.word as u8) << 6 | w.trailing_zeros() as u8,
                ));
            }
            self.word += 1;
        }
        None
    }
}
