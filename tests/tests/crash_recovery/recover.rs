//! After the restart: every room checked against its capture, every connection back with
//! exactly what it missed, and play going on.

use anyhow::{Context, Result, anyhow, ensure};
use fourkings_protocol::{
    ChatChannel, ClientMessage, ErrorCode, Event, Presence, SeatIndex, ServerMessage,
};

use crate::base::Base;
use crate::capture::{check_restored, online_seats};
use crate::clocks::{ClockCheck, Moments};
use crate::peer::{Peer, same_board};
use crate::room::{Room, finish, follow_cpus, play};
use crate::specs::Stage;
use crate::twists::twist_after_restart;

/// Moves the people of each room play after the restart (fewer if the game ends).
const MOVES_AFTER: usize = 6;

/// Checks the restored room against its capture, then reconnects everyone, carries on and checks
/// the moves at the end.
pub(crate) async fn recover(base: Base, mut room: Room, moments: Moments) -> Result<Room> {
    let label = room.label.clone();
    let all_cpu = room.spec.stage == Stage::AllCpu;
    let mut notes = Vec::new();
    let before = room
        .before
        .take()
        .ok_or_else(|| anyhow!("{label}: not captured"))?;
    let s1 = &before.snapshot;
    // The room as a newcomer sees it now. The newcomer stays while the others come back: from
    // its snapshot on, it must receive only newer events, in order.
    let (client, s2, seen_at) = base
        .connect(&room.id)
        .await
        .with_context(|| label.clone())?;
    let mut newcomer = Peer::open_with(client, &s2, format!("{label} newcomer"))?;
    let info2 = base.info(&room.id).await?;
    let online = online_seats(&s1.seats);
    check_restored(&label, all_cpu, &before, &s2, &info2)?;
    let clocks = ClockCheck::restored(&label, all_cpu, &before, &s2, seen_at, moments, &mut notes)?;
    // The watcher comes back first: it receives the `away` of everyone who was online, and at
    // the restored version its copy shows the restored room.
    let (ack, replay, ignored) = room
        .watcher
        .reconnect(&base, &room.id, Some(&s2), all_cpu)
        .await?;
    let host = room.watcher.host_token.is_some();
    ensure!(
        matches!(&ack, ServerMessage::Ack { seats: Some(seats), host: Some(h), .. } if seats.is_empty() && *h == host),
        "{label}: the watcher's hello: {ack:?}"
    );
    if !all_cpu {
        ensure!(
            ignored == 0,
            "{label}: {ignored} events before the watcher's ack"
        );
        check_replay(&room, &room.watcher, s1.v, &online, s2.v, &replay)?;
    }
    // The newcomer, still there: nothing it has not seen yet (the restart's own events were in
    // its snapshot).
    newcomer.drain().await?;
    // Then the people, one by one, with their tokens and the last version each holds. Published
    // events are not stored, only the records behind them: someone who was already behind when
    // the server died (away, in their grace period) gets a snapshot of the restored room; everyone
    // who was up to date gets exactly the events of the restart and of the returns.
    for i in 0..room.players.len() {
        let since = room.players[i].model.v;
        let behind = since < s1.v;
        let base2 = base.clone();
        let id = room.id.clone();
        let (ack, replay, ignored) = room.players[i].reconnect(&base2, &id, None, behind).await?;
        let peer = &room.players[i];
        let seat = peer.seat.expect("a seat");
        let host = peer.host_token.as_ref() == Some(&room.host_token);
        ensure!(
            matches!(&ack, ServerMessage::Ack { seats: Some(seats), host: Some(h), .. } if *seats == [seat] && *h == host),
            "{}: hello with token and host token ({host}): {ack:?}",
            peer.who
        );
        ensure!(
            ignored == 0,
            "{}: {ignored} events before the ack",
            peer.who
        );
        if behind {
            same_board(&peer.model, &s2)
                .with_context(|| format!("{}: caught up after the restart", peer.who))?;
        } else {
            ensure!(
                replay.first().is_none_or(|(v, _)| *v == since + 1),
                "{}: the replay starts at {:?}, not {}",
                peer.who,
                replay.first(),
                since + 1
            );
            if !all_cpu {
                check_replay(&room, peer, s1.v, &online, s2.v, &replay)?;
            }
        }
        room.back.push(seat);
    }
    // The newcomer saw them come back, and nothing else it had not seen.
    newcomer.drain().await?;
    if !all_cpu {
        let back: Vec<(SeatIndex, Presence)> = newcomer
            .log
            .values()
            .filter_map(|e| match e {
                Event::Presence { seat, presence, .. } => Some((*seat, *presence)),
                _ => None,
            })
            .collect();
        let expected: Vec<(SeatIndex, Presence)> =
            room.back.iter().map(|&s| (s, Presence::Online)).collect();
        ensure!(
            back == expected,
            "{label}: the newcomer saw {back:?}, not {expected:?}"
        );
    }
    drop(newcomer);
    // Every connection's own snapshot: its seats, its chat, the host token if it holds the
    // host's seat.
    let host_token = room.host_token.clone();
    for peer in room.connected() {
        let snapshot = peer.own_snapshot().await?;
        ensure!(
            snapshot.your_seats == peer.seat.into_iter().collect::<Vec<_>>(),
            "{}: your_seats {:?}",
            peer.who,
            snapshot.your_seats
        );
        ensure!(
            snapshot.chat == peer.chat,
            "{}: chat {:?}, but it read {:?}",
            peer.who,
            snapshot.chat,
            peer.chat
        );
        let holds_host_seat = snapshot.host_seat.is_some() && snapshot.host_seat == peer.seat;
        ensure!(
            snapshot.host_token == holds_host_seat.then(|| host_token.clone()),
            "{}: host token {:?} in its snapshot",
            peer.who,
            snapshot.host_token
        );
        if !all_cpu {
            ensure!(
                snapshot.v == peer.model.v,
                "{}: snapshot v {} but it holds {}",
                peer.who,
                snapshot.v,
                peer.model.v
            );
            same_board(&peer.model, &snapshot).with_context(|| peer.who.clone())?;
        }
        peer.adopt(&snapshot)?;
    }
    // Duo's clocks run again now that everyone is back, with what they had.
    clocks.resumed(&label, &room.watcher.log, s2.v, &mut notes)?;
    // A move acknowledged before the kill is not played twice: sent again, it is a stale ply.
    let current = s2
        .game
        .as_ref()
        .filter(|g| g.result.is_none())
        .map(|g| g.id.clone());
    if let (Some(game), false) = (&current, all_cpu) {
        let last = room
            .players
            .iter()
            .enumerate()
            .flat_map(|(i, p)| {
                p.acked
                    .iter()
                    .filter(|a| &a.game == game)
                    .map(move |a| (i, a.clone()))
            })
            .max_by_key(|(_, a)| a.ply);
        if let Some((i, acked)) = last {
            let peer = &mut room.players[i];
            let (seat, token) = peer.credentials()?;
            peer.fails(
                ErrorCode::StalePly,
                ClientMessage::Move {
                    seat,
                    token,
                    ply: acked.ply,
                    mv: acked.mv.clone(),
                },
            )
            .await?;
        }
    }
    twist_after_restart(&base, &mut room, &s2).await?;
    // The game carries on.
    if all_cpu {
        follow_cpus(&mut room).await?;
    } else {
        play(&mut room, MOVES_AFTER).await?;
    }
    finish(&base, &mut room).await?;
    room.notes = notes;
    Ok(room)
}

/// Checks the events a reconnection received after its ack: those it missed before the kill
/// (as the watcher saw them, shaped for its seats), the restart's `away` for each person who was
/// online (`online`, in seat order), the `online` of each person back before it and its own, then
/// only automatic moves (a turn limit running out).
fn check_replay(
    room: &Room,
    peer: &Peer,
    v1: u64,
    online: &[SeatIndex],
    v2: u64,
    replay: &[(u64, Event)],
) -> Result<()> {
    let who = &peer.who;
    let mut back = room.back.clone();
    back.extend(peer.seat);
    let mut restart = online.iter();
    let mut returns = back.iter();
    for (v, event) in replay {
        if *v <= v1 {
            let watched = room
                .watcher
                .log
                .get(v)
                .ok_or_else(|| anyhow!("{who}: the watcher never saw v {v}"))?;
            let same = match (watched, event) {
                (Event::Hidden, Event::Hidden | Event::Chat(_) | Event::HostToken { .. }) => true,
                (Event::Chat(line), Event::Hidden) => line.channel == ChatChannel::Spectators,
                (a, b) => a == b,
            };
            ensure!(
                same,
                "{who}: v {v} replayed as {event:?}, but it was {watched:?}"
            );
        } else if *v <= v2 {
            let seat = restart.next();
            ensure!(
                matches!(event, Event::Presence { seat: s, presence: Presence::Away, .. } if Some(s) == seat),
                "{who}: v {v} of the restart is {event:?}, expected seat {seat:?} away"
            );
        } else if let Some(seat) = returns.next() {
            ensure!(
                matches!(event, Event::Presence { seat: s, presence: Presence::Online, .. } if s == seat),
                "{who}: v {v} is {event:?}, expected seat {seat} back online"
            );
        } else {
            ensure!(
                matches!(event, Event::Moved(m) if m.automatic) && room.timed(),
                "{who}: v {v} is {event:?}, more than it missed"
            );
        }
    }
    ensure!(
        restart.next().is_none(),
        "{who}: the replay misses the restart's presence events"
    );
    ensure!(
        returns.next().is_none(),
        "{who}: the replay misses people coming back"
    );
    Ok(())
}
