//! `fourkings perft`: node counts and move generation speed.

use std::time::Instant;

use anyhow::{Context, bail};
use clap::Args;
use fourkings_engine::{Format, Position, Preset, RuleSet, divide, notation, perft};

/// Arguments of `fourkings perft`.
#[derive(Debug, Args)]
pub(crate) struct PerftArgs {
    /// The rule system (teams, teams-house, teams-classic, ffa, ffa-walking-kings, duo).
    #[arg(long, default_value = "teams")]
    rules: Preset,
    /// Start from this FEN4 position (cross board) instead of the start position.
    #[arg(long, conflicts_with = "fen")]
    fen4: Option<String>,
    /// Start from this FEN position (Duo's classic board) instead of the start position.
    #[arg(long)]
    fen: Option<String>,
    /// Play these moves first (long algebraic on the cross board, SAN or UCI in Duo), separated by
    /// spaces.
    #[arg(long, default_value = "")]
    moves: String,
    /// Play Duo with friendly capture off (standard chess), to compare with published counts.
    #[arg(long)]
    no_friendly_capture: bool,
    /// Play Duo with the king making friendly captures too (a room option, off by default).
    #[arg(long, conflicts_with = "no_friendly_capture")]
    king_friendly_capture: bool,
    /// How many plies deep to count.
    #[arg(long)]
    depth: u32,
    /// Also print the count under each legal move.
    #[arg(long)]
    divide: bool,
}

pub(crate) fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let mut rules: RuleSet = args.rules.rules();
    if args.no_friendly_capture {
        rules.friendly_capture = false;
    }
    rules.king_friendly_capture = args.king_friendly_capture;
    rules.validate().context("the rules")?;
    let mut pos = start_position(args, &rules)?;
    for text in args.moves.split_whitespace() {
        let mv = match rules.format {
            Format::Duo => notation::parse_san(&pos, text),
            _ => notation::parse_move(&pos, text),
        }
        .with_context(|| format!("--moves: {text:?}"))?;
        pos.play_unchecked(mv);
    }
    let started = Instant::now();
    let nodes = if args.divide {
        let mut total = 0;
        for (mv, count) in divide(&mut pos, args.depth) {
            let text = match rules.format {
                Format::Duo => notation::write_coordinate(mv),
                _ => notation::write_move(&pos, mv, notation::MoveSuffix::default()),
            };
            println!("{text}: {count}");
            total += count;
        }
        total
    } else {
        perft(&mut pos, args.depth)
    };
    let seconds = started.elapsed().as_secs_f64();
    println!(
        "{} depth {}: {:.3} s, {:.1} million nodes per second",
        args.rules,
        args.depth,
        seconds,
        nodes as f64 / seconds.max(1e-9) / 1e6
    );
    println!("nodes: {nodes}");
    Ok(())
}

fn start_position(args: &PerftArgs, rules: &RuleSet) -> anyhow::Result<Position> {
    let setup = match (&args.fen4, &args.fen) {
        (Some(text), _) => notation::parse_fen4(text).context("--fen4")?,
        (_, Some(text)) => text.parse::<notation::Fen>().context("--fen")?.setup,
        (None, None) => return Ok(Position::new(rules)?),
    };
    if setup.board != rules.board() {
        bail!(
            "the position is for the {:?} board but {} plays on the {:?} board",
            setup.board,
            args.rules,
            rules.board()
        );
    }
    Ok(Position::from_setup(&setup, rules)?)
}
