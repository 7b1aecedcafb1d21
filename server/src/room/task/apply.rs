//! Changing a room's state: every change is a [`Record`], applied to the part that owns what it
//! changes and, outside replay, appended to the journal. A restarted server applies the stored
//! records in the same order to rebuild the room.

use std::time::Duration;

use fourkings_engine::Game;
use fourkings_protocol::SeatIndex;

use super::Room;
use crate::room::clock::{BankOwner, BankRules};
use crate::room::durable_views::GameAt;
use crate::room::observe::log_record;
use crate::room::record::{GameAction, Record, StoredAbsence};
use crate::room::refusal::Refusal;
use crate::room::rules::{self, SettingsError};
use crate::room::seat_numbers;
use crate::room::seating::SeatSlot;
use crate::room::session::Session;

/// A record as stored: JSON, as serde writes it (a hand-written writer saved too little to keep:
/// tests/perf/README.md, "What the hot path does").
fn encode_record(record: &Record) -> String {
    serde_json::to_string(record).expect("records always serialise")
}

impl Room {
    /// Applies `record` and journals it (before anything it causes is shown to anyone).
    // Taken by value so that callers build the record in the call.
    #[allow(clippy::needless_pass_by_value)]
    pub(super) fn commit(&mut self, record: Record) -> Result<(), Refusal> {
        // Readers keep seeing the room as it was until this change is durable.
        if !self.time.is_replaying() && self.all_durable() && !self.views.holds_info() {
            let info = self.info();
            let game = self.driver.game().map(|game| GameAt {
                games_played: self.driver.games_played(),
                events: game.events().len(),
            });
            self.views.hold(info, game);
        }
        self.apply(&record)?;
        if !self.time.is_replaying() {
            log_record(&record, self.driver.game(), self.driver.games_played());
            let body = encode_record(&record);
            self.journal.append(body, self.time.wall_now());
        }
        Ok(())
    }

    /// Commits a game action; the engine decides whether it is allowed.
    pub(super) fn commit_game(&mut self, action: GameAction) -> Result<(), Refusal> {
        self.commit(Record::Game { action })
    }

    /// Applies one record to the part that owns what it changes (no events, no storage).
    pub(super) fn apply(&mut self, record: &Record) -> Result<(), Refusal> {
        let now = self.time.now();
        match record {
            Record::Created {
                settings,
                host_token,
            } => {
                self.settings = settings.clone();
                let seat = self.seating.host_seat();
                self.seating.set_host(host_token.clone(), seat);
            }
            Record::Seat { seat, slot } => self.seating.seat(*seat, SeatSlot::from(slot)),
            Record::Permute { to } => {
                self.seating.permute(*to);
                // Team chat belongs to the partners who wrote it: new partners must not read it.
                self.chat.forget_team_lines();
            }
            Record::Settings { settings } => self.settings = settings.clone(),
            Record::Host { token, seat } => self.seating.set_host(token.clone(), *seat),
            Record::HostSeat { seat } => self.seating.set_host_seat(*seat),
            Record::GameStarted { seed, first_seat } => self.begin_game(*seed, *first_seat)?,
            Record::Game { action } => self.driver.act(action, now)?,
            Record::TurnExpired => self.driver.expire_turn(),
            Record::Premove { seat, mv } => self.driver.premoves_mut().push(*seat, mv.clone()),
            Record::PremovesCleared { seat } => self.driver.premoves_mut().clear(*seat),
            Record::Absence { seat, absence } => {
                match absence {
                    StoredAbsence::Present => self.seating.mark_present(*seat),
                    StoredAbsence::Away { deadline } => {
                        let instant = self.time.instant_of(*deadline);
                        self.seating.mark_away(*seat, instant, *deadline);
                    }
                    StoredAbsence::GraceOver => self.seating.mark_gone(*seat, now),
                }
                self.driver.follow_presence(self.seating.anyone_away(), now);
            }
            Record::Chat { audience, line } => self.chat.remember((*audience).into(), line.clone()),
            Record::FirstSeat { seat } => self.driver.set_first_seat(*seat),
            Record::Session { session } => self.session.clone_from(session),
        }
        Ok(())
    }

    /// A new game with the current seats and settings.
    fn begin_game(&mut self, seed: u64, first_seat: SeatIndex) -> Result<(), Refusal> {
        let rules = rules::rule_set(&self.settings)?;
        let game = Game::starting_at(rules, seat_numbers::engine_seat(first_seat), seed)
            .map_err(SettingsError::from)?;
        let config = &self.context.config;
        let turn_limit = (self.settings.turn_limit > 0)
            .then(|| config.game_time(u64::from(self.settings.turn_limit)));
        let team_clock = (self.settings.team_clock > 0).then(|| BankRules {
            owner: BankOwner::Team,
            start: config.game_time(u64::from(self.settings.team_clock) * 60),
            increment: Duration::ZERO,
            delay: Duration::ZERO,
        });
        let game_clock = self.settings.game_clock.map(|clock| BankRules {
            owner: BankOwner::Seat,
            start: config.game_time(u64::from(clock.minutes) * 60),
            increment: config.game_time(u64::from(clock.increment)),
            delay: config.game_time(u64::from(clock.delay)),
        });
        let now = self.time.now();
        self.driver.begin(
            game,
            (turn_limit, team_clock.or(game_clock)),
            first_seat,
            now,
        );
        if self.settings.switch_partners && self.session.is_none() {
            self.session = Some(Session::new());
        }
        self.driver.follow_presence(self.seating.anyone_away(), now);
        Ok(())
    }
}
