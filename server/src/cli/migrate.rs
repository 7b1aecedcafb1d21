//! `fourkings migrate`: copies everything a database holds into another, empty one (a SQLite
//! file into PostgreSQL, or back).

use std::time::Duration;

use anyhow::{Context, bail};

use crate::config::{Database, StorageSync};
use crate::storage::contents::Portable;
use crate::storage::postgres::PostgresStorage;
use crate::storage::sqlite::SqliteStorage;

/// What `fourkings migrate` takes.
#[derive(Debug, clap::Args)]
pub(crate) struct MigrateArgs {
    /// The database to copy from: a SQLite file, or a PostgreSQL URL.
    #[arg(long)]
    from: Database,
    /// The database to copy into: a SQLite file (created if missing) or a PostgreSQL URL. It must
    /// hold no room and no game: nothing is overwritten.
    #[arg(long)]
    to: Database,
    /// Seconds any one step (reading everything, writing everything) may take.
    #[arg(long, default_value_t = 600.0, value_parser = crate::config::seconds)]
    timeout_seconds: f64,
}

/// Copies every room (open or closed), the open rooms' records, the archive and the last
/// liveness stamp, in one transaction on the target, and says what it copied.
pub(crate) fn run(args: &MigrateArgs) -> anyhow::Result<()> {
    if args.from == args.to {
        bail!("--from and --to name the same database ({})", args.from);
    }
    let timeout = crate::config::duration(args.timeout_seconds, 1.0, crate::config::MAX_SECONDS);
    if let Database::File(path) = &args.from {
        if !path.is_file() {
            bail!("{} is not a database file", path.display());
        }
    }
    let contents = open(&args.from, timeout)
        .with_context(|| format!("opening {}", args.from))?
        .contents()
        .with_context(|| format!("reading {}", args.from))?;
    open(&args.to, timeout)
        .with_context(|| format!("opening {}", args.to))?
        .fill(&contents)
        .with_context(|| format!("writing {}", args.to))?;
    let open_rooms = contents
        .rooms
        .iter()
        .filter(|room| room.closed_at.is_none())
        .count();
    println!(
        "copied {} rooms ({open_rooms} open), {} records and {} finished games from {} to {}",
        contents.rooms.len(),
        contents.records.len(),
        contents.games.len(),
        args.from,
        args.to
    );
    Ok(())
}

fn open(database: &Database, timeout: Duration) -> anyhow::Result<Box<dyn Portable>> {
    Ok(match database {
        Database::File(path) => Box::new(SqliteStorage::open(path, StorageSync::Full)?),
        Database::Postgres(url) => Box::new(PostgresStorage::open(url, 1, timeout)?),
    })
}
