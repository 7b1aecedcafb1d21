//! The other side of `fourkings uci`: a program that speaks 4pchess's UCI dialect, started by a
//! shell command and asked for moves, for `fourkings arena --engine`. Every wait is bounded: an
//! engine that stops answering is an error, never a hang.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use fourkings_engine::notation::parse_coordinate;
use fourkings_engine::{Game, Move};
use thiserror::Error;

/// The legal move `text` names in `game`, in coordinate form (`h2h4`, `e7e8q`) or 4pchess's
/// (`h2-h4`, `e7-e8=Q`); a walking king's move too, when it is the walking king's turn.
pub fn read_move(game: &Game, text: &str) -> Option<Move> {
    let plain = text
        .trim_end_matches('+')
        .chars()
        .filter(|c| *c != '-' && *c != '=')
        .collect::<String>()
        .to_ascii_lowercase();
    let named = parse_coordinate(&plain, game.rules().board()).ok()?;
    let moves = if game.walking_king_to_move() {
        game.position().legal_moves()
    } else {
        game.legal_moves()
    };
    named.find_in(&moves)
}

/// How long an engine may take to answer `uci` or `isready`.
const HANDSHAKE: Duration = Duration::from_secs(20);
/// How much longer than its time per move an engine may take to say `bestmove`.
const GRACE: Duration = Duration::from_secs(5);

/// What went wrong with an engine.
#[derive(Debug, Error)]
pub enum EngineError {
    /// The command could not be started.
    #[error("starting {command:?}: {source}")]
    Start {
        /// The command.
        command: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The engine did not say what was waited for in time.
    #[error("the engine did not answer {waited_for:?} within {within:?}")]
    Silent {
        /// The reply waited for.
        waited_for: &'static str,
        /// How long it was waited for.
        within: Duration,
    },
    /// The engine's input or output closed (it ended or crashed).
    #[error("the engine's connection closed")]
    Closed,
}

/// An engine's answer to `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineMove {
    /// The move, as the engine wrote it after `bestmove`.
    pub text: String,
    /// The depth of the engine's last `info … depth N …` line, if it wrote one.
    pub depth: Option<u32>,
}

/// The `N` of an `info … depth N …` line.
fn info_depth(line: &str) -> Option<u32> {
    let mut words = line.split_whitespace();
    if words.next() != Some("info") {
        return None;
    }
    // `info string …` is free text, whatever words it holds.
    words
        .take_while(|w| *w != "string")
        .skip_while(|w| *w != "depth")
        .nth(1)?
        .parse()
        .ok()
}

/// A running engine.
pub struct UciEngine {
    child: Child,
    input: ChildStdin,
    lines: mpsc::Receiver<String>,
    /// What it called itself (`id name`).
    name: String,
}

impl UciEngine {
    /// Starts `command` (through `sh -c`) and waits for its `uciok` and `readyok`.
    pub fn start(command: &str) -> Result<UciEngine, EngineError> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| EngineError::Start {
                command: command.to_owned(),
                source,
            })?;
        let output = child.stdout.take().ok_or(EngineError::Closed)?;
        let input = child.stdin.take().ok_or(EngineError::Closed)?;
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut engine = UciEngine {
            child,
            input,
            lines,
            name: command.to_owned(),
        };
        engine.send("uci")?;
        for line in engine.until("uciok", HANDSHAKE)? {
            if let Some(name) = line.strip_prefix("id name ") {
                engine.name = name.to_owned();
            }
        }
        engine.ready()?;
        Ok(engine)
    }

    /// What the engine called itself.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        writeln!(self.input, "{line}").map_err(|_| EngineError::Closed)?;
        self.input.flush().map_err(|_| EngineError::Closed)
    }

    /// `isready`, answered `readyok`.
    pub fn ready(&mut self) -> Result<Vec<String>, EngineError> {
        self.send("isready")?;
        self.until("readyok", HANDSHAKE)
    }

    /// The lines up to and including the first that starts with `prefix`.
    fn until(
        &mut self,
        prefix: &'static str,
        within: Duration,
    ) -> Result<Vec<String>, EngineError> {
        let deadline = Instant::now() + within;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return Ok(seen);
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    return Err(EngineError::Silent {
                        waited_for: prefix,
                        within,
                    });
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err(EngineError::Closed),
            }
        }
    }

    /// Sets the position after `moves` (coordinate form) from the start.
    pub fn position(&mut self, moves: &[String]) -> Result<(), EngineError> {
        if moves.is_empty() {
            self.send("position startpos")
        } else {
            self.send(&format!("position startpos moves {}", moves.join(" ")))
        }
    }

    /// The engine's move in the position set, with `movetime` to think: its `bestmove`, as it
    /// wrote it, and the depth its last `info` line gave.
    pub fn go(&mut self, movetime: Duration) -> Result<EngineMove, EngineError> {
        self.send(&format!("go movetime {}", movetime.as_millis()))?;
        let lines = self.until("bestmove", movetime + GRACE)?;
        let last = lines.last().map(String::as_str).unwrap_or_default();
        Ok(EngineMove {
            text: last
                .split_whitespace()
                .nth(1)
                .unwrap_or_default()
                .to_owned(),
            depth: lines.iter().rev().find_map(|line| info_depth(line)),
        })
    }

    /// How many legal moves the engine counts in its current position, if it says (4pchess's
    /// `get_num_legal_moves`, answered `info string n_legal N`); `None` from an engine that
    /// does not know the command.
    pub fn legal_move_count(&mut self) -> Result<Option<usize>, EngineError> {
        self.send("get_num_legal_moves")?;
        let lines = self.ready()?;
        Ok(lines.iter().find_map(|line| {
            let at = line.find("n_legal ")?;
            line[at + "n_legal ".len()..]
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        }))
    }
}

impl Drop for UciEngine {
    fn drop(&mut self) {
        let _ = self.send("quit");
        // It had its chance to quit; a wedged one must not outlive the match.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_depth_is_read_from_an_info_line_only() {
        assert_eq!(
            info_depth("info depth 9 time 301 nodes 1200 pv h2h4"),
            Some(9)
        );
        assert_eq!(info_depth("info nodes 5 depth 12 score cp 3"), Some(12));
        assert_eq!(info_depth("info string depth 4"), None);
        assert_eq!(info_depth("bestmove h2h4"), None);
        assert_eq!(info_depth("info depth"), None);
        assert_eq!(info_depth("info depth many"), None);
    }
}
