//! PGN4: a whole cross-board game with its tags, as chess.com and other four-player chess tools
//! write it.
//!
//! The movetext is numbered by rounds, one per line, each with up to four quarter-moves separated
//! by ` .. `, in seat order; once a player is out, later rounds have fewer. What chess.com writes,
//! and this module reads and writes likewise (every convention below is seen in the real games of
//! `tests/data/chesscom`):
//!
//! - After a move, one `+` per king it puts in check and one `#` per player it mates at once
//!   (`Qa11xRa9+#`, `Qc8-a8++##`). A king captured is not marked.
//! - A player found mated or stalemated when their turn begins has a token in their place: `#`
//!   or `S` (Teams' mates are such tokens).
//! - A player who resigns or times out on their turn has `R` or `T` in their place, or, where
//!   their king walks on by itself (free-for-all `DeadKingWalking`), the mark on that king's first
//!   move: `Kg1-h2T`. Its later moves carry no mark.
//! - A resignation or timeout outside the player's turn has no place of its own: this writer puts
//!   a comment where it happened, `{Green resigned}` or `{Green timed out}`, which this reader
//!   applies (other readers skip comments), and the mark on the walking king's next move.
//!
//! Reading is lenient where other tools are: multi-line tag values, a bare `R` or `T` for the
//! player to move, `R#` (resigned and then mated), `#` and `S` marks that agree with the game,
//! unknown `RuleVariants` tokens (kept, and reported), and chess.com's habit of play going on
//! after one of the last two leads by more than 20 (see [`super::rule_variants`]). Some chess.com
//! files stop before the resignation or timeout that ended the game: the `Result` tag still holds
//! the final points, and the reader puts the players out in an order that gives them (saying so
//! in [`Pgn4::notes`]). A file that cannot be read says why in one line, naming the tag or the
//! move.

use thiserror::Error;

use crate::army::{Army, ByArmy};
use crate::game::{
    Consequence, Elimination, Event, Game, GameError, Outcome, ResignOutcome, Seat, WinReason,
};
use crate::position::PositionError;
use crate::rules::{Format, RuleSet, RuleSetError};
use crate::setup::Setup;

use super::fen4::{ParseFen4Error, parse_fen4, write_fen4};
use super::lan::parse_move;
use super::move_error::ParseMoveError;
use super::pgn_text::{PgnSyntaxError, Token, set_tag, split_tags, tag, tokens, write_tag};
use super::rule_variants::{
    apply_rule_variants, base_rules, parse_variant, rule_variant_tokens, variant_name,
};
use super::termination::{
    ChessComResult, apply_termination, result_text, termination_text, write_chesscom_result,
};

/// A game read from PGN4, with its tags.
#[derive(Clone, Debug)]
pub struct Pgn4 {
    /// The tag pairs in the order they were read (players, dates, time control, …).
    pub tags: Vec<(String, String)>,
    /// The game, replayed move by move.
    pub game: Game,
    /// `RuleVariants` tokens this reader does not know; kept, not fatal.
    pub unknown_rule_variants: Vec<String>,
    /// What the reader supplied that the movetext leaves out, in words (the last players'
    /// resignations that the `Result` shows but the moves do not).
    pub notes: Vec<String>,
}

/// Why a PGN4 text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePgn4Error {
    /// The text is not PGN.
    #[error(transparent)]
    Syntax(#[from] PgnSyntaxError),
    /// The `Variant` tag names a game this reader does not play.
    #[error("unknown Variant {0:?}: expected Teams, FFA or Solo")]
    Variant(String),
    /// The rules the tags describe contradict each other.
    #[error("the rules in Variant and RuleVariants are inconsistent: {0}")]
    Rules(#[from] RuleSetError),
    /// A tag names something this reader knows but does not play.
    #[error("{tag} {value:?}: {why}")]
    Unsupported {
        /// The tag.
        tag: &'static str,
        /// Its value.
        value: String,
        /// What it is, and why it cannot be played.
        why: &'static str,
    },
    /// The `StartFen4` tag is not a FEN4 (fairy pieces and other boards end up here).
    #[error("StartFen4: {0}")]
    StartFen4(#[from] ParseFen4Error),
    /// The start position is not a legal position under the rules.
    #[error("StartFen4: {0}")]
    StartPosition(#[from] PositionError),
    /// A quarter-move that does not resolve to a legal move.
    #[error("round {round}, {seat}: {error}{}", hint.as_ref().map(|h| format!(" ({h})")).unwrap_or_default())]
    Move {
        /// The round number.
        round: u32,
        /// The army to move.
        seat: Army,
        /// What went wrong.
        error: ParseMoveError,
        /// The likely reason, where the file shows one: rules this reader does not know, or
        /// the old start.
        hint: Option<MoveHint>,
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

/// Why a move of a file may not resolve, beyond the move itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveHint {
    /// The file's `RuleVariants` names rules this reader does not know (the tokens).
    UnknownRules(String),
    /// The move moves a king or queen from the square the other one stands on in today's start:
    /// a game from before 2020, on the old mirrored start.
    OldStart,
}

impl std::fmt::Display for MoveHint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MoveHint::UnknownRules(tokens) => write!(
                f,
                "the file plays rules Four Kings does not know: RuleVariants {tokens}"
            ),
            MoveHint::OldStart => f.write_str(
                "the move fits the old mirrored start of games before 2020, with Blue's and \
                 Green's kings and queens swapped, which Four Kings does not play",
            ),
        }
    }
}

/// What may explain why `text` does not resolve in `pos`.
fn move_hint(pos: &crate::Position, text: &str, unknown_rules: &[String]) -> Option<MoveHint> {
    if !unknown_rules.is_empty() {
        return Some(MoveHint::UnknownRules(unknown_rules.join(" ")));
    }
    // `Qn8-m8` where Green's king stands on n8: the old start had them the other way round.
    let royal = |c: char| matches!(c, 'K' | 'Q');
    let letter = text.chars().next().filter(|&c| royal(c))?;
    let from: crate::Square = text.get(1..3)?.parse().ok()?;
    let standing = pos.piece_at(from)?;
    let swapped = ["a7", "a8", "n7", "n8"].contains(&from.to_string().as_str())
        && matches!(standing.army, Army::Blue | Army::Green)
        && royal(standing.role.upper_char())
        && standing.role.upper_char() != letter;
    swapped.then_some(MoveHint::OldStart)
}

impl Pgn4 {
    /// Writes the game back as PGN4 (see [`write_pgn4`]).
    pub fn write(&self) -> String {
        write_pgn4(&self.game, &self.tags)
    }
}

/// The named starts of `StartFen4` that are not today's.
fn named_start(value: &str) -> Option<&'static str> {
    match value {
        "4PCo" => Some(
            "the old mirrored start of games before 2020 (Blue's and Green's kings and queens \
             swapped), which Four Kings does not play",
        ),
        "2PC" => Some("a two-player variant on the cross board, which Four Kings does not play"),
        v if v.starts_with("4PC") => {
            Some("a start chess.com names but does not describe; Four Kings plays only 4PC")
        }
        _ => None,
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
    let setup = start_setup(&tags, &rules)?;
    rules.first = setup.turn;
    rules.validate()?;
    let seed = tag(&tags, "Seed").and_then(|s| s.parse().ok()).unwrap_or(0);
    let game = Game::from_setup(&setup, rules, seed)?;
    let mut replay = Replay {
        game,
        round: 1,
        pending: Vec::new(),
        unknown_rules: unknown_rule_variants.clone(),
    };
    replay.collect(0);
    for token in tokens(&movetext)? {
        match token {
            Token::Number(n) => replay.round = n,
            Token::Separator | Token::Result(_) => {}
            Token::Comment(comment) => replay.comment(comment)?,
            Token::Word(word) => replay.word(word)?,
        }
    }
    let mut game = replay.game;
    if let Some(termination) = tag(&tags, "Termination") {
        apply_termination(&mut game, termination);
    }
    let mut notes = Vec::new();
    if let Some(result) = tag(&tags, "Result").and_then(|r| ChessComResult::parse(r, &tags)) {
        if let Some(note) = finish_from_result(&mut game, &result) {
            notes.push(note);
        }
    }
    Ok(Pgn4 {
        tags,
        game,
        unknown_rule_variants,
        notes,
    })
}

/// The setup `StartFen4` names.
fn start_setup(tags: &[(String, String)], rules: &RuleSet) -> Result<Setup, ParsePgn4Error> {
    match tag(tags, "StartFen4").map(str::trim) {
        None | Some("4PC") | Some("") => Ok(Setup::start(rules.board(), rules.first)),
        Some(value) => match named_start(value) {
            Some(why) => Err(ParsePgn4Error::Unsupported {
                tag: "StartFen4",
                value: value.to_owned(),
                why,
            }),
            None => Ok(parse_fen4(value)?),
        },
    }
}

/// The game as its `Result` says it ended, where the movetext stops short: chess.com leaves out
/// the resignation or timeout of the last players when it came outside their turn. Puts the
/// players still in out, in the first order (by seat) that ends the game with the `Result`'s
/// points; says what it did. Nothing changes if no order gives them.
fn finish_from_result(game: &mut Game, result: &ChessComResult) -> Option<String> {
    if game.is_over() || game.rules().format != Format::FreeForAll {
        return None;
    }
    for order in orders(&game.seats_in_game()) {
        let mut trial = game.clone();
        let mut left = Vec::new();
        for &seat in &order {
            if trial.is_over() || trial.resign(seat).is_err() {
                break;
            }
            left.push(seat.name(Format::FreeForAll));
        }
        if trial.is_over() && trial.points() == result.points {
            *game = trial;
            return Some(format!(
                "the movetext stops before the end: {} left the game (the Result's points need it)",
                left.join(", then ")
            ));
        }
    }
    None
}

/// Every order of `seats`.
fn orders(seats: &[Seat]) -> Vec<Vec<Seat>> {
    if seats.len() <= 1 {
        return vec![seats.to_vec()];
    }
    let mut all = Vec::new();
    for (i, &first) in seats.iter().enumerate() {
        let mut rest = seats.to_vec();
        rest.remove(i);
        for mut tail in orders(&rest) {
            tail.insert(0, first);
            all.push(tail);
        }
    }
    all
}

/// A word of movetext split into the move and its marks: `Qa11xRa9+#` is `Qa11xRa9` and `+#`,
/// `Kg1-h2T` is `Kg1-h2` and `T`, a bare token (`R`, `R#`, `S`) is all marks. The move ends at
/// its to-square (and promotion, `=R` included), or is a castle.
fn split_marks(word: &str) -> (&str, &str) {
    let castle_len = ["O-O-O", "0-0-0", "o-o-o", "O-O", "0-0", "o-o"]
        .iter()
        .find(|c| word.starts_with(*c))
        .map(|c| c.len());
    let end = match castle_len {
        Some(len) => len,
        None => match word.rfind(|c: char| c.is_ascii_digit()) {
            Some(i) => {
                let mut after = word[i + 1..].chars();
                match (after.next(), after.next()) {
                    (Some('='), Some(role)) if role.is_alphabetic() => i + 2 + role.len_utf8(),
                    _ => i + 1,
                }
            }
            None => 0,
        },
    };
    word.split_at(end)
}

/// Replays quarter-moves, matching elimination tokens with the eliminations the game decided.
struct Replay {
    game: Game,
    round: u32,
    /// Eliminations on the eliminated army's turn that no token has matched yet, oldest first.
    pending: Vec<(Army, &'static str)>,
    /// The `RuleVariants` tokens the reader does not know, for the error of a move that fails.
    unknown_rules: Vec<String>,
}

impl Replay {
    /// Notes the eliminations of the game's events from index `from` on.
    fn collect(&mut self, from: usize) {
        for event in &self.game.events()[from..] {
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

    fn refused(&self, text: &str, error: GameError) -> ParsePgn4Error {
        ParsePgn4Error::Refused {
            round: self.round,
            seat: self.game.position().turn(),
            text: text.to_owned(),
            error,
        }
    }

    /// Applies a `{<Army> resigned}` or `{<Army> timed out}` comment; other comments are skipped.
    fn comment(&mut self, comment: &str) -> Result<(), ParsePgn4Error> {
        let Some((army, what)) = out_of_turn_elimination(comment) else {
            return Ok(());
        };
        let before = self.game.events().len();
        let seat = Seat::of_army(army);
        if what == Elimination::TimedOut {
            self.game.time_out(seat)
        } else {
            self.game.resign(seat).map(|_| ())
        }
        .map_err(|error| ParsePgn4Error::Refused {
            round: self.round,
            seat: army,
            text: comment.to_owned(),
            error,
        })?;
        self.collect(before);
        Ok(())
    }

    fn word(&mut self, word: &str) -> Result<(), ParsePgn4Error> {
        let (body, marks) = split_marks(word);
        let leaving = marks.chars().find_map(|c| match c {
            'R' => Some(Elimination::Resigned),
            'T' => Some(Elimination::TimedOut),
            _ => None,
        });
        if !body.is_empty() {
            if let Some(reason) = leaving {
                // `Kg1-h2T`: the player left before this turn; this is their king's first walk.
                self.left_before_turn(word, reason)?;
            }
            return self.play(word, body);
        }
        match leaving {
            Some(reason) => {
                // `R` or `T` in the player's place: they left on their turn. What chess.com adds
                // (`R#`: the king it leaves was in a mate) is decided on the king's own turn.
                self.leave(word, reason)?;
                for mark in marks.chars().filter(|c| matches!(c, '#' | 'S')) {
                    let token = if mark == '#' { "#" } else { "S" };
                    if let Some(i) = self.pending.iter().position(|&(_, t)| t == token) {
                        self.pending.remove(i);
                    }
                }
                Ok(())
            }
            None => {
                for mark in marks.chars().filter(|c| matches!(c, '#' | 'S')) {
                    self.match_token(word, if mark == '#' { "#" } else { "S" })?;
                }
                Ok(())
            }
        }
    }

    /// The player to move left before this turn (the mark on their king's first walk), unless
    /// they are out already.
    fn left_before_turn(&mut self, word: &str, reason: Elimination) -> Result<(), ParsePgn4Error> {
        let Some(seat) = self.game.to_move() else {
            return Err(self.refused(word, GameError::GameOver));
        };
        if !self.game.is_in_game(seat) {
            return Ok(());
        }
        let before = self.game.events().len();
        self.game
            .left_before_turn(reason)
            .map_err(|e| self.refused(word, e))?;
        self.collect(before);
        Ok(())
    }

    /// The player to move resigned (`R`) or timed out (`T`): unless that is what the game has
    /// already, with them out, or decided.
    fn leave(&mut self, word: &str, reason: Elimination) -> Result<(), ParsePgn4Error> {
        let token = reason.token();
        if self.game.is_over() {
            return if self.ended_by(token) {
                Ok(())
            } else {
                Err(self.refused(word, GameError::GameOver))
            };
        }
        let seat = self
            .game
            .to_move()
            .ok_or_else(|| self.refused(word, GameError::GameOver))?;
        if !self.game.is_in_game(seat) {
            // Out already (a comment said so, or its king walks): the mark only repeats it.
            return Ok(());
        }
        let before = self.game.events().len();
        let army = self.game.position().turn();
        if reason == Elimination::TimedOut {
            self.game
                .time_out(seat)
                .map_err(|e| self.refused(word, e))?;
        } else if self.game.resign(seat).map_err(|e| self.refused(word, e))?
            == ResignOutcome::PartnerAsked
        {
            self.game
                .answer_resignation(seat.partner(), true)
                .map_err(|e| self.refused(word, e))?;
        }
        self.collect(before);
        // The token itself stood for this elimination.
        if let Some(i) = self
            .pending
            .iter()
            .position(|&(a, t)| a == army && t == token)
        {
            self.pending.remove(i);
        }
        Ok(())
    }

    /// A `#` or `S` token: an elimination the game decided on that player's turn, or the mate or
    /// stalemate that ended a Teams game.
    fn match_token(&mut self, word: &str, token: &'static str) -> Result<(), ParsePgn4Error> {
        if let Some(i) = self.pending.iter().position(|&(_, t)| t == token) {
            self.pending.remove(i);
            return Ok(());
        }
        if self.game.is_over() && self.ended_by(token) {
            return Ok(());
        }
        Err(ParsePgn4Error::Token {
            round: self.round,
            seat: self.game.position().turn(),
            token: word.to_owned(),
        })
    }

    /// Whether the game's result is what `token` stands for (Teams: `#` a mate, `S` a
    /// stalemate, `R` a resignation, `T` a timeout).
    fn ended_by(&self, token: &str) -> bool {
        matches!(
            (self.game.outcome(), token),
            (
                Some(Outcome::Win {
                    reason: WinReason::Checkmate { .. },
                    ..
                }),
                "#"
            ) | (
                Some(Outcome::Win {
                    reason: WinReason::Resignation { .. },
                    ..
                }),
                "R"
            ) | (
                Some(Outcome::Win {
                    reason: WinReason::Timeout { .. },
                    ..
                }),
                "T"
            ) | (
                Some(Outcome::Draw {
                    reason: crate::game::DrawReason::Stalemate { .. }
                }),
                "S"
            )
        )
    }

    fn play(&mut self, word: &str, body: &str) -> Result<(), ParsePgn4Error> {
        let army = self.game.position().turn();
        let mv = parse_move(self.game.position(), body).map_err(|error| ParsePgn4Error::Move {
            round: self.round,
            seat: army,
            error,
            hint: move_hint(self.game.position(), body, &self.unknown_rules),
        })?;
        let before = self.game.events().len();
        let played = if self.game.walking_king_to_move() {
            self.game.walk_king_with(mv).map(|_| ())
        } else {
            let seat = self
                .game
                .to_move()
                .ok_or_else(|| self.refused(word, GameError::GameOver))?;
            self.game.play(seat, mv).map(|_| ())
        };
        played.map_err(|e| self.refused(word, e))?;
        self.collect(before);
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
/// and `Termination` are filled in from the game (in place if present in `tags`, added
/// otherwise). Those in `tags` that already say what the game says are kept as written, so a
/// file read from chess.com goes back out with its own `RuleVariants` tokens (unknown ones too),
/// `StartFen4`, `Result` and `Termination`. A game still in progress keeps the `Result` and
/// `Termination` given, if any.
pub fn write_pgn4(game: &Game, tags: &[(String, String)]) -> String {
    write_pgn4_upto(game, tags, game.events().len())
}

/// Writes `game` as it stood after its first `events` events (its plies and actions), as
/// [`write_pgn4`] writes a game: what a server shows of a game whose last events are not stored
/// yet. Short of the whole game, the game is in progress: no result, no termination.
pub fn write_pgn4_upto(game: &Game, tags: &[(String, String)], events: usize) -> String {
    let whole = events >= game.events().len();
    let over = whole && game.is_over();
    let outcome = if whole { game.outcome() } else { None };
    let rules = game.rules();
    let mut tags = tags.to_vec();
    if tags.iter().all(|(n, _)| n != "Variant") {
        tags.insert(0, ("Variant".to_owned(), String::new()));
    }
    set_tag(&mut tags, "Variant", variant_name(rules.format).to_owned());
    let given_variants = tag(&tags, "RuleVariants").map(str::to_owned);
    let variants = match &given_variants {
        Some(given) if reads_as(given, rules) => given.clone(),
        _ => {
            let mut tokens = rule_variant_tokens(rules);
            // Tokens this reader does not know say something to the tools that do: keep them.
            let mut scratch = base_rules(rules.format);
            tokens.extend(apply_rule_variants(
                &mut scratch,
                given_variants.as_deref().unwrap_or(""),
            ));
            tokens.join(" ")
        }
    };
    if !variants.is_empty() || given_variants.is_some() {
        if given_variants.is_none() {
            tags.insert(1, ("RuleVariants".to_owned(), String::new()));
        }
        set_tag(&mut tags, "RuleVariants", variants);
    }
    let standard_start =
        *game.start() == Setup::start(rules.board(), rules.first) && rules.first == Army::Red;
    let start = match tag(&tags, "StartFen4") {
        Some(given) if parse_fen4(given).is_ok_and(|s| s == *game.start()) => given.to_owned(),
        _ if standard_start => "4PC".to_owned(),
        _ => write_fen4(game.start()),
    };
    if tags.iter().all(|(n, _)| n != "StartFen4") {
        let at = tags
            .iter()
            .position(|(n, _)| n == "RuleVariants")
            .map_or(1, |i| i + 1);
        tags.insert(at.min(tags.len()), ("StartFen4".to_owned(), String::new()));
    }
    set_tag(&mut tags, "StartFen4", start);
    if over || tag(&tags, "Result").is_none() {
        let result = match outcome {
            Some(Outcome::Standings { points, .. }) => {
                match tag(&tags, "Result").and_then(|r| ChessComResult::parse(r, &tags)) {
                    Some(given) if given.points == *points => {
                        tag(&tags, "Result").unwrap_or_default().to_owned()
                    }
                    _ => write_chesscom_result(points, &tags),
                }
            }
            outcome => result_text(outcome),
        };
        set_tag(&mut tags, "Result", result);
    }
    if over && tag(&tags, "Termination").is_none() {
        if let Some(termination) = termination_text(game) {
            set_tag(&mut tags, "Termination", termination);
        }
    }
    let mut out = String::new();
    for (name, value) in &tags {
        write_tag(&mut out, name, value);
    }
    out.push('\n');
    for line in movetext_lines(game, events, outcome) {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Whether `RuleVariants` `value` reads as `rules` (then it is written back as it was).
fn reads_as(value: &str, rules: &RuleSet) -> bool {
    let mut read = base_rules(rules.format);
    apply_rule_variants(&mut read, value);
    read.first = rules.first;
    read == *rules
}

/// The movetext of the first `events` events, which end in `outcome` if any, one round per line.
fn movetext_lines(game: &Game, events: usize, outcome: Option<&Outcome>) -> Vec<String> {
    let mut writer = RoundWriter {
        lines: Vec::new(),
        current: Vec::new(),
        round: 1,
        last: None,
        comment: None,
    };
    // Players who left before their walking king's next move, which carries the mark.
    let mut left: ByArmy<Option<Elimination>> = ByArmy::default();
    let events = &game.events()[..events.min(game.events().len())];
    for (i, event) in events.iter().enumerate() {
        match event {
            Event::Ply(ply) => {
                let mut text = ply.text.clone();
                if let Some(reason) = left[ply.army].take().filter(|_| ply.walking) {
                    text.push_str(reason.token());
                }
                writer.slot(ply.army, text);
                writer.turn_tokens(&ply.consequences);
            }
            Event::Action {
                seat,
                action,
                consequences,
            } => {
                let next = events.get(i + 1);
                for c in consequences {
                    let Consequence::Eliminated {
                        army,
                        reason: reason @ (Elimination::Resigned | Elimination::TimedOut),
                        on_turn,
                        ..
                    } = *c
                    else {
                        continue;
                    };
                    // Left just before their turn: the mark on their king's first walk, which
                    // comes next, says it all.
                    let walks_next =
                        matches!(next, Some(Event::Ply(p)) if p.army == army && p.walking);
                    if !on_turn && !walks_next {
                        let what = if reason == Elimination::TimedOut {
                            "timed out"
                        } else {
                            "resigned"
                        };
                        writer.comment(format!("{{{} {what}}}", army.name()));
                    }
                    if walks_next || !on_turn {
                        left[army] = Some(reason);
                    } else {
                        writer.slot(army, reason.token().to_owned());
                    }
                }
                writer.turn_tokens(consequences);
                if game.rules().has_teams() {
                    // Teams: the resignation or timeout of the team's player, in their place.
                    match action {
                        crate::game::Action::Resigned => {
                            writer.slot(seat.army(Format::Teams), "R".to_owned());
                        }
                        crate::game::Action::TimedOut => {
                            writer.slot(seat.army(Format::Teams), "T".to_owned());
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    // Teams: a mate or stalemate found when the victim's turn began, in their place.
    match outcome {
        Some(Outcome::Win {
            reason: WinReason::Checkmate { mated },
            ..
        }) if game.rules().has_teams() => writer.slot(mated.army(Format::Teams), "#".to_owned()),
        Some(Outcome::Draw {
            reason: crate::game::DrawReason::Stalemate { seat },
        }) if game.rules().has_teams() => writer.slot(seat.army(Format::Teams), "S".to_owned()),
        _ => {}
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
    /// Writes the `#` and `S` tokens of the players found mated or stalemated when their turn
    /// began, in their places.
    fn turn_tokens(&mut self, consequences: &[Consequence]) {
        for c in consequences {
            if let Consequence::Eliminated {
                army,
                reason: reason @ (Elimination::Checkmate | Elimination::Stalemate),
                on_turn: true,
                ..
            } = *c
            {
                self.slot(army, reason.token().to_owned());
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_split_from_the_move() {
        for (word, body, marks) in [
            ("Qa11xRa9+#", "Qa11xRa9", "+#"),
            ("Kg1-h2T", "Kg1-h2", "T"),
            ("Kk1-k2R", "Kk1-k2", "R"),
            ("e10-e11=R+", "e10-e11=R", "+"),
            ("h7-h8=D", "h7-h8=D", ""),
            ("O-O-O#", "O-O-O", "#"),
            ("O-O", "O-O", ""),
            ("R", "", "R"),
            ("R#", "", "R#"),
            ("S", "", "S"),
            ("Qc8-a8++##", "Qc8-a8", "++##"),
            ("Be6xKb9#S", "Be6xKb9", "#S"),
            // Fairy letters are not a move of ours, but must not split a character.
            ("e7-e8=δ+", "e7-e8=δ", "+"),
            ("δf6-e7", "δf6-e7", ""),
        ] {
            assert_eq!(split_marks(word), (body, marks), "{word}");
        }
    }

    #[test]
    fn every_order_of_the_seats() {
        let seats = &Seat::ALL[..3];
        let all = orders(seats);
        assert_eq!(all.len(), 6);
        assert!(all.iter().all(|o| o.len() == 3));
        assert_eq!(orders(&[]), vec![Vec::<Seat>::new()]);
    }

    #[test]
    fn old_and_two_player_starts_say_why() {
        for (value, word) in [("4PCo", "mirrored"), ("2PC", "two-player"), ("4PCb", "4PC")] {
            let text = format!("[Variant \"FFA\"]\n[StartFen4 \"{value}\"]\n\n1. h2-h3\n");
            let err = read_pgn4(&text).unwrap_err();
            assert!(
                matches!(
                    &err,
                    ParsePgn4Error::Unsupported {
                        tag: "StartFen4",
                        ..
                    }
                ),
                "{value}: {err}"
            );
            assert!(err.to_string().contains(word), "{value}: {err}");
        }
    }
}
