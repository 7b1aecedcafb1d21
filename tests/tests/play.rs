//! Authoritative play — moves, diffs, legal moves, resignation, draws, takebacks and the
//! free-for-all claim. Each test runs with each store, in memory and on a SQLite file.

use std::time::Duration;

use fourkings_protocol::{
    ClientMessage, ErrorCode, Event, GameChange, SeatIndex, ServerMessage, SettingsPatch,
};
use fourkings_tests::{Store, Table, TestServer, on_every_store, seat};

/// The next `moved` event a client sees.
async fn next_move(client: &mut fourkings_tests::Client) -> (u64, fourkings_protocol::MovedEvent) {
    loop {
        if let (v, Event::Moved(moved)) = client.event().await {
            return (v, moved);
        }
    }
}

/// The next `game_changed` event a client sees.
async fn next_change(
    client: &mut fourkings_tests::Client,
) -> (GameChange, SeatIndex, fourkings_protocol::GameView) {
    loop {
        if let (_, Event::GameChanged { what, seat, game }) = client.event().await {
            return (what, seat, game);
        }
    }
}

on_every_store!(a_move_is_one_diff_for_everyone_and_legal_moves_for_the_next_player_only);
async fn a_move_is_one_diff_for_everyone_and_legal_moves_for_the_next_player_only(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let (_, spectator_snapshot) = server.connect(&table.room.id).await;
    let (mut spectator, _) = (server.connect(&table.room.id).await.0, spectator_snapshot);
    // Red (seat 0) is to move and receives its 20 legal moves; nobody else does.
    let moves = table.players[0].legal_moves().await;
    assert_eq!((moves.seat, moves.ply, moves.moves.len()), (seat(0), 0, 20));
    assert!(moves.moves.contains(&"h2h4".to_owned()));
    let answer = table.play(seat(0), 0, "h2h4").await;
    assert!(matches!(answer, ServerMessage::Ack { .. }), "{answer:?}");
    let mut versions = Vec::new();
    for client in table
        .players
        .iter_mut()
        .chain(std::iter::once(&mut spectator))
    {
        let (v, moved) = next_move(client).await;
        versions.push(v);
        assert_eq!(
            (
                moved.seat,
                moved.ply,
                moved.text.as_str(),
                moved.mv.as_str()
            ),
            (seat(0), 1, "h2-h4", "h2h4")
        );
        assert_eq!(moved.changed.get("h2"), Some(&None));
        assert_eq!(moved.changed.get("h4"), Some(&Some("rP".to_owned())));
        assert_eq!(moved.to_move, Some(seat(1)));
        assert!(moved.checks.is_empty() && moved.result.is_none());
    }
    assert!(
        versions.windows(2).all(|w| w[0] == w[1]),
        "one version for everyone: {versions:?}"
    );
    // Blue's connection gets Blue's legal moves; the spectator gets none.
    let blue = table.players[1].legal_moves().await;
    assert_eq!((blue.seat, blue.ply), (seat(1), 1));
    while let Some(message) = spectator.quiet_for(Duration::from_millis(200)).await {
        assert!(
            !matches!(message, ServerMessage::LegalMoves { .. }),
            "spectators get no legal moves"
        );
    }
    while let Some(message) = table.players[0].quiet_for(Duration::from_millis(100)).await {
        assert!(
            !matches!(message, ServerMessage::LegalMoves { .. }),
            "Red gets no legal moves for Blue"
        );
    }
}

on_every_store!(only_the_seat_to_move_with_its_token_for_the_current_ply_may_move);
async fn only_the_seat_to_move_with_its_token_for_the_current_ply_may_move(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let red = table.tokens[0].clone();
    let blue = table.tokens[1].clone();
    // Blue out of turn.
    table.players[1]
        .fails(
            ErrorCode::NotYourTurn,
            ClientMessage::Move {
                seat: seat(1),
                token: blue.clone(),
                ply: 0,
                mv: "b7c7".into(),
            },
        )
        .await;
    // Blue's token for Red's seat.
    table.players[1]
        .fails(
            ErrorCode::BadToken,
            ClientMessage::Move {
                seat: seat(0),
                token: blue.clone(),
                ply: 0,
                mv: "h2h4".into(),
            },
        )
        .await;
    // The wrong ply.
    table.players[0]
        .fails(
            ErrorCode::StalePly,
            ClientMessage::Move {
                seat: seat(0),
                token: red.clone(),
                ply: 3,
                mv: "h2h4".into(),
            },
        )
        .await;
    // Illegal and malformed moves.
    table.players[0]
        .fails(
            ErrorCode::IllegalMove,
            ClientMessage::Move {
                seat: seat(0),
                token: red.clone(),
                ply: 0,
                mv: "h2h5".into(),
            },
        )
        .await;
    table.players[0]
        .fails(
            ErrorCode::BadMove,
            ClientMessage::Move {
                seat: seat(0),
                token: red.clone(),
                ply: 0,
                mv: "h2-h4!".into(),
            },
        )
        .await;
    // The move, then its resend: the resend is stale and changes nothing.
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    table.players[0]
        .fails(
            ErrorCode::StalePly,
            ClientMessage::Move {
                seat: seat(0),
                token: red.clone(),
                ply: 0,
                mv: "h2h4".into(),
            },
        )
        .await;
    let info: fourkings_protocol::RoomInfo = server
        .get(&format!("/api/rooms/{}", table.room.id))
        .await
        .json()
        .await
        .unwrap();
    let (_, snapshot) = server.connect(&table.room.id).await;
    assert_eq!(snapshot.game.unwrap().ply, 1);
    assert_eq!(info.v, snapshot.v);
}

on_every_store!(resignation_with_the_partners_consent);
async fn resignation_with_the_partners_consent(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let classic = SettingsPatch::preset("teams-classic");
    let mut table = Table::seat_four(&server, &classic, true).await;
    let red = table.tokens[0].clone();
    let yellow = table.tokens[2].clone();
    table.players[0]
        .ok(ClientMessage::Resign {
            seat: seat(0),
            token: red.clone(),
        })
        .await;
    let (what, by, game) = next_change(&mut table.players[2]).await;
    assert_eq!(
        (what, by, game.resignation_request),
        (GameChange::ResignationRequested, seat(0), Some(seat(0)))
    );
    assert!(game.result.is_none());
    // Blue cannot answer for Yellow; Yellow declines, then Red asks again and Yellow agrees.
    let blue = table.tokens[1].clone();
    table.players[1]
        .fails(
            ErrorCode::NoResignationRequest,
            ClientMessage::AnswerResignation {
                seat: seat(1),
                token: blue.clone(),
                accept: true,
            },
        )
        .await;
    table.players[2]
        .ok(ClientMessage::AnswerResignation {
            seat: seat(2),
            token: yellow.clone(),
            accept: false,
        })
        .await;
    table.players[0]
        .ok(ClientMessage::Resign {
            seat: seat(0),
            token: red.clone(),
        })
        .await;
    table.players[2]
        .ok(ClientMessage::AnswerResignation {
            seat: seat(2),
            token: yellow.clone(),
            accept: true,
        })
        .await;
    let (what, _, game) = loop {
        let change = next_change(&mut table.players[1]).await;
        if change.0 == GameChange::Resigned {
            break change;
        }
    };
    assert_eq!(what, GameChange::Resigned);
    let result = game.result.expect("the game is over");
    assert_eq!(
        (result.reason.as_str(), result.winners),
        ("resignation", vec![seat(1), seat(3)])
    );
}

on_every_store!(a_draw_needs_everyone_still_in_and_an_offer_lapses_after_the_next_move);
async fn a_draw_needs_everyone_still_in_and_an_offer_lapses_after_the_next_move(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let tokens = table.tokens.clone();
    // Red offers, then moves: the offer lapses.
    table.players[0]
        .ok(ClientMessage::OfferDraw {
            seat: seat(0),
            token: tokens[0].clone(),
        })
        .await;
    let (what, _, game) = next_change(&mut table.players[1]).await;
    assert_eq!(
        (what, game.draw_offer.as_slice()),
        (GameChange::DrawOffered, &[seat(0)][..])
    );
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    table.players[1]
        .fails(
            ErrorCode::NoDrawOffer,
            ClientMessage::AnswerDraw {
                seat: seat(1),
                token: tokens[1].clone(),
                accept: true,
            },
        )
        .await;
    // Blue offers; three agree, one by one; only the fourth agreement draws the game.
    table.players[1]
        .ok(ClientMessage::OfferDraw {
            seat: seat(1),
            token: tokens[1].clone(),
        })
        .await;
    for seat in [seat(2), seat(3)] {
        let token = tokens[seat.index()].clone();
        table.players[seat.index()]
            .ok(ClientMessage::AnswerDraw {
                seat,
                token,
                accept: true,
            })
            .await;
    }
    let (_, snapshot) = server.connect(&table.room.id).await;
    assert!(
        snapshot.game.as_ref().unwrap().result.is_none(),
        "Red has not agreed yet"
    );
    table.players[0]
        .ok(ClientMessage::AnswerDraw {
            seat: seat(0),
            token: tokens[0].clone(),
            accept: true,
        })
        .await;
    let (what, _, game) = loop {
        let change = next_change(&mut table.players[3]).await;
        if change.0 == GameChange::DrawAgreed {
            break change;
        }
    };
    assert_eq!(what, GameChange::DrawAgreed);
    assert_eq!(game.result.unwrap().reason, "agreement");
}

on_every_store!(a_declined_draw_offer_ends);
async fn a_declined_draw_offer_ends(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let mut table = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let tokens = table.tokens.clone();
    table.players[0]
        .ok(ClientMessage::OfferDraw {
            seat: seat(0),
            token: tokens[0].clone(),
        })
        .await;
    table.players[3]
        .ok(ClientMessage::AnswerDraw {
            seat: seat(3),
            token: tokens[3].clone(),
            accept: false,
        })
        .await;
    table.players[1]
        .fails(
            ErrorCode::NoDrawOffer,
            ClientMessage::AnswerDraw {
                seat: seat(1),
                token: tokens[1].clone(),
                accept: true,
            },
        )
        .await;
}

on_every_store!(a_lifeline_takes_the_teams_move_back_and_that_move_cannot_be_replayed);
async fn a_lifeline_takes_the_teams_move_back_and_that_move_cannot_be_replayed(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let settings = SettingsPatch {
        lifelines: Some(true),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    let tokens = table.tokens.clone();
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    // Blue's team may not take back Red's move; Yellow (Red's partner) may.
    table.players[1]
        .fails(
            ErrorCode::NothingToTakeBack,
            ClientMessage::TakeBack {
                seat: seat(1),
                token: tokens[1].clone(),
            },
        )
        .await;
    table.players[2]
        .ok(ClientMessage::TakeBack {
            seat: seat(2),
            token: tokens[2].clone(),
        })
        .await;
    let (what, by, game) = next_change(&mut table.players[0]).await;
    assert_eq!(
        (what, by, game.ply, game.to_move),
        (GameChange::TakenBack, seat(2), 0, Some(seat(0)))
    );
    assert_eq!(game.pieces.get("h2").map(String::as_str), Some("rP"));
    assert_eq!(game.lifelines, [1, 2]);
    // Red must choose a different move.
    let legal = table.players[0].legal_moves().await;
    assert!(!legal.moves.contains(&"h2h4".to_owned()));
    let answer = table.play(seat(0), 0, "h2h4").await;
    assert!(
        matches!(
            answer,
            ServerMessage::Error {
                code: ErrorCode::IllegalMove | ErrorCode::TakenBack,
                ..
            }
        ),
        "{answer:?}"
    );
    assert!(matches!(
        table.play(seat(0), 0, "h2h3").await,
        ServerMessage::Ack { .. }
    ));
}

on_every_store!(claiming_the_win_goes_through_the_same_path);
async fn claiming_the_win_goes_through_the_same_path(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let settings = SettingsPatch {
        preset: Some("ffa".into()),
        claim_win: Some(true),
        ..SettingsPatch::default()
    };
    let mut table = Table::seat_four(&server, &settings, true).await;
    let tokens = table.tokens.clone();
    // Nobody leads by more than 20 with two players left: the claim is refused with its code.
    table.players[0]
        .fails(
            ErrorCode::CannotClaim,
            ClientMessage::ClaimWin {
                seat: seat(0),
                token: tokens[0].clone(),
            },
        )
        .await;
    // In Teams there is no claim.
    let mut teams = Table::seat_four(&server, &SettingsPatch::default(), true).await;
    let token = teams.tokens[0].clone();
    teams.players[0]
        .fails(
            ErrorCode::NotAllowed,
            ClientMessage::ClaimWin {
                seat: seat(0),
                token,
            },
        )
        .await;
}

on_every_store!(a_free_for_all_resignation_puts_the_player_out_and_the_game_goes_on);
async fn a_free_for_all_resignation_puts_the_player_out_and_the_game_goes_on(store: Store) {
    let server = TestServer::on(store, |_| {}).await;
    let settings = SettingsPatch::preset("ffa");
    let mut table = Table::seat_four(&server, &settings, true).await;
    let tokens = table.tokens.clone();
    table.players[1]
        .ok(ClientMessage::Resign {
            seat: seat(1),
            token: tokens[1].clone(),
        })
        .await;
    let (what, by, game) = next_change(&mut table.players[0]).await;
    assert_eq!((what, by), (GameChange::Resigned, seat(1)));
    assert_eq!(game.armies[1], fourkings_protocol::ArmyState::Out);
    assert!(game.result.is_none());
    assert!(matches!(
        table.play(seat(0), 0, "h2h4").await,
        ServerMessage::Ack { .. }
    ));
    let (_, moved) = next_move(&mut table.players[2]).await;
    assert_eq!(
        moved.to_move,
        Some(seat(2)),
        "Blue is out: Yellow moves after Red"
    );
}

/// Every kind of move text gets the code protocol/README.md names ("Moves"): a text that is not
/// square, square, optional promotion letter of the board (upper case, a removed corner, a
/// square off the board, another letter) is `bad_move`; a well-formed move that cannot be
/// played now (a promotion letter the rules forbid included) is `illegal_move`.
#[tokio::test]
async fn each_move_text_gets_the_code_the_protocol_names() {
    let server = TestServer::start().await;
    // Free-for-all: queen-only promotion on the eighth rank. Red walks its h-pawn there while
    // the others move a knight back and forth.
    let mut table = Table::seat_four(&server, &SettingsPatch::preset("ffa"), true).await;
    let shuffles = [("a5c6", "c6a5"), ("e14f12", "f12e14"), ("n5l4", "l4n5")];
    let pawn = ["h2h4", "h4h5", "h5h6", "h6h7"];
    let mut ply = 0;
    let refused = |answer: ServerMessage| match answer {
        ServerMessage::Error { code, .. } => Some(code),
        ServerMessage::Ack { .. } => None,
        other => panic!("{other:?}"),
    };
    for (round, red) in pawn.iter().enumerate() {
        if round == 0 {
            // Red's first move: the table of texts, each answered, none played.
            for (text, code) in [
                ("H2H4", ErrorCode::BadMove),
                ("h2H4", ErrorCode::BadMove),
                ("h2h4 ", ErrorCode::BadMove),
                ("h2-h4", ErrorCode::BadMove),
                ("a1a2", ErrorCode::BadMove),
                ("o2o4", ErrorCode::BadMove),
                ("h2h15", ErrorCode::BadMove),
                ("h2h4k", ErrorCode::BadMove),
                ("h2h5", ErrorCode::IllegalMove),
                ("h2h4q", ErrorCode::IllegalMove),
                ("d4d5", ErrorCode::IllegalMove),
            ] {
                let answer = table.play(seat(0), 0, text).await;
                assert_eq!(refused(answer), Some(code), "{text:?}");
            }
        }
        for (i, mv) in [
            *red,
            [shuffles[0].0, shuffles[0].1][round % 2],
            [shuffles[1].0, shuffles[1].1][round % 2],
            [shuffles[2].0, shuffles[2].1][round % 2],
        ]
        .into_iter()
        .enumerate()
        {
            let answer = table.play(seat(i as u8), ply, mv).await;
            assert_eq!(refused(answer), None, "ply {ply}: {mv}");
            ply += 1;
        }
    }
    // The pawn on h7 may become a queen only: another piece's letter is well formed, and illegal.
    for (text, code) in [
        ("h7h8n", ErrorCode::IllegalMove),
        ("h7h8r", ErrorCode::IllegalMove),
        ("h7h8", ErrorCode::IllegalMove),
        ("h7h8K", ErrorCode::BadMove),
    ] {
        let answer = table.play(seat(0), ply, text).await;
        assert_eq!(refused(answer), Some(code), "{text:?}");
    }
    assert_eq!(refused(table.play(seat(0), ply, "h7h8q").await), None);

    // Duo's board is eight squares a side: the cross board's squares are not on it.
    let mut duo = Table::seat_four(&server, &SettingsPatch::preset("duo"), true).await;
    for (text, code) in [
        ("i2i4", ErrorCode::BadMove),
        ("e2e9", ErrorCode::BadMove),
        ("E2E4", ErrorCode::BadMove),
    ] {
        assert_eq!(
            refused(duo.play(seat(0), 0, text).await),
            Some(code),
            "{text:?}"
        );
    }
    assert_eq!(refused(duo.play(seat(0), 0, "e2e4").await), None);
}
