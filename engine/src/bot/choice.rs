//! How a level turns the search into a move: the best move of the deepest iteration, or (for a
//! level that errs) a choice among the moves scored one by one, with seeded noise and the odd
//! slip.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::moves::Move;

use super::SearchResult;
use super::level::LevelSettings;
use super::limits::SearchLimits;
use super::ordering;
use super::rules_state::MATE_BOUND;
use super::search::{INFINITY, Searcher};

/// Half the width of an aspiration window, in centipawns.
const ASPIRATION: i32 = 40;

/// How far an iteration's score may fall below the one before with its choice still settled.
const SETTLED_DROP: i32 = 30;
/// Below this depth an iteration with no earlier one to compare with counts as settled.
const SETTLED_FROM: i32 = 4;

/// The deepest iteration allowed by `limits`.
fn max_depth(limits: &SearchLimits<'_>) -> i32 {
    i32::from(limits.depth.unwrap_or(64).clamp(1, 100))
}

/// Iterative deepening: the best move of the deepest iteration (or of a cut-short iteration,
/// whose first move searched is the previous best, so whatever beat it is better).
pub(crate) fn choose_best(s: &mut Searcher<'_>, limits: &SearchLimits<'_>) -> SearchResult {
    let mut best: Option<(Move, i32)> = None;
    let mut depth_done = 0;
    for depth in 1..=max_depth(limits) {
        let before = s.budget.nodes;
        let previous = best.map(|(_, v)| v);
        let (mut alpha, mut beta) = match previous {
            Some(v) if s.options().aspiration && depth >= 4 && v.abs() < MATE_BOUND => {
                (v - ASPIRATION, v + ASPIRATION)
            }
            _ => (-INFINITY, INFINITY),
        };
        loop {
            let v = s.root(depth, alpha, beta);
            if s.budget.stopped {
                break;
            }
            // Outside the window: the score is only a bound; search again with the side open.
            if v <= alpha && alpha > -INFINITY {
                alpha = -INFINITY;
            } else if v >= beta && beta < INFINITY {
                beta = INFINITY;
            } else {
                break;
            }
        }
        let settled = match (best, s.root_best) {
            (Some((was, old)), Some((now, new))) => was == now && new >= old - SETTLED_DROP,
            _ => depth < SETTLED_FROM,
        };
        if let Some(found) = s.root_best {
            best = Some(found);
        }
        if s.budget.stopped {
            break;
        }
        s.budget.settle(settled);
        depth_done = depth;
        let last_nodes = s.budget.nodes - before;
        let decided = best.is_some_and(|(_, v)| v.abs() > MATE_BOUND);
        if decided
            || !s
                .budget
                .worth_another_iteration(last_nodes, s.options().use_all_time)
        {
            break;
        }
    }
    // Not even one iteration finished: the first move in ordering is a sensible fallback.
    let (mv, score) = best.unwrap_or_else(|| (fallback(s), s.evaluate()));
    finish(s, mv, score, depth_done)
}

/// Scores every root move one by one at growing depth, then picks with noise and slips: a
/// player who sees the position but not every line, and sometimes looks away.
pub(crate) fn choose_with_slips(
    s: &mut Searcher<'_>,
    settings: &LevelSettings,
    limits: &SearchLimits<'_>,
    seed: u64,
) -> SearchResult {
    // A king to take or a win in one is never missed: that would not look human but broken.
    if let Some(&mv) = s
        .root_moves_list()
        .iter()
        .find(|&&m| ordering::is_king_capture(&s.pos, m))
    {
        let score = s.evaluate();
        return finish(s, mv, score, 0);
    }
    let mut scored: Vec<(Move, Option<i32>)> =
        s.root_moves_list().iter().map(|&m| (m, None)).collect();
    let mut depth_done = 0;
    for depth in 1..=max_depth(limits) {
        let round = s.score_root_moves(depth);
        for (slot, (_, score)) in scored.iter_mut().zip(round) {
            if score.is_some() {
                slot.1 = score;
            }
        }
        if s.budget.stopped {
            break;
        }
        depth_done = depth;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let noise = settings.noise.max(0);
    let mut ranked: Vec<(Move, i32, i32)> = scored
        .iter()
        .filter_map(|&(mv, score)| score.map(|v| (mv, v)))
        .map(|(mv, v)| {
            // A sum of two uniform draws: small errors are common, large ones rare.
            let jitter = if noise > 0 {
                rng.random_range(-noise..=noise) / 2 + rng.random_range(-noise..=noise) / 2
            } else {
                0
            };
            let noisy = if v.abs() > MATE_BOUND { v } else { v + jitter };
            (mv, v, noisy)
        })
        .collect();
    if ranked.is_empty() {
        let mv = fallback(s);
        let score = s.evaluate();
        return finish(s, mv, score, 0);
    }
    ranked.sort_by_key(|r| std::cmp::Reverse(r.2));
    let mut pick = 0;
    let forced = ranked[0].1 > MATE_BOUND;
    if !forced && rng.random_range(0..100) < u32::from(settings.blunder_percent) {
        // A slip: the second or third choice, but never a move that loses by force.
        let slip = rng.random_range(1..=2usize);
        if slip < ranked.len() && ranked[slip].1 > -MATE_BOUND {
            pick = slip;
        }
    }
    let (mv, score, _) = ranked[pick];
    finish(s, mv, score, depth_done)
}

/// The value of the root to the searcher's side: iterative deepening over the whole tree.
pub(crate) fn assess(s: &mut Searcher<'_>, limits: &SearchLimits<'_>) -> i32 {
    let mut value = s.evaluate();
    for depth in 1..=max_depth(limits) {
        let before = s.budget.nodes;
        let v = s.root(depth, -INFINITY, INFINITY);
        if s.budget.stopped {
            break;
        }
        value = v;
        let last_nodes = s.budget.nodes - before;
        if v.abs() > MATE_BOUND || !s.budget.worth_another_iteration(last_nodes, false) {
            break;
        }
    }
    value
}

/// The first root move in ordering (captures first), for when no iteration finished.
fn fallback(s: &Searcher<'_>) -> Move {
    let moves = s.root_moves_list();
    moves
        .iter()
        .copied()
        .find(|&m| ordering::is_live_capture(&s.pos, m))
        .unwrap_or(moves[0])
}

fn finish(s: &mut Searcher<'_>, mv: Move, score: i32, depth: i32) -> SearchResult {
    let pv = s.principal_variation(mv, 16);
    SearchResult {
        mv,
        score,
        depth: depth.clamp(0, 255) as u8,
        nodes: s.budget.nodes,
        pv,
        elapsed: s.budget.elapsed(),
    }
}
