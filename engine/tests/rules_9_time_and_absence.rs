//! RULES.md section 9, "Time and absence": the server runs the clocks, the turn limit, the grace
//! periods and the CPU stand-ins; the engine only records what they decide. These tests cover
//! what [`fourkings_engine::Game`] offers for that: `time_out` and `abandon`.
//!
//! Not tested here (server behaviour): the turn limit (the seat's CPU plays the move and the game
//! goes on), the grace period and the CPU playing for an absent player, pausing Duo for the grace
//! period, and rotating the first player on a rematch (see `RuleSet::first`, section 2).

mod support;

use fourkings_engine::game::WinReason;
use fourkings_engine::{Army, ArmyStatus, Game, GameError, Outcome, Preset, Seat, Team};
use support::*;

/// "**Team clock** (Duo): ... a team whose bank reaches zero loses on time."
#[test]
fn duo_a_team_whose_clock_runs_out_loses_on_time() {
    let mut game = Game::new(Preset::Duo.rules()).unwrap();
    play(&mut game, "e2", "e4");
    // B1 is to move when Black's bank reaches zero.
    let b1 = Seat::ALL[1];
    game.time_out(b1).unwrap();
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: Team::WHITE,
            reason: WinReason::Timeout { seat: b1 }
        })
    );
    assert_eq!(game.time_out(Seat::ALL[0]), Err(GameError::GameOver));
}

/// "Duo instead pauses the game for the grace period and, if the player does not return, the
/// opposing team may claim the win."
#[test]
fn duo_the_opponents_of_a_player_who_does_not_return_win() {
    let mut game = Game::new(Preset::Duo.rules()).unwrap();
    let w2 = Seat::ALL[2];
    game.abandon(w2).unwrap();
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: Team::BLACK,
            reason: WinReason::Abandonment { seat: w2 }
        })
    );
}

/// Section 7: "a player who resigns (or times out) is out" in free-for-all (in
/// `ffa-walking-kings` the king walks on: see the section 7 tests).
#[test]
fn free_for_all_a_player_who_times_out_is_out() {
    let mut game = game_from(
        &cross("R", "rK h1, rN e1, bK a7, bN a5, yK g14, gK n8"),
        Preset::Ffa,
    );
    game.time_out(seat(Army::Red)).unwrap();
    assert_eq!(game.position().status(Army::Red), ArmyStatus::Out);
    assert!(!game.is_over());
    assert_eq!(game.to_move(), Some(seat(Army::Blue)));
}

/// Game clocks: in Teams a seat whose bank runs out loses for its team, "unless the
/// opponents cannot mate with what they have left (then a draw, as chess does)". What counts is
/// the other team's material together: kings and one bishop or knight between them cannot mate.
#[test]
fn teams_a_flag_fall_against_insufficient_material_is_a_draw() {
    use fourkings_engine::game::DrawReason;
    // Blue and Green (the other team) have their kings and one knight between them.
    let mut game = game_from(
        &cross("R", "rK h1, rQ e1, bK a7, bN a5, yK g14, gK n8"),
        Preset::Teams,
    );
    let red = seat(Army::Red);
    game.time_out(red).unwrap();
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Draw {
            reason: DrawReason::TimeoutVsInsufficientMaterial { seat: red }
        })
    );
    // With a knight each, they could: Red's team loses.
    let mut game = game_from(
        &cross("R", "rK h1, rQ e1, bK a7, bN a5, yK g14, gK n8, gN n6"),
        Preset::Teams,
    );
    game.time_out(red).unwrap();
    assert!(matches!(
        game.outcome(),
        Some(Outcome::Win {
            reason: WinReason::Timeout { .. },
            ..
        })
    ));
}
