//! Writing in the chat: who may write in which channel, under which name.

use fourkings_protocol::{ChatChannel, ChatLine, Event, SeatIndex};
use tokio::time::Instant;

use super::Room;
use super::requests::Ack;
use crate::connection::ConnId;
use crate::room::chat::team_chat_refusal;
use crate::room::events::Audience;
use crate::room::record::Record;
use crate::room::refusal::Refusal;

impl Room {
    pub(super) fn write_chat(
        &mut self,
        conn: ConnId,
        channel: ChatChannel,
        text: String,
        seat: Option<SeatIndex>,
        token: Option<&str>,
    ) -> Result<Ack, Refusal> {
        let max = self.context.config.max_chat_chars;
        if text.trim().is_empty() || text.chars().count() > max {
            return Err(Refusal::ChatLength { max });
        }
        let name = match (channel, seat, token) {
            (ChatChannel::Spectators, None, None) => {
                if !self.delivery.seats_of(conn).is_empty() {
                    return Err(Refusal::BadChat("players write in the room or team chat"));
                }
                "spectator".to_owned()
            }
            (ChatChannel::Spectators, _, _) => {
                return Err(Refusal::BadChat("the spectators' chat is for spectators"));
            }
            (_, Some(seat), Some(token)) => {
                self.authorize(conn, seat, token)?;
                match self.seating.name(seat) {
                    Some(name) => name.to_owned(),
                    None => return Err(Refusal::WrongSeatToken),
                }
            }
            _ => {
                return Err(Refusal::BadChat(
                    "room and team chat need the writer's seat and token",
                ));
            }
        };
        if channel == ChatChannel::Team {
            let started = self.driver.is_started();
            if let Some(why) =
                team_chat_refusal(self.format(), self.settings.silent_partners, started)
            {
                return Err(Refusal::NotAllowed(why));
            }
        }
        self.chat.take_allowance(conn, Instant::now())?;
        let line = ChatLine {
            channel,
            seat,
            name,
            text,
            at: self.time.wall_now(),
        };
        let audience = Audience::of_chat(channel, seat);
        self.commit(Record::Chat {
            audience: audience.into(),
            line: line.clone(),
        })?;
        match audience {
            Audience::Everyone => self.emit(Event::Chat(line)),
            private => self
                .events
                .emit(Event::Hidden, Some((private, Event::Chat(line)))),
        }
        Ok(Ack::default())
    }
}
