//! The smoke version of the cluster's load run (`loadgen cluster --smoke`, whose full version
//! `tests/perf/README.md` keeps): three nodes over a PostgreSQL server of its own, 12 rooms played
//! with half their people connected through other nodes, the first node killed, then a rolling
//! restart of all three under play. It fails if an acknowledged move is lost, if a room of the
//! killed node never moves again, or if a room pauses for more than 2 s in the rolling restart
//! (the nodes' lease is 3 s: a room that waited for its lease to run out fails it). Latencies are
//! printed, not judged: speed belongs to the performance suite.

use std::process::Command;

#[test]
fn a_cluster_under_play_loses_nothing_to_a_kill_or_a_rolling_restart() {
    let output = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(["cluster", "--smoke", "--server"])
        .arg(fourkings_tests::fourkings_binary!())
        .output()
        .expect("loadgen runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "loadgen cluster --smoke failed:\n{stdout}\n{stderr}"
    );
    for table in [
        "| ack |",
        "| from the kill to the first move accepted |",
        "| each room's longest pause beyond the rate |",
        "none lost",
    ] {
        assert!(stdout.contains(table), "{table} in:\n{stdout}");
    }
}
