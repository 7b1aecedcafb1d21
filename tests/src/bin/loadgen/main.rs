//! `loadgen`: measures a running server under load, or runs the whole comparison of the game
//! server against the raw baseline (`baseline-server`) and prints the table that
//! `tests/perf/README.md` keeps ("Server speed").
//!
//! ```sh
//! # One scenario against a server already running (its pid for the CPU and memory readings):
//! cargo run --release -p fourkings-tests --bin loadgen -- run \
//!     --url http://127.0.0.1:8080 --pid 1234 --rooms 2500 --rate 1
//! # Everything (tests/perf/run does this, pinned to the two cores):
//! cargo run --release -p fourkings-tests --bin loadgen -- compare
//! ```
//!
//! The load generator runs on one thread (pin it to a core of its own with `taskset`): one task a
//! room, which reads all of the room's connections. Latency is timed from the moment a move was
//! scheduled, not sent, so that a server that falls behind is not excused by the load generator
//! waiting for it (coordinated omission).

mod cluster;
mod compare;
mod memory;
mod scenario;
mod system;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(about = "Load for the Four Kings server: one scenario, or the whole comparison")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// One scenario against a running server.
    Run {
        /// The server's address.
        #[arg(long, default_value = "http://127.0.0.1:8080")]
        url: String,
        /// The server's process id, for its CPU time and memory.
        #[arg(long)]
        pid: i32,
        #[command(flatten)]
        scenario: scenario::Scenario,
    },
    /// The idle memory of a fresh running server: empty, with rooms, with connections.
    Memory {
        /// The server's address.
        #[arg(long, default_value = "http://127.0.0.1:8080")]
        url: String,
        /// The server's process id.
        #[arg(long)]
        pid: i32,
        /// Rooms (each gets four connections).
        #[arg(long, default_value_t = 1000)]
        rooms: usize,
    },
    /// Starts the game server and the baseline in turns, runs every scenario against both, and
    /// prints the table.
    Compare(compare::Args),
    /// Starts a PostgreSQL server and the nodes of a cluster over it; plays, kills a node,
    /// restarts every node in turn, and prints the tables.
    Cluster(cluster::Args),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        match cli.command {
            Command::Run { url, pid, scenario } => {
                let outcome = scenario::run(&scenario, &url, pid).await?;
                outcome.print(&format!(
                    "{} rooms × {} moves/s",
                    scenario.rooms, scenario.rate
                ));
            }
            Command::Memory { url, pid, rooms } => {
                memory::measure(&url, pid, rooms).await?.print("memory");
            }
            Command::Compare(args) => compare::run(&args).await?,
            Command::Cluster(args) => {
                // The rooms' tasks share state without locks, on this one thread.
                tokio::task::LocalSet::new()
                    .run_until(cluster::run(&args))
                    .await?;
            }
        }
        Ok(())
    })
}
