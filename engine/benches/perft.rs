//! Move generation speed: perft from the start positions, leaves counted in bulk at the last ply.
//! Each benchmark checks the node count it times, so a fast wrong generator cannot pass.
// criterion_group! and criterion_main! generate functions that cannot carry docs.
#![allow(missing_docs)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use fourkings_engine::{Position, Preset, RuleSet, perft};

fn bench_perft(c: &mut Criterion) {
    let chess = RuleSet {
        friendly_capture: false,
        ..Preset::Duo.rules()
    };
    let cases: [(&str, RuleSet, u32, u64); 3] = [
        ("teams", Preset::Teams.rules(), 4, 152_050),
        ("teams", Preset::Teams.rules(), 5, 3_452_310),
        ("chess", chess, 4, 197_281),
    ];
    let mut group = c.benchmark_group("perft");
    group.sample_size(20);
    for (name, rules, depth, nodes) in cases {
        let mut pos = Position::new(&rules).expect("start position");
        assert_eq!(perft(&mut pos, depth), nodes, "{name} depth {depth}");
        group.throughput(Throughput::Elements(nodes));
        group.bench_with_input(BenchmarkId::new(name, depth), &depth, |b, &depth| {
            b.iter(|| perft(&mut pos, depth))
        });
    }
    group.finish();
}

fn bench_legal_moves(c: &mut Criterion) {
    // A middlegame with open lines: every army has developed pieces.
    let rules = Preset::Teams.rules();
    let mut pos = Position::new(&rules).unwrap();
    for _ in 0..24 {
        let moves = pos.legal_moves();
        // Any fixed choice will do; the middle of the list develops pieces more than pawns.
        let mv = moves[moves.len() / 2];
        pos.play_unchecked(mv);
    }
    c.bench_function("legal_moves/teams-middlegame", |b| {
        b.iter(|| pos.legal_moves().len())
    });
}

criterion_group!(benches, bench_perft, bench_legal_moves);
criterion_main!(benches);
