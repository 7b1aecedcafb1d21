//! The clocks: the turn limit, and the banks (a game clock's, one a seat, or Duo's team clock,
//! one a team). The server's clock is the only clock; clients are told when the current turn ends
//! and what each bank holds, and count down from that.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use fourkings_protocol::{Clock, SeatIndex};
use tokio::time::Instant;

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

/// Whose bank a seat's time comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BankOwner {
    /// Duo's team clock: one bank for seats 0 + 2, one for seats 1 + 3.
    Team,
    /// A game clock: one bank a seat.
    Seat,
}

impl BankOwner {
    /// How many banks there are.
    fn count(self) -> usize {
        match self {
            BankOwner::Team => 2,
            BankOwner::Seat => 4,
        }
    }

    /// The bank `seat` spends.
    fn bank_of(self, seat: SeatIndex) -> usize {
        match self {
            BankOwner::Team => seat.index() & 1,
            BankOwner::Seat => seat.index(),
        }
    }
}

/// How a game's banks are set up.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BankRules {
    /// Whose bank each seat spends.
    pub(crate) owner: BankOwner,
    /// What each bank holds at the start.
    pub(crate) start: Duration,
    /// Added to the mover's bank after each move.
    pub(crate) increment: Duration,
    /// How long each turn waits before its bank runs.
    pub(crate) delay: Duration,
}

/// The banks of one game, as they stood when last charged.
#[derive(Debug)]
struct Banks {
    rules: BankRules,
    left: [Duration; 4],
}

impl Banks {
    /// What `used` more of a turn that had used `before` takes from its bank: the part past the
    /// delay.
    fn chargeable(&self, before: Duration, used: Duration) -> Duration {
        let delay = self.rules.delay;
        (before + used).saturating_sub(delay) - before.saturating_sub(delay)
    }

    fn left_of(&self, seat: SeatIndex) -> Duration {
        self.left[self.rules.owner.bank_of(seat)]
    }

    fn left_mut(&mut self, seat: SeatIndex) -> &mut Duration {
        &mut self.left[self.rules.owner.bank_of(seat)]
    }
}

/// The clocks of one game.
#[derive(Debug)]
pub(super) struct Clocks {
    /// Game time a move may take, if the room has a turn limit.
    turn_limit: Option<Duration>,
    /// The banks, if the game has a game clock or Duo's team clock.
    banks: Option<Banks>,
    /// The seat whose turn it is (while the game goes on).
    current: Option<SeatIndex>,
    /// Since when the current turn's time has been running (`None` while paused or over).
    since: Option<Instant>,
    /// Time the current turn used before `since`.
    used: Duration,
    /// Whether the current turn's limit has run out (the CPU is playing the move).
    expired: bool,
    /// Whether the clocks are stopped (Duo, while a player is away).
    paused: bool,
    /// The ply and seat of the turn being timed, to notice when the turn passes.
    turn: Option<(u32, Option<SeatIndex>)>,
}

impl Clocks {
    /// Clocks with a turn limit and banks, not yet running.
    pub(super) fn new(turn_limit: Option<Duration>, banks: Option<BankRules>) -> Clocks {
        Clocks {
            turn_limit,
            banks: banks.map(|rules| Banks {
                rules,
                left: [rules.start; 4],
            }),
            current: None,
            since: None,
            used: Duration::ZERO,
            expired: false,
            paused: false,
            turn: None,
        }
    }

    /// Starts timing a new turn if the game's turn (`ply`, `to_move`) is not the one being timed.
    /// A turn that passed by a move (one ply more) earns its mover the increment.
    pub(super) fn follow(&mut self, ply: u32, to_move: Option<SeatIndex>, now: Instant) {
        if self.turn == Some((ply, to_move)) {
            return;
        }
        let moved = self
            .turn
            .is_some_and(|(before, _)| ply == before.wrapping_add(1));
        self.turn = Some((ply, to_move));
        self.charge(now);
        if let (true, Some(mover), Some(banks)) = (moved, self.current, &mut self.banks) {
            let increment = banks.rules.increment;
            *banks.left_mut(mover) += increment;
        }
        self.start_turn(to_move, now);
    }

    /// Charges the running turn's time (past its delay) to its bank.
    fn charge(&mut self, now: Instant) {
        if let (Some(seat), Some(since)) = (self.current, self.since.take()) {
            let elapsed = now.saturating_duration_since(since);
            if let Some(banks) = &mut self.banks {
                let spent = banks.chargeable(self.used, elapsed);
                let left = banks.left_mut(seat);
                *left = left.saturating_sub(spent);
            }
            self.used += elapsed;
            self.since = Some(now);
        }
    }

    /// The turn passed to `seat` (or the game ended: `None`); what ran before is charged.
    fn start_turn(&mut self, seat: Option<SeatIndex>, now: Instant) {
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

    /// When the bank of the seat to move runs out, while it runs: after what is left of the
    /// turn's delay, and then the bank.
    pub(super) fn bank_deadline(&self) -> Option<Instant> {
        let (banks, seat, since) = (self.banks.as_ref()?, self.current?, self.since?);
        let delay_left = banks.rules.delay.saturating_sub(self.used);
        Some(since + delay_left + banks.left_of(seat))
    }

    /// What a move earns its mover's bank, if banks run.
    pub(super) fn increment(&self) -> Option<Duration> {
        self.banks.as_ref().map(|banks| banks.rules.increment)
    }

    /// The bank of the seat to move is empty.
    pub(super) fn bank_empty(&self, now: Instant) -> bool {
        self.bank_deadline().is_some_and(|d| d <= now)
    }

    /// What is left in the bank of the seat to move at `now`, if banks run.
    pub(super) fn bank_left(&self, now: Instant) -> Option<Duration> {
        let (banks, seat) = (self.banks.as_ref()?, self.current?);
        let running = self
            .since
            .map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        Some(
            banks
                .left_of(seat)
                .saturating_sub(banks.chargeable(self.used, running)),
        )
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
        let running = self
            .since
            .map_or(Duration::ZERO, |since| now.saturating_duration_since(since));
        let banks_ms = self.banks.as_ref().map(|banks| {
            let mut left = banks.left;
            if let Some(seat) = self.current {
                let bank = banks.rules.owner.bank_of(seat);
                left[bank] = left[bank].saturating_sub(banks.chargeable(self.used, running));
            }
            left[..banks.rules.owner.count()]
                .iter()
                .map(|&d| round_ms(d))
                .collect()
        });
        let delay_ms = self
            .banks
            .as_ref()
            .filter(|banks| !banks.rules.delay.is_zero() && self.current.is_some())
            .map(|banks| round_ms(banks.rules.delay.saturating_sub(self.used + running)));
        Clock {
            turn_ends_at: ends.map(|e| epoch_ms(e, now)),
            turn_remaining_ms: ends.map(|e| round_ms(e.saturating_duration_since(now))),
            banks_ms,
            delay_ms,
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
        let team_clock = BankRules {
            owner: BankOwner::Team,
            start: Duration::from_secs(60),
            increment: Duration::ZERO,
            delay: Duration::ZERO,
        };
        let mut clocks = Clocks::new(Some(Duration::from_secs(30)), Some(team_clock));
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
        assert_eq!(view.banks_ms, Some(vec![50_000, 40_000]));
        assert_eq!(view.turn_remaining_ms, Some(10_000));
        assert!(!clocks.bank_empty(t3 + Duration::from_secs(39)));
        assert!(clocks.bank_empty(t3 + Duration::from_secs(40)));
    }

    fn game_clock(minutes: u64, increment: u64, delay: u64) -> BankRules {
        BankRules {
            owner: BankOwner::Seat,
            start: Duration::from_secs(minutes * 60),
            increment: Duration::from_secs(increment),
            delay: Duration::from_secs(delay),
        }
    }

    /// Each seat spends its own bank, and earns the increment for a move (a ply more), not for a
    /// turn that passed otherwise (a takeback).
    #[tokio::test(start_paused = true)]
    async fn seats_spend_their_own_banks_and_earn_the_increment_by_moving() {
        let t0 = Instant::now();
        let secs = Duration::from_secs;
        let mut clocks = Clocks::new(None, Some(game_clock(1, 7, 0)));
        let seat = SeatIndex::ALL;
        clocks.follow(0, Some(seat[0]), t0);
        // Red moves after 10 s: 60 - 10 + 7.
        clocks.follow(1, Some(seat[1]), t0 + secs(10));
        // Blue moves after 5 s: 60 - 5 + 7.
        clocks.follow(2, Some(seat[2]), t0 + secs(15));
        let view = clocks.view(t0 + secs(18));
        assert_eq!(view.banks_ms, Some(vec![57_000, 62_000, 57_000, 60_000]));
        assert_eq!(clocks.bank_deadline(), Some(t0 + secs(15) + secs(60)));
        // Blue's team takes Blue's move back after 4 s of Yellow's turn: no increment for that.
        clocks.follow(1, Some(seat[1]), t0 + secs(19));
        let view = clocks.view(t0 + secs(19));
        assert_eq!(view.banks_ms, Some(vec![57_000, 62_000, 56_000, 60_000]));
        assert_eq!(view.delay_ms, None);
    }

    /// With a delay, a turn's bank stands still for the delay, then runs; the delay is not saved
    /// up, and a pause keeps what is left of it.
    #[tokio::test(start_paused = true)]
    async fn the_delay_is_spent_before_the_bank_runs() {
        let t0 = Instant::now();
        let secs = Duration::from_secs;
        let mut clocks = Clocks::new(None, Some(game_clock(1, 0, 15)));
        let seat = SeatIndex::ALL;
        clocks.follow(0, Some(seat[0]), t0);
        assert_eq!(clocks.bank_deadline(), Some(t0 + secs(75)));
        let view = clocks.view(t0 + secs(10));
        assert_eq!(
            view.banks_ms.as_deref(),
            Some(&[60_000, 60_000, 60_000, 60_000][..])
        );
        assert_eq!(view.delay_ms, Some(5_000));
        clocks.pause(t0 + secs(10));
        clocks.resume(t0 + secs(100));
        assert_eq!(clocks.bank_deadline(), Some(t0 + secs(100) + secs(65)));
        // 20 s into the turn (10 before the pause, 10 after): 5 s of the bank spent.
        assert_eq!(clocks.bank_left(t0 + secs(110)), Some(secs(55)));
        // Red moves; Blue's turn starts with a whole delay, Red's bank keeps what it had.
        clocks.follow(1, Some(seat[1]), t0 + secs(110));
        let view = clocks.view(t0 + secs(112));
        assert_eq!(view.banks_ms, Some(vec![55_000, 60_000, 60_000, 60_000]));
        assert_eq!(view.delay_ms, Some(13_000));
        assert!(!clocks.bank_empty(t0 + secs(110) + secs(74)));
        assert!(clocks.bank_empty(t0 + secs(110) + secs(75)));
    }
}
