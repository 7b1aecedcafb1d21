//! RULES.md section 1, "Boards and coordinates": one test per sentence that says what happens.

mod support;

use fourkings_engine::{Army, BoardKind, Piece, PositionError, Preset, Role, Square};
use support::*;

/// "Cross board (every system except Duo): a 14×14 grid with the four 3×3 corners removed: 160
/// squares."
#[test]
fn cross_board_is_a_14x14_grid_without_its_3x3_corners_160_squares() {
    for preset in Preset::ALL {
        let expected = if preset == Preset::Duo {
            BoardKind::Classic
        } else {
            BoardKind::Cross
        };
        assert_eq!(preset.rules().board(), expected, "{preset}");
    }
    assert_eq!(BoardKind::Cross.size(), 14);
    assert_eq!(BoardKind::Cross.squares().count(), 160);
    assert_eq!(BoardKind::Cross.square_count(), 160);
    // 196 grid cells minus four corners of nine.
    let grid = (0..14).flat_map(|f| (0..14).map(move |r| Square::new(f, r).unwrap()));
    assert_eq!(
        grid.filter(|&s| !BoardKind::Cross.contains(s)).count(),
        4 * 9
    );
}

/// "Files `a`…`n` run left to right and ranks `1`…`14` bottom to top, seen from Red's side."
#[test]
fn files_a_to_n_run_left_to_right_and_ranks_1_to_14_upward_from_red() {
    assert_eq!((sq("a4").file(), sq("a4").rank()), (0, 3));
    assert_eq!((sq("n11").file(), sq("n11").rank()), (13, 10));
    assert_eq!(Square::new(7, 0), Some(sq("h1")));
    // Red sits at the bottom: its king is on rank 1 and its pawns go up the ranks.
    let pos = position(
        &cross("R", "rK h1, rP e2, bK a7, yK g14, gK n8"),
        Preset::Teams,
    );
    assert_eq!(
        piece_on(&pos, "h1"),
        Some(Piece::new(Army::Red, Role::King))
    );
    assert_eq!(targets(&pos, "e2"), ["e3", "e4"]);
    // Left to right from Red's side: Blue (left) sits on file a, Green (right) on file n.
    let start = BoardKind::Cross.start_pieces();
    assert!(
        start
            .iter()
            .all(|(s, p)| p.army != Army::Blue || s.file() <= 1)
    );
    assert!(
        start
            .iter()
            .all(|(s, p)| p.army != Army::Green || s.file() >= 12)
    );
}

/// "Squares on files a–c or l–n with rank 1–3 or 12–14 do not exist."
#[test]
fn corner_squares_do_not_exist_and_hold_no_piece() {
    for f in 0..14u8 {
        for r in 0..14u8 {
            let s = Square::new(f, r).unwrap();
            let corner = (f <= 2 || f >= 11) && (r <= 2 || r >= 11);
            assert_eq!(BoardKind::Cross.contains(s), !corner, "{s}");
        }
    }
    for corner in ["c3", "a1", "l12", "n14", "c14", "l1"] {
        let setup = cross("R", &format!("rK h1, bK a7, yK g14, gK n8, rN {corner}"));
        let err =
            fourkings_engine::Position::from_setup(&setup, &Preset::Teams.rules()).unwrap_err();
        assert_eq!(err, PositionError::NotASquare(sq(corner)));
    }
}

/// "A square is written `h2`, `a11`, `n14` (the common 4PC notation, so that files from other 4PC
/// tools can be read)."
#[test]
fn squares_are_written_file_letter_then_rank_number() {
    for (name, file, rank) in [("h2", 7, 1), ("a11", 0, 10), ("n14", 13, 13), ("d1", 3, 0)] {
        let s = sq(name);
        assert_eq!((s.file(), s.rank()), (file, rank));
        assert_eq!(s.to_string(), name);
    }
    for bad in ["h0", "o5", "a15", "h02", "H2", "2h", ""] {
        assert!(bad.parse::<Square>().is_err(), "{bad:?} parsed");
    }
}

/// "The central 8×8 is files d–k, ranks 4–11."
#[test]
fn central_8x8_is_files_d_to_k_and_ranks_4_to_11() {
    // The cross is a vertical bar (files d–k) and a horizontal bar (ranks 4–11); the central
    // 8×8 is where they overlap.
    let in_vertical = |s: Square| (3..=10).contains(&s.file());
    let in_horizontal = |s: Square| (3..=10).contains(&s.rank());
    let squares: Vec<Square> = BoardKind::Cross.squares().collect();
    assert!(squares.iter().all(|&s| in_vertical(s) || in_horizontal(s)));
    let centre: Vec<Square> = squares
        .iter()
        .copied()
        .filter(|&s| in_vertical(s) && in_horizontal(s))
        .collect();
    assert_eq!(centre.len(), 64);
    assert_eq!(
        centre.first().map(ToString::to_string).as_deref(),
        Some("d4")
    );
    assert_eq!(
        centre.last().map(ToString::to_string).as_deref(),
        Some("k11")
    );
}

/// "Classic board (Duo): the ordinary 8×8 board, files a–h, ranks 1–8, White at the bottom."
#[test]
fn classic_board_is_8x8_files_a_to_h_ranks_1_to_8_with_white_at_the_bottom() {
    assert_eq!(BoardKind::Classic.squares().count(), 64);
    assert!(BoardKind::Classic.contains(sq("a1")) && BoardKind::Classic.contains(sq("h8")));
    assert!(!BoardKind::Classic.contains(sq("i1")) && !BoardKind::Classic.contains(sq("a9")));
    let err = fourkings_engine::Position::from_setup(
        &classic("w", "wK e1, bK e8, wN i4"),
        &Preset::Duo.rules(),
    )
    .unwrap_err();
    assert_eq!(err, PositionError::NotASquare(sq("i4")));
    // White at the bottom: its king starts on e1 and its pawns move up the ranks.
    let start = BoardKind::Classic.start_pieces();
    assert!(start.contains(&(sq("e1"), Piece::new(Army::WHITE, Role::King))));
    assert!(start.contains(&(sq("e8"), Piece::new(Army::BLACK, Role::King))));
    let pos = position(&classic("w", "wK e1, bK e8, wP d2"), Preset::Duo);
    assert_eq!(targets(&pos, "d2"), ["d3", "d4"]);
}
