//! Search speed on the cross board: nodes per second of the bot's search from several positions
//! (the start, an opening, a middlegame with open lines, a free-for-all middlegame), each under a
//! fixed node budget so every run does the same work.
//!
//! Criterion times each position; then a summary runs perft and the searches in alternating
//! rounds and prints the median search speed as a ratio to perft's speed measured in the same
//! run, which a noisy shared machine slows alike (see `versus.rs`). Perft counts leaves in bulk
//! and evaluates nothing, so the ratio says what evaluation, ordering and bookkeeping cost per
//! node. `cargo bench --bench search`; with `-- --test` it makes one quick round.
// criterion_group! and criterion_main! generate functions that cannot carry docs.
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use fourkings_engine::bot::{Bot, Level, LevelSettings, SearchLimits, SearchRoot};
use fourkings_engine::{Game, Preset, perft};

/// Nodes per search.
const NODES: u64 = 200_000;

/// The benchmark positions: a name and a game at that point.
fn positions() -> Vec<(&'static str, Game)> {
    let teams = Preset::Teams.rules();
    let mut out = vec![("teams-start", Game::new(teams).unwrap())];
    // An opening and a middlegame reached by the bot itself at a small budget (deterministic).
    let game = played(teams, 24);
    out.push(("teams-opening", game[7].clone()));
    out.push(("teams-middlegame", game[23].clone()));
    out.push((
        "ffa-middlegame",
        played(Preset::Ffa.rules(), 24)[23].clone(),
    ));
    for (name, game) in &out {
        assert!(!game.is_over(), "{name} must be a position to search");
    }
    out
}

/// The positions after each of the first `plies` plies of a game the bot plays against itself
/// at a small budget: the first game, by the first move's place among the legal moves, still
/// going at the end (a quick search can blunder into a mate, and an evaluation change can move
/// where).
fn played(rules: fourkings_engine::RuleSet, plies: usize) -> Vec<Game> {
    let quick = Bot::new(Level::Medium);
    (0..20)
        .find_map(|first: usize| {
            let mut game = Game::new(rules).unwrap();
            let mut seen = Vec::with_capacity(plies);
            for ply in 0..plies {
                if game.is_over() {
                    return None;
                }
                let mv = if ply == 0 {
                    let moves = game.legal_moves();
                    moves[first % moves.len()]
                } else {
                    let root = SearchRoot::from_game(&game).unwrap();
                    quick
                        .choose(&root, &SearchLimits::nodes(3_000), ply as u64)
                        .unwrap()
                        .mv
                };
                game.play(game.to_move().unwrap(), mv).unwrap();
                seen.push(game.clone());
            }
            (!game.is_over()).then_some(seen)
        })
        .expect("one of the first 20 openings lasts")
}

/// The hard level with only a node budget: the same work on any machine.
fn bot() -> Bot {
    Bot::with_settings(LevelSettings {
        nodes: Some(NODES),
        time: Duration::from_secs(3_600),
        ..Level::Hard.settings()
    })
}

/// Searches `game` and returns the nodes searched.
fn search(bot: &Bot, game: &Game) -> u64 {
    let root = SearchRoot::from_game(game).unwrap();
    bot.choose(&root, &SearchLimits::default(), 0)
        .unwrap()
        .nodes
}

fn bench_search(c: &mut Criterion) {
    let bot = bot();
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    for (name, game) in positions() {
        let nodes = search(&bot, &game);
        group.throughput(Throughput::Elements(nodes));
        group.bench_with_input(BenchmarkId::new(name, nodes), &game, |b, game| {
            b.iter(|| search(&bot, game))
        });
    }
    group.finish();
}

/// Perft and the searches in alternating rounds; medians and the ratio.
fn summary(quick: bool) {
    let rounds = if quick { 1 } else { 7 };
    let teams = Preset::Teams.rules();
    let (perft_depth, perft_nodes) = if quick { (4, 152_050) } else { (5, 3_452_310) };
    let bot = bot();
    let positions = positions();
    let mut perft_times = Vec::new();
    let mut search_times: Vec<Vec<(u64, Duration)>> = vec![Vec::new(); positions.len()];
    for _ in 0..rounds {
        let mut pos = fourkings_engine::Position::new(&teams).unwrap();
        let started = Instant::now();
        assert_eq!(perft(&mut pos, perft_depth), perft_nodes);
        perft_times.push(started.elapsed());
        for (i, (_, game)) in positions.iter().enumerate() {
            let started = Instant::now();
            let nodes = search(&bot, game);
            search_times[i].push((nodes, started.elapsed()));
        }
    }
    perft_times.sort();
    let perft_rate = perft_nodes as f64 / perft_times[rounds / 2].as_secs_f64();
    println!("search speed, median of {rounds} rounds alternating with perft {perft_depth}");
    println!(
        "{:<20} {:>10} {:>14} {:>12}",
        "position", "nodes", "M nodes/s", "vs perft"
    );
    println!(
        "{:<20} {:>10} {:>14.2} {:>11.3}x",
        "perft (teams start)",
        perft_nodes,
        perft_rate / 1e6,
        1.0
    );
    for ((name, _), times) in positions.iter().zip(&mut search_times) {
        times.sort_by_key(|&(_, t)| t);
        let (nodes, t) = times[rounds / 2];
        let rate = nodes as f64 / t.as_secs_f64();
        println!(
            "{name:<20} {nodes:>10} {:>14.2} {:>11.3}x",
            rate / 1e6,
            rate / perft_rate
        );
    }
}

criterion_group!(benches, bench_search);

fn main() {
    let quick = std::env::args().any(|a| a == "--test");
    if !quick {
        benches();
        Criterion::default().configure_from_args().final_summary();
    }
    summary(quick);
}
