//! CPU players: one interface for every strategy, and the bounded pool of blocking threads they
//! think on, off the async runtime.

use std::sync::Arc;
use std::time::Duration;

use fourkings_engine::{Move, MoveList, Position, RuleSet};
use fourkings_protocol::CpuLevel;
use rand::{Rng, SeedableRng};
use tokio::sync::Semaphore;

/// What a CPU player is asked: the position, the rules, the moves it may choose from (the legal
/// moves, less one just taken back), how long it may think, and a seed for its randomness.
#[derive(Clone, Debug)]
pub struct CpuRequest {
    /// The position to move in.
    pub position: Position,
    /// The rules of the game.
    pub rules: RuleSet,
    /// The moves it may choose from (never empty).
    pub moves: MoveList,
    /// How long it may think.
    pub budget: Duration,
    /// How strong it should play.
    pub level: CpuLevel,
    /// Seeds any randomness, so a game can be replayed.
    pub seed: u64,
}

/// A way of choosing moves. Implementations are pure and synchronous and must return within the
/// request's budget.
pub trait Strategy: Send + Sync {
    /// One of `request.moves`.
    fn choose(&self, request: &CpuRequest) -> Move;
}

/// Plays a uniformly random move (seeded).
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomMover;

impl Strategy for RandomMover {
    fn choose(&self, request: &CpuRequest) -> Move {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(request.seed);
        request.moves[rng.random_range(0..request.moves.len())]
    }
}

/// Runs strategies on at most `threads` blocking threads at once.
#[derive(Clone)]
pub(crate) struct CpuPool {
    permits: Arc<Semaphore>,
    strategy: Arc<dyn Strategy>,
}

impl CpuPool {
    pub(crate) fn new(threads: usize, strategy: Arc<dyn Strategy>) -> CpuPool {
        CpuPool {
            permits: Arc::new(Semaphore::new(threads.max(1))),
            strategy,
        }
    }

    /// Thinks about `request` on the pool and returns the chosen move.
    pub(crate) async fn think(&self, request: CpuRequest) -> Option<Move> {
        let permit = self.permits.clone().acquire_owned().await.ok()?;
        let strategy = self.strategy.clone();
        let mv = tokio::task::spawn_blocking(move || {
            let _permit = permit;
            strategy.choose(&request)
        })
        .await
        .ok()?;
        Some(mv)
    }
}
