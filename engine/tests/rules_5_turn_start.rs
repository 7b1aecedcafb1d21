//! RULES.md section 5, "Assessing the player whose turn begins": king capture, playing on, mate
//! and stalemate at turn start, and what a pending check or mate does (and does not) do.

mod support;

use fourkings_engine::game::{Consequence, DrawReason, Elimination, ScoreReason, WinReason};
use fourkings_engine::{Army, ArmySet, ArmyStatus, Format, Outcome, Preset, Role, Team};
use support::*;

/// Green to move. Green's bishop on c7 shields its partner Blue's king (a7) from Red's rook (d7).
/// Moving the bishop is legal for Green (it answers only for its own king).
const SHIELD: &str = "rK h1, rR d7, bK a7, gB c7, yK g14, gK n8";

/// "1. **King capture** (presets where it is on): if some enemy king is attacked by this player's
/// pieces, the player may capture it. In Teams that wins for the capturer's team".
#[test]
fn king_capture_an_attacked_enemy_king_may_be_taken_and_that_wins_in_teams() {
    let mut game = game_from(&cross("G", SHIELD), Preset::Teams);
    play(&mut game, "c7", "e5");
    assert!(game.position().is_check(Army::Blue));
    assert!(!game.is_over());
    let ply = play(&mut game, "d7", "a7");
    assert_eq!(
        ply.captured.map(|p| (p.army, p.role)),
        Some((Army::Blue, Role::King))
    );
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: Team::RedYellow,
            reason: WinReason::KingCaptured {
                victim: seat(Army::Blue)
            }
        })
    );
}

/// "in free-for-all it scores 20 and the victim is out."
#[test]
fn king_capture_in_free_for_all_scores_20_and_puts_the_victim_out() {
    let mut game = game_from(&cross("G", SHIELD), Preset::Ffa);
    play(&mut game, "c7", "e5");
    let ply = play(&mut game, "d7", "a7");
    assert_eq!(
        ply.consequences,
        [
            Consequence::Scored {
                army: Army::Red,
                points: 20,
                reason: ScoreReason::KingCapture
            },
            // A captured king is not marked, nor has its player a token for it.
            Consequence::Eliminated {
                army: Army::Blue,
                reason: Elimination::KingCaptured,
                king_walks: false,
                on_turn: false
            },
        ]
    );
    assert_eq!(game.points()[Army::Red], 20);
    assert_eq!(game.position().status(Army::Blue), ArmyStatus::Out);
    assert!(!game.is_over());
    // Blue's seat is skipped: Yellow is next.
    assert_eq!(game.position().turn(), Army::Yellow);
}

/// "1. **King capture** ... 2. If the player has a legal move ...": step 1 comes first. Choice
/// where RULES.md leaves room: a king capture is always legal, even when it leaves the capturer's
/// own king attacked (the capture decides the game).
#[test]
fn king_capture_comes_first_even_when_the_capturers_own_king_is_mated() {
    // Red's king is in check from Green's rook on e1 with no way out, but Red's rook can take
    // Blue's king.
    let setup = cross(
        "R",
        "rK h1, rP g2, rP h2, rP i2, gR e1, rR d7, bK a7, yK g14, gK n8",
    );
    let mut game = game_from(&setup, Preset::Teams);
    assert!(!game.is_over(), "not mated: a king capture is a legal move");
    assert!(game.position().is_check(Army::Red));
    assert_eq!(targets(game.position(), "d7").len(), 1);
    play(&mut game, "d7", "a7");
    let red_and_yellow = ArmySet::single(Army::Red).with(Army::Yellow);
    assert_eq!(
        game.outcome().map(|o| o.winning_armies(Format::Teams)),
        Some(red_and_yellow)
    );
}

/// "2. If the player has a legal move, they play one."
#[test]
fn a_player_in_check_with_a_legal_move_plays_on() {
    // Green checks Red (next to move) with a rook; Red's king can step out of the way.
    let setup = cross("G", "rK h1, rP g2, rP i2, gR e5, bK a7, yK g14, gK n8");
    let mut game = game_from(&setup, Preset::Teams);
    play(&mut game, "e5", "e1");
    assert!(game.position().is_check(Army::Red));
    assert!(!game.is_over());
    assert_eq!(game.to_move(), Some(seat(Army::Red)));
    assert_eq!(targets(game.position(), "h1"), ["h2"]);
}

/// Red's king on h1 behind its own pawns; Green's rook can reach e1 for a back-rank mate, Blue's
/// rook on f5 can reach f1 likewise.
const BACK_RANK: &str = "rK h1, rP g2, rP h2, rP i2, bK a7, yK g14, gK n8";

/// "3. If not, and their king is attacked, they are **checkmated** ... (Teams: mate loses for the
/// team ...)".
#[test]
fn no_legal_move_and_king_attacked_is_checkmate_and_loses_for_the_team_in_teams() {
    let mut game = game_from(&cross("G", &format!("{BACK_RANK}, gR e5")), Preset::Teams);
    let ply = play(&mut game, "e5", "e1");
    // A mate found when the victim's turn begins is the victim's own token in PGN4, not a mark
    // on the move that led to it.
    assert_eq!(ply.mates, 0);
    assert_eq!(ply.text, "Re5-e1+");
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: Team::BlueGreen,
            reason: WinReason::Checkmate {
                mated: seat(Army::Red)
            }
        })
    );
}

/// "... if not attacked, **stalemated**. The result follows from the preset (Teams: ... stalemate
/// draws the whole game)."
#[test]
fn no_legal_move_and_king_not_attacked_is_stalemate_and_draws_the_whole_game_in_teams() {
    // Green's rooks on g5 and (after the move) i5 cover g1, g2, i1, i2; its knight on f3 covers h2.
    let setup = cross("G", "rK h1, gR g5, gR m5, gN f3, bK a7, yK d14, gK n8");
    let mut game = game_from(&setup, Preset::Teams);
    play(&mut game, "m5", "i5");
    assert!(!game.position().is_check(Army::Red));
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Draw {
            reason: DrawReason::Stalemate {
                seat: seat(Army::Red)
            }
        })
    );
}

/// "A check does not change the turn order: the partner may block or capture first."
#[test]
fn a_check_does_not_change_the_turn_order_and_the_partner_may_block_or_capture_first() {
    // Blue's rook gives what would be a back-rank mate, but Yellow and Green move before Red.
    // Yellow takes the rook (e10xe1) or blocks its line (bishop d3-f1).
    for (from, to) in [("e10", "e1"), ("d3", "f1")] {
        let setup = cross("B", &format!("{BACK_RANK}, bR e5, yR e10, yB d3"));
        let mut game = game_from(&setup, Preset::Teams);
        play(&mut game, "e5", "e1");
        assert!(game.position().is_check(Army::Red));
        assert_eq!(game.to_move(), Some(seat(Army::Yellow)));
        play(&mut game, from, to);
        play(&mut game, "n8", "n9");
        assert!(!game.is_over());
        assert_eq!(game.to_move(), Some(seat(Army::Red)));
        assert!(!game.position().is_check(Army::Red), "after {from}-{to}");
    }
}

/// "A position that would be mate is not mate until its victim's turn begins".
#[test]
fn mate_is_not_mate_until_the_victims_turn_begins() {
    let mut game = game_from(
        &cross("B", &format!("{BACK_RANK}, bR e5, yR e10")),
        Preset::Teams,
    );
    let ply = play(&mut game, "e5", "e1");
    assert!(
        ply.mates == 0 && !game.is_over(),
        "Yellow and Green move before Red"
    );
    play(&mut game, "g14", "f14");
    assert!(!game.is_over());
    let ply = play(&mut game, "n8", "n9");
    // Red's turn begins: now it is mate. Green's move did not deliver it, so it is not marked as
    // a mating move.
    assert!(game.is_over());
    assert_eq!(ply.mates, 0);
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: Team::BlueGreen,
            reason: WinReason::Checkmate {
                mated: seat(Army::Red)
            }
        })
    );
}

/// "the first result reached ends the game, even if another king also faces a pending mate."
#[test]
fn the_first_result_reached_ends_the_game_even_if_another_king_faces_a_pending_mate() {
    // Yellow's rook boxes in Blue's king (pending mate: Blue moves after Green and Red); then Green
    // mates Red, who is next.
    let setup = cross(
        "Y",
        &format!("{BACK_RANK}, bP b6, bP b7, bP b8, yR d11, gR e5"),
    );
    let mut game = game_from(&setup, Preset::Teams);
    play(&mut game, "d11", "a11");
    assert!(game.position().is_check(Army::Blue));
    assert!(!game.is_over());
    play(&mut game, "e5", "e1");
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: Team::BlueGreen,
            reason: WinReason::Checkmate {
                mated: seat(Army::Red)
            }
        })
    );
}

/// "Where king capture is off, a king left attacked stays on the board until its owner's turn,
/// and nobody may take it."
#[test]
fn without_king_capture_a_king_left_attacked_waits_for_its_owners_turn() {
    // Yellow's rook checks Blue's king; Green's bishop move then adds Red's rook. Red, the one
    // player between Green and Blue, may not take the king; on Blue's turn it is still there and
    // Blue must answer both attacks.
    let setup = cross("Y", "rK h1, rR d7, bK a7, gB c7, yR e4, yK g14, gK n8");
    let mut game = game_from(&setup, Preset::TeamsHouse);
    play(&mut game, "e4", "a4");
    play(&mut game, "c7", "e5");
    assert!(!has_move(game.position(), "d7", "a7"));
    play(&mut game, "h1", "g1");
    assert_eq!(game.to_move(), Some(seat(Army::Blue)));
    assert_eq!(
        piece_on(game.position(), "a7").map(|p| p.army),
        Some(Army::Blue)
    );
    assert!(game.position().is_check(Army::Blue));
    assert_eq!(targets(game.position(), "a7"), ["b6", "b8"]);
}
