//! Our move generator against a baseline measured in the same run: shakmaty, a well-known chess
//! library, counting standard-chess perft with its own bulk counting. Rounds alternate between the
//! contenders so that a noisy neighbour slows all of them alike; the medians and their ratios are
//! printed. `cargo bench --bench versus` runs it; with `-- --test` it makes one quick round.

use std::time::{Duration, Instant};

use fourkings_engine::{Position, Preset, RuleSet, perft};
use shakmaty::Chess;

struct Contender {
    name: &'static str,
    nodes: u64,
    run: Box<dyn Fn() -> u64>,
    times: Vec<Duration>,
}

fn main() {
    let quick = std::env::args().any(|a| a == "--test");
    let (depth, rounds) = if quick { (4, 1) } else { (5, 7) };
    let chess_rules = RuleSet {
        friendly_capture: false,
        ..Preset::Duo.rules()
    };
    let teams_rules = Preset::Teams.rules();
    let mut contenders = vec![
        Contender {
            name: "four kings, cross board (teams)",
            nodes: if quick { 152_050 } else { 3_452_310 },
            run: Box::new(move || perft(&mut Position::new(&teams_rules).unwrap(), depth)),
            times: Vec::new(),
        },
        Contender {
            name: "four kings, chess (duo, no friendly capture)",
            nodes: if quick { 197_281 } else { 4_865_609 },
            run: Box::new(move || perft(&mut Position::new(&chess_rules).unwrap(), depth)),
            times: Vec::new(),
        },
        Contender {
            name: "shakmaty, chess (baseline)",
            nodes: if quick { 197_281 } else { 4_865_609 },
            run: Box::new(move || shakmaty::perft(&Chess::default(), depth)),
            times: Vec::new(),
        },
    ];
    for _ in 0..rounds {
        for c in &mut contenders {
            let started = Instant::now();
            let nodes = (c.run)();
            c.times.push(started.elapsed());
            assert_eq!(nodes, c.nodes, "{} perft {depth}", c.name);
        }
    }
    let rate = |c: &mut Contender| {
        c.times.sort();
        c.nodes as f64 / c.times[c.times.len() / 2].as_secs_f64() / 1e6
    };
    let rates: Vec<f64> = contenders.iter_mut().map(rate).collect();
    let baseline = rates[2];
    println!("perft depth {depth}, median of {rounds} alternating rounds");
    println!(
        "{:<46} {:>14} {:>12}",
        "generator", "M nodes/s", "vs baseline"
    );
    for (c, r) in contenders.iter().zip(&rates) {
        println!("{:<46} {:>14.1} {:>11.2}x", c.name, r, r / baseline);
    }
}
