//! RULES.md section 2, "Armies, seats, partners, turn order (cross board)": the army table row by
//! row, the kings facing the opposite queens, the turn order and the partnerships.

mod support;

use fourkings_engine::{Army, BoardKind, Game, Piece, Preset, Role, RuleSet, Seat, Team};
use support::*;

const KINGS: &str = "rK h1, bK a7, yK g14, gK n8";

/// "| Red | bottom | d1 R, e1 N, f1 B, g1 Q, h1 K, i1 B, j1 N, k1 R | ..." and the rows of Blue,
/// Yellow and Green: each army's back rank, from its own left to right.
#[test]
fn back_ranks_from_each_armys_own_left_to_right_match_the_table() {
    use Role::*;
    let table: [(Army, [&str; 8]); 4] = [
        (Army::Red, ["d1", "e1", "f1", "g1", "h1", "i1", "j1", "k1"]),
        (
            Army::Blue,
            ["a11", "a10", "a9", "a8", "a7", "a6", "a5", "a4"],
        ),
        (
            Army::Yellow,
            ["k14", "j14", "i14", "h14", "g14", "f14", "e14", "d14"],
        ),
        (
            Army::Green,
            ["n4", "n5", "n6", "n7", "n8", "n9", "n10", "n11"],
        ),
    ];
    let order = [Rook, Knight, Bishop, Queen, King, Bishop, Knight, Rook];
    let game = Game::new(Preset::Teams.rules()).unwrap();
    let pos = game.position();
    for (army, squares) in table {
        for (name, role) in squares.iter().zip(order) {
            assert_eq!(
                piece_on(pos, name),
                Some(Piece::new(army, role)),
                "{army} {name}"
            );
        }
    }
}

/// "| Red | ... | pawns d2–k2 |", "Blue ... b4–b11", "Yellow ... d13–k13", "Green ... m4–m11".
#[test]
fn pawns_start_on_the_rank_in_front_of_the_back_rank() {
    let game = Game::new(Preset::Teams.rules()).unwrap();
    let pos = game.position();
    let files = ["d", "e", "f", "g", "h", "i", "j", "k"];
    for (i, file) in files.iter().enumerate() {
        let rank = i + 4;
        assert_eq!(
            piece_on(pos, &format!("{file}2")),
            Some(Piece::new(Army::Red, Role::Pawn))
        );
        assert_eq!(
            piece_on(pos, &format!("b{rank}")),
            Some(Piece::new(Army::Blue, Role::Pawn))
        );
        assert_eq!(
            piece_on(pos, &format!("{file}13")),
            Some(Piece::new(Army::Yellow, Role::Pawn))
        );
        assert_eq!(
            piece_on(pos, &format!("m{rank}")),
            Some(Piece::new(Army::Green, Role::Pawn))
        );
    }
    assert_eq!(
        pos.pieces().filter(|(_, p)| p.role == Role::Pawn).count(),
        32
    );
}

/// "pawn moves: Red up (+rank), Blue right (+file), Yellow down (−rank), Green left (−file)".
#[test]
fn pawns_move_in_their_armys_direction() {
    for (turn, pawn, forward) in [
        ("R", "rP f6", "f7"),
        ("B", "bP f6", "g6"),
        ("Y", "yP f6", "f5"),
        ("G", "gP f6", "e6"),
    ] {
        let pos = position(&cross(turn, &format!("{KINGS}, {pawn}")), Preset::Teams);
        assert_eq!(targets(&pos, "f6"), [forward], "{pawn}");
    }
    // From the start position every army's pawns step (or double-step) the same way.
    let game = Game::new(Preset::Teams.rules()).unwrap();
    let mut pos = game.position().clone();
    for (from, to, step) in [
        ("h2", ["h3", "h4"], "h3"),
        ("b7", ["c7", "d7"], "c7"),
        ("g13", ["g11", "g12"], "g12"),
        ("m8", ["k8", "l8"], "l8"),
    ] {
        assert_eq!(targets(&pos, from), to, "{from}");
        pos.play_unchecked(mv(&pos, from, step));
    }
}

/// "promotion line (own 11th rank): Red rank 11, Blue file k, Yellow rank 4, Green file d".
#[test]
fn promotion_line_is_each_armys_own_11th_rank() {
    use Role::*;
    for (turn, pawn, before, line) in [
        ("R", "rP h10", "h10", "h11"),
        ("B", "bP j7", "j7", "k7"),
        ("Y", "yP h5", "h5", "h4"),
        ("G", "gP e9", "e9", "d9"),
    ] {
        let pos = position(&cross(turn, &format!("{KINGS}, {pawn}")), Preset::Teams);
        assert_eq!(
            promotions(&pos, before, line),
            [Queen, Rook, Bishop, Knight],
            "{pawn}"
        );
    }
    // One square earlier (the own 10th rank) a pawn step is not a promotion.
    for (turn, pawn, before, next) in [
        ("R", "rP h9", "h9", "h10"),
        ("B", "bP i7", "i7", "j7"),
        ("Y", "yP h6", "h6", "h5"),
        ("G", "gP f9", "f9", "e9"),
    ] {
        let pos = position(&cross(turn, &format!("{KINGS}, {pawn}")), Preset::Teams);
        assert_eq!(mv(&pos, before, next).promotion(), None, "{pawn}");
    }
}

/// "own 8th rank: Red rank 8, Blue file h, Yellow rank 7, Green file g" (the free-for-all
/// promotion line).
#[test]
fn own_8th_rank_is_rank_8_file_h_rank_7_file_g() {
    for (turn, pawn, before, line) in [
        ("R", "rP e7", "e7", "e8"),
        ("B", "bP g5", "g5", "h5"),
        ("Y", "yP j8", "j8", "j7"),
        ("G", "gP h10", "h10", "g10"),
    ] {
        let pos = position(&cross(turn, &format!("{KINGS}, {pawn}")), Preset::Ffa);
        assert_eq!(promotions(&pos, before, line), [Role::Queen], "{pawn}");
    }
}

/// "Each king faces the queen of the army opposite (h1 K ↔ h14 Q, a7 K ↔ n7 Q)."
#[test]
fn each_king_faces_the_queen_of_the_army_opposite() {
    let game = Game::new(Preset::Teams.rules()).unwrap();
    let pos = game.position();
    for (king, queen) in [("h1", "h14"), ("a7", "n7"), ("g14", "g1"), ("n8", "a8")] {
        let k = piece_on(pos, king).unwrap();
        let q = piece_on(pos, queen).unwrap();
        assert_eq!(k.role, Role::King);
        assert_eq!(q.role, Role::Queen);
        assert_eq!(q.army, k.army.opposite(), "{king} faces {queen}");
    }
}

/// "Turn order is Red → Blue → Yellow → Green → Red… (one trip is a *round*)."
#[test]
fn turn_order_is_red_blue_yellow_green_then_red_again() {
    let mut game = Game::new(Preset::Teams.rules()).unwrap();
    let mut order = Vec::new();
    for (from, to) in [
        ("h2", "h3"),
        ("b7", "c7"),
        ("g13", "g12"),
        ("m8", "l8"),
        ("e2", "e3"),
    ] {
        let seat = game.to_move().unwrap();
        order.push(game.army_of(seat));
        play(&mut game, from, to);
    }
    order.push(game.position().turn());
    assert_eq!(
        order,
        [
            Army::Red,
            Army::Blue,
            Army::Yellow,
            Army::Green,
            Army::Red,
            Army::Blue
        ]
    );
}

/// "Partners sit opposite: Red+Yellow against Blue+Green, so the two teams alternate."
#[test]
fn partners_sit_opposite_and_the_two_teams_alternate() {
    let pos = position(&cross("R", KINGS), Preset::Teams);
    assert!(pos.are_partners(Army::Red, Army::Yellow) && pos.are_partners(Army::Blue, Army::Green));
    assert!(!pos.are_partners(Army::Red, Army::Blue) && !pos.are_partners(Army::Red, Army::Green));
    assert!(
        !pos.are_partners(Army::Yellow, Army::Blue) && !pos.are_partners(Army::Yellow, Army::Green)
    );
    assert_eq!(Seat::of_army(Army::Red).team(), Team::RedYellow);
    assert_eq!(Seat::of_army(Army::Yellow).team(), Team::RedYellow);
    assert_eq!(Seat::of_army(Army::Blue).team(), Team::BlueGreen);
    assert_eq!(Seat::of_army(Army::Green).team(), Team::BlueGreen);
    // In turn order the teams alternate.
    let teams: Vec<Team> = Army::ALL.iter().map(|&a| Seat::of_army(a).team()).collect();
    assert!(teams.windows(2).all(|w| w[0] != w[1]));
    assert_ne!(teams[3], teams[0]);
}

/// "Some sources name the colours differently (Yellow, Green, Red, Blue, with Yellow moving first
/// and Yellow+Red partners); that is the same game under other names, and display names and the
/// first seat are room settings, not engine rules."
#[test]
fn the_first_seat_is_a_setting_and_the_order_goes_on_clockwise_from_it() {
    let rules = RuleSet {
        first: Army::Yellow,
        ..Preset::Teams.rules()
    };
    let mut game = Game::new(rules).unwrap();
    assert_eq!(game.to_move(), Some(seat(Army::Yellow)));
    let mut order = Vec::new();
    for (from, to) in [("g13", "g12"), ("m8", "l8"), ("h2", "h3"), ("b7", "c7")] {
        order.push(game.position().turn());
        play(&mut game, from, to);
    }
    assert_eq!(order, [Army::Yellow, Army::Green, Army::Red, Army::Blue]);
    assert_eq!(game.position().turn(), Army::Yellow);
    // The board is the same whoever starts.
    assert_eq!(
        BoardKind::Cross.start_pieces().len(),
        game.start().pieces.len()
    );
}
