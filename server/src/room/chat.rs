//! The chat: the lines a newcomer's snapshot shows, each with its readers, and how many lines
//! each connection may still write this minute. Room chat is everyone's, team chat the
//! partners' (off under silent partners once the game starts), and the spectators' chat apart
//! from the players'.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use fourkings_engine::Format;
use fourkings_protocol::{ChatLine, SeatSet};
use tokio::time::Instant;

use super::events::Audience;
use super::refusal::Refusal;
use crate::connection::ConnId;

/// Why the team channel is closed, or `None` while partners may write in it: free-for-all has no
/// teams, and silent partners keep quiet once the game has started.
pub(crate) fn team_chat_refusal(
    format: Format,
    silent_partners: bool,
    started: bool,
) -> Option<&'static str> {
    if format == Format::FreeForAll {
        Some("free-for-all has no teams")
    } else if silent_partners && started {
        Some("silent partners: no team chat after the start")
    } else {
        None
    }
}

/// A room's recent chat and its writers' allowances.
pub(crate) struct Chat {
    /// Recent lines with their readers, oldest first, at most `capacity`.
    lines: VecDeque<(Audience, ChatLine)>,
    capacity: usize,
    /// Lines a connection may write in a minute.
    per_minute: usize,
    /// When each connection wrote its lines of the last minute.
    written: HashMap<ConnId, VecDeque<Instant>, foldhash::fast::RandomState>,
}

impl Chat {
    /// No lines yet; snapshots show the last `capacity`; a connection writes `per_minute` lines
    /// a minute at most.
    pub(crate) fn new(capacity: usize, per_minute: usize) -> Chat {
        Chat {
            lines: VecDeque::new(),
            capacity,
            per_minute,
            written: HashMap::default(),
        }
    }

    /// Keeps a line, with its readers, for the snapshots of those who come later.
    pub(crate) fn remember(&mut self, audience: Audience, line: ChatLine) {
        self.lines.push_back((audience, line));
        while self.lines.len() > self.capacity {
            self.lines.pop_front();
        }
    }

    /// Forgets team chat: it belongs to the partners who wrote it, and the seats changed.
    pub(crate) fn forget_team_lines(&mut self) {
        self.lines
            .retain(|(audience, _)| !matches!(audience, Audience::Seats(_)));
    }

    /// The lines a connection holding `seats` may read.
    pub(crate) fn lines_for(&self, seats: SeatSet) -> Vec<ChatLine> {
        self.lines
            .iter()
            .filter(|(audience, _)| audience.includes(seats))
            .map(|(_, line)| line.clone())
            .collect()
    }

    /// Counts a line against `conn`'s allowance for the minute before `now`.
    pub(crate) fn take_allowance(&mut self, conn: ConnId, now: Instant) -> Result<(), Refusal> {
        let limit = self.per_minute;
        let times = self.written.entry(conn).or_default();
        while times
            .front()
            .is_some_and(|&t| now.duration_since(t) >= Duration::from_secs(60))
        {
            times.pop_front();
        }
        if times.len() >= limit {
            return Err(Refusal::ChatLimited { limit });
        }
        times.push_back(now);
        Ok(())
    }

    /// `conn` closed: its allowance goes with it.
    pub(crate) fn forget_writer(&mut self, conn: ConnId) {
        self.written.remove(&conn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_connection_writes_its_allowance_a_minute() {
        let mut chat = Chat::new(2, 2);
        let now = Instant::now();
        assert!(chat.take_allowance(1, now).is_ok());
        assert!(chat.take_allowance(1, now).is_ok());
        assert!(matches!(
            chat.take_allowance(1, now),
            Err(Refusal::ChatLimited { limit: 2 })
        ));
        assert!(chat.take_allowance(2, now).is_ok());
        assert!(
            chat.take_allowance(1, now + Duration::from_secs(60))
                .is_ok()
        );
    }
}
