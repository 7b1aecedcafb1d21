//! The clocks: the turn limit and Duo's team banks. The server's clock is the only clock; clients
//! are told when the current turn ends and count down from that.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fourkings_protocol::{Clock, SeatIndex};
use tokio::time::Instant;

/// The team a seat plays for (seats 0+2, seats 1+3).
fn team(seat: SeatIndex) -> usize {
    seat.index() & 1
}

/// Milliseconds since the Unix epoch of `at`, on the server's wall clock.
pub(super) fn epoch_ms(at: Instant, now: Instant) -> u64 {
    let wall = SystemTime::now() + at.saturating_duration_since(now);
    wall.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A duration in whole milliseconds, rounded to the nearest.
fn round_ms(d: Duration) -> u64 {
    ((d.as_micros() + 500) / 1000) as u64
}

/// The clocks of one game.
#[derive(Debug)]
pub(super) struct Clocks {
    /// Game time a move may take, if the room has a turn limit.
    turn_limit: Option<Duration>,
    /// Duo: game time left in each team's bank.
    banks: Option<[Duration; 2]>,
    /// The seat whose turn it is (while the game goes on).
    current: Option<SeatIndex>,
    /// Since when the current turn's time has been running (`None` while paused or over).
    since: Option<Instant>,
    /// Time the current turn used before a pause.
    used: Duration,
    /// Whether the current turn's limit has run out (the CPU is playing the move).
    expired: bool,
    /// Whether the clocks are stopped (Duo, while a player is away).
    paused: bool,
    /// The ply and seat of the turn being timed, to notice when the turn passes.
    turn: Option<(u32, Option<SeatIndex>)>,
}

impl Clocks {
    /// Clocks with a turn limit and team banks, not yet running.
    pub(super) fn new(turn_limit: Option<Duration>, bank: Option<Duration>) -> Clocks {
        Clocks {
            turn_limit,
            banks: bank.map(|b| [b; 2]),
            current: None,
            since: None,
            used: Duration::ZERO,
            expired: false,
            paused: false,
            turn: None,
        }
    }

    /// Starts timing a new turn if the game's turn (`ply`, `to_move`) is not the one being timed.
    pub(super) fn follow(&mut self, ply: u32, to_move: Option<SeatIndex>, now: Instant) {
        if self.turn != Some((ply, to_move)) {
            self.turn = Some((ply, to_move));
            self.start_turn(to_move, now);
        }
    }

    /// Charges the running turn's time to its team's bank.
    fn charge(&mut self, now: Instant) {
        if let (Some(seat), Some(since)) = (self.current, self.since.take()) {
            let elapsed = now.saturating_duration_since(since);
            self.used += elapsed;
            if let Some(banks) = &mut self.banks {
                banks[team(seat)] = banks[team(seat)].saturating_sub(elapsed);
            }
            self.since = Some(now);
        }
    }

    /// The turn passed to `seat` (or the game ended: `None`).
    pub(super) fn start_turn(&mut self, seat: Option<SeatIndex>, now: Instant) {
        self.charge(now);
        self.current = seat;
        self.since = if self.paused { None } else { seat.map(|_| now) };
        self.used = Duration::ZERO;
        self.expired = false;
    }

    /// The game is over: nothing runs any more.
    pub(super) fn stop(&mut self, now: Instant) {
        self.charge(now);
        self.current = None;
        self.since = None;
        self.paused = false;
    }

    /// Stops the clocks (Duo: a player is away).
    pub(super) fn pause(&mut self, now: Instant) {
        if !self.paused {
            self.charge(now);
            self.since = None;
            self.paused = true;
        }
    }

    /// Starts them again.
    pub(super) fn resume(&mut self, now: Instant) {
        if self.paused {
            self.paused = false;
            self.since = self.current.map(|_| now);
        }
    }

    /// When the current turn's limit runs out, while it runs.
    pub(super) fn turn_deadline(&self) -> Option<Instant> {
        let (limit, since) = (self.turn_limit?, self.since?);
        (!self.expired).then(|| since + limit.saturating_sub(self.used))
    }

    /// When the bank of the team to move runs out, while it runs.
    pub(super) fn bank_deadline(&self) -> Option<Instant> {
        let (banks, seat, since) = (self.banks?, self.current?, self.since?);
        Some(since + banks[team(seat)])
    }

    /// The team to move's bank is empty.
    pub(super) fn bank_empty(&self, now: Instant) -> bool {
        self.bank_deadline().is_some_and(|d| d <= now)
    }

    /// The current turn's limit ran out: the CPU plays the move.
    pub(super) fn expire(&mut self) {
        self.expired = true;
    }

    /// Whether the current turn's limit has run out.
    pub(super) fn expired(&self) -> bool {
        self.expired
    }

    /// The clocks as clients see them.
    pub(super) fn view(&self, now: Instant) -> Clock {
        let ends = match (self.turn_deadline(), self.bank_deadline()) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let running = self.since.map(|since| now.saturating_duration_since(since));
        let banks_ms = self.banks.map(|banks| {
            let mut left = banks;
            if let (Some(seat), Some(elapsed)) = (self.current, running) {
                left[team(seat)] = left[team(seat)].saturating_sub(elapsed);
            }
            left.map(round_ms)
        });
        Clock {
            turn_ends_at: ends.map(|e| epoch_ms(e, now)),
            turn_remaining_ms: ends.map(|e| round_ms(e.saturating_duration_since(now))),
            banks_ms,
            paused: self.paused,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn banks_run_only_on_their_teams_turns_and_stop_while_paused() {
        let start = Instant::now();
        let mut clocks = Clocks::new(Some(Duration::from_secs(30)), Some(Duration::from_secs(60)));
        let seat = SeatIndex::ALL;
        clocks.start_turn(Some(seat[0]), start);
        assert_eq!(
            clocks.turn_deadline(),
            Some(start + Duration::from_secs(30))
        );
        let t1 = start + Duration::from_secs(10);
        clocks.start_turn(Some(seat[1]), t1);
        let t2 = t1 + Duration::from_secs(20);
        clocks.pause(t2);
        assert_eq!(clocks.turn_deadline(), None);
        let t3 = t2 + Duration::from_secs(100);
        clocks.resume(t3);
        // Team 1 used 20 s; 40 s left, and 10 s of its turn limit.
        assert_eq!(clocks.bank_deadline(), Some(t3 + Duration::from_secs(40)));
        assert_eq!(clocks.turn_deadline(), Some(t3 + Duration::from_secs(10)));
        let view = clocks.view(t3);
        assert_eq!(view.banks_ms, Some([50_000, 40_000]));
        assert_eq!(view.turn_remaining_ms, Some(10_000));
        assert!(!clocks.bank_empty(t3 + Duration::from_secs(39)));
        assert!(clocks.bank_empty(t3 + Duration::from_secs(40)));
    }
}
