//! The search's game state and the game agree: one referee decides for both, and these tests
//! check that the search asks it as a [`Game`] does (the turn starts after a move, the points,
//! who made a standing mate, the army that moved last) and takes everything back exactly.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::game::{
    Consequence, DrawReason, Event, FfaEnding, Game, Outcome, ScoreReason, Seat, WinReason,
};
use crate::rules::{FfaScoring, LeadEnding, MateTiming, Preset};

/// Every preset, and the options that change what a move means.
fn rule_sets() -> Vec<RuleSet> {
    let mut sets: Vec<RuleSet> = Preset::ALL.iter().map(|p| p.rules()).collect();
    let ffa = Preset::Ffa.rules();
    let walking = Preset::FfaWalkingKings.rules();
    let teams = Preset::Teams.rules();
    sets.extend([
        RuleSet {
            ffa_scoring: FfaScoring::ChessCom,
            lead_ending: LeadEnding::Claim,
            ..ffa
        },
        RuleSet {
            mate: MateTiming::TurnStart,
            king_capture: false,
            ..ffa
        },
        RuleSet {
            mate: MateTiming::Immediate,
            ffa_scoring: FfaScoring::ChessCom,
            ..walking
        },
        RuleSet {
            pawn_breakthrough: true,
            promotion_rank: 8,
            ..teams
        },
        RuleSet {
            mate: MateTiming::Immediate,
            ..teams
        },
        RuleSet {
            king_friendly_capture: true,
            ..Preset::Duo.rules()
        },
    ]);
    for rules in &sets {
        rules.validate().unwrap();
    }
    sets
}

/// A move for the game to play: often a capture (captures bring mates, eliminations and points
/// sooner than random moves do), otherwise any.
fn choose(game: &Game, rng: &mut ChaCha8Rng) -> Move {
    if game.walking_king_to_move() {
        return game.walking_king_move().unwrap();
    }
    let moves = game.legal_moves();
    let captures: Vec<Move> = moves
        .iter()
        .copied()
        .filter(|mv| game.position().piece_at(mv.to()).is_some())
        .collect();
    if !captures.is_empty() && rng.random_bool(0.6) {
        captures[rng.random_range(0..captures.len())]
    } else {
        moves[rng.random_range(0..moves.len())]
    }
}

/// The search's state at the game's position, as `SearchRoot::from_game` builds it.
fn state_of(game: &Game) -> (Position, GameState) {
    let pos = game.position().clone();
    let state = GameState::new(
        *game.rules(),
        &pos,
        game.points(),
        game.mates_made_by(),
        game.last_ply().map(|ply| ply.army),
    );
    (pos, state)
}

/// What the search would see after `mv`: the move made, then every turn start without a legal
/// move settled, as the search's nodes do.
fn search_plays(pos: &mut Position, state: &mut GameState, mv: Move) -> (Made, Vec<Stuck>) {
    let before = state.before(pos);
    let made = state.make(pos, mv, &before);
    let mut decision = made.decision;
    let mut stuck = Vec::new();
    while decision.is_none() && pos.legal_moves().is_empty() {
        let s = state.no_legal_move(pos);
        decision = s.decision;
        stuck.push(s);
    }
    (made, stuck)
}

/// The draw by rule the game found after its last ply, if it ended so (the search looks for
/// these at its nodes, not in the referee's settling of a move).
fn draw_by_rule(outcome: &Outcome) -> Option<DrawReason> {
    let reason = match outcome {
        Outcome::Draw { reason } => *reason,
        Outcome::Standings {
            reason: FfaEnding::Draw(reason),
            ..
        } => *reason,
        _ => return None,
    };
    matches!(
        reason,
        DrawReason::Repetition | DrawReason::FiftyMoves | DrawReason::DeadPosition
    )
    .then_some(reason)
}

/// Whether the referee's `decision` for the search is the game's `outcome`.
fn same_end(game: &Game, decision: Decision, outcome: &Outcome) -> bool {
    let army = |seat: Seat| game.army_of(seat);
    match (decision, outcome) {
        (Decision::Standings(ending), Outcome::Standings { reason, .. }) => ending == *reason,
        (
            Decision::KingCaptured { victim, .. },
            Outcome::Win {
                reason: WinReason::KingCaptured { victim: seat },
                ..
            },
        ) => victim == army(*seat),
        (
            Decision::Breakthrough { by },
            Outcome::Win {
                reason: WinReason::Breakthrough { seat },
                ..
            },
        ) => by == army(*seat),
        (
            Decision::Checkmated { army: mated },
            Outcome::Win {
                reason: WinReason::Checkmate { mated: seat },
                ..
            },
        ) => mated == army(*seat),
        (
            Decision::Stalemated { army: stalemated },
            Outcome::Draw {
                reason: DrawReason::Stalemate { seat },
            },
        ) => stalemated == army(*seat),
        _ => false,
    }
}

/// How often each thing a move can mean came up, so that the test fails if the games stop
/// reaching them.
#[derive(Debug, Default)]
struct Seen {
    moves: u32,
    scored: std::collections::HashMap<&'static str, u32>,
    endings: std::collections::HashMap<&'static str, u32>,
}

impl Seen {
    fn note_ply(&mut self, game: &Game) {
        self.moves += 1;
        let Some(Event::Ply(ply)) = game.events().last() else {
            return;
        };
        for consequence in &ply.consequences {
            let name = match consequence {
                Consequence::Scored { reason, .. } => match reason {
                    ScoreReason::Capture(_) => "capture",
                    ScoreReason::KingCapture => "king capture",
                    ScoreReason::Checkmate => "checkmate",
                    ScoreReason::DoubleCheck => "double check",
                    ScoreReason::TripleCheck => "triple check",
                    ScoreReason::Stalemate => "stalemate",
                    ScoreReason::WalkingKingStalemate => "walking king stalemate",
                    ScoreReason::DrawBonus => "draw bonus",
                    ScoreReason::WalkingKingBonus => "walking king bonus",
                },
                Consequence::Eliminated { .. } => "eliminated",
            };
            *self.scored.entry(name).or_default() += 1;
        }
    }

    fn note_end(&mut self, outcome: &Outcome) {
        let name = match outcome {
            Outcome::Win { reason, .. } => match reason {
                WinReason::Checkmate { .. } => "checkmate",
                WinReason::KingCaptured { .. } => "king captured",
                WinReason::Breakthrough { .. } => "breakthrough",
                _ => "other win",
            },
            Outcome::Draw { reason } => match reason {
                DrawReason::Stalemate { .. } => "stalemate",
                _ => "draw by rule",
            },
            Outcome::Standings { reason, .. } => match reason {
                FfaEnding::LastPlayer => "last player",
                FfaEnding::Lead => "lead",
                _ => "other standings",
            },
        };
        *self.endings.entry(name).or_default() += 1;
    }
}

/// Plays one game under `rules`, and before each move checks that the search, from the game's
/// position, makes of the move what the game makes of it, and takes it back exactly.
// One piece: each step compares the search's make with the game's play of the same move.
fn play_and_compare(rules: RuleSet, seed: u64, seen: &mut Seen) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::with_seed(rules, seed).unwrap();
    // The search's own state, carried along move by move as the search carries it (its
    // `before` reuses what the referee found after the previous move).
    let (mut carried_pos, mut carried) = state_of(&game);
    for _ in 0..400 {
        if game.is_over() {
            break;
        }
        // Now and then a player leaves, as only a game knows: the search starts afresh.
        if rules.format == Format::FreeForAll && rng.random_ratio(1, 60) {
            let seat = Seat::ALL[rng.random_range(0..4)];
            if game.resign(seat).is_ok() {
                (carried_pos, carried) = state_of(&game);
                continue;
            }
        }
        let mv = choose(&game, &mut rng);
        let (mut pos, mut state) = state_of(&game);
        let start = (pos.clone(), state.points, state.mate_made_by);
        let (made, stuck) = search_plays(&mut pos, &mut state, mv);
        let (carried_made, carried_stuck) = search_plays(&mut carried_pos, &mut carried, mv);
        let decision = stuck.last().map_or(made.decision, |s| s.decision);
        assert_eq!(
            carried_stuck
                .last()
                .map_or(carried_made.decision, |s| s.decision),
            decision
        );

        let mover = game.position().turn();
        if game.walking_king_to_move() {
            game.walk_king_with(mv).unwrap();
        } else {
            game.play(game.to_move().unwrap(), mv).unwrap();
        }
        seen.note_ply(&game);
        let context = || format!("{rules:?} seed {seed} ply {}: {mv}", game.ply_count());

        match (game.outcome(), decision) {
            (None, None) => {
                assert_eq!(pos, *game.position(), "{}", context());
                assert_eq!(state.points, game.points(), "{}", context());
                assert_eq!(state.mate_made_by, game.mates_made_by(), "{}", context());
                assert_eq!(state.last_mover, Some(mover), "{}", context());
            }
            (Some(outcome), None) => {
                let reason = draw_by_rule(outcome).unwrap_or_else(|| {
                    panic!(
                        "{}: the game ended ({outcome:?}), the search plays on",
                        context()
                    )
                });
                Referee::new(
                    &state.rules,
                    &mut pos,
                    &mut state.points,
                    &mut state.mate_made_by,
                    &mut Unrecorded,
                )
                .draw(reason);
                assert_eq!(state.points, game.points(), "{}", context());
            }
            (Some(outcome), Some(decision)) => {
                assert!(
                    same_end(&game, decision, outcome),
                    "{}: the game ended {outcome:?}, the search {decision:?}",
                    context()
                );
                assert_eq!(state.points, game.points(), "{}", context());
            }
            (None, Some(decision)) => {
                panic!("{}: the search ended the game ({decision:?})", context())
            }
        }
        if let Some(outcome) = game.outcome() {
            seen.note_end(outcome);
        }

        for s in stuck.into_iter().rev() {
            state.unstick(&mut pos, s);
        }
        state.unmake(&mut pos, made);
        assert_eq!(pos, start.0, "{}", context());
        assert_eq!(pos.hash(), pos.compute_hash(), "{}", context());
        assert_eq!(
            (state.points, state.mate_made_by),
            (start.1, start.2),
            "{}",
            context()
        );
        assert_eq!(
            state.material,
            GameState::count_material(&pos, rules.promotion_rank)
        );
    }
}

#[test]
fn the_search_makes_of_every_move_what_the_game_makes_of_it() {
    let mut seen = Seen::default();
    for (i, rules) in rule_sets().into_iter().enumerate() {
        for game in 0..64 {
            play_and_compare(rules, (i as u64) << 32 | game, &mut seen);
        }
    }
    // The games reach what they are meant to compare.
    for scored in [
        "capture",
        "king capture",
        "checkmate",
        "double check",
        "stalemate",
        "eliminated",
        "walking king bonus",
    ] {
        assert!(
            seen.scored.get(scored).copied().unwrap_or(0) > 0,
            "no {scored} in {seen:?}"
        );
    }
    for ending in [
        "checkmate",
        "king captured",
        "breakthrough",
        "last player",
        "lead",
    ] {
        assert!(
            seen.endings.get(ending).copied().unwrap_or(0) > 0,
            "no {ending} in {seen:?}"
        );
    }
}
