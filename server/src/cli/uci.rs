//! `fourkings uci`: the engine behind the UCI dialect that 4pchess speaks, so that four-player
//! tools and other engines (and `fourkings arena --engine`) can play against it: `uci`,
//! `isready`, `setoption`, `ucinewgame`, `position startpos|fen <FEN4> [moves …]`,
//! `go movetime|nodes|depth|infinite|<seat>time …`, `stop`, `quit`. Each search runs on a thread
//! of its own, so that `stop` and `isready` are answered while it thinks; the program ends on
//! `quit` or when its input closes.
//!
//! Moves are read in coordinate form (`h2h4`, `e7e8q`) and in 4pchess's own (`h2-h4`,
//! `e7-e8=Q`), and written in coordinate form. `info` gives the search's depth, time, nodes,
//! score (centipawns for the side to move) and principal variation.

use std::io::{BufRead, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use clap::Args;
use fourkings_engine::bot::{Bot, Level, SearchLimits, SearchMemory, SearchRoot};
use fourkings_engine::notation::{self, write_coordinate};
use fourkings_engine::{Game, Preset, RuleSet};

use crate::uci_client::read_move;

/// Arguments of `fourkings uci`.
#[derive(Debug, Args)]
pub(crate) struct UciArgs {
    /// The rule system at the start (`setoption name Rules value …` changes it).
    #[arg(long, default_value = "teams")]
    rules: Preset,
    /// The level at the start (`setoption name Level value …` changes it).
    #[arg(long, default_value = "hard")]
    level: Level,
}

/// The table's size when `setoption name Hash` has not set it (MiB).
const DEFAULT_HASH_MEGABYTES: usize = 32;
/// The largest table `setoption name Hash` may ask for (MiB).
const MAX_HASH_MEGABYTES: usize = 4096;

/// How long a search may run when `go` names no time (`infinite`, `depth`, `nodes`): until `stop`.
const NO_TIME_LIMIT: Duration = Duration::from_secs(24 * 3600);

/// Runs the protocol on standard input and output until `quit` or the end of the input.
pub(crate) fn run(args: &UciArgs) -> anyhow::Result<()> {
    let mut engine = Engine::new(args.rules, args.level);
    let stdin = std::io::stdin();
    for line in stdin.lock().lines() {
        if !engine.command(&line?) {
            break;
        }
    }
    engine.stop();
    Ok(())
}

/// What the protocol has set up, and the search running, if any.
struct Engine {
    preset: Preset,
    level: Level,
    game: Game,
    search: Option<Search>,
    /// The table and histories kept from one search to the next (lent to the search while one
    /// runs), as engines keep them between `go` commands; `ucinewgame` empties it.
    memory: Option<SearchMemory>,
    /// The table's size in MiB (`setoption name Hash`).
    hash_megabytes: usize,
    /// Seeds each search differently, the same way on every run.
    searches: u64,
}

/// A search on its own thread, and the flag that stops it; the thread gives the memory back.
struct Search {
    cancel: Arc<AtomicBool>,
    thread: JoinHandle<SearchMemory>,
}

/// What `go` asked for.
#[derive(Debug, Default, PartialEq, Eq)]
struct Go {
    movetime: Option<Duration>,
    nodes: Option<u64>,
    depth: Option<u8>,
    /// The mover's bank and increment (`rtime`, `rinc`; `wtime`, `winc` in Duo), if given.
    clock: Option<(Duration, Duration)>,
}

impl Engine {
    fn new(preset: Preset, level: Level) -> Engine {
        Engine {
            preset,
            level,
            game: new_game(preset.rules()),
            search: None,
            memory: None,
            hash_megabytes: DEFAULT_HASH_MEGABYTES,
            searches: 0,
        }
    }

    /// The memory for the next search: the one kept, or a new one.
    fn take_memory(&mut self) -> SearchMemory {
        self.memory
            .take()
            .unwrap_or_else(|| SearchMemory::with_megabytes(self.hash_megabytes))
    }

    /// Handles one line; `false` when the program should end.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.first().copied() {
            None => {}
            Some("uci") => {
                let presets: String = Preset::ALL
                    .iter()
                    .map(|p| format!(" var {}", p.name()))
                    .collect();
                say(&format!(
                    "id name Four Kings {}\nid author the Four Kings developers\n\
                     option name Rules type combo default {}{presets}\n\
                     option name Level type combo default {} var easy var medium var hard\n\
                     option name Hash type spin default {DEFAULT_HASH_MEGABYTES} min 1 max {MAX_HASH_MEGABYTES}\n\
                     uciok",
                    env!("CARGO_PKG_VERSION"),
                    self.preset.name(),
                    self.level.name(),
                ));
            }
            Some("isready") => say("readyok"),
            Some("debug" | "register" | "ponderhit") => {}
            Some("setoption") => self.set_option(&words[1..]),
            Some("ucinewgame") => {
                self.stop();
                self.game = new_game(self.preset.rules());
                self.memory = None;
            }
            Some("position") => {
                self.stop();
                match position(self.preset.rules(), &words[1..]) {
                    Ok(game) => self.game = game,
                    Err(why) => say(&format!("info string {why}")),
                }
            }
            Some("go") => match parse_go(&words[1..], &self.game) {
                Ok(go) => self.go(&go),
                Err(why) => say(&format!("info string {why}")),
            },
            Some("stop") => self.stop(),
            Some("quit") => return false,
            Some(other) => say(&format!("info string unknown command {other:?}")),
        }
        true
    }

    /// `setoption name <name> value <value>`: the rules or the level.
    fn set_option(&mut self, words: &[&str]) {
        let (name, value) = match words {
            ["name", name, "value", value] => (name.to_ascii_lowercase(), *value),
            _ => {
                say("info string setoption takes: name <name> value <value>");
                return;
            }
        };
        match name.as_str() {
            "rules" => match value.parse::<Preset>() {
                Ok(preset) => {
                    self.stop();
                    self.preset = preset;
                    self.game = new_game(preset.rules());
                }
                Err(e) => say(&format!("info string {e}")),
            },
            "level" => match value.parse::<Level>() {
                Ok(level) => self.level = level,
                Err(e) => say(&format!("info string {e}")),
            },
            "hash" => match value.parse::<usize>() {
                Ok(mb) if (1..=MAX_HASH_MEGABYTES).contains(&mb) => {
                    self.stop();
                    self.hash_megabytes = mb;
                    self.memory = None;
                }
                _ => say(&format!(
                    "info string Hash is a size in MiB, 1 to {MAX_HASH_MEGABYTES}"
                )),
            },
            // One thread: accepted, as 4pchess's tools send it.
            "threads" => {}
            other => say(&format!("info string unknown option {other:?}")),
        }
    }

    /// Starts a search of the current position.
    fn go(&mut self, go: &Go) {
        self.stop();
        if self.game.is_over() {
            say("info string the game is over\nbestmove (none)");
            return;
        }
        if self.game.walking_king_to_move() {
            // A walking king's move is the rules' to draw, not a choice.
            let text = self
                .game
                .walking_king_move()
                .map_or("(none)".to_owned(), write_coordinate);
            say(&format!("bestmove {text}"));
            return;
        }
        let root = match SearchRoot::from_game(&self.game) {
            Ok(root) => root,
            Err(e) => {
                say(&format!("info string {e}\nbestmove (none)"));
                return;
            }
        };
        let settings = self.level.settings();
        // A movetime is spent exactly; a clock as the server's CPU players spend theirs.
        let timed = match (go.movetime, go.clock) {
            (Some(time), _) => Some(SearchLimits::default().with_time(time).with_target(time)),
            (None, Some((bank, inc))) => Some(SearchLimits::for_clock(bank, inc, Duration::ZERO)),
            (None, None) => None,
        };
        // What `go` names replaces the level's own budget; with nothing named, the level's.
        let named = timed.is_some() || go.nodes.is_some() || go.depth.is_some();
        let bot = Bot::with_settings(fourkings_engine::bot::LevelSettings {
            nodes: if named { go.nodes } else { settings.nodes },
            time: if named { NO_TIME_LIMIT } else { settings.time },
            max_depth: go.depth.unwrap_or(settings.max_depth),
            ..settings
        });
        let timed = timed.unwrap_or_default();
        let cancel = Arc::new(AtomicBool::new(false));
        let flag = cancel.clone();
        let seed = self.searches;
        self.searches += 1;
        let mut memory = self.take_memory();
        let thread = std::thread::spawn(move || {
            let limits = timed.with_cancel(&flag);
            match bot.choose_with(&mut memory, &root, &limits, seed) {
                Ok(result) => {
                    let pv: Vec<String> = result.pv.iter().map(|&m| write_coordinate(m)).collect();
                    say(&format!(
                        "info depth {} time {} nodes {} score cp {} pv {}\nbestmove {}",
                        result.depth,
                        result.elapsed.as_millis(),
                        result.nodes,
                        result.score,
                        pv.join(" "),
                        write_coordinate(result.mv)
                    ));
                }
                Err(e) => say(&format!("info string {e}\nbestmove (none)")),
            }
            memory
        });
        self.search = Some(Search { cancel, thread });
    }

    /// Stops the search, if one runs; it says its `bestmove` before this returns.
    fn stop(&mut self) {
        if let Some(search) = self.search.take() {
            search.cancel.store(true, Ordering::Relaxed);
            // A search that panicked took its memory with it: the next one starts afresh.
            self.memory = search.thread.join().ok();
        }
    }
}

/// Writes `text` and a newline at once, and flushes: the other side waits for whole lines.
fn say(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{text}");
    let _ = out.flush();
}

fn new_game(rules: RuleSet) -> Game {
    Game::new(rules).expect("every preset's rules make a game")
}

/// `startpos|fen <FEN4 or FEN> [moves …]`: the game after those moves.
fn position(rules: RuleSet, words: &[&str]) -> Result<Game, String> {
    let (mut game, rest) = match words {
        ["startpos", rest @ ..] => (new_game(rules), rest),
        ["fen", fen, rest @ ..] => {
            let setup = if rules.board() == fourkings_engine::BoardKind::Classic {
                // A chess FEN is six words: take them back together.
                let fen_words = rest.iter().take_while(|w| **w != "moves").count();
                let text = std::iter::once(*fen)
                    .chain(rest[..fen_words].iter().copied())
                    .collect::<Vec<_>>()
                    .join(" ");
                let setup = text
                    .parse::<notation::Fen>()
                    .map_err(|e| format!("invalid FEN: {e}"))?
                    .setup;
                let game = Game::from_setup(&setup, rules, 0)
                    .map_err(|e| format!("invalid position: {e}"))?;
                return play_moves(game, &rest[fen_words..]);
            } else {
                notation::parse_fen4(fen).map_err(|e| format!("invalid FEN4: {e}"))?
            };
            let game =
                Game::from_setup(&setup, rules, 0).map_err(|e| format!("invalid position: {e}"))?;
            (game, rest)
        }
        _ => return Err("position takes: startpos|fen <FEN4> [moves …]".into()),
    };
    game = play_moves(game, rest)?;
    Ok(game)
}

/// Plays `moves …` (if `words` holds them) in `game`.
fn play_moves(mut game: Game, words: &[&str]) -> Result<Game, String> {
    let moves = match words {
        [] => return Ok(game),
        ["moves", moves @ ..] => moves,
        _ => return Err(format!("expected moves, not {:?}", words[0])),
    };
    for text in moves {
        let mv = read_move(&game, text).ok_or_else(|| format!("invalid move {text:?}"))?;
        let played = if game.walking_king_to_move() {
            game.walk_king_with(mv).map(|_| ())
        } else {
            game.play(
                game.to_move().expect("a game going on has a seat to move"),
                mv,
            )
            .map(|_| ())
        };
        played.map_err(|e| format!("invalid move {text:?}: {e}"))?;
    }
    Ok(game)
}

/// Reads `go`'s options.
fn parse_go(words: &[&str], game: &Game) -> Result<Go, String> {
    let mut go = Go::default();
    let mover_letter = game
        .to_move()
        .map(|seat| seat.army(game.rules().format).letter());
    let (mut bank, mut increment) = (None, None);
    let mut i = 0;
    while i < words.len() {
        let word = words[i];
        if word == "infinite" || word == "ponder" {
            go.movetime = go.movetime.or(Some(NO_TIME_LIMIT));
            i += 1;
            continue;
        }
        let value = words
            .get(i + 1)
            .and_then(|v| v.parse::<u64>().ok())
            .ok_or_else(|| format!("go {word} takes a number"))?;
        match word {
            "movetime" => go.movetime = Some(Duration::from_millis(value)),
            "nodes" => go.nodes = Some(value),
            "depth" => go.depth = Some(value.min(64) as u8),
            // The mover's own clock (`rtime`, `rinc`, …); the others' are not this search's.
            _ if word.len() == 5
                && word.ends_with("time")
                && mover_letter == word.chars().next() =>
            {
                bank = Some(Duration::from_millis(value));
            }
            _ if word.len() == 4
                && word.ends_with("inc")
                && mover_letter == word.chars().next() =>
            {
                increment = Some(Duration::from_millis(value));
            }
            // 4pchess's other options (`moves_to_go`, `mate`) change nothing here.
            _ => {}
        }
        i += 2;
    }
    go.clock = bank.map(|bank| (bank, increment.unwrap_or_default()));
    Ok(go)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_are_read_in_either_form_and_the_game_follows_them() {
        let rules = Preset::Teams.rules();
        let game = position(rules, &["startpos", "moves", "h2h4", "b7-c7", "g13g12"]).unwrap();
        assert_eq!(game.ply_count(), 3);
        assert!(position(rules, &["startpos", "moves", "h2h5"]).is_err());
        assert!(position(rules, &["startpos", "moves", "a1a2"]).is_err());
    }

    #[test]
    fn go_reads_times_nodes_depth_and_the_movers_clock() {
        let game = new_game(Preset::Teams.rules());
        let go = parse_go(&["movetime", "300"], &game).unwrap();
        assert_eq!(go.movetime, Some(Duration::from_millis(300)));
        let go = parse_go(&["nodes", "5000", "depth", "3"], &game).unwrap();
        assert_eq!((go.nodes, go.depth), (Some(5000), Some(3)));
        // Red to move: Red's bank counts, Blue's does not.
        let go = parse_go(&["btime", "1000", "rtime", "60000", "rinc", "7000"], &game).unwrap();
        assert_eq!(
            go.clock,
            Some((Duration::from_secs(60), Duration::from_secs(7)))
        );
        assert!(parse_go(&["movetime"], &game).is_err());
    }
}
