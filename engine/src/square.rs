//! Squares and the padded grid that both boards live on.
//!
//! Every square of both boards is a cell of one 16×16 grid: cell `(rank + 1) * 16 + file`. The
//! cross board uses files and ranks 0–13, the classic board 0–7. Rows 0 and 15 and columns 14 and
//! 15 are never squares, so stepping off the board by up to two files or ranks (with wrapping
//! `u8` arithmetic) always lands on a wall cell: move generation needs no bounds checks.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

/// A square of the cross board's 14×14 grid (the classic board uses files a–h and ranks 1–8).
///
/// A `Square` names a grid coordinate; whether it is a real square depends on the board (the
/// cross board has no corners): see [`crate::BoardKind::contains`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square(u8);

impl Square {
    /// The square at `file` and `rank` (both 0-based, 0–13), if inside the 14×14 grid.
    #[inline]
    pub const fn new(file: u8, rank: u8) -> Option<Square> {
        if file < 14 && rank < 14 {
            Some(Square((rank + 1) * 16 + file))
        } else {
            None
        }
    }

    /// The square for a grid cell that is known to be inside the 14×14 grid.
    #[inline]
    pub(crate) const fn from_cell(cell: u8) -> Square {
        Square(cell)
    }

    /// The grid cell (0–255) of the square; used to index board arrays.
    #[inline]
    pub const fn cell(self) -> u8 {
        self.0
    }

    /// The 0-based file (`a` = 0).
    #[inline]
    pub const fn file(self) -> u8 {
        self.0 & 15
    }

    /// The 0-based rank (`1` = 0).
    #[inline]
    pub const fn rank(self) -> u8 {
        (self.0 >> 4) - 1
    }

    /// The square's name, e.g. `h2`, `a11`.
    pub fn name(self) -> String {
        self.as_str().to_owned()
    }

    /// The square's name, from a table: the server writes square names for every move it
    /// sends, and the formatting machinery cost more than the rest of writing them.
    #[inline]
    pub fn as_str(self) -> &'static str {
        let (name, len) = &SQUARE_NAMES[usize::from(self.0)];
        // The table holds ASCII only.
        std::str::from_utf8(&name[..usize::from(*len)]).unwrap_or_default()
    }

    /// The name padded to three bytes, and its length: for writers that copy a fixed three
    /// bytes and move on by the length.
    #[inline]
    pub(crate) fn padded_name(self) -> ([u8; 3], u8) {
        SQUARE_NAMES[usize::from(self.0)]
    }
}

/// The name of the square on every cell of the 16×16 grid (cell `(rank + 1) * 16 + file`),
/// padded to three bytes, and its length. Cells that are not squares are never looked up.
static SQUARE_NAMES: [([u8; 3], u8); 256] = {
    let mut names = [([0u8; 3], 0u8); 256];
    let mut cell = 0;
    while cell < 256 {
        let file = (cell & 15) as u8;
        let rank = (cell >> 4) as u8;
        if file < 14 && rank >= 1 && rank <= 14 {
            // Ranks are written from 1 to 14.
            names[cell] = if rank >= 10 {
                ([b'a' + file, b'1', b'0' + rank % 10], 3)
            } else {
                ([b'a' + file, b'0' + rank, 0], 2)
            };
        }
        cell += 1;
    }
    names
};

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A square name that is not a file `a`–`n` followed by a rank `1`–`14`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("invalid square name {0:?}: expected a file a-n and a rank 1-14, like h2 or a11")]
pub struct ParseSquareError(pub String);

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError(s.to_owned());
        let bytes = s.as_bytes();
        let (&file, digits) = bytes.split_first().ok_or_else(err)?;
        if !(b'a'..=b'n').contains(&file)
            || digits.is_empty()
            || digits.len() > 2
            || digits[0] == b'0'
        {
            return Err(err());
        }
        if !digits.iter().all(u8::is_ascii_digit) {
            return Err(err());
        }
        let rank: u8 = digits.iter().fold(0, |acc, d| acc * 10 + (d - b'0'));
        if !(1..=14).contains(&rank) {
            return Err(err());
        }
        Square::new(file - b'a', rank - 1).ok_or_else(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in ["a4", "h2", "a11", "n14", "d1"] {
            let sq: Square = name.parse().unwrap();
            assert_eq!(sq.to_string(), name);
        }
        assert_eq!("h2".parse::<Square>().unwrap(), Square::new(7, 1).unwrap());
    }

    #[test]
    fn bad_names_are_errors() {
        for name in ["", "o1", "a0", "a15", "a", "a01", "h2x", "A1"] {
            assert!(name.parse::<Square>().is_err(), "{name}");
        }
    }
}
