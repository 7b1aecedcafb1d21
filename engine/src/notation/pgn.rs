//! PGN for Duo: a whole game on the classic board in standard algebraic notation.
//!
//! Duo is chess played by two teams of two who share an army, with friendly capture; its PGN is
//! ordinary PGN with `[Variant "Duo"]`, and chess tools read it as a chess game up to its first
//! friendly capture, which chess does not have. A friendly capture is written like any capture
//! (`Bxe2`) and followed by the comment `{friendly capture}`, so that a reader can tell it apart;
//! readers skip comments, this one too. The seats W1, B1, W2, B2 follow from the move order.

use thiserror::Error;

use crate::army::Army;
use crate::game::{Event, Game, GameError};
use crate::position::PositionError;
use crate::rules::Preset;
use crate::setup::Setup;

use super::fen::{Fen, ParseFenError};
use super::move_error::ParseMoveError;
use super::pgn_text::{PgnSyntaxError, Token, set_tag, split_tags, tag, tokens, write_tag};
use super::san::parse_san;
use super::termination::{apply_termination, result_text, termination_text};

/// A Duo game read from PGN, with its tags.
#[derive(Clone, Debug)]
pub struct Pgn {
    /// The tag pairs in the order they were read.
    pub tags: Vec<(String, String)>,
    /// The game, replayed move by move.
    pub game: Game,
}

/// Why a PGN text could not be read as a Duo game.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePgnError {
    /// The text is not PGN.
    #[error(transparent)]
    Syntax(#[from] PgnSyntaxError),
    /// The `FEN` tag is not a FEN.
    #[error("FEN tag: {0}")]
    Fen(#[from] ParseFenError),
    /// The start position is not legal under Duo's rules.
    #[error("FEN tag: {0}")]
    StartPosition(#[from] PositionError),
    /// A move that does not resolve to a legal move.
    #[error("move {number}{dots} {text:?}: {error}")]
    Move {
        /// The move number.
        number: u32,
        /// `.` for White, `...` for Black.
        dots: &'static str,
        /// The move as written.
        text: String,
        /// What went wrong.
        error: ParseMoveError,
    },
    /// A move the game refused (it had ended).
    #[error("move {number}{dots} {text:?}: {error}")]
    Refused {
        /// The move number.
        number: u32,
        /// `.` for White, `...` for Black.
        dots: &'static str,
        /// The move as written.
        text: String,
        /// Why it was refused.
        error: GameError,
    },
}

impl Pgn {
    /// Writes the game back as PGN (see [`write_pgn`]).
    pub fn write(&self) -> String {
        write_pgn(&self.game, &self.tags)
    }
}

/// Reads a Duo game from PGN: the start from `FEN` if given, then every move, then the
/// `Termination` if the moves alone did not end the game.
pub fn read_pgn(text: &str) -> Result<Pgn, ParsePgnError> {
    let (tags, movetext) = split_tags(text)?;
    let (setup, mut number) = match tag(&tags, "FEN") {
        Some(fen) => {
            let fen: Fen = fen.parse()?;
            (fen.setup, fen.fullmove.max(1))
        }
        None => (Setup::start(crate::BoardKind::Classic, Army::WHITE), 1),
    };
    // White moves first in a game from the start; a FEN may have Black to move.
    let rules = Preset::Duo.rules();
    let mut game = Game::from_setup(&setup, rules, 0)?;
    for token in tokens(&movetext)? {
        let Token::Word(word) = token else { continue };
        let white = game.position().turn() == Army::WHITE;
        let dots = if white { "." } else { "..." };
        let seat = game.to_move().ok_or(ParsePgnError::Refused {
            number,
            dots,
            text: word.to_owned(),
            error: GameError::GameOver,
        })?;
        let mv = parse_san(game.position(), word).map_err(|error| ParsePgnError::Move {
            number,
            dots,
            text: word.to_owned(),
            error,
        })?;
        game.play(seat, mv)
            .map_err(|error| ParsePgnError::Refused {
                number,
                dots,
                text: word.to_owned(),
                error,
            })?;
        if !white {
            number += 1;
        }
    }
    if let Some(termination) = tag(&tags, "Termination") {
        apply_termination(&mut game, termination);
    }
    Ok(Pgn { tags, game })
}

/// The comment that follows a friendly capture.
const FRIENDLY_CAPTURE: &str = "{friendly capture}";

/// Writes a Duo `game` as PGN. `tags` supplies the tags the game does not know (event, site,
/// date, players…), in order; `Variant`, `Result`, `Termination` and, for a start other than the
/// standard one, `SetUp` and `FEN` are filled in from the game.
pub fn write_pgn(game: &Game, tags: &[(String, String)]) -> String {
    write_pgn_upto(game, tags, game.events().len())
}

/// Writes a Duo `game` as it stood after its first `events` events, as [`write_pgn`] writes a
/// game: short of the whole game, it is in progress (no result, no termination).
pub fn write_pgn_upto(game: &Game, tags: &[(String, String)], events: usize) -> String {
    let whole = events >= game.events().len();
    let over = whole && game.is_over();
    let mut tags = tags.to_vec();
    set_tag(&mut tags, "Variant", "Duo".to_owned());
    let start = game.start();
    let standard = *start == Setup::start(crate::BoardKind::Classic, Army::WHITE);
    if !standard {
        set_tag(&mut tags, "SetUp", "1".to_owned());
        set_tag(
            &mut tags,
            "FEN",
            Fen {
                setup: start.clone(),
                fullmove: 1,
            }
            .to_string(),
        );
    }
    let result = result_text(if whole { game.outcome() } else { None });
    if over || tag(&tags, "Result").is_none() {
        set_tag(&mut tags, "Result", result.clone());
    }
    if let Some(termination) = termination_text(game).filter(|_| over) {
        set_tag(&mut tags, "Termination", termination);
    }
    let mut out = String::new();
    for (name, value) in &tags {
        write_tag(&mut out, name, value);
    }
    out.push('\n');
    let mut words = Vec::new();
    let mut number = 1;
    let mut first = true;
    for event in &game.events()[..events.min(game.events().len())] {
        let Event::Ply(ply) = event else { continue };
        let white = ply.army == Army::WHITE;
        if white {
            words.push(format!("{number}."));
        } else if first {
            words.push(format!("{number}..."));
        }
        words.push(ply.text.clone());
        if ply.captured.is_some_and(|piece| piece.army == ply.army) {
            words.push(FRIENDLY_CAPTURE.to_owned());
        }
        if !white {
            number += 1;
        }
        first = false;
    }
    words.push(tag(&tags, "Result").unwrap_or(&result).to_owned());
    // PGN's export format keeps lines under 80 characters.
    let mut line = String::new();
    for word in words {
        if !line.is_empty() && line.len() + 1 + word.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}
