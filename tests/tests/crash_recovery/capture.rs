//! What a room looked like just before the kill ([`Capture`]), and how it must look after the
//! restart.

use std::time::Instant;

use anyhow::{Context, Result, ensure};
use fourkings_protocol::{GameView, Presence, RoomInfo, SeatIndex, SeatView, Snapshot};
use fourkings_tests::seat;

use crate::base::Base;
use crate::peer::{Acked, same_board};
use crate::room::Room;
use crate::specs::{Stage, Twist};

/// What a room looked like just before the kill.
pub(crate) struct Capture {
    pub(crate) snapshot: Snapshot,
    pub(crate) info: RoomInfo,
    /// When the snapshot was written: after the first moment, before the second.
    pub(crate) at: (Instant, Instant),
    /// The acknowledged moves of the current game, with their text in the move list.
    pub(crate) acked: Vec<(Acked, String)>,
}

/// The seats whose people were online.
pub(crate) fn online_seats(seats: &[SeatView]) -> Vec<SeatIndex> {
    seats
        .iter()
        .filter(|s| s.presence == Some(Presence::Online))
        .map(|s| s.seat)
        .collect()
}

/// The seats without when their grace periods end.
fn without_graces(seats: &[SeatView]) -> Vec<SeatView> {
    seats
        .iter()
        .map(|s| SeatView {
            grace_ends_at: None,
            ..s.clone()
        })
        .collect()
}

/// Whether every seat away has a grace period running, and only those.
fn graces_run(seats: &[SeatView]) -> bool {
    seats
        .iter()
        .all(|s| (s.presence == Some(Presence::Away)) == s.grace_ends_at.is_some())
}

/// The seats as they must be after the restart: whoever was online is away (when each grace
/// period ends is left out: see [`graces_run`]).
fn after_restart(seats: &[SeatView]) -> Vec<SeatView> {
    seats
        .iter()
        .map(|s| SeatView {
            grace_ends_at: None,
            presence: s.presence.map(|p| {
                if p == Presence::Online {
                    Presence::Away
                } else {
                    p
                }
            }),
            ..s.clone()
        })
        .collect()
}

/// A game without its clock (checked apart).
fn without_clock(game: &GameView) -> GameView {
    GameView {
        clock: fourkings_protocol::Clock::default(),
        ..game.clone()
    }
}

/// Drains every connection of the room and captures it: a fresh spectator snapshot and the room
/// info. Every connection's copy must match the room, and every acknowledged move must be at its
/// ply.
pub(crate) async fn capture(base: &Base, room: &mut Room) -> Result<()> {
    let all_cpu = room.spec.stage == Stage::AllCpu;
    if all_cpu {
        room.drain_all().await?;
    } else {
        room.settle().await?;
    }
    let (client, snapshot, at) = base.connect(&room.id).await?;
    client.close().await;
    let info = base.info(&room.id).await?;
    let label = room.label.clone();
    if !all_cpu {
        ensure!(
            info.v == snapshot.v,
            "{label}: info at v {} but snapshot at v {}",
            info.v,
            snapshot.v
        );
        ensure!(
            info.seats == snapshot.seats && info.host_seat == snapshot.host_seat,
            "{label}: info and snapshot differ"
        );
        ensure!(
            info.settings == snapshot.settings && info.status == snapshot.status,
            "{label}: info and snapshot differ"
        );
    }
    let mut acked = Vec::new();
    for peer in std::iter::once(&room.watcher).chain(room.players.iter()) {
        // A person who dropped holds what they saw until then (their moves included).
        let connected = peer.client.is_some();
        if all_cpu {
            ensure!(
                peer.model.v <= snapshot.v,
                "{}: ahead of the room",
                peer.who
            );
            let moves = snapshot
                .game
                .as_ref()
                .map(|g| g.moves.clone())
                .unwrap_or_default();
            ensure!(
                moves.starts_with(&peer.model.moves),
                "{}: moves the room does not have",
                peer.who
            );
            continue;
        }
        ensure!(
            peer.model.v == snapshot.v || !connected,
            "{}: at v {} but the room is at v {}",
            peer.who,
            peer.model.v,
            snapshot.v
        );
        if connected {
            same_board(&peer.model, &snapshot).with_context(|| peer.who.clone())?;
        }
        for a in &peer.acked {
            if peer.game_id.as_ref() != Some(&a.game) {
                continue;
            }
            let seen = peer.model.seen.get(&(a.ply + 1));
            ensure!(
                seen == Some(&(a.seat, a.mv.clone())),
                "{}: acked {a:?} but the room played {seen:?} at that ply",
                peer.who
            );
            acked.push((a.clone(), peer.model.moves[a.ply as usize].clone()));
        }
    }
    if let Some(game) = &snapshot.game {
        match room.spec.twist {
            Twist::DrawOffer => ensure!(
                !game.draw_offer.is_empty() && game.result.is_none(),
                "{label}: no open draw offer"
            ),
            Twist::Drawn | Twist::Finished => {
                ensure!(game.result.is_some(), "{label}: not finished")
            }
            Twist::ResignationRequest => ensure!(
                game.resignation_request == Some(seat(1)),
                "{label}: no resignation request"
            ),
            Twist::Takeback => ensure!(game.lifelines.contains(&1), "{label}: no lifeline spent"),
            Twist::Away => ensure!(
                snapshot.seats[1].presence == Some(Presence::Away),
                "{label}: seat 1 is not away"
            ),
            _ => {}
        }
    }
    room.before = Some(Capture {
        snapshot,
        info,
        at,
        acked,
    });
    Ok(())
}

/// The restored room, as a newcomer's snapshot `s2` and `GET /api/rooms` (`info2`) show it, is
/// the captured one: the same status, settings, host, chat and session, the same seats with whoever
/// was online now away, and (unless only CPUs play, whose game goes on) the same version plus one
/// `away` per person who was online, the same game (its clock is checked apart) and every
/// acknowledged move at its ply.
pub(crate) fn check_restored(
    label: &str,
    all_cpu: bool,
    before: &Capture,
    s2: &Snapshot,
    info2: &RoomInfo,
) -> Result<()> {
    let s1 = &before.snapshot;
    let online = online_seats(&s1.seats);
    ensure!(
        s2.status == s1.status || all_cpu,
        "{label}: status {:?} was {:?}",
        s2.status,
        s1.status
    );
    ensure!(s2.settings == s1.settings, "{label}: settings changed");
    ensure!(
        s2.host_seat == s1.host_seat,
        "{label}: host seat {:?} was {:?}",
        s2.host_seat,
        s1.host_seat
    );
    ensure!(
        without_graces(&s2.seats) == after_restart(&s1.seats) && graces_run(&s2.seats),
        "{label}: seats {:?} were {:?}",
        s2.seats,
        s1.seats
    );
    ensure!(
        s2.chat == s1.chat,
        "{label}: chat {:?} was {:?}",
        s2.chat,
        s1.chat
    );
    ensure!(
        s2.session == s1.session,
        "{label}: session {:?} was {:?}",
        s2.session,
        s1.session
    );
    ensure!(
        s2.your_seats.is_empty()
            && !s2.you_are_host
            && s2.host_token.is_none()
            && s2.legal_moves.is_none(),
        "{label}: a spectator's snapshot with secrets"
    );
    if all_cpu {
        ensure!(s2.v >= s1.v, "{label}: v {} was {}", s2.v, s1.v);
        let (g1, g2) = (
            s1.game.as_ref().expect("started"),
            s2.game.as_ref().expect("started"),
        );
        ensure!(
            g2.moves.starts_with(&g1.moves),
            "{label}: moves lost: {:?} then {:?}",
            g1.moves,
            g2.moves
        );
        ensure!(g2.id == g1.id, "{label}: another game");
    } else {
        ensure!(
            s2.v == s1.v + online.len() as u64,
            "{label}: v {} but it was {} with {} people online",
            s2.v,
            s1.v,
            online.len()
        );
        ensure!(
            s2.game.as_ref().map(without_clock) == s1.game.as_ref().map(without_clock),
            "{label}: the game changed:\n{:?}\nwas\n{:?}",
            s2.game,
            s1.game
        );
        ensure!(
            info2.v == s2.v,
            "{label}: info at v {} but snapshot at v {}",
            info2.v,
            s2.v
        );
        ensure!(
            without_graces(&info2.seats) == after_restart(&before.info.seats)
                && graces_run(&info2.seats)
                && info2.settings == before.info.settings
                && info2.host_seat == before.info.host_seat
                && info2.status == before.info.status,
            "{label}: GET /api/rooms {info2:?} was {:?}",
            before.info
        );
        for (acked, text) in &before.acked {
            let moves = &s2.game.as_ref().expect("a game").moves;
            ensure!(
                moves.get(acked.ply as usize) == Some(text),
                "{label}: acked {acked:?} ({text}) is not at its ply in {moves:?}"
            );
        }
    }
    Ok(())
}
