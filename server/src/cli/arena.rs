//! `fourkings arena`: bot-against-bot games in parallel, and a score table.

use crate::arena::{self, Contender, Match, MatchClock};
use anyhow::{Context, bail};
use clap::Args;
use fourkings_engine::Preset;

/// Arguments of `fourkings arena`.
#[derive(Debug, Args)]
pub(crate) struct ArenaArgs {
    /// The rule system (teams, teams-house, teams-classic, ffa, ffa-walking-kings, duo).
    #[arg(long, default_value = "teams")]
    rules: Preset,
    /// Games to play.
    #[arg(long, default_value_t = 20)]
    games: usize,
    /// Who plays the first team (Teams, Duo): random, engine (the --engine), easy, medium or
    /// hard, optionally with a node budget per move and search options turned on or off
    /// (`hard:100000`, `hard/-null`, `hard/+aspiration`; the engine's README lists them). Sides
    /// swap seats every other game.
    #[arg(long, default_value = "medium")]
    team_a: Contender,
    /// Who plays the second team.
    #[arg(long, default_value = "easy")]
    team_b: Contender,
    /// Free-for-all: who plays seat 0 (contenders rotate one seat per game).
    #[arg(long, default_value = "hard")]
    seat0: Contender,
    /// Free-for-all: who plays seat 1.
    #[arg(long, default_value = "medium")]
    seat1: Contender,
    /// Free-for-all: who plays seat 2.
    #[arg(long, default_value = "easy")]
    seat2: Contender,
    /// Free-for-all: who plays seat 3.
    #[arg(long, default_value = "random")]
    seat3: Contender,
    /// Plies after which a game ends (a draw in Teams and Duo, points in free-for-all).
    #[arg(long, default_value_t = 400)]
    max_plies: u32,
    /// Plies played at random at the start of each game, so that games differ.
    #[arg(long, default_value_t = 4)]
    random_plies: u32,
    /// Threads playing games at once.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Seeds the openings and the bots: the same seed replays the same match.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Another engine that speaks 4pchess's UCI dialect, started with this shell command: the
    /// contender `engine` (`--team-b engine`). Needs --movetime.
    #[arg(long)]
    engine: Option<String>,
    /// Milliseconds per move for every contender, instead of the levels' node budgets: what a
    /// match against another engine is played with.
    #[arg(long, conflicts_with = "clock")]
    movetime: Option<u64>,
    /// A game clock for every seat, `MINUTES|SECONDS` as chess.com writes it (`1|7`: a minute
    /// and 7 seconds' increment): each contender manages its own bank (the bot as the server's
    /// CPU players do), and one whose bank runs out loses the game. The table says how each
    /// spent its time.
    #[arg(long)]
    clock: Option<MatchClock>,
    /// The transposition table each of our contenders keeps for the whole game, in MiB (the
    /// UCI `Hash` option; the server's CPU players use 32).
    #[arg(long, default_value_t = 32)]
    hash: usize,
    /// Write every game to this file, in the order played, as the record other tools read
    /// (PGN4; PGN for Duo), each seat named by its contender.
    #[arg(long)]
    record: Option<std::path::PathBuf>,
}

pub(crate) fn run(args: &ArenaArgs) -> anyhow::Result<()> {
    if args.games == 0 {
        bail!("--games must be at least 1");
    }
    let contenders = if args.rules.rules().has_teams() {
        vec![args.team_a, args.team_b]
    } else {
        vec![args.seat0, args.seat1, args.seat2, args.seat3]
    };
    let setup = Match {
        preset: args.rules,
        contenders,
        games: args.games,
        max_plies: args.max_plies,
        random_plies: args.random_plies,
        threads: args.threads,
        seed: args.seed,
        movetime: args.movetime.map(std::time::Duration::from_millis),
        clock: args.clock,
        engine: args.engine.clone(),
        hash_megabytes: args.hash,
    };
    let report = arena::play(&setup)?;
    print!("{}", report.table());
    if let Some(path) = &args.record {
        std::fs::write(path, report.records.join("\n"))
            .with_context(|| format!("--record {}", path.display()))?;
    }
    Ok(())
}
