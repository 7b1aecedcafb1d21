//! PGN4 and PGN: whole games read and written back.

use fourkings_engine::notation::{read_pgn, read_pgn4, write_pgn, write_pgn4};
use fourkings_engine::{DrawReason, Game, Outcome, Preset, Seat};

/// The example game of FEN4.md imports and re-exports byte for byte.
#[test]
fn the_fen4_md_example_game_imports_and_re_exports_unchanged() {
    let text = include_str!("data/example.pgn4");
    let pgn = read_pgn4(text).expect("the example reads");
    assert!(pgn.unknown_rule_variants.is_empty());
    assert_eq!(pgn.game.ply_count(), 28);
    assert_eq!(
        pgn.game.outcome(),
        Some(&Outcome::Draw {
            reason: DrawReason::Agreement
        })
    );
    assert!(pgn.game.rules().en_passant);
    assert_eq!(pgn.write(), text);
}

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Plays a random game: random legal moves, walking kings walking, and in free-for-all an
/// occasional resignation, so eliminations of every kind show up in the record.
fn random_game(preset: Preset, seed: u64) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::with_seed(preset.rules(), seed).unwrap();
    for _ in 0..400 {
        if game.is_over() {
            break;
        }
        if game.walking_king_to_move() {
            game.walk_king().unwrap();
            continue;
        }
        let seat = game.to_move().unwrap();
        if !game.rules().has_teams() && rng.random_ratio(1, 60) {
            let in_game = game.seats_in_game();
            let resigner = in_game[rng.random_range(0..in_game.len())];
            game.resign(resigner).unwrap();
            continue;
        }
        let moves = game.legal_moves();
        let captures: Vec<_> = moves
            .iter()
            .filter(|m| game.position().piece_at(m.to()).is_some())
            .collect();
        let mv = if !captures.is_empty() && rng.random_ratio(2, 3) {
            *captures[rng.random_range(0..captures.len())]
        } else {
            moves[rng.random_range(0..moves.len())]
        };
        game.play(seat, mv).unwrap();
    }
    game
}

/// Random games of every cross-board preset survive PGN4 export and import: the same moves, the
/// same final position, points and result, and the same text when written again.
#[test]
fn random_cross_board_games_round_trip_through_pgn4() {
    let tags = vec![("Red".to_owned(), "a \"quoted\" name".to_owned())];
    let mut eliminations = 0;
    for preset in Preset::ALL.into_iter().filter(|p| *p != Preset::Duo) {
        for seed in 0..12 {
            let game = random_game(preset, seed);
            let text = write_pgn4(&game, &tags);
            let read =
                read_pgn4(&text).unwrap_or_else(|e| panic!("{preset} seed {seed}: {e}\n{text}"));
            assert_eq!(
                read.game.position(),
                game.position(),
                "{preset} seed {seed}\n{text}"
            );
            assert_eq!(
                read.game.outcome(),
                game.outcome(),
                "{preset} seed {seed}\n{text}"
            );
            assert_eq!(
                read.game.points(),
                game.points(),
                "{preset} seed {seed}\n{text}"
            );
            assert_eq!(read.write(), text, "{preset} seed {seed}");
            eliminations += text
                .lines()
                .filter(|l| l.contains(" # ") || l.contains(" R ") || l.contains(" S "))
                .count();
        }
    }
    assert!(
        eliminations > 0,
        "the random games should include eliminations"
    );
}

/// Random Duo games survive PGN export and import.
#[test]
fn random_duo_games_round_trip_through_pgn() {
    for seed in 0..20 {
        let game = random_game(Preset::Duo, seed);
        let text = write_pgn(&game, &[("Event".to_owned(), "test".to_owned())]);
        let read = read_pgn(&text).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert_eq!(read.game.position(), game.position(), "seed {seed}\n{text}");
        assert_eq!(read.game.outcome(), game.outcome(), "seed {seed}");
        assert_eq!(read.write(), text);
        assert_eq!(
            read.game.to_move().map(Seat::index),
            game.to_move().map(Seat::index)
        );
    }
}
