//! `fourkings perft` run as a user runs it: the real binary, its output read back.

use std::process::Command;

fn fourkings(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_fourkings"))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The last line is `nodes: <count>`; the line before reports nodes per second.
fn nodes(stdout: &str) -> u64 {
    let lines: Vec<&str> = stdout.lines().collect();
    let last = lines.last().expect("output");
    assert!(
        lines[lines.len() - 2].contains("million nodes per second"),
        "{stdout}"
    );
    last.strip_prefix("nodes: ")
        .expect("the last line is `nodes: <count>`")
        .parse()
        .unwrap()
}

#[test]
fn perft_counts_the_cross_board_start_under_teams() {
    let (ok, stdout, stderr) = fourkings(&["perft", "--rules", "teams", "--depth", "4"]);
    assert!(ok, "{stderr}");
    assert_eq!(nodes(&stdout), 152_050);
}

#[test]
fn perft_reads_moves_fen4_and_fen() {
    // After h2-h4 and b7-d7 Yellow has 20 moves, as at the start.
    let (ok, stdout, stderr) = fourkings(&[
        "perft",
        "--rules",
        "teams",
        "--moves",
        "h2-h4 b7-d7",
        "--depth",
        "1",
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(nodes(&stdout), 20);
    let start = fourkings_engine::notation::START_FEN4;
    let (ok, stdout, stderr) =
        fourkings(&["perft", "--rules", "ffa", "--fen4", start, "--depth", "2"]);
    assert!(ok, "{stderr}");
    assert_eq!(nodes(&stdout), 395);
    let kiwipete = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
    let (ok, stdout, stderr) = fourkings(&[
        "perft",
        "--rules",
        "duo",
        "--no-friendly-capture",
        "--fen",
        kiwipete,
        "--depth",
        "3",
    ]);
    assert!(ok, "{stderr}");
    assert_eq!(nodes(&stdout), 97_862);
}

#[test]
fn perft_divide_lists_every_root_move() {
    let (ok, stdout, stderr) = fourkings(&["perft", "--depth", "2", "--divide"]);
    assert!(ok, "{stderr}");
    let per_move: Vec<u64> = stdout
        .lines()
        .filter_map(|l| l.split_once(": "))
        .filter_map(|(_, n)| n.parse().ok())
        .collect();
    // 20 root moves and the total line.
    assert_eq!(per_move.len(), 21, "{stdout}");
    // Opening the f-pawn lets Red's queen on g1 pin Blue's b6 pawn to its king on a7; d2-d4
    // blocks Blue's b4 pawn from double-stepping. Those are the five missing moves of 20 x 20.
    for line in ["f2-f3: 18", "f2-f4: 18", "d2-d4: 19", "h2-h4: 20"] {
        assert!(stdout.lines().any(|l| l == line), "{line} in\n{stdout}");
    }
    assert_eq!(nodes(&stdout), 395);
}

#[test]
fn perft_explains_bad_input() {
    let (ok, _, stderr) = fourkings(&["perft", "--moves", "h2-h9", "--depth", "1"]);
    assert!(!ok);
    assert!(stderr.contains("h2-h9"), "{stderr}");
    let (ok, _, stderr) = fourkings(&["perft", "--fen4", "R-0,0,0,0", "--depth", "1"]);
    assert!(!ok);
    assert!(stderr.contains("--fen4"), "{stderr}");
    let (ok, _, stderr) = fourkings(&["perft", "--rules", "chess", "--depth", "1"]);
    assert!(!ok);
    assert!(stderr.contains("unknown preset"), "{stderr}");
}
