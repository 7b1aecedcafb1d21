//! FEN4 positions from another tool's tests, read as that tool reads them: obryanlouis/4pchess
//! (commit a3c7b61) sets up test positions whose castling flags say 1 where the king or the rook
//! is no longer at home. "A FEN4 whose castling rights can no longer apply ... is read with those
//! rights dropped"; the PGN4 that starts from it reads too.

use fourkings_engine::notation::{parse_fen4, read_pgn4};
use fourkings_engine::{Army, CastleSide, Position, Preset, Setup};

/// A castling right: the army and the side.
type Right = (Army, CastleSide);

/// (position, where it comes from, the rights that can no longer apply).
const POSITIONS: [(&str, &str, &[Right]); 4] = [
    (
        "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,yN,yB,yK,yQ,yB,yN,yR,x,x,x/x,x,x,yP,yP,yP,yP,yP,yP,yP,yP,x,x,x/x,x,x,8,x,x,x/bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/bB,bP,10,gP,gB/bN,bP,5,rK,4,gP,gN/bR,bP,10,gP,gR/x,x,x,8,x,x,x/x,x,x,rP,rP,rP,rP,rP,rP,rP,rP,x,x,x/x,x,x,rR,rN,rB,rQ,1,rB,rN,rR,x,x,x",
        "board_test.cc line ~625",
        &[
            (Army::Red, CastleSide::King),
            (Army::Red, CastleSide::Queen),
        ],
    ),
    (
        "R-0,0,0,0-1,1,1,1-1,0,1,1-0,0,0,0-2-x,x,x,yR,yN,1,yK,1,yB,yN,yR,x,x,x/x,x,x,yP,yP,yP,1,yP,yP,yP,yP,x,x,x/x,x,x,3,yP,4,x,x,x/bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,2,bP,8,gP,1/bQ,bP,9,gP,1,gK/bK,bP,bP,1,yQ,7,gP,1/bB,11,gP,gB/bN,1,bP,6,gB,2,gP,gN/3,bR,1,rP,6,gP,gR/x,x,x,4,rP,3,x,x,x/x,x,x,rP,rP,1,rP,1,rP,rP,rP,x,x,x/x,x,x,rR,1,rB,rQ,rK,1,rN,rR,x,x,x",
        "board_test.cc line ~1563",
        &[(Army::Blue, CastleSide::King)],
    ),
    (
        "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,yR,yN,yB,yK,yQ,yB,yN,yR,x,x,x/x,x,x,yP,yP,yP,1,yP,yP,yP,yP,x,x,x/x,x,x,3,yP,4,x,x,x/bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,2,rN,7,gP,gB/bQ,bP,9,gP,1,gK/bK,1,bP,4,rR,4,gP,gQ/bB,bP,10,gP,gB/bN,bP,10,gP,gN/bR,bP,10,gP,gR/x,x,x,1,rB,2,rP,3,x,x,x/x,x,x,rP,rP,rP,rP,1,rP,rP,rP,x,x,x/x,x,x,2,rB,rQ,rK,1,rN,rR,x,x,x",
        "board_test.cc line ~1650",
        &[(Army::Red, CastleSide::Queen)],
    ),
    (
        "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-x,x,x,bK,7,x,x,x/x,x,x,7,rQ,x,x,x/x,x,x,2,yK,5,x,x,x/14/14/14/13,gK/14/14/14/14/x,x,x,8,x,x,x/x,x,x,8,x,x,x/x,x,x,4,rK,3,x,x,x",
        "player_test.cc line ~47",
        &[
            (Army::Red, CastleSide::King),
            (Army::Red, CastleSide::Queen),
            (Army::Blue, CastleSide::King),
            (Army::Blue, CastleSide::Queen),
            (Army::Yellow, CastleSide::King),
            (Army::Yellow, CastleSide::Queen),
            (Army::Green, CastleSide::King),
            (Army::Green, CastleSide::Queen),
        ],
    ),
];

#[test]
fn castling_rights_that_cannot_apply_are_dropped_on_reading() {
    for (fen, source, lost) in POSITIONS {
        let setup = parse_fen4(fen).unwrap_or_else(|e| panic!("{source}: {e}"));
        // The rights read are those of the flags but the lost ones.
        let mut flagged = Setup {
            castling: fourkings_engine::ByArmy([[true; 2]; 4]),
            ..setup.clone()
        };
        let header_flags = |i: usize| {
            fen.split('-')
                .nth(i)
                .unwrap()
                .split(',')
                .map(|f| f == "1")
                .collect::<Vec<_>>()
        };
        let (king_side, queen_side) = (header_flags(2), header_flags(3));
        for army in Army::ALL {
            flagged.castling[army] = [king_side[army.index()], queen_side[army.index()]];
        }
        let dropped = flagged.drop_lost_castling_rights();
        assert_eq!(dropped, lost, "{source}");
        assert_eq!(flagged.castling, setup.castling, "{source}");
        Position::from_setup(&setup, &Preset::Teams.rules())
            .unwrap_or_else(|e| panic!("{source}: {e}"));
        let pgn = format!("[Variant \"Teams\"]\n[StartFen4 \"{fen}\"]\n\n");
        let read = read_pgn4(&pgn).unwrap_or_else(|e| panic!("{source}: {e}"));
        assert!(!read.game.legal_moves().is_empty(), "{source}");
    }
}
