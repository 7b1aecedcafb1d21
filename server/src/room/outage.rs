//! Riding out a storage outage. While storage takes no writes, a room changes nothing: requests
//! that would write are refused at once (`task/requests.rs`), and what would change the room on
//! its own waits: its timers (a turn running out, a grace period ending, the room closing), the
//! CPU's answer (held by the game driver) and the comings and goings of players. The room looks
//! again every [`RECHECK`], and settles what waited once storage is back.

use std::time::Duration;

use tokio::time::Instant;

/// How often a room that waits for storage looks again whether it takes writes.
pub(crate) const RECHECK: Duration = Duration::from_millis(250);

/// What a room holds back while storage takes no writes.
#[derive(Default)]
pub(crate) struct StorageOutage {
    /// When the room next looks whether storage takes writes; `None` while nothing waits.
    recheck_at: Option<Instant>,
    /// Whether players came or went while storage took no writes (their seats are settled
    /// from the connections once it does).
    presence_unsettled: bool,
}

impl StorageOutage {
    /// Something waits for storage: the room looks again [`RECHECK`] after `now` (or at the
    /// look already planned).
    pub(crate) fn wait(&mut self, now: Instant) {
        self.recheck_at.get_or_insert(now + RECHECK);
    }

    /// Players came or went while storage took no writes.
    pub(crate) fn presence_waits(&mut self, now: Instant) {
        self.presence_unsettled = true;
        self.wait(now);
    }

    /// When the room looks again, if anything waits.
    pub(crate) fn recheck_at(&self) -> Option<Instant> {
        self.recheck_at
    }

    /// The room's timer fired: it looks now (and waits again if storage is still down).
    pub(crate) fn looked(&mut self) {
        self.recheck_at = None;
    }

    /// Whether comings and goings waited for storage, forgetting that they did.
    pub(crate) fn take_unsettled_presence(&mut self) -> bool {
        std::mem::take(&mut self.presence_unsettled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_first_wait_sets_the_look_and_presence_is_settled_once() {
        let now = Instant::now();
        let mut outage = StorageOutage::default();
        assert_eq!(outage.recheck_at(), None);
        outage.wait(now);
        outage.presence_waits(now + Duration::from_millis(100));
        assert_eq!(outage.recheck_at(), Some(now + RECHECK));
        outage.looked();
        assert_eq!(outage.recheck_at(), None);
        assert!(outage.take_unsettled_presence());
        assert!(!outage.take_unsettled_presence());
    }
}
