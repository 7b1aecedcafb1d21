//! Everything the server sends is one JSON text frame, serialised once and shared by every
//! recipient ([`encode`]). Two frames are written by hand instead, because every move sends them
//! and serde's general path cost more than the rest of the move (tests/perf/README.md, "What the
//! hot path does"); each is byte for byte what serialising its message gives, which a test
//! checks over random games of every preset.

use axum::extract::ws::Utf8Bytes;
use fourkings_engine::game::Ply;
use fourkings_engine::notation::{MAX_COORDINATE_LEN, coordinate_bytes};
use fourkings_engine::{Game, Move, Seat, Square};
use fourkings_protocol::{ArmyState, Clock, SeatIndex, ServerMessage};

use super::views::{MovedBy, armies, piece_code, points, promotion, result};

/// Serialises a message once; the bytes are shared by every recipient.
pub(crate) fn encode(message: &ServerMessage) -> Utf8Bytes {
    Utf8Bytes::from(serde_json::to_string(message).expect("server messages always serialise"))
}

/// The `moved` event at version `v`, written straight into its frame: every connection of the
/// room receives it for every move, and building a `MovedEvent` to serialise it (a map of
/// allocated strings, then serde's general path) was the largest part of a move's cost after
/// the legal moves. The bytes are exactly what serialising the `MovedEvent` that the tests'
/// `moved_event` builds gives (a test checks it over random games).
// One piece: the frame's fields in the order serde writes them, so that it reads as the message.
pub(crate) fn moved_frame(v: u64, game: &Game, ply: &Ply, by: MovedBy, clock: &Clock) -> Utf8Bytes {
    let format = game.rules().format;
    let pos = game.position();
    let mut numbers = itoa::Buffer::new();
    let mut text = Vec::with_capacity(256);
    text.extend_from_slice(br#"{"type":"event","v":"#);
    text.extend_from_slice(numbers.format(v).as_bytes());
    text.extend_from_slice(br#","event":{"kind":"moved","seat":"#);
    text.extend_from_slice(numbers.format(ply.seat.index()).as_bytes());
    text.extend_from_slice(br#","ply":"#);
    text.extend_from_slice(numbers.format(game.ply_count()).as_bytes());
    text.extend_from_slice(br#","text":"#);
    push_json_str(&mut text, &ply.text);
    text.extend_from_slice(br#","move":"#);
    push_quoted_coordinate(&mut text, ply.mv, false);
    text.extend_from_slice(br#","changed":{"#);
    // A map keyed by square name: in name order, each square once.
    let mut changed: arrayvec::ArrayVec<(&[u8], Square), 4> = ply
        .changed
        .iter()
        .map(|&sq| (sq.as_str().as_bytes(), sq))
        .collect();
    changed.sort_unstable();
    for (i, &(name, sq)) in changed.iter().enumerate() {
        if i > 0 {
            if changed[i - 1].0 == name {
                continue;
            }
            text.push(b',');
        }
        text.push(b'"');
        text.extend_from_slice(name);
        text.extend_from_slice(b"\":");
        match pos.piece_at(sq) {
            Some(piece) => {
                text.push(b'"');
                text.extend_from_slice(piece_code(format, piece).as_bytes());
                text.push(b'"');
            }
            None => text.extend_from_slice(b"null"),
        }
    }
    text.extend_from_slice(br#"},"to_move":"#);
    match game.to_move() {
        Some(seat) => text.extend_from_slice(numbers.format(seat.index()).as_bytes()),
        None => text.extend_from_slice(b"null"),
    }
    text.extend_from_slice(br#","checks":["#);
    // The seats whose armies are in check, in seat order (as `checks` lists them), without
    // collecting them first.
    let checked = game.checked_armies();
    let in_check = Seat::ALL
        .into_iter()
        .filter(|seat| checked.contains(seat.army(format)));
    for (i, seat) in in_check.enumerate() {
        if i > 0 {
            text.push(b',');
        }
        text.extend_from_slice(numbers.format(seat.index()).as_bytes());
    }
    text.push(b']');
    if !ply.checkers.is_empty() {
        text.extend_from_slice(br#","checking":["#);
        for (i, sq) in ply.checkers.iter().copied().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            text.push(b'"');
            text.extend_from_slice(sq.as_str().as_bytes());
            text.push(b'"');
        }
        text.push(b']');
    }
    text.extend_from_slice(br#","points":["#);
    for (i, points) in points(game).into_iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        text.extend_from_slice(numbers.format(points).as_bytes());
    }
    text.extend_from_slice(br#"],"armies":["#);
    for (i, army) in armies(game).into_iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        text.extend_from_slice(match army {
            ArmyState::Playing => br#""playing""#.as_slice(),
            ArmyState::KingWalking => br#""king_walking""#,
            ArmyState::Out => br#""out""#,
            ArmyState::Absent => br#""absent""#,
        });
    }
    text.push(b']');
    if let Some(piece) = promotion(game, ply) {
        text.extend_from_slice(br#","promotion":""#);
        text.extend_from_slice(piece.as_bytes());
        text.push(b'"');
    }
    if ply.ended_draw_offer {
        text.extend_from_slice(br#","ended_draw_offer":true"#);
    }
    if by == MovedBy::Cpu || ply.walking {
        text.extend_from_slice(br#","automatic":true"#);
    }
    if by == MovedBy::Premove {
        text.extend_from_slice(br#","premove":true"#);
    }
    text.extend_from_slice(br#","clock":"#);
    push_clock(&mut text, clock);
    if let Some(result) = result(game) {
        text.extend_from_slice(br#","result":"#);
        write_json(&mut text, &result);
    }
    text.extend_from_slice(b"}}");
    Utf8Bytes::from(String::from_utf8(text).expect("serde_json and square names write UTF-8"))
}

/// Appends `value` as JSON.
fn write_json(text: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) {
    serde_json::to_writer(text, value).expect("protocol values always serialise");
}

/// Appends `value` as a JSON string: directly when nothing in it needs escaping (move texts
/// never do), through serde otherwise.
fn push_json_str(text: &mut Vec<u8>, value: &str) {
    if value
        .bytes()
        .all(|b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
    {
        text.push(b'"');
        text.extend_from_slice(value.as_bytes());
        text.push(b'"');
    } else {
        write_json(text, value);
    }
}

/// Appends `clock` as JSON, fields in their declared order and absent ones left out, as serde
/// writes it.
fn push_clock(text: &mut Vec<u8>, clock: &Clock) {
    let mut numbers = itoa::Buffer::new();
    let mut first = true;
    let mut field = |text: &mut Vec<u8>, name: &[u8]| {
        text.extend_from_slice(if first { b"{\"" } else { b",\"" });
        first = false;
        text.extend_from_slice(name);
        text.extend_from_slice(b"\":");
    };
    if let Some(at) = clock.turn_ends_at {
        field(text, b"turn_ends_at");
        text.extend_from_slice(numbers.format(at).as_bytes());
    }
    if let Some(ms) = clock.turn_remaining_ms {
        field(text, b"turn_remaining_ms");
        text.extend_from_slice(numbers.format(ms).as_bytes());
    }
    if let Some(banks) = &clock.banks_ms {
        field(text, b"banks_ms");
        text.push(b'[');
        for (i, &ms) in banks.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            text.extend_from_slice(numbers.format(ms).as_bytes());
        }
        text.push(b']');
    }
    if let Some(ms) = clock.delay_ms {
        field(text, b"delay_ms");
        text.extend_from_slice(numbers.format(ms).as_bytes());
    }
    if clock.paused {
        field(text, b"paused");
        text.extend_from_slice(b"true");
    }
    if first {
        text.push(b'{');
    }
    text.push(b'}');
}

/// The `legal_moves` message, written straight into its frame: it is the largest message of
/// every move, and serialising it through `LegalMoves` cost an allocated string and an escaping
/// pass per move. The bytes are exactly what serialising [`ServerMessage::LegalMoves`] gives
/// (a test checks it over random games of every preset).
///
/// [`ServerMessage::LegalMoves`]: fourkings_protocol::ServerMessage::LegalMoves
pub(crate) fn legal_moves_frame(v: u64, seat: SeatIndex, ply: u32, moves: &[Move]) -> Utf8Bytes {
    let mut numbers = itoa::Buffer::new();
    // Room for the longest frame from the start: growing it later cost a reallocation and a copy
    // of the frame, 400 instructions a move (callgrind).
    let mut text = Vec::with_capacity(LEGAL_MOVES_HEAD + moves.len() * MAX_QUOTED_COORDINATE + 2);
    text.extend_from_slice(br#"{"type":"legal_moves","v":"#);
    text.extend_from_slice(numbers.format(v).as_bytes());
    text.extend_from_slice(br#","seat":"#);
    text.extend_from_slice(numbers.format(seat.get()).as_bytes());
    text.extend_from_slice(br#","ply":"#);
    text.extend_from_slice(numbers.format(ply).as_bytes());
    text.extend_from_slice(br#","moves":["#);
    // The moves are written into room enough for the longest of them, then the unused end is cut
    // off: one bounds check a move, where growing the vector checked its capacity for each
    // piece and cost twice as much (callgrind).
    let start = text.len();
    text.resize(start + moves.len() * MAX_QUOTED_COORDINATE, 0);
    let mut end = start;
    for (i, &mv) in moves.iter().enumerate() {
        end += write_quoted_coordinate(&mut text[end..], mv, i > 0);
    }
    text.truncate(end);
    text.extend_from_slice(b"]}");
    Utf8Bytes::from(String::from_utf8(text).expect("a legal_moves frame is ASCII"))
}

/// The most bytes [`write_quoted_coordinate`] writes: a comma, two quotes and the longest
/// coordinate.
const MAX_QUOTED_COORDINATE: usize = 3 + MAX_COORDINATE_LEN;

/// The most bytes a `legal_moves` frame has before its first move: the fixed text (56 bytes)
/// and the version, seat and ply at their longest.
const LEGAL_MOVES_HEAD: usize = 56 + 20 + 1 + 10;

/// Appends `mv` in coordinate form and in quotes (after a comma if `comma`) to JSON text being
/// written.
fn push_quoted_coordinate(text: &mut Vec<u8>, mv: Move, comma: bool) {
    let mut bytes = [0u8; MAX_QUOTED_COORDINATE];
    let len = write_quoted_coordinate(&mut bytes, mv, comma);
    text.extend_from_slice(&bytes[..len]);
}

/// Writes `mv` in coordinate form and in quotes (after a comma if `comma`) at the start of
/// `out`, which has room for [`MAX_QUOTED_COORDINATE`] bytes, and says how many it wrote.
fn write_quoted_coordinate(out: &mut [u8], mv: Move, comma: bool) -> usize {
    let out = &mut out[..MAX_QUOTED_COORDINATE];
    let mut len = usize::from(comma);
    out[0] = b',';
    out[len] = b'"';
    len += 1;
    // Room for the longest coordinate, so that the engine writes it with copies of a fixed size.
    let place: &mut [u8; MAX_COORDINATE_LEN] = (&mut out[len..len + MAX_COORDINATE_LEN])
        .try_into()
        .expect("MAX_QUOTED_COORDINATE leaves room for the longest coordinate");
    len += coordinate_bytes(mv, place);
    out[len] = b'"';
    len + 1
}

#[cfg(test)]
mod tests {
    use fourkings_engine::Preset;
    use fourkings_engine::notation::CoordinateError;
    use fourkings_protocol::ServerMessage;
    use rand::{Rng, SeedableRng};

    use super::*;
    use crate::room::views::{legal_moves, moved_event};
    use fourkings_engine::notation::{parse_coordinate, write_coordinate};

    /// The legal move of the seat to move that `text` names in coordinate form.
    fn find_move(game: &Game, text: &str) -> Result<Option<Move>, CoordinateError> {
        let named = parse_coordinate(text, game.rules().board())?;
        Ok(named.find_in(game.legal_move_slice()))
    }

    /// What serde writes for the `legal_moves` message of the seat to move: the message built
    /// as a `LegalMoves`, then serialised (apart, so that callgrind counts it on its own).
    #[inline(never)]
    fn serde_legal_moves_frame(v: u64, game: &Game) -> String {
        let moves = legal_moves(game).expect("a seat chooses a move");
        serde_json::to_string(&ServerMessage::LegalMoves { v, moves }).unwrap()
    }

    /// What serde writes for the `moved` event: the event built as a `MovedEvent`, then
    /// serialised.
    #[inline(never)]
    fn serde_moved_frame(v: u64, game: &Game, ply: &Ply, by: MovedBy, clock: &Clock) -> String {
        let event = moved_event(game, ply, by, clock.clone());
        serde_json::to_string(&ServerMessage::Event {
            v,
            event: fourkings_protocol::Event::Moved(event),
        })
        .unwrap()
    }

    /// Random games of every preset: at every position the hand-written `legal_moves` frame is
    /// byte for byte what serde writes, and moves are found by their text among the game's.
    #[test]
    fn legal_moves_frames_match_serde_and_moves_are_found_by_their_text() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // Moves that ended their game, whose frames carry the result.
        let mut finals = 0;
        // Moves that ended a draw offer, and promotions, whose frames carry them.
        let (mut offers_ended, mut promotions) = (0, 0);
        for preset in Preset::ALL {
            for game_number in 0..4 {
                let mut game = Game::with_seed(preset.rules(), game_number).unwrap();
                for _ in 0..1500 {
                    let Some(listed) = legal_moves(&game) else {
                        break;
                    };
                    let fresh = game.legal_moves();
                    let v = rng.random_range(0..u64::MAX);
                    let frame = legal_moves_frame(v, listed.seat, listed.ply, &fresh);
                    assert_eq!(frame.as_str(), serde_legal_moves_frame(v, &game));
                    if fresh.is_empty() {
                        break;
                    }
                    let mv = fresh[rng.random_range(0..fresh.len())];
                    let seat = game.to_move().unwrap();
                    // Now and then an open draw offer, which the move ends.
                    if rng.random_bool(0.1) {
                        let _ = game.offer_draw(seat);
                    }
                    let mut after = game.clone();
                    after.play(seat, mv).unwrap();
                    let clock = Clock {
                        turn_ends_at: rng.random_bool(0.5).then(|| rng.random()),
                        turn_remaining_ms: rng.random_bool(0.5).then(|| rng.random()),
                        banks_ms: rng.random_bool(0.3).then(|| {
                            let count = if rng.random_bool(0.5) { 2 } else { 4 };
                            (0..count).map(|_| rng.random()).collect()
                        }),
                        delay_ms: rng.random_bool(0.2).then(|| rng.random()),
                        paused: rng.random_bool(0.2),
                    };
                    let by =
                        [MovedBy::Player, MovedBy::Premove, MovedBy::Cpu][rng.random_range(0..3)];
                    let ply = after.plies().last().unwrap();
                    assert_eq!(
                        moved_frame(v, &after, ply, by, &clock).as_str(),
                        serde_moved_frame(v, &after, ply, by, &clock)
                    );
                    finals += usize::from(after.is_over());
                    offers_ended += usize::from(ply.ended_draw_offer);
                    promotions += usize::from(ply.mv.promotion().is_some());
                    // Every move is found by its coordinate text among the kept moves, and
                    // texts that name no legal move find nothing.
                    for &listed in &fresh {
                        let text = write_coordinate(listed);
                        assert_eq!(find_move(&game, &text), Ok(Some(listed)));
                        for wrong in [format!("{text}q"), format!("{text}x"), text[1..].into()] {
                            if !fresh.iter().any(|&m| write_coordinate(m) == wrong) {
                                assert_eq!(
                                    find_move(&game, &wrong).ok().flatten(),
                                    None,
                                    "{wrong}"
                                );
                            }
                        }
                    }
                    for wrong in ["", "a1a1", "h2", "h02h4", "h2h4qq", "hh2h4", "h2h4\u{e9}"] {
                        assert_eq!(find_move(&game, wrong).ok().flatten(), None, "{wrong}");
                    }
                    game.play(seat, mv).unwrap();
                }
            }
        }
        assert!(finals >= 4, "only {finals} games ended");
        assert!(
            offers_ended >= 100,
            "only {offers_ended} moves ended a draw offer"
        );
        assert!(promotions >= 10, "only {promotions} promotions");
    }
}
