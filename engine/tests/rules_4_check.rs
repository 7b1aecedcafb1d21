//! RULES.md section 4, "Check and legality": one test per sentence that says what happens.

mod support;

use fourkings_engine::{Army, ArmySet, CastleSide, Preset};
use support::*;

/// "A king is *attacked* when an enemy piece could capture on its square by its capture pattern,
/// whether or not moving that piece would expose its own king."
#[test]
fn a_pinned_enemy_piece_still_attacks() {
    // Blue's bishop on e6 is pinned to Blue's king on b6 by Yellow's rook on h6; it still covers
    // g4 and h3 next to Red's king.
    let setup = cross("R", "rK h4, bK b6, bB e6, yR h6, yK g14, gK n8");
    let pos = position(&setup, Preset::Teams);
    assert_eq!(targets(&pos, "h4"), ["g3", "i3", "i4", "g5", "h5", "i5"]);
    assert!(pos.is_attacked(sq("g4"), Army::Red) && pos.is_attacked(sq("h3"), Army::Red));
    // And a king standing there is in check.
    let pos = position(
        &cross("R", "rK g4, bK b6, bB e6, yR h6, yK g14, gK n8"),
        Preset::Teams,
    );
    assert!(pos.is_check(Army::Red));
}

/// "... by its capture pattern": a pawn attacks the squares it captures on (diagonally forward in
/// its army's direction), not the square in front of it.
#[test]
fn a_pawn_attacks_the_squares_it_could_capture_on_not_the_square_ahead() {
    // (army to move, its king, enemy pawn, square ahead of the pawn, the pawn's capture squares)
    for (turn, king, pawn, ahead, attacked) in [
        ("R", "rK h6", "bP f6", "g6", ["g5", "g7"]),
        ("R", "rK d6", "gP f6", "e6", ["e5", "e7"]),
        ("B", "bK f8", "rP f6", "f7", ["e7", "g7"]),
        ("B", "bK f4", "yP f6", "f5", ["e5", "g5"]),
    ] {
        let kings: Vec<&str> = ["rK h1", "bK a7", "yK g14", "gK n8"]
            .into_iter()
            .filter(|k| k[..1] != king[..1])
            .collect();
        let setup = cross(turn, &format!("{}, {king}, {pawn}", kings.join(", ")));
        let pos = position(&setup, Preset::Teams);
        let from = &king[3..];
        assert!(
            has_move(&pos, from, ahead),
            "{king} may step in front of {pawn}"
        );
        for square in attacked {
            assert!(
                !has_move(&pos, from, square),
                "{king} may not step onto {square}, attacked by {pawn}"
            );
        }
    }
}

/// "Partners never attack each other."
#[test]
fn partners_never_attack_each_other() {
    // Yellow's queen looks down the e-file at Red's king: no check, and e6 is free to step on.
    let setup = cross("R", "rK e5, yQ e9, bK a7, yK g14, gK n8");
    let pos = position(&setup, Preset::Teams);
    assert!(!pos.is_check(Army::Red));
    assert!(has_move(&pos, "e5", "e6") && has_move(&pos, "e5", "d6"));
    // A partner covering the squares of a castle does not stop it either.
    let setup = cross("R", "rK h1, rR k1, yR j6, bK a7, yK g14, gK n8")
        .castling(Army::Red, CastleSide::King);
    let pos = position(&setup, Preset::Teams);
    assert!(has_move(&pos, "h1", "j1"));
}

/// "In free-for-all every other live army is an enemy".
#[test]
fn in_free_for_all_every_other_live_army_is_an_enemy() {
    let setup = cross("R", "rK e5, yQ e9, bK a7, yK g14, gK n8");
    let pos = position(&setup, Preset::Ffa);
    assert!(pos.is_check(Army::Red));
    assert!(!has_move(&pos, "e5", "e6"));
    for other in [Army::Blue, Army::Yellow, Army::Green] {
        assert!(pos.is_enemy(Army::Red, other), "{other}");
    }
}

/// "the pieces of an army that is out (grey) attack nothing."
#[test]
fn grey_pieces_of_an_army_that_is_out_attack_nothing() {
    let setup = cross("R", "rK e5, yQ e9, yN c6, bK a7, yK g14, gK n8").out(Army::Yellow);
    let pos = position(&setup, Preset::Ffa);
    assert!(!pos.is_check(Army::Red));
    // e6 (on the grey queen's file) and d4 (a grey knight's jump away) are free to step on.
    assert!(has_move(&pos, "e5", "e6") && has_move(&pos, "e5", "d4"));
    assert!(!pos.is_enemy(Army::Red, Army::Yellow));
}

/// "A move is legal only if afterwards the mover's own king is not attacked by any enemy, whoever
/// moves next."
#[test]
fn a_move_may_not_leave_the_movers_king_attacked_even_by_the_enemy_who_moves_last() {
    // Blue moves next and Green only third, yet Red's knight, pinned by Green's rook, may not
    // move, and Red's king may not step onto h5 or g4, on Green's bishop's diagonal.
    let setup = cross("R", "rK h4, rN h6, gR h10, gB k8, bK a7, yK g14, gK n8");
    let pos = position(&setup, Preset::Teams);
    assert!(targets(&pos, "h6").is_empty());
    assert_eq!(targets(&pos, "h4"), ["g3", "h3", "i3", "i4", "g5", "i5"]);
    // Without Green's pieces the knight and king are free.
    let pos = position(
        &cross("R", "rK h4, rN h6, bK a7, yK g14, gK n8"),
        Preset::Teams,
    );
    assert!(!targets(&pos, "h6").is_empty() && has_move(&pos, "h4", "g4"));
}

/// "A player answers only for their own king: a move that exposes the partner's king is legal."
#[test]
fn a_move_that_exposes_the_partners_king_is_legal() {
    // Red's bishop on g11 shields Yellow's king from Blue's rook on g8.
    let setup = cross("R", "rK h1, rB g11, bR g8, bK a7, yK g14, gK n8");
    let mut game = game_from(&setup, Preset::Teams);
    assert!(has_move(game.position(), "g11", "f10"));
    play(&mut game, "g11", "f10");
    assert!(game.position().is_check(Army::Yellow));
    // The same move with Red's own king behind the bishop is illegal.
    let setup = cross("R", "rK g14, rB g11, bR g8, bK a7, yK d14, gK n8");
    let pos = position(&setup, Preset::Teams);
    assert!(!has_move(&pos, "g11", "f10"));
}

/// "So enemy kings can never stand adjacent; partner kings may."
#[test]
fn enemy_kings_never_stand_adjacent_but_partner_kings_may() {
    // Red's king on f6, Blue's on h6 (enemy), Yellow's on f8 (partner).
    let setup = cross("R", "rK f6, bK h6, yK f8, gK n8");
    let pos = position(&setup, Preset::Teams);
    let king = targets(&pos, "f6");
    assert_eq!(king, ["e5", "f5", "e6", "e7", "f7"]);
    // In free-for-all Yellow is an enemy too: f7 and e7 are no longer allowed.
    let pos = position(&setup, Preset::Ffa);
    assert_eq!(targets(&pos, "f6"), ["e5", "f5", "e6"]);
}

/// "\"Check\" is announced for every king that a move leaves attacked."
#[test]
fn check_is_announced_for_every_king_the_move_leaves_attacked() {
    // A knight fork of Blue's king (d8) and Green's king (h8).
    let setup = cross("R", "rK h1, rN e5, bK d8, yK g14, gK h8");
    let mut game = game_from(&setup, Preset::Teams);
    let ply = play(&mut game, "e5", "f7");
    let both = ArmySet::EMPTY.with(Army::Blue).with(Army::Green);
    assert_eq!(ply.checks, both);
    assert_eq!(ply.kings_in_check, both);
    assert!(ply.text.ends_with("++"), "{}", ply.text);
    // A move that uncovers an attack on the partner's king announces that check too, though
    // the attacker is Blue's rook: it is the move that leaves the king attacked.
    let setup = cross("R", "rK h1, rB g11, bR g8, bK a7, yK g14, gK n8");
    let mut game = game_from(&setup, Preset::Teams);
    let ply = play(&mut game, "g11", "f10");
    assert_eq!(ply.kings_in_check, ArmySet::single(Army::Yellow));
    assert_eq!(ply.checks, ArmySet::single(Army::Yellow));
    assert_eq!(ply.text, "Bg11-f10+");
}
