//! FEN, the position format of ordinary chess, for Duo on the classic board.
//!
//! White is [`Army::WHITE`] (Red's role: bottom, pawns moving up) and Black is [`Army::BLACK`]
//! (Yellow's role); Blue and Green are [`ArmyStatus::Absent`]. The six fields are the piece
//! placement (rank 8 first), the side to move, the castling rights (`KQkq` or `-`), the en passant
//! square (or `-`), the halfmove clock and the fullmove number. The last two may be left off, as
//! in EPD; they then default to 0 and 1.
//!
//! The en passant square is the square a pawn of the side *not* to move skipped with its double
//! step. It becomes that side's [`EnPassant`] right (skipped = the square, landed = one step
//! further in that pawn's direction) when a pawn of that side stands on the landed square;
//! otherwise the field is ignored, as most readers do. Writing does the reverse: the skipped
//! square of the right of the side not to move, whether or not a capture is possible.
//!
//! FEN does not record whether a piece was promoted: every piece read is unpromoted, and the flag
//! is dropped on writing (it only matters for free-for-all scoring). Castling rights whose king or
//! rook is off its home square are dropped on reading, as python-chess and shakmaty's lenient
//! mode do.
//!
//! ```
//! use fourkings_engine::notation::Fen;
//! use fourkings_engine::{Preset, RuleSet};
//!
//! let fen: Fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1".parse().unwrap();
//! let rules = RuleSet { friendly_capture: false, ..Preset::Duo.rules() };
//! let pos = fen.position(&rules).unwrap();
//! assert_eq!(pos.count_legal_moves(), 20);
//! assert_eq!(Fen::from_position(&pos, fen.fullmove).unwrap(), fen);
//! ```

use std::fmt::{self, Write as _};
use std::str::FromStr;

use thiserror::Error;

use crate::army::{Army, ByArmy};
use crate::geometry::BoardKind;
use crate::piece::{Piece, Role};
use crate::position::{Position, PositionError};
use crate::rules::RuleSet;
use crate::setup::{EnPassant, Setup};
use crate::square::Square;

/// The FEN of the standard chess start position.
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// A position in FEN: an unvalidated classic-board [`Setup`] and the fullmove number, the one FEN
/// field a setup does not hold.
///
/// Read one with [`str::parse`], write one with [`fmt::Display`]; [`Fen::position`] checks it
/// under a rule set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fen {
    /// The position: classic board, White and Black playing, Blue and Green absent.
    pub setup: Setup,
    /// The fullmove number: 1 at the start, counting up after each move of Black.
    pub fullmove: u32,
}

/// A text that is not a FEN: one variant per field, saying which field is wrong.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseFenError {
    /// Not six space-separated fields (or four, without the move counters).
    #[error("a FEN has 6 space-separated fields (or 4 without the move counters), not {0}")]
    FieldCount(usize),
    /// The piece placement does not have eight ranks separated by `/`.
    #[error("the piece placement has {0} ranks separated by '/', not 8")]
    RankCount(usize),
    /// One rank of the piece placement is not eight squares of pieces and empty runs.
    #[error(
        "rank {rank} of the piece placement, {text:?}, is not 8 squares of pieces (PNBRQK, pnbrqk) and empty runs (1-8)"
    )]
    Placement {
        /// The rank as a chess player names it, 1–8 (the first rank written is 8).
        rank: u8,
        /// The text of that rank.
        text: String,
    },
    /// The side to move is not `w` or `b`.
    #[error("the side to move is {0:?}, not w or b")]
    Turn(String),
    /// The castling field is not `-` or some of `KQkq`, each at most once.
    #[error("the castling rights {0:?} are not - or some of KQkq, each at most once")]
    Castling(String),
    /// The en passant field is not `-` or a square on the rank a double step of the side that
    /// just moved skips (rank 3 when Black is to move, rank 6 when White is).
    #[error(
        "the en passant square {0:?} is not - or a square on the rank the last double step skipped"
    )]
    EnPassant(String),
    /// The halfmove clock is not a number from 0 to 65535.
    #[error("the halfmove clock {0:?} is not a number from 0 to 65535")]
    Halfmove(String),
    /// The fullmove number is not a number of at least 1.
    #[error("the fullmove number {0:?} is not a number of at least 1")]
    Fullmove(String),
}

impl Fen {
    /// The FEN of a position on the classic board, with the given fullmove number; `None` for a
    /// position on the cross board, which has no FEN (see FEN4).
    pub fn from_position(pos: &Position, fullmove: u32) -> Option<Fen> {
        (pos.board() == BoardKind::Classic).then(|| Fen {
            setup: pos.to_setup(),
            fullmove,
        })
    }

    /// Checks the setup and makes it a position under `rules` (which must be a Duo rule set).
    pub fn position(&self, rules: &RuleSet) -> Result<Position, PositionError> {
        Position::from_setup(&self.setup, rules)
    }
}

/// The other side of the classic board.
fn other(side: Army) -> Army {
    if side == Army::WHITE {
        Army::BLACK
    } else {
        Army::WHITE
    }
}

/// The FEN letter of a piece: upper case for White, lower case for Black.
fn piece_char(piece: Piece) -> char {
    let c = piece.role.upper_char();
    if piece.army == Army::WHITE {
        c
    } else {
        c.to_ascii_lowercase()
    }
}

/// The piece a FEN letter stands for.
fn char_piece(c: char) -> Option<Piece> {
    let role = Role::from_char(c)?;
    let army = if c.is_ascii_uppercase() {
        Army::WHITE
    } else {
        Army::BLACK
    };
    Some(Piece::new(army, role))
}

/// Reads one rank of the placement (`rank` 0-based, from White's side).
fn parse_rank(
    text: &str,
    rank: u8,
    pieces: &mut Vec<(Square, Piece)>,
) -> Result<(), ParseFenError> {
    let err = || ParseFenError::Placement {
        rank: rank + 1,
        text: text.to_owned(),
    };
    let mut file = 0u8;
    for c in text.chars() {
        if let Some(run) = c.to_digit(10) {
            if !(1..=8).contains(&run) {
                return Err(err());
            }
            file += run as u8;
        } else {
            let piece = char_piece(c).ok_or_else(err)?;
            if file >= 8 {
                return Err(err());
            }
            pieces.push((Square::new(file, rank).ok_or_else(err)?, piece));
            file += 1;
        }
        if file > 8 {
            return Err(err());
        }
    }
    if file == 8 { Ok(()) } else { Err(err()) }
}

/// Reads the castling field into `[king side, queen side]` rights for White and Black.
fn parse_castling(text: &str) -> Result<ByArmy<[bool; 2]>, ParseFenError> {
    let mut castling = ByArmy::<[bool; 2]>::default();
    if text == "-" {
        return Ok(castling);
    }
    let err = || ParseFenError::Castling(text.to_owned());
    if text.is_empty() {
        return Err(err());
    }
    for c in text.chars() {
        let (army, side) = match c {
            'K' => (Army::WHITE, 0),
            'Q' => (Army::WHITE, 1),
            'k' => (Army::BLACK, 0),
            'q' => (Army::BLACK, 1),
            _ => return Err(err()),
        };
        if std::mem::replace(&mut castling[army][side], true) {
            return Err(err());
        }
    }
    Ok(castling)
}

/// Reads the en passant field: the right of the side not to move, if its pawn is there.
fn parse_en_passant(
    text: &str,
    turn: Army,
    pieces: &[(Square, Piece)],
) -> Result<Option<EnPassant>, ParseFenError> {
    if text == "-" {
        return Ok(None);
    }
    let err = || ParseFenError::EnPassant(text.to_owned());
    let bytes = text.as_bytes();
    if bytes.len() != 2 || !(b'a'..=b'h').contains(&bytes[0]) {
        return Err(err());
    }
    let file = bytes[0] - b'a';
    let owner = other(turn);
    // White skips rank 3 and lands on rank 4; Black skips rank 6 and lands on rank 5.
    let (skipped_rank, landed_rank) = if owner == Army::WHITE {
        (b'3', 3)
    } else {
        (b'6', 4)
    };
    if bytes[1] != skipped_rank {
        return Err(err());
    }
    let skipped = Square::new(file, skipped_rank - b'1').ok_or_else(err)?;
    let landed = Square::new(file, landed_rank).ok_or_else(err)?;
    let pawn = Piece::new(owner, Role::Pawn);
    Ok(pieces
        .contains(&(landed, pawn))
        .then_some(EnPassant { skipped, landed }))
}

impl FromStr for Fen {
    type Err = ParseFenError;

    fn from_str(s: &str) -> Result<Fen, ParseFenError> {
        let fields: Vec<&str> = s.split_ascii_whitespace().collect();
        if !matches!(fields.len(), 4 | 6) {
            return Err(ParseFenError::FieldCount(fields.len()));
        }
        let ranks: Vec<&str> = fields[0].split('/').collect();
        if ranks.len() != 8 {
            return Err(ParseFenError::RankCount(ranks.len()));
        }
        let mut pieces = Vec::with_capacity(32);
        for (i, text) in ranks.iter().enumerate() {
            parse_rank(text, 7 - i as u8, &mut pieces)?;
        }
        // Square order (rank 1 first), as `Position::to_setup` lists them.
        pieces.sort_by_key(|&(sq, _)| sq);
        let turn = match fields[1] {
            "w" => Army::WHITE,
            "b" => Army::BLACK,
            other => return Err(ParseFenError::Turn(other.to_owned())),
        };
        let castling = parse_castling(fields[2])?;
        let mut en_passant = ByArmy::default();
        en_passant[other(turn)] = parse_en_passant(fields[3], turn, &pieces)?;
        let (halfmove_clock, fullmove) = match fields.get(4..6) {
            Some(&[half, full]) => (
                half.parse::<u16>()
                    .map_err(|_| ParseFenError::Halfmove(half.to_owned()))?,
                full.parse::<u32>()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| ParseFenError::Fullmove(full.to_owned()))?,
            ),
            _ => (0, 1),
        };
        let mut setup = Setup {
            castling,
            en_passant,
            halfmove_clock,
            ..Setup::with_pieces(BoardKind::Classic, pieces, turn)
        };
        setup.drop_lost_castling_rights();
        Ok(Fen { setup, fullmove })
    }
}

impl fmt::Display for Fen {
    /// Writes the six fields. Only White's and Black's pieces on files a–h and ranks 1–8 are
    /// written: a setup of another board has no FEN (see [`Fen::from_position`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let setup = &self.setup;
        let mut grid = [[None; 8]; 8];
        for &(sq, piece) in &setup.pieces {
            if sq.file() < 8
                && sq.rank() < 8
                && (piece.army == Army::WHITE || piece.army == Army::BLACK)
            {
                grid[sq.rank() as usize][sq.file() as usize] = Some(piece);
            }
        }
        for rank in (0..8).rev() {
            let mut empty = 0;
            for cell in grid[rank] {
                match cell {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            write!(f, "{empty}")?;
                            empty = 0;
                        }
                        f.write_char(piece_char(piece))?;
                    }
                }
            }
            if empty > 0 {
                write!(f, "{empty}")?;
            }
            if rank > 0 {
                f.write_char('/')?;
            }
        }
        f.write_str(if setup.turn == Army::BLACK {
            " b "
        } else {
            " w "
        })?;
        let rights = [
            (Army::WHITE, 0, 'K'),
            (Army::WHITE, 1, 'Q'),
            (Army::BLACK, 0, 'k'),
            (Army::BLACK, 1, 'q'),
        ];
        let mut any = false;
        for (army, side, c) in rights {
            if setup.castling[army][side] {
                f.write_char(c)?;
                any = true;
            }
        }
        if !any {
            f.write_char('-')?;
        }
        match setup.en_passant[other(setup.turn)] {
            Some(ep) => write!(f, " {}", ep.skipped)?,
            None => f.write_str(" -")?,
        }
        write!(f, " {} {}", setup.halfmove_clock, self.fullmove)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::ArmyStatus;
    use crate::rules::Preset;

    fn chess() -> RuleSet {
        RuleSet {
            friendly_capture: false,
            ..Preset::Duo.rules()
        }
    }

    fn sq(name: &str) -> Square {
        name.parse().unwrap()
    }

    #[test]
    fn the_start_position_reads_and_writes() {
        let fen: Fen = START_FEN.parse().unwrap();
        let mut start = Setup::start(BoardKind::Classic, Army::WHITE);
        start.pieces.sort_by_key(|&(sq, _)| sq);
        assert_eq!(fen.setup, start);
        assert_eq!(fen.fullmove, 1);
        assert_eq!(fen.to_string(), START_FEN);
        let pos = Position::new(&chess()).unwrap();
        assert_eq!(Fen::from_position(&pos, 1).unwrap().to_string(), START_FEN);
    }

    #[test]
    fn fens_round_trip() {
        for text in [
            START_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w Kq f6 0 3",
            "8/8/1k6/2b5/2pP4/8/5K2/8 b - d3 0 1",
            "4k3/8/8/8/8/8/8/4K3 b - - 99 150",
        ] {
            let fen: Fen = text.parse().unwrap();
            assert_eq!(fen.to_string(), text);
            let pos = fen.position(&chess()).unwrap();
            assert_eq!(
                Fen::from_position(&pos, fen.fullmove).unwrap(),
                fen,
                "{text}"
            );
        }
    }

    #[test]
    fn the_en_passant_square_belongs_to_the_side_not_to_move() {
        let fen: Fen = "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3"
            .parse()
            .unwrap();
        let ep = EnPassant {
            skipped: sq("f6"),
            landed: sq("f5"),
        };
        assert_eq!(fen.setup.en_passant[Army::BLACK], Some(ep));
        assert_eq!(fen.setup.en_passant[Army::WHITE], None);
        let pos = fen.position(&chess()).unwrap();
        assert!(
            pos.legal_moves()
                .iter()
                .any(|m| m.is_en_passant() && m.to() == sq("f6"))
        );

        let fen: Fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
            .parse()
            .unwrap();
        assert_eq!(
            fen.setup.en_passant[Army::WHITE],
            Some(EnPassant {
                skipped: sq("e3"),
                landed: sq("e4")
            })
        );
    }

    #[test]
    fn an_en_passant_square_without_its_pawn_is_ignored() {
        let fen: Fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1"
            .parse()
            .unwrap();
        assert_eq!(fen.setup.en_passant, ByArmy::default());
        assert_eq!(
            fen.to_string(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"
        );
    }

    #[test]
    fn move_counters_may_be_left_off() {
        let fen: Fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
            .parse()
            .unwrap();
        assert_eq!(fen.to_string(), START_FEN);
    }

    #[test]
    fn the_setup_is_for_duo() {
        let fen: Fen = START_FEN.parse().unwrap();
        assert_eq!(fen.setup.board, BoardKind::Classic);
        assert_eq!(fen.setup.status[Army::Blue], ArmyStatus::Absent);
        assert_eq!(fen.setup.status[Army::Green], ArmyStatus::Absent);
        assert_eq!(fen.setup.status[Army::WHITE], ArmyStatus::Playing);
        assert!(Fen::from_position(&Position::new(&Preset::Teams.rules()).unwrap(), 1).is_none());
    }

    #[test]
    fn each_field_has_its_error() {
        use ParseFenError::*;
        let cases: [(&str, ParseFenError); 17] = [
            ("", FieldCount(0)),
            ("8/8/8/8/8/8/8/8 w - - 0", FieldCount(5)),
            ("8/8/8/8/8/8/8/8 w - - 0 1 extra", FieldCount(7)),
            ("8/8/8/8/8/8/8 w - - 0 1", RankCount(7)),
            ("8/8/8/8/8/8/8/8/8 w - - 0 1", RankCount(9)),
            (
                "8/8/8/8/8/8/8/7 w - - 0 1",
                Placement {
                    rank: 1,
                    text: "7".into(),
                },
            ),
            (
                "9/8/8/8/8/8/8/8 w - - 0 1",
                Placement {
                    rank: 8,
                    text: "9".into(),
                },
            ),
            (
                "8/8/ppppppppp/8/8/8/8/8 w - - 0 1",
                Placement {
                    rank: 6,
                    text: "ppppppppp".into(),
                },
            ),
            (
                "8/8/8/8/3X4/8/8/8 w - - 0 1",
                Placement {
                    rank: 4,
                    text: "3X4".into(),
                },
            ),
            ("8/8/8/8/8/8/8/8 x - - 0 1", Turn("x".into())),
            ("8/8/8/8/8/8/8/8 w KK - 0 1", Castling("KK".into())),
            ("8/8/8/8/8/8/8/8 w KQa - 0 1", Castling("KQa".into())),
            ("8/8/8/8/8/8/8/8 w - e3 0 1", EnPassant("e3".into())),
            ("8/8/8/8/8/8/8/8 b - i3 0 1", EnPassant("i3".into())),
            ("8/8/8/8/8/8/8/8 w - - -1 1", Halfmove("-1".into())),
            ("8/8/8/8/8/8/8/8 w - - 0 0", Fullmove("0".into())),
            ("8/8/8/8/8/8/8/8 w - - 0 x", Fullmove("x".into())),
        ];
        for (text, err) in cases {
            assert_eq!(text.parse::<Fen>(), Err(err), "{text}");
        }
    }

    #[test]
    fn a_fen_that_parses_may_still_be_an_illegal_position() {
        let fen: Fen = "8/8/8/8/8/8/8/8 w KQkq - 0 1".parse().unwrap();
        assert!(fen.position(&chess()).is_err());
    }
}
