//! Moves in coordinate form, as the protocol and UCI write them: the from-square, the to-square
//! and for a promotion the new piece's letter, all lower case (`h2h4`, `h10h11q`, `e7e8n`; a
//! castle is the king's move). The one place that reads and writes them.
//!
//! Reading is strict, because a client that sends something else has a bug to hear about: a text
//! that is not two square names of the board and an optional promotion letter `q`, `r`, `b` or
//! `n`, all lower case, is an error. Whether a well-formed move can be played (a promotion letter
//! the rules forbid included) is the game's to say.

use thiserror::Error;

use crate::geometry::BoardKind;
use crate::moves::Move;
use crate::piece::Role;
use crate::square::Square;

/// Why a text is not a move in coordinate form on a board.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CoordinateError {
    /// Not two square names and an optional promotion letter, all lower case.
    #[error(
        "{0:?} is not a move in coordinate form: two squares and an optional promotion letter \
         (q, r, b, n), lower case, like h2h4 or h13h14q"
    )]
    Malformed(String),
    /// A square name that is not a square of the board: off it, or a removed corner of the
    /// cross board.
    #[error("{0} is not a square of this board")]
    NotASquare(String),
}

/// A move in coordinate form, read: its squares and promotion. Which legal move it names is
/// found with [`Coordinate::find_in`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Coordinate {
    /// The square the piece leaves.
    pub from: Square,
    /// The square it goes to.
    pub to: Square,
    /// The piece a pawn becomes.
    pub promotion: Option<Role>,
}

impl Coordinate {
    /// Whether `mv` is the move this names.
    pub fn names(self, mv: Move) -> bool {
        mv.from() == self.from && mv.to() == self.to && mv.promotion() == self.promotion
    }

    /// The move of `moves` this names.
    pub fn find_in(self, moves: &[Move]) -> Option<Move> {
        moves.iter().copied().find(|&mv| self.names(mv))
    }
}

/// Reads `text` as a move in coordinate form on `board`.
pub fn parse_coordinate(text: &str, board: BoardKind) -> Result<Coordinate, CoordinateError> {
    let malformed = || CoordinateError::Malformed(text.to_owned());
    let (from, rest) = split_square(text).ok_or_else(malformed)?;
    let (to, rest) = split_square(rest).ok_or_else(malformed)?;
    let promotion = match rest {
        "" => None,
        "q" => Some(Role::Queen),
        "r" => Some(Role::Rook),
        "b" => Some(Role::Bishop),
        "n" => Some(Role::Knight),
        _ => return Err(malformed()),
    };
    let square = |name: &str| {
        name.parse::<Square>()
            .ok()
            .filter(|&sq| board.contains(sq))
            .ok_or_else(|| CoordinateError::NotASquare(name.to_owned()))
    };
    Ok(Coordinate {
        from: square(from)?,
        to: square(to)?,
        promotion,
    })
}

/// The square name at the start of `text` (a lower-case letter and one or two digits) and what
/// follows it.
fn split_square(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    if !bytes.first()?.is_ascii_lowercase() {
        return None;
    }
    let digits = bytes[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    (1..=2).contains(&digits).then(|| text.split_at(1 + digits))
}

/// The most bytes a move takes in coordinate form: two three-byte square names and a letter.
pub const MAX_COORDINATE_LEN: usize = 7;

/// `mv` in coordinate form.
pub fn write_coordinate(mv: Move) -> String {
    let mut bytes = [0; MAX_COORDINATE_LEN];
    let len = coordinate_bytes(mv, &mut bytes);
    // Square names and promotion letters are ASCII.
    String::from_utf8_lossy(&bytes[..len]).into_owned()
}

/// Writes `mv` in coordinate form at the start of `out` and says how many bytes it wrote: what
/// the server's frames of legal moves are made of, so it is written from a table of square names
/// without the formatting machinery.
#[inline]
pub fn coordinate_bytes(mv: Move, out: &mut [u8; MAX_COORDINATE_LEN]) -> usize {
    let mut len = 0;
    for square in [mv.from(), mv.to()] {
        let (name, name_len) = square.padded_name();
        // Three bytes are always copied and the length moves on by the name's own: copies of a
        // fixed size are a few instructions.
        out[len..len + 3].copy_from_slice(&name);
        len += usize::from(name_len);
    }
    if let Some(role) = mv.promotion() {
        out[len] = role.upper_char().to_ascii_lowercase() as u8;
        len += 1;
    }
    len
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::MoveKind;

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn every_square_of_both_boards_is_written_and_read_back() {
        for board in [BoardKind::Cross, BoardKind::Classic] {
            for from in board.squares() {
                let to = board.squares().next().unwrap();
                for promotion in [None, Some(Role::Queen), Some(Role::Knight)] {
                    let mv = Move::new(from, to, MoveKind::Normal, promotion);
                    let text = write_coordinate(mv);
                    let letter = promotion.map(|r| r.upper_char().to_ascii_lowercase());
                    let expected = format!(
                        "{}{}{}",
                        from.name(),
                        to.name(),
                        letter.map_or(String::new(), String::from)
                    );
                    assert_eq!(text, expected);
                    let read = parse_coordinate(&text, board).unwrap();
                    assert!(read.names(mv), "{text}");
                }
            }
        }
    }

    #[test]
    fn what_is_not_a_move_in_coordinate_form_says_why() {
        let cross = BoardKind::Cross;
        let malformed = |t: &str| CoordinateError::Malformed(t.to_owned());
        let off = |t: &str| CoordinateError::NotASquare(t.to_owned());
        for (text, board, expected) in [
            ("h2h4", cross, Ok((sq("h2"), sq("h4"), None))),
            (
                "h13h14q",
                cross,
                Ok((sq("h13"), sq("h14"), Some(Role::Queen))),
            ),
            (
                "e7e8n",
                BoardKind::Classic,
                Ok((sq("e7"), sq("e8"), Some(Role::Knight))),
            ),
            // A promotion letter on a move that promotes nothing is well formed: illegal, not
            // malformed.
            ("h2h4q", cross, Ok((sq("h2"), sq("h4"), Some(Role::Queen)))),
            ("H2H4", cross, Err(malformed("H2H4"))),
            ("h2H4", cross, Err(malformed("h2H4"))),
            ("h2h4Q", cross, Err(malformed("h2h4Q"))),
            (" h2h4", cross, Err(malformed(" h2h4"))),
            ("h2h4 ", cross, Err(malformed("h2h4 "))),
            ("h2-h4", cross, Err(malformed("h2-h4"))),
            ("", cross, Err(malformed(""))),
            ("h2", cross, Err(malformed("h2"))),
            ("h2h4k", cross, Err(malformed("h2h4k"))),
            ("h2h4qq", cross, Err(malformed("h2h4qq"))),
            ("h100h4", cross, Err(malformed("h100h4"))),
            ("h2h4\u{e9}", cross, Err(malformed("h2h4\u{e9}"))),
            ("\u{e9}2h4", cross, Err(malformed("\u{e9}2h4"))),
            ("a1a2", cross, Err(off("a1"))),
            ("d4n14", cross, Err(off("n14"))),
            ("o1o2", cross, Err(off("o1"))),
            ("h15h14", cross, Err(off("h15"))),
            ("h0h1", cross, Err(off("h0"))),
            ("h02h4", cross, Err(off("h02"))),
            ("i2i4", BoardKind::Classic, Err(off("i2"))),
            ("a8a9", BoardKind::Classic, Err(off("a9"))),
        ] {
            let read = parse_coordinate(text, board).map(|c| (c.from, c.to, c.promotion));
            assert_eq!(read, expected, "{text:?}");
        }
    }
}
