//! Text formats: FEN4 and PGN4 for the cross board, FEN, SAN and PGN for Duo, and move text.

mod coordinate;
mod fen;
mod fen4;
mod lan;
mod move_error;
mod pgn;
mod pgn4;
mod pgn_text;
mod rule_variants;
mod san;
mod termination;
mod text;

pub use coordinate::{
    Coordinate, CoordinateError, MAX_COORDINATE_LEN, coordinate_bytes, parse_coordinate,
    write_coordinate,
};
pub use fen::{Fen, ParseFenError, START_FEN};
pub use fen4::{Fen4, ParseFen4Error, RowProblem, START_FEN4, parse_fen4, write_fen4};
pub use lan::{MoveSuffix, parse_move, write_move};
pub use move_error::ParseMoveError;
pub use pgn::{ParsePgnError, Pgn, read_pgn, write_pgn, write_pgn_upto};
pub use pgn_text::PgnSyntaxError;
pub use pgn4::{MoveHint, ParsePgn4Error, Pgn4, read_pgn4, write_pgn4, write_pgn4_upto};
pub use san::{parse_san, write_san};
pub use termination::termination_text;
pub(crate) use text::MoveText;
