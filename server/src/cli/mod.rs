//! Command-line parsing and the subcommands.

mod arena;
mod health;
mod perft;
mod serve;

use clap::{Parser, Subcommand};
use fourkings_server::Config;
use fourkings_server::client::ClientArgs;

/// The Four Kings game server and its tools. Without a subcommand it serves, as `serve` does.
#[derive(Debug, Parser)]
#[command(name = "fourkings", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the game: the room API, the WebSockets and the web client.
    Serve(Config),
    /// Join a room from the terminal and play random legal moves for the seats taken.
    Client(ClientArgs),
    /// Count the legal move tree of a position and report the speed of move generation.
    Perft(perft::PerftArgs),
    /// Play bot against bot (or the random mover) and print a score table.
    Arena(arena::ArenaArgs),
    /// Ask a running server whether it is up (exit 0) or not (exit 1): for container health
    /// checks.
    Health(health::HealthArgs),
}

/// Runs the command the arguments name.
pub(crate) fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Perft(args)) => perft::run(&args),
        Some(Command::Arena(args)) => arena::run(&args),
        Some(Command::Health(args)) => health::run(&args),
        Some(Command::Serve(config)) => serve::run(config),
        Some(Command::Client(args)) => serve::runtime()?.block_on(async {
            let report = fourkings_server::client::run(&args).await?;
            println!("result: {}", report.result.text);
            Ok(())
        }),
        None => {
            // Plain `fourkings`: serve with every default (and the environment).
            #[derive(Parser)]
            struct Defaults {
                #[command(flatten)]
                config: Config,
            }
            serve::run(Defaults::parse_from(["fourkings"]).config)
        }
    }
}
