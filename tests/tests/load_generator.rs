//! The smoke version of the server-speed comparison (`tests/perf/run --smoke`) runs against this
//! build's binaries, so that `tests/run` fails when the load generator or the servers under its
//! load break: the game server against the raw baseline (`baseline-server`) in three alternating
//! rounds of 100 rooms × 4 clients at 8 moves a second a room, the idle memory of 100 rooms, and 10
//! rooms of thinking CPU seats. It fails on anything lost, any error and memory over twice its
//! targets.
//!
//! It asserts nothing about speed (`--no-speed-bounds`): the ratio of deliveries per server
//! CPU-second and the CPU rooms' acks are printed, and judged by the performance suite,
//! `tests/perf/run`, on release builds pinned to their cores.

use std::process::Command;
use std::time::Instant;

#[test]
fn the_smoke_comparison_runs_and_loses_nothing() {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_loadgen"))
        .args(["compare", "--smoke", "--no-speed-bounds", "--server"])
        .arg(fourkings_tests::fourkings_binary!())
        .arg("--baseline")
        .arg(env!("CARGO_BIN_EXE_baseline-server"))
        .output()
        .expect("loadgen runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    println!("{stdout}");
    assert!(
        output.status.success(),
        "loadgen compare --smoke failed:\n{stdout}\n{stderr}"
    );
    // The table was printed, with the figures the performance suite judges in it.
    assert!(
        stdout.contains("| deliveries per server CPU-second |"),
        "no table:\n{stdout}"
    );
    println!("smoke comparison took {:?}", started.elapsed());
}
