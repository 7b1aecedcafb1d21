//! The CPU player: a cancelled search stops at once, and a move never takes longer than
//! its time budget and a tenth. Timing tests live alone in this binary: the tests of one binary
//! run in parallel, and a search descheduled by a neighbour would look slow.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use cpu_time::ThreadTime;

use fourkings_engine::bot::{Bot, Level, SearchLimits, SearchRoot};
use fourkings_engine::{Game, Preset};
use support::*;

#[test]
fn a_cancelled_search_stops_at_once() {
    let game = Game::new(Preset::Teams.rules()).unwrap();
    let root = SearchRoot::from_game(&game).unwrap();
    // A flag set before the search starts: it still answers with a legal move, at once.
    let cancel = AtomicBool::new(true);
    let started = Instant::now();
    let r = Bot::new(Level::Hard)
        .choose(&root, &SearchLimits::default().with_cancel(&cancel), 0)
        .unwrap();
    assert!(game.legal_moves().contains(&r.mv));
    assert!(
        started.elapsed() < Duration::from_millis(50),
        "{:?}",
        started.elapsed()
    );

    // A flag set from another thread while the search runs without any other limit.
    let cancel = AtomicBool::new(false);
    let unlimited = Bot::with_settings(fourkings_engine::bot::LevelSettings {
        nodes: None,
        time: Duration::from_secs(600),
        ..Level::Hard.settings()
    });
    std::thread::scope(|scope| {
        let search = scope.spawn(|| {
            let r = unlimited.choose(&root, &SearchLimits::default().with_cancel(&cancel), 0);
            (r, Instant::now())
        });
        // Let it get deep into the search first (not waiting for anything: any moment will do).
        std::thread::sleep(Duration::from_millis(100));
        let cancelled_at = Instant::now();
        cancel.store(true, Ordering::Relaxed);
        let (r, stopped_at) = search.join().unwrap();
        let r = r.unwrap();
        assert!(game.legal_moves().contains(&r.mv));
        let latency = stopped_at.saturating_duration_since(cancelled_at);
        assert!(
            latency < Duration::from_millis(20),
            "stopped {latency:?} after the cancel"
        );
    });
}

#[test]
fn a_move_never_takes_longer_than_its_time_budget_and_a_tenth() {
    /// Attempts before giving up on finding the machine quiet enough.
    const ATTEMPTS: usize = 20;
    let mut game = Game::new(Preset::Teams.rules()).unwrap();
    play_line(&mut game, "h2-h4 b7-c7 g13-g11 m8-l8 i1-g3");
    let root = SearchRoot::from_game(&game).unwrap();
    let unlimited = Bot::with_settings(fourkings_engine::bot::LevelSettings {
        nodes: None,
        ..Level::Hard.settings()
    });
    for budget in [Duration::from_millis(100), Duration::from_millis(300)] {
        let limit = budget + budget / 10;
        // How long the thread may wait for the processor before an attempt says nothing about
        // the search: on a shared machine another process can take it away at any moment.
        let descheduled = budget / 20;
        let mut within = false;
        for _ in 0..ATTEMPTS {
            let (wall, cpu) = (Instant::now(), ThreadTime::now());
            let r = unlimited
                .choose(&root, &SearchLimits::default().with_time(budget), 0)
                .unwrap();
            let (took, computed) = (wall.elapsed(), cpu.elapsed());
            assert!(r.depth >= 1, "{budget:?}: no iteration finished");
            // Computing alone never overshoots, however busy the machine.
            assert!(
                computed <= limit,
                "{computed:?} of computing for a budget of {budget:?}"
            );
            if took <= limit {
                within = true;
                break;
            }
            // Over the limit: the search's fault unless the scheduler explains it, in which case
            // this attempt says nothing and another one is made.
            assert!(
                took.saturating_sub(computed) > descheduled,
                "{took:?} for a budget of {budget:?}, {computed:?} of it computing"
            );
        }
        assert!(
            within,
            "{budget:?}: over the limit in each of {ATTEMPTS} attempts, the machine being busy"
        );
    }
}

#[test]
fn hard_thinks_for_the_time_it_is_given_and_no_longer_than_its_own() {
    let mut game = Game::new(Preset::Teams.rules()).unwrap();
    play_line(&mut game, "h2-h4 b7-c7 g13-g11 m8-l8");
    let root = SearchRoot::from_game(&game).unwrap();
    let hard = Bot::new(Level::Hard);
    assert_eq!(hard.settings().nodes, None, "hard counts time, not nodes");
    // Given less than its own second (a turn limit, a clock), it uses what it is given: no node
    // cap stops it early.
    let budget = Duration::from_millis(250);
    let cpu = ThreadTime::now();
    let r = hard
        .choose(&root, &SearchLimits::default().with_time(budget), 0)
        .unwrap();
    let computed = cpu.elapsed();
    assert!(game.legal_moves().contains(&r.mv));
    assert!(
        r.elapsed >= budget * 9 / 10 && computed <= budget + budget / 10,
        "{:?} ({computed:?} computing) for a budget of {budget:?}",
        r.elapsed
    );
    // Given more, it aims at its own second: it stops there, or thinks on to three while its
    // choice is unsettled, and no longer.
    let cpu = ThreadTime::now();
    let r = hard
        .choose(
            &root,
            &SearchLimits::default().with_time(Duration::from_secs(10)),
            0,
        )
        .unwrap();
    let own = hard.settings().time;
    let most = own * 3;
    assert!(
        cpu.elapsed() <= most + most / 10 && r.elapsed >= own * 9 / 10,
        "{:?} for its own {own:?}",
        r.elapsed
    );
}
