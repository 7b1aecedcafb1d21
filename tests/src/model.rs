//! A model client's copy of a room, kept purely from what the server sends: the game of a
//! snapshot, then each `moved` event's `changed` squares, and the whole game of `started`,
//! `game_changed` and `rematch`. It knows no chess rules; it only checks that what it is told
//! fits together (versions without gaps, plies without gaps, diffs that move a piece that is
//! there).

use std::collections::BTreeMap;

use fourkings_protocol::{Event, GameResult, GameView, MovedEvent, SeatIndex, Snapshot};

/// What [`Model::event`] did with an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The event was the next one (`v` = last + 1) and is applied.
    Applied,
    /// The event is one the model already holds (`v` ≤ last): ignored, as the protocol says.
    Duplicate,
    /// The event is beyond the next one: events were missed and the client must `resync` from
    /// [`Model::v`]. Nothing was applied.
    Gap,
}

/// A client's view of one room.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// The version of the last event applied (or of the snapshot adopted).
    pub v: u64,
    /// Whether the game has started.
    pub started: bool,
    /// Every piece by square, as the protocol writes them (`h2` → `rP`).
    pub pieces: BTreeMap<String, String>,
    /// Every move in notation, in order.
    pub moves: Vec<String>,
    /// The moves seen as `moved` events: ply (1 for the first) → seat and coordinate form. Plies
    /// that came inside a snapshot or a game view are not in it.
    pub seen: BTreeMap<u32, (SeatIndex, String)>,
    /// The seat to move, while the game goes on.
    pub to_move: Option<SeatIndex>,
    /// The result, once the game has ended.
    pub result: Option<GameResult>,
    /// How many snapshots were adopted.
    pub snapshots: u64,
    /// How many events were applied.
    pub applied: u64,
}

impl Model {
    /// An empty model, holding version 0 and no game.
    pub fn new() -> Model {
        Model::default()
    }

    /// Whether the game is over.
    pub fn finished(&self) -> bool {
        self.result.is_some()
    }

    /// Replaces the model with a snapshot. Refuses (and changes nothing) when the snapshot is
    /// older than what the model holds, or when it does not continue the moves the model holds:
    /// a move the client saw that the room no longer has is a lost move.
    pub fn adopt(&mut self, snapshot: &Snapshot) -> Result<(), String> {
        if snapshot.v < self.v {
            return Err(format!(
                "a snapshot of version {} is older than the version {} the client holds",
                snapshot.v, self.v
            ));
        }
        if let Some(game) = &snapshot.game {
            if !game.moves.starts_with(&self.moves) {
                return Err(format!(
                    "the snapshot (v {}) does not continue the moves the client holds: {:?} then {:?}",
                    snapshot.v, self.moves, game.moves
                ));
            }
            self.adopt_game(game)
                .map_err(|e| format!("the snapshot (v {}): {e}", snapshot.v))?;
        } else if self.started {
            return Err(format!(
                "a snapshot (v {}) without a game after the start",
                snapshot.v
            ));
        }
        self.v = snapshot.v;
        self.snapshots += 1;
        Ok(())
    }

    /// Takes a whole game view, once it has checked that the view names the seat that played
    /// each move, and for the moves seen as events the same seat as they did.
    fn adopt_game(&mut self, game: &GameView) -> Result<(), String> {
        if game.move_seats.len() != game.moves.len() {
            return Err(format!(
                "{} moves but {} move seats: {:?}",
                game.moves.len(),
                game.move_seats.len(),
                game.move_seats
            ));
        }
        for (&ply, (seat, _)) in self.seen.range(..=game.ply) {
            let named = game.move_seats[ply as usize - 1];
            if named != *seat {
                return Err(format!(
                    "ply {ply} was played by seat {seat} but the game view names seat {named}"
                ));
            }
        }
        self.started = true;
        self.pieces.clone_from(&game.pieces);
        self.moves.clone_from(&game.moves);
        self.seen.retain(|&ply, _| ply <= game.ply);
        self.to_move = game.to_move;
        self.result.clone_from(&game.result);
        Ok(())
    }

    /// Applies the event with version `v`, if it is the next one. An event that is the next one
    /// but does not fit the model (a move for the wrong ply, a diff that moves nothing) is an
    /// error.
    pub fn event(&mut self, v: u64, event: &Event) -> Result<Step, String> {
        if v <= self.v {
            return Ok(Step::Duplicate);
        }
        if v > self.v + 1 {
            return Ok(Step::Gap);
        }
        match event {
            Event::Started { game } => {
                if self.started {
                    return Err(format!("a second start at v {v}"));
                }
                self.adopt_game(game)
                    .map_err(|e| format!("the game view at v {v}: {e}"))?;
            }
            Event::GameChanged { game, .. } => {
                if !self.started {
                    return Err(format!("a game change at v {v} before the start"));
                }
                self.adopt_game(game)
                    .map_err(|e| format!("the game view at v {v}: {e}"))?;
            }
            Event::Rematch { game, .. } => {
                if !self.finished() {
                    return Err(format!("a rematch at v {v} before the game ended"));
                }
                self.adopt_game(game)
                    .map_err(|e| format!("the game view at v {v}: {e}"))?;
            }
            Event::Moved(moved) => self.moved(v, moved)?,
            _ => {}
        }
        self.v = v;
        self.applied += 1;
        Ok(Step::Applied)
    }

    fn moved(&mut self, v: u64, moved: &MovedEvent) -> Result<(), String> {
        if !self.started || self.finished() {
            return Err(format!("a move at v {v} outside a running game: {moved:?}"));
        }
        let expected = self.moves.len() as u32 + 1;
        if moved.ply != expected {
            return Err(format!(
                "the move at v {v} is ply {} but the client holds {} plies: {moved:?}",
                moved.ply,
                self.moves.len()
            ));
        }
        let (from, to) = squares_of(&moved.mv)
            .ok_or_else(|| format!("the move at v {v} is not in coordinate form: {moved:?}"))?;
        if !self.pieces.contains_key(from) {
            return Err(format!(
                "the move at v {v} starts on {from}, where the client has no piece: {moved:?}"
            ));
        }
        if !moved.changed.contains_key(from) || !matches!(moved.changed.get(to), Some(Some(_))) {
            return Err(format!(
                "the diff at v {v} does not show the move {from}-{to}: {moved:?}"
            ));
        }
        for (square, piece) in &moved.changed {
            match piece {
                Some(piece) => self.pieces.insert(square.clone(), piece.clone()),
                None => self.pieces.remove(square),
            };
        }
        self.moves.push(moved.text.clone());
        self.seen.insert(moved.ply, (moved.seat, moved.mv.clone()));
        self.to_move = moved.to_move;
        self.result.clone_from(&moved.result);
        Ok(())
    }
}

/// The from- and to-square of a move in coordinate form (`h10h11q` → `h10`, `h11`).
pub fn squares_of(mv: &str) -> Option<(&str, &str)> {
    fn square_len(text: &str) -> Option<usize> {
        let mut chars = text.char_indices();
        let (_, file) = chars.next()?;
        if !file.is_ascii_lowercase() {
            return None;
        }
        let digits = text[1..].bytes().take_while(u8::is_ascii_digit).count();
        (digits > 0).then_some(1 + digits)
    }
    let first = square_len(mv)?;
    let second = square_len(&mv[first..])?;
    Some((&mv[..first], &mv[first..first + second]))
}

#[cfg(test)]
mod tests {
    use super::squares_of;

    #[test]
    fn squares_of_moves() {
        assert_eq!(squares_of("h2h4"), Some(("h2", "h4")));
        assert_eq!(squares_of("h10h11q"), Some(("h10", "h11")));
        assert_eq!(squares_of("a11c11"), Some(("a11", "c11")));
        assert_eq!(squares_of("h2"), None);
        assert_eq!(squares_of(""), None);
    }
}
