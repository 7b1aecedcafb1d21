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

use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use crate::army::{Army, ArmySet};
use crate::game::referee::{Before, Decision};
use crate::game::{DrawReason, Seat, repetition_key};
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::rules::{Format, RuleSet};

use super::SearchOptions;
use super::eval::{Perspective, VALUE};
use super::limits::Budget;
use super::ordering::{self, CONTINUATION_PLIES, Context, Heuristics, MAX_PLY, Scores};
use super::rules_state::{GameState, MATE, MATE_BOUND, standings};
use super::tt::{Bound, Hit, Table};
use crate::board::{at, role_bits};

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

/// Deep reductions: a ply more for every this many plies of depth beyond
/// [`DEEP_REDUCTIONS_FROM`].
const DEEP_REDUCTION_STEP: i32 = 3;
/// Deep reductions: the depth beyond which they begin to grow.
const DEEP_REDUCTIONS_FROM: i32 = 5;
/// How far a side's static value must rise or fall from two plies up the line to count as
/// improving or declining.
const TREND_MARGIN: i32 = 150;
/// No static value at this ply (in check, or not computed).
const NO_VALUE: i32 = i32::MIN;

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
    /// Mixed into every table key, so that a table kept between searches for different armies,
    /// rules or evaluations never gives one's score to another ([`table_salt`]).
    table_salt: u64,
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
    /// The static value at each ply of the line being searched, as the side to move there sees
    /// it ([`NO_VALUE`] where there is none), for [`SearchOptions::improving`].
    static_values: [i32; MAX_PLY + 1],
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
        (tt, mut heuristics): (Table, Heuristics),
        options: SearchOptions,
    ) -> Searcher<'a> {
        let mut keys = Vec::with_capacity(history.len() + MAX_PLY + 1);
        keys.extend_from_slice(history);
        heuristics.begin_search();
        let table_salt = table_salt(&view, &state.rules);
        Searcher {
            pos,
            state,
            view,
            keys,
            root_seat,
            tt,
            table_salt,
            heuristics,
            budget,
            options,
            root_moves,
            root_best: None,
            extended: 0,
            contexts: [0; MAX_PLY + 1],
            static_values: [NO_VALUE; MAX_PLY + 1],
        }
    }

    /// The table and histories, for the next search.
    pub(crate) fn into_memory(self) -> (Table, Heuristics) {
        (self.tt, self.heuristics)
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
        let mut key = self.pos.hash() ^ self.table_salt;
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
    fn node(&mut self, depth: i32, ply: usize, alpha: i32, beta: i32) -> i32 {
        if self.budget.tick() {
            return 0;
        }
        let key = self.repetition_key(ply);
        if let Some(draw) = self.drawn_by_rule(ply, key) {
            return draw;
        }
        if ply >= MAX_PLY {
            return self.evaluate();
        }
        // A PV node is one searched with an open window: its exact value is wanted.
        let pv_node = beta - alpha > 1;
        let tt_key = self.table_key();
        // Asked before the moves are generated, which a node the table settles never needs (a
        // node with no move or a king capture at hand returns before it stores an entry).
        let hit = (depth > 0).then(|| self.tt.probe(tt_key)).flatten();
        if let Some(score) = self.table_cut(hit, depth, ply, (alpha, beta), pv_node) {
            return score;
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
        if let Some(win) = self.king_capture_win(&moves, side, ply) {
            return win;
        }
        let before = self.state.before(&self.pos);
        if depth <= 0 {
            return self.quiesce(&mut moves, &before, ply, alpha, beta);
        }
        let node = self.facts(NodeAt { depth, ply, key }, side, pv_node, hit);
        self.static_values[ply] = node.trend_value.unwrap_or(NO_VALUE);
        if let Some(score) = self.cut_before_moves(&node, alpha, beta) {
            return score;
        }
        let tt_move = hit.and_then(|h| h.mv);
        let (best, best_move) = self.search_moves(&node, &mut moves, &before, tt_move, alpha, beta);
        if self.budget.stopped {
            return 0;
        }
        let bound = if best <= alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.tt
            .store(tt_key, best_move, to_table(best, ply), depth as i8, bound);
        best
    }

    /// The draw the rules declare at a node below the root (the fifty-move rule, a repetition),
    /// valued for the bot's side.
    fn drawn_by_rule(&mut self, ply: usize, key: u64) -> Option<i32> {
        if ply == 0 {
            return None;
        }
        let clock = self.pos.halfmove_clock();
        let rules = &self.state.rules;
        // The limit for one army is the lowest there is: most nodes stop at that test.
        let fifty = rules.fifty_move_limit(1).is_some_and(|n| clock >= n)
            && rules
                .fifty_move_limit(self.pos.armies_taking_turns().len())
                .is_some_and(|n| clock >= n);
        let reason = if fifty {
            DrawReason::FiftyMoves
        } else if self.repeats(key) {
            DrawReason::Repetition
        } else {
            return None;
        };
        Some(self.state.draw_value(&mut self.pos, self.view.root, reason))
    }

    /// A win for `side` when one of `moves` takes a king (king capture on, outside
    /// free-for-all, where a king taken is points rather than the end).
    fn king_capture_win(&mut self, moves: &MoveList, side: Army, ply: usize) -> Option<i32> {
        if !self.state.rules.king_capture || self.state.ffa() {
            return None;
        }
        let mv = *moves
            .iter()
            .find(|&&m| ordering::is_king_capture(&self.pos, m))?;
        if ply == 0 {
            self.root_best = Some((mv, self.win_for(side, 0)));
        }
        Some(self.win_for(side, ply))
    }

    /// The table's score, where an entry deep enough settles the node (never at the root, nor
    /// at a PV node when principal variation search wants its exact value).
    fn table_cut(
        &self,
        hit: Option<Hit>,
        depth: i32,
        ply: usize,
        (alpha, beta): (i32, i32),
        pv_node: bool,
    ) -> Option<i32> {
        let hit = hit?;
        if ply == 0 || (self.options.principal_variation && pv_node) {
            return None;
        }
        if i32::from(hit.depth) < depth {
            return None;
        }
        let score = from_table(hit.score, ply);
        let cut = match hit.bound {
            Bound::Exact => true,
            Bound::Lower => score >= beta,
            Bound::Upper => score <= alpha,
        };
        cut.then_some(score)
    }

    /// What the pruning rules know of a node before its moves are searched.
    fn facts(&self, at: NodeAt, side: Army, pv_node: bool, hit: Option<Hit>) -> NodeFacts {
        let maximizing = self.maximizing(side);
        let prunable = at.ply > 0 && !pv_node && !self.pos.is_check(side);
        let options = self.options;
        let sign = if maximizing { 1 } else { -1 };
        let static_value = (prunable && (options.futility || options.null_move))
            .then(|| {
                let table_score = hit.map(|h| from_table(h.score, at.ply));
                sign * self.static_value(table_score, at.depth)
            })
            .filter(|v| v.abs() < MATE_BOUND);
        let trend_value = (options.improving && !self.pos.is_check(side))
            .then(|| match static_value {
                // Near the leaves the pruning rules' value is already the full evaluation.
                Some(v) if at.depth <= FUTILITY_DEPTH => v,
                _ => {
                    let table_score = hit
                        .map(|h| from_table(h.score, at.ply))
                        .filter(|s| s.abs() < MATE_BOUND);
                    sign * table_score.unwrap_or_else(|| self.evaluate())
                }
            })
            .filter(|v| v.abs() < MATE_BOUND);
        let trend = match (trend_value, at.ply.checked_sub(2)) {
            (Some(now), Some(up)) if self.static_values[up] != NO_VALUE => {
                let before = self.static_values[up];
                if now > before + TREND_MARGIN {
                    1
                } else if now + TREND_MARGIN < before {
                    -1
                } else {
                    0
                }
            }
            _ => 0,
        };
        NodeFacts {
            at,
            side,
            maximizing,
            pv_node,
            prunable,
            static_value,
            trend_value,
            trend,
        }
    }

    /// A cutoff before any move is searched: reverse futility (so far above the window that one
    /// quiet ply will not undo it), or a null move that still fails high.
    fn cut_before_moves(&mut self, node: &NodeFacts, alpha: i32, beta: i32) -> Option<i32> {
        let options = self.options;
        let NodeAt { depth, ply, key } = node.at;
        let static_value = node.static_value?;
        let (_, side_beta) = node.side_window(alpha, beta);
        if options.futility
            && depth <= FUTILITY_DEPTH
            && static_value - STATIC_MARGIN * depth >= side_beta
            && side_beta.abs() < MATE_BOUND
        {
            return Some(node.sign() * static_value);
        }
        if !(options.null_move && depth >= 2)
            || static_value < side_beta
            || !self.null_move_allowed(node.side)
        {
            return None;
        }
        let reduction = (depth / 3 + 2).min(depth);
        let (a, b) = if node.maximizing {
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
            return Some(0);
        }
        let cut = if node.maximizing {
            v >= beta
        } else {
            v <= alpha
        };
        (cut && v.abs() < MATE_BOUND).then_some(v)
    }

    /// Searches the node's moves in order, best first, until one cuts off: the best score and
    /// the move that gave it (`None` when every move was pruned, or nothing beat the window).
    // One piece: alpha-beta's move loop, whose pruning, search and cutoff of each move read and
    // change the state it carries (the best so far, the window, the quiet moves tried).
    fn search_moves(
        &mut self,
        node: &NodeFacts,
        moves: &mut MoveList,
        before: &Before,
        tt_move: Option<Move>,
        mut alpha: i32,
        mut beta: i32,
    ) -> (i32, Option<Move>) {
        let options = self.options;
        let NodeAt { depth, ply, key } = node.at;
        let maximizing = node.maximizing;
        let mut best = if maximizing { -INFINITY } else { INFINITY };
        let mut best_move = None;
        let mut scores = Scores::new();
        let earlier = self.earlier_contexts(ply);
        ordering::score_moves(
            &self.pos,
            moves,
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
        let prune_after = (options.late_move_pruning && node.prunable)
            .then(|| late_move_count(options.principal_variation, depth))
            .flatten();
        // Quiet moves that cannot lift the static value to the window are skipped.
        let (side_alpha, _) = node.side_window(alpha, beta);
        let futile = options.futility
            && node.prunable
            && depth <= FUTILITY_DEPTH
            && node
                .static_value
                .is_some_and(|v| v + FUTILITY_MARGIN * depth <= side_alpha);
        let mut quiets = 0;
        // Enemies already in check before this node's move: a move checks only those it puts
        // in check.
        let checked_before = self.enemies_in_check(node.side);
        for i in 0..moves.len() {
            ordering::pick(moves, &mut scores, i);
            let mv = moves[i];
            let order = scores[i];
            let quiet = ordering::is_quiet(&self.pos, mv);
            let losing = best.abs() >= MATE_BOUND;
            let may_prune = quiet && best_move.is_some() && !losing;
            let pruned = may_prune && (futile || prune_after.is_some_and(|n| quiets >= n));
            self.contexts[ply] =
                ordering::context(role_bits(at(&self.pos.cells, mv.from())), mv.to());
            let made = self.state.make(&mut self.pos, mv, before);
            // An enemy put in check (the next player, or the one who moves after the partner,
            // whom the partner may not save): never pruned or reduced, and perhaps extended.
            let checks = made.decision.is_none()
                && (options.check_extensions || pruned)
                && (self.pos.is_check(self.pos.turn)
                    || self.enemies_in_check(node.side) & !checked_before != 0);
            if pruned && !checks {
                self.state.unmake(&mut self.pos, made);
                continue;
            }
            if quiet && !checks {
                quiets += 1;
            }
            let the_move = MoveAt {
                index: i,
                quiet,
                checks,
                order,
            };
            let score = self.score_made_move(node, made.decision, the_move, alpha, beta);
            self.state.unmake(&mut self.pos, made);
            if self.budget.stopped {
                break;
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
        (best, best_move)
    }

    /// The score of a move just made at `node`: the game's end if it brought one, else the
    /// search below it, extended for a check and reduced when late and quiet.
    fn score_made_move(
        &mut self,
        node: &NodeFacts,
        decision: Option<Decision>,
        the_move: MoveAt,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let options = self.options;
        let NodeAt { depth, ply, .. } = node.at;
        let MoveAt {
            index,
            quiet,
            checks,
            order,
        } = the_move;
        if let Some(decision) = decision {
            return self.decided(decision, ply + 1);
        }
        let extend = options.check_extensions
            && checks
            && self.extended < MAX_EXTENSIONS
            && (index < 6 || node.pv_node);
        let new_depth = depth - 1 + i32::from(extend);
        self.extended += u32::from(extend);
        let score = if index == 0 {
            self.node(new_depth, ply + 1, alpha, beta)
        } else {
            let reduction =
                if options.late_move_reductions && quiet && !checks && depth >= 3 && ply > 0 {
                    self.reduction(node, index, order)
                } else {
                    0
                };
            self.search_late_move(new_depth, reduction, ply, alpha, beta, node.maximizing)
        };
        self.extended -= u32::from(extend);
        score
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

    /// How many plies late move reductions take off the `i`th move at `node`, a quiet one
    /// with ordering score `order`.
    fn reduction(&self, node: &NodeFacts, i: usize, order: i32) -> i32 {
        let depth = node.at.depth;
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
        let mut r = (i32::from(r) - i32::from(node.pv_node)).max(0);
        if self.options.deep_reductions {
            r += (depth - DEEP_REDUCTIONS_FROM).max(0) / DEEP_REDUCTION_STEP;
        }
        if self.options.history_reductions {
            r -= ordering::reduction_relief(order);
        }
        if self.options.improving {
            r -= node.trend;
        }
        // May be negative: the caller searches such a move to its full depth.
        r
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
    // One piece: the stand-pat bound, the captures worth searching from it and their loop are
    // one decision about the same window.
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
        // Always the full evaluation: it prunes the tree enough better than the material
        // estimate that it wins back the time (engine/README.md, "Measured, left off").
        let stand = self.evaluate();
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
/// Where a node is: its remaining depth, its distance from the root and its repetition key.
#[derive(Clone, Copy)]
struct NodeAt {
    depth: i32,
    ply: usize,
    key: u64,
}

/// What the pruning rules know of a node before its moves are searched.
#[derive(Clone, Copy)]
struct NodeFacts {
    at: NodeAt,
    /// The army to move.
    side: Army,
    /// Whether the side to move maximises the score.
    maximizing: bool,
    /// Searched with an open window: its exact value is wanted.
    pv_node: bool,
    /// Not the root, not a PV node, not in check: where pruning may cut.
    prunable: bool,
    /// The static value as the side to move sees it (higher is better for it), where the
    /// pruning rules want one.
    static_value: Option<i32>,
    /// The static value as the side to move sees it, where [`SearchOptions::improving`] wants
    /// one (not in check).
    trend_value: Option<i32>,
    /// +1 where `trend_value` rose by more than [`TREND_MARGIN`] from two plies up the line, −1
    /// where it fell as much, else 0.
    trend: i32,
}

impl NodeFacts {
    /// +1 where the side to move maximises, −1 where it minimises: what turns a value for the
    /// bot's side into one for the side to move, and back.
    fn sign(&self) -> i32 {
        if self.maximizing { 1 } else { -1 }
    }

    /// The window (`alpha`, `beta`) as the side to move sees it, so that each pruning rule is
    /// written once for both sides.
    fn side_window(&self, alpha: i32, beta: i32) -> (i32, i32) {
        if self.maximizing {
            (alpha, beta)
        } else {
            (-beta, -alpha)
        }
    }
}

/// A move of a node's list as the search treats it.
#[derive(Clone, Copy)]
struct MoveAt {
    /// Its place in the searched order.
    index: usize,
    /// Neither a capture nor a promotion.
    quiet: bool,
    /// It puts an enemy king in check.
    checks: bool,
    /// Its ordering score (for a quiet move: its histories, or above them for the table's
    /// move and the killers).
    order: i32,
}

/// What sets a search's scores apart besides the position: whose side they are from, the rules
/// and the evaluation's terms. Partners in Teams score every position alike (the evaluation,
/// mates and draws look at a team, never at one army of it), so they share their entries, and
/// each partner's search finds what the other's found two plies earlier.
fn table_salt(view: &Perspective, rules: &RuleSet) -> u64 {
    let side = match rules.format {
        Format::Teams => view.root.index() % 2,
        _ => view.root.index(),
    };
    let mut hasher = std::hash::DefaultHasher::new();
    (side, rules, view.features).hash(&mut hasher);
    hasher.finish()
}

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
