//! The whole comparison: the game server and the raw baseline, each started fresh for every
//! measurement on the server core, driven by the same scenarios from this process on the other
//! core, rounds alternating so that a noisy neighbour weighs on both; then one table, with every
//! target marked met or missed.

use std::cell::Cell;
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use crate::memory::{self, Memory};
use crate::scenario::{self, Outcome, Scenario};

/// The comparison's settings.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The game server's binary.
    #[arg(long, default_value = "target/release/fourkings")]
    server: PathBuf,
    /// The baseline's binary.
    #[arg(long, default_value = "target/release/baseline-server")]
    baseline: PathBuf,
    /// Another build of the game server (say, of the commit before a change; repeat the flag for
    /// several): each fan-out round measures it too, in turn with the others, and the table
    /// compares its deliveries per server CPU-second with this build's. This is how a trick on
    /// the hot path shows what it pays.
    #[arg(long)]
    against: Vec<PathBuf>,
    /// Only the fan-out rounds: enough to compare two builds (`--against`), in a third of the
    /// time.
    #[arg(long)]
    fanout_only: bool,
    /// The core (or `taskset -c` list) the servers run on; without it they are not pinned.
    #[arg(long)]
    server_cores: Option<String>,
    /// A short run (under a minute) with the same bounds, the CPU rooms' at twice theirs.
    #[arg(long)]
    smoke: bool,
    /// The run fails when the game server's deliveries per server CPU-second are below this
    /// share of the baseline's (half the target of 0.8 by default).
    #[arg(long, default_value_t = 0.4)]
    min_ratio: f64,
    /// The run fails when people's moves in the rooms of thinking CPUs are acknowledged more
    /// slowly than this at p99 (the smoke, 10 rooms for 3 s, allows twice as much).
    #[arg(long, default_value_t = 50.0)]
    max_cpu_ack_p99_ms: f64,
    /// Print the speed figures without judging them: fail only on deliveries lost, errors and
    /// memory over its bounds (`cargo test` runs the smoke so, `tests/tests/load_generator.rs`:
    /// it asserts behaviour, and the machine's speed is judged here, by `tests/perf/run`).
    #[arg(long)]
    no_speed_bounds: bool,
    /// Rounds of the fan-out comparison (each: the game server and the baseline, in turns). The
    /// verdict is the median of the rounds' ratios: on these machines single rounds of the same
    /// code ranged from 0.67 to 0.97 in one hour, and with three rounds one of them decided.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Rooms of the fan-out comparison.
    #[arg(long, default_value_t = 500)]
    fanout_rooms: usize,
    /// Moves a second in each room of the fan-out comparison.
    #[arg(long, default_value_t = 8.0)]
    fanout_rate: f64,
    /// Moves a second in each room of the capacity search.
    #[arg(long, default_value_t = 4.0)]
    search_rate: f64,
    /// Seconds the capacity search may take for each server.
    #[arg(long, default_value_t = 75.0)]
    search_seconds: f64,
    /// A round in which other processes used more than this share of a core is repeated (twice
    /// at most, then reported as noisy).
    #[arg(long, default_value_t = 0.3)]
    noisy_cores: f64,
    /// Noisy measurements are repeated only while the whole run has taken less than this many
    /// seconds, so that a busy machine cannot stretch it past ten minutes.
    #[arg(long, default_value_t = 330.0)]
    repeat_budget: f64,
}

/// The servers compared.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Game,
    Baseline,
    /// Another build of the game server: the `--against` binary of this index.
    Against(usize),
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Game => "Four Kings",
            Kind::Baseline => "baseline",
            Kind::Against(_) => "another build",
        }
    }
}

/// A server process, killed when dropped.
struct Running {
    child: Child,
    base: String,
}

impl Running {
    fn pid(&self) -> i32 {
        self.child.id() as i32
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The flags the game server runs with under load: storage in memory (the baseline stores
/// nothing, and storage has its own measurement), room for the capacity search's rooms, quiet
/// logs. Rate limits, origin checks, heartbeats and queues keep their defaults: the load stays
/// well inside them (a connection sends at most a few messages a second, and sends no Origin).
const GAME_FLAGS: &[&str] = &["--in-memory", "--max-rooms", "20000"];
/// The environment it runs with: no limits per client address, since every simulated client
/// comes from 127.0.0.1. Variables rather than flags, so that an older build under comparison
/// (`--against`), which knows none of them, starts all the same.
const GAME_ENV: [(&str, &str); 3] = [
    ("FOURKINGS_ROOM_CREATIONS_PER_MINUTE", "0"),
    ("FOURKINGS_MAX_CONNECTIONS_PER_ADDRESS", "0"),
    ("FOURKINGS_MAX_SOCKETS_PER_ADDRESS", "0"),
];

/// Starts `kind` on the server cores, with `extra` flags, and waits for its address.
fn start(args: &Args, kind: Kind, extra: &[String]) -> anyhow::Result<Running> {
    let program = match kind {
        Kind::Game => &args.server,
        Kind::Baseline => &args.baseline,
        Kind::Against(i) => &args.against[i],
    };
    // `taskset` execs the server, so the child's pid is the server's.
    let mut command = match &args.server_cores {
        Some(cores) => {
            let mut taskset = Command::new("taskset");
            taskset.arg("-c").arg(cores).arg(program);
            taskset
        }
        None => Command::new(program),
    };
    match kind {
        Kind::Game | Kind::Against(_) => {
            command
                .args(["serve", "--addr", "127.0.0.1:0"])
                .args(GAME_FLAGS)
                .envs(GAME_ENV);
        }
        Kind::Baseline => {
            command.args(["--addr", "127.0.0.1:0"]);
        }
    }
    command
        .args(extra)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    let mut child = command
        .spawn()
        .with_context(|| format!("starting {command:?}"))?;
    let stdout = child.stdout.take().context("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line)?;
    let Some(base) = line.trim().strip_prefix("listening on ") else {
        let _ = child.kill();
        bail!("{command:?} printed {line:?}");
    };
    Ok(Running {
        base: base.to_owned(),
        child,
    })
}

/// What the measurements of one comparison share.
struct Frames {
    /// The mean sizes of the game server's `moved` and `legal_moves` frames, once it has been
    /// measured: the baseline then sends frames of the same sizes.
    sizes: Cell<Option<(usize, usize)>>,
    /// When the comparison started.
    started: Instant,
    /// Seconds into the comparison after which a noisy measurement is no longer repeated.
    repeat_budget: f64,
}

/// Runs `scenario` against a fresh `kind`, repeating it (twice at most) when the machine was
/// noisy. Returns the outcome and whether it was still noisy.
async fn measure(
    args: &Args,
    frames: &Frames,
    kind: Kind,
    scenario: &Scenario,
    label: &str,
) -> anyhow::Result<(Outcome, bool)> {
    let mut tries = 0;
    loop {
        let extra = match (kind, frames.sizes.get()) {
            (Kind::Baseline, Some((moved, legal))) => vec![
                "--moved-bytes".to_owned(),
                moved.to_string(),
                "--legal-bytes".to_owned(),
                legal.to_string(),
            ],
            _ => Vec::new(),
        };
        let server = start(args, kind, &extra)?;
        let outcome = scenario::run(scenario, &server.base, server.pid()).await?;
        drop(server);
        if kind == Kind::Game && frames.sizes.get().is_none() && outcome.moved_bytes > 0.0 {
            frames.sizes.set(Some((
                outcome.moved_bytes.round() as usize,
                outcome.legal_bytes.round() as usize,
            )));
        }
        let noisy = outcome.usage.other_cores() > args.noisy_cores;
        let name = match kind {
            // Which of the other builds: its file's name.
            Kind::Against(i) => format!(
                "{} {}",
                kind.name(),
                args.against[i]
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
            ),
            _ => kind.name().to_owned(),
        };
        outcome.print(&format!(
            "{label}, {name}{}",
            if noisy { " (noisy)" } else { "" }
        ));
        tries += 1;
        let in_budget = frames.started.elapsed().as_secs_f64() < frames.repeat_budget;
        if !noisy || tries == 3 || !in_budget {
            return Ok((outcome, noisy));
        }
        eprintln!(
            "  others used {:.2} cores: again",
            outcome.usage.other_cores()
        );
    }
}

/// A median.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// One line of the table.
struct Row {
    scenario: String,
    measure: &'static str,
    game: String,
    baseline: String,
    versus: String,
    target: &'static str,
    met: Option<bool>,
}

/// Runs the comparison and prints the table; fails when a figure is out of its bounds (far from
/// its target: the targets themselves are marked met or missed in the table).
pub(crate) async fn run(args: &Args) -> anyhow::Result<()> {
    let started = Instant::now();
    let smoke = args.smoke;
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    let frames = Frames {
        sizes: Cell::new(None),
        started,
        repeat_budget: if smoke { 20.0 } else { args.repeat_budget },
    };

    // 1. Fan-out: the same moves a second against both, in alternating rounds.
    let fanout = Scenario {
        rooms: if smoke { 100 } else { args.fanout_rooms },
        spectators: 0,
        rate: args.fanout_rate,
        cpu_seats: 0,
        cpu_level: None,
        seconds: if smoke { 3.0 } else { 8.0 },
        warmup: 1.0,
        setup_concurrency: 64,
        seed: 1,
        game_clock_minutes: 0,
        premoves: false,
    };
    let label = format!("fan-out, {} rooms × {} moves/s", fanout.rooms, fanout.rate);
    // Three rounds in the smoke as well: its verdict is their median, which one noisy round
    // cannot sway.
    let rounds = if smoke { 3 } else { args.rounds.max(1) };
    let (mut games, mut bases, mut noisy) = (Vec::new(), Vec::new(), false);
    let mut others: Vec<Vec<Outcome>> = args.against.iter().map(|_| Vec::new()).collect();
    let mut kinds = vec![Kind::Game, Kind::Baseline];
    kinds.extend((0..args.against.len()).map(Kind::Against));
    for round in 0..rounds {
        // Each server goes first in turn, so that a trend in the machine's speed weighs on all.
        let mut order = kinds.clone();
        order.rotate_left(round % kinds.len());
        if round % 2 == 1 {
            order.reverse();
        }
        for kind in order {
            let (outcome, was_noisy) = measure(
                args,
                &frames,
                kind,
                &fanout,
                &format!("{label}, round {round}"),
            )
            .await?;
            noisy |= was_noisy;
            match kind {
                Kind::Game => games.push(outcome),
                Kind::Baseline => bases.push(outcome),
                Kind::Against(i) => others[i].push(outcome),
            }
        }
    }
    let ratio = median(
        games
            .iter()
            .zip(&bases)
            .map(|(g, b)| {
                g.deliveries_per_server_cpu_second() / b.deliveries_per_server_cpu_second()
            })
            .collect(),
    );
    let ratios: Vec<String> = games
        .iter()
        .zip(&bases)
        .map(|(g, b)| {
            format!(
                "{:.2}",
                g.deliveries_per_server_cpu_second() / b.deliveries_per_server_cpu_second()
            )
        })
        .collect();
    let per_cpu = |o: &[Outcome]| {
        median(
            o.iter()
                .map(Outcome::deliveries_per_server_cpu_second)
                .collect(),
        )
    };
    let p50 = |o: &[Outcome]| median(o.iter().map(|o| o.ms(0.5) * 1000.0).collect());
    let fanout_label = format!("{label}{}", if noisy { " (noisy)" } else { "" });
    rows.push(Row {
        scenario: fanout_label.clone(),
        measure: "deliveries per server CPU-second",
        game: format!("{:.0}", per_cpu(&games)),
        baseline: format!("{:.0}", per_cpu(&bases)),
        versus: format!("**{ratio:.2}×** (rounds {})", ratios.join(", ")),
        target: "≥ 0.8×",
        met: Some(ratio >= 0.8),
    });
    rows.push(Row {
        scenario: fanout_label.clone(),
        measure: "p50 move → client latency (µs)",
        game: format!("{:.0}", p50(&games)),
        baseline: format!("{:.0}", p50(&bases)),
        versus: format!("{:+.0} µs", p50(&games) - p50(&bases)),
        target: "",
        met: None,
    });
    let everyone = || games.iter().chain(&bases).chain(others.iter().flatten());
    let lost: u64 = everyone().map(Outcome::lost).sum();
    let errors: u64 = everyone().map(|o| o.errors).sum();
    rows.push(Row {
        scenario: fanout_label,
        measure: "lost deliveries, errors",
        game: games
            .iter()
            .map(|o| format!("{}, {}", o.lost(), o.errors))
            .collect::<Vec<_>>()
            .join("; "),
        baseline: bases
            .iter()
            .map(|o| format!("{}, {}", o.lost(), o.errors))
            .collect::<Vec<_>>()
            .join("; "),
        versus: String::new(),
        target: "none",
        met: Some(lost == 0 && errors == 0),
    });
    for (against, others) in args.against.iter().zip(&others) {
        let ratios: Vec<f64> = games
            .iter()
            .zip(others)
            .map(|(g, o)| {
                g.deliveries_per_server_cpu_second() / o.deliveries_per_server_cpu_second()
            })
            .collect();
        let listed: Vec<String> = ratios.iter().map(|r| format!("{r:.2}")).collect();
        rows.push(Row {
            scenario: format!("{label}, against {}", against.display()),
            measure: "deliveries per server CPU-second: this build / the other",
            game: format!("{:.0}", per_cpu(&games)),
            baseline: format!("{:.0} (the other build)", per_cpu(others)),
            versus: format!("**{:.2}×** (rounds {})", median(ratios), listed.join(", ")),
            target: "",
            met: None,
        });
    }
    if ratio < args.min_ratio && !args.no_speed_bounds {
        failures.push(format!(
            "deliveries per server CPU-second {ratio:.2}× the baseline's, below {}×",
            args.min_ratio
        ));
    }
    if lost > 0 || errors > 0 {
        failures.push(format!(
            "fan-out lost {lost} deliveries with {errors} errors"
        ));
    }

    if args.fanout_only {
        print_table(&rows, &games, &bases, started);
        return finish(&failures);
    }

    // 2. Many quiet rooms: 10,000 connections, one move a second a room (not in the smoke: the
    // fan-out already shows whether anything is lost, and this takes half a minute).
    if !smoke {
        let quiet = Scenario {
            rooms: 2500,
            rate: 1.0,
            seconds: 10.0,
            warmup: 2.0,
            setup_concurrency: 128,
            ..fanout.clone()
        };
        let label = format!("{} rooms × 4 clients, 1 move/s a room", quiet.rooms);
        let (game, game_noisy) = measure(args, &frames, Kind::Game, &quiet, &label).await?;
        let (base, base_noisy) = measure(args, &frames, Kind::Baseline, &quiet, &label).await?;
        let quiet_label = format!(
            "{label}{}",
            if game_noisy || base_noisy {
                " (noisy)"
            } else {
                ""
            }
        );
        rows.push(Row {
            scenario: quiet_label.clone(),
            measure: "move → client latency p50 / p99 / p99.9 / max (ms)",
            game: format!(
                "{:.2} / **{:.2}** / {:.2} / {:.1}",
                game.ms(0.5),
                game.ms(0.99),
                game.ms(0.999),
                game.latency.max() as f64 / 1000.0
            ),
            baseline: format!(
                "{:.2} / {:.2} / {:.2} / {:.1}",
                base.ms(0.5),
                base.ms(0.99),
                base.ms(0.999),
                base.latency.max() as f64 / 1000.0
            ),
            versus: format!("{:+.0} µs at p50", (game.ms(0.5) - base.ms(0.5)) * 1000.0),
            target: "p99 ≤ 5 ms",
            met: Some(game.ms(0.99) <= 5.0),
        });
        rows.push(Row {
            scenario: quiet_label.clone(),
            measure: "delivered / expected",
            game: format!("{} / {}", game.delivered, game.expected),
            baseline: format!("{} / {}", base.delivered, base.expected),
            versus: String::new(),
            target: "nothing lost",
            met: Some(game.lost() == 0 && game.errors == 0),
        });
        rows.push(Row {
            scenario: quiet_label,
            measure: "server CPU (cores)",
            game: format!("**{:.3}**", game.usage.server_cores()),
            baseline: format!("{:.3}", base.usage.server_cores()),
            versus: format!(
                "{:.2}× the baseline's deliveries per CPU-second",
                game.deliveries_per_server_cpu_second() / base.deliveries_per_server_cpu_second()
            ),
            target: "< 0.25",
            met: Some(game.usage.server_cores() < 0.25),
        });
        if game.lost() > 0 || game.errors > 0 {
            failures.push(format!(
                "{} rooms: {} lost, {} errors",
                quiet.rooms,
                game.lost(),
                game.errors
            ));
        }
    }

    // 3. Idle memory.
    let memory_rooms = if smoke { 100 } else { 2500 };
    let game_memory = {
        let server = start(
            args,
            Kind::Game,
            &["--grace-seconds".to_owned(), "3600".to_owned()],
        )?;
        memory::measure(&server.base, server.pid(), memory_rooms).await?
    };
    game_memory.print(&format!("memory, {}", Kind::Game.name()));
    let base_memory = {
        let server = start(args, Kind::Baseline, &[])?;
        memory::measure(&server.base, server.pid(), memory_rooms).await?
    };
    base_memory.print(&format!("memory, {}", Kind::Baseline.name()));
    let label = format!(
        "idle memory, {memory_rooms} rooms, {} connections",
        4 * memory_rooms
    );
    let kb = |m: &Memory, f: fn(&Memory) -> f64| format!("{:.1}", f(m));
    rows.push(Row {
        scenario: label.clone(),
        measure: "KB per connection",
        game: format!("**{}**", kb(&game_memory, Memory::per_connection_kb)),
        baseline: kb(&base_memory, Memory::per_connection_kb),
        versus: String::new(),
        target: "≤ 15 KB",
        met: Some(game_memory.per_connection_kb() <= 15.0),
    });
    rows.push(Row {
        scenario: label,
        measure: "KB per room with its game (baseline: no game)",
        game: format!("**{}**", kb(&game_memory, Memory::per_room_kb)),
        baseline: kb(&base_memory, Memory::per_room_kb),
        versus: String::new(),
        target: "≤ 64 KB",
        met: Some(game_memory.per_room_kb() <= 64.0),
    });
    if game_memory.per_connection_kb() > 30.0 || game_memory.per_room_kb() > 128.0 {
        failures.push(format!(
            "memory: {:.1} KB a connection, {:.1} KB a room",
            game_memory.per_connection_kb(),
            game_memory.per_room_kb()
        ));
    }

    // 4. Thinking CPUs: people's moves still acknowledged quickly.
    let cpus = Scenario {
        rooms: if smoke { 10 } else { 100 },
        cpu_seats: 3,
        seconds: if smoke { 3.0 } else { 15.0 },
        warmup: if smoke { 1.0 } else { 2.0 },
        ..fanout.clone()
    };
    let label = format!("{} rooms, 3 CPU seats each (bot)", cpus.rooms);
    let (cpu, cpu_noisy) = measure(args, &frames, Kind::Game, &cpus, &label).await?;
    rows.push(Row {
        scenario: format!("{label}{}", if cpu_noisy { " (noisy)" } else { "" }),
        measure: "people's moves acked p50 / p99 / max (ms)",
        game: format!(
            "{:.2} / **{:.2}** / {:.1} ({} moves)",
            cpu.ack_ms(0.5),
            cpu.ack_ms(0.99),
            cpu.ack.max() as f64 / 1000.0,
            cpu.ack.len()
        ),
        baseline: "—".into(),
        versus: String::new(),
        target: "p99 ≤ 50 ms",
        met: Some(cpu.ack_ms(0.99) <= 50.0),
    });
    let max_cpu_ack_p99 = args.max_cpu_ack_p99_ms * if smoke { 2.0 } else { 1.0 };
    if cpu.ack_ms(0.99) > max_cpu_ack_p99 && !args.no_speed_bounds {
        failures.push(format!(
            "CPU rooms: acks p99 {:.1} ms, above {max_cpu_ack_p99} ms",
            cpu.ack_ms(0.99)
        ));
    }
    // Every person's move sent is answered, however slowly (not a speed bound).
    if cpu.lost() > 0 || cpu.errors > 0 {
        failures.push(format!(
            "CPU rooms: {} lost, {} errors",
            cpu.lost(),
            cpu.errors
        ));
    }

    // 5. Capacity: the most rooms each holds with p99 ≤ 50 ms and nothing lost.
    if !smoke {
        let game = capacity(args, &frames, Kind::Game).await?;
        let base = capacity(args, &frames, Kind::Baseline).await?;
        rows.push(Row {
            scenario: format!(
                "capacity, {} moves/s a room, p99 ≤ 50 ms and nothing lost",
                args.search_rate
            ),
            measure: "most rooms held (moves/s)",
            game,
            baseline: base,
            versus: String::new(),
            target: "",
            met: None,
        });
    }

    print_table(&rows, &games, &bases, started);
    finish(&failures)
}

/// The run's verdict: an error naming every figure out of its bounds.
fn finish(failures: &[String]) -> anyhow::Result<()> {
    if !failures.is_empty() {
        bail!("out of bounds: {}", failures.join("; "));
    }
    Ok(())
}

/// Prints the table, and the frame sizes of the first fan-out round.
fn print_table(rows: &[Row], games: &[Outcome], bases: &[Outcome], started: Instant) {
    println!();
    println!("| scenario | measure | Four Kings | baseline | Four Kings vs baseline | target | |");
    println!("|---|---|---:|---:|---|---|---|");
    for row in rows {
        let met = match row.met {
            Some(true) => "met",
            Some(false) => "**missed**",
            None => "",
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {met} |",
            row.scenario, row.measure, row.game, row.baseline, row.versus, row.target
        );
    }
    println!();
    println!(
        "(frames: moved {:.0} B, legal_moves {:.0} B from Four Kings; {:.0} B and {:.0} B from the baseline; the whole run took {:.0} s)",
        games[0].moved_bytes,
        games[0].legal_bytes,
        bases[0].moved_bytes,
        bases[0].legal_bytes,
        started.elapsed().as_secs_f64()
    );
}

/// Steps up the room count at `search_rate` moves a second a room until p99 passes 50 ms,
/// something is lost, the load generator itself is the limit, or the time is up. Returns the
/// highest count that passed, as text for the table.
async fn capacity(args: &Args, frames: &Frames, kind: Kind) -> anyhow::Result<String> {
    // 4 connections a room: 4,800 rooms hold 19,200 sockets, under the 20,000 files a process may
    // open here.
    const STEPS: &[usize] = &[250, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4800];
    let deadline = Instant::now() + Duration::from_secs_f64(args.search_seconds);
    let mut best: Option<(usize, f64)> = None;
    let mut why = "every step passed (4,800 rooms is the file limit)".to_owned();
    for &rooms in STEPS {
        if Instant::now() >= deadline {
            why = "time budget spent".into();
            break;
        }
        let scenario = Scenario {
            rooms,
            spectators: 0,
            rate: args.search_rate,
            cpu_seats: 0,
            cpu_level: None,
            seconds: 4.0,
            warmup: 1.0,
            setup_concurrency: 128,
            seed: 7,
            game_clock_minutes: 0,
            premoves: false,
        };
        let label = format!("capacity, {rooms} rooms × {} moves/s", args.search_rate);
        let (outcome, _) = measure(args, frames, kind, &scenario, &label).await?;
        if outcome.usage.loadgen_cores() > 0.95 {
            why = format!("the load generator was the limit at {rooms} rooms");
            break;
        }
        if outcome.ms(0.99) > 50.0 || outcome.lost() > 0 || outcome.errors > 0 {
            why = format!(
                "{rooms} rooms: p99 {:.1} ms, {} lost",
                outcome.ms(0.99),
                outcome.lost()
            );
            break;
        }
        best = Some((rooms, outcome.moves_per_second()));
    }
    Ok(match best {
        Some((rooms, rate)) => format!("**{rooms}** ({rate:.0}); next: {why}"),
        None => format!("fewer than {} ({why})", STEPS[0]),
    })
}
