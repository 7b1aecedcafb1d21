//! Test support for the rules tests: positions from short piece lists, moves found by their
//! squares, and games started from those positions.
//!
//! # Piece lists
//!
//! [`cross`] builds a cross-board [`Setup`] from the army to move and a comma-separated list of
//! `<army><role> <square>` items:
//!
//! ```text
//! cross("R", "rK h1, rR k1, bK a7, yK g14, gK n8, gQ h5")
//! ```
//!
//! Army letters are `r` (Red), `b` (Blue), `y` (Yellow), `g` (Green); role letters are
//! `P N B R Q K`. The turn is one army letter in either case.
//!
//! [`classic`] does the same for Duo's 8×8 board, where the army letters are `w` for White
//! ([`Army::WHITE`], which is `Army::Red` inside the engine) and `b` for **Black**
//! ([`Army::BLACK`], `Army::Yellow`): on the classic board `b` never means Blue.
//!
//! ```text
//! classic("w", "wK e1, wR h1, bK e8, bP d7")
//! ```
//!
//! A new setup has every army of its board playing, no castling rights, no en passant right,
//! no points and a zero halfmove clock; the [`SetupExt`] methods add what a test needs
//! (`.castling(..)`, `.en_passant(..)`, `.out(..)`, `.points(..)`, `.promoted(..)`, `.clock(..)`).
//!
//! # Moves
//!
//! [`mv`] finds the legal move between two squares (and [`promote`] the one that promotes to a
//! role), or panics with the list of legal moves, so a failing test says what was possible.
//! [`targets`] lists where the piece on a square may go. [`play`] plays a move in a [`Game`]
//! for whichever seat is to move.

#![allow(dead_code)]

use fourkings_engine::game::{Consequence, DrawReason, FfaEnding, Ply, ScoreReason};
use fourkings_engine::{
    Army, ArmySet, ArmyStatus, BoardKind, CastleSide, EnPassant, Game, Move, Outcome, Piece,
    Position, Role, RuleSet, Seat, Setup, Square,
};

/// The square named `name` (`h2`, `a11`, `n14`); panics on a bad name.
pub(crate) fn sq(name: &str) -> Square {
    name.parse().unwrap_or_else(|e| panic!("{e}"))
}

/// A cross-board setup: `turn` is `R`, `B`, `Y` or `G`; `pieces` lists `<army><role> <square>`
/// items (`rK h1, bQ a8`). All four armies are playing; no rights, no points.
pub(crate) fn cross(turn: &str, pieces: &str) -> Setup {
    let turn = single_char(turn);
    let turn =
        Army::from_letter(turn).unwrap_or_else(|| panic!("bad army letter {turn:?} for the turn"));
    build(BoardKind::Cross, turn, pieces, Army::from_letter)
}

/// A classic-board (Duo) setup: `turn` is `w` or `b`; `pieces` lists `<w|b><role> <square>` items
/// (`wK e1, bK e8`), where `w` is White ([`Army::WHITE`]) and `b` is Black ([`Army::BLACK`]).
pub(crate) fn classic(turn: &str, pieces: &str) -> Setup {
    let colour = |c: char| match c.to_ascii_lowercase() {
        'w' => Some(Army::WHITE),
        'b' => Some(Army::BLACK),
        _ => None,
    };
    let turn = single_char(turn);
    let turn =
        colour(turn).unwrap_or_else(|| panic!("bad colour {turn:?} for the turn: use w or b"));
    build(BoardKind::Classic, turn, pieces, colour)
}

fn single_char(s: &str) -> char {
    let mut chars = s.trim().chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => c,
        _ => panic!("expected one letter, got {s:?}"),
    }
}

fn build(
    board: BoardKind,
    turn: Army,
    pieces: &str,
    army_of: impl Fn(char) -> Option<Army>,
) -> Setup {
    let pieces = pieces
        .split(',')
        .map(str::trim)
        .filter(|item| !item.is_empty())
        .map(|item| {
            let (name, square) = item
                .split_once(' ')
                .unwrap_or_else(|| panic!("expected `<army><role> <square>`, got {item:?}"));
            let mut letters = name.chars();
            let (Some(a), Some(r), None) = (letters.next(), letters.next(), letters.next()) else {
                panic!("expected an army letter and a role letter, got {name:?}");
            };
            let army = army_of(a).unwrap_or_else(|| panic!("bad army letter {a:?} in {item:?}"));
            let role =
                Role::from_char(r).unwrap_or_else(|| panic!("bad role letter {r:?} in {item:?}"));
            (sq(square.trim()), Piece::new(army, role))
        })
        .collect();
    Setup::with_pieces(board, pieces, turn)
}

/// Builder-style additions to a [`Setup`].
pub(crate) trait SetupExt {
    /// Gives `army` the right to castle on `side` (king and rook must be on their home squares).
    fn castling(self, army: Army, side: CastleSide) -> Setup;
    /// Gives `army` the right to castle on both sides.
    fn castling_both(self, army: Army) -> Setup;
    /// Opens the en passant right of `army`, whose pawn just went from `skipped`'s other side
    /// over `skipped` to `landed`.
    fn en_passant(self, army: Army, skipped: &str, landed: &str) -> Setup;
    /// Sets what `army` is doing in the game.
    fn status(self, army: Army, status: ArmyStatus) -> Setup;
    /// Puts `army` out of the game (grey).
    fn out(self, army: Army) -> Setup;
    /// Gives `army` free-for-all points.
    fn points(self, army: Army, points: i32) -> Setup;
    /// Marks the piece on `square` as promoted from a pawn.
    fn promoted(self, square: &str) -> Setup;
    /// Sets the plies since the last capture or pawn move.
    fn clock(self, plies: u16) -> Setup;
}

impl SetupExt for Setup {
    fn castling(mut self, army: Army, side: CastleSide) -> Setup {
        self.castling[army][side as usize] = true;
        self
    }

    fn castling_both(self, army: Army) -> Setup {
        self.castling(army, CastleSide::King)
            .castling(army, CastleSide::Queen)
    }

    fn en_passant(mut self, army: Army, skipped: &str, landed: &str) -> Setup {
        self.en_passant[army] = Some(EnPassant {
            skipped: sq(skipped),
            landed: sq(landed),
        });
        self
    }

    fn status(mut self, army: Army, status: ArmyStatus) -> Setup {
        self.status[army] = status;
        self
    }

    fn out(self, army: Army) -> Setup {
        self.status(army, ArmyStatus::Out)
    }

    fn points(mut self, army: Army, points: i32) -> Setup {
        self.points[army] = points;
        self
    }

    fn promoted(mut self, square: &str) -> Setup {
        let square = sq(square);
        let (_, piece) = self
            .pieces
            .iter_mut()
            .find(|(s, _)| *s == square)
            .unwrap_or_else(|| panic!("no piece on {square} to mark as promoted"));
        piece.promoted = true;
        self
    }

    fn clock(mut self, plies: u16) -> Setup {
        self.halfmove_clock = plies;
        self
    }
}

/// The position of `setup` under `rules` (a [`fourkings_engine::Preset`] or a [`RuleSet`]);
/// panics if the setup is not a legal position.
pub(crate) fn position(setup: &Setup, rules: impl Into<RuleSet>) -> Position {
    Position::from_setup(setup, &rules.into()).unwrap_or_else(|e| panic!("bad test position: {e}"))
}

/// A game from `setup` under `rules` (walking-king seed 0); panics if the setup is not legal.
pub(crate) fn game_from(setup: &Setup, rules: impl Into<RuleSet>) -> Game {
    Game::from_setup(setup, rules.into(), 0).unwrap_or_else(|e| panic!("bad test position: {e}"))
}

/// Moves as text (`h2-h4, h2-h3`), for failure messages.
pub(crate) fn list(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn find(moves: &[Move], from: &str, to: &str, promotion: Option<Role>) -> Move {
    let (from_sq, to_sq) = (sq(from), sq(to));
    let found: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|m| m.from() == from_sq && m.to() == to_sq)
        .collect();
    match promotion {
        Some(role) => found
            .iter()
            .copied()
            .find(|m| m.promotion() == Some(role))
            .unwrap_or_else(|| {
                panic!(
                    "no legal move {from}-{to}={}; legal moves: {}",
                    role.upper_char(),
                    list(moves)
                )
            }),
        None => match found[..] {
            [one] => one,
            [] => panic!("no legal move {from}-{to}; legal moves: {}", list(moves)),
            _ => panic!(
                "{from}-{to} is a promotion ({}): use `promote`",
                list(&found)
            ),
        },
    }
}

/// The legal move of `pos` from `from` to `to` (not a promotion); panics with the legal moves
/// if there is none.
pub(crate) fn mv(pos: &Position, from: &str, to: &str) -> Move {
    find(&pos.legal_moves(), from, to, None)
}

/// The legal move of `pos` from `from` to `to` promoting to `role`; panics if there is none.
pub(crate) fn promote(pos: &Position, from: &str, to: &str, role: Role) -> Move {
    find(&pos.legal_moves(), from, to, Some(role))
}

/// Whether `pos` has a legal move from `from` to `to` (of any kind).
pub(crate) fn has_move(pos: &Position, from: &str, to: &str) -> bool {
    let (from, to) = (sq(from), sq(to));
    pos.legal_moves()
        .iter()
        .any(|m| m.from() == from && m.to() == to)
}

/// The squares the piece on `from` may move to in `pos`, in board order (rank 1 first, then by
/// file), each once.
pub(crate) fn targets(pos: &Position, from: &str) -> Vec<String> {
    let from = sq(from);
    let mut squares: Vec<Square> = pos
        .legal_moves()
        .iter()
        .filter(|m| m.from() == from)
        .map(|m| m.to())
        .collect();
    squares.sort();
    squares.dedup();
    squares.iter().map(Square::to_string).collect()
}

/// The promotion roles of the legal moves from `from` to `to`, strongest first.
pub(crate) fn promotions(pos: &Position, from: &str, to: &str) -> Vec<Role> {
    let (from, to) = (sq(from), sq(to));
    let mut roles: Vec<Role> = pos
        .legal_moves()
        .iter()
        .filter(|m| m.from() == from && m.to() == to)
        .filter_map(|m| m.promotion())
        .collect();
    roles.sort_by(|a, b| b.cmp(a));
    roles
}

/// The piece on `square` in `pos`.
pub(crate) fn piece_on(pos: &Position, square: &str) -> Option<Piece> {
    pos.piece_at(sq(square))
}

/// Plays the legal move from `from` to `to` for the seat to move; returns the ply.
pub(crate) fn play(game: &mut Game, from: &str, to: &str) -> Ply {
    let mv = find(&game.legal_moves(), from, to, None);
    play_move(game, mv)
}

/// Plays the promotion from `from` to `to` as `role` for the seat to move; returns the ply.
pub(crate) fn play_promotion(game: &mut Game, from: &str, to: &str, role: Role) -> Ply {
    let mv = find(&game.legal_moves(), from, to, Some(role));
    play_move(game, mv)
}

/// Plays `mv` for the seat to move; returns the ply.
pub(crate) fn play_move(game: &mut Game, mv: Move) -> Ply {
    let seat = game.to_move().expect("the game is over: nobody is to move");
    game.play(seat, mv)
        .unwrap_or_else(|e| panic!("{mv}: {e}"))
        .clone()
}

/// Plays a list of moves given as `"from-to"` items separated by spaces (`"h2-h3 b7-c7"`).
pub(crate) fn play_line(game: &mut Game, line: &str) {
    for item in line.split_whitespace() {
        let (from, to) = item
            .split_once('-')
            .unwrap_or_else(|| panic!("expected from-to, got {item:?}"));
        play(game, from, to);
    }
}

/// The seat that plays `army` on the cross board.
pub(crate) fn seat(army: Army) -> Seat {
    Seat::of_army(army)
}

/// The points, winners and reason a free-for-all game ended with; panics, showing the outcome,
/// if it did not end with standings.
pub(crate) fn standings(game: &Game) -> ([i32; 4], ArmySet, FfaEnding) {
    match game.outcome() {
        Some(Outcome::Standings {
            points,
            winners,
            reason,
        }) => (points.0, *winners, *reason),
        other => panic!("the game did not end with standings: {other:?}"),
    }
}

/// Asserts that `game` ended in a draw for `reason`.
#[track_caller]
pub(crate) fn assert_drawn(game: &Game, reason: DrawReason) {
    assert_eq!(game.outcome(), Some(&Outcome::Draw { reason }));
}

/// The consequences of a ply that only scored: `points` to `army` for `reason`.
pub(crate) fn scored(army: Army, points: i32, reason: ScoreReason) -> [Consequence; 1] {
    [Consequence::Scored {
        army,
        points,
        reason,
    }]
}
