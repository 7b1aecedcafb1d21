//! The four seats as the protocol and the engine number them: the same four seats the same way,
//! and this the one place that says so.

use fourkings_engine::{Format, Seat};
use fourkings_protocol::SeatIndex;

/// The seat as the engine knows it.
pub(crate) const fn engine_seat(seat: SeatIndex) -> Seat {
    Seat::ALL[seat.index()]
}

/// The seat as the protocol writes it (see [`engine_seat`]).
pub(crate) const fn protocol_seat(seat: Seat) -> SeatIndex {
    SeatIndex::ALL[seat.index()]
}

/// The label of a seat: the army on the cross board, W1/B1/W2/B2 in Duo.
pub(crate) fn seat_label(format: Format, seat: SeatIndex) -> String {
    engine_seat(seat).name(format).to_owned()
}
