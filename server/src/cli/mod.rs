//! Command-line parsing and the subcommands.

mod perft;

use clap::{Parser, Subcommand};

/// The Four Kings game server and its tools.
#[derive(Debug, Parser)]
#[command(name = "fourkings", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Count the legal move tree of a position and report the speed of move generation.
    Perft(perft::PerftArgs),
}

/// Runs the command the arguments name.
pub(crate) fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Perft(args)) => perft::run(&args),
        None => {
            use clap::CommandFactory;
            Cli::command().print_help()?;
            Ok(())
        }
    }
}
