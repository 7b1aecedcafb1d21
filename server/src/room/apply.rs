//! Changing a room's state: every change is a [`Record`], applied here and, outside replay,
//! stored. A restarted server applies the stored records in the same order to rebuild the room.

use fourkings_engine::{Game, Seat};
use fourkings_protocol::{ErrorCode, Event, SeatIndex};
use tokio::time::Instant;

use super::presence::Absence;
use super::record::{GameAction, Record, StoredAbsence};
use super::state::{Audience, Reject, Room, SeatSlot, reject};
use super::{play, views};
use crate::storage::Write;

/// A record as stored: JSON. A move, most of what a room records, is written directly (serde
/// took 1,400 instructions for it); anything else, or a move whose text would need escaping,
/// goes through serde. Both give the same bytes (a test checks it).
fn encode_record(record: &Record) -> String {
    if let Record::Game {
        action:
            GameAction::Move {
                seat,
                mv,
                automatic,
            },
    } = record
    {
        if mv
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'=')
        {
            let mut body = String::with_capacity(80 + mv.len());
            body.push_str(r#"{"record":"game","action":{"kind":"move","seat":"#);
            body.push_str(itoa::Buffer::new().format(*seat));
            body.push_str(r#","mv":""#);
            body.push_str(mv);
            body.push_str(if *automatic {
                r#"","automatic":true}}"#
            } else {
                r#"","automatic":false}}"#
            });
            return body;
        }
    }
    serde_json::to_string(record).expect("records always serialise")
}

impl Room {
    /// Applies `record` and stores it (before anything it causes is shown to anyone).
    // Taken by value so that callers build the record in the call.
    #[allow(clippy::needless_pass_by_value)]
    pub(super) fn commit(&mut self, record: Record) -> Result<(), Reject> {
        self.apply(&record)?;
        if !self.replaying {
            self.log_record(&record);
            let body = encode_record(&record);
            let at = self.wall_now();
            self.writes.push(Write::Record {
                room: self.id.clone(),
                at,
                body,
                v: None,
            });
        }
        Ok(())
    }

    /// Commits a game action; the engine decides whether it is allowed.
    pub(super) fn commit_game(&mut self, action: GameAction) -> Result<(), Reject> {
        self.commit(Record::Game { action })
    }

    /// Applies one record to the state (no events, no storage).
    pub(super) fn apply(&mut self, record: &Record) -> Result<(), Reject> {
        match record {
            Record::Created {
                settings,
                host_token,
            } => {
                self.settings = settings.clone();
                self.host_token.clone_from(host_token);
            }
            Record::Seat { seat, slot } => {
                self.seats[usize::from(*seat)] = SeatSlot::from(slot);
                self.absence[usize::from(*seat)] = None;
            }
            Record::Permute { to } => {
                let old = self.seats.clone();
                for (from, slot) in old.into_iter().enumerate() {
                    self.seats[usize::from(to[from])] = slot;
                }
                let absence = self.absence;
                for (from, a) in absence.into_iter().enumerate() {
                    self.absence[usize::from(to[from])] = a;
                }
                self.host_seat = self.host_seat.map(|h| to[usize::from(h)]);
                // Team chat belongs to the partners who wrote it: new partners must not read it.
                self.chat
                    .retain(|(audience, _)| !matches!(audience, Audience::Seats(_)));
            }
            Record::Settings { settings } => self.settings = settings.clone(),
            Record::Host { token, seat } => {
                self.host_token.clone_from(token);
                self.host_seat = *seat;
            }
            Record::HostSeat { seat } => self.host_seat = *seat,
            Record::GameStarted { seed, first_seat } => self.begin_game(*seed, *first_seat)?,
            Record::Game { action } => {
                self.apply_game(action)?;
                self.follow_turn();
            }
            Record::TurnExpired => self.clocks.expired = true,
            Record::Absence { seat, absence } => {
                self.absence[usize::from(*seat)] = match absence {
                    StoredAbsence::Present => None,
                    StoredAbsence::Away { deadline } => Some(Absence {
                        deadline: self.instant_of(*deadline),
                        grace_over: false,
                    }),
                    StoredAbsence::GraceOver => Some(Absence {
                        deadline: self.now(),
                        grace_over: true,
                    }),
                };
                self.duo_clocks_follow_presence();
            }
            Record::Chat { audience, line } => self.remember_chat((*audience).into(), line.clone()),
            Record::FirstSeat { seat } => self.first_seat = *seat,
            Record::Session { session } => self.session.clone_from(session),
        }
        Ok(())
    }

    fn apply_game(&mut self, action: &GameAction) -> Result<(), Reject> {
        let Some(game) = self.game.as_mut() else {
            return reject(ErrorCode::NotStarted, "the game has not started");
        };
        let seat = |s: SeatIndex| Seat::ALL[usize::from(s & 3)];
        let result = match action {
            GameAction::Move { seat: s, mv, .. } => {
                let mv = play::parse_coordinate(game, &mut self.legal, mv)?;
                game.play(seat(*s), mv).map(|_| ())
            }
            GameAction::Walk { mv } => {
                let mv = views::find_walking_move(game, mv).ok_or_else(|| {
                    (
                        ErrorCode::IllegalMove,
                        format!("{mv} is not the walking king's move"),
                    )
                })?;
                game.walk_king_with(mv).map(|_| ())
            }
            GameAction::Resign { seat: s } => game.resign(seat(*s)).map(|_| ()),
            GameAction::AnswerResignation { seat: s, accept } => {
                game.answer_resignation(seat(*s), *accept)
            }
            GameAction::OfferDraw { seat: s } => game.offer_draw(seat(*s)).map(|_| ()),
            GameAction::AcceptDraw { seat: s } => game.accept_draw(seat(*s)).map(|_| ()),
            GameAction::DeclineDraw { seat: s } => game.decline_draw(seat(*s)),
            GameAction::TakeBack { seat: s } => game.take_back(seat(*s)),
            GameAction::ClaimWin { seat: s } => game.claim_win(seat(*s)),
            GameAction::TimeOut { seat: s } => game.time_out(seat(*s)),
            GameAction::Abandon { seat: s } => game.abandon(seat(*s)),
        };
        self.legal.clear();
        result.map_err(play::refused)
    }

    /// Duo stops its clocks while anyone is away during a game.
    pub(super) fn duo_clocks_follow_presence(&mut self) {
        let now = self.now();
        let duo_running = self
            .game
            .as_ref()
            .is_some_and(|g| !g.is_over() && g.rules().format == fourkings_engine::Format::Duo);
        if duo_running {
            if self.absence.iter().any(Option::is_some) {
                self.clocks.pause(now);
            } else {
                self.clocks.resume(now);
            }
        }
    }

    /// Times the turn the game is at now (a new one starts when the ply or the seat changed).
    pub(super) fn follow_turn(&mut self) {
        let Some(game) = &self.game else { return };
        let to_move = game.to_move().map(|s| s.index() as SeatIndex);
        let ply = game.ply_count();
        let over = game.is_over();
        let now = self.now();
        if over {
            self.clocks.stop(now);
        } else {
            self.clocks.follow(ply, to_move, now);
        }
    }

    /// A new game with the current seats and settings.
    pub(super) fn begin_game(&mut self, seed: u64, first_seat: SeatIndex) -> Result<(), Reject> {
        let rules =
            super::rules::rule_set(&self.settings).map_err(|e| (ErrorCode::InvalidSettings, e))?;
        let game = Game::starting_at(rules, Seat::ALL[usize::from(first_seat & 3)], seed)
            .map_err(|e| (ErrorCode::InvalidSettings, e.to_string()))?;
        let config = &self.context.config;
        let turn_limit = (self.settings.turn_limit > 0)
            .then(|| config.game_time(u64::from(self.settings.turn_limit)));
        let bank = (self.settings.team_clock > 0)
            .then(|| config.game_time(u64::from(self.settings.team_clock) * 60));
        self.clocks = super::clock::Clocks::new(turn_limit, bank);
        self.first_seat = first_seat;
        self.game = Some(game);
        self.legal.clear();
        self.games_played += 1;
        self.archived = false;
        if self.settings.switch_partners && self.session.is_none() {
            self.session = Some(super::session::Session::new());
        }
        self.cpu_thinking = false;
        self.cancel_cpu();
        self.follow_turn();
        self.duo_clocks_follow_presence();
        Ok(())
    }

    /// Marks `seat`'s player away with a grace period, or back, or past the grace period, and
    /// tells everyone.
    pub(super) fn set_absence(&mut self, seat: SeatIndex, absence: StoredAbsence) {
        if self.commit(Record::Absence { seat, absence }).is_err() {
            return;
        }
        if let Some(presence) = self.presence(seat) {
            let clock = self.clocks.view(self.now());
            self.emit(Event::Presence {
                seat,
                presence,
                clock,
            });
        }
        if self.game.as_ref().is_some_and(|g| !g.is_over()) {
            self.advance();
        }
    }

    /// The moment of a wall-clock time (ms since the epoch) on the room's clock. On replay, time
    /// stands still while the server was down: a turn or a grace period resumes with what it had
    /// left when the server stopped.
    pub(super) fn instant_of(&self, wall_ms: u64) -> Instant {
        let (base, base_ms) = match &self.replay {
            Some(replay) if self.replaying => (replay.base, replay.stopped_at),
            _ => (Instant::now(), crate::storage::writer::now_ms()),
        };
        if wall_ms >= base_ms {
            base + std::time::Duration::from_millis(wall_ms - base_ms)
        } else {
            base.checked_sub(std::time::Duration::from_millis(base_ms - wall_ms))
                .unwrap_or(base)
        }
    }

    /// Now, on the room's clock (the record's moment, during replay).
    pub(super) fn now(&self) -> Instant {
        match &self.replay {
            Some(replay) if self.replaying => self.instant_of(replay.at),
            _ => Instant::now(),
        }
    }

    /// Now, in milliseconds since the epoch.
    pub(super) fn wall_now(&self) -> u64 {
        match &self.replay {
            Some(replay) if self.replaying => replay.at,
            _ => crate::storage::writer::now_ms(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Move records written directly are byte for byte what serde writes, and read back the
    /// same; texts that would need escaping take serde's path.
    #[test]
    fn move_records_are_written_as_serde_writes_them() {
        for seat in 0..4 {
            for mv in [
                "h2h4", "d13-d12", "a7a8=q", "n14n13", "H2H4", " h2h4", "h\"2", "é", "",
            ] {
                for automatic in [false, true] {
                    let record = Record::Game {
                        action: GameAction::Move {
                            seat,
                            mv: mv.to_owned(),
                            automatic,
                        },
                    };
                    let body = encode_record(&record);
                    assert_eq!(body, serde_json::to_string(&record).unwrap(), "{mv}");
                    assert_eq!(serde_json::from_str::<Record>(&body).unwrap(), record);
                }
            }
        }
    }
}
