//! A room's life: it stays while anyone comes, and closes once nobody has been connected for the
//! idle time (sooner if nobody ever joined it). A finished game that waits too long for a rematch
//! closes it too; the game driver knows since when it waits.

use std::time::Duration;

use tokio::time::Instant;

/// Whether anyone came, since when nobody is here, and whether the room is closing.
pub(crate) struct Lifecycle {
    /// Since when nobody has been connected.
    empty_since: Option<Instant>,
    /// Whether anyone has ever connected (or, for a restored room, taken a seat or played).
    joined: bool,
    /// Set when the room should end.
    closing: bool,
}

impl Lifecycle {
    /// A room nobody has joined yet, empty since `now`.
    pub(crate) fn new(now: Instant) -> Lifecycle {
        Lifecycle {
            empty_since: Some(now),
            joined: false,
            closing: false,
        }
    }

    /// A restored room counts as joined if anyone had taken a seat or a game had started.
    pub(crate) fn restored(&mut self, joined: bool) {
        self.joined = joined;
    }

    /// Someone connected: the room is joined and no longer empty.
    pub(crate) fn connected(&mut self) {
        self.empty_since = None;
        self.joined = true;
    }

    /// The last connection left at `now`.
    pub(crate) fn emptied(&mut self, now: Instant) {
        self.empty_since = Some(now);
    }

    /// When the room closes for want of anyone connected: `idle` after the last one left, or
    /// after `unjoined` (if shorter) when nobody ever came.
    pub(crate) fn idle_deadline(&self, idle: Duration, unjoined: Duration) -> Option<Instant> {
        let after = if self.joined {
            idle
        } else {
            unjoined.min(idle)
        };
        self.empty_since.map(|since| since + after)
    }

    /// The room ends after the current command.
    pub(crate) fn close(&mut self) {
        self.closing = true;
    }

    /// Whether the room ends now.
    pub(crate) fn is_closing(&self) -> bool {
        self.closing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn an_unjoined_room_closes_sooner_and_a_connection_stops_the_count() {
        let (idle, unjoined) = (Duration::from_secs(600), Duration::from_secs(60));
        let start = Instant::now();
        let mut life = Lifecycle::new(start);
        assert_eq!(life.idle_deadline(idle, unjoined), Some(start + unjoined));
        life.connected();
        assert_eq!(life.idle_deadline(idle, unjoined), None);
        let left = start + Duration::from_secs(5);
        life.emptied(left);
        assert_eq!(life.idle_deadline(idle, unjoined), Some(left + idle));
        assert!(!life.is_closing());
        life.close();
        assert!(life.is_closing());
    }
}
