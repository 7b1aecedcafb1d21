//! The engine's move generator against the simple reference generator of `tests/reference`.
//!
//! First the reference is checked on its own: its start position is the one of RULES.md and the
//! engine, and its perft matches the published counts (cross board and chess). Then both
//! generators are run side by side over seeded random games of every preset, with options
//! switched on and off, and over seeded random positions (scattered pieces, castling and en
//! passant rights, armies out or with walking kings): at every position they must produce the
//! same set of moves, and the engine's make/unmake must agree with the reference's and restore
//! the position exactly. Each test asserts which kinds of move it actually met (promotions, en
//! passant, king captures…), so a change that stops them from coming up does not go unnoticed.

mod reference;

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::fmt::Write as _;
use std::time::Instant;

use fourkings_engine::notation::Fen;
use fourkings_engine::{
    Army, ArmyStatus, BoardKind, Format, Piece, Position, Preset, PromotionSet, Role, RuleSet,
    Setup, Square, perft,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reference::{RefBoard, RefKind, RefMove};

/// The longest random game, in plies.
const MAX_PLIES: usize = 300;

/// Standard chess: Duo without friendly capture.
fn chess() -> RuleSet {
    RuleSet {
        friendly_capture: false,
        ..Preset::Duo.rules()
    }
}

#[test]
fn the_reference_start_position_is_the_engines() {
    for preset in [Preset::Teams, Preset::TeamsHouse, Preset::Ffa] {
        let rules = preset.rules();
        let pos = Position::new(&rules).unwrap();
        assert_eq!(
            RefBoard::from_position(&pos, &rules),
            RefBoard::cross_start(&rules),
            "{preset}"
        );
    }
}

#[test]
fn reference_perft_from_the_cross_start() {
    let board = RefBoard::cross_start(&Preset::Teams.rules());
    for (depth, nodes) in [(1, 20), (2, 395), (3, 7800), (4, 152050)] {
        let started = Instant::now();
        assert_eq!(
            board.perft(depth),
            nodes,
            "reference perft {depth} from the teams start"
        );
        println!(
            "reference perft {depth} from the teams start: {nodes} in {:.2?}",
            started.elapsed()
        );
    }
}

#[test]
fn reference_perft_of_chess_positions() {
    // Published counts (Chess Programming Wiki, "Perft Results"); see tests/data/chess.perft.
    let cases: [(&str, u32, u64); 7] = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            4,
            197281,
        ),
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            3,
            97862,
        ),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 4, 43238),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            3,
            9467,
        ),
        (
            "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
            3,
            9467,
        ),
        (
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            3,
            62379,
        ),
        (
            "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
            3,
            89890,
        ),
    ];
    for (text, depth, nodes) in cases {
        let pos = text.parse::<Fen>().unwrap().position(&chess()).unwrap();
        assert_eq!(
            RefBoard::from_position(&pos, &chess()).perft(depth),
            nodes,
            "{text}, depth {depth}"
        );
    }
}

#[test]
fn both_perfts_agree_where_no_count_is_published() {
    // Duo with friendly capture (the king's own too, as a room may choose), and the cross-board
    // presets, from their start positions.
    for (rules, depth) in [
        (Preset::Duo.rules(), 4),
        (
            RuleSet {
                king_friendly_capture: true,
                ..Preset::Duo.rules()
            },
            3,
        ),
        (Preset::TeamsHouse.rules(), 3),
        (Preset::Ffa.rules(), 3),
        (
            RuleSet {
                first: Army::Green,
                ..Preset::Teams.rules()
            },
            3,
        ),
    ] {
        let mut pos = Position::new(&rules).unwrap();
        let reference = RefBoard::from_position(&pos, &rules).perft(depth);
        assert_eq!(
            perft(&mut pos, depth),
            reference,
            "{rules:?}, depth {depth}"
        );
    }
}

/// One rule set to play random games under.
struct Variant {
    label: &'static str,
    rules: RuleSet,
    games: usize,
    seed: u64,
    /// Free-for-all with walking kings: now and then an army resigns and its king walks on.
    walking: bool,
}

impl Variant {
    fn new(label: &'static str, rules: RuleSet, games: usize, seed: u64) -> Variant {
        rules.validate().unwrap_or_else(|e| panic!("{label}: {e}"));
        Variant {
            label,
            rules,
            games,
            seed,
            walking: false,
        }
    }
}

/// What the random games or positions went through, by name, to prove they covered what they
/// should.
#[derive(Default)]
struct Coverage {
    games: usize,
    positions: usize,
    moves: usize,
    seen: BTreeMap<&'static str, usize>,
}

impl Coverage {
    fn count(&mut self, what: &'static str) {
        *self.seen.entry(what).or_default() += 1;
    }

    fn get(&self, what: &str) -> usize {
        self.seen.get(what).copied().unwrap_or(0)
    }

    fn require(&self, test: &str, kinds: &[&str]) {
        let missing: Vec<&&str> = kinds.iter().filter(|k| self.get(k) == 0).collect();
        assert!(
            missing.is_empty(),
            "{test}: never met {missing:?}; coverage: {:?}",
            self.seen
        );
    }

    fn forbid(&self, test: &str, kinds: &[&str]) {
        let present: Vec<&&str> = kinds.iter().filter(|k| self.get(k) > 0).collect();
        assert!(
            present.is_empty(),
            "{test}: the rules forbid {present:?} but they came up; coverage: {:?}",
            self.seen
        );
    }
}

/// Everything needed to reproduce a failure.
struct Trail {
    /// Where the position comes from: variant, seed and game.
    origin: String,
    rules: RuleSet,
    /// The moves and status changes since the start.
    history: Vec<String>,
}

impl Trail {
    fn describe(&self, pos: &Position) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "{}, ply {}", self.origin, self.history.len());
        let _ = writeln!(s, "rules: {:?}", self.rules);
        let _ = writeln!(s, "position:\n{pos:?}");
        let _ = writeln!(s, "setup: {:?}", pos.to_setup());
        let _ = writeln!(s, "moves and events so far: {}", self.history.join(", "));
        s
    }
}

/// Compares both generators on `pos` and returns the legal moves (sorted).
fn compare(pos: &Position, rules: &RuleSet, trail: &Trail) -> Vec<RefMove> {
    let fast = pos.legal_moves();
    let mut engine: Vec<RefMove> = fast.iter().map(|&m| RefMove::of(m)).collect();
    engine.sort();
    let board = RefBoard::from_position(pos, rules);
    let reference = board.legal_moves();
    if engine != reference {
        let only = |a: &[RefMove], b: &[RefMove]| {
            a.iter()
                .filter(|m| !b.contains(m))
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
        };
        let mut dups = engine.clone();
        dups.dedup();
        panic!(
            "the move generators disagree\n{}engine only: {:?}\nreference only: {:?}\nengine lists {} moves, {} distinct",
            trail.describe(pos),
            only(&engine, &reference),
            only(&reference, &engine),
            engine.len(),
            dups.len(),
        );
    }
    assert_eq!(
        pos.count_legal_moves(),
        engine.len(),
        "count_legal_moves\n{}",
        trail.describe(pos)
    );
    for army in Army::ALL {
        if pos.status(army).takes_turns() {
            assert_eq!(
                pos.is_check(army),
                board.in_check(army),
                "is_check({army})\n{}",
                trail.describe(pos)
            );
        }
    }
    assert_eq!(
        pos.hash(),
        pos.compute_hash(),
        "incremental hash\n{}",
        trail.describe(pos)
    );
    reference
}

/// Plays `mv` on `pos` and takes it back, checking the hash, that the position after it is the
/// one the reference plays to, and that undo restores the position exactly.
fn check_play(pos: &mut Position, board: &RefBoard, mv: RefMove, trail: &Trail) {
    let before = pos.clone();
    let undo = pos.play_unchecked(mv.to_move());
    assert_eq!(
        pos.hash(),
        pos.compute_hash(),
        "hash after {mv}\n{}",
        trail.describe(&before)
    );
    let expected = board.play(mv);
    let got = RefBoard::from_position(pos, &trail.rules);
    if got != expected {
        panic!(
            "the engine and the reference disagree on the position after {mv}\n{}engine: {got:?}\nreference: {expected:?}",
            trail.describe(&before)
        );
    }
    pos.undo(undo);
    assert!(
        *pos == before,
        "undo of {mv} did not restore the position\n{}",
        trail.describe(&before)
    );
}

/// Changes an army's status, checking the hash and that `undo_status` restores the position.
fn set_status(pos: &mut Position, army: Army, status: ArmyStatus, trail: &mut Trail) {
    let before = pos.clone();
    let undo = pos.set_status(army, status);
    assert_eq!(
        pos.hash(),
        pos.compute_hash(),
        "hash after set_status\n{}",
        trail.describe(pos)
    );
    let after = pos.clone();
    pos.undo_status(undo);
    assert!(
        *pos == before,
        "undo_status did not restore the position\n{}",
        trail.describe(pos)
    );
    *pos = after;
    trail.history.push(format!("[{army} {status:?}]"));
}

/// How much more likely than a quiet move the random player is to choose `mv`.
fn weight(pos: &mut Position, mv: RefMove, pawn_push: u32, king_capture: bool) -> u32 {
    let mover = pos.piece_at(mv.from).expect("a piece to move");
    let target = pos.piece_at(mv.to);
    if target.is_some_and(|t| t.role == Role::King) {
        return 100;
    }
    // What the move leaves behind: a check, or a king the next army to move attacks (which
    // only a discovered attack can cause, and which random play would hardly ever find).
    let undo = pos.play_unchecked(mv.to_move());
    let next = pos.turn();
    let opens_king_capture = king_capture
        && Army::ALL.into_iter().any(|victim| {
            pos.is_enemy(next, victim)
                && pos.king(victim).is_some_and(|k| {
                    pos.attackers(k, victim)
                        .into_iter()
                        .any(|s| pos.piece_at(s).is_some_and(|p| p.army == next))
                })
        });
    let gives_check = !pos.checked_armies().is_empty();
    pos.undo(undo);
    if opens_king_capture {
        60
    } else if mv.kind == RefKind::EnPassant {
        80
    } else if mv.promotion.is_some() {
        25
    } else if matches!(mv.kind, RefKind::CastleKing | RefKind::CastleQueen) {
        15
    } else if gives_check {
        // Checks lead to mates and eliminations.
        10
    } else if target.is_some() {
        4
    } else if mover.role == Role::Pawn {
        pawn_push
    } else {
        1
    }
}

/// Picks one of `moves` at random, by [`weight`].
fn choose(
    pos: &mut Position,
    moves: &[RefMove],
    pawn_push: u32,
    king_capture: bool,
    rng: &mut ChaCha8Rng,
) -> RefMove {
    let weights: Vec<u32> = moves
        .iter()
        .map(|&m| weight(pos, m, pawn_push, king_capture))
        .collect();
    let mut pick = rng.random_range(0..weights.iter().sum::<u32>());
    for (&mv, &w) in moves.iter().zip(&weights) {
        if pick < w {
            return mv;
        }
        pick -= w;
    }
    unreachable!("the pick is below the total weight")
}

/// Names what kind of move `mv` is, for the coverage count.
fn record(pos: &Position, board: &RefBoard, mv: RefMove, cov: &mut Coverage) {
    let mover = pos.piece_at(mv.from).expect("a piece to move");
    let target = pos.piece_at(mv.to);
    cov.count("move");
    match mv.kind {
        RefKind::EnPassant => cov.count("en passant"),
        RefKind::CastleKing | RefKind::CastleQueen => cov.count("castle"),
        RefKind::DoubleStep => cov.count("double step"),
        RefKind::Normal => {}
    }
    if let Some(role) = mv.promotion {
        cov.count(if role == Role::Queen {
            "promotion"
        } else {
            "underpromotion"
        });
        if mv.kind == RefKind::EnPassant {
            cov.count("en passant promotion");
        }
    } else if mover.role == Role::Pawn && board.lands_on_promotion_line(mv) {
        cov.count("breakthrough");
    }
    if let Some(t) = target {
        let grey = !pos.status(t.army).is_live(t.role);
        if t.role == Role::King && grey {
            cov.count("capture of a grey king");
        } else if t.role == Role::King {
            cov.count("king capture");
        } else if t.army == mover.army && mover.role == Role::King {
            cov.count(if grey {
                "walking king takes its own grey piece"
            } else {
                "king friendly capture"
            });
        } else if t.army == mover.army {
            cov.count("friendly capture");
        } else if grey {
            cov.count("capture of a grey piece");
        } else {
            cov.count("capture");
        }
    }
    if pos.status(mover.army) == ArmyStatus::KingWalking {
        cov.count("walking king move");
    }
}

/// Counts positions where the army to move is in check, and in double check.
fn note_checks(pos: &Position, cov: &mut Coverage) {
    let us = pos.turn();
    if let Some(king) = pos.king(us).filter(|_| pos.is_check(us)) {
        cov.count("position in check");
        if pos.attackers(king, us).len() >= 2 {
            cov.count("position in double check");
        }
    }
}

/// Plays `variant.games` random games, comparing the generators at every position.
fn play_games(variant: &Variant, cov: &mut Coverage) {
    let rules = variant.rules;
    let ffa = rules.format == Format::FreeForAll;
    for game in 0..variant.games {
        let mut rng = ChaCha8Rng::seed_from_u64(
            variant.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ game as u64,
        );
        let origin = format!(
            "variant {} (seed {}), game {game}",
            variant.label, variant.seed
        );
        let mut trail = Trail {
            origin,
            rules,
            history: Vec::new(),
        };
        let mut pos = Position::new(&rules).unwrap();
        // Some games push pawns hard, so that promotions and en passant come up.
        let pawn_push = if rng.random_bool(0.5) { 12 } else { 3 };
        cov.games += 1;
        while trail.history.len() < MAX_PLIES {
            if ffa && pos.armies_taking_turns().len() <= 1 {
                break;
            }
            let moves = compare(&pos, &rules, &trail);
            cov.positions += 1;
            cov.moves += moves.len();
            note_checks(&pos, cov);
            if moves.is_empty() {
                if !ffa {
                    break;
                }
                // Mated or stalemated in free-for-all: the army is out.
                cov.count("elimination");
                let army = pos.turn();
                set_status(&mut pos, army, ArmyStatus::Out, &mut trail);
                continue;
            }
            if variant.walking && rng.random_bool(1.0 / 40.0) {
                // A resignation: the resigner's king walks on.
                let playing: Vec<Army> = Army::ALL
                    .into_iter()
                    .filter(|&a| pos.status(a) == ArmyStatus::Playing)
                    .collect();
                if playing.len() > 1 {
                    let army = playing[rng.random_range(0..playing.len())];
                    cov.count("king starts walking");
                    set_status(&mut pos, army, ArmyStatus::KingWalking, &mut trail);
                    continue;
                }
            }
            let board = RefBoard::from_position(&pos, &rules);
            let mv = choose(&mut pos, &moves, pawn_push, rules.king_capture, &mut rng);
            record(&pos, &board, mv, cov);
            check_play(&mut pos, &board, mv, &trail);
            trail.history.push(mv.to_string());
            let undo = pos.play_unchecked(mv.to_move());

            let live_king = |p: &Piece| p.role == Role::King && pos.status(p.army).takes_turns();
            if let Some(victim) = undo.captured().filter(live_king) {
                if !ffa {
                    break;
                }
                cov.count("elimination");
                set_status(&mut pos, victim.army, ArmyStatus::Out, &mut trail);
            }
        }
    }
}

/// Plays every variant's games and prints what they covered.
fn run(test: &str, variants: &[Variant]) -> Coverage {
    let started = Instant::now();
    let mut cov = Coverage::default();
    for variant in variants {
        play_games(variant, &mut cov);
    }
    println!(
        "{test}: {} games, {} positions, {} moves compared in {:.2?}; played {:?}",
        cov.games,
        cov.positions,
        cov.moves,
        started.elapsed(),
        cov.seen
    );
    assert!(
        cov.positions >= 1000,
        "{test}: only {} positions",
        cov.positions
    );
    cov
}

#[test]
fn random_games_teams() {
    let teams = Preset::Teams.rules();
    let cov = run(
        "teams",
        &[
            Variant::new("teams", teams, 30, 1),
            Variant::new(
                "teams, Green first",
                RuleSet {
                    first: Army::Green,
                    ..teams
                },
                10,
                2,
            ),
            Variant::new(
                "teams, minor promotion",
                RuleSet {
                    promotion: PromotionSet::Minor,
                    ..teams
                },
                15,
                3,
            ),
            Variant::new(
                "teams, promotion on the 8th",
                RuleSet {
                    promotion_rank: 8,
                    ..teams
                },
                15,
                4,
            ),
            Variant::new(
                "teams, breakthrough",
                RuleSet {
                    pawn_breakthrough: true,
                    ..teams
                },
                15,
                5,
            ),
            Variant::new(
                "teams, no castling or en passant",
                RuleSet {
                    castling: false,
                    en_passant: false,
                    ..teams
                },
                10,
                6,
            ),
        ],
    );
    cov.require(
        "teams",
        &[
            "promotion",
            "underpromotion",
            "en passant",
            "castle",
            "king capture",
            "breakthrough",
            "position in check",
        ],
    );
    cov.forbid("teams", &["friendly capture", "capture of a grey piece"]);
}

#[test]
fn random_games_teams_house_and_classic() {
    let house = Preset::TeamsHouse.rules();
    let cov = run(
        "teams-house",
        &[
            Variant::new("teams-house", house, 25, 11),
            Variant::new(
                "teams-house, breakthrough",
                RuleSet {
                    pawn_breakthrough: true,
                    ..house
                },
                10,
                12,
            ),
        ],
    );
    cov.require(
        "teams-house",
        &["promotion", "breakthrough", "position in check"],
    );
    cov.forbid("teams-house", &["en passant", "castle", "king capture"]);

    let classic = Preset::TeamsClassic.rules();
    let cov = run(
        "teams-classic",
        &[
            Variant::new("teams-classic", classic, 25, 21),
            Variant::new(
                "teams-classic, minor promotion",
                RuleSet {
                    promotion: PromotionSet::Minor,
                    ..classic
                },
                10,
                22,
            ),
        ],
    );
    cov.require(
        "teams-classic",
        &["promotion", "underpromotion", "castle", "king capture"],
    );
    cov.forbid("teams-classic", &["en passant"]);
}

#[test]
fn random_games_ffa() {
    let ffa = Preset::Ffa.rules();
    let cov = run(
        "ffa",
        &[
            Variant::new("ffa", ffa, 30, 31),
            Variant::new(
                "ffa, no king capture",
                RuleSet {
                    king_capture: false,
                    ..ffa
                },
                10,
                32,
            ),
            Variant::new(
                "ffa, all promotions on the 11th",
                RuleSet {
                    promotion: PromotionSet::All,
                    promotion_rank: 11,
                    ..ffa
                },
                10,
                33,
            ),
        ],
    );
    cov.require(
        "ffa",
        &[
            "promotion",
            "underpromotion",
            "en passant",
            "castle",
            "king capture",
            "elimination",
            "capture of a grey piece",
            "capture of a grey king",
        ],
    );
}

#[test]
fn random_games_ffa_walking_kings() {
    let walking = Preset::FfaWalkingKings.rules();
    let variants = [
        Variant {
            walking: true,
            ..Variant::new("ffa-walking-kings", walking, 30, 41)
        },
        Variant {
            walking: true,
            ..Variant::new(
                "ffa-walking-kings, en passant",
                RuleSet {
                    en_passant: true,
                    ..walking
                },
                10,
                42,
            )
        },
    ];
    let cov = run("ffa-walking-kings", &variants);
    cov.require(
        "ffa-walking-kings",
        &[
            "promotion",
            "castle",
            "king capture",
            "elimination",
            "king starts walking",
            "walking king move",
            "walking king takes its own grey piece",
            "en passant",
        ],
    );
}

#[test]
fn random_games_duo() {
    let duo = Preset::Duo.rules();
    let cov = run(
        "duo",
        &[
            Variant::new("duo", duo, 30, 51),
            Variant::new("chess (no friendly capture)", chess(), 20, 53),
            Variant::new(
                "duo, minor promotion",
                RuleSet {
                    promotion: PromotionSet::Minor,
                    ..duo
                },
                10,
                54,
            ),
            Variant::new(
                "duo, no castling or en passant",
                RuleSet {
                    castling: false,
                    en_passant: false,
                    ..duo
                },
                10,
                55,
            ),
        ],
    );
    cov.require(
        "duo",
        &[
            "promotion",
            "underpromotion",
            "en passant",
            "castle",
            "friendly capture",
            "position in check",
        ],
    );
    // Kings take none of their own pieces by default (RULES.md 7).
    cov.forbid("duo", &["king capture", "king friendly capture"]);
    let king_takes = RuleSet {
        king_friendly_capture: true,
        ..duo
    };
    let cov = run(
        "duo, kings make friendly captures",
        &[Variant::new(
            "duo, kings make friendly captures",
            king_takes,
            20,
            52,
        )],
    );
    cov.require(
        "duo, kings make friendly captures",
        &["friendly capture", "king friendly capture"],
    );
}

/// The step forward of `army`'s pawns, as `(files, ranks)`.
fn forward(army: Army) -> (i8, i8) {
    match army {
        Army::Red => (0, 1),
        Army::Blue => (1, 0),
        Army::Yellow => (0, -1),
        Army::Green => (-1, 0),
    }
}

/// How many ranks `sq` lies in front of `army`'s back rank.
fn own_rank(board: BoardKind, army: Army, sq: Square) -> i8 {
    let last = board.size() as i8 - 1;
    let (f, r) = (sq.file() as i8, sq.rank() as i8);
    match army {
        Army::Red => r,
        Army::Blue => f,
        Army::Yellow => last - r,
        Army::Green => last - f,
    }
}

/// The square `(df, dr)` away from `sq`, if it is on `board`.
fn offset(board: BoardKind, sq: Square, (df, dr): (i8, i8)) -> Option<Square> {
    let (f, r) = (sq.file() as i8 + df, sq.rank() as i8 + dr);
    if f < 0 || r < 0 {
        return None;
    }
    Square::new(f as u8, r as u8).filter(|&s| board.contains(s))
}

/// A random position under `rules`: kings and a few pieces scattered over the board, some armies
/// with king and rooks at home and castling rights, open en passant rights with a pawn ready to
/// take, and in free-for-all armies that are out or whose kings walk. It may be one no game can
/// reach; both generators must still agree on it.
fn random_setup(rules: &RuleSet, rng: &mut ChaCha8Rng) -> Setup {
    let board = rules.board();
    let armies: Vec<Army> = board.armies().iter().collect();
    let squares: Vec<Square> = board.squares().collect();
    let mut setup = Setup::start(board, rules.first);
    let homes = std::mem::take(&mut setup.pieces);
    let mut pieces: BTreeMap<Square, Piece> = BTreeMap::new();
    let promotion_line = rules.promotion_rank as i8 - 1;
    let pawn_fits = |army: Army, sq: Square| {
        let r = own_rank(board, army, sq);
        r >= 1 && (r < promotion_line || rules.pawn_breakthrough)
    };
    if rules.format == Format::FreeForAll {
        for &army in &armies {
            setup.status[army] = match rng.random_range(0..10) {
                0 | 1 => ArmyStatus::KingWalking,
                2 | 3 => ArmyStatus::Out,
                _ => ArmyStatus::Playing,
            };
        }
    }
    let turning: Vec<Army> = armies
        .iter()
        .copied()
        .filter(|&a| setup.status[a].takes_turns())
        .collect();
    setup.turn = match turning.len() {
        0 => {
            setup.status[rules.first] = ArmyStatus::Playing;
            rules.first
        }
        n => turning[rng.random_range(0..n)],
    };
    for &army in &armies {
        let at_home = rng.random_bool(0.4);
        if at_home {
            for &(sq, piece) in &homes {
                if piece.army == army && matches!(piece.role, Role::King | Role::Rook) {
                    pieces.insert(sq, piece);
                }
            }
            setup.castling[army] = [rng.random_bool(0.7), rng.random_bool(0.7)];
        } else {
            setup.castling[army] = [false, false];
            // An army that is out may have lost its king.
            if setup.status[army].takes_turns() || rng.random_bool(0.5) {
                loop {
                    let sq = squares[rng.random_range(0..squares.len())];
                    if let Entry::Vacant(cell) = pieces.entry(sq) {
                        cell.insert(Piece::new(army, Role::King));
                        break;
                    }
                }
            }
        }
        for _ in 0..rng.random_range(0..=14) {
            let sq = squares[rng.random_range(0..squares.len())];
            let role = [
                Role::Pawn,
                Role::Pawn,
                Role::Pawn,
                Role::Knight,
                Role::Bishop,
                Role::Rook,
                Role::Queen,
            ][rng.random_range(0..7)];
            if pieces.contains_key(&sq) || (role == Role::Pawn && !pawn_fits(army, sq)) {
                continue;
            }
            let promoted = role != Role::Pawn && rng.random_bool(0.1);
            pieces.insert(
                sq,
                Piece {
                    army,
                    role,
                    promoted,
                },
            );
        }
    }
    if rules.en_passant {
        for &owner in &armies {
            if owner == setup.turn || !rng.random_bool(0.6) {
                continue;
            }
            // A pawn just double-stepped to `landed`, and maybe a pawn of the mover ready to take it.
            let landed = squares[rng.random_range(0..squares.len())];
            let (ff, fr) = forward(owner);
            let Some(skipped) = offset(board, landed, (-ff, -fr)) else {
                continue;
            };
            if own_rank(board, owner, skipped) != 2
                || pieces.contains_key(&landed)
                || pieces.contains_key(&skipped)
            {
                continue;
            }
            pieces.insert(landed, Piece::new(owner, Role::Pawn));
            setup.en_passant[owner] = Some(fourkings_engine::EnPassant { skipped, landed });
            let taker = setup.turn;
            let (tf, tr) = forward(taker);
            let side = if rng.random_bool(0.5) {
                (tr, tf)
            } else {
                (-tr, -tf)
            };
            if let Some(from) = offset(board, skipped, (-tf - side.0, -tr - side.1)) {
                if !pieces.contains_key(&from) && pawn_fits(taker, from) && rng.random_bool(0.8) {
                    pieces.insert(from, Piece::new(taker, Role::Pawn));
                }
            }
        }
    }
    setup.pieces = pieces.into_iter().collect();
    setup
}

/// Compares the generators on random positions, and plays and takes back every legal move.
fn random_positions(label: &str, rules: RuleSet, count: usize, seed: u64) -> Coverage {
    let started = Instant::now();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut cov = Coverage::default();
    let mut rejected = 0;
    while cov.positions < count {
        let setup = random_setup(&rules, &mut rng);
        let Ok(mut pos) = Position::from_setup(&setup, &rules) else {
            rejected += 1;
            continue;
        };
        let trail = Trail {
            origin: format!("{label}: random position {} (seed {seed})", cov.positions),
            rules,
            history: Vec::new(),
        };
        let moves = compare(&pos, &rules, &trail);
        let board = RefBoard::from_position(&pos, &rules);
        cov.positions += 1;
        cov.moves += moves.len();
        note_checks(&pos, &mut cov);
        for &mv in &moves {
            record(&pos, &board, mv, &mut cov);
            check_play(&mut pos, &board, mv, &trail);
        }
    }
    println!(
        "{label}: {} random positions ({rejected} setups rejected), {} moves compared and played in {:.2?}; legal moves seen {:?}",
        cov.positions,
        cov.moves,
        started.elapsed(),
        cov.seen
    );
    cov
}

#[test]
fn random_positions_cross_board() {
    let teams = Preset::Teams.rules();
    let cov = random_positions("teams", teams, 8000, 61);
    cov.require(
        "teams",
        &[
            "en passant",
            "en passant promotion",
            "castle",
            "king capture",
            "promotion",
            "underpromotion",
            "position in double check",
        ],
    );
    random_positions("teams-house", Preset::TeamsHouse.rules(), 2000, 62)
        .forbid("teams-house", &["en passant", "castle", "king capture"]);
    random_positions(
        "teams, breakthrough",
        RuleSet {
            pawn_breakthrough: true,
            ..teams
        },
        2000,
        63,
    )
    .require("teams, breakthrough", &["breakthrough"]);
    let ffa = Preset::Ffa.rules();
    let cov = random_positions("ffa", ffa, 8000, 64);
    cov.require(
        "ffa",
        &[
            "en passant",
            "en passant promotion",
            "castle",
            "king capture",
            "walking king move",
            "walking king takes its own grey piece",
            "capture of a grey piece",
            "capture of a grey king",
            "position in double check",
        ],
    );
    random_positions(
        "ffa-walking-kings",
        Preset::FfaWalkingKings.rules(),
        3000,
        65,
    );
    random_positions(
        "ffa, all promotions, no king capture",
        RuleSet {
            promotion: PromotionSet::All,
            king_capture: false,
            ..ffa
        },
        2000,
        66,
    );
}

#[test]
fn random_positions_classic_board() {
    let cov = random_positions("duo", Preset::Duo.rules(), 8000, 71);
    cov.require(
        "duo",
        &[
            "en passant",
            "castle",
            "promotion",
            "underpromotion",
            "friendly capture",
            "position in double check",
        ],
    );
    cov.forbid("duo", &["king friendly capture"]);
    let king_takes = RuleSet {
        king_friendly_capture: true,
        ..Preset::Duo.rules()
    };
    random_positions("duo, kings make friendly captures", king_takes, 3000, 73).require(
        "duo, kings make friendly captures",
        &["king friendly capture"],
    );
    random_positions("chess", chess(), 8000, 72).forbid("chess", &["friendly capture"]);
}
