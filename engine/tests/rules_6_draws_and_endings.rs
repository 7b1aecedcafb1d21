//! RULES.md section 6, "Draws and endings common to the presets": resignation, agreement,
//! threefold repetition, the fifty-move rule, dead positions and the move limit.

mod support;

use fourkings_engine::game::{DrawOfferState, DrawReason, FfaEnding, ResignOutcome, WinReason};
use fourkings_engine::{
    Army, ArmySet, ArmyStatus, CastleSide, Game, GameError, Outcome, Preset, RuleSet, Setup, Team,
};
use support::*;

/// Kings and one knight each, all on their start squares; every army can shuffle its knight.
const KNIGHTS: &str = "rK h1, rN e1, bK a7, bN a5, yK g14, yN e14, gK n8, gN n5";

/// The squares each army's knight shuffles between (home, away).
const SHUFFLE: [(&str, &str); 4] = [("e1", "f3"), ("a5", "c6"), ("e14", "f12"), ("n5", "l6")];

/// One round of knight moves, out (`away = true`) or back home, starting with the army to move.
fn round(game: &mut Game, away: bool) {
    for _ in 0..4 {
        let army = game.position().turn();
        let (home, out) = SHUFFLE[army.index()];
        if away {
            play(game, home, out)
        } else {
            play(game, out, home)
        };
    }
}

/// "Resignation concedes for the whole team (Teams)".
#[test]
fn resignation_in_teams_concedes_for_the_whole_team() {
    let mut game = Game::new(Preset::Teams.rules()).unwrap();
    // Blue resigns while it is Red's turn; Blue and Green lose.
    assert_eq!(game.resign(seat(Army::Blue)), Ok(ResignOutcome::Resigned));
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: Team::RedYellow,
            reason: WinReason::Resignation {
                seat: seat(Army::Blue)
            }
        })
    );
    assert_eq!(game.to_move(), None);
}

/// "... or puts that player out (free-for-all)."
#[test]
fn resignation_in_free_for_all_puts_only_that_player_out() {
    let mut game = game_from(&cross("R", KNIGHTS), Preset::Ffa);
    assert_eq!(game.resign(seat(Army::Blue)), Ok(ResignOutcome::Resigned));
    assert!(!game.is_over());
    assert_eq!(game.position().status(Army::Blue), ArmyStatus::Out);
    assert_eq!(
        game.seats_in_game(),
        [seat(Army::Red), seat(Army::Yellow), seat(Army::Green)]
    );
    // Its pieces stay on the board; its seat is skipped.
    assert_eq!(
        piece_on(game.position(), "a5").map(|p| p.army),
        Some(Army::Blue)
    );
    play(&mut game, "e1", "f3");
    assert_eq!(game.position().turn(), Army::Yellow);
}

/// "A preset may require the partner to accept a resignation request before it takes effect."
#[test]
fn a_resignation_can_wait_for_the_partners_consent() {
    let mut game = Game::new(Preset::TeamsClassic.rules()).unwrap();
    assert_eq!(
        game.resign(seat(Army::Blue)),
        Ok(ResignOutcome::PartnerAsked)
    );
    assert!(!game.is_over());
    assert_eq!(game.resignation_request(), Some(seat(Army::Blue)));
    // Only the partner answers; a refusal lets the game go on.
    assert_eq!(
        game.answer_resignation(seat(Army::Red), true),
        Err(GameError::NoResignationRequest)
    );
    game.answer_resignation(seat(Army::Green), false).unwrap();
    assert!(!game.is_over());
    game.resign(seat(Army::Blue)).unwrap();
    game.answer_resignation(seat(Army::Green), true).unwrap();
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: Team::RedYellow,
            reason: WinReason::Resignation {
                seat: seat(Army::Blue)
            }
        })
    );
}

/// "Draw by agreement of all players still in the game."
#[test]
fn draw_by_agreement_needs_every_player_still_in_the_game() {
    let mut game = Game::new(Preset::Teams.rules()).unwrap();
    assert_eq!(game.offer_draw(seat(Army::Red)), Ok(DrawOfferState::Open));
    assert_eq!(game.accept_draw(seat(Army::Blue)), Ok(DrawOfferState::Open));
    assert_eq!(
        game.accept_draw(seat(Army::Yellow)),
        Ok(DrawOfferState::Open)
    );
    assert!(!game.is_over());
    assert_eq!(
        game.accept_draw(seat(Army::Green)),
        Ok(DrawOfferState::Agreed)
    );
    assert_drawn(&game, DrawReason::Agreement);

    // Free-for-all with Yellow out: the three still in are enough, and Yellow has no say.
    let setup = cross("R", KNIGHTS).out(Army::Yellow).points(Army::Red, 5);
    let mut game = game_from(&setup, Preset::Ffa);
    assert_eq!(
        game.offer_draw(seat(Army::Yellow)),
        Err(GameError::NotInGame)
    );
    game.offer_draw(seat(Army::Red)).unwrap();
    game.accept_draw(seat(Army::Blue)).unwrap();
    assert_eq!(
        game.accept_draw(seat(Army::Green)),
        Ok(DrawOfferState::Agreed)
    );
    // An agreed draw adds no points; the points decide.
    let (points, winners, reason) = standings(&game);
    assert_eq!(reason, FfaEnding::Draw(DrawReason::Agreement));
    assert_eq!(points, [5, 0, 0, 0]);
    assert_eq!(winners, ArmySet::single(Army::Red));
}

/// "Threefold repetition: the same pieces on the same squares, the same player to move ...;
/// repeats need not be consecutive."
#[test]
fn threefold_repetition_is_a_draw_and_the_repeats_need_not_be_consecutive() {
    let mut game = game_from(&cross("R", KNIGHTS), Preset::Teams);
    // The start position again after eight plies.
    round(&mut game, true);
    round(&mut game, false);
    assert!(!game.is_over());
    // Another way out and back, through other positions, brings it back a third time.
    play_line(&mut game, "e1-d3 a5-b7 e14-d12 n5-m7 d3-e1 b7-a5 d12-e14");
    assert!(!game.is_over());
    play(&mut game, "m7", "n5");
    assert_drawn(&game, DrawReason::Repetition);
}

/// "... the same player to move ...": the same pieces on the same squares with another player to
/// move is another position.
#[test]
fn repetition_needs_the_same_player_to_move() {
    // Red's king walks a triangle (three moves) while the others shuffle a knight (two moves):
    // after 9, 24, 33 ... plies the start placement is back, with Blue, Red, Blue ... to move.
    let mut game = game_from(&cross("R", KNIGHTS), Preset::Teams);
    let triangle = [("h1", "h2"), ("h2", "g1"), ("g1", "h1")];
    let mut placement_seen = 1;
    let mut moved = [0usize; 4];
    for ply in 1..=48 {
        assert!(!game.is_over(), "drawn after {} plies", ply - 1);
        let army = game.position().turn();
        let n = moved[army.index()];
        let (from, to) = match army {
            Army::Red => triangle[n % 3],
            _ => {
                let (home, away) = SHUFFLE[army.index()];
                if n % 2 == 0 {
                    (home, away)
                } else {
                    (away, home)
                }
            }
        };
        play(&mut game, from, to);
        moved[army.index()] += 1;
        let home = moved[0] % 3 == 0 && moved[1..].iter().all(|m| m % 2 == 0);
        if home {
            placement_seen += 1;
        }
        if ply == 24 {
            assert_eq!(
                placement_seen, 3,
                "the start placement, Blue to move once in between"
            );
            assert!(!game.is_over());
        }
    }
    // Ply 48: the start placement with Red to move for the third time.
    assert_drawn(&game, DrawReason::Repetition);
}

/// Plays the moves of `cycle` over and over until the game ends (at most `limit` plies).
fn play_until_over(game: &mut Game, cycle: &str, limit: u32) {
    let start = game.ply_count();
    for item in cycle.split_whitespace().cycle() {
        if game.is_over() {
            return;
        }
        assert!(
            game.ply_count() - start < limit,
            "still going after {limit} plies"
        );
        play_line(game, item);
    }
}

/// "... and the same rights (castling ...)".
#[test]
fn repetition_counts_castling_rights() {
    // Red's rook goes out and back: the pieces stand as at the start, but Red can no longer castle.
    let setup = cross(
        "R",
        "rK h1, rR k1, bK a7, bN a5, yK g14, yN e14, gK n8, gN n5",
    );
    let mut game = game_from(&setup.castling(Army::Red, CastleSide::King), Preset::Teams);
    let cycle = "k1-k2 a5-c6 e14-f12 n5-l6 k2-k1 c6-a5 f12-e14 l6-n5";
    play_line(&mut game, cycle);
    play_line(&mut game, cycle);
    // The start placement for the third time, but only the second time without the right.
    assert!(!game.is_over());
    // Positions after the rook has moved never had the right: the next one to come a third time
    // is a draw.
    play(&mut game, "k1", "k2");
    assert_drawn(&game, DrawReason::Repetition);
}

/// "... (... en passant ...)".
#[test]
fn repetition_counts_en_passant_rights() {
    // Red's double step opens an en passant right for Blue's pawn on g4. After a round of knight
    // moves out and back the pieces stand as they did, Blue to move, but the right has lapsed.
    let setup = cross("R", &format!("{KNIGHTS}, rP h2, bP g4"));
    let mut game = game_from(&setup, Preset::Teams);
    play(&mut game, "h2", "h4");
    assert!(game.position().en_passant(Army::Red).is_some());
    let cycle = "a5-c6 e14-f12 n5-l6 e1-f3 c6-a5 f12-e14 l6-n5 f3-e1";
    play_line(&mut game, cycle);
    play_line(&mut game, cycle);
    assert!(
        !game.is_over(),
        "the placement's third time, but the first had an en passant right"
    );
    play_until_over(&mut game, cycle, 8);
    assert_drawn(&game, DrawReason::Repetition);
}

/// "... the same rights (... en passant ...)": a right that no pawn could use is no right, so the
/// position after the double step already counts as the first of three (source 000: "the same
/// legal possibilities").
#[test]
fn repetition_ignores_an_en_passant_right_that_no_pawn_can_use() {
    let setup = cross("R", &format!("{KNIGHTS}, rP h2"));
    let mut game = game_from(&setup, Preset::Teams);
    play(&mut game, "h2", "h4");
    assert!(game.position().en_passant(Army::Red).is_some());
    let cycle = "a5-c6 e14-f12 n5-l6 e1-f3 c6-a5 f12-e14 l6-n5 f3-e1";
    play_line(&mut game, cycle);
    assert!(!game.is_over());
    play_line(&mut game, cycle);
    assert_drawn(&game, DrawReason::Repetition);
}

/// "... (... which armies are out)".
#[test]
fn repetition_counts_which_armies_are_out() {
    // Free-for-all: the start placement twice with everyone in; Blue resigns (with Red's knight
    // out); then the start placement comes back with Blue out.
    let mut game = game_from(&cross("R", KNIGHTS), Preset::Ffa);
    round(&mut game, true);
    round(&mut game, false);
    play(&mut game, "e1", "f3");
    game.resign(seat(Army::Blue)).unwrap();
    play_line(&mut game, "e14-f12 n5-l6 f3-e1 f12-e14 l6-n5");
    assert!(
        !game.is_over(),
        "the placement's third time, but its first with Blue out"
    );
    play_until_over(&mut game, "e1-f3 e14-f12 n5-l6 f3-e1 f12-e14 l6-n5", 12);
    let (points, _, reason) = standings(&game);
    assert_eq!(reason, FfaEnding::Draw(DrawReason::Repetition));
    assert_eq!(points, [10, 0, 10, 10]);
}

/// "Fifty-move rule (where on): a number of plies without a capture or a pawn move (cross board:
/// 50 moves by every player = 200 plies ...)".
#[test]
fn fifty_move_rule_on_the_cross_board_is_200_plies_without_capture_or_pawn_move() {
    let pieces = format!("{KNIGHTS}, rP d2, bP b9");
    // 198 plies so far: the 199th is not yet a draw, the 200th is.
    let mut game = game_from(&cross("R", &pieces).clock(198), Preset::Teams);
    play(&mut game, "e1", "f3");
    assert!(!game.is_over());
    play(&mut game, "a5", "c6");
    assert_drawn(&game, DrawReason::FiftyMoves);
    // A pawn move or a capture as the 200th ply starts the count again.
    let mut game = game_from(&cross("R", &pieces).clock(199), Preset::Teams);
    play(&mut game, "d2", "d3");
    assert!(!game.is_over());
    assert_eq!(game.position().halfmove_clock(), 0);
    let mut game = game_from(
        &cross("R", &format!("{pieces}, gB d3")).clock(199),
        Preset::Teams,
    );
    assert!(play(&mut game, "e1", "d3").captured.is_some());
    assert!(!game.is_over());
}

/// "(cross board: 50 moves by every player still in = 200 plies with four, 150 with three, 100
/// with two ...)". Free-for-all with Blue out: three players take turns, and 150 plies draw.
#[test]
fn fifty_move_rule_counts_fifty_moves_of_every_player_still_in() {
    let pieces = format!("{KNIGHTS}, rP d2, yP d13, gP m4");
    // Four players in: 150 plies are no draw yet, 200 are.
    let mut game = game_from(&cross("R", &pieces).clock(149), Preset::Ffa);
    play(&mut game, "e1", "f3");
    assert!(!game.is_over(), "four players: 150 plies are not enough");
    // Three in (Blue out): the 150th ply draws; each of the three scores the draw's 10.
    let mut game = game_from(&cross("R", &pieces).out(Army::Blue).clock(148), Preset::Ffa);
    play(&mut game, "e1", "f3");
    assert!(!game.is_over());
    play(&mut game, "e14", "f12");
    let (points, _, reason) = standings(&game);
    assert_eq!(reason, FfaEnding::Draw(DrawReason::FiftyMoves));
    assert_eq!(points, [10, 0, 10, 10]);
    // Two in (Blue and Yellow out): 100 plies.
    let two = cross("R", &pieces)
        .out(Army::Blue)
        .out(Army::Yellow)
        .clock(99);
    let mut game = game_from(&two, Preset::Ffa);
    play(&mut game, "e1", "f3");
    assert!(matches!(
        game.outcome(),
        Some(Outcome::Standings {
            reason: FfaEnding::Draw(DrawReason::FiftyMoves),
            ..
        })
    ));
}

/// "... Duo: 100 plies, as in chess)."
#[test]
fn fifty_move_rule_in_duo_is_100_plies() {
    let setup = classic("w", "wK e1, wN g1, wP a2, bK e8, bN g8, bP h7");
    let mut game = game_from(&setup.clock(98), Preset::Duo);
    play(&mut game, "g1", "f3");
    assert!(!game.is_over());
    play(&mut game, "g8", "f6");
    assert_drawn(&game, DrawReason::FiftyMoves);
}

/// "Dead position: at least \"kings only\" (every live army has a bare king) is a draw".
#[test]
fn kings_only_is_a_dead_position_draw() {
    // Red's king takes the last piece besides the kings.
    let mut game = game_from(
        &cross("R", "rK h1, bN h2, bK a7, yK g14, gK n8"),
        Preset::Teams,
    );
    play(&mut game, "h1", "h2");
    assert_drawn(&game, DrawReason::DeadPosition);
    // With one more piece on the board it goes on.
    let mut game = game_from(
        &cross("R", "rK h1, bN h2, yP e10, bK a7, yK g14, gK n8"),
        Preset::Teams,
    );
    play(&mut game, "h1", "h2");
    assert!(!game.is_over());
    // Free-for-all: grey pieces of an army that is out do not count; a draw gives +10 to each
    // player still in (Red also scored 3 for the knight).
    let setup = cross("R", "rK h1, bN h2, yQ e10, bK a7, yK g14, gK n8").out(Army::Yellow);
    let mut game = game_from(&setup, Preset::Ffa);
    play(&mut game, "h1", "h2");
    let (points, winners, reason) = standings(&game);
    assert_eq!(reason, FfaEnding::Draw(DrawReason::DeadPosition));
    assert_eq!(points, [13, 10, 0, 10]);
    assert_eq!(winners, ArmySet::single(Army::Red));
}

/// "Dead position ... is a draw" also when the last piece besides the kings leaves the game with
/// its player: Green, the only one with more than a king, resigns from a free-for-all.
#[test]
fn kings_only_is_a_draw_as_soon_as_the_last_army_with_pieces_is_out() {
    let setup = cross("R", "rK h1, bK a7, yK g14, gK n8, gQ n7");
    for preset in [Preset::Ffa, Preset::FfaWalkingKings] {
        let mut game = game_from(&setup, preset);
        game.resign(seat(Army::Green)).unwrap();
        let (points, _, reason) = standings(&game);
        assert_eq!(
            reason,
            FfaEnding::Draw(DrawReason::DeadPosition),
            "{preset}"
        );
        assert_eq!(points, [10, 10, 10, 0], "{preset}");
    }
}

/// Plays White's capture `from`-`to` in Duo from a position with `pieces` and says whether the game
/// ended as a dead position.
fn duo_capture_is_dead(pieces: &str, from: &str, to: &str) -> bool {
    let mut game = game_from(&classic("w", pieces), Preset::Duo);
    play(&mut game, from, to);
    match game.outcome() {
        Some(Outcome::Draw {
            reason: DrawReason::DeadPosition,
        }) => true,
        None => false,
        other => panic!("{other:?}"),
    }
}

/// "Duo uses chess's insufficient-material rule."
#[test]
fn duo_uses_chess_insufficient_material() {
    // King and bishop, or king and knight, against a bare king: dead.
    assert!(duo_capture_is_dead(
        "wK e1, wB f1, bK e8, bN b5",
        "f1",
        "b5"
    ));
    assert!(duo_capture_is_dead(
        "wK e1, wN d4, bK e8, bB b5",
        "d4",
        "b5"
    ));
    // Bishops on squares of one colour: dead; of both colours: not.
    assert!(duo_capture_is_dead(
        "wK e1, wB f1, bK e8, bN b5, bB g8",
        "f1",
        "b5"
    ));
    assert!(!duo_capture_is_dead(
        "wK e1, wB f1, bK e8, bN b5, bB f8",
        "f1",
        "b5"
    ));
    // A rook, or two knights (a mate can still be helped), is enough to go on.
    assert!(!duo_capture_is_dead(
        "wK e1, wR a1, bK e8, bN d2",
        "e1",
        "d2"
    ));
    assert!(!duo_capture_is_dead(
        "wK e1, wN g1, wN b1, bK e8, bB a3",
        "b1",
        "a3"
    ));
}

/// "Move limit (room option): when the total number of plies reaches N, Teams is drawn and
/// free-for-all is decided on points."
#[test]
fn move_limit_draws_teams_and_decides_free_for_all_on_points() {
    let rules = RuleSet {
        move_limit: Some(4),
        ..Preset::Teams.rules()
    };
    let mut game = game_from(&cross("R", KNIGHTS), rules);
    play_line(&mut game, "e1-f3 a5-c6 e14-f12");
    assert!(!game.is_over());
    play(&mut game, "n5", "l6");
    assert_drawn(&game, DrawReason::MoveLimit);

    let rules = RuleSet {
        move_limit: Some(4),
        ..Preset::Ffa.rules()
    };
    let setup: Setup = cross("R", KNIGHTS)
        .points(Army::Green, 5)
        .points(Army::Red, 3);
    let mut game = game_from(&setup, rules);
    play_line(&mut game, "e1-f3 a5-c6 e14-f12");
    assert!(!game.is_over());
    play(&mut game, "n5", "l6");
    let (points, winners, reason) = standings(&game);
    assert_eq!(reason, FfaEnding::MoveLimit);
    assert_eq!(points, [3, 0, 0, 5]);
    assert_eq!(winners, ArmySet::single(Army::Green));
}
