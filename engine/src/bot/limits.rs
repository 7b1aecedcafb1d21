//! How long a search may run: a node budget, a time budget and a cooperative cancel flag, and the
//! clock that enforces them from inside the search.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What a search may spend. Every limit that is set applies; the first one reached stops the
/// search, which then answers with the best move of its last finished iteration.
///
/// Node budgets make results independent of machine load (the arena and the tests use them); a
/// time budget bounds how long a room waits; the cancel flag lets a caller stop a search whose
/// answer nobody needs any more.
#[derive(Clone, Copy, Debug, Default)]
pub struct SearchLimits<'a> {
    /// The most nodes (positions visited, quiescence included) to search.
    pub nodes: Option<u64>,
    /// The longest the search may think.
    pub time: Option<Duration>,
    /// What the search aims to spend, when `time` allows more: it stops there once its choice
    /// looks settled, and thinks on towards `time` while its best move keeps changing or its
    /// score falls (a sharp position). Without it, the search may use all of `time`.
    pub target: Option<Duration>,
    /// The deepest iteration to start (in plies).
    pub depth: Option<u8>,
    /// Set by another thread to stop the search at once.
    pub cancel: Option<&'a AtomicBool>,
    /// Give up the processor to other threads now and then (about every half millisecond): for
    /// a server whose network threads share the cores with searches and must stay responsive.
    pub yield_now_and_then: bool,
}

impl<'a> SearchLimits<'a> {
    /// No limit at all but `nodes`.
    pub fn nodes(nodes: u64) -> SearchLimits<'a> {
        SearchLimits {
            nodes: Some(nodes),
            ..SearchLimits::default()
        }
    }

    /// No limit at all but `depth` plies.
    pub fn depth(depth: u8) -> SearchLimits<'a> {
        SearchLimits {
            depth: Some(depth),
            ..SearchLimits::default()
        }
    }

    /// The same limits, also stopped by `cancel`.
    pub fn with_cancel(self, cancel: &'a AtomicBool) -> SearchLimits<'a> {
        SearchLimits {
            cancel: Some(cancel),
            ..self
        }
    }

    /// The same limits, yielding the processor now and then.
    pub fn yielding(self) -> SearchLimits<'a> {
        SearchLimits {
            yield_now_and_then: true,
            ..self
        }
    }

    /// The same limits with the time budget capped at `time`.
    pub fn with_time(self, time: Duration) -> SearchLimits<'a> {
        SearchLimits {
            time: Some(self.time.map_or(time, |t| t.min(time))),
            ..self
        }
    }

    /// The same limits aiming at `target` (or less, if they already aimed lower).
    pub fn with_target(self, target: Duration) -> SearchLimits<'a> {
        SearchLimits {
            target: Some(self.target.map_or(target, |t| t.min(target))),
            ..self
        }
    }

    /// What a game clock allows the mover: `bank` left, `increment` to come after the move,
    /// `delay_left` of the turn's delay still free. It aims at what the delay leaves free, a
    /// thirtieth of the bank and most of the increment, may go on to three times that in a
    /// sharp position, and never spends the bank's last [`BANK_RESERVE`] (with less than that
    /// left, it aims at a tenth of what is left and spends no more).
    pub fn for_clock(
        bank: Duration,
        increment: Duration,
        delay_left: Duration,
    ) -> SearchLimits<'a> {
        let spendable = bank.saturating_sub(BANK_RESERVE);
        let (share, most) = if spendable.is_zero() {
            (bank / 10, bank / 10)
        } else {
            let share = (spendable / 30 + increment * 3 / 4).min(spendable / 2);
            (share, (share * 3).min(spendable))
        };
        SearchLimits {
            time: Some(delay_left + most),
            target: Some(delay_left + share.min(most)),
            ..SearchLimits::default()
        }
    }

    /// The same limits with the node budget capped at `nodes`.
    pub fn with_nodes(self, nodes: u64) -> SearchLimits<'a> {
        SearchLimits {
            nodes: Some(self.nodes.map_or(nodes, |n| n.min(nodes))),
            ..self
        }
    }
}

/// What a search on a game clock leaves in the bank, whenever the bank holds more.
pub const BANK_RESERVE: Duration = Duration::from_secs(1);

/// How much longer than its target a search may think while its choice is unsettled.
pub(crate) const SHARP_FACTOR: u32 = 3;

/// How often (in nodes) the clock and the cancel flag are read: often enough that a search stops
/// within well under a millisecond, rarely enough that reading them costs nothing measurable.
const CHECK_EVERY: u64 = 256;

/// How often (in nodes) a yielding search gives up the processor.
const YIELD_EVERY: u64 = 1024;

/// Enforces [`SearchLimits`] from inside the search.
pub(crate) struct Budget<'a> {
    started: Instant,
    /// When the search stops, as things stand: the target, or later while the choice is
    /// unsettled, never past the limit.
    deadline: Option<Instant>,
    /// When the search stops whatever happens.
    limit: Option<Instant>,
    target: Option<Duration>,
    max_nodes: u64,
    cancel: Option<&'a AtomicBool>,
    yielding: bool,
    /// Nodes visited so far.
    pub(crate) nodes: u64,
    /// Set once any limit is reached; the search unwinds as soon as it sees it.
    pub(crate) stopped: bool,
}

impl<'a> Budget<'a> {
    pub(crate) fn new(limits: &SearchLimits<'a>) -> Budget<'a> {
        let started = Instant::now();
        let limit = limits
            .time
            .or(limits.target.map(|t| t * SHARP_FACTOR))
            .map(|t| started + t);
        let deadline = match (limits.target, limit) {
            (Some(target), Some(limit)) => Some((started + target).min(limit)),
            _ => limit,
        };
        Budget {
            started,
            deadline,
            limit,
            target: limits.target,
            max_nodes: limits.nodes.unwrap_or(u64::MAX),
            cancel: limits.cancel,
            yielding: limits.yield_now_and_then,
            nodes: 0,
            stopped: false,
        }
    }

    /// Counts one node; returns whether the search must stop.
    #[inline]
    pub(crate) fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.max_nodes {
            self.stopped = true;
        } else if self.nodes % CHECK_EVERY == 0 {
            self.check();
        }
        self.stopped
    }

    /// Reads the clock and the cancel flag.
    pub(crate) fn check(&mut self) -> bool {
        if self.yielding && self.nodes % YIELD_EVERY == 0 {
            std::thread::yield_now();
        }
        if self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
            || self.deadline.is_some_and(|d| Instant::now() >= d)
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// An iteration finished, and its choice is `settled` (the same move as the iteration
    /// before, its score not fallen) or not: with a target, the search stops at the target if
    /// it is, and may think on towards the limit if it is not.
    pub(crate) fn settle(&mut self, settled: bool) {
        if let (Some(target), Some(limit)) = (self.target, self.limit) {
            let aim = if settled {
                target
            } else {
                target * SHARP_FACTOR
            };
            self.deadline = Some((self.started + aim).min(limit));
        }
    }

    /// Whether another iteration is worth starting: one that would likely not finish only wastes
    /// the budget (each iteration costs several times the one before), unless `use_all_time`
    /// says a cut-short iteration is worth its time.
    pub(crate) fn worth_another_iteration(
        &self,
        last_iteration_nodes: u64,
        use_all_time: bool,
    ) -> bool {
        if self.stopped || self.deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        if let (Some(deadline), false) = (self.deadline, use_all_time) {
            let spent = self.started.elapsed();
            let left = deadline.saturating_duration_since(Instant::now());
            if left < spent / 2 {
                return false;
            }
        }
        self.nodes.saturating_add(last_iteration_nodes) < self.max_nodes
    }

    /// The time since the search began.
    pub(crate) fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clock_never_lets_the_search_touch_the_banks_last_second() {
        for bank_ms in (0..=180_000u64).step_by(250) {
            for increment in [0, 2, 7, 15] {
                for delay_left_ms in [0, 5_000] {
                    let bank = Duration::from_millis(bank_ms);
                    let delay_left = Duration::from_millis(delay_left_ms);
                    let limits =
                        SearchLimits::for_clock(bank, Duration::from_secs(increment), delay_left);
                    let (time, target) = (limits.time.unwrap(), limits.target.unwrap());
                    let spent_from_bank = time.saturating_sub(delay_left);
                    if bank > BANK_RESERVE {
                        assert!(spent_from_bank <= bank - BANK_RESERVE, "{bank:?}");
                    } else {
                        assert!(spent_from_bank <= bank / 10, "{bank:?}");
                    }
                    assert!(target <= time && target >= delay_left);
                }
            }
        }
        // An increment is mostly spent, and more bank means more time.
        let at = |bank, increment| {
            SearchLimits::for_clock(
                Duration::from_secs(bank),
                Duration::from_secs(increment),
                Duration::ZERO,
            )
            .target
            .unwrap()
        };
        assert!(at(60, 7) > Duration::from_secs(5));
        assert!(at(60, 0) > at(20, 0) && at(20, 0) > at(5, 0));
    }

    #[test]
    fn an_unsettled_choice_thinks_on_towards_the_limit_and_a_settled_one_stops_at_the_target() {
        let target = Duration::from_millis(100);
        let limits = SearchLimits::default()
            .with_time(Duration::from_millis(250))
            .with_target(target);
        let mut budget = Budget::new(&limits);
        let started = budget.started;
        assert_eq!(budget.deadline, Some(started + target));
        budget.settle(false);
        // Three times the target would be 300 ms: the limit is 250.
        assert_eq!(budget.deadline, Some(started + Duration::from_millis(250)));
        budget.settle(true);
        assert_eq!(budget.deadline, Some(started + target));
        // Without a target, the limit is all there is.
        let mut budget = Budget::new(&SearchLimits::default().with_time(target));
        budget.settle(false);
        assert_eq!(budget.deadline, Some(budget.started + target));
    }
}
