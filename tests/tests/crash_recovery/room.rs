//! One room of the test ([`Room`]): its watcher and its people, and playing on in it.

use anyhow::{Context, Result, anyhow, bail, ensure};
use fourkings_protocol::{ChatChannel, ClientMessage, ErrorCode, SeatIndex, ServerMessage};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use crate::base::Base;
use crate::capture::Capture;
use crate::peer::{Acked, Peer, same_board};
use crate::specs::{Spec, Stage, Twist};

/// Moves a room of CPUs is followed for after the restart (fewer if the game ends).
const CPU_MOVES_AFTER: usize = 30;

pub(crate) struct Room {
    pub(crate) n: usize,
    pub(crate) label: String,
    pub(crate) spec: Spec,
    pub(crate) id: String,
    pub(crate) host_token: String,
    /// A spectator that has watched since the room was created (and holds the host token when
    /// the host does not sit).
    pub(crate) watcher: Peer,
    /// The people, in the order they sat down (person 0 sat at seat 0, ...).
    pub(crate) players: Vec<Peer>,
    pub(crate) rng: ChaCha8Rng,
    /// The person who made the last move.
    pub(crate) last_mover: Option<usize>,
    pub(crate) before: Option<Capture>,
    /// Seats whose people came back after the restart, in order.
    pub(crate) back: Vec<SeatIndex>,
    /// What the clock checks saw.
    pub(crate) notes: Vec<String>,
}

fn is_ffa(preset: &str) -> bool {
    preset.starts_with("ffa")
}

impl Room {
    pub(crate) fn preset(&self) -> &str {
        if self.spec.twist == Twist::Lobby {
            // Its settings change to free-for-all.
            return "ffa";
        }
        self.spec.patch.preset.as_deref().unwrap_or("teams")
    }

    pub(crate) fn timed(&self) -> bool {
        self.spec.patch.turn_limit.unwrap_or(0) > 0
            || self.spec.patch.team_clock.unwrap_or(0) > 0
            || self.spec.twist == Twist::Lobby
    }

    pub(crate) fn host(&mut self) -> &mut Peer {
        if self.spec.host_sits && self.spec.stage != Stage::AllCpu {
            &mut self.players[0]
        } else {
            &mut self.watcher
        }
    }

    pub(crate) fn person(&mut self, seat: SeatIndex) -> Result<&mut Peer> {
        let label = &self.label;
        self.players
            .iter_mut()
            .find(|p| p.seat == Some(seat))
            .ok_or_else(|| anyhow!("{label}: nobody at seat {seat}"))
    }

    fn human_seats(&self) -> Vec<SeatIndex> {
        self.players.iter().filter_map(|p| p.seat).collect()
    }

    pub(crate) fn connected(&mut self) -> impl Iterator<Item = &mut Peer> {
        std::iter::once(&mut self.watcher)
            .chain(self.players.iter_mut())
            .filter(|p| p.client.is_some())
    }

    pub(crate) async fn drain_all(&mut self) -> Result<()> {
        for peer in self.connected() {
            peer.drain().await?;
        }
        Ok(())
    }

    pub(crate) async fn start(&mut self) -> Result<()> {
        let host_token = self.host_token.clone();
        self.host().ok(ClientMessage::Start { host_token }).await?;
        Ok(())
    }

    pub(crate) async fn rematch(&mut self) -> Result<()> {
        let host_token = self.host_token.clone();
        self.host()
            .ok(ClientMessage::Rematch { host_token })
            .await?;
        // Everyone takes in the rematch (seats may have moved with it).
        self.drain_all().await
    }

    /// Chat in every channel the room allows: the first person in the room chat, the second in
    /// the team chat, the watcher in the spectators' chat.
    pub(crate) async fn chat(&mut self, tag: &str) -> Result<()> {
        let n = self.n;
        if let Some(first) = self.players.first_mut() {
            let text = format!("good luck, all ({tag}, room {n}) ♞ <b>not bold</b>");
            first
                .seat_action(|seat, token| ClientMessage::Chat {
                    channel: ChatChannel::Room,
                    text,
                    seat: Some(seat),
                    token: Some(token),
                })
                .await?;
        }
        let team_chat =
            !is_ffa(self.preset()) && (self.spec.twist != Twist::SilentPartners || tag == "lobby");
        if let (true, Some(second)) = (team_chat, self.players.get_mut(1)) {
            second
                .seat_action(|seat, token| ClientMessage::Chat {
                    channel: ChatChannel::Team,
                    text: format!("watch the bishop ({tag})"),
                    seat: Some(seat),
                    token: Some(token),
                })
                .await?;
        }
        self.watcher
            .ok(ClientMessage::Chat {
                channel: ChatChannel::Spectators,
                text: format!("Blue should castle ({tag})"),
                seat: None,
                token: None,
            })
            .await?;
        Ok(())
    }

    /// Waits until the room is still: a person is to move, or the game is over (CPU moves
    /// happen by themselves), and every connection has taken in everything.
    pub(crate) async fn settle(&mut self) -> Result<()> {
        self.drain_all().await?;
        loop {
            let humans = self.human_seats();
            let w = &self.watcher.model;
            let cpu_to_move =
                w.started && !w.finished() && w.to_move.is_some_and(|s| !humans.contains(&s));
            if !cpu_to_move {
                break;
            }
            self.watcher.next().await?;
        }
        self.drain_all().await
    }
}

/// Plays one move for the person to move (CPU moves happen by themselves meanwhile); false once
/// the game is over.
pub(crate) async fn play_one(room: &mut Room) -> Result<bool> {
    let timed = room.timed();
    loop {
        let newest = room
            .players
            .iter()
            .filter(|p| p.client.is_some())
            .map(|p| p.model.v)
            .max()
            .unwrap_or(0);
        if room.watcher.model.v < newest {
            room.watcher.next().await?;
            continue;
        }
        let w = &room.watcher.model;
        if !w.started {
            // The start (or a rematch) is on its way.
            room.watcher.next().await?;
            continue;
        }
        if w.finished() {
            return Ok(false);
        }
        let to_move = w.to_move;
        let target = w.v;
        let mover = to_move.and_then(|s| {
            room.players
                .iter()
                .position(|p| p.seat == Some(s) && p.client.is_some())
        });
        let Some(i) = mover else {
            // A CPU is to move (or a person who is not connected): wait for the move.
            room.watcher.next().await?;
            continue;
        };
        let peer = &mut room.players[i];
        if peer.model.v < target {
            peer.next().await?;
            continue;
        }
        if peer.model.v > target || peer.seat != to_move {
            continue;
        }
        let (seat, token) = peer.credentials()?;
        let ready = peer.legal.as_ref().is_some_and(|(v, legal)| {
            *v == peer.model.v && legal.seat == seat && legal.ply as usize == peer.model.moves.len()
        });
        if !ready {
            peer.next().await?;
            continue;
        }
        let (_, legal) = peer.legal.take().expect("checked");
        let mv = legal.moves[room.rng.random_range(0..legal.moves.len())].clone();
        let ply = legal.ply;
        let sent = mv.clone();
        let answer = peer
            .request(ClientMessage::Move {
                seat,
                token,
                ply,
                mv: sent,
            })
            .await?;
        match answer {
            ServerMessage::Ack { .. } => {
                // Legal moves that arrived before the ack were for the position before the move.
                peer.legal = None;
                let game = peer
                    .game_id
                    .clone()
                    .ok_or_else(|| anyhow!("{}: no game", peer.who))?;
                peer.acked.push(Acked {
                    game,
                    ply,
                    seat,
                    mv,
                });
                room.last_mover = Some(i);
                return Ok(true);
            }
            // The turn limit ran out just then: the CPU played the move.
            ServerMessage::Error {
                code: ErrorCode::StalePly | ErrorCode::TimeUp | ErrorCode::NotYourTurn,
                ..
            } if timed => continue,
            other => bail!(
                "{}: move {mv} at ply {ply} after {:?}: {other:?}\n{}",
                peer.who,
                peer.model.moves,
                peer.trace.join("\n")
            ),
        }
    }
}

pub(crate) async fn play(room: &mut Room, moves: usize) -> Result<usize> {
    let mut played = 0;
    while played < moves && play_one(room).await? {
        played += 1;
    }
    Ok(played)
}

/// A room of CPUs: the watcher follows it for a while after the restart (the game goes on by
/// itself), its copy fitting together move by move.
pub(crate) async fn follow_cpus(room: &mut Room) -> Result<()> {
    let start = room.watcher.model.moves.len();
    while !room.watcher.model.finished() && room.watcher.model.moves.len() < start + CPU_MOVES_AFTER
    {
        room.watcher.next().await?;
    }
    Ok(())
}

/// At the end: every connection has taken in everything, and every acknowledged move of the
/// current game is in its move list exactly once, at its ply.
pub(crate) async fn finish(base: &Base, room: &mut Room) -> Result<()> {
    let all_cpu = room.spec.stage == Stage::AllCpu;
    if all_cpu {
        room.drain_all().await?;
    } else {
        room.settle().await?;
    }
    let (client, s3, _) = base.connect(&room.id).await?;
    client.close().await;
    let label = &room.label;
    let moves = s3
        .game
        .as_ref()
        .map(|g| g.moves.clone())
        .unwrap_or_default();
    let game_id = s3.game.as_ref().map(|g| g.id.clone());
    ensure!(
        moves.starts_with(&room.watcher.model.moves),
        "{label}: the watcher's moves are not the room's"
    );
    for peer in std::iter::once(&room.watcher).chain(room.players.iter()) {
        if !all_cpu {
            ensure!(
                peer.model.v == s3.v,
                "{}: at v {} but the room is at {}",
                peer.who,
                peer.model.v,
                s3.v
            );
            same_board(&peer.model, &s3).with_context(|| peer.who.clone())?;
        }
        for a in peer
            .acked
            .iter()
            .filter(|a| Some(&a.game) == game_id.as_ref())
        {
            let index = a.ply as usize;
            ensure!(
                peer.model.seen.get(&(a.ply + 1)) == Some(&(a.seat, a.mv.clone()))
                    && moves.get(index) == peer.model.moves.get(index),
                "{}: the acked {a:?} is not at its ply",
                peer.who
            );
        }
    }
    Ok(())
}
