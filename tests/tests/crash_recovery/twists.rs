//! What some rooms do besides moves ([`Twist`]): just before the kill, and after the restart.

use anyhow::{Result, anyhow, ensure};
use fourkings_protocol::{ChatChannel, ClientMessage, ErrorCode, Snapshot};
use fourkings_tests::seat;

use crate::base::Base;
use crate::peer::{Acked, Peer};
use crate::room::Room;
use crate::specs::Twist;

pub(crate) async fn twist_before_kill(room: &mut Room) -> Result<()> {
    // CPU moves still on their way would end a draw offer (an offer lapses with the next move).
    room.settle().await?;
    match room.spec.twist {
        Twist::Away => {
            room.drain_all().await?;
            let client = room.players[1].client.take().expect("connected");
            client.close().await;
        }
        Twist::DrawOffer | Twist::Drawn => {
            room.players[0]
                .seat_action(|seat, token| ClientMessage::OfferDraw { seat, token })
                .await?;
            let people = room.players.len();
            let agree: Vec<usize> = if room.spec.twist == Twist::Drawn {
                (1..people).collect()
            } else {
                vec![2]
            };
            for i in agree.into_iter().filter(|&i| i < people) {
                room.players[i]
                    .seat_action(|seat, token| ClientMessage::AnswerDraw {
                        seat,
                        token,
                        accept: true,
                    })
                    .await?;
            }
        }
        Twist::Finished => {
            room.players[0]
                .seat_action(|seat, token| ClientMessage::Resign { seat, token })
                .await?;
        }
        Twist::ResignationRequest => {
            room.players[1]
                .seat_action(|seat, token| ClientMessage::Resign { seat, token })
                .await?;
        }
        Twist::Takeback => {
            let last = room
                .last_mover
                .ok_or_else(|| anyhow!("{}: nobody moved", room.label))?;
            room.players[last]
                .seat_action(|seat, token| ClientMessage::TakeBack { seat, token })
                .await?;
        }
        _ => {}
    }
    Ok(())
}

/// What happens after the restart that only some rooms do.
pub(crate) async fn twist_after_restart(base: &Base, room: &mut Room, s2: &Snapshot) -> Result<()> {
    let label = room.label.clone();
    match room.spec.twist {
        Twist::DrawOffer => {
            // Those who had not agreed agree now: the offer was still open.
            let agreed = s2
                .game
                .as_ref()
                .map(|g| g.draw_offer.clone())
                .unwrap_or_default();
            let rest: Vec<usize> = (0..room.players.len())
                .filter(|&i| room.players[i].seat.is_some_and(|s| !agreed.contains(&s)))
                .collect();
            ensure!(!rest.is_empty(), "{label}: everyone had agreed");
            for i in rest {
                room.players[i]
                    .seat_action(|seat, token| ClientMessage::AnswerDraw {
                        seat,
                        token,
                        accept: true,
                    })
                    .await?;
            }
            room.drain_all().await?;
            let result = room.watcher.model.result.clone();
            ensure!(
                result.as_ref().is_some_and(|r| r.reason == "agreement"),
                "{label}: not drawn: {result:?}"
            );
        }
        Twist::Drawn | Twist::Finished => {
            // The finished game is in the archive, and the host may rematch.
            let game = s2.game.as_ref().expect("a game");
            let extension = if game.board == fourkings_protocol::BoardShape::Classic {
                "pgn"
            } else {
                "pgn4"
            };
            let status = base
                .status_of(&format!("/api/games/{}.{extension}", game.id))
                .await?;
            ensure!(status == 200, "{label}: the archived game answers {status}");
            room.rematch().await?;
        }
        Twist::ResignationRequest => {
            room.person(seat(3))?
                .seat_action(|seat, token| ClientMessage::AnswerResignation {
                    seat,
                    token,
                    accept: false,
                })
                .await?;
        }
        Twist::Takeback => {
            // The move taken back is still refused, and not among the legal moves.
            let taken: Vec<Acked> = room
                .players
                .iter()
                .flat_map(|p| p.taken_back.clone())
                .collect();
            let acked = taken
                .last()
                .ok_or_else(|| anyhow!("{label}: nothing was taken back"))?
                .clone();
            let game = s2.game.as_ref().expect("a game");
            ensure!(
                game.ply == acked.ply && game.to_move == Some(acked.seat),
                "{label}: not at the ply taken back"
            );
            let peer = room.person(acked.seat)?;
            peer.drain().await?;
            let legal = peer
                .legal
                .clone()
                .ok_or_else(|| anyhow!("{label}: no legal moves"))?;
            ensure!(
                !legal.1.moves.contains(&acked.mv),
                "{label}: {} is legal again",
                acked.mv
            );
            let (seat, token) = peer.credentials()?;
            peer.fails(
                ErrorCode::TakenBack,
                ClientMessage::Move {
                    seat,
                    token,
                    ply: acked.ply,
                    mv: acked.mv.clone(),
                },
            )
            .await?;
        }
        Twist::Lobby => {
            let mut late = Peer::open(base, &room.id, format!("{label} late person")).await?;
            late.take_seat(seat(2), "Late Lou").await?;
            room.players.push(late);
            room.start().await?;
        }
        Twist::SilentPartners => {
            // The rule came back with the settings: no team chat once the game has started.
            let (seat, token) = room.players[1].credentials()?;
            room.players[1]
                .fails(
                    ErrorCode::NotAllowed,
                    ClientMessage::Chat {
                        channel: ChatChannel::Team,
                        text: "psst".into(),
                        seat: Some(seat),
                        token: Some(token),
                    },
                )
                .await?;
        }
        Twist::LobbyReshuffle => {
            // The old host token no longer works; the new one does.
            let old = room.players[0]
                .host_token
                .clone()
                .expect("the first host token");
            room.players[0]
                .fails(ErrorCode::NotHost, ClientMessage::Start { host_token: old })
                .await?;
            let host_token = room.host_token.clone();
            room.person(seat(1))?
                .ok(ClientMessage::Start { host_token })
                .await?;
        }
        _ => {}
    }
    Ok(())
}
