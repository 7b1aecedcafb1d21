//! PGN4 and PGN: whole games read and written back.

use fourkings_engine::notation::{
    read_pgn, read_pgn4, write_pgn, write_pgn_upto, write_pgn4, write_pgn4_upto,
};
use fourkings_engine::{
    ArmyStatus, DrawReason, FfaScoring, Game, LeadEnding, Outcome, Preset, Seat,
};

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
    random_game_watched(preset, seed, |_| {})
}

/// [`random_game`], showing `watch` the game before every step.
fn random_game_watched(preset: Preset, seed: u64, mut watch: impl FnMut(&Game)) -> Game {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut game = Game::with_seed(preset.rules(), seed).unwrap();
    for _ in 0..400 {
        watch(&game);
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
            assert_eq!(read.game.rules(), game.rules(), "{preset} seed {seed}");
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

/// "The exported PGN of a Duo game is plain PGN that chess tools read until its first friendly
/// capture ... and mark friendly captures so that a reader can tell them apart." A chess library
/// (shakmaty) plays the exported moves up to the first `{friendly capture}`, which it refuses.
#[test]
fn a_duo_pgn_is_chess_until_its_first_friendly_capture_which_is_marked() {
    use shakmaty::san::San;
    use shakmaty::{Chess, Position as _};
    let mut met = 0;
    for seed in 0..30 {
        let game = random_game(Preset::Duo, seed);
        let text = write_pgn(&game, &[]);
        let movetext: String = text.lines().filter(|l| !l.starts_with('[')).collect();
        let mut chess = Chess::default();
        let words: Vec<&str> = movetext.split_whitespace().collect();
        for (i, word) in words.iter().enumerate() {
            if word.ends_with('.') || word.starts_with('{') || word.ends_with('}') {
                continue;
            }
            if matches!(*word, "1-0" | "0-1" | "1/2-1/2" | "*") {
                break;
            }
            let friendly = words.get(i + 1) == Some(&"{friendly");
            let san: San = word.parse().unwrap_or_else(|e| panic!("{word}: {e}"));
            match san.to_move(&chess) {
                Ok(mv) if !friendly => chess.play_unchecked(&mv),
                Ok(mv) => panic!("seed {seed}: {word} is marked friendly but chess plays {mv:?}"),
                Err(_) if friendly => {
                    met += 1;
                    break;
                }
                Err(e) => panic!(
                    "seed {seed}: chess refuses {word} ({e}), which is no friendly capture\n{text}"
                ),
            }
        }
    }
    assert!(met >= 10, "only {met} games reached a friendly capture");
}

/// Plays the first legal move of the seat to move (or walks its king).
fn play_first(game: &mut Game) -> String {
    if game.walking_king_to_move() {
        return game.walk_king().unwrap().text.clone();
    }
    let seat = game.to_move().unwrap();
    let mv = game.legal_moves()[0];
    game.play(seat, mv).unwrap().text.clone()
}

/// "a resignation or timeout written as a suffix on that player's move (`Kg1-h2T`, `Kk1-k2R`) or
/// as a bare `R`/`T` token puts that player out, and their king walks on from there; the reader
/// and the writer both use these tokens."
#[test]
fn leaving_is_written_as_chesscom_writes_it_and_read_back() {
    let mut game = Game::new(Preset::FfaWalkingKings.rules()).unwrap();
    for _ in 0..3 {
        play_first(&mut game);
    }
    // Green resigns on its turn: a bare `R` in its place, and the turn passes to Red.
    game.resign(Seat::ALL[3]).unwrap();
    assert_eq!(
        game.position().status(fourkings_engine::Army::Green),
        ArmyStatus::KingWalking
    );
    assert_eq!(game.to_move(), Some(Seat::ALL[0]));
    let red = play_first(&mut game);
    // Yellow times out while Blue is to move: a comment where it happened, and `T` on its
    // king's first walk.
    game.time_out(Seat::ALL[2]).unwrap();
    let blue = play_first(&mut game);
    let yellow = play_first(&mut game);
    let green = play_first(&mut game);
    assert!(game.plies().last().unwrap().walking);
    let text = write_pgn4(&game, &[]);
    let movetext: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('[') && !l.is_empty())
        .collect();
    assert_eq!(movetext[0].matches(" .. ").count(), 3);
    assert!(movetext[0].ends_with(" .. R"), "{text}");
    assert_eq!(
        movetext[1],
        format!("2. {red} {{Yellow timed out}} .. {blue} .. {yellow}T .. {green}"),
        "{text}"
    );
    let read = read_pgn4(&text).unwrap();
    assert_eq!(read.game.position(), game.position());
    assert_eq!(read.write(), text);
    // chess.com writes the timeout only on the walking king's move: read so, Yellow left
    // before its turn, and its king walked at once.
    let chesscom = text.replace(" {Yellow timed out}", "");
    let read = read_pgn4(&chesscom).unwrap();
    assert_eq!(read.game.position(), game.position());
    let timed_out = read.game.events().iter().any(|e| {
        matches!(
            e,
            fourkings_engine::game::Event::Action {
                action: fourkings_engine::game::Action::TimedOut,
                ..
            }
        )
    });
    assert!(timed_out);
}

/// "the presets keep the behaviour RULES.md gives, and which one a file uses is read from its
/// tags": a free-for-all preset's game says so in `RuleVariants`; a file without those tokens is
/// read with chess.com's conventions (play goes on after a lead of more than 20, chess.com's
/// scoring).
#[test]
fn which_free_for_all_conventions_a_file_uses_is_read_from_its_tags() {
    let game = random_game(Preset::Ffa, 3);
    let text = write_pgn4(&game, &[]);
    assert!(
        text.contains("[RuleVariants \"EnPassant LeadEnds FourKingsScoring\"]"),
        "{text}"
    );
    let read = read_pgn4(&text).unwrap();
    assert_eq!(read.game.rules().lead_ending, LeadEnding::Automatic);
    assert_eq!(read.game.rules().ffa_scoring, FfaScoring::Standard);
    let chesscom = read_pgn4(
        "[Variant \"FFA\"]\n[RuleVariants \"DeadKingWalking EnPassant PromoteTo=D\"]\n\n1. h2-h3\n",
    )
    .unwrap();
    assert_eq!(chesscom.game.rules().lead_ending, LeadEnding::Claim);
    assert_eq!(chesscom.game.rules().ffa_scoring, FfaScoring::ChessCom);
}

/// A game written as it stood after its first events is the file of that earlier game: for
/// every preset, at every tenth step of random games, `write_pgn4_upto` (`write_pgn_upto` for
/// Duo) of the finished game gives the text the game had then, in progress, with no result.
#[test]
fn a_game_written_up_to_an_event_is_the_game_as_it_stood_then() {
    let tags = vec![("Event".to_owned(), "test".to_owned())];
    for preset in Preset::ALL {
        for seed in 0..4 {
            let mut earlier = Vec::new();
            let mut step = 0;
            let game = random_game_watched(preset, seed, |game| {
                if step % 10 == 0 {
                    earlier.push(game.clone());
                }
                step += 1;
            });
            for then in &earlier {
                let events = then.events().len();
                let (upto, was) = if game.rules().format == fourkings_engine::Format::Duo {
                    (write_pgn_upto(&game, &tags, events), write_pgn(then, &tags))
                } else {
                    (
                        write_pgn4_upto(&game, &tags, events),
                        write_pgn4(then, &tags),
                    )
                };
                assert_eq!(upto, was, "{preset:?}, seed {seed}, after {events} events");
            }
        }
    }
}
