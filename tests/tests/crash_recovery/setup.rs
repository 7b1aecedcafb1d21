//! Bringing each room to the state its spec asks for, before the kill.

use anyhow::{Context, Result, anyhow, bail, ensure};
use fourkings_protocol::{ClientMessage, CpuLevel, SeatIndex, ServerMessage, SettingsPatch};
use fourkings_tests::seat;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::base::Base;
use crate::peer::Peer;
use crate::room::{Room, play, play_one};
use crate::specs::{NAMES, Spec, Stage, Twist};
use crate::twists::twist_before_kill;

/// Creates a room and brings it to the state its spec asks for (all but starting a room of CPUs).
pub(crate) async fn set_up(base: Base, n: usize, spec: Spec) -> Result<Room> {
    let label = format!("room {n} ({})", spec.label);
    let created = base
        .create(&spec.patch)
        .await
        .with_context(|| label.clone())?;
    let mut watcher = Peer::open(&base, &created.id, format!("{label} watcher")).await?;
    let cpu_seats: Vec<SeatIndex> = spec.cpu.iter().map(|(s, _)| *s).collect();
    let humans: Vec<SeatIndex> = SeatIndex::ALL
        .into_iter()
        .filter(|s| !cpu_seats.contains(s) && !spec.empty.contains(s))
        .collect();
    let host_sits = spec.host_sits && humans.first() == Some(&seat(0));
    let mut spec = spec;
    spec.host_sits = host_sits;
    if !host_sits {
        watcher.host_token = Some(created.host_token.clone());
        let ack = watcher.hello().await?;
        ensure!(
            matches!(
                ack,
                ServerMessage::Ack {
                    host: Some(true),
                    ..
                }
            ),
            "{label}: host token refused"
        );
    }
    let mut players = Vec::new();
    for &seat in &humans {
        let mut peer = Peer::open(
            &base,
            &created.id,
            format!("{label} person {}", players.len()),
        )
        .await?;
        if seat == self::seat(0) && host_sits {
            peer.host_token = Some(created.host_token.clone());
            peer.hello().await?;
        }
        peer.take_seat(seat, NAMES[seat.index()]).await?;
        players.push(peer);
    }
    let mut room = Room {
        n,
        label,
        id: created.id,
        host_token: created.host_token,
        watcher,
        players,
        rng: ChaCha8Rng::seed_from_u64(0xC4A5_0000 + n as u64),
        last_mover: None,
        before: None,
        back: Vec::new(),
        notes: Vec::new(),
        spec,
    };
    let host_token = room.host_token.clone();
    for (seat, level) in room.spec.cpu.clone() {
        if let Some(level) = level {
            let host_token = host_token.clone();
            room.host()
                .ok(ClientMessage::SetCpu {
                    host_token,
                    seat,
                    level: Some(level),
                })
                .await?;
        }
    }
    match room.spec.twist {
        Twist::Lobby => {
            let settings = SettingsPatch {
                preset: Some("ffa".into()),
                turn_limit: Some(30),
                cpu_level: Some(CpuLevel::Hard),
                rotate_first_seat: Some(false),
                ..SettingsPatch::default()
            };
            room.host()
                .ok(ClientMessage::UpdateSettings {
                    host_token,
                    settings,
                })
                .await?;
            room.chat("lobby").await?;
            return Ok(room);
        }
        Twist::LobbyReshuffle => {
            let token = host_token.clone();
            room.host()
                .ok(ClientMessage::MovePlayer {
                    host_token: token,
                    from: seat(2),
                    to: seat(3),
                })
                .await?;
            let token = host_token.clone();
            room.host()
                .ok(ClientMessage::TransferHost {
                    host_token: token,
                    seat: seat(1),
                })
                .await?;
            room.chat("lobby").await?;
            room.drain_all().await?;
            let new_host = room.person(seat(1))?.host_token.clone();
            room.host_token =
                new_host.ok_or_else(|| anyhow!("{}: no new host token", room.label))?;
            ensure!(
                room.host_token != host_token,
                "{}: the host token did not change",
                room.label
            );
            return Ok(room);
        }
        Twist::SilentPartners => room.chat("lobby").await?,
        _ => {}
    }
    if room.spec.stage == Stage::AllCpu {
        return Ok(room);
    }
    room.start().await?;
    if matches!(room.spec.twist, Twist::Rematch | Twist::SwitchPartners) {
        play(&mut room, 2).await?;
        let resigner = if room.spec.twist == Twist::Rematch {
            0
        } else {
            1
        };
        room.players[resigner]
            .seat_action(|seat, token| ClientMessage::Resign { seat, token })
            .await?;
        room.rematch().await?;
    }
    let half = room.spec.moves / 2;
    for i in 0..room.spec.moves {
        if i == half && room.spec.chat {
            room.chat("game").await?;
        }
        if !play_one(&mut room).await? {
            bail!("{}: the game ended during the setup", room.label);
        }
    }
    twist_before_kill(&mut room).await?;
    Ok(room)
}
