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

    /// The same limits with the node budget capped at `nodes`.
    pub fn with_nodes(self, nodes: u64) -> SearchLimits<'a> {
        SearchLimits {
            nodes: Some(self.nodes.map_or(nodes, |n| n.min(nodes))),
            ..self
        }
    }
}

/// How often (in nodes) the clock and the cancel flag are read: often enough that a search stops
/// within well under a millisecond, rarely enough that reading them costs nothing measurable.
const CHECK_EVERY: u64 = 256;

/// How often (in nodes) a yielding search gives up the processor.
const YIELD_EVERY: u64 = 1024;

/// Enforces [`SearchLimits`] from inside the search.
pub(crate) struct Budget<'a> {
    started: Instant,
    deadline: Option<Instant>,
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
        Budget {
            started,
            deadline: limits.time.map(|t| started + t),
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

    /// Whether another iteration is worth starting: one that would likely not finish only wastes
    /// the budget (each iteration costs several times the one before), unless `use_all_time`
    /// says a cut-short iteration is worth its time.
    pub(crate) fn worth_another_iteration(
        &self,
        last_iteration_nodes: u64,
        use_all_time: bool,
    ) -> bool {
        if self.stopped {
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
