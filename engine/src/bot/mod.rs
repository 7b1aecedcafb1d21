//! The CPU player: a search with a budget, at three levels of strength.
//!
//! Pure and synchronous like the rest of the engine: a [`SearchRoot`] (the position, the rules and
//! what the game around it knows: free-for-all points, the positions seen so far, the seat to
//! move), [`SearchLimits`] (nodes, time, a cancel flag) and a seed go in; a [`SearchResult`] comes
//! out. The same inputs with a node budget give the same move on any machine.
//!
//! ```
//! use fourkings_engine::bot::{Bot, Level, SearchLimits, SearchRoot};
//! use fourkings_engine::{Game, Preset};
//!
//! let game = Game::new(Preset::Teams.rules()).unwrap();
//! let root = SearchRoot::from_game(&game).unwrap();
//! let result = Bot::new(Level::Easy).choose(&root, &SearchLimits::nodes(2_000), 7).unwrap();
//! assert!(game.legal_moves().contains(&result.mv));
//! ```
//!
//! # Layout
//!
//! | module | what it holds |
//! |---|---|
//! | `level` | the levels and what each may spend |
//! | `limits` | node, time and cancel limits, and the budget that enforces them |
//! | `search` | iterative deepening, alpha-beta (paranoid in free-for-all), quiescence |
//! | `rules_state` | the game around the searched position (points, material), made and unmade through the engine's referee |
//! | `eval` | the static evaluation |
//! | `ordering` | move ordering: table move, captures, killers, history |
//! | `tt` | the transposition table |
//! | `memory` | the table and histories a player keeps from one move to the next |
//! | `choice` | how a level picks its move from the search (noise and slips for `easy`) |

mod choice;
mod eval;
mod level;
mod limits;
mod memory;
mod ordering;
mod rules_state;
mod search;
mod tt;

use std::time::Duration;

use thiserror::Error;

pub use level::{Level, LevelSettings, ParseLevelError, SearchOptions};
use limits::SHARP_FACTOR;
pub use limits::{BANK_RESERVE, SearchLimits};
pub use memory::{DEFAULT_TABLE_SLOTS, SearchMemory};

use crate::army::{Army, ByArmy};
use crate::board::ArmyStatus;
use crate::game::{Game, Seat};
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::rules::{Format, RuleSet};
use eval::Perspective;
use limits::Budget;
use rules_state::{GameState, MATE_BOUND};
use search::Searcher;

/// The position to search and what the game around it knows.
#[derive(Clone, Debug)]
pub struct SearchRoot {
    position: Position,
    rules: RuleSet,
    points: ByArmy<i32>,
    /// Who made each mate still to be decided ([`Game::mates_made_by`]).
    mate_made_by: ByArmy<Option<Army>>,
    /// The army that made the last move.
    last_mover: Option<Army>,
    history: Vec<u64>,
    seat: Seat,
    moves: MoveList,
}

/// Why the bot cannot choose a move.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BotError {
    /// The game has ended.
    #[error("the game is over")]
    GameOver,
    /// A walking king is to move: its move is the game's to draw ([`Game::walking_king_move`]).
    #[error("a walking king moves by itself")]
    WalkingKing,
    /// There is no move to choose from.
    #[error("there is no legal move to choose")]
    NoMoves,
}

impl SearchRoot {
    /// The game's current position with everything the game knows: points, the positions seen
    /// (for repetitions), the seat to move, and the move just taken back (never chosen again).
    /// Fails once the game is over or when nobody can move.
    pub fn from_game(game: &Game) -> Result<SearchRoot, BotError> {
        let seat = game.to_move().ok_or(BotError::GameOver)?;
        // A walking king's moves are the game's to draw, but the position may still be assessed.
        let moves = if game.walking_king_to_move() {
            game.position().legal_moves()
        } else {
            game.legal_moves()
        };
        if moves.is_empty() {
            return Err(BotError::NoMoves);
        }
        Ok(SearchRoot {
            position: game.position().clone(),
            rules: *game.rules(),
            points: game.points(),
            mate_made_by: game.mates_made_by(),
            last_mover: game.last_ply().map(|ply| ply.army),
            history: game.repetition_keys().to_vec(),
            seat,
            moves,
        })
    }

    /// A bare position: no points, no history, every legal move allowed.
    pub fn new(position: Position, rules: RuleSet) -> SearchRoot {
        let turn = position.turn();
        let seat = match rules.format {
            Format::Duo if turn == Army::BLACK => Seat::ALL[1],
            Format::Duo => Seat::ALL[0],
            _ => Seat::of_army(turn),
        };
        let moves = position.legal_moves();
        SearchRoot {
            position,
            rules,
            points: ByArmy::default(),
            mate_made_by: ByArmy::default(),
            last_mover: None,
            history: Vec::new(),
            seat,
            moves,
        }
    }

    /// The same root with these free-for-all points.
    pub fn with_points(self, points: ByArmy<i32>) -> SearchRoot {
        SearchRoot { points, ..self }
    }

    /// The same root with these repetition keys of earlier positions
    /// ([`Game::repetition_keys`]).
    pub fn with_history(self, history: Vec<u64>) -> SearchRoot {
        SearchRoot { history, ..self }
    }

    /// The same root choosing only among `moves` (which must be legal here).
    pub fn with_moves(self, moves: MoveList) -> SearchRoot {
        SearchRoot { moves, ..self }
    }

    /// The position.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The moves the bot may choose from.
    pub fn moves(&self) -> &MoveList {
        &self.moves
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    /// The move chosen.
    pub mv: Move,
    /// Its value to the mover's side in centipawns (free-for-all points count 100 each); beyond
    /// ±99,000 a forced win or loss.
    pub score: i32,
    /// The deepest iteration finished, in plies.
    pub depth: u8,
    /// Positions visited.
    pub nodes: u64,
    /// The line the search expects, starting with `mv`.
    pub pv: Vec<Move>,
    /// How long the search took.
    pub elapsed: Duration,
}

impl SearchResult {
    /// Whether the score is a forced win for the mover's side.
    pub fn is_win(&self) -> bool {
        self.score > MATE_BOUND
    }
}

/// The CPU player at one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bot {
    settings: LevelSettings,
}

impl Bot {
    /// A bot playing at `level`.
    pub const fn new(level: Level) -> Bot {
        Bot {
            settings: level.settings(),
        }
    }

    /// A bot with settings of its own.
    pub const fn with_settings(settings: LevelSettings) -> Bot {
        Bot { settings }
    }

    /// What it may spend and how it errs.
    pub const fn settings(&self) -> &LevelSettings {
        &self.settings
    }

    /// The level's limits, tightened by `limits`: the level aims at its time and may think
    /// up to [`SHARP_FACTOR`] times longer while its choice is unsettled, within the caller's
    /// time.
    fn limits<'a>(&self, limits: &SearchLimits<'a>) -> SearchLimits<'a> {
        SearchLimits {
            depth: Some(
                limits
                    .depth
                    .map_or(self.settings.max_depth, |d| d.min(self.settings.max_depth)),
            ),
            ..match self.settings.nodes {
                Some(nodes) => limits.with_nodes(nodes),
                None => *limits,
            }
            .with_target(self.settings.time)
            .with_time(self.settings.time * SHARP_FACTOR)
        }
    }

    /// Chooses a move for the seat to move (not for a walking king, whose moves the game draws),
    /// with a memory of its own. Deterministic for a given root, seed and node budget
    /// (a time budget or a cancel that strikes first may cut the search short).
    pub fn choose(
        &self,
        root: &SearchRoot,
        limits: &SearchLimits<'_>,
        seed: u64,
    ) -> Result<SearchResult, BotError> {
        let mut memory = SearchMemory::with_table_slots(fresh_table_slots(&self.limits(limits)));
        self.choose_with(&mut memory, root, limits, seed)
    }

    /// Chooses a move as [`Bot::choose`] does, starting from what `memory` kept of earlier
    /// searches and leaving in it what this one learnt: a player that keeps one memory over a
    /// game searches deeper, at the cost of its choice depending on the searches before it.
    pub fn choose_with(
        &self,
        memory: &mut SearchMemory,
        root: &SearchRoot,
        limits: &SearchLimits<'_>,
        seed: u64,
    ) -> Result<SearchResult, BotError> {
        if root.moves.is_empty() {
            return Err(BotError::NoMoves);
        }
        if root.position.status(root.position.turn()) == ArmyStatus::KingWalking {
            return Err(BotError::WalkingKing);
        }
        let limits = self.limits(limits);
        let army = root.position.turn();
        let mut searcher = searcher(root, army, &limits, self.settings.options, memory.take());
        let result = if self.settings.noise > 0 || self.settings.blunder_percent > 0 {
            choice::choose_with_slips(&mut searcher, &self.settings, &limits, seed)
        } else {
            choice::choose_best(&mut searcher, &limits)
        };
        let (table, heuristics) = searcher.into_memory();
        memory.restore(table, heuristics);
        Ok(result)
    }

    /// What the position is worth to `army`'s side, searched within `limits` (with this
    /// level's budget as the upper bound): positive is good for it.
    pub fn assess(&self, root: &SearchRoot, army: Army, limits: &SearchLimits<'_>) -> i32 {
        let limits = self.limits(limits);
        let memory = SearchMemory::with_table_slots(fresh_table_slots(&limits)).take();
        let mut searcher = searcher(root, army, &limits, self.settings.options, memory);
        choice::assess(&mut searcher, &limits)
    }

    /// Whether `army`'s side should agree to a draw now: when its assessment of the position
    /// is no better than what a draw would give it (in free-for-all, the standings as they
    /// are, with no bonus).
    pub fn accepts_draw(&self, root: &SearchRoot, army: Army, limits: &SearchLimits<'_>) -> bool {
        /// A draw is welcome unless the side is better by more than this.
        const MARGIN: i32 = 30;
        let draw = match root.rules.format {
            Format::FreeForAll => rules_state::standings(&root.points, army),
            _ => 0,
        };
        self.assess(root, army, limits) <= draw + MARGIN
    }
}

/// The most transposition-table slots a search with a memory of its own uses.
const MAX_TABLE: usize = 1 << 19;

/// The table slots of a search with a memory of its own. Interior nodes are about a third of
/// all; a slot per node holds most of them. The cap (8 MiB) keeps the table quick to free: a
/// 64 MiB one took tens of milliseconds to give back after a cancel.
fn fresh_table_slots(limits: &SearchLimits<'_>) -> usize {
    limits
        .nodes
        .map_or(MAX_TABLE, |n| (n as usize).min(MAX_TABLE))
}

/// The evaluation's terms that `options` turn on, in the formats where each measured as a gain.
fn features(options: SearchOptions, format: Format) -> eval::Features {
    // Development and knights' reach measured as a loss in free-for-all, rooks' placement as no
    // gain there, heavier threats as a loss in free-for-all and Duo (engine README).
    let sides = format != Format::FreeForAll;
    let teams = format == Format::Teams;
    eval::Features {
        king_zone: options.king_zone,
        threats: options.threats,
        activation: options.activation && sides,
        knight_reach: options.knight_reach && sides,
        heavy_threats: options.heavy_threats && teams,
        rooks: options.rooks && sides,
    }
}

/// A searcher from `root` in which `army`'s side maximises, with the table and histories of
/// `memory`.
fn searcher<'a>(
    root: &SearchRoot,
    army: Army,
    limits: &SearchLimits<'a>,
    options: SearchOptions,
    memory: (tt::Table, ordering::Heuristics),
) -> Searcher<'a> {
    let view = Perspective {
        root: army,
        format: root.rules.format,
        promotion_rank: root.rules.promotion_rank,
        features: features(options, root.rules.format),
    };
    let state = GameState::new(
        root.rules,
        &root.position,
        root.points,
        root.mate_made_by,
        root.last_mover,
    );
    Searcher::new(
        root.position.clone(),
        state,
        view,
        &root.history,
        root.seat,
        root.moves.clone(),
        Budget::new(limits),
        memory,
        options,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::parse_fen4;
    use crate::rules::Preset;

    /// Searches `root` to `depth` and checks that the position, its hash and the points are
    /// exactly as before: every make was unmade, eliminations and points included.
    fn search_leaves_everything_as_it_was(root: &SearchRoot, depth: u8) {
        let limits = SearchLimits::depth(depth);
        let memory = SearchMemory::default().take();
        let mut s = searcher(
            root,
            root.position.turn(),
            &limits,
            SearchOptions::DEFAULT,
            memory,
        );
        let before = (s.pos.clone(), s.state.points);
        let result = choice::choose_best(&mut s, &limits);
        assert!(root.moves.contains(&result.mv));
        assert_eq!(s.pos, before.0);
        assert_eq!(s.pos.hash(), s.pos.compute_hash());
        assert_eq!(s.state.points, before.1);
        assert_eq!(
            s.state.material,
            GameState::count_material(&s.pos, root.rules.promotion_rank)
        );
        assert!(s.budget.nodes > 0);
    }

    #[test]
    fn each_evaluation_term_is_on_only_in_the_formats_where_it_measured_as_a_gain() {
        let on = |format| features(SearchOptions::DEFAULT, format);
        let teams = on(Format::Teams);
        assert!(teams.heavy_threats && teams.rooks && teams.activation && teams.knight_reach);
        let duo = on(Format::Duo);
        assert!(!duo.heavy_threats && duo.rooks && duo.activation && duo.knight_reach);
        let ffa = on(Format::FreeForAll);
        assert!(!ffa.heavy_threats && !ffa.rooks && !ffa.activation && !ffa.knight_reach);
        for format in [Format::Teams, Format::Duo, Format::FreeForAll] {
            assert!(on(format).king_zone && on(format).threats, "{format:?}");
            let mut off = SearchOptions::DEFAULT;
            off.set("heavythreats", false);
            off.set("rooks", false);
            let off = features(off, format);
            assert!(!off.heavy_threats && !off.rooks, "{format:?}");
        }
    }

    #[test]
    fn searching_leaves_the_position_unchanged_in_every_format() {
        for preset in [Preset::Teams, Preset::Ffa, Preset::Duo] {
            let rules = preset.rules();
            let root = SearchRoot::new(Position::new(&rules).unwrap(), rules);
            search_leaves_everything_as_it_was(&root, 4);
        }
        // Free-for-all with kings to capture and armies to mate: eliminations are unmade too.
        let fen4 = "R-0,0,0,0-0,0,0,0-0,0,0,0-0,0,0,0-0-\
            3,yK,10/14/14/7,bQ,6/bK,13/14/14/7,gK,6/14/14/14/14/7,rQ,6/3,rK,10";
        let setup = parse_fen4(fen4).unwrap();
        let rules = Preset::Ffa.rules();
        let root = SearchRoot::new(Position::from_setup(&setup, &rules).unwrap(), rules)
            .with_points(ByArmy([3, 4, 5, 6]));
        search_leaves_everything_as_it_was(&root, 5);
    }
}
