//! Matches: the bot against itself, the random mover, or another engine over UCI. Games are
//! played in parallel threads, under node budgets (so that results depend on the strategies and
//! not on the machine's load), at equal time per move (against another engine), or on a game
//! clock that each contender manages itself; the score table has 95% confidence intervals and
//! the Elo difference. Our engine referees every game: an
//! engine's move that is not legal loses the game for its side. `fourkings arena` is the
//! command-line face of this module.

use std::fmt::{self, Write as _};
use std::str::FromStr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use fourkings_engine::bot::{Bot, Level, SearchLimits, SearchMemory, SearchOptions, SearchRoot};
use fourkings_engine::notation::{write_coordinate, write_pgn, write_pgn4};
use fourkings_engine::{Army, Format, Game, Outcome, Preset, RuleSet, Seat, Team};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use thiserror::Error;

use crate::uci_client::{UciEngine, read_move};

/// Who plays a seat: the random mover, or the bot at a level with an optional node budget of its
/// own and its search options switched (written `hard`, `hard:100000`, `hard/-null`,
/// `medium:50000/-lmr`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contender {
    /// A uniformly random legal move.
    Random,
    /// The other engine of the match ([`Match::engine`]), over UCI.
    Engine,
    /// The engine's bot.
    Bot {
        /// Its level.
        level: Level,
        /// Nodes per move, if not the level's own.
        nodes: Option<u64>,
        /// The search's pruning options.
        options: SearchOptions,
    },
}

/// A contender that is not `random`, a level, or a level with a node budget (`hard:100000`).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "unknown contender {0:?}: expected random, engine (the --engine), or easy, medium or hard \
     optionally followed by :NODES and search options turned on or off (/+null, /-lmr), of: \
     {names}",
    names = SearchOptions::NAMES.join(", ")
)]
pub struct ParseContenderError(pub String);

impl FromStr for Contender {
    type Err = ParseContenderError;

    fn from_str(s: &str) -> Result<Contender, ParseContenderError> {
        let err = || ParseContenderError(s.to_owned());
        if s.eq_ignore_ascii_case("random") {
            return Ok(Contender::Random);
        }
        if s.eq_ignore_ascii_case("engine") {
            return Ok(Contender::Engine);
        }
        let mut parts = s.split('/');
        let head = parts.next().unwrap_or_default();
        let (level, nodes) = match head.split_once(':') {
            Some((level, nodes)) => (level, Some(nodes.parse().map_err(|_| err())?)),
            None => (head, None),
        };
        let mut options = SearchOptions::DEFAULT;
        for part in parts {
            let (on, name) = match part.split_at_checked(1) {
                Some(("+", name)) => (true, name),
                Some(("-", name)) => (false, name),
                _ => return Err(err()),
            };
            if !options.set(name, on) {
                return Err(err());
            }
        }
        Ok(Contender::Bot {
            level: level.parse().map_err(|_| err())?,
            nodes,
            options,
        })
    }
}

impl fmt::Display for Contender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (level, nodes, options) = match self {
            Contender::Random => return f.write_str("random"),
            Contender::Engine => return f.write_str("engine"),
            Contender::Bot {
                level,
                nodes,
                options,
            } => (level, nodes, options),
        };
        write!(f, "{level}")?;
        if let Some(n) = nodes {
            write!(f, ":{n}")?;
        }
        let sign = |on: bool| if on { '+' } else { '-' };
        for name in SearchOptions::NAMES {
            let on = options.get(name);
            if on != SearchOptions::DEFAULT.get(name) {
                write!(f, "/{}{name}", sign(on == Some(true)))?;
            }
        }
        Ok(())
    }
}

impl Contender {
    /// The bot this contender plays with: its level's settings and its own node budget if it
    /// has one; with `movetime`, that time a move (and no node cap unless it names one), else no
    /// time budget where there is a node budget (node budgets alone keep results independent of
    /// load) and the level's own time where there is none (hard).
    fn bot(self, movetime: Option<Duration>) -> Option<Bot> {
        match self {
            Contender::Random | Contender::Engine => None,
            Contender::Bot {
                level,
                nodes,
                options,
            } => {
                let mut settings = level.settings();
                settings.options = options;
                match movetime {
                    Some(time) => {
                        settings.nodes = nodes;
                        settings.time = time;
                    }
                    None => {
                        settings.nodes = nodes.or(settings.nodes);
                        if settings.nodes.is_some() {
                            settings.time = Duration::from_secs(3_600);
                        }
                    }
                }
                Some(Bot::with_settings(settings))
            }
        }
    }
}

/// A match: the rules, who plays, and how many games.
#[derive(Clone, Debug)]
pub struct Match {
    /// The rules of every game.
    pub preset: Preset,
    /// The contenders in the order of the table's rows. With teams (Teams, Duo) there are two,
    /// one per team; in free-for-all there are four, one per seat.
    pub contenders: Vec<Contender>,
    /// Games to play.
    pub games: usize,
    /// Plies after which a game ends (drawn in Teams and Duo, decided on points in free-for-all).
    pub max_plies: u32,
    /// Plies at the start of each game played at random, so that games differ; both games of a
    /// pair share them, with the contenders' seats swapped.
    pub random_plies: u32,
    /// Threads that play games at once.
    pub threads: usize,
    /// Seeds the openings and the bots.
    pub seed: u64,
    /// Time per move for every contender, if the match is played by time rather than nodes.
    pub movetime: Option<Duration>,
    /// A game clock for every seat, if the match is played on one: each contender spends its
    /// bank as it sees fit (the bot as the server's CPU players do), and a seat whose bank runs
    /// out loses the game for its side.
    pub clock: Option<MatchClock>,
    /// The shell command that starts the other engine, for the contender `engine`.
    pub engine: Option<String>,
    /// The transposition table each of our contenders keeps for the whole game, in MiB (the
    /// UCI `Hash` option; the server's CPU players use 32).
    pub hash_megabytes: usize,
}

/// A game clock: what each seat's bank holds at the start and earns a move, written as
/// chess.com writes it, `1|7` (minutes, then seconds of increment; minutes may be fractional).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchClock {
    /// Each bank at the start.
    pub bank: Duration,
    /// Added to a seat's bank after each of its moves.
    pub increment: Duration,
}

/// A clock that is not `MINUTES|SECONDS`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("bad clock {0:?}: expected minutes|increment seconds, e.g. 1|7")]
pub struct ParseClockError(String);

impl FromStr for MatchClock {
    type Err = ParseClockError;

    fn from_str(s: &str) -> Result<MatchClock, ParseClockError> {
        let bad = || ParseClockError(s.to_owned());
        let (minutes, seconds) = s.split_once(['|', '+']).ok_or_else(bad)?;
        let number = |t: &str| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0 && *v <= 600.0)
                .ok_or_else(bad)
        };
        let bank = Duration::from_secs_f64(number(minutes)? * 60.0);
        if bank.is_zero() {
            return Err(bad());
        }
        Ok(MatchClock {
            bank,
            increment: Duration::from_secs_f64(number(seconds)?),
        })
    }
}

impl fmt::Display for MatchClock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} | {}",
            self.bank.as_secs_f64() / 60.0,
            self.increment.as_secs_f64()
        )
    }
}

/// How one contender spent its clock over a match.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ClockUse {
    /// Moves it thought about (not the random opening plies).
    pub moves: usize,
    /// Time spent on them, in all.
    pub spent: Duration,
    /// The longest one move took.
    pub longest: Duration,
    /// The least any of its banks held after a move.
    pub least_left: Option<Duration>,
    /// Games it lost on time.
    pub lost_on_time: usize,
}

impl ClockUse {
    /// One move that took `took` from a bank that held `bank`: charged, with the bank left after
    /// it (`None`, the move ran the bank out).
    fn record(&mut self, took: Duration, bank: Duration) -> Option<Duration> {
        self.moves += 1;
        self.spent += took;
        self.longest = self.longest.max(took);
        if took >= bank {
            self.lost_on_time += 1;
            return None;
        }
        let left = bank - took;
        self.least_left = Some(self.least_left.map_or(left, |l| l.min(left)));
        Some(left)
    }

    fn add(&mut self, other: &ClockUse) {
        self.moves += other.moves;
        self.spent += other.spent;
        self.longest = self.longest.max(other.longest);
        self.least_left = match (self.least_left, other.least_left) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        self.lost_on_time += other.lost_on_time;
    }
}

/// Why a match cannot be played.
#[derive(Debug, Error)]
pub enum MatchError {
    /// The number of contenders does not fit the format.
    #[error("{preset} needs {needed} contenders, not {given}")]
    Contenders {
        /// The preset.
        preset: Preset,
        /// How many it needs.
        needed: usize,
        /// How many were given.
        given: usize,
    },
    /// The preset's rules with the move limit are invalid.
    #[error("invalid rules: {0}")]
    Rules(String),
    /// A contender is `engine`, but no engine command or time per move was given.
    #[error("the contender engine needs --engine '<command>' and --movetime or --clock")]
    NoEngine,
    /// Both a time per move and a clock were given.
    #[error("a match is played by --movetime or on a --clock, not both")]
    MovetimeAndClock,
    /// The other engine would not start or answer.
    #[error("the engine: {0}")]
    Engine(#[from] crate::uci_client::EngineError),
}

/// One contender's results over a match.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The contender.
    pub contender: Contender,
    /// Games won (in free-for-all a shared first place counts as a share of a win).
    pub wins: f64,
    /// Games drawn (teams only).
    pub draws: usize,
    /// Games lost.
    pub losses: f64,
    /// The mean score per game: 1 a win, ½ a draw, 0 a loss (free-for-all: the share of first
    /// place).
    pub score: f64,
    /// The 95% confidence interval of the score: Wilson's interval with draws as half a win
    /// (draws only narrow the true spread, so this errs on the wide side), which unlike the
    /// normal approximation stays sensible at 0% and 100%.
    pub interval: (f64, f64),
    /// Free-for-all: mean points per game.
    pub mean_points: Option<f64>,
    /// The mean depth its searches finished (ours) or last reported (the other engine's
    /// `info depth`), if it searched and said.
    pub mean_depth: Option<f64>,
}

/// The depths one contender's searches reached.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct DepthTally {
    /// The depths, added up.
    plies: u64,
    /// The searches that gave one.
    searches: u64,
}

impl DepthTally {
    fn record(&mut self, depth: u32) {
        self.plies += u64::from(depth);
        self.searches += 1;
    }

    fn add(&mut self, other: DepthTally) {
        self.plies += other.plies;
        self.searches += other.searches;
    }

    fn mean(self) -> Option<f64> {
        (self.searches > 0).then(|| self.plies as f64 / self.searches as f64)
    }
}

/// What a match found.
#[derive(Clone, Debug)]
pub struct Report {
    /// The match that was played.
    pub setup: Match,
    /// One row per contender.
    pub rows: Vec<Row>,
    /// Games that ended by the move limit.
    pub move_limit_games: usize,
    /// Mean plies per game.
    pub mean_plies: f64,
    /// How long the match took.
    pub elapsed: Duration,
    /// Bot nodes searched in all.
    pub nodes: u64,
    /// Games lost by the other engine's fault: a move that is not legal, or none in time.
    pub forfeits: Vec<String>,
    /// Positions where the other engine counted a different number of legal moves than ours
    /// (it was asked in each position it moved in, if it can say), and how many were compared.
    pub disagreements: (usize, usize),
    /// Where the counts differed: the game, the moves that led there, and both counts.
    pub differing: Vec<String>,
    /// The other engine's name, if one played.
    pub engine: Option<String>,
    /// On a clock: how each contender (in the order of the rows) spent it.
    pub clock_use: Option<Vec<ClockUse>>,
    /// Every game in the order played, as the record other tools read (PGN for Duo, PGN4
    /// otherwise), its seats named by contender.
    pub records: Vec<String>,
}

impl Report {
    /// Games finished per second.
    pub fn games_per_second(&self) -> f64 {
        self.setup.games as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The table as text.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let m = &self.setup;
        let _ = writeln!(
            out,
            "{} games of {}, at most {} plies, {} random opening plies, seed {}",
            m.games, m.preset, m.max_plies, m.random_plies, m.seed
        );
        let ffa = self.rows.iter().any(|r| r.mean_points.is_some());
        let width = self
            .rows
            .iter()
            .map(|r| r.contender.to_string().len())
            .max()
            .unwrap_or(0)
            .max(10);
        let _ = writeln!(
            out,
            "{:<width$} {:>7} {:>7} {:>7} {:>8}  {:<17}{}",
            "contender",
            "wins",
            "draws",
            "losses",
            "score",
            "95% interval",
            if ffa { "  mean points" } else { "" }
        );
        for r in &self.rows {
            let _ = write!(
                out,
                "{:<width$} {:>7} {:>7} {:>7} {:>7.1}%  {:>5.1}% – {:>5.1}%",
                r.contender.to_string(),
                trim(r.wins),
                r.draws,
                trim(r.losses),
                r.score * 100.0,
                r.interval.0 * 100.0,
                r.interval.1 * 100.0
            );
            if let Some(p) = r.mean_points {
                let _ = write!(out, "  {p:>11.1}");
            }
            out.push('\n');
        }
        if !ffa {
            if let [first, second] = self.rows.as_slice() {
                let (lo, hi) = first.interval;
                let _ = writeln!(
                    out,
                    "Elo difference, {} against {}: {} (95% interval {} to {})",
                    first.contender,
                    second.contender,
                    elo(first.score),
                    elo(lo),
                    elo(hi)
                );
            }
        }
        self.write_how_games_went(&mut out, width);
        out
    }

    /// The table's lines after the scores: how long games were, how clocks were spent, what the
    /// other engine did, and the match's speed.
    fn write_how_games_went(&self, out: &mut String, width: usize) {
        let m = &self.setup;
        let _ = writeln!(
            out,
            "{} games ended at the move limit; {:.0} plies per game on average",
            self.move_limit_games, self.mean_plies
        );
        let depths: Vec<String> = self
            .rows
            .iter()
            .filter_map(|r| Some(format!("{} {:.1}", r.contender, r.mean_depth?)))
            .collect();
        if !depths.is_empty() {
            let _ = writeln!(out, "depth reached on average: {}", depths.join(", "));
        }
        if let (Some(clock), Some(uses)) = (self.setup.clock, &self.clock_use) {
            let _ = writeln!(out, "clock {clock}, each seat its own bank:");
            for (row, u) in self.rows.iter().zip(uses) {
                let _ = writeln!(
                    out,
                    "  {:<width$} {:.2} s a move on average, longest {:.2} s, least left in a bank {:.1} s, lost on time {}",
                    row.contender.to_string(),
                    u.spent.as_secs_f64() / u.moves.max(1) as f64,
                    u.longest.as_secs_f64(),
                    u.least_left.map_or(0.0, |d| d.as_secs_f64()),
                    u.lost_on_time
                );
            }
        }
        if let Some(name) = &self.engine {
            let (differ, compared) = self.disagreements;
            let _ = writeln!(
                out,
                "engine: {name}, {} ms a move; legal moves compared in {compared} positions, {differ} differed; {} forfeits{}",
                self.setup.movetime.map_or(0, |t| t.as_millis()),
                self.forfeits.len(),
                if self.forfeits.is_empty() {
                    String::new()
                } else {
                    format!(": {}", self.forfeits.join("; "))
                }
            );
            for place in &self.differing {
                let _ = writeln!(out, "legal moves differed in {place}");
            }
        }
        let _ = writeln!(
            out,
            "{:.1} s, {:.2} games per second, {:.2} M bot nodes per second over {} threads",
            self.elapsed.as_secs_f64(),
            self.games_per_second(),
            self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9) / 1e6,
            m.threads
        );
    }
}

/// A count that may be fractional, without a needless `.0`.
fn trim(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

/// The Elo difference that a score (0 to 1) stands for, rounded: `+∞` and `−∞` at the ends.
fn elo(score: f64) -> String {
    if score <= 0.0 {
        return "−∞".into();
    }
    if score >= 1.0 {
        return "+∞".into();
    }
    let elo = -400.0 * (1.0 / score - 1.0).log10();
    if elo.abs() < 0.5 {
        "0".into()
    } else {
        format!("{elo:+.0}")
    }
}

/// One game's result: each contender's score (0, ½, 1 or a share) and points.
struct GameResult {
    /// The game's number in the match, from 0.
    index: usize,
    /// The game's record.
    record: String,
    scores: Vec<f64>,
    points: Vec<i32>,
    plies: u32,
    move_limit: bool,
    nodes: u64,
    /// Why the other engine lost this game by forfeit, if it did.
    forfeit: Option<String>,
    /// Legal-move counts compared with the other engine: (differed, compared).
    disagreements: (usize, usize),
    /// Where they differed (the game's moves so far, and both counts).
    differing: Vec<String>,
    /// On a clock: how each contender spent it.
    clock_use: Vec<ClockUse>,
    /// The depths each contender's searches reached.
    depths: Vec<DepthTally>,
}

/// Plays the match.
pub fn play(setup: &Match) -> Result<Report, MatchError> {
    let rules = RuleSet {
        move_limit: Some(setup.max_plies.max(1)),
        ..setup.preset.rules()
    };
    rules
        .validate()
        .map_err(|e| MatchError::Rules(e.to_string()))?;
    let needed = if rules.has_teams() { 2 } else { 4 };
    if setup.contenders.len() != needed {
        return Err(MatchError::Contenders {
            preset: setup.preset,
            needed,
            given: setup.contenders.len(),
        });
    }
    if setup.movetime.is_some() && setup.clock.is_some() {
        return Err(MatchError::MovetimeAndClock);
    }
    let plays_engine = setup.contenders.contains(&Contender::Engine);
    if plays_engine
        && (setup.engine.is_none() || (setup.movetime.is_none() && setup.clock.is_none()))
    {
        return Err(MatchError::NoEngine);
    }
    // The engine starts (and says its name) before any game, so that a bad command fails fast.
    let engine_name = match (&setup.engine, plays_engine) {
        (Some(command), true) => Some(UciEngine::start(command)?.name().to_owned()),
        _ => None,
    };
    let started = Instant::now();
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(setup.games));
    std::thread::scope(|scope| {
        for _ in 0..setup.threads.max(1) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= setup.games {
                        break;
                    }
                    let result = play_game(setup, rules, i);
                    results
                        .lock()
                        .expect("no thread panics holding the lock")
                        .push(result);
                }
            });
        }
    });
    let mut results = results.into_inner().expect("the threads are done");
    let mut report = summarise(setup, &mut results, started.elapsed());
    report.engine = engine_name;
    Ok(report)
}

/// Which contender plays `seat` in game `i`: teams swap sides every other game (so each plays
/// both pairs of seats); free-for-all rotates the contenders one seat per game.
fn contender_of(setup_len: usize, i: usize, seat: Seat, teams: bool) -> usize {
    if teams {
        let side = usize::from(seat.team() == Team::BlueGreen);
        side ^ (i % 2)
    } else {
        (seat.index() + i) % setup_len
    }
}

fn play_game(setup: &Match, rules: RuleSet, i: usize) -> GameResult {
    let teams = rules.has_teams();
    // Both games of a pair (or all four rotations in free-for-all) share the opening.
    let group = if teams { i / 2 } else { i / 4 };
    let opening_seed = setup.seed ^ (group as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let mut game = Game::with_seed(rules, opening_seed).expect("validated rules");
    let mut players = Players::new(setup, opening_seed);
    // Every move so far in coordinate form, for the other engine's `position`.
    let mut history: Vec<String> = Vec::new();
    let mut forfeit = None;
    let mut banks = [setup.clock.map_or(Duration::ZERO, |c| c.bank); 4];
    let mut clock_use = vec![ClockUse::default(); setup.contenders.len()];
    while !game.is_over() {
        if game.walking_king_to_move() {
            let Some(mv) = game.walking_king_move() else {
                break;
            };
            history.push(write_coordinate(mv));
            game.walk_king_with(mv)
                .expect("the walking king's own move");
            continue;
        }
        let seat = game.to_move().expect("the game goes on");
        let who = contender_of(setup.contenders.len(), i, seat, teams);
        let ply = game.ply_count();
        let thinks = ply >= setup.random_plies && setup.contenders[who] != Contender::Random;
        let clock = setup.clock.filter(|_| thinks);
        let bank = &mut banks[seat.index()];
        // A time per move is spent exactly (no thinking on in a sharp position), a clock as
        // the server's CPU players spend theirs.
        let limits = match (clock, setup.movetime) {
            (Some(c), _) => SearchLimits::for_clock(*bank, c.increment, Duration::ZERO),
            (None, Some(time)) => SearchLimits::default().with_time(time),
            (None, None) => SearchLimits::default(),
        };
        let began = Instant::now();
        let mv = match players.choose(&game, (i, who), &history, &limits) {
            Ok(mv) => mv,
            Err(why) => {
                forfeit = Some((who, format!("game {i}, ply {ply}: {why}")));
                break;
            }
        };
        if let Some(c) = clock {
            let Some(left) = clock_use[who].record(began.elapsed(), *bank) else {
                forfeit = Some((who, format!("game {i}, ply {ply}: out of time")));
                break;
            };
            *bank = left + c.increment;
        }
        history.push(write_coordinate(mv));
        game.play(seat, mv).expect("a legal move");
    }
    let loser = forfeit.as_ref().map(|(loser, _)| *loser);
    let (scores, points, move_limit) = score_game(setup.contenders.len(), i, &game, loser);
    let forfeit = forfeit.map(|(_, why)| why);
    GameResult {
        index: i,
        record: game_record(setup, &game, i, forfeit.as_deref()),
        scores,
        points,
        plies: game.ply_count(),
        move_limit,
        nodes: players.nodes,
        forfeit,
        disagreements: players.other.disagreements,
        differing: std::mem::take(&mut players.other.differing),
        clock_use,
        depths: players.depths,
    }
}

/// What game `i` (over, or ended by `forfeit_by`'s forfeit) gives each of the `n` contenders:
/// its score (1 a win, ½ a draw, a share of a free-for-all win), its free-for-all points, and
/// whether the game reached the move limit.
fn score_game(
    n: usize,
    i: usize,
    game: &Game,
    forfeit_by: Option<usize>,
) -> (Vec<f64>, Vec<i32>, bool) {
    let teams = game.rules().has_teams();
    let mut scores = vec![0.0; n];
    let mut points = vec![0; n];
    if let Some(loser) = forfeit_by {
        // The others share the game the engine threw away.
        for (c, score) in scores.iter_mut().enumerate() {
            if c != loser {
                *score = 1.0 / (n - 1) as f64;
            }
        }
        return (scores, points, false);
    }
    let outcome = game.outcome().expect("the game is over").clone();
    let move_limit = matches!(
        outcome,
        Outcome::Draw {
            reason: fourkings_engine::DrawReason::MoveLimit
        } | Outcome::Standings {
            reason: fourkings_engine::FfaEnding::MoveLimit,
            ..
        }
    );
    match outcome {
        Outcome::Win { team, .. } => {
            let winner = contender_of(n, i, team.seats()[0], teams);
            scores[winner] = 1.0;
        }
        Outcome::Draw { .. } => scores.iter_mut().for_each(|s| *s = 0.5),
        Outcome::Standings {
            points: p, winners, ..
        } => {
            let share = 1.0 / winners.len().max(1) as f64;
            for army in Army::ALL {
                let who = contender_of(n, i, Seat::of_army(army), teams);
                points[who] = p[army];
                if winners.contains(army) {
                    scores[who] = share;
                }
            }
        }
    }
    (scores, points, move_limit)
}

/// Game `i` as the record other tools read, each seat named by its contender, and the forfeit
/// that ended it early, if one did (its result then stays open).
fn game_record(setup: &Match, game: &Game, i: usize, forfeit: Option<&str>) -> String {
    let format = game.rules().format;
    let teams = game.rules().has_teams();
    let n = setup.contenders.len();
    let name = |seat: Seat| setup.contenders[contender_of(n, i, seat, teams)].to_string();
    let mut tags = vec![
        ("Event".to_owned(), "fourkings arena".to_owned()),
        ("Round".to_owned(), (i + 1).to_string()),
        ("Seed".to_owned(), setup.seed.to_string()),
    ];
    if let Some(why) = forfeit {
        tags.push(("Forfeit".to_owned(), why.to_owned()));
    }
    if format == Format::Duo {
        tags.push(("White".to_owned(), name(Seat::ALL[0])));
        tags.push(("Black".to_owned(), name(Seat::ALL[1])));
        write_pgn(game, &tags)
    } else {
        for seat in Seat::ALL {
            tags.push((seat.name(format).to_owned(), name(seat)));
        }
        write_pgn4(game, &tags)
    }
}

/// Who chooses the moves of one game, and what each keeps over it.
struct Players<'a> {
    setup: &'a Match,
    /// Each contender's bot, where it is one.
    bots: Vec<Option<Bot>>,
    /// Each bot's table and histories, kept over the game as an engine in its own process (the
    /// other engine among them) keeps its own.
    memories: Vec<SearchMemory>,
    /// Draws the random opening plies.
    opening: ChaCha8Rng,
    other: OtherEngine,
    /// Nodes the bots searched.
    nodes: u64,
    /// The depths each contender's searches reached.
    depths: Vec<DepthTally>,
}

impl<'a> Players<'a> {
    fn new(setup: &'a Match, opening_seed: u64) -> Players<'a> {
        let bots: Vec<Option<Bot>> = setup
            .contenders
            .iter()
            .map(|c| c.bot(setup.movetime))
            .collect();
        let memories = bots
            .iter()
            .map(|bot| match bot {
                Some(_) => SearchMemory::with_megabytes(setup.hash_megabytes),
                None => SearchMemory::with_table_slots(0),
            })
            .collect();
        Players {
            setup,
            bots,
            memories,
            opening: ChaCha8Rng::seed_from_u64(opening_seed),
            other: OtherEngine::default(),
            nodes: 0,
            depths: vec![DepthTally::default(); setup.contenders.len()],
        }
    }

    /// The move contender `who` plays in game `i` (a random one in the opening), or why the
    /// other engine forfeits.
    fn choose(
        &mut self,
        game: &Game,
        (i, who): (usize, usize),
        history: &[String],
        limits: &SearchLimits<'_>,
    ) -> Result<fourkings_engine::Move, String> {
        let setup = self.setup;
        let moves = game.legal_moves();
        let ply = game.ply_count();
        if ply < setup.random_plies {
            return Ok(moves[self.opening.random_range(0..moves.len())]);
        }
        if let Some(bot) = &self.bots[who] {
            let root = SearchRoot::from_game(game).expect("a seat to move with moves");
            let seed = setup.seed ^ u64::from(ply) ^ (i as u64) << 32;
            let result = bot
                .choose_with(&mut self.memories[who], &root, limits, seed)
                .expect("a seat to move with moves");
            self.nodes += result.nodes;
            self.depths[who].record(u32::from(result.depth));
            return Ok(result.mv);
        }
        if setup.contenders[who] == Contender::Engine {
            // On a clock, the other engine is given what our bot would aim at (4pchess reads
            // no clock).
            let movetime = limits.target.or(setup.movetime);
            let (mv, depth) = self.other.choose(setup, game, history, movetime)?;
            if let Some(depth) = depth {
                self.depths[who].record(depth);
            }
            return Ok(mv);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(setup.seed ^ u64::from(ply) ^ i as u64);
        Ok(moves[rng.random_range(0..moves.len())])
    }
}

/// The other engine of one game: started at its first move, asked for each of its moves, and
/// checked against our referee.
#[derive(Default)]
struct OtherEngine {
    running: Option<UciEngine>,
    /// Legal-move counts compared: (differed, compared).
    disagreements: (usize, usize),
    /// Where they differed: the moves that led there, and both counts.
    differing: Vec<String>,
}

impl OtherEngine {
    /// The engine's move in `game` (reached by `history`) and the depth it said it reached: an
    /// error when it fails or names a move that is not legal.
    fn choose(
        &mut self,
        setup: &Match,
        game: &Game,
        history: &[String],
        movetime: Option<Duration>,
    ) -> Result<(fourkings_engine::Move, Option<u32>), String> {
        let engine = match &mut self.running {
            Some(engine) => engine,
            None => {
                let command = setup.engine.as_deref().ok_or("no engine command")?;
                let mut engine = UciEngine::start(command).map_err(|e| e.to_string())?;
                if setup.preset != Preset::Teams {
                    // 4pchess plays Teams only; an engine that knows other rules is told them.
                    let _ = engine.send(&format!("setoption name Rules value {}", setup.preset));
                }
                self.running.insert(engine)
            }
        };
        engine.position(history).map_err(|e| e.to_string())?;
        if let Some(count) = engine.legal_move_count().map_err(|e| e.to_string())? {
            self.disagreements.1 += 1;
            let ours = game.legal_moves().len();
            if count != ours {
                self.disagreements.0 += 1;
                self.differing.push(format!(
                    "the position after {} ({} plies): the engine counts {count}, we count {ours}",
                    history.join(" "),
                    history.len()
                ));
            }
        }
        let movetime = movetime.unwrap_or(Duration::from_millis(300));
        let reply = engine.go(movetime).map_err(|e| e.to_string())?;
        let mv = read_move(game, &reply.text)
            .ok_or_else(|| format!("{:?} is not a legal move", reply.text))?;
        Ok((mv, reply.depth))
    }
}

fn summarise(setup: &Match, results: &mut [GameResult], elapsed: Duration) -> Report {
    results.sort_by_key(|r| r.index);
    let results: &[GameResult] = results;
    let games = results.len().max(1) as f64;
    let ffa = setup.contenders.len() == 4;
    let rows = setup
        .contenders
        .iter()
        .enumerate()
        .map(|(c, &contender)| {
            let scores: Vec<f64> = results.iter().map(|r| r.scores[c]).collect();
            let mean = scores.iter().sum::<f64>() / games;
            let wins = if ffa {
                scores.iter().sum()
            } else {
                scores.iter().filter(|&&s| s == 1.0).count() as f64
            };
            let draws = if ffa {
                0
            } else {
                scores.iter().filter(|&&s| s == 0.5).count()
            };
            Row {
                contender,
                wins,
                draws,
                losses: games - wins - draws as f64,
                score: mean,
                interval: wilson(mean, games),
                mean_points: ffa
                    .then(|| results.iter().map(|r| f64::from(r.points[c])).sum::<f64>() / games),
                mean_depth: results
                    .iter()
                    .fold(DepthTally::default(), |mut all, r| {
                        all.add(r.depths[c]);
                        all
                    })
                    .mean(),
            }
        })
        .collect();
    Report {
        setup: setup.clone(),
        rows,
        move_limit_games: results.iter().filter(|r| r.move_limit).count(),
        mean_plies: results.iter().map(|r| f64::from(r.plies)).sum::<f64>() / games,
        elapsed,
        nodes: results.iter().map(|r| r.nodes).sum(),
        forfeits: results.iter().filter_map(|r| r.forfeit.clone()).collect(),
        disagreements: results.iter().fold((0, 0), |(d, c), r| {
            (d + r.disagreements.0, c + r.disagreements.1)
        }),
        differing: results
            .iter()
            .flat_map(|r| {
                r.differing
                    .iter()
                    .map(move |d| format!("game {}, {d}", r.index))
            })
            .collect(),
        engine: None,
        clock_use: setup.clock.map(|_| {
            let mut uses = vec![ClockUse::default(); setup.contenders.len()];
            for r in results {
                for (u, game) in uses.iter_mut().zip(&r.clock_use) {
                    u.add(game);
                }
            }
            uses
        }),
        records: results.iter().map(|r| r.record.clone()).collect(),
    }
}

/// Wilson's 95% score interval for a proportion `p` over `n` trials.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    const Z: f64 = 1.96;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_intervals() {
        let (lo, hi) = wilson(1.0, 10.0);
        assert!((lo - 0.722).abs() < 0.001 && hi == 1.0, "{lo} {hi}");
        let (lo, hi) = wilson(0.5, 100.0);
        assert!(
            (lo - 0.404).abs() < 0.001 && (hi - 0.596).abs() < 0.001,
            "{lo} {hi}"
        );
    }

    #[test]
    fn contenders_parse_and_print() {
        for text in [
            "random",
            "easy",
            "hard:50000",
            "medium/-null",
            "hard:9/-lmr/+aspiration",
            "hard/-lmp/-kingzone",
        ] {
            assert_eq!(text.parse::<Contender>().unwrap().to_string(), text);
        }
        assert!("expert".parse::<Contender>().is_err());
        assert!("hard:lots".parse::<Contender>().is_err());
        assert!("hard/null".parse::<Contender>().is_err());
    }

    #[test]
    fn teams_swap_sides_and_free_for_all_rotates() {
        let seats = |i| Seat::ALL.map(|s| contender_of(2, i, s, true)).to_vec();
        assert_eq!(seats(0), vec![0, 1, 0, 1]);
        assert_eq!(seats(1), vec![1, 0, 1, 0]);
        let ffa: Vec<usize> = (0..4)
            .map(|i| contender_of(4, i, Seat::ALL[0], false))
            .collect();
        assert_eq!(ffa, vec![0, 1, 2, 3]);
    }

    #[test]
    fn a_short_match_reports_every_contender_and_easy_beats_random() {
        let setup = Match {
            preset: Preset::Teams,
            contenders: vec![
                Contender::Bot {
                    level: Level::Easy,
                    nodes: Some(600),
                    options: SearchOptions::DEFAULT,
                },
                Contender::Random,
            ],
            games: 4,
            max_plies: 200,
            random_plies: 4,
            threads: 2,
            seed: 3,
            movetime: None,
            clock: None,
            engine: None,
            hash_megabytes: 32,
        };
        let report = play(&setup).unwrap();
        assert_eq!(report.rows.len(), 2);
        let total: f64 = report.rows.iter().map(|r| r.wins + r.losses).sum::<f64>()
            + report.rows.iter().map(|r| r.draws as f64).sum::<f64>();
        assert_eq!(total, 8.0, "each game counts once per contender");
        assert!(
            report.rows[0].score > report.rows[1].score,
            "{}",
            report.table()
        );
        let table = report.table();
        assert!(table.contains("95% interval") && table.contains("games per second"));
        // The bot's searches say how deep they went; random plays without searching.
        assert!(
            report.rows[0].mean_depth.is_some_and(|d| d >= 1.0),
            "{table}"
        );
        assert_eq!(report.rows[1].mean_depth, None, "{table}");
        assert!(
            table.contains("depth reached on average: easy:600 "),
            "{table}"
        );
        // Every game is recorded, in order, with its contenders' seats, and reads back to the
        // same end.
        assert_eq!(report.records.len(), 4);
        for (i, text) in report.records.iter().enumerate() {
            let read = fourkings_engine::notation::read_pgn4(text).unwrap();
            let tag = |name: &str| {
                read.tags
                    .iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone())
            };
            assert_eq!(tag("Round"), Some((i + 1).to_string()));
            let easy_first = i % 2 == 0;
            let red = if easy_first { "easy:600" } else { "random" };
            assert_eq!(tag("Red").as_deref(), Some(red), "{text}");
            assert!(read.game.is_over(), "{text}");
            assert!(read.game.ply_count() >= 4);
        }
    }

    #[test]
    fn a_clock_use_charges_each_move_and_notes_the_least_left_and_a_loss_on_time() {
        let ms = Duration::from_millis;
        let mut used = ClockUse::default();
        assert_eq!(used.record(ms(300), ms(1_000)), Some(ms(700)));
        assert_eq!(used.record(ms(100), ms(2_000)), Some(ms(1_900)));
        assert_eq!(used.least_left, Some(ms(700)));
        assert_eq!(used.record(ms(500), ms(500)), None);
        assert_eq!(
            (used.moves, used.spent, used.longest),
            (3, ms(900), ms(500))
        );
        assert_eq!(used.lost_on_time, 1);
    }

    #[test]
    fn clocks_are_read_as_chess_com_writes_them() {
        let clock: MatchClock = "1|7".parse().unwrap();
        assert_eq!(
            (clock.bank, clock.increment),
            (Duration::from_secs(60), Duration::from_secs(7))
        );
        let clock: MatchClock = "0.5+0".parse().unwrap();
        assert_eq!(clock.bank, Duration::from_secs(30));
        assert_eq!(clock.to_string(), "0.5 | 0");
        for bad in ["", "1", "0|5", "-1|2", "a|b", "1|NaN"] {
            assert!(bad.parse::<MatchClock>().is_err(), "{bad:?}");
        }
    }

    #[test]
    fn a_match_on_a_clock_charges_each_thinking_move_and_nobody_loses_on_time() {
        let setup = Match {
            preset: Preset::Teams,
            contenders: vec!["easy:600".parse().unwrap(), "medium:1500".parse().unwrap()],
            games: 2,
            max_plies: 40,
            random_plies: 4,
            threads: 2,
            seed: 7,
            movetime: None,
            // Six seconds and a second a move: more than node budgets this small need.
            clock: Some("0.1|1".parse().unwrap()),
            engine: None,
            hash_megabytes: 32,
        };
        let report = play(&setup).unwrap();
        let uses = report.clock_use.clone().expect("a match on a clock");
        for u in &uses {
            assert!(u.moves > 0, "{}", report.table());
            assert_eq!(u.lost_on_time, 0, "{}", report.table());
            assert!(u.least_left.is_some_and(|l| l > Duration::ZERO));
            assert!(u.longest <= u.spent);
        }
        // The random opening plies are not charged: 36 thinking plies a game at most.
        let moves: usize = uses.iter().map(|u| u.moves).sum();
        assert!(moves <= 2 * 36, "{moves}");
        assert!(report.table().contains("clock 0.1 | 1"));
        let both = Match {
            movetime: Some(Duration::from_millis(10)),
            ..setup
        };
        assert!(matches!(play(&both), Err(MatchError::MovetimeAndClock)));
    }
}
