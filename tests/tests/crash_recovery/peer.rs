//! One connection of the test ([`Peer`]): its own copy of the room, built from what the server
//! sends, and what it was told (tokens, acknowledged moves, chat), with the requests it makes.
//! Coming back after the restart is in `rejoin`.

use std::collections::BTreeMap;

use anyhow::{Context, Result, anyhow, bail, ensure};
use fourkings_protocol::{
    ChatChannel, ChatLine, ClientMessage, ClientRequest, ErrorCode, Event, LegalMoves, SeatIndex,
    ServerMessage, Snapshot,
};
use fourkings_tests::Client;
use fourkings_tests::model::{Model, Step};

use crate::base::Base;

/// A move that was acknowledged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Acked {
    /// The game it was played in.
    pub(crate) game: String,
    /// Plies played before it (its index in the move list).
    pub(crate) ply: u32,
    pub(crate) seat: SeatIndex,
    pub(crate) mv: String,
}

/// One connection of the test: a person holding a seat, or a spectator (each room's watcher). It
/// keeps its own copy of the room from what the server sends, and what it was told.
pub(crate) struct Peer {
    pub(crate) who: String,
    pub(crate) client: Option<Client>,
    pub(crate) model: Model,
    /// The seat it holds (it moves with the person: `move_player`, switch-partners rematches).
    pub(crate) seat: Option<SeatIndex>,
    pub(crate) token: Option<String>,
    /// The host token it presents, if any (a new one arrives with `host_token`).
    pub(crate) host_token: Option<String>,
    /// The latest legal moves, with their version.
    pub(crate) legal: Option<(u64, LegalMoves)>,
    /// Every event applied, by version.
    pub(crate) log: BTreeMap<u64, Event>,
    /// The chat lines it has read, oldest first.
    pub(crate) chat: Vec<ChatLine>,
    /// The current game.
    pub(crate) game_id: Option<String>,
    /// Its acknowledged moves that stand.
    pub(crate) acked: Vec<Acked>,
    /// Its acknowledged moves that a lifeline took back.
    pub(crate) taken_back: Vec<Acked>,
    /// The last messages it took in (shown when a move goes wrong).
    pub(crate) trace: Vec<String>,
}

pub(crate) fn answer_to(message: &ServerMessage) -> Option<u64> {
    match message {
        ServerMessage::Ack { req, .. } | ServerMessage::Error { req: Some(req), .. } => Some(*req),
        _ => None,
    }
}

impl Peer {
    pub(crate) async fn open(base: &Base, room: &str, who: String) -> Result<Peer> {
        let (client, snapshot, _) = base.connect(room).await.with_context(|| who.clone())?;
        Peer::open_with(client, &snapshot, who)
    }

    /// A peer on a connection that just received `snapshot`.
    pub(crate) fn open_with(client: Client, snapshot: &Snapshot, who: String) -> Result<Peer> {
        let mut peer = Peer {
            who,
            client: Some(client),
            model: Model::new(),
            seat: None,
            token: None,
            host_token: None,
            legal: None,
            log: BTreeMap::new(),
            chat: Vec::new(),
            game_id: None,
            acked: Vec::new(),
            taken_back: Vec::new(),
            trace: Vec::new(),
        };
        peer.adopt(snapshot)?;
        Ok(peer)
    }

    pub(crate) fn client(&mut self) -> Result<&mut Client> {
        let who = &self.who;
        self.client
            .as_mut()
            .ok_or_else(|| anyhow!("{who} is not connected"))
    }

    pub(crate) fn adopt(&mut self, snapshot: &Snapshot) -> Result<()> {
        self.model
            .adopt(snapshot)
            .map_err(|e| anyhow!("{}: {e}", self.who))?;
        self.chat.clone_from(&snapshot.chat);
        self.game_id = snapshot.game.as_ref().map(|g| g.id.clone());
        self.legal = snapshot.legal_moves.clone().map(|m| (snapshot.v, m));
        Ok(())
    }

    /// Takes in a server message: snapshots, events and legal moves change the copy of the room;
    /// anything else (answers) is handed back.
    pub(crate) fn take(&mut self, message: ServerMessage) -> Result<Option<ServerMessage>> {
        // The last few messages, for a failure's message.
        if self.trace.len() == 16 {
            self.trace.remove(0);
        }
        self.trace.push(format!("{:.150}", format!("{message:?}")));
        match message {
            ServerMessage::Snapshot(snapshot) => {
                self.adopt(&snapshot)?;
                Ok(None)
            }
            ServerMessage::Event { v, event } => {
                match self
                    .model
                    .event(v, &event)
                    .map_err(|e| anyhow!("{}: {e}", self.who))?
                {
                    Step::Applied => {
                        self.applied(v, event);
                        Ok(None)
                    }
                    step => bail!(
                        "{}: event v {v} is a {step:?} for a client at v {}: {event:?}",
                        self.who,
                        self.model.v
                    ),
                }
            }
            ServerMessage::LegalMoves { v, moves } => {
                self.legal = Some((v, moves));
                Ok(None)
            }
            other => Ok(Some(other)),
        }
    }

    fn applied(&mut self, v: u64, event: Event) {
        match &event {
            Event::Chat(line) => self.chat.push(line.clone()),
            Event::HostToken { host_token } => self.host_token = Some(host_token.clone()),
            Event::PlayerMoved { from, to } if self.seat == Some(*from) => self.seat = Some(*to),
            Event::Started { game } => self.game_id = Some(game.id.clone()),
            Event::GameChanged { what, game, .. }
                if *what == fourkings_protocol::GameChange::TakenBack =>
            {
                let (gone, kept) = std::mem::take(&mut self.acked)
                    .into_iter()
                    .partition(|a| a.game == game.id && a.ply >= game.ply);
                self.acked = kept;
                self.taken_back.extend::<Vec<Acked>>(gone);
            }
            Event::Rematch {
                game, seat_moves, ..
            } => {
                self.game_id = Some(game.id.clone());
                if let Some(moves) = seat_moves {
                    self.seat = self.seat.map(|s| moves[s.index()]);
                    // Team chat stays with the pairing that wrote it.
                    self.chat.retain(|l| l.channel != ChatChannel::Team);
                }
            }
            _ => {}
        }
        self.log.insert(v, event);
    }

    /// The next message, taken in.
    pub(crate) async fn next(&mut self) -> Result<Option<ServerMessage>> {
        let who = self.who.clone();
        let message = self.client()?.try_next().await.with_context(|| who)?;
        self.take(message)
    }

    /// Sends a request and returns its answer, taking in everything before it.
    pub(crate) async fn request(&mut self, message: ClientMessage) -> Result<ServerMessage> {
        let client = self.client()?;
        let req = client.req();
        client.send(&ClientRequest::new(req, message)).await;
        loop {
            match self.next().await? {
                Some(answer) if answer_to(&answer) == Some(req) => return Ok(answer),
                Some(ServerMessage::Pong { .. }) | None => {}
                Some(other) => bail!(
                    "{}: {other:?} while waiting for the answer to {req}",
                    self.who
                ),
            }
        }
    }

    /// A request that must succeed.
    pub(crate) async fn ok(&mut self, message: ClientMessage) -> Result<ServerMessage> {
        let answer = self.request(message).await?;
        ensure!(
            matches!(answer, ServerMessage::Ack { .. }),
            "{}: expected an ack, got {answer:?}",
            self.who
        );
        Ok(answer)
    }

    /// A request that must fail with `code`.
    pub(crate) async fn fails(&mut self, code: ErrorCode, message: ClientMessage) -> Result<()> {
        match self.request(message).await? {
            ServerMessage::Error { code: c, .. } if c == code => Ok(()),
            other => bail!("{}: expected the error {code:?}, got {other:?}", self.who),
        }
    }

    /// Takes in everything the server sent before now.
    pub(crate) async fn drain(&mut self) -> Result<()> {
        if self.client.is_none() {
            return Ok(());
        }
        let client = self.client()?;
        let req = client.req();
        client
            .send(&ClientRequest::new(req, ClientMessage::Ping))
            .await;
        loop {
            match self.next().await? {
                Some(ServerMessage::Pong { req: r, .. }) if r == req => return Ok(()),
                Some(other) => bail!("{}: unexpected {other:?}", self.who),
                None => {}
            }
        }
    }

    pub(crate) async fn take_seat(&mut self, seat: SeatIndex, name: &str) -> Result<()> {
        let answer = self
            .ok(ClientMessage::TakeSeat {
                seat,
                name: name.to_owned(),
            })
            .await?;
        let ServerMessage::Ack {
            seat_token: Some(token),
            ..
        } = answer
        else {
            bail!("{}: no seat token in {answer:?}", self.who);
        };
        self.seat = Some(seat);
        self.token = Some(token);
        Ok(())
    }

    /// The seat and token, for seat actions.
    pub(crate) fn credentials(&self) -> Result<(SeatIndex, String)> {
        match (self.seat, &self.token) {
            (Some(seat), Some(token)) => Ok((seat, token.clone())),
            _ => bail!("{} holds no seat", self.who),
        }
    }

    pub(crate) async fn seat_action(
        &mut self,
        build: impl FnOnce(SeatIndex, String) -> ClientMessage,
    ) -> Result<ServerMessage> {
        let (seat, token) = self.credentials()?;
        self.ok(build(seat, token)).await
    }
}

/// The model shows the snapshot's board and moves.
pub(crate) fn same_board(model: &Model, snapshot: &Snapshot) -> Result<()> {
    match &snapshot.game {
        Some(game) => {
            ensure!(
                model.moves == game.moves,
                "moves {:?} against the room's {:?}",
                model.moves,
                game.moves
            );
            ensure!(
                model.pieces == game.pieces,
                "the board differs from the room's"
            );
            ensure!(
                model.to_move == game.to_move,
                "to move {:?} against {:?}",
                model.to_move,
                game.to_move
            );
            ensure!(
                model.result == game.result,
                "result {:?} against {:?}",
                model.result,
                game.result
            );
        }
        None => ensure!(!model.started, "a game the room does not have"),
    }
    Ok(())
}
