//! RULES.md section 8, "Twists": pawn breakthrough, minor-piece promotion and the two team
//! lifelines (through `Game::take_back`).
//!
//! The last two twists are not engine rules and have no test here: **silent partners** (no team
//! chat after the start) and **switch partners** (a session of three games with every pairing
//! once, scored per person) are features of the server's rooms and sessions.

mod support;

use fourkings_engine::game::WinReason;
use fourkings_engine::{
    Army, GameError, Outcome, Piece, Preset, PromotionSet, Role, RuleSet, Team,
};
use support::*;

const KINGS: &str = "rK h1, bK a7, yK g14, gK n8";

fn with_kings(pieces: &str) -> String {
    format!("{KINGS}, {pieces}")
}

fn breakthrough() -> RuleSet {
    RuleSet {
        pawn_breakthrough: true,
        ..Preset::Teams.rules()
    }
}

fn lifelines() -> RuleSet {
    RuleSet {
        lifelines: 2,
        ..Preset::Teams.rules()
    }
}

/// "**Pawn breakthrough**: the first team to land a pawn legally on its promotion line wins at once
/// (instead of promoting)".
#[test]
fn pawn_breakthrough_landing_a_pawn_on_the_promotion_line_wins_instead_of_promoting() {
    for (turn, pawn, from, to, team) in [
        ("R", "rP h10", "h10", "h11", Team::RedYellow),
        ("B", "bP j7", "j7", "k7", Team::BlueGreen),
        ("Y", "yP e5", "e5", "e4", Team::RedYellow),
        ("G", "gP e9", "e9", "d9", Team::BlueGreen),
    ] {
        let mut game = game_from(&cross(turn, &with_kings(pawn)), breakthrough());
        assert!(
            promotions(game.position(), from, to).is_empty(),
            "{pawn}: no promotion choice"
        );
        let ply = play(&mut game, from, to);
        assert_eq!(ply.mv.promotion(), None);
        assert_eq!(
            piece_on(game.position(), to).map(|p| p.role),
            Some(Role::Pawn),
            "{pawn} stays a pawn"
        );
        assert_eq!(
            game.outcome(),
            Some(&Outcome::Win {
                team,
                reason: WinReason::Breakthrough { seat: ply.seat }
            }),
            "{pawn}"
        );
    }
    // Without the twist the same step is a promotion and wins nothing.
    let mut game = game_from(&cross("R", &with_kings("rP h10")), Preset::Teams);
    play_promotion(&mut game, "h10", "h11", Role::Queen);
    assert!(!game.is_over());
}

/// "... the mover's own king must be safe after the move."
#[test]
fn pawn_breakthrough_needs_the_movers_own_king_safe_after_the_move() {
    // The pawn on h10 is pinned to Red's king on e10 by Blue's rook on k10.
    let setup = cross("R", "rK e10, rP h10, bR k10, bK a7, yK g14, gK n8");
    let game = game_from(&setup, breakthrough());
    assert!(!has_move(game.position(), "h10", "h11"));
    // Without the pin it would win.
    let setup = cross("R", "rK e10, rP h10, bR k9, bK a7, yK g14, gK n8");
    let mut game = game_from(&setup, breakthrough());
    play(&mut game, "h10", "h11");
    assert!(matches!(
        game.outcome(),
        Some(Outcome::Win {
            reason: WinReason::Breakthrough { .. },
            ..
        })
    ));
}

/// "**Minor-piece promotion**: the promotion set is knight or bishop only."
#[test]
fn minor_piece_promotion_offers_only_knight_or_bishop() {
    let rules = RuleSet {
        promotion: PromotionSet::Minor,
        ..Preset::Teams.rules()
    };
    let mut game = game_from(&cross("R", &with_kings("rP h10")), rules);
    assert_eq!(
        promotions(game.position(), "h10", "h11"),
        [Role::Bishop, Role::Knight]
    );
    play_promotion(&mut game, "h10", "h11", Role::Knight);
    assert_eq!(
        piece_on(game.position(), "h11"),
        Some(Piece::new(Army::Red, Role::Knight))
    );
}

/// "**Two team lifelines**: each team holds two tokens."
#[test]
fn lifelines_each_team_holds_two_tokens() {
    let game = game_from(&cross("R", KINGS), lifelines());
    assert_eq!(
        (
            game.lifelines(Team::RedYellow),
            game.lifelines(Team::BlueGreen)
        ),
        (2, 2)
    );
    // Without the twist there is nothing to spend.
    let mut game = game_from(&cross("R", &with_kings("rP e2")), Preset::Teams);
    play(&mut game, "e2", "e3");
    assert!(matches!(
        game.take_back(seat(Army::Yellow)),
        Err(GameError::NotAllowed(_))
    ));
}

/// "After a teammate completes a legal move and before the next player moves or a result is
/// settled, either partner may spend one to take that move back (captures, castling and
/// double-step rights and promotions restored exactly)".
#[test]
fn lifelines_either_partner_takes_back_the_move_and_everything_is_restored_exactly() {
    // A capture that promotes, taken back by the partner (Yellow).
    let mut game = game_from(&cross("R", &with_kings("rP e10, bN f11")), lifelines());
    let before = game.position().clone();
    play_promotion(&mut game, "e10", "f11", Role::Queen);
    game.take_back(seat(Army::Yellow)).unwrap();
    assert_eq!(game.position(), &before);
    assert_eq!(
        piece_on(game.position(), "f11"),
        Some(Piece::new(Army::Blue, Role::Knight))
    );
    assert_eq!(game.ply_count(), 0);
    assert_eq!(game.lifelines(Team::RedYellow), 1);
    // A castle, taken back by the mover: both castling rights are back.
    let setup = cross("R", &with_kings("rR d1, rR k1")).castling_both(Army::Red);
    let mut game = game_from(&setup, lifelines());
    let before = game.position().clone();
    play(&mut game, "h1", "j1");
    game.take_back(seat(Army::Red)).unwrap();
    assert_eq!(game.position(), &before);
    assert!(has_move(game.position(), "h1", "f1"));
    // A double step: the pawn may double-step again, and the en passant right it opened is gone.
    let mut game = game_from(&cross("R", &with_kings("rP h2, bP g4")), lifelines());
    let before = game.position().clone();
    play(&mut game, "h2", "h4");
    assert!(game.position().en_passant(Army::Red).is_some());
    game.take_back(seat(Army::Yellow)).unwrap();
    assert_eq!(game.position(), &before);
    assert_eq!(game.position().en_passant(Army::Red), None);
    assert!(
        mv(game.position(), "h2", "h4").is_double_step(),
        "the position allows it again"
    );
}

/// "... before the next player moves or a result is settled": once the next player has moved, or
/// the game is over, there is nothing to take back; and only the mover's team may.
#[test]
fn lifelines_only_before_the_next_move_or_a_result_and_only_for_the_own_team() {
    let knights = "rK h1, rN e1, bK a7, bN a5, yK g14, yN e14, gK n8, gN n5";
    let mut game = game_from(&cross("R", knights), lifelines());
    play(&mut game, "e1", "f3");
    assert_eq!(
        game.take_back(seat(Army::Blue)),
        Err(GameError::NothingToTakeBack),
        "not Blue's team's move"
    );
    play(&mut game, "a5", "c6");
    assert_eq!(
        game.take_back(seat(Army::Yellow)),
        Err(GameError::NothingToTakeBack),
        "Blue has moved since"
    );
    assert_eq!(game.lifelines(Team::RedYellow), 2);
    // Green mates Red (Red is next): the result is settled at once, nothing can be taken back.
    let setup = cross(
        "G",
        "rK h1, rP g2, rP h2, rP i2, gR e5, bK a7, yK g14, gK n8",
    );
    let mut game = game_from(&setup, lifelines());
    play(&mut game, "e5", "e1");
    assert!(game.is_over());
    assert_eq!(game.take_back(seat(Army::Blue)), Err(GameError::GameOver));
}

/// "... the same player must then choose a different legal move."
#[test]
fn lifelines_the_same_player_must_then_choose_a_different_move() {
    let mut game = game_from(&cross("R", &with_kings("rP h2")), lifelines());
    let ply = play(&mut game, "h2", "h4");
    game.take_back(seat(Army::Yellow)).unwrap();
    assert_eq!(game.to_move(), Some(seat(Army::Red)));
    assert_eq!(game.forbidden_move(), Some(ply.mv));
    assert!(!game.legal_moves().contains(&ply.mv));
    assert_eq!(
        game.play(seat(Army::Red), ply.mv).map(|_| ()),
        Err(GameError::TakenBack(ply.mv))
    );
    play(&mut game, "h2", "h3");
    assert_eq!(game.to_move(), Some(seat(Army::Blue)));
}

/// "If no other legal move exists the move stands and no token is spent."
#[test]
fn lifelines_a_move_that_was_the_only_legal_one_stands_and_costs_nothing() {
    // Green's rooks leave Red's king one square: h2.
    let setup = cross("R", "rK h1, gR g5, gR i5, bK a7, yK d14, gK n8");
    let mut game = game_from(&setup, lifelines());
    assert_eq!(game.legal_moves().len(), 1);
    play(&mut game, "h1", "h2");
    assert_eq!(
        game.take_back(seat(Army::Yellow)),
        Err(GameError::NoAlternative)
    );
    assert_eq!(game.lifelines(Team::RedYellow), 2);
    assert_eq!(
        piece_on(game.position(), "h2").map(|p| p.role),
        Some(Role::King)
    );
    assert_eq!(game.to_move(), Some(seat(Army::Blue)));
}

/// "Tokens are shared by the pair and never come back."
#[test]
fn lifelines_tokens_are_shared_by_the_pair_and_never_come_back() {
    let knights = "rK h1, rN e1, bK a7, bN a5, yK g14, yN e14, gK n8, gN n5";
    let mut game = game_from(&cross("R", knights), lifelines());
    play(&mut game, "e1", "f3");
    game.take_back(seat(Army::Yellow)).unwrap();
    play_line(&mut game, "e1-d3 a5-c6 e14-f12");
    // Red spends the team's second token on Yellow's move.
    game.take_back(seat(Army::Red)).unwrap();
    assert_eq!(game.lifelines(Team::RedYellow), 0);
    play_line(&mut game, "e14-d12 n5-l6 d3-e1");
    assert_eq!(
        game.take_back(seat(Army::Yellow)),
        Err(GameError::NoLifelines)
    );
    assert_eq!(game.take_back(seat(Army::Red)), Err(GameError::NoLifelines));
    // The other team's tokens are its own.
    play(&mut game, "c6", "a5");
    assert_eq!(game.lifelines(Team::BlueGreen), 2);
    game.take_back(seat(Army::Green)).unwrap();
    assert_eq!(game.lifelines(Team::BlueGreen), 1);
}
