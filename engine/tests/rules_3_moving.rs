//! RULES.md section 3, "Moving (all systems)": one test per sentence that says what happens.

mod support;

use fourkings_engine::game::{Consequence, ScoreReason};
use fourkings_engine::{
    Army, CastleSide, GameError, Move, MoveKind, Piece, Preset, Role, Setup, Square,
};
use support::*;

/// The four kings on their start squares, out of the way of the tests below.
const KINGS: &str = "rK h1, bK a7, yK g14, gK n8";

fn with_kings(pieces: &str) -> String {
    format!("{KINGS}, {pieces}")
}

/// "One move of one own piece per turn; no passing."
#[test]
fn one_move_of_one_own_piece_per_turn_and_no_passing() {
    let mut game = game_from(&cross("R", &with_kings("rN e5, bN f9")), Preset::Teams);
    let pos = game.position().clone();
    let moves = game.legal_moves();
    assert!(!moves.is_empty());
    assert!(
        moves
            .iter()
            .all(|m| pos.piece_at(m.from()).is_some_and(|p| p.army == Army::Red))
    );
    assert!(
        moves.iter().all(|m| m.from() != m.to()),
        "a null move would be a pass"
    );
    // Another army's piece cannot be moved, not even by its owner out of turn.
    let blue_knight = Move::new(sq("f9"), sq("e7"), MoveKind::Normal, None);
    assert!(matches!(
        game.play(seat(Army::Red), blue_knight),
        Err(GameError::IllegalMove(_))
    ));
    assert!(matches!(
        game.play(seat(Army::Blue), blue_knight),
        Err(GameError::NotYourTurn { .. })
    ));
    // One move moves one piece, and the turn passes.
    let ply = play(&mut game, "e5", "f7");
    let after = game.position();
    let changed: Vec<Square> = pos
        .board()
        .squares()
        .filter(|&s| pos.piece_at(s) != after.piece_at(s))
        .collect();
    assert_eq!(changed, [sq("e5"), sq("f7")]);
    assert_eq!(ply.army, Army::Red);
    assert_eq!(after.turn(), Army::Blue);
}

/// "Own pieces block".
#[test]
fn own_pieces_block() {
    let pos = position(
        &cross("R", &with_kings("rR f6, rP f8, rN d6, rB g7, rP e8")),
        Preset::Teams,
    );
    let rook = [
        "f1", "f2", "f3", "f4", "f5", "e6", "g6", "h6", "i6", "j6", "k6", "l6", "m6", "n6", "f7",
    ];
    assert_eq!(targets(&pos, "f6"), rook);
    // No piece may land on an own piece either.
    assert!(!has_move(&pos, "d6", "e8") && has_move(&pos, "d6", "c8"));
    assert!(!has_move(&pos, "g7", "f8") && has_move(&pos, "g7", "h8"));
}

/// "in Teams, partner pieces block too and can never be captured (except in Duo, see 7)."
#[test]
fn partner_pieces_block_and_can_never_be_captured() {
    let pos = position(
        &cross(
            "R",
            &with_kings("rR e5, yN e8, bN h5, rP i5, yB j6, gB h6, rN d6, bB c8"),
        ),
        Preset::Teams,
    );
    // The rook stops before its partner's knight and cannot take it; it takes the Blue knight.
    assert!(
        has_move(&pos, "e5", "e7") && !has_move(&pos, "e5", "e8") && !has_move(&pos, "e5", "e9")
    );
    assert!(has_move(&pos, "e5", "h5"));
    // The pawn takes Green's bishop but not Yellow's; the knight takes Blue's bishop but cannot
    // land on Yellow's knight.
    assert_eq!(targets(&pos, "i5"), ["h6", "i6"]);
    assert!(has_move(&pos, "d6", "c8") && !has_move(&pos, "d6", "e8"));
}

/// "Rook, bishop, queen slide and stop at the first occupied square".
#[test]
fn sliders_stop_at_the_first_occupied_square() {
    let pos = position(
        &cross(
            "R",
            &with_kings("rR f6, bN f9, rP f4, gN d6, rP j6, rB i9, yP k11"),
        ),
        Preset::Teams,
    );
    assert_eq!(
        targets(&pos, "f6"),
        ["f5", "d6", "e6", "g6", "h6", "i6", "f7", "f8", "f9"]
    );
    // The bishop stops in front of its partner's pawn, which it cannot take.
    let bishop = targets(&pos, "i9");
    assert!(
        bishop.contains(&"j10".to_owned())
            && !bishop.contains(&"k11".to_owned())
            && !bishop.contains(&"l12".to_owned())
    );
    let pos = position(
        &cross("R", &with_kings("rQ f6, bN f9, gN h8, yN d4, bP c9")),
        Preset::Teams,
    );
    let queen = targets(&pos, "f6");
    for reached in ["f9", "h8", "e5", "d8", "c9"] {
        assert!(
            queen.contains(&reached.to_owned()),
            "queen reaches {reached}"
        );
    }
    for beyond in ["f10", "i9", "c3", "d4", "b10"] {
        assert!(
            !queen.contains(&beyond.to_owned()),
            "queen passes through to {beyond}"
        );
    }
}

/// "they cannot enter or cross a missing square."
#[test]
fn sliders_cannot_enter_or_cross_a_missing_square() {
    // d2–c3–b4: c3 is a missing corner square, b4 a real one beyond it.
    let pos = position(&cross("R", &with_kings("rB d2")), Preset::Teams);
    assert_eq!(
        targets(&pos, "d2"),
        ["e1", "e3", "f4", "g5", "h6", "i7", "j8", "k9", "l10", "m11"]
    );
    // A queen beside the missing corner: nothing to its left or lower left, but the upper left
    // diagonal (c4, b5, a6) is real.
    let pos = position(&cross("R", &with_kings("rQ d3")), Preset::Teams);
    let queen = targets(&pos, "d3");
    assert!(
        queen.iter().all(|s| sq(s).file() >= 3 || sq(s).rank() >= 3),
        "{queen:?}"
    );
    assert!(has_move(&pos, "d3", "c4") && has_move(&pos, "d3", "a6"));
}

/// "Knights jump (2+1) and may jump over missing squares but must land on a real one."
#[test]
fn knights_jump_over_missing_and_occupied_squares_but_land_only_on_real_ones() {
    // From d2 the jumps to b1 and b3 land in the missing corner; c4 is reached across it.
    let pos = position(
        &cross("R", &with_kings("rN d2, rP d3, rP e2, rP e3")),
        Preset::Teams,
    );
    assert_eq!(targets(&pos, "d2"), ["f1", "f3", "c4", "e4"]);
    let pos = position(&cross("R", &with_kings("rN h8")), Preset::Teams);
    assert_eq!(
        targets(&pos, "h8"),
        ["g6", "i6", "f7", "j7", "f9", "j9", "g10", "i10"]
    );
}

/// "Kings step one square in any direction."
#[test]
fn kings_step_one_square_in_any_direction() {
    let pos = position(&cross("R", "rK g6, bK a7, yK g14, gK n8"), Preset::Teams);
    assert_eq!(
        targets(&pos, "g6"),
        ["f5", "g5", "h5", "f6", "h6", "f7", "g7", "h7"]
    );
}

/// "Pawns move one square forward (their army's direction) into an empty square".
#[test]
fn pawns_step_one_square_forward_only_into_an_empty_square() {
    for (turn, pawn, ahead, blocker) in [
        ("R", "rP f6", "f7", "bB f7"),
        ("B", "bP f6", "g6", "rB g6"),
        ("Y", "yP f6", "f5", "bB f5"),
        ("G", "gP f6", "e6", "rB e6"),
    ] {
        let pos = position(&cross(turn, &with_kings(pawn)), Preset::Teams);
        assert_eq!(targets(&pos, "f6"), [ahead], "{pawn}");
        let pos = position(
            &cross(turn, &with_kings(&format!("{pawn}, {blocker}"))),
            Preset::Teams,
        );
        assert!(
            targets(&pos, "f6").is_empty(),
            "{pawn} blocked by {blocker}"
        );
    }
}

/// "or two from their start square if both squares are empty".
#[test]
fn pawns_double_step_only_from_their_start_square_over_two_empty_squares() {
    for (turn, start, one, two, enemy) in [
        ("R", "h2", "h3", "h4", "b"),
        ("B", "b7", "c7", "d7", "r"),
        ("Y", "g13", "g12", "g11", "b"),
        ("G", "m8", "l8", "k8", "r"),
    ] {
        let pawn = format!("{}P {start}", turn.to_lowercase());
        let pos = position(&cross(turn, &with_kings(&pawn)), Preset::Teams);
        let mut both = vec![one.to_owned(), two.to_owned()];
        both.sort_by_key(|s| sq(s));
        assert_eq!(targets(&pos, start), both, "{pawn}");
        assert!(mv(&pos, start, two).is_double_step());
        // The second square taken: one step only. The first taken: no step at all.
        let pos = position(
            &cross(turn, &with_kings(&format!("{pawn}, {enemy}B {two}"))),
            Preset::Teams,
        );
        assert_eq!(targets(&pos, start), [one], "{pawn}, {two} taken");
        let pos = position(
            &cross(turn, &with_kings(&format!("{pawn}, {enemy}B {one}"))),
            Preset::Teams,
        );
        assert!(targets(&pos, start).is_empty(), "{pawn}, {one} taken");
        // One square past the start square: one step only.
        let pawn = format!("{}P {one}", turn.to_lowercase());
        let pos = position(&cross(turn, &with_kings(&pawn)), Preset::Teams);
        assert_eq!(targets(&pos, one), [two], "{pawn}");
    }
}

/// "they capture one square diagonally forward; never straight ahead, never backwards, never
/// sideways."
#[test]
fn pawns_capture_only_diagonally_forward_never_ahead_backwards_or_sideways() {
    let ring = ["e5", "f5", "g5", "e6", "g6", "e7", "f7", "g7"];
    for (turn, enemy, mut captures) in [
        ("R", "b", ["e7", "g7"]),
        ("B", "r", ["g5", "g7"]),
        ("Y", "b", ["e5", "g5"]),
        ("G", "r", ["e5", "e7"]),
    ] {
        let ring: Vec<String> = ring.iter().map(|s| format!("{enemy}N {s}")).collect();
        let pieces = format!("{}P f6, {}", turn.to_lowercase(), ring.join(", "));
        let pos = position(&cross(turn, &with_kings(&pieces)), Preset::Teams);
        captures.sort_by_key(|s| sq(s));
        assert_eq!(
            targets(&pos, "f6"),
            captures,
            "{turn} pawn on f6 surrounded by {enemy} knights"
        );
    }
}

/// "A pawn that captured onto another file keeps its army's direction."
#[test]
fn a_pawn_that_captured_onto_another_file_keeps_its_armys_direction() {
    let setup = cross(
        "R",
        &with_kings("rP e5, bN f6, bP e9, yN f10, yP j9, gN i8, gP j5, rN i4"),
    );
    let mut game = game_from(&setup, Preset::Teams);
    play_line(&mut game, "e5-f6 e9-f10 j9-i8 j5-i4");
    for (pawn, forward) in [("f6", "f7"), ("f10", "g10"), ("i8", "i7"), ("i4", "h4")] {
        assert_eq!(targets(game.position(), pawn), [forward], "pawn on {pawn}");
        play(&mut game, pawn, forward);
    }
}

/// "Promotion: a pawn that lands on its promotion line (see presets) becomes, at once and on the
/// same move, a piece of its own army from the preset's promotion set."
#[test]
fn a_pawn_landing_on_its_promotion_line_becomes_a_piece_at_once_on_the_same_move() {
    let setup = cross("R", "rK h1, rP c10, bK a11, yK g14, gK n8");
    let mut game = game_from(&setup, Preset::Teams);
    let to_line: Vec<_> = game
        .legal_moves()
        .into_iter()
        .filter(|m| m.from() == sq("c10"))
        .collect();
    assert_eq!(
        to_line.len(),
        4,
        "one move per role of the promotion set: {}",
        list(&to_line)
    );
    assert!(
        to_line
            .iter()
            .all(|m| m.to() == sq("c11") && m.promotion().is_some()),
        "the pawn cannot stay a pawn"
    );
    let ply = play_promotion(&mut game, "c10", "c11", Role::Rook);
    // A rook like any other: that it was promoted matters only where it scores, in
    // free-for-all (the next test), so Teams keeps no mark of it (FEN4 for 4PC tools has none).
    assert_eq!(
        piece_on(game.position(), "c11"),
        Some(Piece::new(Army::Red, Role::Rook))
    );
    // The new rook works at once: Blue's king on a11 is in check and Blue, next, must answer it.
    assert!(ply.checks.contains(Army::Blue));
    assert!(game.position().is_check(Army::Blue));
    assert!(game.legal_moves().iter().all(|m| m.from() == sq("a11")));
}

/// "A promoted piece remembers that it was promoted (it scores 1 in free-for-all)."
#[test]
fn a_promoted_piece_remembers_it_was_promoted_and_scores_1_in_free_for_all() {
    let setup = cross("R", "rK h1, rP e7, bK a7, bR a9, yK g14, gK n8, gP m8");
    let mut game = game_from(&setup, Preset::Ffa);
    play_promotion(&mut game, "e7", "e8", Role::Queen);
    play_line(&mut game, "a7-a6 g14-f13 n8-n7 e8-e9");
    let queen = piece_on(game.position(), "e9").unwrap();
    assert_eq!(
        (queen.army, queen.role, queen.promoted),
        (Army::Red, Role::Queen, true)
    );
    let ply = play(&mut game, "a9", "e9");
    assert_eq!(ply.captured, Some(queen));
    assert_eq!(
        ply.consequences,
        [Consequence::Scored {
            army: Army::Blue,
            points: 1,
            reason: ScoreReason::Capture(queen)
        }]
    );
    assert_eq!(game.points()[Army::Blue], 1);
}

/// The four castles of one army: the king's from and to squares, the rook's from and to squares.
fn castles(army: Army) -> [(CastleSide, [&'static str; 4]); 2] {
    match army {
        Army::Red => [
            (CastleSide::King, ["h1", "j1", "k1", "i1"]),
            (CastleSide::Queen, ["h1", "f1", "d1", "g1"]),
        ],
        Army::Blue => [
            (CastleSide::King, ["a7", "a5", "a4", "a6"]),
            (CastleSide::Queen, ["a7", "a9", "a11", "a8"]),
        ],
        Army::Yellow => [
            (CastleSide::King, ["g14", "e14", "d14", "f14"]),
            (CastleSide::Queen, ["g14", "i14", "k14", "h14"]),
        ],
        Army::Green => [
            (CastleSide::King, ["n8", "n10", "n11", "n9"]),
            (CastleSide::Queen, ["n8", "n6", "n4", "n7"]),
        ],
    }
}

/// Every king on its start square, and `army`'s two rooks on theirs, with both castling rights.
fn castling_setup(army: Army) -> Setup {
    let [(_, [_, _, rook_a, _]), (_, [_, _, rook_b, _])] = castles(army);
    let l = army.letter();
    cross(
        &army.upper_letter().to_string(),
        &with_kings(&format!("{l}R {rook_a}, {l}R {rook_b}")),
    )
    .castling_both(army)
}

/// "the king moves two squares toward the rook and the rook jumps to the square the king crossed."
#[test]
fn castling_moves_the_king_two_squares_and_the_rook_onto_the_square_it_crossed() {
    for (side, [king_from, king_to, rook_from, rook_to]) in castles(Army::Red) {
        let mut pos = position(&castling_setup(Army::Red), Preset::Teams);
        let castle = mv(&pos, king_from, king_to);
        assert_eq!(castle.kind(), MoveKind::Castle(side));
        pos.play(castle).unwrap();
        assert_eq!(
            piece_on(&pos, king_to),
            Some(Piece::new(Army::Red, Role::King))
        );
        assert_eq!(
            piece_on(&pos, rook_to),
            Some(Piece::new(Army::Red, Role::Rook))
        );
        assert_eq!(
            (piece_on(&pos, king_from), piece_on(&pos, rook_from)),
            (None, None)
        );
        // The rook landed on the square between the king's two squares.
        let crossed = Square::new((sq(king_from).file() + sq(king_to).file()) / 2, 0).unwrap();
        assert_eq!(crossed, sq(rook_to));
    }
}

/// "On the cross board each army can castle on both sides along its own back rank."
#[test]
fn each_army_can_castle_on_both_sides_along_its_own_back_rank() {
    for army in Army::ALL {
        for (side, [king_from, king_to, rook_from, rook_to]) in castles(army) {
            let mut pos = position(&castling_setup(army), Preset::Teams);
            let castle = mv(&pos, king_from, king_to);
            assert_eq!(castle.kind(), MoveKind::Castle(side), "{army} {side:?}");
            pos.play(castle).unwrap();
            assert_eq!(
                piece_on(&pos, king_to),
                Some(Piece::new(army, Role::King)),
                "{army} {side:?}"
            );
            assert_eq!(
                piece_on(&pos, rook_to),
                Some(Piece::new(army, Role::Rook)),
                "{army} {side:?}"
            );
            assert_eq!(piece_on(&pos, rook_from), None, "{army} {side:?}");
            assert!(
                !pos.can_castle(army, CastleSide::King) && !pos.can_castle(army, CastleSide::Queen)
            );
        }
    }
}

/// "Castling (where on): king and rook unmoved, ..."
#[test]
fn castling_needs_a_king_and_rook_that_have_never_moved() {
    // The king goes out and comes back: no castling on either side.
    let mut game = game_from(&castling_setup(Army::Red), Preset::Teams);
    play_line(
        &mut game,
        "h1-h2 a7-a6 g14-g13 n8-n7 h2-h1 a6-a7 g13-g14 n7-n8",
    );
    let pos = game.position();
    assert!(!has_move(pos, "h1", "j1") && !has_move(pos, "h1", "f1"));
    // The king-side rook goes out and comes back: only the queen side is left.
    let mut game = game_from(&castling_setup(Army::Red), Preset::Teams);
    play_line(
        &mut game,
        "k1-k2 a7-a6 g14-g13 n8-n7 k2-k1 a6-a7 g13-g14 n7-n8",
    );
    let pos = game.position();
    assert!(!has_move(pos, "h1", "j1"));
    assert_eq!(
        mv(pos, "h1", "f1").kind(),
        MoveKind::Castle(CastleSide::Queen)
    );
}

/// "squares between them empty".
#[test]
fn castling_needs_every_square_between_king_and_rook_empty() {
    // A knight on e1 is not on the king's path, but it stands between king and rook.
    let mut setup = castling_setup(Army::Red);
    setup
        .pieces
        .push((sq("e1"), Piece::new(Army::Red, Role::Knight)));
    let pos = position(&setup, Preset::Teams);
    assert!(!has_move(&pos, "h1", "f1"));
    assert_eq!(
        mv(&pos, "h1", "j1").kind(),
        MoveKind::Castle(CastleSide::King)
    );
}

/// "the king not attacked".
#[test]
fn castling_is_illegal_while_the_king_is_attacked() {
    let mut setup = castling_setup(Army::Red);
    setup
        .pieces
        .push((sq("h6"), Piece::new(Army::Blue, Role::Rook)));
    let pos = position(&setup, Preset::Teams);
    assert!(pos.is_check(Army::Red));
    assert!(!has_move(&pos, "h1", "j1") && !has_move(&pos, "h1", "f1"));
}

/// "neither the square it crosses nor the one it lands on attacked".
#[test]
fn castling_is_illegal_across_or_onto_an_attacked_square() {
    // g1 is crossed on the queen side; j1 is landed on on the king side.
    for (attacker, side_lost, side_kept, kept_to) in [
        ("g6", "f1", CastleSide::King, "j1"),
        ("j6", "j1", CastleSide::Queen, "f1"),
        ("i6", "j1", CastleSide::Queen, "f1"),
    ] {
        let mut setup = castling_setup(Army::Red);
        setup
            .pieces
            .push((sq(attacker), Piece::new(Army::Green, Role::Rook)));
        let pos = position(&setup, Preset::Teams);
        assert!(!has_move(&pos, "h1", side_lost), "Green rook on {attacker}");
        assert_eq!(
            mv(&pos, "h1", kept_to).kind(),
            MoveKind::Castle(side_kept),
            "Green rook on {attacker}"
        );
    }
    // Only the king's squares count: the rook may pass over an attacked square (e1).
    let mut setup = castling_setup(Army::Red);
    setup
        .pieces
        .push((sq("e6"), Piece::new(Army::Green, Role::Rook)));
    let pos = position(&setup, Preset::Teams);
    assert_eq!(
        mv(&pos, "h1", "f1").kind(),
        MoveKind::Castle(CastleSide::Queen)
    );
}

/// Blue's pawn b7 may double-step to d7 over c7, where Yellow's pawn on d8 and Red's pawn on d6
/// could capture it.
fn en_passant_setup() -> Setup {
    cross("B", &with_kings("bP b7, yP d8, rP d6, gN e6, bN b9"))
}

/// "En passant (where on): a pawn that has just advanced two squares may be captured by an enemy
/// pawn that could have captured it on the square it passed over, exactly as in chess."
#[test]
fn en_passant_takes_a_pawn_that_just_double_stepped_on_the_square_it_passed_over() {
    let mut game = game_from(&en_passant_setup(), Preset::Teams);
    play(&mut game, "b7", "d7");
    let capture = mv(game.position(), "d8", "c7");
    assert_eq!(capture.kind(), MoveKind::EnPassant);
    let ply = play_move(&mut game, capture);
    assert_eq!(ply.captured, Some(Piece::new(Army::Blue, Role::Pawn)));
    assert_eq!(
        piece_on(game.position(), "c7"),
        Some(Piece::new(Army::Yellow, Role::Pawn))
    );
    assert_eq!(piece_on(game.position(), "d7"), None);
    // The same right, written into a setup, allows the same capture.
    let setup = cross("Y", &with_kings("bP d7, yP d8")).en_passant(Army::Blue, "c7", "d7");
    let pos = position(&setup, Preset::Teams);
    assert_eq!(mv(&pos, "d8", "c7").kind(), MoveKind::EnPassant);
    // A single step opens no such right.
    let mut game = game_from(&cross("B", &with_kings("bP c7, yP d8")), Preset::Teams);
    play(&mut game, "c7", "d7");
    assert!(!has_move(game.position(), "d8", "c7") && !has_move(game.position(), "d8", "e7"));
}

/// "On the cross board the right belongs to the enemies who move before that pawn's owner moves
/// again".
#[test]
fn en_passant_right_belongs_to_every_enemy_who_moves_before_the_owner_again() {
    let mut game = game_from(&en_passant_setup(), Preset::Teams);
    // Yellow, the first enemy, lets it go; Green (Blue's partner) moves; Red still may take.
    play_line(&mut game, "b7-d7 g14-f14 n8-n9");
    assert_eq!(game.position().turn(), Army::Red);
    let capture = mv(game.position(), "d6", "c7");
    assert_eq!(capture.kind(), MoveKind::EnPassant);
    play_move(&mut game, capture);
    assert_eq!(piece_on(game.position(), "d7"), None);
}

/// "and lapses for each of them once they have moved".
#[test]
fn en_passant_right_lapses_for_an_enemy_once_it_has_moved() {
    // Teams: everyone has moved and the owner moves again: nobody may take any more.
    let mut game = game_from(&en_passant_setup(), Preset::Teams);
    play_line(&mut game, "b7-d7 g14-f14 n8-n9 h1-g1 b9-c11");
    assert_eq!(game.position().turn(), Army::Yellow);
    assert!(!has_move(game.position(), "d8", "c7"));
    // Free-for-all: Blue double-steps, the other three move, and Blue resigns instead of moving
    // again. Yellow, to move once more, has moved since the double step: its right has lapsed.
    let mut game = game_from(&en_passant_setup(), Preset::Ffa);
    play_line(&mut game, "b7-d7 g14-f14 n8-n9 h1-g1");
    game.resign(seat(Army::Blue)).unwrap();
    assert_eq!(game.position().turn(), Army::Yellow);
    assert!(!has_move(game.position(), "d8", "c7"));
}

/// "the square passed over must still be empty."
#[test]
fn en_passant_needs_the_square_passed_over_still_empty() {
    let mut game = game_from(&en_passant_setup(), Preset::Teams);
    // Green's knight lands on c7, the square Blue's pawn passed over.
    play_line(&mut game, "b7-d7 g14-f14 e6-c7");
    assert!(
        game.position().en_passant(Army::Blue).is_none(),
        "a piece on the square passed over ends the right"
    );
    let moves = game.legal_moves();
    assert!(
        moves.iter().all(|m| m.kind() != MoveKind::EnPassant),
        "{}",
        list(&moves)
    );
    // Red may take the knight, an ordinary capture that leaves Blue's pawn where it is.
    let ply = play(&mut game, "d6", "c7");
    assert_eq!(ply.captured, Some(Piece::new(Army::Green, Role::Knight)));
    assert_eq!(
        piece_on(game.position(), "d7"),
        Some(Piece::new(Army::Blue, Role::Pawn))
    );
}

/// "Kings are never captured, except where a preset allows *king capture* (section 5)."
#[test]
fn kings_are_never_captured_unless_the_preset_allows_king_capture() {
    // Red's bishop shields its partner's king from Blue's rook; Red may move it away (Red answers
    // only for its own king), leaving Yellow's king attacked on Blue's turn.
    let setup = cross("R", &with_kings("rB g11, bR g8"));
    for (preset, capture_allowed) in [(Preset::TeamsHouse, false), (Preset::Teams, true)] {
        let mut game = game_from(&setup, preset);
        play(&mut game, "g11", "f10");
        assert!(game.position().is_check(Army::Yellow));
        assert_eq!(
            has_move(game.position(), "g8", "g14"),
            capture_allowed,
            "{preset}"
        );
    }
}
