//! The search: iterative deepening over an alpha-beta minimax in which the bot's side maximises
//! and everyone else minimises.
//!
//! In Teams the two teams alternate every ply and in Duo the two colours do, so this is the
//! ordinary two-sided search. In free-for-all it is the *paranoid* search: the three others are
//! assumed to play against the bot together. Scores are always the value to the bot's side (the
//! root army), so one table and one evaluation serve every format.
//!
//! Each node first settles the turn start as the rules do: with no legal move the side to move is
//! mated or stalemated (out, in free-for-all, and the search goes on with the next player); with a
//! king capture at hand (where the rules allow it) the side to move wins on the spot. Leaves are
//! resolved by a quiescence search over captures and promotions.

use crate::army::{Army, ArmySet};
use crate::game::referee::{Before, Decision};
use crate::game::{DrawReason, Seat, repetition_key};
use crate::moves::{Move, MoveList};
use crate::position::Position;

use super::SearchOptions;
use super::eval::Perspective;
use super::limits::Budget;
use super::ordering::{self, Heuristics, MAX_PLY, Scores};
use super::rules_state::{GameState, MATE, MATE_BOUND, standings};
use super::tt::{Bound, Table};

/// How far the positional terms of the evaluation may plausibly move a material estimate:
/// beyond it, quiescence trusts the estimate.
const LAZY_MARGIN: i32 = 300;

/// Moves searched at depth 1, 2 and 3 before late move pruning skips the quiet ones (a
/// four-player position has 30 to 60 moves).
const LATE_MOVE_COUNTS: [usize; 4] = [0, 10, 16, 24];

/// Larger than any score.
pub(crate) const INFINITY: i32 = MATE + 1_000;

/// One search from one root.
pub(crate) struct Searcher<'a> {
    pub(crate) pos: Position,
    pub(crate) state: GameState,
    pub(crate) view: Perspective,
    /// Repetition keys of the game so far, then of the positions on the current search path.
    keys: Vec<u64>,
    /// Duo: the seat to move at the root (the same player must be to move for a repetition).
    root_seat: Seat,
    pub(crate) tt: Table,
    heuristics: Heuristics,
    pub(crate) budget: Budget<'a>,
    options: SearchOptions,
    /// The moves the root may play.
    root_moves: MoveList,
    /// The best root move of the iteration under way, and its score.
    pub(crate) root_best: Option<(Move, i32)>,
}

impl<'a> Searcher<'a> {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        pos: Position,
        state: GameState,
        view: Perspective,
        history: &[u64],
        root_seat: Seat,
        root_moves: MoveList,
        budget: Budget<'a>,
        tt_entries: usize,
        options: SearchOptions,
    ) -> Searcher<'a> {
        let mut keys = Vec::with_capacity(history.len() + MAX_PLY + 1);
        keys.extend_from_slice(history);
        Searcher {
            pos,
            state,
            view,
            keys,
            root_seat,
            tt: Table::new(tt_entries),
            heuristics: Heuristics::new(),
            budget,
            options,
            root_moves,
            root_best: None,
        }
    }

    /// Whether `army`'s moves maximise the score.
    #[inline]
    fn maximizing(&self, army: Army) -> bool {
        self.view.is_ally(army)
    }

    /// The value of `army` winning the game `ply` plies from the root.
    #[inline]
    fn win_for(&self, army: Army, ply: usize) -> i32 {
        let v = MATE - ply as i32;
        if self.maximizing(army) { v } else { -v }
    }

    /// The value of the game ending as the referee decided, `ply` plies from the root.
    #[inline]
    fn decided(&self, decision: Decision, ply: usize) -> i32 {
        match decision {
            Decision::KingCaptured { by, .. } | Decision::Breakthrough { by } => {
                self.win_for(by, ply)
            }
            Decision::Checkmated { army } => -self.win_for(army, ply),
            Decision::Stalemated { .. } | Decision::Drawn(_) => 0,
            Decision::Standings(_) => standings(&self.state.points, self.view.root),
        }
    }

    /// The repetition key of the current position `ply` plies from the root.
    #[inline]
    fn repetition_key(&self, ply: usize) -> u64 {
        let seat = Seat::ALL[(self.root_seat.index() + ply) % 4];
        repetition_key(&self.pos, self.state.rules.format, seat)
    }

    /// Whether the current position (key `key`) repeats one since the last capture or pawn move.
    /// One repetition is enough: what can be repeated once can be repeated again.
    #[inline]
    fn repeats(&self, key: u64) -> bool {
        let window = usize::from(self.pos.halfmove_clock());
        self.keys.iter().rev().take(window).any(|&k| k == key)
    }

    /// The table key: the position's hash, and in free-for-all the points (the same position
    /// reached with other points is worth something else).
    #[inline]
    fn table_key(&self) -> u64 {
        let mut key = self.pos.hash();
        if self.state.ffa() {
            for (i, p) in self.state.points.0.iter().enumerate() {
                key ^= (*p as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15 >> i);
            }
        }
        key
    }

    /// One iteration at `depth` from the root, within (`alpha`, `beta`).
    pub(crate) fn root(&mut self, depth: i32, alpha: i32, beta: i32) -> i32 {
        self.root_best = None;
        self.node(depth, 0, alpha, beta)
    }

    /// Searches the current position to `depth` (plies; quiescence below 0) and returns its value
    /// to the bot's side, bounded by (`alpha`, `beta`).
    fn node(&mut self, depth: i32, ply: usize, mut alpha: i32, mut beta: i32) -> i32 {
        if self.budget.tick() {
            return 0;
        }
        let ffa = self.state.ffa();
        let key = self.repetition_key(ply);
        if ply > 0 {
            let clock = self.pos.halfmove_clock();
            let rules = &self.state.rules;
            // The limit for one army is the lowest there is: most nodes stop at that test.
            let fifty = rules.fifty_move_limit(1).is_some_and(|n| clock >= n)
                && rules
                    .fifty_move_limit(self.pos.armies_taking_turns().len())
                    .is_some_and(|n| clock >= n);
            if fifty {
                return self.state.draw_value(
                    &mut self.pos,
                    self.view.root,
                    DrawReason::FiftyMoves,
                );
            }
            if self.repeats(key) {
                return self.state.draw_value(
                    &mut self.pos,
                    self.view.root,
                    DrawReason::Repetition,
                );
            }
        }
        if ply >= MAX_PLY {
            return self.evaluate();
        }
        // Generated in place: a move list is several kilobytes, and copying it showed in the
        // profile.
        let mut moves = MoveList::new();
        if ply == 0 {
            moves.clone_from(&self.root_moves);
        } else {
            self.pos.generate(self.pos.turn, ArmySet::ALL, &mut moves);
        }
        let side = self.pos.turn;
        if moves.is_empty() {
            return self.stuck(depth, ply, alpha, beta);
        }
        if self.state.rules.king_capture
            && !ffa
            && moves
                .iter()
                .any(|&m| ordering::is_king_capture(&self.pos, m))
        {
            if ply == 0 {
                let mv = *moves
                    .iter()
                    .find(|&&m| ordering::is_king_capture(&self.pos, m))
                    .expect("just found");
                self.root_best = Some((mv, self.win_for(side, 0)));
            }
            return self.win_for(side, ply);
        }
        let before = self.state.before(&self.pos);
        if depth <= 0 {
            return self.quiesce(&mut moves, &before, ply, alpha, beta);
        }

        let tt_key = self.table_key();
        let hit = self.tt.probe(tt_key);
        if let (Some(hit), true) = (hit, ply > 0) {
            if i32::from(hit.depth) >= depth {
                let score = from_table(hit.score, ply);
                let cut = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if cut {
                    return score;
                }
            }
        }
        let tt_move = hit.and_then(|h| h.mv);

        let (alpha0, beta0) = (alpha, beta);
        let maximizing = self.maximizing(side);
        if self.options.null_move && ply > 0 && depth >= 3 && self.null_move_allowed(side) {
            let stand = self.evaluate();
            let above = if maximizing {
                stand >= beta
            } else {
                stand <= alpha
            };
            if above {
                let saved = (self.pos.turn, self.pos.en_passant, self.pos.hash);
                self.pos.pass_turn();
                self.keys.push(key);
                let v = self.node(depth - 3, ply + 1, alpha, beta);
                self.keys.pop();
                (self.pos.turn, self.pos.en_passant, self.pos.hash) = saved;
                if self.budget.stopped {
                    return 0;
                }
                let cut = if maximizing { v >= beta } else { v <= alpha };
                if cut && v.abs() < MATE_BOUND {
                    return v;
                }
            }
        }
        let mut best = if maximizing { -INFINITY } else { INFINITY };
        let mut best_move = None;
        let mut scores = Scores::new();
        ordering::score_moves(
            &self.pos,
            &moves,
            tt_move,
            &self.heuristics,
            ply,
            &mut scores,
        );
        self.keys.push(key);
        // How many moves late move pruning searches at this depth, if it prunes here.
        let prune_after =
            (self.options.late_move_pruning && ply > 0 && depth <= 3 && !self.pos.is_check(side))
                .then(|| LATE_MOVE_COUNTS[depth as usize]);
        for i in 0..moves.len() {
            ordering::pick(&mut moves, &mut scores, i);
            let mv = moves[i];
            let quiet = ordering::is_quiet(&self.pos, mv);
            let losing = best.abs() >= MATE_BOUND;
            if quiet && best_move.is_some() && !losing && prune_after.is_some_and(|n| i >= n) {
                continue;
            }
            let made = self.state.make(&mut self.pos, mv, &before);
            let score = if let Some(decision) = made.decision {
                self.decided(decision, ply + 1)
            } else {
                let reduce =
                    self.options.late_move_reductions && quiet && depth >= 3 && i >= 4 && ply > 0;
                if reduce {
                    let r = if i >= 12 { 2 } else { 1 };
                    let s = self.node(depth - 1 - r, ply + 1, alpha, beta);
                    // Search again at full depth only if the reduced search says the move may be
                    // good enough to matter.
                    let improves = if maximizing { s > alpha } else { s < beta };
                    if improves && !self.budget.stopped {
                        self.node(depth - 1, ply + 1, alpha, beta)
                    } else {
                        s
                    }
                } else {
                    self.node(depth - 1, ply + 1, alpha, beta)
                }
            };
            self.state.unmake(&mut self.pos, made);
            if self.budget.stopped {
                self.keys.pop();
                return 0;
            }
            let better = if maximizing {
                score > best
            } else {
                score < best
            };
            if better {
                best = score;
                best_move = Some(mv);
                if ply == 0 {
                    self.root_best = Some((mv, score));
                }
            }
            if maximizing {
                alpha = alpha.max(score);
            } else {
                beta = beta.min(score);
            }
            if alpha >= beta {
                if quiet {
                    self.heuristics.reward(&self.pos, mv, ply, depth);
                }
                break;
            }
        }
        self.keys.pop();
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt
            .store(tt_key, best_move, to_table(best, ply), depth as i8, bound);
        best
    }

    /// Whether passing the turn is a fair test of the position: never in free-for-all (where
    /// the others are not one side), in check, or with nothing but pawns (zugzwang).
    fn null_move_allowed(&self, side: Army) -> bool {
        if self.state.ffa() || self.pos.is_check(side) {
            return false;
        }
        self.pos.occupied[side.index()].iter().any(|sq| {
            let role = crate::board::role_bits(crate::board::at(&self.pos.cells, sq));
            role != crate::piece::Role::Pawn as u8 && role != crate::piece::Role::King as u8
        })
    }

    /// The side to move has no legal move: mate or stalemate as the referee decides. In
    /// free-for-all the side is out and, unless that ends the game, the others play on.
    fn stuck(&mut self, depth: i32, ply: usize, alpha: i32, beta: i32) -> i32 {
        let stuck = self.state.no_legal_move(&mut self.pos);
        let value = match stuck.decision {
            Some(decision) => self.decided(decision, ply),
            None => self.node(depth, ply, alpha, beta),
        };
        self.state.unstick(&mut self.pos, stuck);
        value
    }

    /// Captures and promotions only, with the option to stand pat on the static value.
    fn quiesce(
        &mut self,
        moves: &mut MoveList,
        before: &Before,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        let side = self.pos.turn;
        let maximizing = self.maximizing(side);
        let estimate = self
            .view
            .estimate(&self.pos, &self.state.material, &self.state.points.0);
        let far_outside = estimate - LAZY_MARGIN >= beta || estimate + LAZY_MARGIN <= alpha;
        let stand = if far_outside {
            estimate
        } else {
            self.evaluate()
        };
        if maximizing {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
        } else {
            if stand <= alpha {
                return stand;
            }
            beta = beta.min(stand);
        }
        moves.retain(|m| {
            ordering::is_live_capture(&self.pos, *m)
                || ordering::is_king_capture(&self.pos, *m)
                || m.promotion()
                    .is_some_and(|r| r == self.state.rules.promotion.roles()[0])
        });
        let mut best = stand;
        let mut scores = Scores::new();
        ordering::score_moves(&self.pos, moves, None, &self.heuristics, ply, &mut scores);
        for i in 0..moves.len() {
            ordering::pick(moves, &mut scores, i);
            let mv = moves[i];
            let made = self.state.make(&mut self.pos, mv, before);
            let score = if let Some(decision) = made.decision {
                self.decided(decision, ply + 1)
            } else {
                self.node(-1, ply + 1, alpha, beta)
            };
            self.state.unmake(&mut self.pos, made);
            if self.budget.stopped {
                return 0;
            }
            if maximizing {
                best = best.max(score);
                alpha = alpha.max(score);
            } else {
                best = best.min(score);
                beta = beta.min(score);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    #[inline]
    pub(crate) fn evaluate(&self) -> i32 {
        self.view.evaluate(&self.pos, &self.state.points.0)
    }

    /// The principal variation from the table, starting with `first`.
    pub(crate) fn principal_variation(&mut self, first: Move, max: usize) -> Vec<Move> {
        let mut pv = vec![first];
        let mut made = Vec::new();
        let before = self.state.before(&self.pos);
        made.push(self.state.make(&mut self.pos, first, &before));
        let mut seen = vec![self.pos.hash()];
        while pv.len() < max {
            let Some(mv) = self.tt.probe(self.table_key()).and_then(|h| h.mv) else {
                break;
            };
            if !self.pos.legal_moves().contains(&mv) {
                break;
            }
            let before = self.state.before(&self.pos);
            let m = self.state.make(&mut self.pos, mv, &before);
            let over = m.decision.is_some();
            made.push(m);
            pv.push(mv);
            if over || seen.contains(&self.pos.hash()) {
                break;
            }
            seen.push(self.pos.hash());
        }
        while let Some(m) = made.pop() {
            self.state.unmake(&mut self.pos, m);
        }
        pv
    }

    /// Scores every root move with a full window at `depth` (for levels that choose among
    /// several good moves). Moves not reached before the budget ran out keep `None`.
    pub(crate) fn score_root_moves(&mut self, depth: i32) -> Vec<(Move, Option<i32>)> {
        let moves = self.root_moves.clone();
        let key = self.repetition_key(0);
        self.keys.push(key);
        let before = self.state.before(&self.pos);
        let mut out = Vec::with_capacity(moves.len());
        for &mv in &moves {
            if self.budget.stopped {
                out.push((mv, None));
                continue;
            }
            let made = self.state.make(&mut self.pos, mv, &before);
            let score = if let Some(decision) = made.decision {
                self.decided(decision, 1)
            } else {
                self.node(depth - 1, 1, -INFINITY, INFINITY)
            };
            self.state.unmake(&mut self.pos, made);
            out.push((mv, (!self.budget.stopped).then_some(score)));
        }
        self.keys.pop();
        out
    }
}

/// A score as the table keeps it: wins counted from this node, not from the root.
#[inline]
fn to_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

#[inline]
fn from_table(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

impl Searcher<'_> {
    /// The pruning options in force.
    pub(crate) fn options(&self) -> SearchOptions {
        self.options
    }

    /// The moves the root may play.
    pub(crate) fn root_moves_list(&self) -> &MoveList {
        &self.root_moves
    }
}
