//! Switch-partners sessions: three games with every pairing once, each person earning 1 per team
//! win and ½ per draw.

use fourkings_engine::Outcome;
use fourkings_protocol::{SeatIndex, SessionPoints, SessionView};
use serde::{Deserialize, Serialize};

use super::seat_numbers;
use super::seating::Seating;

/// A switch-partners session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Session {
    /// The game being played or just finished, 1–3.
    game: u8,
    /// Where each person (numbered by their seat in game 1) sits now.
    seat_of: [SeatIndex; 4],
    /// Each person's points, in halves.
    halves: [u32; 4],
    /// Whether the current game's result has been counted.
    counted: bool,
}

/// Where persons 0–3 (A, B, C, D) sit in each game so that every pairing plays once, partners
/// opposite: A+C v B+D, then A+B v C+D, then A+D v B+C.
const PAIRINGS: [[SeatIndex; 4]; 3] = {
    let [a, b, c, d] = SeatIndex::ALL;
    [[a, b, c, d], [a, c, b, d], [a, b, d, c]]
};

impl Session {
    /// A session at its first game, counting persons by where they sit now.
    pub(crate) fn new() -> Session {
        Session {
            game: 1,
            seat_of: PAIRINGS[0],
            halves: [0; 4],
            counted: false,
        }
    }

    fn finished(&self) -> bool {
        self.game == 3 && self.counted
    }

    /// The session with the current game's `outcome` counted, unless it was already.
    pub(crate) fn counted(&self, outcome: &Outcome) -> Option<Session> {
        if self.counted {
            return None;
        }
        let mut session = self.clone();
        session.counted = true;
        for person in 0..4 {
            let seat = seat_numbers::engine_seat(session.seat_of[person]);
            session.halves[person] += match outcome {
                Outcome::Win { team, .. } if seat.team() == *team => 2,
                Outcome::Draw { .. } => 1,
                _ => 0,
            };
        }
        Some(session)
    }

    /// The session at its next game, and where each seat's occupant moves for it (`to[seat]`),
    /// if anyone moves; after the third game, a new session.
    pub(crate) fn next_game(&self) -> (Session, Option<[SeatIndex; 4]>) {
        if self.finished() {
            return (Session::new(), None);
        }
        let next = PAIRINGS[usize::from(self.game)];
        let moves = reseat(self.seat_of, next);
        let session = Session {
            game: self.game + 1,
            seat_of: next,
            halves: self.halves,
            counted: false,
        };
        (session, Some(moves))
    }

    /// The standings as clients see them.
    pub(crate) fn view(&self, seating: &Seating) -> SessionView {
        let mut standings: Vec<SessionPoints> = (0..4)
            .map(|person| {
                let seat = self.seat_of[person];
                let name = seating
                    .name(seat)
                    .map_or_else(|| format!("CPU {seat}"), str::to_owned);
                SessionPoints {
                    name,
                    seat,
                    points: self.halves[person] as f32 / 2.0,
                }
            })
            .collect();
        standings.sort_by(|a, b| b.points.total_cmp(&a.points));
        SessionView {
            game: self.game,
            standings,
            finished: self.finished(),
        }
    }
}

/// For each seat now, the seat its occupant moves to when persons go from `now` to `next`.
fn reseat(now: [SeatIndex; 4], next: [SeatIndex; 4]) -> [SeatIndex; 4] {
    // Every entry is written: `now` holds each seat once.
    let mut to = SeatIndex::ALL;
    for person in 0..4 {
        to[now[person].index()] = next[person];
    }
    to
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seats numbered `n`.
    fn seats(n: [u8; 4]) -> [SeatIndex; 4] {
        n.map(|i| SeatIndex::new(i).unwrap())
    }

    /// The seat numbered `n`.
    fn seat(n: u8) -> SeatIndex {
        SeatIndex::new(n).unwrap()
    }

    #[test]
    fn every_pairing_plays_once() {
        let mut pairs = Vec::new();
        for seating in PAIRINGS {
            // Persons in seats 0 and 2 are partners, as are those in 1 and 3.
            let person_at = |seat: SeatIndex| seating.iter().position(|&s| s == seat).unwrap();
            let mut a = [person_at(seat(0)), person_at(seat(2))];
            let mut b = [person_at(seat(1)), person_at(seat(3))];
            a.sort_unstable();
            b.sort_unstable();
            pairs.push(a);
            pairs.push(b);
        }
        pairs.sort_unstable();
        assert_eq!(pairs, vec![[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]);
    }

    #[test]
    fn reseating_moves_each_person_to_their_next_seat() {
        let to = reseat(PAIRINGS[0], PAIRINGS[1]);
        // Person B (seat 1) goes to seat 2, person C (seat 2) to seat 1.
        assert_eq!(to, seats([0, 2, 1, 3]));
        let to = reseat(PAIRINGS[1], PAIRINGS[2]);
        // Now B sits in 2 and goes to 1; C sits in 1 and goes to 3; D sits in 3 and goes to 2.
        assert_eq!(to, seats([0, 3, 1, 2]));
    }

    #[test]
    fn a_session_goes_through_three_games_and_starts_anew() {
        let first = Session::new();
        let (second, moves) = first.next_game();
        assert_eq!(moves, Some(seats([0, 2, 1, 3])));
        let (third, _) = second.next_game();
        let outcome = Outcome::Draw {
            reason: fourkings_engine::game::DrawReason::Agreement,
        };
        let done = third.counted(&outcome).unwrap();
        assert!(done.counted(&outcome).is_none(), "a game counts once");
        assert_eq!(done.halves, [1; 4]);
        assert_eq!(done.next_game(), (Session::new(), None));
    }
}
