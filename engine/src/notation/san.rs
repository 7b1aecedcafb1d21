//! Standard algebraic notation (SAN) for Duo on the classic board, and UCI-style coordinates.
//!
//! White is [`Army::WHITE`] and Black [`Army::BLACK`]. Moves are written as in chess: `e4`,
//! `Nf3`, `exd5`, `Rad1`, `R1a3`, `Qa1b2`, `e8=Q`, `O-O`, `O-O-O`, with `+` when the opponent's
//! king is attacked after the move and `#` when the opponent is then mated. Duo's friendly
//! captures (of one's own pieces) are written like any other capture, `Bxe2`; the PGN writer
//! marks them with a comment (see [`super::write_pgn`]).
//!
//! [`Army::WHITE`]: crate::Army::WHITE
//! [`Army::BLACK`]: crate::Army::BLACK

use std::fmt::Write as _;

use crate::geometry::CastleSide;
use crate::moves::Move;
use crate::piece::Role;
use crate::position::Position;
use crate::square::Square;

use super::lan::{captured_piece, resolve};
use super::move_error::ParseMoveError;

/// Writes `mv`, a legal move in `pos`, in SAN with its check or mate mark.
///
/// The piece is disambiguated only as far as needed: by file, else by rank, else by both.
///
/// ```
/// use fourkings_engine::notation::write_san;
/// use fourkings_engine::{Position, Preset};
///
/// let pos = Position::new(&Preset::Duo.rules()).unwrap();
/// let sans: Vec<String> = pos.legal_moves().into_iter().map(|m| write_san(&pos, m)).collect();
/// assert!(sans.contains(&"e4".to_owned()) && sans.contains(&"Nf3".to_owned()));
/// ```
pub fn write_san(pos: &Position, mv: Move) -> String {
    let mut text = String::with_capacity(8);
    match mv.castle_side() {
        Some(CastleSide::King) => text.push_str("O-O"),
        Some(CastleSide::Queen) => text.push_str("O-O-O"),
        None => write_core(pos, mv, &mut text),
    }
    let mut after = pos.clone();
    after.play_unchecked(mv);
    let them = after.turn();
    if after.is_check(them) {
        text.push(if after.count_legal_moves() == 0 {
            '#'
        } else {
            '+'
        });
    }
    text
}

/// Writes a move that is not a castle, without its check mark.
fn write_core(pos: &Position, mv: Move, text: &mut String) {
    let (from, to) = (mv.from(), mv.to());
    let role = pos.piece_at(from).map_or(Role::Pawn, |p| p.role);
    let capture = captured_piece(pos, mv).is_some();
    if role == Role::Pawn {
        if capture {
            text.push(file_char(from));
            text.push('x');
        }
    } else {
        text.push(role.upper_char());
        let rivals: Vec<Square> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| m.to() == to && m.from() != from && m.castle_side().is_none())
            .filter(|m| pos.piece_at(m.from()).is_some_and(|p| p.role == role))
            .map(|m| m.from())
            .collect();
        if !rivals.is_empty() {
            let same_file = rivals.iter().any(|sq| sq.file() == from.file());
            let same_rank = rivals.iter().any(|sq| sq.rank() == from.rank());
            if !same_file {
                text.push(file_char(from));
            } else if !same_rank {
                text.push(rank_char(from));
            } else {
                let _ = write!(text, "{from}");
            }
        }
        if capture {
            text.push('x');
        }
    }
    let _ = write!(text, "{to}");
    if let Some(promotion) = mv.promotion() {
        text.push('=');
        text.push(promotion.upper_char());
    }
}

/// Reads a move in SAN and finds it among `pos`'s legal moves.
///
/// The reading is lenient: check and mate marks, `!`, `?` and `e.p.` are ignored; castling may
/// be written with zeros (`0-0`); `x` may be left out or added; a long form (`Ng1-f3`, `e2-e4`)
/// and UCI coordinates (`e2e4`, `e7e8q`, `e1g1` for a castle) are accepted; the promotion may
/// come with or without `=`. A pawn move without a from-file (`e4`) is a push, never a capture.
///
/// ```
/// use fourkings_engine::notation::parse_san;
/// use fourkings_engine::{Position, Preset};
///
/// let pos = Position::new(&Preset::Duo.rules()).unwrap();
/// assert_eq!(parse_san(&pos, "Nf3")?, parse_san(&pos, "g1f3")?);
/// # Ok::<(), fourkings_engine::notation::ParseMoveError>(())
/// ```
pub fn parse_san(pos: &Position, text: &str) -> Result<Move, ParseMoveError> {
    let malformed = |reason| ParseMoveError::malformed(text, reason);
    let mut core = text.trim();
    loop {
        let trimmed = core.trim_end_matches(['+', '#', '!', '?']).trim_end();
        let trimmed = trimmed.strip_suffix("e.p.").map_or(trimmed, str::trim_end);
        if trimmed.len() == core.len() {
            break;
        }
        core = trimmed;
    }
    if let Some(side) = castle_side(core) {
        return pos
            .legal_moves()
            .into_iter()
            .find(|m| m.castle_side() == Some(side))
            .ok_or_else(|| ParseMoveError::NoSuchMove(text.to_owned()));
    }
    let bytes = core.as_bytes();
    if !core.is_ascii() || bytes.len() < 2 {
        return Err(malformed("expected a move like e4, Nf3 or exd5"));
    }

    // From the end: an optional promotion, then the to-square.
    let mut end = bytes.len();
    let mut promotion = None;
    if let Some(role) = bytes.last().and_then(|&b| promotion_role(b)) {
        if end >= 2 && bytes[end - 2] == b'=' {
            promotion = Some(role);
            end -= 2;
        } else if end >= 2 && bytes[end - 2].is_ascii_digit() {
            promotion = Some(role);
            end -= 1;
        }
    } else if bytes.last() == Some(&b'=') {
        return Err(malformed("expected Q, R, B or N after ="));
    }
    if end < 2 {
        return Err(malformed("expected a to-square like e4"));
    }
    let to = square(bytes[end - 2], bytes[end - 1])
        .ok_or_else(|| malformed("expected a to-square like e4"))?;

    // From the start: an optional piece letter, from-file, from-rank and capture mark.
    let prefix = &bytes[..end - 2];
    let mut i = 0;
    let piece = match prefix.first() {
        Some(&b @ (b'K' | b'Q' | b'R' | b'B' | b'N' | b'P')) => {
            i += 1;
            Role::from_char(b as char)
        }
        _ => None,
    };
    let from_file = prefix
        .get(i)
        .filter(|b| (b'a'..=b'h').contains(b))
        .map(|b| b - b'a');
    i += from_file.is_some() as usize;
    let from_rank = prefix
        .get(i)
        .filter(|b| (b'1'..=b'8').contains(b))
        .map(|b| b - b'1');
    i += from_rank.is_some() as usize;
    let capture_mark = prefix
        .get(i)
        .is_some_and(|b| matches!(b, b'x' | b'X' | b':'));
    let dash = prefix.get(i) == Some(&b'-');
    i += (capture_mark || dash) as usize;
    if i != prefix.len() {
        return Err(malformed(
            "expected a piece letter, a from-square, x, and a to-square",
        ));
    }

    // A full from-square needs no piece letter (`e2e4`, `g1f3`); otherwise none means a pawn.
    let role = match piece {
        Some(role) => Some(role),
        None if from_file.is_some() && from_rank.is_some() => None,
        None => Some(Role::Pawn),
    };
    let pawn_push_only = piece.is_none() && from_file.is_none();
    let candidates: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.to() == to)
        .filter(|m| from_file.is_none_or(|f| m.from().file() == f))
        .filter(|m| from_rank.is_none_or(|r| m.from().rank() == r))
        .filter(|m| role.is_none_or(|role| pos.piece_at(m.from()).is_some_and(|p| p.role == role)))
        .filter(|m| !pawn_push_only || m.from().file() == to.file())
        .collect();
    resolve(text, &candidates, promotion)
}

/// A castling token: `O-O`, `O-O-O`, with zeros or lower-case `o` too.
fn castle_side(text: &str) -> Option<CastleSide> {
    let normal: String = text
        .chars()
        .map(|c| if matches!(c, 'o' | '0') { 'O' } else { c })
        .collect();
    match normal.as_str() {
        "O-O" => Some(CastleSide::King),
        "O-O-O" => Some(CastleSide::Queen),
        _ => None,
    }
}

/// A promotion letter in either case.
fn promotion_role(b: u8) -> Option<Role> {
    match b.to_ascii_uppercase() {
        b'Q' => Some(Role::Queen),
        b'R' => Some(Role::Rook),
        b'B' => Some(Role::Bishop),
        b'N' => Some(Role::Knight),
        _ => None,
    }
}

/// A square of the classic board from its file and rank characters.
fn square(file: u8, rank: u8) -> Option<Square> {
    if (b'a'..=b'h').contains(&file) && (b'1'..=b'8').contains(&rank) {
        Square::new(file - b'a', rank - b'1')
    } else {
        None
    }
}

fn file_char(sq: Square) -> char {
    (b'a' + sq.file()) as char
}

fn rank_char(sq: Square) -> char {
    (b'1' + sq.rank()) as char
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::army::Army;
    use crate::geometry::BoardKind;
    use crate::piece::Piece;
    use crate::rules::{Preset, RuleSet};
    use crate::setup::Setup;

    fn start() -> Position {
        Position::new(&Preset::Duo.rules()).unwrap()
    }

    /// A Duo position from `(square, "K")` lists (upper case White, lower case Black).
    fn position(pieces: &[(&str, char)], turn: Army, castling: bool) -> Position {
        let mut setup = Setup::start(BoardKind::Classic, Army::WHITE);
        setup.pieces = pieces
            .iter()
            .map(|&(sq, c)| {
                let army = if c.is_ascii_uppercase() {
                    Army::WHITE
                } else {
                    Army::BLACK
                };
                (
                    sq.parse().unwrap(),
                    Piece::new(army, Role::from_char(c).unwrap()),
                )
            })
            .collect();
        setup.turn = turn;
        for army in [Army::WHITE, Army::BLACK] {
            setup.castling[army] = [castling; 2];
        }
        Position::from_setup(&setup, &Preset::Duo.rules()).unwrap()
    }

    /// Plays SAN moves in turn, checking that each writes back the same.
    fn play(pos: &mut Position, moves: &[&str]) {
        for &text in moves {
            let mv = parse_san(pos, text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(write_san(pos, mv), text);
            pos.play_unchecked(mv);
        }
    }

    fn san(pos: &Position, from: &str, to: &str) -> String {
        let (from, to): (Square, Square) = (from.parse().unwrap(), to.parse().unwrap());
        let mv = pos
            .legal_moves()
            .into_iter()
            .find(|m| m.from() == from && m.to() == to)
            .unwrap();
        write_san(pos, mv)
    }

    #[test]
    fn standard_moves() {
        let mut pos = start();
        play(
            &mut pos,
            &[
                "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Bxc6", "dxc6", "d4", "exd4", "Qxd4",
                "Qxd4", "Nxd4",
            ],
        );
    }

    #[test]
    fn lenient_reading() {
        let pos = start();
        let e4 = parse_san(&pos, "e4").unwrap();
        for text in ["e2e4", "e2-e4", "e4!", "e4?!", " e4 ", "Pe4", "e4+"] {
            assert_eq!(parse_san(&pos, text), Ok(e4), "{text}");
        }
        let nf3 = parse_san(&pos, "Nf3").unwrap();
        for text in ["g1f3", "Ng1f3", "Ng1-f3", "Ngf3", "N1f3", "Nf3+"] {
            assert_eq!(parse_san(&pos, text), Ok(nf3), "{text}");
        }
        assert_eq!(crate::notation::write_coordinate(e4), "e2e4");
    }

    #[test]
    fn errors() {
        let pos = start();
        for text in ["", "z9", "Ze4", "e9", "e4=", "Nf3 Nc6", "Ng1-f3-"] {
            assert_eq!(
                parse_san(&pos, text).unwrap_err().code(),
                "malformed",
                "{text}"
            );
        }
        for text in ["e5", "Nf4", "O-O", "0-0-0", "Ke3", "exd3", "e7e5"] {
            assert_eq!(
                parse_san(&pos, text),
                Err(ParseMoveError::NoSuchMove(text.into())),
                "{text}"
            );
        }
        let pos = position(
            &[("e1", 'K'), ("e8", 'k'), ("b1", 'N'), ("f1", 'N')],
            Army::WHITE,
            false,
        );
        assert_eq!(
            parse_san(&pos, "Nd2"),
            Err(ParseMoveError::Ambiguous("Nd2".into()))
        );
        assert_eq!(san(&pos, "b1", "d2"), "Nbd2");
        assert_eq!(parse_san(&pos, "Nbd2").unwrap().from().to_string(), "b1");
    }

    #[test]
    fn disambiguation() {
        let pieces = [
            ("e2", 'K'),
            ("g8", 'k'),
            ("a1", 'R'),
            ("h1", 'R'),
            ("a5", 'R'),
        ];
        let pos = position(&pieces, Army::WHITE, false);
        assert_eq!(san(&pos, "a1", "d1"), "Rad1", "file");
        assert_eq!(san(&pos, "h1", "d1"), "Rhd1");
        assert_eq!(san(&pos, "a1", "a3"), "R1a3", "rank");
        assert_eq!(san(&pos, "a5", "a3"), "R5a3");
        assert_eq!(san(&pos, "a5", "b5"), "Rb5", "no rival");
        let pieces = [
            ("h1", 'K'),
            ("h7", 'k'),
            ("a1", 'Q'),
            ("c1", 'Q'),
            ("a3", 'Q'),
        ];
        let pos = position(&pieces, Army::WHITE, false);
        assert_eq!(san(&pos, "a1", "b2"), "Qa1b2", "file and rank");
        assert_eq!(parse_san(&pos, "Qa1b2").unwrap().from().to_string(), "a1");
        assert_eq!(san(&pos, "c1", "b2"), "Qcb2");
        assert_eq!(san(&pos, "a3", "b2"), "Q3b2");
    }

    #[test]
    fn promotion_with_check() {
        let pos = position(&[("e1", 'K'), ("h8", 'k'), ("b7", 'P')], Army::WHITE, false);
        let queen = parse_san(&pos, "b8=Q").unwrap();
        assert_eq!(queen.promotion(), Some(Role::Queen));
        assert_eq!(write_san(&pos, queen), "b8=Q+");
        for text in ["b8Q", "b8=Q+", "b7b8q", "b7-b8=Q"] {
            assert_eq!(parse_san(&pos, text), Ok(queen), "{text}");
        }
        let knight = parse_san(&pos, "b8=N").unwrap();
        assert_eq!(write_san(&pos, knight), "b8=N");
        assert_eq!(crate::notation::write_coordinate(knight), "b7b8n");
        assert_eq!(
            parse_san(&pos, "b8"),
            Err(ParseMoveError::MissingPromotion("b8".into()))
        );
    }

    #[test]
    fn castling() {
        let pieces = [
            ("e1", 'K'),
            ("a1", 'R'),
            ("h1", 'R'),
            ("e8", 'k'),
            ("a8", 'r'),
            ("h8", 'r'),
        ];
        let pos = position(&pieces, Army::WHITE, true);
        let short = parse_san(&pos, "O-O").unwrap();
        let long = parse_san(&pos, "O-O-O").unwrap();
        assert_eq!(short.castle_side(), Some(CastleSide::King));
        assert_eq!(write_san(&pos, short), "O-O");
        assert_eq!(write_san(&pos, long), "O-O-O");
        for (text, mv) in [
            ("0-0", short),
            ("0-0-0", long),
            ("e1g1", short),
            ("Kc1", long),
            ("o-o+", short),
        ] {
            assert_eq!(parse_san(&pos, text), Ok(mv), "{text}");
        }
        assert_eq!(crate::notation::write_coordinate(short), "e1g1");
    }

    #[test]
    fn en_passant() {
        let mut pos = position(
            &[("e1", 'K'), ("e8", 'k'), ("e5", 'P'), ("d7", 'p')],
            Army::BLACK,
            false,
        );
        play(&mut pos, &["d5"]);
        let mv = parse_san(&pos, "exd6").unwrap();
        assert!(mv.is_en_passant());
        assert_eq!(write_san(&pos, mv), "exd6");
        assert_eq!(parse_san(&pos, "exd6 e.p."), Ok(mv));
        assert_eq!(parse_san(&pos, "e5d6"), Ok(mv));
        assert_eq!(
            parse_san(&pos, "d6"),
            Err(ParseMoveError::NoSuchMove("d6".into())),
            "a bare d6 is a push"
        );
    }

    #[test]
    fn check_and_mate() {
        let pos = position(&[("a1", 'K'), ("c3", 'k'), ("b8", 'q')], Army::BLACK, false);
        assert_eq!(san(&pos, "b8", "b2"), "Qb2#");
        assert_eq!(san(&pos, "b8", "b1"), "Qb1+");
        assert_eq!(san(&pos, "b8", "b7"), "Qb7");
        assert_eq!(parse_san(&pos, "Qb2#").unwrap().to().to_string(), "b2");
        // Fool's mate is mate in Duo too: the king does not take its own pieces...
        let mut pos = start();
        play(&mut pos, &["f3", "e5", "g4", "Qh4#"]);
        assert_eq!(pos.count_legal_moves(), 0);
        // ...unless the room lets it, and then it escapes by taking its own bishop.
        let rules = RuleSet {
            king_friendly_capture: true,
            ..Preset::Duo.rules()
        };
        let mut pos = Position::new(&rules).unwrap();
        play(&mut pos, &["f3", "e5", "g4", "Qh4+", "Kxf1"]);
    }

    #[test]
    fn friendly_capture() {
        let pos = start();
        assert_eq!(san(&pos, "f1", "e2"), "Bxe2");
        assert_eq!(san(&pos, "g1", "e2"), "Nxe2");
        assert_eq!(san(&pos, "d1", "d2"), "Qxd2");
        let mv = parse_san(&pos, "Bxe2").unwrap();
        assert_eq!(parse_san(&pos, "Be2"), Ok(mv));
        assert!(
            !pos.legal_moves()
                .iter()
                .any(|m| m.from().to_string() == "e1"),
            "the king takes none of its own pieces by default"
        );
        let rules = RuleSet {
            king_friendly_capture: true,
            ..Preset::Duo.rules()
        };
        let with_king = Position::new(&rules).unwrap();
        assert_eq!(
            san(&with_king, "e1", "e2"),
            "Kxe2",
            "the room option lets the king take its own pieces"
        );
        // Two knights that can both take the same own pawn are told apart as usual.
        let pieces = [
            ("e1", 'K'),
            ("e8", 'k'),
            ("c3", 'N'),
            ("g3", 'N'),
            ("e4", 'P'),
        ];
        let pos = position(&pieces, Army::WHITE, false);
        assert_eq!(san(&pos, "c3", "e4"), "Ncxe4");
        assert_eq!(san(&pos, "g3", "e4"), "Ngxe4");
    }

    /// Random Duo playouts (a fixed seed): every legal move's SAN and UCI read back as the same
    /// move, and SAN is never longer than it needs to be to be read back.
    #[test]
    fn random_playouts_round_trip() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        let mut promotions = 0;
        for _ in 0..20 {
            let mut pos = start();
            for _ in 0..300 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for &mv in &moves {
                    let text = write_san(&pos, mv);
                    assert_eq!(parse_san(&pos, &text), Ok(mv), "{text} in {pos:?}");
                    assert_eq!(
                        parse_san(&pos, &crate::notation::write_coordinate(mv)),
                        Ok(mv),
                        "{text} in {pos:?}"
                    );
                    promotions += mv.promotion().is_some() as usize;
                }
                pos.play_unchecked(moves[next(moves.len())]);
            }
        }
        assert!(promotions > 0, "the playouts should reach some promotions");
    }
}
