//! Real games from chess.com (`tests/data/chesscom`, with the source of each in `SOURCES.tsv`),
//! read by the PGN4 reader and replayed to their end: the result and every player's points must
//! be the file's, the export must keep the file's tags and movetext, and the files Four Kings
//! cannot read must say why in one line.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use fourkings_engine::notation::{Pgn4, read_pgn4, write_pgn4};
use fourkings_engine::{Army, Format, Outcome, Team};

/// The data folder.
fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/chesscom")
}

/// The files of `folder`, by name, with their text.
fn games(folder: &str) -> Vec<(String, String)> {
    let mut files: Vec<_> = std::fs::read_dir(data().join(folder))
        .unwrap_or_else(|e| panic!("{folder}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pgn4"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = format!("{folder}/{}", p.file_name().unwrap().to_string_lossy());
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

fn tag<'a>(pgn: &'a Pgn4, name: &str) -> Option<&'a str> {
    pgn.tags
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.as_str())
}

/// The points of chess.com's free-for-all `Result` (`ana: 72 - bo: 14 - …`), by army, the players
/// named by the `Red`, `Blue`, `Yellow` and `Green` tags.
fn result_points(pgn: &Pgn4) -> [i32; 4] {
    let mut points = [None; 4];
    for part in tag(pgn, "Result").expect("a Result").split(" - ") {
        let (name, value) = part.rsplit_once(": ").expect("name: points");
        let army = Army::ALL
            .into_iter()
            .find(|a| tag(pgn, a.name()) == Some(name))
            .unwrap_or_else(|| panic!("no player named {name:?}"));
        points[army.index()] = Some(value.parse().unwrap());
    }
    points.map(|p| p.expect("every player's points"))
}

/// "a data folder of real games ... that the engine's tests replay to the end, checking result
/// and points against the file."
#[test]
fn every_free_for_all_game_replays_to_the_files_points() {
    let games = games("ffa");
    assert!(games.len() >= 140, "{} games", games.len());
    let mut finished_from_result = Vec::new();
    for (name, text) in &games {
        let pgn = read_pgn4(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let game = &pgn.game;
        assert_eq!(game.rules().format, Format::FreeForAll, "{name}");
        assert!(game.is_over(), "{name}: the game does not end");
        assert_eq!(game.points().0, result_points(&pgn), "{name}");
        let Some(Outcome::Standings { winners, .. }) = game.outcome() else {
            panic!("{name}: {:?}", game.outcome());
        };
        let best = game.points().0.into_iter().max().unwrap();
        for army in Army::ALL {
            assert_eq!(
                winners.contains(army),
                game.points()[army] == best,
                "{name}"
            );
        }
        if !pgn.notes.is_empty() {
            finished_from_result.push(name.as_str());
        }
    }
    // These files stop before the resignation or timeout that ended the game (see the next
    // test); every other one ends by its own moves.
    assert_eq!(
        finished_from_result,
        [
            "ffa/100530499.pgn4",
            "ffa/100758459.pgn4",
            "ffa/100941772.pgn4",
            "ffa/101023253.pgn4",
            "ffa/101543960.pgn4",
            "ffa/101736454.pgn4",
            "ffa/102892509.pgn4",
            "ffa/98570856.pgn4",
        ]
    );
}

/// chess.com leaves out a resignation or timeout that came outside the player's turn when it
/// ended the game: the reader finds the one order of leaving that gives the `Result`'s points,
/// and says so.
#[test]
fn a_movetext_that_stops_before_the_end_is_finished_from_the_result() {
    let text = std::fs::read_to_string(data().join("ffa/101543960.pgn4")).unwrap();
    let mut cut = read_pgn4(&text).unwrap();
    assert_eq!(
        cut.notes,
        ["the movetext stops before the end: Green left the game (the Result's points need it)"]
    );
    assert_eq!(cut.game.points().0, [17, 106, 15, 39]);
    // Without the Result there is nothing to finish from: the game goes on where the moves stop.
    cut.tags.retain(|(n, _)| n != "Result");
    let open = read_pgn4(&cut.write().replace("[Result \"*\"]\n", "")).unwrap();
    assert!(open.notes.is_empty());
}

#[test]
fn every_teams_game_replays_to_the_files_result() {
    let games = games("teams");
    assert_eq!(games.len(), 2);
    for (name, text) in &games {
        let pgn = read_pgn4(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let winner = match tag(&pgn, "Result") {
            Some("1-0") => Team::RedYellow,
            Some("0-1") => Team::BlueGreen,
            other => panic!("{name}: Result {other:?}"),
        };
        match pgn.game.outcome() {
            Some(Outcome::Win { team, .. }) => assert_eq!(*team, winner, "{name}"),
            other => panic!("{name}: {other:?}"),
        }
    }
}

/// The movetext's words, with the numbers, separators, comments and variations left out.
fn movetext_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let (mut depth, mut comment) = (0usize, false);
    let body: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('['))
        .collect::<Vec<_>>()
        .join("\n")
        .chars()
        .filter(|&c| match c {
            '{' => {
                comment = true;
                false
            }
            '}' => {
                comment = false;
                false
            }
            '(' if !comment => {
                depth += 1;
                false
            }
            ')' if !comment => {
                depth -= 1;
                false
            }
            _ => !comment && depth == 0,
        })
        .collect();
    for word in body.split_whitespace() {
        if word == ".." || word.ends_with('.') {
            continue;
        }
        words.push(word.to_owned());
    }
    words
}

/// A word with its `#` and `S` marks taken off, where chess.com's are its own: after a king
/// capture (marked `#`, `#S` or not at all in the same kind of position), on a bare `R` or `T`
/// (`R#`: decided on the walking king's turn), and on the last move of a game (sometimes left off).
fn comparable(word: &str, last: bool) -> String {
    let bare_leave = word.starts_with(['R', 'T']) && !word.contains(|c: char| c.is_ascii_digit());
    if word.contains("xK") || bare_leave || last {
        word.trim_end_matches(['#', 'S']).to_owned()
    } else {
        word.to_owned()
    }
}

/// "Round trip: a chess.com file that imports re-exports with its tags and tokens kept: every
/// `RuleVariants` token (unknown ones too, e.g. `PromoteTo=D`, `SemiAnonymous`), the free-for-all
/// `Result` in chess.com's form, the Teams `R` token, the `Termination` text."
#[test]
fn re_export_keeps_the_files_tags_and_movetext() {
    let mut variant_tokens = BTreeSet::new();
    for (name, text) in games("ffa").into_iter().chain(games("teams")) {
        let pgn = read_pgn4(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let out = pgn.write();
        let back = read_pgn4(&out).unwrap_or_else(|e| panic!("{name}: re-reading: {e}\n{out}"));
        assert_eq!(back.game.position(), pgn.game.position(), "{name}");
        assert_eq!(back.game.points(), pgn.game.points(), "{name}");
        assert_eq!(back.game.outcome(), pgn.game.outcome(), "{name}");
        // Every tag as the file has it (Variant, RuleVariants, StartFen4, Result, Termination
        // included), in the file's order.
        assert_eq!(back.tags, pgn.tags, "{name}");
        variant_tokens.extend(
            tag(&pgn, "RuleVariants")
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned),
        );
        // The moves, checks, mates and the players' tokens as the file has them; a game the
        // reader had to finish (notes) gains the tokens that finish it.
        let file = movetext_words(&text);
        let ours = movetext_words(&out);
        let n = file.len();
        assert!(
            ours.len() >= n,
            "{name}: {} words, the file has {n}",
            ours.len()
        );
        if pgn.notes.is_empty() {
            assert_eq!(ours.len(), n, "{name}: {ours:?}");
        }
        for (i, (a, b)) in file.iter().zip(&ours).enumerate() {
            let last = i + 1 == n;
            assert_eq!(comparable(b, last), comparable(a, last), "{name}: word {i}");
        }
    }
    for token in [
        "DeadKingWalking",
        "EnPassant",
        "PromoteTo=D",
        "SemiAnonymous",
        "Anonymous",
    ] {
        assert!(variant_tokens.contains(token), "{token}");
    }
}

/// "A file Four Kings cannot read says why in one line (for example: the old mirrored start of
/// games before 2020, or fairy pieces), naming the tag or the move."
#[test]
fn unreadable_files_say_why_in_one_line_naming_the_tag_or_the_move() {
    let expected = [
        (
            "100585510",
            "round 33, Green: no legal move matches \"j7-i7\"",
        ),
        ("11948873", "StartFen4 \"4PCo\": the old mirrored start"),
        ("11980579", "StartFen4 \"4PCo\": the old mirrored start"),
        ("34193208", "StartFen4 \"2PC\": a two-player variant"),
        ("4177881", "StartFen4: invalid placement row for rank 14"),
        (
            "44993649",
            "the rules in Variant and RuleVariants are inconsistent",
        ),
        ("62401310", "StartFen4: invalid placement row for rank 14"),
        (
            "981650",
            "\"Qn8-m8\" (the move fits the old mirrored start of games before 2020",
        ),
    ];
    let games = games("unreadable");
    assert_eq!(games.len(), expected.len());
    for ((name, text), (number, says)) in games.iter().zip(expected) {
        assert!(name.contains(number), "{name} against {number}");
        let error = read_pgn4(text).map(|_| ()).unwrap_err().to_string();
        assert!(!error.contains('\n'), "{name}: {error}");
        assert!(error.contains(says), "{name}: {error}");
    }
}

/// Every file names its source, and every source line a file.
#[test]
fn every_game_has_its_source() {
    let listed: BTreeSet<String> = std::fs::read_to_string(data().join("SOURCES.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 4, "{line}");
            assert!(fields[1].contains('/') && fields[3].len() == 40, "{line}");
            fields[0].to_owned()
        })
        .collect();
    let present: BTreeSet<String> = ["ffa", "teams", "unreadable"]
        .into_iter()
        .flat_map(games)
        .map(|(name, _)| name)
        .collect();
    assert_eq!(listed, present);
}

/// Four Kings' own games go out in the same form: a free-for-all's `Result` as chess.com writes
/// it, with the players' names.
#[test]
fn our_free_for_all_result_is_written_in_chesscom_form() {
    let text = std::fs::read_to_string(data().join("ffa/100527014.pgn4")).unwrap();
    let pgn = read_pgn4(&text).unwrap();
    let mut tags = pgn.tags.clone();
    tags.retain(|(n, _)| n != "Result" && n != "Termination");
    let out = write_pgn4(&pgn.game, &tags);
    assert!(
        out.contains(
            "[Result \"dalay045: 72 - ThefFo0l: 14 - OutlawedGangster: 61 - StockBrilliant: 33\"]"
        ),
        "{out}"
    );
}
