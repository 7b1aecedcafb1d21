//! The room's clock. Live, it is the server's; while a restored room applies its records, it is
//! each record's moment, and time stands still while the server was down: a turn or a grace
//! period resumes with what it had left when the server stopped.

use std::time::Duration;

use tokio::time::Instant;

use crate::storage::writer::now_ms;

/// Where the room's time comes from.
pub(crate) struct Timebase {
    /// Set while a restored room applies its records.
    replay: Option<Replay>,
}

/// The time base of a room being restored.
struct Replay {
    /// This run's moment of `stopped_at`.
    base: Instant,
    /// When the previous run stopped (ms since the epoch): time stood still from then to `base`.
    stopped_at: u64,
    /// The moment of the record being applied (ms since the epoch).
    at: u64,
}

impl Timebase {
    /// The server's clock.
    pub(crate) fn live() -> Timebase {
        Timebase { replay: None }
    }

    /// The clock of a room restored from a run that stopped at `stopped_at` (ms since the
    /// epoch), until [`Timebase::go_live`].
    pub(crate) fn replaying(stopped_at: u64) -> Timebase {
        Timebase {
            replay: Some(Replay {
                base: Instant::now(),
                stopped_at,
                at: stopped_at,
            }),
        }
    }

    /// Whether records are being applied on restore (nothing is stored, emitted or sent then).
    pub(crate) fn is_replaying(&self) -> bool {
        self.replay.is_some()
    }

    /// The record applied next was made at `at` (ms since the epoch).
    pub(crate) fn record_at(&mut self, at: u64) {
        if let Some(replay) = &mut self.replay {
            replay.at = at;
        }
    }

    /// The records are applied: from now on, the server's clock.
    pub(crate) fn go_live(&mut self) {
        self.replay = None;
    }

    /// The moment of a wall-clock time (ms since the epoch) on the room's clock.
    pub(crate) fn instant_of(&self, wall_ms: u64) -> Instant {
        let (base, base_ms) = match &self.replay {
            Some(replay) => (replay.base, replay.stopped_at),
            None => (Instant::now(), now_ms()),
        };
        if wall_ms >= base_ms {
            base + Duration::from_millis(wall_ms - base_ms)
        } else {
            base.checked_sub(Duration::from_millis(base_ms - wall_ms))
                .unwrap_or(base)
        }
    }

    /// Now, on the room's clock (the record's moment, during replay).
    pub(crate) fn now(&self) -> Instant {
        match &self.replay {
            Some(replay) => self.instant_of(replay.at),
            None => Instant::now(),
        }
    }

    /// Now, in milliseconds since the epoch.
    pub(crate) fn wall_now(&self) -> u64 {
        match &self.replay {
            Some(replay) => replay.at,
            None => now_ms(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn replayed_time_stands_still_while_the_server_was_down() {
        let stopped_at = 1_000_000;
        let mut time = Timebase::replaying(stopped_at);
        let base = time.now();
        time.record_at(stopped_at - 400);
        assert_eq!(base - time.now(), Duration::from_millis(400));
        assert_eq!(time.wall_now(), stopped_at - 400);
        assert_eq!(
            time.instant_of(stopped_at + 250) - base,
            Duration::from_millis(250)
        );
        time.go_live();
        assert!(!time.is_replaying());
    }
}
