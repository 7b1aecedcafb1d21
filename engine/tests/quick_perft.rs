//! Quick perft node counts from the start positions of Teams and Duo.
use fourkings_engine::*;
#[test]
fn quick() {
    for (preset, expect) in [
        (Preset::Teams, vec![20u64, 395, 7800, 152050]),
        (Preset::Duo, vec![20, 400, 8902, 197281]),
    ] {
        let rules = RuleSet {
            friendly_capture: false,
            ..preset.rules()
        };
        let mut pos = Position::new(&rules).unwrap();
        for (d, &e) in expect.iter().enumerate() {
            let t = std::time::Instant::now();
            let n = perft(&mut pos, d as u32 + 1);
            println!("{preset} depth {} nodes {} in {:?}", d + 1, n, t.elapsed());
            assert_eq!(n, e);
        }
    }
}
#[test]
fn depth5() {
    let mut pos = Position::new(&Preset::Teams.rules()).unwrap();
    let t = std::time::Instant::now();
    let n = perft(&mut pos, 5);
    let e = t.elapsed();
    println!(
        "teams depth 5 nodes {} in {:?} = {:.1} M/s",
        n,
        e,
        n as f64 / e.as_secs_f64() / 1e6
    );
}
