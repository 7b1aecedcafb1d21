//! The protocol's views of a room's game, built from the engine's `Game`: the game as clients
//! draw it, its history, its result and the legal moves of the seat to move.

use std::collections::BTreeMap;

use fourkings_engine::game::Ply;
use fourkings_engine::game::{DrawReason, FfaEnding, WinReason};
use fourkings_engine::notation::{Fen, termination_text, write_coordinate, write_fen4};
use fourkings_engine::{
    Army, ArmySet, ArmyStatus, Format, Game, Outcome, Piece, Position, Seat, Square,
};
use fourkings_protocol::{
    ArmyState, BoardShape, Clock, GameHistory, GameResult, GameView, LegalMoves, PlyRecord,
    SeatIndex,
};

use super::seat_numbers::protocol_seat;
use crate::rules_view::rules_view;

/// A piece as the protocol writes it: army letter (`w`/`b` in Duo) and role letter.
pub(crate) fn piece_code(format: Format, piece: Piece) -> String {
    let army = match (format, piece.army) {
        (Format::Duo, Army::Red) => 'w',
        (Format::Duo, _) => 'b',
        (_, army) => army.letter(),
    };
    let mut code = String::with_capacity(2);
    code.push(army);
    code.push(piece.role.upper_char());
    code
}

fn seats_of_armies(game: &Game, armies: impl Iterator<Item = Army>) -> Vec<SeatIndex> {
    let format = game.rules().format;
    let mut seats: Vec<SeatIndex> = armies
        .flat_map(|army| {
            Seat::ALL
                .into_iter()
                .filter(move |s| s.army(format) == army)
                .map(protocol_seat)
        })
        .collect();
    seats.sort_unstable();
    seats.dedup();
    seats
}

/// Points by seat (free-for-all; zeros otherwise).
pub(crate) fn points(game: &Game) -> [i32; 4] {
    match game.rules().format {
        Format::FreeForAll => game.points().0,
        _ => [0; 4],
    }
}

/// How each seat's army stands.
pub(crate) fn armies(game: &Game) -> [ArmyState; 4] {
    Seat::ALL.map(|seat| match game.position().status(game.army_of(seat)) {
        ArmyStatus::Playing => ArmyState::Playing,
        ArmyStatus::KingWalking => ArmyState::KingWalking,
        ArmyStatus::Out => ArmyState::Out,
        ArmyStatus::Absent => ArmyState::Absent,
    })
}

/// The seats whose king is attacked: in Duo both seats of the checked colour.
fn checks(game: &Game) -> Vec<SeatIndex> {
    seats_of_armies(game, game.checked_armies().iter())
}

/// For a promotion, the piece the pawn became, written as in `pieces`.
pub(crate) fn promotion(game: &Game, ply: &Ply) -> Option<String> {
    ply.mv.promotion()?;
    let piece = game.position().piece_at(ply.mv.to())?;
    Some(piece_code(game.rules().format, piece))
}

/// The names of `squares`, in their order.
fn square_names(squares: impl IntoIterator<Item = Square>) -> Vec<String> {
    squares.into_iter().map(Square::name).collect()
}

/// The squares `changed` with what stands on them in `pos`, as the protocol writes them.
pub(crate) fn contents(
    format: Format,
    pos: &Position,
    changed: &[Square],
) -> BTreeMap<String, Option<String>> {
    changed
        .iter()
        .map(|&sq| (sq.name(), pos.piece_at(sq).map(|p| piece_code(format, p))))
        .collect()
}

/// Every piece of `pos` by square, as the protocol writes them.
fn pieces(format: Format, pos: &Position) -> BTreeMap<String, String> {
    pos.pieces()
        .map(|(sq, piece)| (sq.to_string(), piece_code(format, piece)))
        .collect()
}

/// The game's history as far as its first `events` events (its plies and actions): the start
/// and each ply's diff, for clients that show an earlier position. `automatic` says, by ply,
/// which moves nobody at the seat chose.
pub(crate) fn history_upto(
    game: &Game,
    id: String,
    events: usize,
    automatic: &[bool],
) -> GameHistory {
    let format = game.rules().format;
    let seats = |armies: ArmySet| seats_of_armies(game, armies.iter());
    let mut plies = Vec::new();
    let start = game.walk_back(events, |ply, after| {
        plies.push(PlyRecord {
            seat: protocol_seat(ply.seat),
            text: ply.text.clone(),
            mv: write_coordinate(ply.mv),
            changed: contents(format, after, &ply.changed),
            checks: seats(ply.kings_in_check),
            checking: square_names(ply.checkers.iter().copied()),
            automatic: false,
        });
    });
    plies.reverse();
    for (record, &automatic) in plies.iter_mut().zip(automatic) {
        record.automatic = automatic;
    }
    GameHistory {
        id,
        board: board_shape(format),
        start: pieces(format, &start),
        plies,
    }
}

/// The result of a finished game.
pub(crate) fn result(game: &Game) -> Option<GameResult> {
    let outcome = game.outcome()?;
    let format = game.rules().format;
    let winners = match outcome {
        Outcome::Win { team, .. } => team.seats().into_iter().map(protocol_seat).collect(),
        Outcome::Draw { .. } => Vec::new(),
        Outcome::Standings { winners, .. } => seats_of_armies(game, winners.iter()),
    };
    let reason = match outcome {
        Outcome::Win { reason, .. } => match reason {
            WinReason::Checkmate { .. } => "checkmate",
            WinReason::KingCaptured { .. } => "king_captured",
            WinReason::Resignation { .. } => "resignation",
            WinReason::Breakthrough { .. } => "breakthrough",
            WinReason::Timeout { .. } => "timeout",
            WinReason::Abandonment { .. } => "abandonment",
        },
        Outcome::Draw { reason } => draw_reason(*reason),
        Outcome::Standings { reason, .. } => match reason {
            FfaEnding::LastPlayer => "last_player",
            FfaEnding::Lead => "lead",
            FfaEnding::Claimed { .. } => "claimed",
            FfaEnding::Draw(reason) => draw_reason(*reason),
            FfaEnding::MoveLimit => "move_limit",
        },
    };
    Some(GameResult {
        winners,
        reason: reason.to_owned(),
        text: termination_text(game).unwrap_or_default(),
        points: (format == Format::FreeForAll).then(|| points(game)),
    })
}

fn draw_reason(reason: DrawReason) -> &'static str {
    match reason {
        DrawReason::Stalemate { .. } => "stalemate",
        DrawReason::Agreement => "agreement",
        DrawReason::Repetition => "repetition",
        DrawReason::FiftyMoves => "fifty_moves",
        DrawReason::DeadPosition => "dead_position",
        DrawReason::MoveLimit => "move_limit",
        DrawReason::TimeoutVsInsufficientMaterial { .. } => "timeout_vs_insufficient_material",
    }
}

/// The board a format is played on: the 8×8 for Duo, the cross otherwise.
fn board_shape(format: Format) -> BoardShape {
    match format {
        Format::Duo => BoardShape::Classic,
        _ => BoardShape::Cross,
    }
}

/// The whole game, with its id and clocks; `silent_partners` is the room's setting.
pub(crate) fn game_view(
    game: &Game,
    id: String,
    clock: Clock,
    first_seat: SeatIndex,
    silent_partners: bool,
) -> GameView {
    let format = game.rules().format;
    let pos = game.position();
    let promoted = pos
        .pieces()
        .filter(|(_, piece)| piece.promoted)
        .map(|(sq, _)| sq.to_string())
        .collect();
    let last = game.last_ply();
    let fen = match format {
        Format::Duo => Fen::from_position(pos, game.ply_count() / 2 + 1)
            .map(|f| f.to_string())
            .unwrap_or_default(),
        _ => {
            let mut setup = pos.to_setup();
            setup.points = game.points();
            write_fen4(&setup)
        }
    };
    GameView {
        id,
        board: board_shape(format),
        pieces: pieces(format, pos),
        promoted,
        to_move: game.to_move().map(protocol_seat),
        ply: game.ply_count(),
        moves: game.plies().map(|p| p.text.clone()).collect(),
        move_seats: game.plies().map(|p| protocol_seat(p.seat)).collect(),
        move_coordinates: game.plies().map(|p| write_coordinate(p.mv)).collect(),
        last_move: last.map(|p| [p.mv.from().to_string(), p.mv.to().to_string()]),
        checks: checks(game),
        checking: square_names(game.checkers()),
        points: points(game),
        armies: armies(game),
        lifelines: [
            game.lifelines(fourkings_engine::Team::RedYellow),
            game.lifelines(fourkings_engine::Team::BlueGreen),
        ],
        draw_offer: game
            .draw_offer()
            .unwrap_or_default()
            .iter()
            .copied()
            .map(protocol_seat)
            .collect(),
        resignation_request: game.resignation_request().map(protocol_seat),
        fen,
        result: result(game),
        clock,
        first_seat,
        rules: rules_view(game.rules(), silent_partners, true),
    }
}

/// Who chose a move, as its `moved` event says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MovedBy {
    /// The seat's player (or a CPU seat), on the turn.
    Player,
    /// The seat's player, queued before the turn and played by the server as it began.
    Premove,
    /// The CPU, for a player whose turn limit ran out or who is away (`automatic`).
    Cpu,
}

/// The diff of the move `ply`, just played in `game`, as the protocol defines it: the reference
/// that [`moved_frame`], which the server sends, is checked against.
#[cfg(test)]
pub(crate) fn moved_event(
    game: &Game,
    ply: &Ply,
    by: MovedBy,
    clock: Clock,
) -> fourkings_protocol::MovedEvent {
    let format = game.rules().format;
    let changed = contents(format, game.position(), &ply.changed);
    fourkings_protocol::MovedEvent {
        seat: protocol_seat(ply.seat),
        ply: game.ply_count(),
        text: ply.text.clone(),
        mv: write_coordinate(ply.mv),
        changed,
        to_move: game.to_move().map(protocol_seat),
        checks: checks(game),
        checking: square_names(ply.checkers.iter().copied()),
        points: points(game),
        armies: armies(game),
        promotion: promotion(game, ply),
        ended_draw_offer: ply.ended_draw_offer,
        automatic: by == MovedBy::Cpu || ply.walking,
        premove: by == MovedBy::Premove,
        clock,
        result: result(game),
    }
}

/// The seat that [`legal_moves`] would list moves for, without generating them.
pub(crate) fn seat_with_legal_moves(game: &Game) -> Option<SeatIndex> {
    let seat = game.to_move()?;
    if game.walking_king_to_move() {
        return None;
    }
    Some(protocol_seat(seat))
}

/// The legal moves of the seat to move, if a person or CPU is to choose one.
pub(crate) fn legal_moves(game: &Game) -> Option<LegalMoves> {
    let seat = seat_with_legal_moves(game)?;
    Some(LegalMoves {
        seat,
        ply: game.ply_count(),
        moves: game
            .legal_move_slice()
            .iter()
            .map(|&mv| write_coordinate(mv))
            .collect(),
    })
}
