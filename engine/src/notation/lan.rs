//! Move text on the cross board: the long algebraic notation of PGN4.
//!
//! A move is the piece letter (none for a pawn), the from-square, `-` or `x`, for a capture the
//! captured piece's letter (none for a pawn), and the to-square: `h2-h4`, `Bh2xNl6`, `Qh6xm6`.
//! A promotion adds `=Q` (`=R`, `=B`, `=N`); castling is `O-O` or `O-O-O`. After the move come
//! `+`, `++` or `+++` for the kings it puts in check, `#` for each player it mates, and `R` or
//! `T` on the first move a walking king makes after its player resigned or timed out
//! (`Kg1-h2T`): see [`MoveSuffix`].
//!
//! In free-for-all a pawn promotes to a queen worth 1, written `h7-h8=D`; the queen is a `Q`
//! from then on (`Qh8-e8`, `Bf6xQh8`), as chess.com writes it. Readers take `Q` and `D` alike.

use std::fmt;

use crate::army::Army;
use crate::checks::{KingAttackers, checks_given};
use crate::game::Elimination;
use crate::geometry::CastleSide;
use crate::moves::Move;
use crate::piece::{Piece, Role};
use crate::position::Position;
use crate::rules::Format;
use crate::square::Square;

use super::move_error::ParseMoveError;

/// What PGN4 writes after a move: its checks and mates, and the mark of a player who left.
///
/// Displayed as one `+` per king the move puts in check, then one `#` per player it mates, then
/// `R` or `T` when the move is the first a king makes by itself after its player resigned or
/// timed out (chess.com's way of recording it): `+`, `++`, `+#`, `#`, `++##`, `Kg1-h2T`. A mate
/// decided when its victim's turn begins (always so in Teams) is the victim's own token, not a
/// mark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MoveSuffix {
    /// How many kings the move puts in check (0–3).
    pub checks: u8,
    /// How many players the move mates at once (0–3).
    pub mates: u8,
    /// The player who made the move left the game just before it, and this is their king's
    /// first move by itself: [`Elimination::Resigned`] writes `R`, [`Elimination::TimedOut`] `T`
    /// (other reasons write nothing).
    pub left: Option<Elimination>,
}

impl MoveSuffix {
    /// The number of kings that `mv`, legal in `pos_before`, puts in check: kings that a piece
    /// attacks after it that did not attack them before (the moved piece, or one whose line the
    /// move opened, whoever's it is). Kings already attacked, by the same pieces only, and the
    /// mover's own king do not count, nor kings of armies that no longer take turns.
    pub fn checks_after(pos_before: &Position, mv: Move) -> u8 {
        let mover = pos_before.turn();
        let before = KingAttackers::of(pos_before, pos_before.checked_armies());
        let mut after = pos_before.clone();
        after.play_unchecked(mv);
        let checked = after.checked_armies();
        checks_given(&after, mover, mv.to(), checked, &before)
            .kings
            .len() as u8
    }

    /// Writes the suffix to `out`: `write_move` writes into its string directly, without going
    /// through `format_args!`, which cost more than the rest of writing a move.
    pub(crate) fn write_to(&self, out: &mut impl fmt::Write) -> fmt::Result {
        for _ in 0..self.checks {
            out.write_char('+')?;
        }
        for _ in 0..self.mates {
            out.write_char('#')?;
        }
        match self.left {
            Some(Elimination::Resigned) => out.write_char('R'),
            Some(Elimination::TimedOut) => out.write_char('T'),
            _ => Ok(()),
        }
    }

    /// The suffix with only the checks of `mv` filled in ([`MoveSuffix::checks_after`]).
    pub fn with_checks(pos_before: &Position, mv: Move) -> MoveSuffix {
        MoveSuffix {
            checks: MoveSuffix::checks_after(pos_before, mv),
            ..MoveSuffix::default()
        }
    }
}

impl fmt::Display for MoveSuffix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

/// Writes `mv`, a legal move in `pos_before`, in PGN4 long algebraic notation followed by
/// `suffix`.
///
/// ```
/// use fourkings_engine::notation::{MoveSuffix, write_move};
/// use fourkings_engine::{Position, Preset};
///
/// let pos = Position::new(&Preset::Teams.rules()).unwrap();
/// let mv = pos.legal_moves().into_iter().find(|m| m.to().to_string() == "h4").unwrap();
/// assert_eq!(write_move(&pos, mv, MoveSuffix::with_checks(&pos, mv)), "h2-h4");
/// ```
pub fn write_move(pos_before: &Position, mv: Move, suffix: MoveSuffix) -> String {
    let mut text = write_move_body(pos_before, mv);
    let _ = suffix.write_to(&mut text);
    text
}

/// [`write_move`] without the suffix, which [`MoveSuffix::write_to`] adds once the move's
/// checks are known.
pub(crate) fn write_move_body(pos_before: &Position, mv: Move) -> String {
    let ffa = pos_before.rules.format == Format::FreeForAll;
    let mut text = String::with_capacity(16);
    match mv.castle_side() {
        Some(CastleSide::King) => text.push_str("O-O"),
        Some(CastleSide::Queen) => text.push_str("O-O-O"),
        None => {
            if let Some(letter) = pos_before.piece_at(mv.from()).and_then(letter) {
                text.push(letter);
            }
            text.push_str(mv.from().as_str());
            match captured_piece(pos_before, mv) {
                Some(victim) => {
                    text.push('x');
                    text.extend(letter(victim));
                }
                None => text.push('-'),
            }
            text.push_str(mv.to().as_str());
            if let Some(role) = mv.promotion() {
                text.push('=');
                text.push(if ffa && role == Role::Queen {
                    'D'
                } else {
                    role.upper_char()
                });
            }
        }
    }
    text
}

/// Reads a move in PGN4 long algebraic notation and finds it among `pos`'s legal moves.
///
/// The reading is lenient: the piece letter may be left out, `-` and `x` are interchangeable,
/// the captured piece's letter may be left out, `D` and `Q` both name a queen, castling may be
/// `O-O`/`O-O-O`, `0-0`/`0-0-0` or the king's move (`Kh1-j1`), and trailing `+`, `#`, `R`, `T`,
/// `S`, `!` and `?` are ignored. A letter that is given must match the board. A promotion must
/// say what the pawn becomes.
///
/// ```
/// use fourkings_engine::notation::parse_move;
/// use fourkings_engine::{Position, Preset};
///
/// let pos = Position::new(&Preset::Teams.rules()).unwrap();
/// let mv = parse_move(&pos, "Nj1-k3")?;
/// assert_eq!(parse_move(&pos, "j1-k3+")?, mv);
/// # Ok::<(), fourkings_engine::notation::ParseMoveError>(())
/// ```
pub fn parse_move(pos: &Position, text: &str) -> Result<Move, ParseMoveError> {
    let mut r = Reader {
        text: text.trim(),
        pos: 0,
    };
    if let Some(side) = r.castle() {
        r.end(text)?;
        return pos
            .legal_moves()
            .into_iter()
            .find(|m| m.castle_side() == Some(side))
            .ok_or_else(|| ParseMoveError::NoSuchMove(text.to_owned()));
    }
    let piece = r.role();
    let from = r
        .square()
        .ok_or_else(|| ParseMoveError::malformed(text, "expected a from-square like h2"))?;
    let _ = r.eat(b'-') || r.eat(b'x') || r.eat(b':');
    let captured = r.role();
    let to = r
        .square()
        .ok_or_else(|| ParseMoveError::malformed(text, "expected a to-square like h4"))?;
    let promotion =
        if r.eat(b'=') {
            let role = r
                .role()
                .filter(|role| !matches!(role, Role::Pawn | Role::King));
            Some(role.ok_or_else(|| {
                ParseMoveError::malformed(text, "expected Q, R, B, N or D after =")
            })?)
        } else {
            None
        };
    r.end(text)?;

    let moved = pos.piece_at(from);
    if piece.is_some_and(|role| moved.map(|p| p.role) != Some(role)) {
        return Err(ParseMoveError::NoSuchMove(text.to_owned()));
    }
    let candidates: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| m.from() == from && m.to() == to)
        .filter(|&m| captured.is_none() || captured_piece(pos, m).map(|p| p.role) == captured)
        .collect();
    resolve(text, &candidates, promotion)
}

/// Picks the one candidate that matches the promotion asked for (shared with the SAN reader).
pub(super) fn resolve(
    text: &str,
    candidates: &[Move],
    promotion: Option<Role>,
) -> Result<Move, ParseMoveError> {
    if candidates.is_empty() {
        return Err(ParseMoveError::NoSuchMove(text.to_owned()));
    }
    let matching: Vec<Move> = candidates
        .iter()
        .copied()
        .filter(|m| m.promotion() == promotion)
        .collect();
    match matching.as_slice() {
        [mv] => Ok(*mv),
        [] if promotion.is_none() => Err(ParseMoveError::MissingPromotion(text.to_owned())),
        [] => Err(ParseMoveError::NoSuchMove(text.to_owned())),
        _ => Err(ParseMoveError::Ambiguous(text.to_owned())),
    }
}

/// The piece `mv` captures in `pos`: whatever stands on the target, or for en passant the pawn
/// that double-stepped past it.
pub(super) fn captured_piece(pos: &Position, mv: Move) -> Option<Piece> {
    if mv.castle_side().is_some() {
        return None;
    }
    if mv.is_en_passant() {
        let ep = Army::ALL
            .into_iter()
            .find_map(|a| pos.en_passant(a).filter(|ep| ep.skipped == mv.to()))?;
        return pos.piece_at(ep.landed);
    }
    pos.piece_at(mv.to())
}

/// The letter a piece is written with: none for a pawn. A promoted queen is a `Q` like any
/// other, as chess.com writes it: only its promotion says `=D`.
fn letter(piece: Piece) -> Option<char> {
    match piece.role {
        Role::Pawn => None,
        role => Some(role.upper_char()),
    }
}

/// A cursor over move text.
struct Reader<'a> {
    text: &'a str,
    pos: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn eat(&mut self, b: u8) -> bool {
        let hit = self.peek() == Some(b);
        self.pos += hit as usize;
        hit
    }

    /// A castling token, `O-O-O` before `O-O`; zeros and lower-case `o` also read.
    fn castle(&mut self) -> Option<CastleSide> {
        let rest = self.text.as_bytes();
        let is_o = |i: usize| rest.get(i).is_some_and(|b| matches!(b, b'O' | b'o' | b'0'));
        let dash = |i: usize| rest.get(i) == Some(&b'-');
        if !(is_o(0) && dash(1) && is_o(2)) {
            return None;
        }
        if dash(3) && is_o(4) {
            self.pos = 5;
            Some(CastleSide::Queen)
        } else {
            self.pos = 3;
            Some(CastleSide::King)
        }
    }

    /// An upper-case piece letter (`D` reads as a queen).
    fn role(&mut self) -> Option<Role> {
        let role = match self.peek()? {
            b'D' => Role::Queen,
            b @ (b'P' | b'N' | b'B' | b'R' | b'Q' | b'K') => Role::from_char(b as char)?,
            _ => return None,
        };
        self.pos += 1;
        Some(role)
    }

    /// A square of the 14×14 grid: file `a`–`n` and rank `1`–`14`.
    fn square(&mut self) -> Option<Square> {
        let bytes = self.text.as_bytes();
        let file = *bytes.get(self.pos).filter(|b| (b'a'..=b'n').contains(b))?;
        let first = *bytes
            .get(self.pos + 1)
            .filter(|b| (b'1'..=b'9').contains(b))?;
        let mut rank = first - b'0';
        let mut len = 2;
        if let Some(second) = bytes.get(self.pos + 2).filter(|b| b.is_ascii_digit()) {
            let two = rank * 10 + (second - b'0');
            if two <= 14 {
                rank = two;
                len = 3;
            }
        }
        let square = Square::new(file - b'a', rank - 1)?;
        self.pos += len;
        Some(square)
    }

    /// Accepts only annotation marks from here on.
    fn end(&self, text: &str) -> Result<(), ParseMoveError> {
        if self.text[self.pos..]
            .bytes()
            .all(|b| b"+#!?RTS".contains(&b))
        {
            Ok(())
        } else {
            Err(ParseMoveError::malformed(
                text,
                "unexpected text after the move",
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::ArmyStatus;
    use crate::notation::{START_FEN4, parse_fen4};
    use crate::rules::{Preset, RuleSet};

    /// The example game of FEN4.md (Teams, from the start).
    const EXAMPLE_GAME: &str = "
        1. h2-h3 .. b7-c7 .. g13-g12 .. m8-l8
        2. Qg1-i3 .. Qa8-d5 .. i13-i12 .. Qn7-m8
        3. Qi3-i7 .. Na10-c9 .. Bf14-i11 .. Nn5-l6
        4. Qi7-j6 .. Na5-c6 .. Qh14-i13 .. m11-k11
        5. Bi1-h2 .. Qd5-g8 .. Qi13-e9 .. Qm8-l9
        6. Bh2xNl6 .. Qg8-i8 .. Qe9xQl9 .. Nn10xQl9
        7. Bl6-i3 .. Qi8xBi11 .. Ne14-f12 .. Nl9-j10";

    fn example_moves() -> Vec<&'static str> {
        EXAMPLE_GAME
            .lines()
            .filter_map(|line| line.trim().split_once(". "))
            .flat_map(|(_, moves)| moves.split(" .. ").map(str::trim))
            .collect()
    }

    /// The position of a FEN4 under `rules`.
    fn position(fen: &str, rules: &RuleSet) -> Position {
        Position::from_setup(&parse_fen4(fen).unwrap(), rules).unwrap()
    }

    /// Writes `mv` with its checks computed.
    fn write(pos: &Position, mv: Move) -> String {
        write_move(pos, mv, MoveSuffix::with_checks(pos, mv))
    }

    /// Kings only (Red h1, Blue a7, Yellow g14, Green n8) plus the given rows, by rank.
    fn kings_fen(turn: char, rows: &[(u8, &str)]) -> String {
        let mut ranks: Vec<String> = (1..=14).rev().map(|_| "14".to_owned()).collect();
        let mut set = |rank: u8, row: &str| ranks[14 - rank as usize] = row.to_owned();
        set(1, "7,rK,6");
        set(7, "bK,13");
        set(14, "6,yK,7");
        set(8, "13,gK");
        for &(rank, row) in rows {
            set(rank, row);
        }
        format!(
            "{turn}-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-{}",
            ranks.join("/")
        )
    }

    #[test]
    fn example_game_round_trips() {
        let moves = example_moves();
        assert_eq!(moves.len(), 28);
        let mut pos = Position::new(&Preset::Teams.rules()).unwrap();
        for text in moves {
            let mv = parse_move(&pos, text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(MoveSuffix::checks_after(&pos, mv), 0, "{text} gives check");
            assert_eq!(write(&pos, mv), text);
            pos.play_unchecked(mv);
        }
    }

    #[test]
    fn lenient_reading() {
        let pos = Position::new(&Preset::Teams.rules()).unwrap();
        let mv = parse_move(&pos, "h2-h4").unwrap();
        for text in [
            "h2h4", "h2xh4", "Ph2-h4", "h2-h4+", "h2-h4!?", " h2-h4 ", "h2-h4#", "h2-h4R",
        ] {
            assert_eq!(parse_move(&pos, text), Ok(mv), "{text}");
        }
        let pos = position(
            &kings_fen('R', &[(6, "5,rB,8"), (10, "9,bN,4")]),
            &Preset::Teams.rules(),
        );
        let mv = parse_move(&pos, "Bf6xNj10").unwrap();
        for text in ["f6xj10", "Bf6-j10", "f6-Nj10", "Bf6xNj10+"] {
            assert_eq!(parse_move(&pos, text), Ok(mv), "{text}");
        }
        assert_eq!(write(&pos, mv), "Bf6xNj10");
    }

    #[test]
    fn errors() {
        let pos = Position::new(&Preset::Teams.rules()).unwrap();
        for text in [
            "",
            "hello",
            "h2",
            "h2-",
            "h2-h4 foo",
            "o1-h4",
            "h0-h4",
            "h2-h4=P",
            "h2-h4=",
            "X-h4",
        ] {
            let err = parse_move(&pos, text).unwrap_err();
            assert_eq!(err.code(), "malformed", "{text}: {err}");
        }
        for text in [
            "h2-h5", "Nh2-h4", "h2xNh4", "O-O", "O-O-O", "Qg1-g3", "b7-c7", "h2-h4=Q",
        ] {
            assert_eq!(
                parse_move(&pos, text),
                Err(ParseMoveError::NoSuchMove(text.into())),
                "{text}"
            );
        }
    }

    #[test]
    fn promotion() {
        let teams = Preset::Teams.rules();
        let pos = position(&kings_fen('R', &[(10, "7,rP,6")]), &teams);
        let queen = parse_move(&pos, "h10-h11=Q").unwrap();
        assert_eq!(queen.promotion(), Some(Role::Queen));
        assert_eq!(write(&pos, queen), "h10-h11=Q");
        assert_eq!(parse_move(&pos, "h10-h11=D"), Ok(queen));
        assert_eq!(
            parse_move(&pos, "h10-h11=N").unwrap().promotion(),
            Some(Role::Knight)
        );
        assert_eq!(
            parse_move(&pos, "h10-h11=R+").unwrap().promotion(),
            Some(Role::Rook)
        );
        assert_eq!(
            parse_move(&pos, "h10-h11"),
            Err(ParseMoveError::MissingPromotion("h10-h11".into()))
        );

        // Free-for-all promotes on the 8th rank, to a 1-point queen written D.
        let ffa = Preset::Ffa.rules();
        let pos = position(&kings_fen('R', &[(7, "bK,6,rP,6")]), &ffa);
        let mv = parse_move(&pos, "h7-h8=D").unwrap();
        assert_eq!(parse_move(&pos, "h7-h8=Q"), Ok(mv));
        assert_eq!(
            write(&pos, mv),
            "h7-h8=D+",
            "the new queen sees Green's king on n8"
        );
        assert_eq!(
            parse_move(&pos, "h7-h8"),
            Err(ParseMoveError::MissingPromotion("h7-h8".into()))
        );
    }

    #[test]
    fn a_promoted_queen_is_a_q_but_for_its_promotion() {
        // A red queen takes a promoted blue queen; the promoted blue queen then moves. chess.com
        // writes both with `Q`, and the promotion itself with `=D`; readers take `D` too.
        let mut setup = parse_fen4(&kings_fen('R', &[(6, "5,bQ,8"), (5, "5,rQ,8")])).unwrap();
        for (_, piece) in &mut setup.pieces {
            if piece.army == Army::Blue && piece.role == Role::Queen {
                piece.promoted = true;
            }
        }
        let ffa = Position::from_setup(&setup, &Preset::Ffa.rules()).unwrap();
        let mv = parse_move(&ffa, "Qf5xQf6").unwrap();
        assert_eq!(parse_move(&ffa, "Qf5xDf6"), Ok(mv));
        assert_eq!(write(&ffa, mv), "Qf5xQf6");
        let mut blue = ffa;
        blue.pass_turn_to(Army::Blue);
        let mv = parse_move(&blue, "Qf6-f7").unwrap();
        assert_eq!(parse_move(&blue, "Df6-f7"), Ok(mv));
        assert_eq!(write(&blue, mv), "Qf6-f7");
        // In Teams the same pieces are plain queens.
        let teams = Position::from_setup(&setup, &Preset::Teams.rules()).unwrap();
        assert_eq!(
            write(&teams, parse_move(&teams, "Qf5xDf6").unwrap()),
            "Qf5xQf6"
        );
    }

    #[test]
    fn castling() {
        let fen = START_FEN4.replace("3,rR,rN,rB,rQ,rK,rB,rN,rR,3", "3,rR,3,rK,2,rR,3");
        let pos = position(&fen, &Preset::Teams.rules());
        let short = parse_move(&pos, "O-O").unwrap();
        assert_eq!(
            (short.from().to_string(), short.to().to_string()),
            ("h1".into(), "j1".into())
        );
        let long = parse_move(&pos, "O-O-O").unwrap();
        assert_eq!(long.to().to_string(), "f1");
        assert_eq!(write(&pos, short), "O-O");
        assert_eq!(write(&pos, long), "O-O-O");
        for (text, mv) in [
            ("0-0", short),
            ("o-o-o", long),
            ("0-0-0+", long),
            ("Kh1-j1", short),
            ("h1-f1", long),
        ] {
            assert_eq!(parse_move(&pos, text), Ok(mv), "{text}");
        }
        assert!(parse_move(&pos, "O-O-").is_err());
    }

    #[test]
    fn en_passant() {
        // Blue's pawn has just gone b5-d5, skipping c5; Red's pawn on d4 takes it there.
        let fen = kings_fen('R', &[(5, "3,bP,10"), (4, "3,rP,10")]);
        let fen = fen.replacen(
            "0,0,0,0-0-",
            "0,0,0,0-0-{'enPassant':('','c5:d5','','')}-",
            1,
        );
        let pos = position(&fen, &Preset::Teams.rules());
        let mv = parse_move(&pos, "d4xc5").unwrap();
        assert!(mv.is_en_passant());
        assert_eq!(write(&pos, mv), "d4xc5");
        assert_eq!(parse_move(&pos, "d4-c5"), Ok(mv));
        assert_eq!(parse_move(&pos, "d4xPc5"), Ok(mv));
        assert!(parse_move(&pos, "d4xNc5").is_err());
    }

    #[test]
    fn checks_are_counted_per_enemy_king() {
        // The red queen goes m5-m7: it attacks Blue's king along rank 7, Green's king next to it,
        // and Yellow's king (moved to m11) up the m-file.
        let rows = [(5, "12,rQ,1"), (14, "14"), (11, "12,yK,1")];
        let fen = kings_fen('R', &rows);
        let teams = position(&fen, &Preset::Teams.rules());
        let mv = parse_move(&teams, "Qm5-m7").unwrap();
        assert_eq!(
            MoveSuffix::checks_after(&teams, mv),
            2,
            "Yellow is Red's partner"
        );
        assert_eq!(write(&teams, mv), "Qm5-m7++");
        let ffa = position(&fen, &Preset::Ffa.rules());
        assert_eq!(write(&ffa, mv), "Qm5-m7+++");
        assert_eq!(parse_move(&ffa, "Qm5-m7+++"), Ok(mv));
        let quiet = parse_move(&ffa, "Qm5-m6").unwrap();
        assert_eq!(MoveSuffix::checks_after(&ffa, quiet), 1);
    }

    #[test]
    fn suffix_display() {
        let s = |checks, mates, left| {
            MoveSuffix {
                checks,
                mates,
                left,
            }
            .to_string()
        };
        assert_eq!(s(0, 0, None), "");
        assert_eq!(s(1, 0, None), "+");
        assert_eq!(s(3, 0, None), "+++");
        // chess.com's free-for-all marks the checks, then each mate.
        assert_eq!(s(1, 1, None), "+#");
        assert_eq!(s(2, 2, None), "++##");
        assert_eq!(s(0, 1, None), "#");
        assert_eq!(s(0, 0, Some(Elimination::Resigned)), "R");
        assert_eq!(s(1, 0, Some(Elimination::TimedOut)), "+T");
        assert_eq!(s(0, 0, Some(Elimination::Checkmate)), "");
    }

    #[test]
    fn walking_king_move() {
        let mut setup = parse_fen4(&kings_fen('B', &[])).unwrap();
        setup.status[Army::Blue] = ArmyStatus::KingWalking;
        let pos = Position::from_setup(&setup, &Preset::FfaWalkingKings.rules()).unwrap();
        let mv = parse_move(&pos, "Ka7-b8T").unwrap();
        assert_eq!(parse_move(&pos, "Ka7-b8R"), Ok(mv));
        assert_eq!(
            write_move(
                &pos,
                mv,
                MoveSuffix {
                    left: Some(Elimination::TimedOut),
                    ..MoveSuffix::default()
                }
            ),
            "Ka7-b8T"
        );
    }

    /// Random playouts (a fixed seed): every legal move writes to text that reads back as the
    /// same move, and every position survives a FEN4 round trip.
    #[test]
    fn random_playouts_round_trip() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) as usize % n
        };
        // Castles, en passant captures, promotions and king captures met on the way.
        let mut seen = [0usize; 4];
        for preset in [Preset::Teams, Preset::Ffa, Preset::TeamsHouse] {
            let rules = preset.rules();
            for _ in 0..6 {
                let mut pos = Position::new(&rules).unwrap();
                for _ in 0..240 {
                    let setup = pos.to_setup();
                    let back = parse_fen4(&crate::notation::write_fen4(&setup)).unwrap();
                    // Promoted pieces and walking kings travel in EXTRA; a right the
                    // position still holds is always a usable one.
                    assert_eq!(back, setup);
                    assert_eq!(Position::from_setup(&back, &rules).unwrap(), pos);
                    let moves = pos.legal_moves();
                    if moves.is_empty() || Army::ALL.iter().any(|&a| pos.king(a).is_none()) {
                        break;
                    }
                    for &mv in &moves {
                        seen[0] += mv.castle_side().is_some() as usize;
                        seen[1] += mv.is_en_passant() as usize;
                        seen[2] += mv.promotion().is_some() as usize;
                        seen[3] +=
                            captured_piece(&pos, mv).is_some_and(|p| p.role == Role::King) as usize;
                        let text = write(&pos, mv);
                        assert_eq!(parse_move(&pos, &text), Ok(mv), "{text} in {pos:?}");
                    }
                    pos.play_unchecked(moves[next(moves.len())]);
                }
            }
        }
        assert!(
            seen.iter().all(|&n| n > 0),
            "castles, en passant, promotions, king captures: {seen:?}"
        );
    }
}
