//! PGN4: a whole cross-board game with its tags, as other four-player chess tools write it.
//!
//! The movetext is numbered by rounds, one per line, each with up to four quarter-moves separated
//! by ` .. `, in seat order. A player's elimination is a quarter-move token of its own in their
//! place (`#` checkmate, `S` stalemate, `R` resigned, `T` timed out); once a player is out, later
//! rounds have fewer moves. A free-for-all resignation or timeout outside the player's turn has no
//! place of its own in a round: it is written as a comment where it happened, `{Green resigned}`
//! or `{Green timed out}`, which this reader applies (and other readers skip).

use thiserror::Error;

use crate::army::Army;
use crate::game::{Consequence, Elimination, Event, Game, GameError, ResignOutcome, Seat};
use crate::position::PositionError;
use crate::rules::RuleSetError;
use crate::setup::Setup;

use super::fen4::{ParseFen4Error, parse_fen4, write_fen4};
use super::lan::parse_move;
use super::move_error::ParseMoveError;
use super::pgn_text::{PgnSyntaxError, Token, set_tag, split_tags, tag, tokens, write_tag};
use super::rule_variants::{
    apply_rule_variants, base_rules, parse_variant, rule_variant_tokens, variant_name,
};
use super::termination::{apply_termination, result_text, termination_text};

/// A game read from PGN4, with its tags.
#[derive(Clone, Debug)]
pub struct Pgn4 {
    /// The tag pairs in the order they were read (players, dates, time control, …).
    pub tags: Vec<(String, String)>,
    /// The game, replayed move by move.
    pub game: Game,
    /// `RuleVariants` tokens this reader does not know; kept, not fatal.
    pub unknown_rule_variants: Vec<String>,
}

/// Why a PGN4 text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePgn4Error {
    /// The text is not PGN.
    #[error(transparent)]
    Syntax(#[from] PgnSyntaxError),
    /// The `Variant` tag names a game this reader does not play.
    #[error("unknown Variant {0:?}: expected Teams or FFA")]
    Variant(String),
    /// The rules the tags describe contradict each other.
    #[error("the rules in Variant and RuleVariants are inconsistent: {0}")]
    Rules(#[from] RuleSetError),
    /// The `StartFen4` tag is not a FEN4.
    #[error("StartFen4: {0}")]
    StartFen4(#[from] ParseFen4Error),
    /// The start position is not a legal position under the rules.
    #[error("StartFen4: {0}")]
    StartPosition(#[from] PositionError),
    /// A quarter-move that does not resolve to a legal move.
    #[error("round {round}, {seat}: {error}")]
    Move {
        /// The round number.
        round: u32,
        /// The army to move.
        seat: Army,
        /// What went wrong.
        error: ParseMoveError,
    },
    /// A quarter-move or token the game refused.
    #[error("round {round}, {seat}: {text:?}: {error}")]
    Refused {
        /// The round number.
        round: u32,
        /// The army whose turn it was.
        seat: Army,
        /// The quarter-move as written.
        text: String,
        /// Why it was refused.
        error: GameError,
    },
    /// An elimination token where the game had no such elimination.
    #[error("round {round}, {seat}: token {token:?} does not match the game")]
    Token {
        /// The round number.
        round: u32,
        /// The army whose turn it was.
        seat: Army,
        /// The token.
        token: String,
    },
}

impl Pgn4 {
    /// Writes the game back as PGN4 (see [`write_pgn4`]).
    pub fn write(&self) -> String {
        write_pgn4(&self.game, &self.tags)
    }
}

/// Reads a PGN4 game: builds the rules from `Variant` and `RuleVariants`, the start from
/// `StartFen4` (`4PC` is the standard start), replays every quarter-move, and finally applies the
/// `Termination` (a draw agreed, a resignation, a timeout) if the moves alone did not end the game.
pub fn read_pgn4(text: &str) -> Result<Pgn4, ParsePgn4Error> {
    let (tags, movetext) = split_tags(text)?;
    let variant = tag(&tags, "Variant").unwrap_or("Teams");
    let format =
        parse_variant(variant).ok_or_else(|| ParsePgn4Error::Variant(variant.to_owned()))?;
    let mut rules = base_rules(format);
    let unknown_rule_variants =
        apply_rule_variants(&mut rules, tag(&tags, "RuleVariants").unwrap_or(""));
    let setup = match tag(&tags, "StartFen4") {
        None | Some("4PC") | Some("") => Setup::start(rules.board(), rules.first),
        Some(fen4) => parse_fen4(fen4)?,
    };
    rules.first = setup.turn;
    rules.validate()?;
    let seed = tag(&tags, "Seed").and_then(|s| s.parse().ok()).unwrap_or(0);
    let mut game = Game::from_setup(&setup, rules, seed)?;
    let mut replay = Replay {
        round: 1,
        pending: Vec::new(),
    };
    replay.collect_from(game.events());
    for token in tokens(&movetext)? {
        match token {
            Token::Number(n) => replay.round = n,
            Token::Separator | Token::Result(_) => {}
            Token::Comment(comment) => replay.comment(&mut game, comment)?,
            Token::Word(word) => replay.quarter_move(&mut game, word)?,
        }
    }
    if let Some(termination) = tag(&tags, "Termination") {
        apply_termination(&mut game, termination);
    }
    Ok(Pgn4 {
        tags,
        game,
        unknown_rule_variants,
    })
}

/// Replays quarter-moves, matching elimination tokens with the eliminations the game decided.
struct Replay {
    round: u32,
    /// Eliminations on the eliminated army's turn that no token has matched yet, oldest first.
    pending: Vec<(Army, &'static str)>,
}

impl Replay {
    fn collect_from(&mut self, events: &[Event]) {
        for event in events {
            let consequences = match event {
                Event::Ply(ply) => &ply.consequences,
                Event::Action { consequences, .. } => consequences,
            };
            for c in consequences {
                if let Consequence::Eliminated {
                    army,
                    reason,
                    on_turn: true,
                    ..
                } = c
                {
                    self.pending.push((*army, reason.token()));
                }
            }
        }
    }

    /// Applies a `{<Army> resigned}` or `{<Army> timed out}` comment; other comments are skipped.
    fn comment(&mut self, game: &mut Game, comment: &str) -> Result<(), ParsePgn4Error> {
        let Some((army, what)) = out_of_turn_elimination(comment) else {
            return Ok(());
        };
        let round = self.round;
        let refused = |error| ParsePgn4Error::Refused {
            round,
            seat: army,
            text: comment.to_owned(),
            error,
        };
        let seat = Seat::of_army(army);
        let before = game.events().len();
        if what == Elimination::TimedOut {
            game.time_out(seat)
        } else {
            game.resign(seat).map(|_| ())
        }
        .map_err(refused)?;
        let new_events = game.events()[before..].to_vec();
        self.collect_from(&new_events);
        Ok(())
    }

    fn quarter_move(&mut self, game: &mut Game, word: &str) -> Result<(), ParsePgn4Error> {
        let army = game.position().turn();
        let round = self.round;
        let refused = |error| ParsePgn4Error::Refused {
            round,
            seat: army,
            text: word.to_owned(),
            error,
        };
        let before = game.events().len();
        match word {
            "#" | "S" => {
                match self.pending.first() {
                    Some(&(_, token)) if token == word => {
                        self.pending.remove(0);
                    }
                    _ => {
                        return Err(ParsePgn4Error::Token {
                            round,
                            seat: army,
                            token: word.to_owned(),
                        });
                    }
                }
                return Ok(());
            }
            "R" | "T" => {
                let seat = game.to_move().ok_or_else(|| refused(GameError::GameOver))?;
                if word == "T" {
                    game.time_out(seat).map_err(refused)?;
                } else if game.resign(seat).map_err(refused)? == ResignOutcome::PartnerAsked {
                    game.answer_resignation(seat.partner(), true)
                        .map_err(refused)?;
                }
                let new_events = game.events()[before..].to_vec();
                self.collect_from(&new_events);
                // The token itself stood for this elimination.
                if let Some(i) = self
                    .pending
                    .iter()
                    .position(|&(a, t)| a == army && t == word)
                {
                    self.pending.remove(i);
                }
                return Ok(());
            }
            _ => {
                let mv =
                    parse_move(game.position(), word).map_err(|error| ParsePgn4Error::Move {
                        round,
                        seat: army,
                        error,
                    })?;
                if game.walking_king_to_move() {
                    game.walk_king_with(mv).map_err(refused)?;
                } else {
                    let seat = game.to_move().ok_or_else(|| refused(GameError::GameOver))?;
                    game.play(seat, mv).map_err(refused)?;
                }
            }
        }
        let new_events = game.events()[before..].to_vec();
        self.collect_from(&new_events);
        Ok(())
    }
}

/// Reads `Green resigned` or `Green timed out`.
fn out_of_turn_elimination(comment: &str) -> Option<(Army, Elimination)> {
    let (name, what) = comment.split_once(' ')?;
    let army = Army::ALL.into_iter().find(|a| a.name() == name)?;
    match what {
        "resigned" => Some((army, Elimination::Resigned)),
        "timed out" => Some((army, Elimination::TimedOut)),
        _ => None,
    }
}

/// Writes `game` as PGN4. `tags` supplies the tags the game does not know (players, date, time
/// control, event…), in the order to write them; `Variant`, `RuleVariants`, `StartFen4`, `Result`
/// and `Termination` are filled in from the game (kept in place if present in `tags`, added
/// otherwise). A game still in progress keeps the `Result` and `Termination` given, if any.
pub fn write_pgn4(game: &Game, tags: &[(String, String)]) -> String {
    let rules = game.rules();
    let mut tags = tags.to_vec();
    if tags.iter().all(|(n, _)| n != "Variant") {
        tags.insert(0, ("Variant".to_owned(), String::new()));
    }
    set_tag(&mut tags, "Variant", variant_name(rules.format).to_owned());
    let variants = rule_variant_tokens(rules);
    if !variants.is_empty() || tags.iter().any(|(n, _)| n == "RuleVariants") {
        let at = tags
            .iter()
            .position(|(n, _)| n == "RuleVariants")
            .unwrap_or(1);
        if tags.iter().all(|(n, _)| n != "RuleVariants") {
            tags.insert(at, ("RuleVariants".to_owned(), String::new()));
        }
        set_tag(&mut tags, "RuleVariants", variants.join(" "));
    }
    let start =
        if *game.start() == Setup::start(rules.board(), rules.first) && rules.first == Army::Red {
            "4PC".to_owned()
        } else {
            write_fen4(game.start())
        };
    if tags.iter().all(|(n, _)| n != "StartFen4") {
        let at = tags
            .iter()
            .position(|(n, _)| n == "RuleVariants")
            .map_or(1, |i| i + 1);
        tags.insert(at.min(tags.len()), ("StartFen4".to_owned(), String::new()));
    }
    set_tag(&mut tags, "StartFen4", start);
    if game.is_over() || tag(&tags, "Result").is_none() {
        set_tag(&mut tags, "Result", result_text(game.outcome()));
    }
    if let Some(termination) = termination_text(game) {
        set_tag(&mut tags, "Termination", termination);
    }
    let mut out = String::new();
    for (name, value) in &tags {
        write_tag(&mut out, name, value);
    }
    out.push('\n');
    for line in movetext_lines(game) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The movetext, one round per line.
fn movetext_lines(game: &Game) -> Vec<String> {
    let mut writer = RoundWriter {
        lines: Vec::new(),
        current: Vec::new(),
        round: 1,
        last: None,
        comment: None,
    };
    for event in game.events() {
        match event {
            Event::Ply(ply) => {
                writer.slot(ply.army, ply.text.clone());
                writer.eliminations(&ply.consequences);
            }
            Event::Action { consequences, .. } => {
                for c in consequences {
                    if let Consequence::Eliminated {
                        army,
                        reason: reason @ (Elimination::Resigned | Elimination::TimedOut),
                        on_turn: false,
                        ..
                    } = c
                    {
                        let what = if *reason == Elimination::TimedOut {
                            "timed out"
                        } else {
                            "resigned"
                        };
                        writer.comment(format!("{{{} {what}}}", army.name()));
                    }
                }
                writer.eliminations(consequences);
            }
        }
    }
    writer.finish()
}

/// Lays quarter-moves out in rounds.
struct RoundWriter {
    lines: Vec<String>,
    current: Vec<String>,
    round: u32,
    last: Option<Army>,
    /// A comment waiting for the next quarter-move (when none was written yet).
    comment: Option<String>,
}

impl RoundWriter {
    fn eliminations(&mut self, consequences: &[Consequence]) {
        for c in consequences {
            if let Consequence::Eliminated {
                army,
                reason,
                on_turn: true,
                ..
            } = c
            {
                self.slot(*army, reason.token().to_owned());
            }
        }
    }

    /// Writes `text` in `army`'s place in the round.
    fn slot(&mut self, army: Army, mut text: String) {
        if self.last.is_some_and(|last| army.index() <= last.index()) {
            self.flush();
        }
        if let Some(comment) = self.comment.take() {
            text = format!("{comment} {text}");
        }
        self.current.push(text);
        self.last = Some(army);
    }

    /// Writes a comment after the last quarter-move.
    fn comment(&mut self, comment: String) {
        if let Some(last) = self.current.last_mut().or(self.lines.last_mut()) {
            last.push(' ');
            last.push_str(&comment);
        } else {
            self.comment = Some(comment);
        }
    }

    fn flush(&mut self) {
        if !self.current.is_empty() {
            self.lines
                .push(format!("{}. {}", self.round, self.current.join(" .. ")));
            self.current.clear();
            self.round += 1;
        }
    }

    fn finish(mut self) -> Vec<String> {
        self.flush();
        if let Some(comment) = self.comment.take() {
            self.lines.push(comment);
        }
        self.lines
    }
}
