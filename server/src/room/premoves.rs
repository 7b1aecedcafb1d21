//! Premoves: the moves each seat queued to play when its turn comes. The queues live on the
//! server so that a premove is played the moment the turn starts, with no round trip to the
//! player's browser; the room decides when one is played or dropped, this part keeps them.

use std::collections::VecDeque;

use fourkings_protocol::{PremoveQueue, SeatIndex};

/// Every seat's premove queue, first to play first.
#[derive(Debug, Default)]
pub(crate) struct Premoves {
    queues: [VecDeque<String>; 4],
}

impl Premoves {
    /// Queues `mv` after `seat`'s other premoves.
    pub(crate) fn push(&mut self, seat: SeatIndex, mv: String) {
        self.queues[seat.index()].push_back(mv);
    }

    /// How many moves `seat` has queued.
    pub(crate) fn len(&self, seat: SeatIndex) -> usize {
        self.queues[seat.index()].len()
    }

    /// The move `seat` plays first, if it queued any.
    pub(crate) fn first(&self, seat: SeatIndex) -> Option<&str> {
        self.queues[seat.index()].front().map(String::as_str)
    }

    /// `seat`'s first premove was played: the next one is first now.
    pub(crate) fn played_first(&mut self, seat: SeatIndex) {
        self.queues[seat.index()].pop_front();
    }

    /// Empties `seat`'s queue.
    pub(crate) fn clear(&mut self, seat: SeatIndex) {
        self.queues[seat.index()].clear();
    }

    /// A new game: every queue empty.
    pub(crate) fn reset(&mut self) {
        *self = Premoves::default();
    }

    /// The seats that have queued anything.
    pub(crate) fn seats(&self) -> impl Iterator<Item = SeatIndex> + '_ {
        SeatIndex::ALL.into_iter().filter(|&s| self.len(s) > 0)
    }

    /// `seat`'s queue as its connections see it.
    pub(crate) fn moves(&self, seat: SeatIndex) -> Vec<String> {
        self.queues[seat.index()].iter().cloned().collect()
    }

    /// The queues of `seats` that hold anything, as a snapshot for their connections shows them.
    pub(crate) fn views(&self, seats: impl IntoIterator<Item = SeatIndex>) -> Vec<PremoveQueue> {
        seats
            .into_iter()
            .filter(|&seat| self.len(seat) > 0)
            .map(|seat| PremoveQueue {
                seat,
                moves: self.moves(seat),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queue_plays_in_order_and_empties() {
        let [red, blue, ..] = SeatIndex::ALL;
        let mut premoves = Premoves::default();
        premoves.push(red, "h2h3".into());
        premoves.push(red, "h3h4".into());
        assert_eq!(premoves.first(red), Some("h2h3"));
        assert_eq!(premoves.first(blue), None);
        premoves.played_first(red);
        assert_eq!(premoves.moves(red), ["h3h4"]);
        premoves.push(blue, "b7c7".into());
        assert_eq!(premoves.seats().collect::<Vec<_>>(), [red, blue]);
        assert_eq!(premoves.views([blue]).len(), 1);
        premoves.clear(red);
        assert_eq!(premoves.len(red), 0);
        premoves.reset();
        assert!(premoves.views(SeatIndex::ALL).is_empty());
    }
}
