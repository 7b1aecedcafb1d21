//! CPU players: one interface for every strategy, the engine's bot behind it, and the bounded
//! pool of blocking threads they think on, off the async runtime.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use fourkings_engine::bot::{
    Bot, BotError, Level, SearchLimits, SearchMemory, SearchResult, SearchRoot,
};
use fourkings_engine::{Game, Move, Seat};
use fourkings_protocol::CpuLevel;
use rand::{Rng, SeedableRng};
use tokio::sync::Semaphore;

/// What a CPU player is asked: the game's position with what the game knows around it (points,
/// positions seen, the moves it may choose from: the legal moves less one just taken back), how
/// long it may think, how strong to play, a seed for its randomness, and a flag the room sets
/// when the answer is no longer wanted.
#[derive(Clone, Debug)]
pub struct CpuRequest {
    /// The position to move in and its game context; its moves are never empty.
    pub root: SearchRoot,
    /// The longest the room can wait: the strategy must answer within it.
    pub budget: Duration,
    /// What the strategy should aim to spend when it can (a game clock's share for this move):
    /// more only while its choice is unsettled, never past `budget`.
    pub target: Option<Duration>,
    /// How strong it should play.
    pub level: CpuLevel,
    /// Seeds any randomness, so a game can be replayed.
    pub seed: u64,
    /// Set by the room when the result has gone stale (the player came back, a takeback, the game
    /// ended): a strategy that thinks for long should stop and answer at once.
    pub cancel: Arc<AtomicBool>,
}

/// A way of choosing moves and answering draw offers. Implementations are pure and synchronous,
/// and must return within the request's budget.
pub trait Strategy: Send + Sync {
    /// One of `request.root.moves()`.
    fn choose(&self, request: &CpuRequest) -> Move;

    /// Whether the CPU playing `seat` agrees to a draw in `game` now. Called on the room's own
    /// task, so it must answer within a few milliseconds. By default it agrees: a CPU stands in
    /// for a person who would be asked.
    fn accepts_draw(&self, game: &Game, seat: Seat, level: CpuLevel) -> bool {
        let _ = (game, seat, level);
        true
    }
}

/// Plays a uniformly random move (seeded) and agrees to every draw.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomMover;

impl Strategy for RandomMover {
    fn choose(&self, request: &CpuRequest) -> Move {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(request.seed);
        let moves = request.root.moves();
        moves[rng.random_range(0..moves.len())]
    }
}

/// The engine's bot at the request's level, within the request's budget, stopped by its cancel
/// flag.
///
/// Hard, which thinks for a time rather than to a node budget, keeps its search memory (the
/// table and the histories) from one search to the next, as an engine playing a whole game does:
/// at a second a move it plays far better so (engine/README.md, "The bot"). The memories are
/// shared by every room, one for each hard search running at once (never more than the CPU
/// threads), each of `--cpu-table-mib`. Easy and medium start every search afresh, so that a
/// node budget gives the same move on any machine.
#[derive(Debug)]
pub struct EngineBot {
    /// Memories not in use by a search.
    memories: Mutex<Vec<SearchMemory>>,
    /// The size of each memory's table.
    table_megabytes: usize,
}

impl EngineBot {
    /// A bot whose hard searches keep tables of `table_megabytes` MiB.
    pub fn new(table_megabytes: usize) -> EngineBot {
        EngineBot {
            memories: Mutex::new(Vec::new()),
            table_megabytes: table_megabytes.max(1),
        }
    }

    /// How many memories are kept for hard searches (not counting those in use).
    pub fn memories_kept(&self) -> usize {
        self.memories
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Chooses with a kept memory (or a new one), and keeps it again afterwards; a search that
    /// panics takes its memory with it.
    fn choose_remembering(
        &self,
        bot: &Bot,
        request: &CpuRequest,
        limits: &SearchLimits<'_>,
    ) -> Result<SearchResult, BotError> {
        let kept = self
            .memories
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let mut memory = kept.unwrap_or_else(|| SearchMemory::with_megabytes(self.table_megabytes));
        let result = bot.choose_with(&mut memory, &request.root, limits, request.seed);
        self.memories
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(memory);
        result
    }
}

impl Default for EngineBot {
    /// Tables of 32 MiB.
    fn default() -> EngineBot {
        EngineBot::new(32)
    }
}

/// The engine's level for a protocol level.
pub fn engine_level(level: CpuLevel) -> Level {
    match level {
        CpuLevel::Easy => Level::Easy,
        CpuLevel::Medium => Level::Medium,
        CpuLevel::Hard => Level::Hard,
    }
}

/// What a draw decision may spend: a short search, so that the room's task is held only for a
/// few milliseconds.
const DRAW_NODES: u64 = 3_000;
const DRAW_TIME: Duration = Duration::from_millis(20);

impl Strategy for EngineBot {
    fn choose(&self, request: &CpuRequest) -> Move {
        let bot = Bot::new(engine_level(request.level));
        // Searches share the cores with the tasks that answer people: they yield now and then.
        let mut limits = SearchLimits::default()
            .with_time(request.budget)
            .with_cancel(&request.cancel)
            .yielding();
        if let Some(target) = request.target {
            limits = limits.with_target(target);
        }
        let chosen = if bot.settings().nodes.is_none() {
            self.choose_remembering(&bot, request, &limits)
        } else {
            bot.choose(&request.root, &limits, request.seed)
        };
        match chosen {
            Ok(result) => result.mv,
            // The room never asks without a move to choose; any legal move is an answer.
            Err(_) => request.root.moves()[0],
        }
    }

    fn accepts_draw(&self, game: &Game, seat: Seat, level: CpuLevel) -> bool {
        let Ok(root) = SearchRoot::from_game(game) else {
            // Nothing can move: no opinion, so agree.
            return true;
        };
        let limits = SearchLimits::nodes(DRAW_NODES).with_time(DRAW_TIME);
        Bot::new(engine_level(level)).accepts_draw(&root, game.army_of(seat), &limits)
    }
}

/// Runs strategies on at most `threads` blocking threads at once.
#[derive(Clone)]
pub(crate) struct CpuPool {
    permits: Arc<Semaphore>,
    pub(crate) strategy: Arc<dyn Strategy>,
}

impl CpuPool {
    pub(crate) fn new(threads: usize, strategy: Arc<dyn Strategy>) -> CpuPool {
        CpuPool {
            permits: Arc::new(Semaphore::new(threads.max(1))),
            strategy,
        }
    }

    /// Thinks about `request` on the pool and returns what it chose and how long choosing took
    /// on its thread. Time spent waiting for a thread counts against the budget: the room's wait
    /// is what the budget bounds.
    ///
    /// There is always an answer while the server runs: a strategy that panics, or answers with
    /// a move it was not offered, is replaced by a seeded random one of the offered moves (the
    /// answer says so), so that no seat is left waiting for a move that never comes. `None` only
    /// when the runtime is shutting down.
    pub(crate) async fn think(&self, mut request: CpuRequest) -> Option<Thought> {
        let asked = std::time::Instant::now();
        let permit = self.permits.clone().acquire_owned().await.ok()?;
        let waited = asked.elapsed();
        request.budget = request.budget.saturating_sub(waited);
        request.target = request.target.map(|t| t.saturating_sub(waited));
        let strategy = self.strategy.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let began = std::time::Instant::now();
            let chosen = std::panic::catch_unwind(AssertUnwindSafe(|| strategy.choose(&request)));
            let (mv, failure) = match chosen {
                Ok(mv) if request.root.moves().contains(&mv) => (mv, None),
                Ok(mv) => (
                    RandomMover.choose(&request),
                    Some(CpuFailure::NotOffered(mv.to_string())),
                ),
                Err(payload) => (
                    RandomMover.choose(&request),
                    Some(CpuFailure::Panicked(crate::panics::message(
                        payload.as_ref(),
                    ))),
                ),
            };
            Thought {
                mv,
                took: began.elapsed(),
                failure,
            }
        })
        .await
        .ok()
    }
}

/// What the pool's thinking came to.
#[derive(Debug)]
pub(crate) struct Thought {
    /// The move to play: one of the request's moves.
    pub(crate) mv: Move,
    /// How long choosing it took on its thread.
    pub(crate) took: Duration,
    /// Why the strategy's own answer was replaced, if it was.
    pub(crate) failure: Option<CpuFailure>,
}

/// Why a strategy's answer could not be played.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CpuFailure {
    /// The strategy panicked.
    #[error("the CPU search panicked: {0}")]
    Panicked(String),
    /// The strategy chose a move it was not offered.
    #[error("the CPU chose {0}, which was not among the moves it was offered")]
    NotOffered(String),
}

#[cfg(test)]
mod tests {
    use fourkings_engine::Preset;

    use super::*;

    fn request(level: CpuLevel) -> CpuRequest {
        let game = Game::new(Preset::Teams.rules()).unwrap();
        CpuRequest {
            root: SearchRoot::from_game(&game).unwrap(),
            budget: Duration::from_millis(30),
            target: None,
            level,
            seed: 1,
            cancel: Arc::new(AtomicBool::new(false)),
        }
    }

    #[test]
    fn hard_keeps_one_memory_between_searches_and_the_node_budgeted_levels_none() {
        let bot = EngineBot::new(1);
        let medium = request(CpuLevel::Medium);
        assert!(medium.root.moves().contains(&bot.choose(&medium)));
        assert_eq!(bot.memories_kept(), 0);
        let hard = request(CpuLevel::Hard);
        for _ in 0..2 {
            assert!(hard.root.moves().contains(&bot.choose(&hard)));
            assert_eq!(bot.memories_kept(), 1);
        }
    }
}
