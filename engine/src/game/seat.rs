//! Seats at the table and the two teams.

use std::fmt;

use crate::army::Army;
use crate::rules::Format;

/// A seat at the table, numbered 0–3 in turn order.
///
/// On the cross board seat `i` plays army `i` (Red, Blue, Yellow, Green). In Duo the seats are
/// W1, B1, W2, B2: even seats play White, odd seats Black. Either way, seats `i` and `i + 2` are
/// partners.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Seat(u8);

impl Seat {
    /// The four seats in turn order.
    pub const ALL: [Seat; 4] = [Seat(0), Seat(1), Seat(2), Seat(3)];

    /// The seat with index `i` (0–3).
    pub const fn new(i: usize) -> Option<Seat> {
        if i < 4 { Some(Seat(i as u8)) } else { None }
    }

    /// The seat's index, 0–3.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The next seat in turn order.
    #[inline]
    pub const fn next(self) -> Seat {
        Seat((self.0 + 1) & 3)
    }

    /// The partner's seat (opposite).
    #[inline]
    pub const fn partner(self) -> Seat {
        Seat((self.0 + 2) & 3)
    }

    /// The team the seat plays for (in the formats that have teams).
    #[inline]
    pub const fn team(self) -> Team {
        if self.0 & 1 == 0 {
            Team::RedYellow
        } else {
            Team::BlueGreen
        }
    }

    /// The seat that plays `army` on the cross board.
    #[inline]
    pub const fn of_army(army: Army) -> Seat {
        Seat(army as u8)
    }

    /// The army this seat moves in `format`.
    #[inline]
    pub const fn army(self, format: Format) -> Army {
        match format {
            Format::Duo => {
                if self.0 & 1 == 0 {
                    Army::WHITE
                } else {
                    Army::BLACK
                }
            }
            _ => Army::from_bits(self.0),
        }
    }

    /// The seat's name in `format`: the army's name on the cross board, `W1`, `B1`, `W2`, `B2` in
    /// Duo.
    pub const fn name(self, format: Format) -> &'static str {
        match format {
            Format::Duo => ["W1", "B1", "W2", "B2"][self.0 as usize],
            _ => self.army(format).name(),
        }
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

/// One of the two teams of Teams and Duo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Team {
    /// Red and Yellow (seats 0 and 2); White in Duo. Written `1-0` when it wins.
    RedYellow,
    /// Blue and Green (seats 1 and 3); Black in Duo. Written `0-1` when it wins.
    BlueGreen,
}

impl Team {
    /// White in Duo.
    pub const WHITE: Team = Team::RedYellow;
    /// Black in Duo.
    pub const BLACK: Team = Team::BlueGreen;

    /// The other team.
    pub const fn other(self) -> Team {
        match self {
            Team::RedYellow => Team::BlueGreen,
            Team::BlueGreen => Team::RedYellow,
        }
    }

    /// The team's two seats.
    pub const fn seats(self) -> [Seat; 2] {
        match self {
            Team::RedYellow => [Seat(0), Seat(2)],
            Team::BlueGreen => [Seat(1), Seat(3)],
        }
    }

    /// The team's name in `format`: `Red and Yellow`, or `White` in Duo.
    pub const fn name(self, format: Format) -> &'static str {
        match (format, self) {
            (Format::Duo, Team::RedYellow) => "White",
            (Format::Duo, Team::BlueGreen) => "Black",
            (_, Team::RedYellow) => "Red and Yellow",
            (_, Team::BlueGreen) => "Blue and Green",
        }
    }
}
