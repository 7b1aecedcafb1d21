//! Seats: a seat's index and sets of seats.

/// A seat index, 0–3, in turn order (Red, Blue, Yellow, Green; W1, B1, W2, B2 in Duo).
pub type SeatIndex = u8;

/// A set of seats (as the engine's `ArmySet` is of armies): which seats a connection has proved
/// it holds, which seats an event's private form is for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SeatSet(u8);

impl SeatSet {
    /// No seat.
    pub const EMPTY: SeatSet = SeatSet(0);
    /// All four seats.
    pub const ALL: SeatSet = SeatSet(0b1111);

    /// The set whose bit `s` is set for each seat `s` in it (bits above the fourth are ignored).
    #[inline]
    pub const fn from_bits(bits: u8) -> SeatSet {
        SeatSet(bits & 0b1111)
    }

    /// The set as bits: bit `s` set for each seat `s` in it.
    #[inline]
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// The set holding just `seat` (empty if `seat` is not a seat, 0–3).
    #[inline]
    pub const fn single(seat: SeatIndex) -> SeatSet {
        SeatSet::EMPTY.with(seat)
    }

    /// A team's two seats, which sit opposite: `seat` and its partner's.
    #[inline]
    pub const fn team_of(seat: SeatIndex) -> SeatSet {
        SeatSet::single(seat).with((seat + 2) & 3)
    }

    /// Whether `seat` is in the set.
    #[inline]
    pub const fn contains(self, seat: SeatIndex) -> bool {
        seat < 4 && self.0 & (1 << seat) != 0
    }

    /// The set with `seat` added (unchanged if `seat` is not a seat).
    #[inline]
    pub const fn with(self, seat: SeatIndex) -> SeatSet {
        if seat < 4 {
            SeatSet(self.0 | 1 << seat)
        } else {
            self
        }
    }

    /// The set with `seat` removed.
    #[inline]
    pub const fn without(self, seat: SeatIndex) -> SeatSet {
        if seat < 4 {
            SeatSet(self.0 & !(1 << seat))
        } else {
            self
        }
    }

    /// Whether the two sets share a seat.
    #[inline]
    pub const fn meets(self, other: SeatSet) -> bool {
        self.0 & other.0 != 0
    }

    /// How many seats the set holds.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The seats in the set, in seat order.
    pub fn iter(self) -> impl Iterator<Item = SeatIndex> {
        (0..4).filter(move |&seat| self.contains(seat))
    }

    /// The set each seat's occupant is in after everyone moves by `to` (the occupant of seat `s`
    /// goes to `to[s]`).
    pub fn moved(self, to: [SeatIndex; 4]) -> SeatSet {
        self.iter().map(|seat| to[usize::from(seat)]).collect()
    }
}

impl FromIterator<SeatIndex> for SeatSet {
    fn from_iter<I: IntoIterator<Item = SeatIndex>>(iter: I) -> SeatSet {
        iter.into_iter().fold(SeatSet::EMPTY, SeatSet::with)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_set_operations() {
        let set = SeatSet::EMPTY.with(1).with(3);
        assert_eq!(set.len(), 2);
        assert!(set.contains(3) && !set.contains(0) && !set.contains(9));
        assert_eq!(set.without(1).iter().collect::<Vec<_>>(), vec![3]);
        assert_eq!(SeatSet::EMPTY.with(7), SeatSet::EMPTY);
        assert_eq!(SeatSet::team_of(3), SeatSet::single(1).with(3));
        assert_eq!(SeatSet::from_bits(set.bits()), set);
        assert_eq!(SeatSet::from_bits(0xff), SeatSet::ALL);
        assert!(set.meets(SeatSet::single(1)) && !set.meets(SeatSet::single(2)));
        assert_eq!(set.moved([3, 0, 1, 2]), SeatSet::single(0).with(2));
    }
}
