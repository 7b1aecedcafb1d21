//! A [`Peer`] across the restart: told the server is restarting (SIGTERM), coming back with its
//! tokens and its version, and asking for a snapshot of its own.

use anyhow::{Context, Result, bail, ensure};
use fourkings_protocol::{ClientMessage, ClientRequest, Event, ServerMessage, Snapshot};

use crate::base::Base;
use crate::peer::{Peer, answer_to, same_board};

impl Peer {
    /// Reads until the server closes the connection, which must be for a restart, taking in
    /// what came first; returns how many messages that was. Not connected: nothing to do.
    pub(crate) async fn until_restarting(&mut self) -> Result<usize> {
        let Some(mut client) = self.client.take() else {
            return Ok(0);
        };
        let (messages, code) = client.until_closed().await;
        let count = messages.len();
        for message in messages {
            match self.take(message)? {
                None | Some(ServerMessage::Pong { .. }) => {}
                Some(other) => bail!("{}: {other:?} before the restart", self.who),
            }
        }
        ensure!(
            code == Some(fourkings_protocol::close::SERVER_RESTARTING.0),
            "{}: closed with {code:?}, not for a restart",
            self.who
        );
        Ok(count)
    }

    /// `hello` with this peer's tokens and no version: the ack (a snapshot follows it).
    pub(crate) async fn hello(&mut self) -> Result<ServerMessage> {
        let seat_tokens = self.token.clone().into_iter().collect();
        let host_token = self.host_token.clone();
        self.ok(ClientMessage::Hello {
            seat_tokens,
            host_token,
            since: None,
        })
        .await
    }

    /// Reconnects and says `hello` with its tokens and the last version it holds. Returns the
    /// ack, the events that followed it (up to the answer to a `ping` sent right after) and how
    /// many events arrived before the ack (ignored, as the protocol says). At `checkpoint`'s
    /// version the copy of the room must show `checkpoint`'s board and moves. A snapshot instead
    /// of the events is refused unless `snapshot_ok` (a room of CPUs may run more events ahead
    /// than the room keeps).
    pub(crate) async fn reconnect(
        &mut self,
        base: &Base,
        room: &str,
        checkpoint: Option<&Snapshot>,
        snapshot_ok: bool,
    ) -> Result<(ServerMessage, Vec<(u64, Event)>, usize)> {
        let (mut client, first, _) = base.connect(room).await.with_context(|| self.who.clone())?;
        let since = self.model.v;
        ensure!(
            first.v >= since,
            "{}: the room is at {} below the {since} it held",
            self.who,
            first.v
        );
        let req = client.req();
        client
            .send(&ClientRequest::new(
                req,
                ClientMessage::Hello {
                    seat_tokens: self.token.clone().into_iter().collect(),
                    host_token: self.host_token.clone(),
                    since: Some(since),
                },
            ))
            .await;
        let mut ignored = 0;
        let ack = loop {
            match client.try_next().await? {
                message @ ServerMessage::Ack { .. } if answer_to(&message) == Some(req) => {
                    break message;
                }
                ServerMessage::Event { .. } => ignored += 1,
                ServerMessage::LegalMoves { .. } => {}
                other => bail!("{}: {other:?} before the ack of hello", self.who),
            }
        };
        self.client = Some(client);
        self.legal = None;
        let ping = self.client()?.req();
        self.client()?
            .send(&ClientRequest::new(ping, ClientMessage::Ping))
            .await;
        let mut replay = Vec::new();
        let mut checked = false;
        let check = |peer: &Peer, checked: &mut bool| -> Result<()> {
            if let Some(snapshot) = checkpoint {
                if !*checked && peer.model.v == snapshot.v {
                    *checked = true;
                    same_board(&peer.model, snapshot)
                        .with_context(|| format!("{} at v {}", peer.who, snapshot.v))?;
                }
            }
            Ok(())
        };
        check(self, &mut checked)?;
        loop {
            let who = self.who.clone();
            let message = self.client()?.try_next().await.with_context(|| who)?;
            match &message {
                ServerMessage::Event { v, event } => replay.push((*v, event.clone())),
                ServerMessage::Snapshot(_) if snapshot_ok => checked = true,
                ServerMessage::Snapshot(_) => {
                    bail!("{}: a snapshot instead of the missed events", self.who)
                }
                _ => {}
            }
            match self.take(message)? {
                Some(ServerMessage::Pong { req, .. }) if req == ping => break,
                Some(other) => bail!("{}: unexpected {other:?}", self.who),
                None => check(self, &mut checked)?,
            }
        }
        if let Some(snapshot) = checkpoint {
            ensure!(
                checked,
                "{}: never at the version {} of the restored room",
                self.who,
                snapshot.v
            );
        }
        Ok((ack, replay, ignored))
    }

    /// A fresh snapshot for this connection (`hello` without tokens or version), not yet taken in.
    pub(crate) async fn own_snapshot(&mut self) -> Result<Snapshot> {
        self.ok(ClientMessage::Hello {
            seat_tokens: Vec::new(),
            host_token: None,
            since: None,
        })
        .await?;
        let who = self.who.clone();
        match self.client()?.try_next().await.with_context(|| who)? {
            ServerMessage::Snapshot(snapshot) => Ok(*snapshot),
            other => bail!(
                "{}: expected a snapshot after hello, got {other:?}",
                self.who
            ),
        }
    }
}
