//! Property tests: invariants that must hold along any sequence of legal moves, under every preset.

use fourkings_engine::notation::{
    Fen, parse_fen4, read_pgn, read_pgn4, write_fen4, write_pgn, write_pgn4,
};
use fourkings_engine::{Game, Move, MoveKind, Position, Preset, Role, RuleSet, Seat, Square};
use proptest::prelude::*;

fn presets() -> impl Strategy<Value = Preset> {
    proptest::sample::select(Preset::ALL.to_vec())
}

/// A preset with its rules, castling and en passant varied on the cross board (Duo is chess's
/// rules, which its PGN assumes).
fn rules() -> impl Strategy<Value = RuleSet> {
    (presets(), any::<bool>(), any::<bool>()).prop_map(
        |(preset, castling, en_passant)| match preset {
            Preset::Duo => preset.rules(),
            _ => RuleSet {
                castling,
                en_passant,
                ..preset.rules()
            },
        },
    )
}

/// Plays the move chosen by each index (modulo the number of legal moves) while the game lasts,
/// letting walking kings walk; calls `check` before every move.
fn play_choices(game: &mut Game, choices: &[u16], mut check: impl FnMut(&Game)) {
    for &choice in choices {
        if game.is_over() {
            return;
        }
        check(game);
        if game.walking_king_to_move() {
            game.walk_king().unwrap();
            continue;
        }
        let moves = game.legal_moves();
        let seat = game.to_move().unwrap();
        game.play(seat, moves[usize::from(choice) % moves.len()])
            .unwrap();
    }
}

/// A real chess.com game, to mutate.
const REAL_GAME: &str = include_str!("data/chesscom/ffa/100527014.pgn4");

proptest! {
    /// "Bad input gets a clear error with a code, never a panic": the PGN4 reader on any text,
    /// and on real games with a few characters changed, returns a game or an error.
    #[test]
    fn pgn4_reading_never_panics(
        text in "\\PC{0,300}",
        edits in proptest::collection::vec((any::<u16>(), any::<char>()), 1..8),
    ) {
        let _ = read_pgn4(&text);
        let mut chars: Vec<char> = REAL_GAME.chars().collect();
        for (at, c) in edits {
            let i = usize::from(at) % chars.len();
            chars[i] = c;
        }
        let mutated: String = chars.into_iter().collect();
        let _ = read_pgn4(&mutated);
        let _ = read_pgn(&mutated);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Make/unmake restores the position and its hash exactly, and the incremental hash always
    /// equals one computed from scratch.
    #[test]
    fn make_unmake_restores_position_and_hash(rules in rules(), choices in proptest::collection::vec(any::<u16>(), 1..160)) {
        let mut pos = Position::new(&rules).unwrap();
        for choice in choices {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            for &mv in &moves {
                let before = pos.clone();
                let undo = pos.play_unchecked(mv);
                prop_assert_eq!(pos.hash(), pos.compute_hash(), "after {}", mv);
                pos.undo(undo);
                prop_assert_eq!(&pos, &before, "undo of {}", mv);
            }
            let mv = moves[usize::from(choice) % moves.len()];
            let captured_king = pos.play_unchecked(mv).captured().is_some_and(|p| p.role == fourkings_engine::Role::King);
            if captured_king {
                break;
            }
        }
    }

    /// `is_legal`, which generates only the moving piece's moves, agrees with the full list:
    /// for every legal move, and for every normal move of each of the mover's pieces to any
    /// square, and for each legal move made a different kind or given a promotion.
    #[test]
    fn is_legal_agrees_with_the_legal_move_list(rules in rules(), choices in proptest::collection::vec(any::<u16>(), 1..120)) {
        let mut pos = Position::new(&rules).unwrap();
        let squares: Vec<Square> = (0..14)
            .flat_map(|file| (0..14).filter_map(move |rank| Square::new(file, rank)))
            .collect();
        for choice in choices {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mut candidates: Vec<Move> = moves.to_vec();
            for (from, piece) in pos.pieces() {
                if piece.army == pos.turn() {
                    candidates.extend(squares.iter().map(|&to| Move::new(from, to, MoveKind::Normal, None)));
                }
            }
            for &mv in &moves {
                candidates.push(Move::new(mv.from(), mv.to(), MoveKind::DoubleStep, None));
                candidates.push(Move::new(mv.from(), mv.to(), MoveKind::EnPassant, None));
                candidates.push(Move::new(mv.from(), mv.to(), mv.kind(), Some(Role::Queen)));
            }
            for mv in candidates {
                prop_assert_eq!(pos.is_legal(mv), moves.contains(&mv), "{}", mv);
            }
            let mv = moves[usize::from(choice) % moves.len()];
            let captured_king = pos.play_unchecked(mv).captured().is_some_and(|p| p.role == Role::King);
            if captured_king {
                break;
            }
        }
    }

    /// The moves a game keeps from its turn assessment are the moves generated afresh, after
    /// moves, take-backs and resignations alike, and the game plays exactly those: a move of
    /// the mover's pieces that is not among them is refused.
    #[test]
    fn kept_legal_moves_are_the_moves_generated_afresh(rules in rules(), seed in any::<u64>(), choices in proptest::collection::vec(any::<u16>(), 1..160)) {
        let mut game = Game::with_seed(rules, seed).unwrap();
        for choice in choices {
            if game.is_over() {
                break;
            }
            let fresh: Vec<Move> = if game.walking_king_to_move() {
                Vec::new()
            } else {
                let forbidden = game.forbidden_move();
                game.position().legal_moves().into_iter().filter(|&mv| Some(mv) != forbidden).collect()
            };
            prop_assert_eq!(game.legal_moves().to_vec(), fresh.clone());
            let mut extended = Vec::new();
            game.extend_legal_moves(&mut extended);
            prop_assert_eq!(&extended, &fresh);
            prop_assert_eq!(game.checked_armies(), game.position().checked_armies());
            let seat = game.to_move().unwrap();
            match choice % 16 {
                // A take-back by the seat that moved last (refused when the rules have none).
                0 => {
                    let last = game.plies().last().map(|ply| ply.seat);
                    if let Some(last) = last {
                        let _ = game.take_back(last);
                    }
                }
                1 if choice % 64 == 1 => {
                    let _ = game.resign(seat);
                }
                _ if game.walking_king_to_move() => {
                    game.walk_king().unwrap();
                }
                _ => {
                    let from = fresh[usize::from(choice) % fresh.len()].from();
                    let to = Square::new((choice % 14) as u8, (choice / 14 % 14) as u8);
                    if let Some(to) = to {
                        let stray = Move::new(from, to, MoveKind::Normal, None);
                        if !fresh.contains(&stray) {
                            let mut copy = game.clone();
                            prop_assert!(copy.play(seat, stray).is_err(), "{} was played", stray);
                        }
                    }
                    let mv = fresh[usize::from(choice) % fresh.len()];
                    let before = game.position().clone();
                    let ply = game.play(seat, mv).unwrap();
                    // The text begun before the move and finished after it reads as the
                    // notation writes the move from the position before it.
                    let written = if rules.format == fourkings_engine::Format::Duo {
                        fourkings_engine::notation::write_san(&before, mv)
                    } else {
                        let suffix = fourkings_engine::notation::MoveSuffix {
                            checks: ply.checks.len() as u8,
                            mates: ply.mates,
                            left: None,
                        };
                        fourkings_engine::notation::write_move(&before, mv, suffix)
                    };
                    prop_assert_eq!(&ply.text, &written);
                }
            }
        }
    }

    /// Walking a game back, with take-backs and resignations along the way, shows each ply with
    /// the pieces as they stood right after it and its checking pieces, and ends on the start;
    /// a walk that stops short of the last events shows only the plies before them.
    #[test]
    fn walking_back_shows_every_position_after_its_ply(rules in rules(), seed in any::<u64>(), choices in proptest::collection::vec(any::<u16>(), 0..160)) {
        let mut game = Game::with_seed(rules, seed).unwrap();
        let pieces = |pos: &Position| pos.pieces().collect::<Vec<_>>();
        let mut after = Vec::new();
        for choice in choices {
            if game.is_over() {
                break;
            }
            let seat = game.to_move().unwrap();
            match choice % 32 {
                0 => {
                    if let Some(last) = game.plies().last().map(|ply| ply.seat) {
                        if game.take_back(last).is_ok() {
                            after.pop();
                        }
                    }
                }
                1 if choice % 128 == 1 => {
                    let _ = game.resign(seat);
                }
                _ => {
                    if game.walking_king_to_move() {
                        game.walk_king().unwrap();
                    } else {
                        let moves = game.legal_moves();
                        game.play(seat, moves[usize::from(choice) % moves.len()]).unwrap();
                    }
                    prop_assert_eq!(game.last_ply().unwrap().checkers.to_vec(), game.checkers().iter().collect::<Vec<_>>());
                    after.push(pieces(game.position()));
                }
            }
        }
        let mut seen = Vec::new();
        let start = game.walk_back(game.events().len(), |ply, pos| {
            seen.push((ply.mv, pieces(pos)));
        });
        seen.reverse();
        let plies: Vec<_> = game.plies().map(|ply| ply.mv).collect();
        prop_assert_eq!(seen.iter().map(|(mv, _)| *mv).collect::<Vec<_>>(), plies);
        prop_assert_eq!(seen.into_iter().map(|(_, p)| p).collect::<Vec<_>>(), after);
        let expected = Game::with_seed(rules, seed).unwrap();
        prop_assert_eq!(pieces(&start), pieces(expected.position()));
        let mut short = 0;
        game.walk_back(game.events().len() / 2, |_, _| short += 1);
        let plies_in_half = game.events()[..game.events().len() / 2]
            .iter()
            .filter(|e| matches!(e, fourkings_engine::game::Event::Ply(_)))
            .count();
        prop_assert_eq!(short, plies_in_half);
    }

    /// Positions survive FEN4 (cross board) and FEN (Duo) exactly.
    #[test]
    fn fen4_and_fen_round_trip(rules in rules(), choices in proptest::collection::vec(any::<u16>(), 0..200)) {
        let mut game = Game::with_seed(rules, 7).unwrap();
        play_choices(&mut game, &choices, |_| {});
        let pos = game.position();
        let mut setup = pos.to_setup();
        setup.points = game.points();
        let back = if rules.format == fourkings_engine::Format::Duo {
            let fen = Fen::from_position(pos, 1).unwrap();
            let parsed: Fen = fen.to_string().parse().unwrap();
            // FEN has no promoted flag; Duo never scores it.
            setup.pieces.iter_mut().for_each(|(_, p)| p.promoted = false);
            parsed.setup
        } else {
            parse_fen4(&write_fen4(&setup)).unwrap()
        };
        prop_assert_eq!(&back, &setup);
        let promoted = pos.pieces().any(|(_, p)| p.promoted);
        // A Teams game that ended with a king captured leaves an army in play without a king: a
        // finished game, not a position to play on.
        let kingless = fourkings_engine::Army::ALL
            .into_iter()
            .any(|a| pos.status(a) == fourkings_engine::ArmyStatus::Playing && pos.king(a).is_none());
        if !kingless && (rules.format != fourkings_engine::Format::Duo || !promoted) {
            prop_assert_eq!(&Position::from_setup(&back, &rules).unwrap(), pos);
        }
    }

    /// Whole games survive PGN4 (cross board) and PGN (Duo): same position, points and result.
    #[test]
    fn pgn4_and_pgn_round_trip(rules in rules(), seed in any::<u64>(), choices in proptest::collection::vec(any::<u16>(), 0..240)) {
        let mut game = Game::with_seed(rules, seed).unwrap();
        play_choices(&mut game, &choices, |_| {});
        let (position, outcome, points) = if rules.format == fourkings_engine::Format::Duo {
            let read = read_pgn(&write_pgn(&game, &[])).unwrap();
            (read.game.position().clone(), read.game.outcome().cloned(), read.game.points())
        } else {
            let read = read_pgn4(&write_pgn4(&game, &[])).unwrap();
            (read.game.position().clone(), read.game.outcome().cloned(), read.game.points())
        };
        prop_assert_eq!(&position, game.position());
        prop_assert_eq!(outcome.as_ref(), game.outcome());
        prop_assert_eq!(points, game.points());
    }

    /// Random games of every preset, with resignations, draw offers and takebacks thrown in, end
    /// with a result and never break an invariant on the way.
    #[test]
    fn random_games_end_with_a_result(preset in presets(), seed in any::<u64>(), lifelines in any::<bool>()) {
        let mut rules = preset.rules();
        // Without a fifty-move rule nothing forces an end: a move limit does.
        rules.move_limit = Some(3000);
        if lifelines && preset == Preset::Teams {
            rules.lifelines = 2;
        }
        let mut game = Game::with_seed(rules, seed).unwrap();
        let mut state = seed | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        while !game.is_over() {
            prop_assert!(game.ply_count() <= 3000);
            prop_assert_eq!(game.position().hash(), game.position().compute_hash());
            if game.walking_king_to_move() {
                game.walk_king().unwrap();
                continue;
            }
            let seat = game.to_move().unwrap();
            let any_seat = Seat::ALL[(next() % 4) as usize];
            match next() % 400 {
                0 => { let _ = game.resign(any_seat); }
                1..=3 => { let _ = game.offer_draw(any_seat); }
                4..=20 => { let _ = game.take_back(any_seat); }
                _ => {
                    let moves = game.legal_moves();
                    prop_assert!(!moves.is_empty(), "a game that goes on has a legal move");
                    game.play(seat, moves[(next() % moves.len() as u64) as usize]).unwrap();
                }
            }
        }
        prop_assert!(game.outcome().is_some());
        prop_assert!(game.legal_moves().is_empty());
    }
}
