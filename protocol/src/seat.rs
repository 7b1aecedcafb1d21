//! Seats: a seat's index and sets of seats.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A seat index, 0–3, in turn order (Red, Blue, Yellow, Green; W1, B1, W2, B2 in Duo). Seats `s`
/// and `s + 2` are partners.
///
/// Always a seat: it is made only by [`SeatIndex::new`], [`TryFrom<u8>`] or [`SeatIndex::ALL`],
/// so code that holds one never checks its range. On the wire it is a plain number, and reading
/// a number other than 0–3 fails (the server answers `bad_seat` for 4 to 255).
///
/// ```
/// use fourkings_protocol::SeatIndex;
///
/// let blue = SeatIndex::new(1).unwrap();
/// assert_eq!(blue.partner().get(), 3);
/// assert_eq!(SeatIndex::new(4), None);
/// assert_eq!(serde_json::to_string(&blue).unwrap(), "1");
/// assert!(serde_json::from_str::<SeatIndex>("4").is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub struct SeatIndex(u8);

/// A number that is not a seat index (seats are 0–3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0} is not a seat: seats are 0 to 3")]
pub struct NotASeat(u8);

impl JsonSchema for SeatIndex {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SeatIndex".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "A seat, 0-3 in turn order (Red, Blue, Yellow, Green; W1, B1, W2, B2 in Duo); seats s and s + 2 are partners.",
            "type": "integer",
            "minimum": 0,
            "maximum": 3
        })
    }
}

impl NotASeat {
    /// The number that was given for a seat.
    pub const fn number(self) -> u8 {
        self.0
    }
}

impl SeatIndex {
    /// The four seats in turn order.
    pub const ALL: [SeatIndex; 4] = [SeatIndex(0), SeatIndex(1), SeatIndex(2), SeatIndex(3)];

    /// The seat with index `index`, if it is one (0–3).
    #[inline]
    pub const fn new(index: u8) -> Option<SeatIndex> {
        if index < 4 {
            Some(SeatIndex(index))
        } else {
            None
        }
    }

    /// The index, 0–3, as on the wire.
    #[inline]
    pub const fn get(self) -> u8 {
        self.0
    }

    /// The index, 0–3, for indexing per-seat arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The next seat in turn order (seat 3 is followed by seat 0).
    #[inline]
    pub const fn next(self) -> SeatIndex {
        SeatIndex((self.0 + 1) & 3)
    }

    /// The partner's seat, opposite.
    #[inline]
    pub const fn partner(self) -> SeatIndex {
        SeatIndex((self.0 + 2) & 3)
    }
}

impl TryFrom<u8> for SeatIndex {
    type Error = NotASeat;

    fn try_from(index: u8) -> Result<SeatIndex, NotASeat> {
        SeatIndex::new(index).ok_or(NotASeat(index))
    }
}

impl From<SeatIndex> for u8 {
    fn from(seat: SeatIndex) -> u8 {
        seat.0
    }
}

impl From<SeatIndex> for usize {
    fn from(seat: SeatIndex) -> usize {
        seat.index()
    }
}

/// The bare number, as on the wire (`2`), so that messages read "seat 2".
impl fmt::Display for SeatIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

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

    /// The set holding just `seat`.
    #[inline]
    pub const fn single(seat: SeatIndex) -> SeatSet {
        SeatSet(1 << seat.0)
    }

    /// A team's two seats, which sit opposite: `seat` and its partner's.
    #[inline]
    pub const fn team_of(seat: SeatIndex) -> SeatSet {
        SeatSet::single(seat).with(seat.partner())
    }

    /// Whether `seat` is in the set.
    #[inline]
    pub const fn contains(self, seat: SeatIndex) -> bool {
        self.0 & (1 << seat.0) != 0
    }

    /// The set with `seat` added.
    #[inline]
    pub const fn with(self, seat: SeatIndex) -> SeatSet {
        SeatSet(self.0 | 1 << seat.0)
    }

    /// The set with `seat` removed.
    #[inline]
    pub const fn without(self, seat: SeatIndex) -> SeatSet {
        SeatSet(self.0 & !(1 << seat.0))
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
        SeatIndex::ALL
            .into_iter()
            .filter(move |&seat| self.contains(seat))
    }

    /// The set each seat's occupant is in after everyone moves by `to` (the occupant of seat `s`
    /// goes to `to[s]`).
    pub fn moved(self, to: [SeatIndex; 4]) -> SeatSet {
        self.iter().map(|seat| to[seat.index()]).collect()
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

    const S: [SeatIndex; 4] = SeatIndex::ALL;

    #[test]
    fn seat_indices_are_0_to_3() {
        for i in 0..=u8::MAX {
            assert_eq!(SeatIndex::new(i).map(SeatIndex::get), (i < 4).then_some(i));
            assert_eq!(
                SeatIndex::try_from(i).map_err(NotASeat::number),
                SeatIndex::new(i).ok_or(i)
            );
        }
        assert_eq!(S.map(SeatIndex::next), [S[1], S[2], S[3], S[0]]);
        assert_eq!(S.map(SeatIndex::partner), [S[2], S[3], S[0], S[1]]);
        assert_eq!(S.map(SeatIndex::index), [0, 1, 2, 3]);
        assert_eq!(S[2].to_string(), "2");
        assert_eq!(NotASeat(7).to_string(), "7 is not a seat: seats are 0 to 3");
    }

    /// On the wire a seat is the bare number, and only 0–3 read as one.
    #[test]
    fn seat_indices_are_plain_numbers_on_the_wire() {
        for seat in S {
            let text = serde_json::to_string(&seat).unwrap();
            assert_eq!(text, seat.get().to_string());
            assert_eq!(serde_json::from_str::<SeatIndex>(&text).unwrap(), seat);
        }
        for text in ["4", "255", "256", "300", "-1", "0.5", "\"0\"", "null"] {
            assert!(serde_json::from_str::<SeatIndex>(text).is_err(), "{text}");
        }
        let error = serde_json::from_str::<SeatIndex>("4").unwrap_err();
        assert!(error.to_string().contains("4 is not a seat"), "{error}");
    }

    #[test]
    fn seat_set_operations() {
        let set = SeatSet::EMPTY.with(S[1]).with(S[3]);
        assert_eq!(set.len(), 2);
        assert!(set.contains(S[3]) && !set.contains(S[0]));
        assert_eq!(set.without(S[1]).iter().collect::<Vec<_>>(), vec![S[3]]);
        assert_eq!(set.with(S[1]), set);
        assert_eq!(SeatSet::team_of(S[3]), SeatSet::single(S[1]).with(S[3]));
        assert_eq!(SeatSet::from_bits(set.bits()), set);
        assert_eq!(SeatSet::from_bits(0xff), SeatSet::ALL);
        assert_eq!(SeatSet::ALL.iter().collect::<Vec<_>>(), S.to_vec());
        assert!(set.meets(SeatSet::single(S[1])) && !set.meets(SeatSet::single(S[2])));
        assert_eq!(
            set.moved([S[3], S[0], S[1], S[2]]),
            SeatSet::single(S[0]).with(S[2])
        );
    }
}
