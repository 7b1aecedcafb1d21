//! The clock checks: a running turn limit resumes with the time it had left when the process
//! died, and Duo's banks likewise; the time the server was down does not count.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, ensure};
use fourkings_protocol::{Event, Snapshot};

use crate::capture::Capture;

/// Leeway for the clock checks, beyond the bounds the test measures: milliseconds rounded and
/// truncated on the way.
const SLACK_MS: i128 = 20;

/// The moments the clock checks need.
#[derive(Clone, Copy)]
pub(crate) struct Moments {
    /// The last record written before the kill was sent (the marker): the server's notion of
    /// when it stopped is at or after it.
    pub(crate) marker: Instant,
    /// After the process was dead.
    pub(crate) killed: Instant,
    /// Before the new process was started.
    pub(crate) respawned: Instant,
    /// How long before the marker the server's notion of when it stopped may be: none for a
    /// server restarted (its last record or stamp of life is the marker's or later), up to a
    /// lease's renewal interval for a node of a cluster (time stands still from its last
    /// renewal).
    pub(crate) stopped_before_marker: Duration,
}

fn ms(d: Duration) -> i128 {
    d.as_millis() as i128
}

/// `actual` must lie in `[low, high]`, give or take the slack; `notes` keeps what was seen.
fn within(notes: &mut Vec<String>, what: &str, actual: i128, low: i128, high: i128) -> Result<()> {
    let seen = format!("{what}: {actual} ms, expected {low}..={high} ms (± {SLACK_MS})");
    ensure!(
        actual >= low - SLACK_MS && actual <= high + SLACK_MS,
        "{seen}"
    );
    notes.push(seen);
    Ok(())
}

/// What the clock checks of one room carry from the restored snapshot to the moment everyone is
/// back: the bounds on the time the clocks lost around the restart, and for Duo (whose clocks
/// stopped with everyone away) the banks and the turn time they stopped with.
pub(crate) struct ClockCheck {
    low_loss: i128,
    high_loss: i128,
    duo: Option<(Option<Vec<u64>>, Option<u64>)>,
}

impl ClockCheck {
    /// Checks the clocks of the restored snapshot `s2` (seen between the moments `seen_at`)
    /// against the capture `before`.
    pub(crate) fn restored(
        label: &str,
        all_cpu: bool,
        before: &Capture,
        s2: &Snapshot,
        seen_at: (Instant, Instant),
        moments: Moments,
        notes: &mut Vec<String>,
    ) -> Result<ClockCheck> {
        let s1 = &before.snapshot;
        // The clocks: a running turn limit goes on with what it had left when the process died;
        // Duo's banks stopped (everyone is away) with what they had.
        // Between the capture and the process's end, at least the time from the capture's arrival
        // to the last record (the marker was sent before it), at most the time from asking for the
        // capture to the end; after the restart, at most the time from starting the process to the
        // arrival of the new snapshot. The downtime in between does not count.
        let (asked, arrived) = before.at;
        // Negative when the server's notion of its end may come before the capture.
        let low_loss = ms(moments.marker.saturating_duration_since(arrived))
            - ms(moments.stopped_before_marker);
        let high_loss = ms(moments.killed.saturating_duration_since(asked))
            + ms(seen_at.1.saturating_duration_since(moments.respawned));
        let mut duo_check = None;
        if let (Some(g1), Some(g2), false) = (&s1.game, &s2.game, all_cpu) {
            if g1.result.is_none() {
                let (c1, c2) = (&g1.clock, &g2.clock);
                if g1.board == fourkings_protocol::BoardShape::Classic {
                    // Duo: the clocks stopped at the restart, everyone being away.
                    ensure!(
                        c2.paused || *c1 == fourkings_protocol::Clock::default(),
                        "{label}: Duo's clocks run with everyone away: {c2:?}"
                    );
                    if let Some(banks1) = &c1.banks_ms {
                        let banks2 = c2
                            .banks_ms
                            .as_ref()
                            .ok_or_else(|| anyhow!("{label}: the banks are gone"))?;
                        let team = g1.to_move.expect("to move").index() & 1;
                        let other = 1 - team;
                        let idle = i128::from(banks1[other]);
                        within(
                            notes,
                            &format!("{label}: the idle bank"),
                            i128::from(banks2[other]),
                            idle,
                            idle,
                        )?;
                        let b1 = i128::from(banks1[team]);
                        within(
                            notes,
                            &format!("{label}: the running bank"),
                            i128::from(banks2[team]),
                            b1 - high_loss,
                            b1 - low_loss,
                        )?;
                    }
                    duo_check = Some((c2.banks_ms.clone(), c1.turn_remaining_ms));
                } else if let Some(r1) = c1.turn_remaining_ms {
                    let r2 = c2
                        .turn_remaining_ms
                        .ok_or_else(|| anyhow!("{label}: the turn limit is gone: {c2:?}"))?;
                    let r1 = i128::from(r1);
                    within(
                        notes,
                        &format!("{label}: the turn limit left"),
                        i128::from(r2),
                        r1 - high_loss,
                        r1 - low_loss,
                    )?;
                }
            }
        }
        Ok(ClockCheck {
            low_loss,
            high_loss,
            duo: duo_check,
        })
    }

    /// Once everyone is back, Duo's clocks run again with what they had: the first `presence`
    /// after `v2` (the restored version) in the watcher's `log` whose clock runs.
    pub(crate) fn resumed(
        &self,
        label: &str,
        log: &BTreeMap<u64, Event>,
        v2: u64,
        notes: &mut Vec<String>,
    ) -> Result<()> {
        let (low_loss, high_loss) = (self.low_loss, self.high_loss);
        if let Some((banks2, r1)) = &self.duo {
            let resumed = log
                .range(v2 + 1..)
                .find_map(|(_, e)| match e {
                    Event::Presence { clock, .. } if !clock.paused => Some(clock.clone()),
                    _ => None,
                })
                .ok_or_else(|| anyhow!("{label}: the clocks did not run again"))?;
            if let Some(banks2) = banks2 {
                let banks = resumed
                    .banks_ms
                    .clone()
                    .ok_or_else(|| anyhow!("{label}: no banks: {resumed:?}"))?;
                for team in 0..2 {
                    let stopped = i128::from(banks2[team]);
                    within(
                        notes,
                        &format!("{label}: bank {team} when the clocks run again"),
                        i128::from(banks[team]),
                        stopped - 2,
                        stopped,
                    )?;
                }
            }
            if let Some(r1) = r1 {
                let left = resumed
                    .turn_remaining_ms
                    .ok_or_else(|| anyhow!("{label}: no turn time: {resumed:?}"))?;
                let r1 = i128::from(*r1);
                within(
                    notes,
                    &format!("{label}: the turn time left when the clocks run again"),
                    i128::from(left),
                    r1 - high_loss,
                    r1 - low_loss,
                )?;
            }
        }
        Ok(())
    }
}
