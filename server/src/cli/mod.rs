//! The command line of the `fourkings` binary: parsing and the subcommands. [`main`] is the
//! binary's whole `main`, here in the library so that another binary target can be the same
//! program (the tests' `fourkings-under-test`, which Cargo builds for the tests that run it).

mod arena;
mod health;
mod migrate;
mod perft;
mod serve;
mod uci;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::Config;
use crate::client::ClientArgs;

/// The Four Kings game server and its tools. Without a subcommand it serves, as `serve` does.
#[derive(Debug, Parser)]
#[command(name = "fourkings", version, about)]
struct Cli {
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
    /// Speak UCI (the dialect of 4pchess) on standard input and output: the engine for other
    /// programs and `fourkings arena --engine`.
    Uci(uci::UciArgs),
    /// Copy everything a database holds (rooms, records, the archive) into another, empty one: a
    /// SQLite file into PostgreSQL, or back.
    Migrate(migrate::MigrateArgs),
    /// Print the protocol as one JSON Schema document (what `GET /api/schema.json` serves, and
    /// `protocol/schema.json` holds).
    Schema,
}

/// Parses the process's arguments, runs the command they name, and reports an error on standard
/// error with exit code 1.
pub fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Runs the command the arguments name.
fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Perft(args)) => perft::run(&args),
        Some(Command::Arena(args)) => arena::run(&args),
        Some(Command::Health(args)) => health::run(&args),
        Some(Command::Uci(args)) => uci::run(&args),
        Some(Command::Migrate(args)) => migrate::run(&args),
        Some(Command::Schema) => {
            print!("{}", fourkings_protocol::schema::document_text());
            Ok(())
        }
        Some(Command::Serve(config)) => serve::run(config),
        Some(Command::Client(args)) => serve::runtime()?.block_on(async {
            let report = crate::client::run(&args).await?;
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
