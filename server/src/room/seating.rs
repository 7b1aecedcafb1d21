//! The seating: who sits in each seat, the secret tokens that act for seats and for the host,
//! and who is away. A player who drops keeps the seat for a grace period; after it the CPU plays
//! for them until they come back (in Duo the clocks stop instead, and then the other team may
//! claim the win).

use fourkings_engine::Format;
use fourkings_protocol::{CpuLevel, Occupant, Presence, SeatIndex, SeatView};
use tokio::time::Instant;

use super::refusal::Refusal;
use super::seat_numbers;
use crate::ids::token_matches;

/// Who sits in a seat.
#[derive(Clone, Debug)]
pub(crate) enum SeatSlot {
    /// Nobody: the CPU takes it at the start.
    Empty,
    /// A person.
    Human {
        /// Their name.
        name: String,
        /// The seat's secret token: whoever presents it acts for the seat.
        token: String,
    },
    /// The CPU, at a level.
    Cpu {
        /// How well it plays.
        level: CpuLevel,
    },
}

/// A player who dropped.
#[derive(Clone, Copy, Debug)]
struct Absence {
    /// When the grace period ends.
    deadline: Instant,
    /// The same on the wall clock (ms since the epoch), as clients are told it.
    wall_deadline: u64,
    /// Whether it has ended.
    grace_over: bool,
}

/// The room's seats and tokens.
pub(crate) struct Seating {
    slots: [SeatSlot; 4],
    /// Players who dropped: when their grace ends, and whether it has.
    absence: [Option<Absence>; 4],
    host_token: String,
    /// The seat the host sits in, if any.
    host_seat: Option<SeatIndex>,
}

impl Seating {
    /// Four empty seats; the host token is `host_token`.
    pub(crate) fn new(host_token: String) -> Seating {
        Seating {
            slots: [
                SeatSlot::Empty,
                SeatSlot::Empty,
                SeatSlot::Empty,
                SeatSlot::Empty,
            ],
            absence: [None; 4],
            host_token,
            host_seat: None,
        }
    }

    /// Who sits in `seat`.
    pub(crate) fn slot(&self, seat: SeatIndex) -> &SeatSlot {
        &self.slots[seat.index()]
    }

    /// Whether a person sits in `seat`.
    pub(crate) fn is_human(&self, seat: SeatIndex) -> bool {
        matches!(self.slot(seat), SeatSlot::Human { .. })
    }

    /// The name of the person in `seat`, if a person sits there.
    pub(crate) fn name(&self, seat: SeatIndex) -> Option<&str> {
        match self.slot(seat) {
            SeatSlot::Human { name, .. } => Some(name),
            _ => None,
        }
    }

    /// The CPU seats and their levels.
    pub(crate) fn cpu_seats(&self) -> Vec<(SeatIndex, CpuLevel)> {
        SeatIndex::ALL
            .into_iter()
            .filter_map(|s| match self.slot(s) {
                SeatSlot::Cpu { level } => Some((s, *level)),
                _ => None,
            })
            .collect()
    }

    /// The seat a token holds, if any.
    pub(crate) fn seat_of_token(&self, token: &str) -> Option<SeatIndex> {
        SeatIndex::ALL.into_iter().find(|&s| {
            matches!(self.slot(s), SeatSlot::Human { token: t, .. } if token_matches(token, t))
        })
    }

    /// Checks that `token` holds `seat`.
    pub(crate) fn check_token(&self, seat: SeatIndex, token: &str) -> Result<(), Refusal> {
        match self.slot(seat) {
            SeatSlot::Human { token: real, .. } if token_matches(token, real) => Ok(()),
            _ => Err(Refusal::WrongSeatToken),
        }
    }

    /// Checks the host token.
    pub(crate) fn check_host(&self, token: &str) -> Result<(), Refusal> {
        if self.is_host_token(token) {
            Ok(())
        } else {
            Err(Refusal::NotHost)
        }
    }

    /// Whether `token` is the host token.
    pub(crate) fn is_host_token(&self, token: &str) -> bool {
        token_matches(token, &self.host_token)
    }

    /// The host token.
    pub(crate) fn host_token(&self) -> &str {
        &self.host_token
    }

    /// The seat the host sits in, if any.
    pub(crate) fn host_seat(&self) -> Option<SeatIndex> {
        self.host_seat
    }

    /// Seats `slot` in `seat`; whoever sat there before is no longer away.
    pub(crate) fn seat(&mut self, seat: SeatIndex, slot: SeatSlot) {
        let index = seat.index();
        self.slots[index] = slot;
        self.absence[index] = None;
    }

    /// Everyone moves: the occupant of seat `s` now sits in `to[s]`, away or not, host or not.
    pub(crate) fn permute(&mut self, to: [SeatIndex; 4]) {
        let slots = self.slots.clone();
        let absence = self.absence;
        for (from, (slot, away)) in slots.into_iter().zip(absence).enumerate() {
            let index = to[from].index();
            self.slots[index] = slot;
            self.absence[index] = away;
        }
        self.host_seat = self.host_seat.map(|h| to[h.index()]);
    }

    /// The host role moves: a new token, and the seat its holder sits in.
    pub(crate) fn set_host(&mut self, token: String, seat: Option<SeatIndex>) {
        self.host_token = token;
        self.host_seat = seat;
    }

    /// The host sat down in a seat, or left it.
    pub(crate) fn set_host_seat(&mut self, seat: Option<SeatIndex>) {
        self.host_seat = seat;
    }

    /// The player in `seat` is here.
    pub(crate) fn mark_present(&mut self, seat: SeatIndex) {
        self.absence[seat.index()] = None;
    }

    /// The player in `seat` is away; their grace period ends at `deadline`, `wall_deadline` on
    /// the wall clock.
    pub(crate) fn mark_away(&mut self, seat: SeatIndex, deadline: Instant, wall_deadline: u64) {
        self.absence[seat.index()] = Some(Absence {
            deadline,
            wall_deadline,
            grace_over: false,
        });
    }

    /// The player in `seat` is away past the grace period (since `now`).
    pub(crate) fn mark_gone(&mut self, seat: SeatIndex, now: Instant) {
        self.absence[seat.index()] = Some(Absence {
            deadline: now,
            wall_deadline: 0,
            grace_over: true,
        });
    }

    /// Whether the player in `seat` is away.
    pub(crate) fn is_away(&self, seat: SeatIndex) -> bool {
        self.absence[seat.index()].is_some()
    }

    /// Whether any player is away.
    pub(crate) fn anyone_away(&self) -> bool {
        self.absence.iter().any(Option::is_some)
    }

    /// When the grace period of the player in `seat` ends (ms since the epoch), while it runs.
    pub(crate) fn grace_ends_at(&self, seat: SeatIndex) -> Option<u64> {
        self.absence[seat.index()]
            .filter(|a| !a.grace_over)
            .map(|a| a.wall_deadline)
    }

    /// Whether a player's grace period is over and they are still away.
    pub(crate) fn grace_over(&self, seat: SeatIndex) -> bool {
        self.absence[seat.index()].is_some_and(|a| a.grace_over)
    }

    /// When the grace periods still running end.
    pub(crate) fn grace_deadlines(&self) -> impl Iterator<Item = Instant> + '_ {
        self.absence
            .iter()
            .flatten()
            .filter(|a| !a.grace_over)
            .map(|a| a.deadline)
    }

    /// The seats whose grace period is due at `now`.
    pub(crate) fn graces_due(&self, now: Instant) -> Vec<SeatIndex> {
        SeatIndex::ALL
            .into_iter()
            .filter(|&s| {
                self.absence[s.index()].is_some_and(|a| !a.grace_over && a.deadline <= now)
            })
            .collect()
    }

    /// Whether the person in `seat` is here (`None` for empty and CPU seats); `cpu_may_play`
    /// says whether the CPU plays for a player gone past the grace period (a game goes on, and
    /// not in Duo).
    pub(crate) fn presence(&self, seat: SeatIndex, cpu_may_play: bool) -> Option<Presence> {
        if !self.is_human(seat) {
            return None;
        }
        Some(match self.absence[seat.index()] {
            None => Presence::Online,
            Some(Absence {
                grace_over: false, ..
            }) => Presence::Away,
            Some(Absence {
                grace_over: true, ..
            }) if cpu_may_play => Presence::CpuPlaying,
            Some(Absence {
                grace_over: true, ..
            }) => Presence::Gone,
        })
    }

    /// Each seat's player as the game records name them.
    pub(crate) fn player_names(&self) -> Vec<String> {
        self.slots
            .iter()
            .map(|slot| match slot {
                SeatSlot::Human { name, .. } => name.clone(),
                SeatSlot::Cpu { level } => format!("CPU ({level:?})").to_lowercase(),
                SeatSlot::Empty => String::new(),
            })
            .collect()
    }

    /// The seats as clients see them, on a board of `format`.
    pub(crate) fn views(&self, format: Format, cpu_may_play: bool) -> Vec<SeatView> {
        SeatIndex::ALL
            .into_iter()
            .map(|seat| {
                let label = seat_numbers::seat_label(format, seat);
                let presence = self.presence(seat, cpu_may_play);
                let (occupant, name, cpu_level) = match self.slot(seat) {
                    SeatSlot::Empty => (Occupant::Empty, None, None),
                    SeatSlot::Human { name, .. } => (Occupant::Human, Some(name.clone()), None),
                    SeatSlot::Cpu { level } => (Occupant::Cpu, None, Some(*level)),
                };
                SeatView {
                    seat,
                    label,
                    occupant,
                    name,
                    cpu_level,
                    presence,
                    grace_ends_at: self.grace_ends_at(seat),
                }
            })
            .collect()
    }
}
