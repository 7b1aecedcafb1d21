use fourkings_engine::bot::{Bot, Level, SearchLimits, SearchRoot};
use fourkings_engine::{Game, Preset, Seat};
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let preset: Preset = match args.get(1).map(String::as_str) {
        Some("ffa") => Preset::Ffa,
        Some("duo") => Preset::Duo,
        _ => Preset::Teams,
    };
    let level: Level = args
        .get(2)
        .map(|s| s.parse().unwrap())
        .unwrap_or(Level::Hard);
    let plies: usize = args.get(3).map(|s| s.parse().unwrap()).unwrap_or(40);
    let mut game = Game::new(preset.rules()).unwrap();
    let bot = Bot::new(level);
    let t = Instant::now();
    let mut nodes = 0;
    for i in 0..plies {
        if game.is_over() {
            break;
        }
        if game.walking_king_to_move() {
            game.walk_king().unwrap();
            continue;
        }
        let root = SearchRoot::from_game(&game).unwrap();
        let r = bot
            .choose(&root, &SearchLimits::default(), i as u64)
            .unwrap();
        nodes += r.nodes;
        let seat: Seat = game.to_move().unwrap();
        let text = game.play(seat, r.mv).unwrap().text.clone();
        println!(
            "{i:3} {text:10} score {:6} depth {:2} nodes {:7} {:?}",
            r.score, r.depth, r.nodes, r.elapsed
        );
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{:?} nodes {nodes} in {s:.2}s = {:.0} knps",
        game.outcome(),
        nodes as f64 / s / 1e3
    );
}
