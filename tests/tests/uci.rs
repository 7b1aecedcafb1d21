//! `fourkings uci`: the engine over 4pchess's UCI dialect, driven as another program would drive
//! it, through its standard input and output.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;

use fourkings_engine::notation::{parse_coordinate, parse_fen4};
use fourkings_engine::{Game, Preset};
use fourkings_tests::{WAIT, fourkings_binary};

/// A running `fourkings uci`, its lines read on a thread of their own.
struct Engine {
    child: Option<Child>,
    input: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(fourkings_binary!())
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("fourkings uci starts");
        let output = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let input = child.stdin.take();
        Engine {
            child: Some(child),
            input,
            lines,
        }
    }

    fn send(&mut self, line: &str) {
        let input = self.input.as_mut().expect("input open");
        writeln!(input, "{line}").expect("the engine reads");
        input.flush().expect("the engine reads");
    }

    /// The lines up to the first that starts with `prefix`, which is returned last.
    fn until(&mut self, prefix: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(WAIT)
                .unwrap_or_else(|_| panic!("no {prefix:?} line after {seen:?}"));
            let done = line.starts_with(prefix);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// The move of the `bestmove` line that ends the search, and its `info` line.
    fn best_move(&mut self) -> (String, String) {
        let lines = self.until("bestmove");
        let best = lines.last().unwrap()["bestmove ".len()..].to_owned();
        let info = lines
            .iter()
            .rev()
            .find(|l| l.starts_with("info depth"))
            .cloned()
            .unwrap_or_default();
        (best, info)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Whether `mv` is legal in `game`.
fn legal(game: &Game, mv: &str) -> bool {
    parse_coordinate(mv, game.rules().board())
        .ok()
        .and_then(|named| named.find_in(&game.legal_moves()))
        .is_some()
}

#[test]
fn it_answers_uci_and_isready_and_plays_legal_moves_in_teams_ffa_and_duo() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.until("uciok");
    assert!(
        lines.iter().any(|l| l.starts_with("id name Four Kings")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("option name Rules")),
        "{lines:?}"
    );
    engine.send("isready");
    engine.until("readyok");

    // Teams, 4pchess's move form in the history, a node budget.
    engine.send("position startpos moves h2h4 b7-c7");
    engine.send("go nodes 5000");
    let (best, info) = engine.best_move();
    let mut game = Game::new(Preset::Teams.rules()).unwrap();
    for (seat, mv) in [(0, "h2h4"), (1, "b7c7")] {
        let named = parse_coordinate(mv, game.rules().board()).unwrap();
        let mv = named.find_in(&game.legal_moves()).unwrap();
        game.play(fourkings_engine::Seat::ALL[seat], mv).unwrap();
    }
    assert!(legal(&game, &best), "{best} in Teams after h2h4 b7c7");
    for word in [" depth ", " nodes ", " score cp ", " pv "] {
        assert!(info.contains(word), "{info}");
    }

    // Free-for-all from a FEN4.
    let fen4 = "R-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-3,yR,yN,yB,yK,yQ,yB,yN,yR,3/3,yP,yP,yP,yP,yP,yP,yP,yP,3/14/bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/bB,bP,10,gP,gB/bN,bP,10,gP,gN/bR,bP,10,gP,gR/14/3,rP,rP,rP,rP,rP,rP,rP,rP,3/3,rR,rN,rB,rQ,rK,rB,rN,rR,3";
    engine.send("setoption name Rules value ffa");
    engine.send(&format!("position fen {fen4}"));
    engine.send("go depth 2");
    let (best, _) = engine.best_move();
    let setup = parse_fen4(fen4).unwrap();
    let game = Game::from_setup(&setup, Preset::Ffa.rules(), 0).unwrap();
    assert!(legal(&game, &best), "{best} in free-for-all");

    // Duo, a chess FEN of six words, then a move.
    engine.send("setoption name Rules value duo");
    engine.send(
        "position fen rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 moves e7e5",
    );
    engine.send("go movetime 100");
    let (best, _) = engine.best_move();
    let game = {
        let setup = "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2"
            .parse::<fourkings_engine::notation::Fen>()
            .unwrap()
            .setup;
        Game::from_setup(&setup, Preset::Duo.rules(), 0).unwrap()
    };
    assert!(legal(&game, &best), "{best} in Duo after e4 e5");

    // A bad line is answered, not fatal.
    engine.send("position startpos moves h2h5");
    engine.until("info string invalid move");
    engine.send("isready");
    engine.until("readyok");
}

/// The number after `word` in an `info` line.
fn info_number(info: &str, word: &str) -> u64 {
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|w| *w == word).expect("the word");
    words[at + 1].parse().expect("a number")
}

#[test]
fn the_table_is_kept_between_searches_until_a_new_game_and_hash_sizes_it() {
    let mut engine = Engine::start();
    engine.send("uci");
    let lines = engine.until("uciok");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("option name Hash type spin")),
        "{lines:?}"
    );
    engine.send("setoption name Hash value 0");
    engine.until("info string Hash is a size in MiB");
    engine.send("setoption name Hash value 8");
    let search = |engine: &mut Engine| {
        engine.send("position startpos moves h2h4 b7c7");
        engine.send("go depth 6");
        let info = engine.best_move().1;
        assert_eq!(info_number(&info, "depth"), 6, "{info}");
        info_number(&info, "nodes")
    };
    let fresh = search(&mut engine);
    // The same search again, with what the first one stored: it visits fewer nodes.
    let remembered = search(&mut engine);
    assert!(remembered < fresh, "{remembered} nodes after {fresh}");
    // A new game forgets: the same search as the first.
    engine.send("ucinewgame");
    assert_eq!(search(&mut engine), fresh);
}

#[test]
fn stop_ends_an_infinite_search_with_a_move_and_the_engine_ends_with_its_input() {
    let mut engine = Engine::start();
    engine.send("position startpos");
    engine.send("go infinite");
    // Still thinking: `isready` is answered meanwhile.
    engine.send("isready");
    engine.until("readyok");
    engine.send("stop");
    let (best, _) = engine.best_move();
    assert!(
        legal(&Game::new(Preset::Teams.rules()).unwrap(), &best),
        "{best}"
    );
    // The input closes: the program ends by itself.
    drop(engine.input.take());
    let mut child = engine.child.take().expect("running");
    let (tx, exited) = mpsc::channel();
    std::thread::spawn(move || tx.send(child.wait()));
    let status = exited
        .recv_timeout(WAIT)
        .expect("the engine ends when its input closes")
        .expect("waiting works");
    assert!(status.success(), "{status}");
}

/// `fourkings arena --engine`: a level against another program over UCI (here `fourkings uci`
/// itself), refereed by our engine; an engine that names a move that is not legal loses.
#[test]
fn the_arena_plays_an_engine_over_uci_and_an_illegal_move_forfeits() {
    use fourkings_server::arena::{Contender, Match, play};
    let binary = fourkings_binary!().display().to_string();
    let setup = |engine: String| Match {
        preset: Preset::Teams,
        contenders: vec!["easy".parse().unwrap(), Contender::Engine],
        games: 2,
        max_plies: 24,
        random_plies: 4,
        threads: 1,
        seed: 5,
        movetime: Some(std::time::Duration::from_millis(20)),
        clock: None,
        engine: Some(engine),
        hash_megabytes: 32,
    };
    let report = play(&setup(format!("'{binary}' uci --level easy"))).unwrap();
    let table = report.table();
    assert!(report.forfeits.is_empty(), "{table}");
    assert_eq!(
        report.engine.as_deref(),
        Some("Four Kings 0.1.0"),
        "{table}"
    );
    assert!(table.contains("Elo difference"), "{table}");
    // The other engine's `info depth` lines are read, as our own searches' depths are.
    assert!(
        report.rows.iter().all(|r| r.mean_depth.is_some()),
        "{table}"
    );
    // Nobody forfeited: both games ran to the move limit or to a result.
    assert!(report.mean_plies > 4.0, "{table}");

    // An "engine" that answers every `go` with a move off the board.
    let liar = "while read line; do case \"$line\" in uci) echo uciok;; isready) echo readyok;; go*) echo 'bestmove a1a1';; esac; done";
    let report = play(&setup(liar.to_owned())).unwrap();
    assert_eq!(report.forfeits.len(), 2, "{}", report.table());
    assert!(
        report.forfeits[0].contains("not a legal move"),
        "{:?}",
        report.forfeits
    );
    assert_eq!(report.rows[0].score, 1.0, "{}", report.table());
}
