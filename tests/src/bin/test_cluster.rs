//! `test-cluster --server <fourkings> [--nodes 3] [-- <serve flags>…]`: a PostgreSQL server of its
//! own and nodes of a cluster over it, each on a free port of 127.0.0.1, for the browser tests
//! (`tests/browser/helpers.js`, `startCluster`). It prints `node <url>` for each node, then
//! `ready`, and stops everything (the nodes, then PostgreSQL, its folder removed) when its
//! standard input closes.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use clap::Parser;
use fourkings_tests::ServerProcess;
use fourkings_tests::postgres::TestPostgres;

#[derive(Parser)]
#[command(about = "PostgreSQL and the nodes of a cluster over it, until standard input closes")]
struct Args {
    /// The `fourkings` binary the nodes run.
    #[arg(long)]
    server: PathBuf,
    /// How many nodes.
    #[arg(long, default_value_t = 3)]
    nodes: usize,
    /// More flags for every node's `fourkings serve`.
    #[arg(last = true)]
    serve: Vec<String>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let database = TestPostgres::start();
    let url = database.url();
    let mut serve = vec!["serve".to_owned(), "--addr".into(), "127.0.0.1:0".into()];
    serve.extend(args.serve.iter().cloned());
    let serve: Vec<&str> = serve.iter().map(String::as_str).collect();
    let nodes: Vec<ServerProcess> = (0..args.nodes)
        .map(|_| {
            ServerProcess::spawn(
                &args.server,
                &serve,
                &[
                    ("FOURKINGS_DATABASE", url.as_str()),
                    ("FOURKINGS_NODE_URL", "http://127.0.0.1:0"),
                    ("FOURKINGS_TRUSTED_PROXIES", "127.0.0.1"),
                    ("FOURKINGS_LOG", "warn"),
                ],
            )
        })
        .collect();
    let mut out = std::io::stdout().lock();
    for node in &nodes {
        writeln!(out, "node {}", node.base)?;
    }
    writeln!(out, "ready")?;
    out.flush()?;
    drop(out);
    // Until whoever started it is done (or gone).
    for line in std::io::stdin().lock().lines() {
        if line.is_err() {
            break;
        }
    }
    drop(nodes);
    drop(database);
    Ok(())
}
