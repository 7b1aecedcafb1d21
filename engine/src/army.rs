//! The four armies, and containers indexed by army.

use std::fmt;
use std::ops::{Index, IndexMut};

/// One of the four armies on the cross board, in seat (and turn) order.
///
/// On the classic board of Duo only two armies take part: White plays the role of [`Army::Red`]
/// (bottom, pawns moving up) and Black that of [`Army::Yellow`] (top, pawns moving down); the
/// constants [`Army::WHITE`] and [`Army::BLACK`] name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Army {
    /// Bottom; moves first in the standard order; pawns move up (+rank).
    Red = 0,
    /// Left; pawns move right (+file).
    Blue = 1,
    /// Top; Red's partner in Teams; pawns move down (−rank).
    Yellow = 2,
    /// Right; Blue's partner in Teams; pawns move left (−file).
    Green = 3,
}

impl Army {
    /// All four armies in seat order: Red, Blue, Yellow, Green.
    pub const ALL: [Army; 4] = [Army::Red, Army::Blue, Army::Yellow, Army::Green];
    /// White on the classic board (Duo).
    pub const WHITE: Army = Army::Red;
    /// Black on the classic board (Duo).
    pub const BLACK: Army = Army::Yellow;

    /// The army's index in seat order, 0–3.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The army at seat index `i` (0–3), if any.
    #[inline]
    pub const fn from_index(i: usize) -> Option<Army> {
        match i {
            0 => Some(Army::Red),
            1 => Some(Army::Blue),
            2 => Some(Army::Yellow),
            3 => Some(Army::Green),
            _ => None,
        }
    }

    #[inline]
    pub(crate) const fn from_bits(i: u8) -> Army {
        match i & 3 {
            0 => Army::Red,
            1 => Army::Blue,
            2 => Army::Yellow,
            _ => Army::Green,
        }
    }

    /// The next army in seat order (Green is followed by Red).
    #[inline]
    pub const fn next(self) -> Army {
        Army::from_bits(self as u8 + 1)
    }

    /// The army sitting opposite: the partner in Teams.
    #[inline]
    pub const fn opposite(self) -> Army {
        Army::from_bits(self as u8 + 2)
    }

    /// The lower-case letter used in FEN4 piece cells: `r`, `b`, `y`, `g`.
    pub const fn letter(self) -> char {
        match self {
            Army::Red => 'r',
            Army::Blue => 'b',
            Army::Yellow => 'y',
            Army::Green => 'g',
        }
    }

    /// The upper-case letter used for the side to move in FEN4: `R`, `B`, `Y`, `G`.
    pub const fn upper_letter(self) -> char {
        self.letter().to_ascii_uppercase()
    }

    /// Parses an army letter in either case.
    pub fn from_letter(c: char) -> Option<Army> {
        match c.to_ascii_lowercase() {
            'r' => Some(Army::Red),
            'b' => Some(Army::Blue),
            'y' => Some(Army::Yellow),
            'g' => Some(Army::Green),
            _ => None,
        }
    }

    /// The army's name in English, capitalised ("Red").
    pub const fn name(self) -> &'static str {
        match self {
            Army::Red => "Red",
            Army::Blue => "Blue",
            Army::Yellow => "Yellow",
            Army::Green => "Green",
        }
    }
}

impl fmt::Display for Army {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One value per army, indexed by [`Army`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByArmy<T>(pub [T; 4]);

impl<T> ByArmy<T> {
    /// Builds a container by calling `f` for each army in seat order.
    pub fn from_fn(mut f: impl FnMut(Army) -> T) -> ByArmy<T> {
        ByArmy(Army::ALL.map(&mut f))
    }

    /// The value for `army`.
    #[inline]
    pub fn get(&self, army: Army) -> &T {
        &self.0[army.index()]
    }

    /// The value for `army`, mutably.
    #[inline]
    pub fn get_mut(&mut self, army: Army) -> &mut T {
        &mut self.0[army.index()]
    }

    /// Applies `f` to every value.
    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> ByArmy<U> {
        ByArmy(self.0.map(&mut f))
    }

    /// The armies with their values, in seat order.
    pub fn iter(&self) -> impl Iterator<Item = (Army, &T)> {
        Army::ALL.into_iter().zip(self.0.iter())
    }
}

impl<T> Index<Army> for ByArmy<T> {
    type Output = T;
    #[inline]
    fn index(&self, army: Army) -> &T {
        &self.0[army.index()]
    }
}

impl<T> IndexMut<Army> for ByArmy<T> {
    #[inline]
    fn index_mut(&mut self, army: Army) -> &mut T {
        &mut self.0[army.index()]
    }
}

/// A set of armies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ArmySet(u8);

impl ArmySet {
    /// No army.
    pub const EMPTY: ArmySet = ArmySet(0);
    /// All four armies.
    pub const ALL: ArmySet = ArmySet(0b1111);

    /// The set holding just `army`.
    #[inline]
    pub const fn single(army: Army) -> ArmySet {
        ArmySet(1 << army as u8)
    }

    /// Whether `army` is in the set.
    #[inline]
    pub const fn contains(self, army: Army) -> bool {
        self.0 & (1 << army as u8) != 0
    }

    /// The set with `army` added.
    #[inline]
    pub const fn with(self, army: Army) -> ArmySet {
        ArmySet(self.0 | 1 << army as u8)
    }

    /// The set with `army` removed.
    #[inline]
    pub const fn without(self, army: Army) -> ArmySet {
        ArmySet(self.0 & !(1 << army as u8))
    }

    /// How many armies the set holds.
    #[inline]
    pub const fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The armies after `army` in seat order, up to and including `last` (all four, ending with
    /// `army`, when `last == army`).
    pub fn seats_after(army: Army, last: Army) -> ArmySet {
        let mut set = ArmySet::EMPTY;
        let mut a = army;
        loop {
            a = a.next();
            set = set.with(a);
            if a == last {
                return set;
            }
        }
    }

    /// The armies in the set, in seat order.
    pub fn iter(self) -> impl Iterator<Item = Army> {
        Army::ALL.into_iter().filter(move |&a| self.contains(a))
    }
}

impl FromIterator<Army> for ArmySet {
    fn from_iter<I: IntoIterator<Item = Army>>(iter: I) -> ArmySet {
        iter.into_iter().fold(ArmySet::EMPTY, ArmySet::with)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seat_order_wraps_and_partners_sit_opposite() {
        assert_eq!(Army::Green.next(), Army::Red);
        assert_eq!(Army::Red.opposite(), Army::Yellow);
        assert_eq!(Army::Blue.opposite(), Army::Green);
    }

    #[test]
    fn army_set_operations() {
        let set = ArmySet::EMPTY.with(Army::Blue).with(Army::Green);
        assert_eq!(set.len(), 2);
        assert!(set.contains(Army::Green) && !set.contains(Army::Red));
        assert_eq!(
            set.without(Army::Blue).iter().collect::<Vec<_>>(),
            vec![Army::Green]
        );
    }
}
