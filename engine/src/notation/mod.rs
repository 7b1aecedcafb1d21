//! Text formats: FEN4 and PGN4 for the cross board, FEN, SAN and PGN for Duo, and move text.

mod fen;

pub use fen::{Fen, ParseFenError, START_FEN};
