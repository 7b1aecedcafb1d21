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

use std::sync::LazyLock;

use crate::army::{Army, ArmySet};
use crate::game::referee::{Before, Decision};
use crate::game::{DrawReason, Seat, repetition_key};
use crate::moves::{Move, MoveList};
use crate::position::Position;

use super::SearchOptions;
use super::eval::{Perspective, VALUE};
use super::limits::Budget;
use super::ordering::{self, CONTINUATION_PLIES, Context, Heuristics, MAX_PLY, Scores};
use super::rules_state::{GameState, MATE, MATE_BOUND, standings};
use super::tt::{Bound, Table};
use crate::board::{at, role_bits};

/// How far the positional terms of the evaluation may plausibly move a material estimate:
/// beyond it, quiescence trusts the estimate.
const LAZY_MARGIN: i32 = 300;

/// Moves searched at depth 1, 2 and 3 before late move pruning skips the quiet ones (a
/// four-player position has 30 to 60 moves).
const LATE_MOVE_COUNTS: [usize; 4] = [0, 10, 16, 24];

/// The deepest remaining depth at which futility pruning applies.
const FUTILITY_DEPTH: i32 = 3;
/// Reverse futility: how far above the window, per ply of depth, the static value must stand.
const STATIC_MARGIN: i32 = 120;
/// Futility: how much a quiet move might gain per ply of depth.
const FUTILITY_MARGIN: i32 = 150;
/// The deepest remaining depth at which late move pruning applies.
const LMP_DEPTH: i32 = 6;
/// Check extensions along one line of play, at most.
const MAX_EXTENSIONS: u32 = 3;

/// Quiet moves searched at `depth` before late move pruning skips the rest, if it prunes there.
fn late_move_count(pvs: bool, depth: i32) -> Option<usize> {
    if pvs {
        (depth <= LMP_DEPTH).then(|| (3 + depth * depth) as usize)
    } else {
        LATE_MOVE_COUNTS.get(depth as usize).copied()
    }
}

/// Late move reductions by remaining depth and move number: about ln(depth)·ln(number)/2, so
/// that the later a move comes and the deeper the search, the more it is reduced.
static REDUCTIONS: LazyLock<[[u8; 64]; 64]> = LazyLock::new(|| {
    let mut table = [[0u8; 64]; 64];
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (number, r) in row.iter_mut().enumerate().skip(1) {
            let value = 0.5 + (depth as f64).ln() * (number as f64).ln() / 2.0;
            *r = value as u8;
        }
    }
    table
});

/// Quiescence: what a capture may gain beyond the piece it takes (positional swings).
const DELTA_MARGIN: i32 = 200;

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
    /// Check extensions on the line being searched.
    extended: u32,
    /// The context of the move made at each ply of the line being searched (for the
    /// continuation histories).
    contexts: [Context; MAX_PLY + 1],
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
            extended: 0,
            contexts: [0; MAX_PLY + 1],
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

        let options = self.options;
        let maximizing = self.maximizing(side);
        // A PV node is one searched with an open window: its exact value is wanted.
        let pv_node = beta - alpha > 1;
        let tt_key = self.table_key();
        let hit = self.tt.probe(tt_key);
        if let (Some(hit), true) = (hit, ply > 0 && !(options.principal_variation && pv_node)) {
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
        // The window and the static value as the side to move sees them (higher is better for
        // it), so that each pruning rule is written once for both sides.
        let sign = if maximizing { 1 } else { -1 };
        let (side_alpha, side_beta) = if maximizing {
            (alpha, beta)
        } else {
            (-beta, -alpha)
        };
        let in_check = self.pos.is_check(side);
        let prunable = ply > 0 && !pv_node && !in_check;
        let static_value = (prunable && (options.futility || options.null_move))
            .then(|| sign * self.static_value(hit.map(|h| from_table(h.score, ply)), depth))
            .filter(|v| v.abs() < MATE_BOUND);

        if let (true, Some(v)) = (options.futility && depth <= FUTILITY_DEPTH, static_value) {
            // Reverse futility: so far above the window that one quiet ply will not undo it.
            if v - STATIC_MARGIN * depth >= side_beta && side_beta.abs() < MATE_BOUND {
                return sign * v;
            }
        }
        if let (true, Some(v)) = (options.null_move && depth >= 2, static_value) {
            if v >= side_beta && self.null_move_allowed(side) {
                let reduction = (depth / 3 + 2).min(depth);
                let (a, b) = if maximizing {
                    (beta - 1, beta)
                } else {
                    (alpha, alpha + 1)
                };
                let saved = (self.pos.turn, self.pos.en_passant, self.pos.hash);
                self.contexts[ply] = 0;
                self.pos.pass_turn();
                self.keys.push(key);
                let v = self.node(depth - reduction, ply + 1, a, b);
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
        let earlier = self.earlier_contexts(ply);
        ordering::score_moves(
            &self.pos,
            &moves,
            tt_move,
            &self.heuristics,
            ply,
            &earlier,
            &mut scores,
        );
        // Quiet moves searched without a cutoff, penalised if a later one causes it.
        let mut tried = arrayvec::ArrayVec::<Move, 32>::new();
        self.keys.push(key);
        // How many quiet moves late move pruning searches at this depth, if it prunes here.
        let prune_after = (options.late_move_pruning && prunable)
            .then(|| late_move_count(options.principal_variation, depth))
            .flatten();
        // Quiet moves that cannot lift the static value to the window are skipped.
        let futile = options.futility
            && prunable
            && depth <= FUTILITY_DEPTH
            && static_value.is_some_and(|v| v + FUTILITY_MARGIN * depth <= side_alpha);
        let mut quiets = 0;
        // Enemies already in check before this node's move: a move checks only those it puts
        // in check.
        let checked_before = self.enemies_in_check(side);
        for i in 0..moves.len() {
            ordering::pick(&mut moves, &mut scores, i);
            let mv = moves[i];
            let quiet = ordering::is_quiet(&self.pos, mv);
            let losing = best.abs() >= MATE_BOUND;
            let may_prune = quiet && best_move.is_some() && !losing;
            let pruned_late = may_prune && prune_after.is_some_and(|n| quiets >= n);
            let pruned_futile = may_prune && futile;
            self.contexts[ply] =
                ordering::context(role_bits(at(&self.pos.cells, mv.from())), mv.to());
            let made = self.state.make(&mut self.pos, mv, &before);
            // An enemy put in check (the next player, or the one who moves after the partner,
            // whom the partner may not save): never pruned or reduced, and perhaps extended.
            let checks = made.decision.is_none()
                && (options.check_extensions || pruned_late || pruned_futile)
                && (self.pos.is_check(self.pos.turn)
                    || self.enemies_in_check(side) & !checked_before != 0);
            if (pruned_late || pruned_futile) && !checks {
                self.state.unmake(&mut self.pos, made);
                continue;
            }
            if quiet && !checks {
                quiets += 1;
            }
            let extend = options.check_extensions
                && checks
                && self.extended < MAX_EXTENSIONS
                && (i < 6 || pv_node);
            let new_depth = depth - 1 + i32::from(extend);
            self.extended += u32::from(extend);
            let score = if let Some(decision) = made.decision {
                self.decided(decision, ply + 1)
            } else if i == 0 {
                self.node(new_depth, ply + 1, alpha, beta)
            } else {
                let reduction =
                    if options.late_move_reductions && quiet && !checks && depth >= 3 && ply > 0 {
                        self.reduction(depth, i, pv_node)
                    } else {
                        0
                    };
                self.search_late_move(new_depth, reduction, ply, alpha, beta, maximizing)
            };
            self.extended -= u32::from(extend);
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
                    self.heuristics
                        .reward(&self.pos, mv, &tried, &earlier, ply, depth);
                }
                break;
            }
            if quiet {
                let _ = tried.try_push(mv);
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

    /// The contexts of the moves [`CONTINUATION_PLIES`] before the node at `ply` (none before
    /// the root).
    fn earlier_contexts(&self, ply: usize) -> [Context; 3] {
        CONTINUATION_PLIES.map(|back| ply.checked_sub(back).map_or(0, |p| self.contexts[p]))
    }

    /// What the pruning rules take the current position to be worth before searching it: the
    /// table's score where there is one, the full evaluation near the leaves, and the material
    /// estimate further up (where a full evaluation at every node cost a third of the speed).
    fn static_value(&self, table_score: Option<i32>, depth: i32) -> i32 {
        match table_score {
            Some(score) if score.abs() < MATE_BOUND => score,
            _ if depth <= FUTILITY_DEPTH => self.evaluate(),
            _ => self
                .view
                .estimate(&self.pos, &self.state.material, &self.state.points.0),
        }
    }

    /// How many plies late move reductions take off the `i`th move at `depth`.
    fn reduction(&self, depth: i32, i: usize, pv_node: bool) -> i32 {
        if !self.options.principal_variation {
            // The reductions measured before principal variation search.
            return if i < 4 {
                0
            } else if i >= 12 {
                2
            } else {
                1
            };
        }
        let r = REDUCTIONS[(depth as usize).min(63)][i.min(63)];
        (i32::from(r) - i32::from(pv_node)).max(0)
    }

    /// Searches a move after the first to `depth`, `reduction` plies shallower first, with a
    /// null window first where principal variation search is on; again deeper or with the whole
    /// window only where the cheaper search says the move may matter.
    fn search_late_move(
        &mut self,
        depth: i32,
        reduction: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        maximizing: bool,
    ) -> i32 {
        let improves = |s: i32| if maximizing { s > alpha } else { s < beta };
        if !self.options.principal_variation {
            if reduction > 0 {
                let s = self.node(depth - reduction, ply + 1, alpha, beta);
                if !improves(s) || self.budget.stopped {
                    return s;
                }
            }
            return self.node(depth, ply + 1, alpha, beta);
        }
        let (a, b) = if maximizing {
            (alpha, alpha + 1)
        } else {
            (beta - 1, beta)
        };
        let reduction = reduction.clamp(0, (depth - 1).max(0));
        let mut s = self.node(depth - reduction, ply + 1, a, b);
        if reduction > 0 && improves(s) && !self.budget.stopped {
            s = self.node(depth, ply + 1, a, b);
        }
        let inside = s > alpha && s < beta;
        if inside && beta - alpha > 1 && !self.budget.stopped {
            s = self.node(depth, ply + 1, alpha, beta);
        }
        s
    }

    /// The enemies of `side` whose kings are attacked, as a bit per army.
    fn enemies_in_check(&self, side: Army) -> u8 {
        Army::ALL
            .into_iter()
            .filter(|&a| self.pos.is_enemy(side, a) && self.pos.is_check(a))
            .fold(0, |mask, a| mask | 1 << a.index())
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
        let best_promotion = self.state.rules.promotion.roles()[0];
        let side_alpha = if maximizing { alpha } else { -beta };
        let side_stand = if maximizing { stand } else { -stand };
        let prune = self.options.quiescence_pruning;
        let pos = &self.pos;
        moves.retain(|m| {
            let m = *m;
            if ordering::is_king_capture(pos, m) {
                return true;
            }
            if m.promotion().is_some_and(|r| r == best_promotion) {
                return true;
            }
            if !ordering::is_live_capture(pos, m) {
                return false;
            }
            if !prune {
                return true;
            }
            let victim = VALUE[role_bits(ordering::victim(pos, m)) as usize];
            // Delta pruning: even winning the piece for nothing leaves the side short.
            if side_stand + victim + DELTA_MARGIN <= side_alpha {
                return false;
            }
            // A capture of a lesser piece on a defended square loses material.
            let attacker = VALUE[role_bits(at(&pos.cells, m.from())) as usize];
            victim >= attacker || !pos.is_attacked(m.to(), side)
        });
        let mut best = stand;
        let mut scores = Scores::new();
        ordering::score_moves(
            &self.pos,
            moves,
            None,
            &self.heuristics,
            ply,
            &[0; 3],
            &mut scores,
        );
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
