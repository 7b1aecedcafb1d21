//! Chat: the players' room chat that everyone reads, team chat for partners (off under silent
//! partners once the game starts), and the spectators' chat apart from the players'.

use std::time::Duration;

use fourkings_protocol::{ChatChannel, ChatLine, ErrorCode, Event, SeatIndex};
use tokio::time::Instant;

use super::clock::now_ms;
use super::record::Record;
use super::state::{Ack, Audience, Reject, Room, SeatSlot, reject};
use crate::connection::ConnId;
use crate::rules_view;

impl Room {
    pub(super) fn write_chat(
        &mut self,
        conn: ConnId,
        channel: ChatChannel,
        text: String,
        seat: Option<SeatIndex>,
        token: Option<&str>,
    ) -> Result<Ack, Reject> {
        let max = self.context.config.max_chat_chars;
        if text.trim().is_empty() || text.chars().count() > max {
            return reject(
                ErrorCode::BadChat,
                format!("a chat message has 1 to {max} characters"),
            );
        }
        let name = match (channel, seat, token) {
            (ChatChannel::Spectators, None, None) => {
                if self.conns.get(&conn).is_some_and(|c| c.seats != 0) {
                    return reject(ErrorCode::BadChat, "players write in the room or team chat");
                }
                "spectator".to_owned()
            }
            (ChatChannel::Spectators, _, _) => {
                return reject(ErrorCode::BadChat, "the spectators' chat is for spectators");
            }
            (_, Some(seat), Some(token)) => {
                self.authorize(conn, seat, token)?;
                match &self.seats[usize::from(seat)] {
                    SeatSlot::Human { name, .. } => name.clone(),
                    _ => return reject(ErrorCode::BadToken, "this token does not hold that seat"),
                }
            }
            _ => {
                return reject(
                    ErrorCode::BadChat,
                    "room and team chat need the writer's seat and token",
                );
            }
        };
        if channel == ChatChannel::Team {
            let started = self.game.is_some();
            let silent = self.settings.silent_partners;
            if let Some(why) = rules_view::team_chat_refusal(self.format(), silent, started) {
                return reject(ErrorCode::NotAllowed, why);
            }
        }
        self.take_chat_allowance(conn)?;
        let line = ChatLine {
            channel,
            seat,
            name,
            text,
            at: now_ms(),
        };
        let audience = Self::chat_audience(channel, seat);
        self.commit(Record::Chat {
            audience: audience.into(),
            line: line.clone(),
        })?;
        match audience {
            Audience::Everyone => self.emit(Event::Chat(line)),
            private => self.emit_with_private(Event::Hidden, Some((private, Event::Chat(line)))),
        }
        Ok(Ack::default())
    }

    /// Counts a chat message against the connection's per-minute allowance.
    fn take_chat_allowance(&mut self, conn: ConnId) -> Result<(), Reject> {
        let limit = self.context.config.chat_per_minute as usize;
        let now = Instant::now();
        let Some(c) = self.conns.get_mut(&conn) else {
            return Ok(());
        };
        while c
            .chat_times
            .front()
            .is_some_and(|&t| now.duration_since(t) >= Duration::from_secs(60))
        {
            c.chat_times.pop_front();
        }
        if c.chat_times.len() >= limit {
            return reject(
                ErrorCode::ChatLimited,
                format!("at most {limit} chat messages a minute"),
            );
        }
        c.chat_times.push_back(now);
        Ok(())
    }
}
