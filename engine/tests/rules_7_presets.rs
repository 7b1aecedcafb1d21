//! RULES.md section 7, "The presets": the preset table row by row, then the free-for-all rules
//! (points, grey pieces, walking kings, how the game ends) and Duo.
//!
//! The table's "source text" row names documents, not behaviour, and has no test.

mod support;

use fourkings_engine::game::{
    Consequence, DrawReason, Elimination, FfaEnding, ResignOutcome, ScoreReason, WinReason,
};
use fourkings_engine::{
    Army, ArmySet, ArmyStatus, BoardKind, CastleSide, Format, Game, GameError, MateTiming, Move,
    MoveKind, Outcome, Piece, Preset, PromotionSet, Resignation, Role, RuleSet, RuleSetError, Seat,
    Setup, Team,
};
use support::*;

const KINGS: &str = "rK h1, bK a7, yK g14, gK n8";

/// Kings and one knight each; every army can shuffle its knight.
const KNIGHTS: &str = "rK h1, rN e1, bK a7, bN a5, yK g14, yN e14, gK n8, gN n5";
const KNIGHT_ROUNDS: &str = "e1-f3 a5-c6 e14-f12 n5-l6 f3-e1 c6-a5 f12-e14 l6-n5";

/// Red's king on h1 behind its own pawns: a rook on the first rank mates it.
const BACK_RANK: &str = "rK h1, rP g2, rP h2, rP i2, bK a7, yK g14, gK n8";

const CROSS_PRESETS: [Preset; 5] = [
    Preset::Teams,
    Preset::TeamsHouse,
    Preset::TeamsClassic,
    Preset::Ffa,
    Preset::FfaWalkingKings,
];

fn with_kings(pieces: &str) -> String {
    format!("{KINGS}, {pieces}")
}

// ---------------------------------------------------------------------------------------------
// The table, row by row.
// ---------------------------------------------------------------------------------------------

/// "| board | cross | cross | cross | cross | cross | classic 8×8 |"
#[test]
fn preset_table_board_row() {
    for preset in Preset::ALL {
        let game = Game::new(preset.rules()).unwrap();
        let (board, pieces) = if preset == Preset::Duo {
            (BoardKind::Classic, 32)
        } else {
            (BoardKind::Cross, 64)
        };
        assert_eq!(game.position().board(), board, "{preset}");
        assert_eq!(game.position().pieces().count(), pieces, "{preset}");
    }
}

/// "| format | Teams | Teams | Teams | free-for-all | free-for-all | 2 teams share 2 armies |"
#[test]
fn preset_table_format_row() {
    use Format::*;
    let expected = [Teams, Teams, Teams, FreeForAll, FreeForAll, Duo];
    for (preset, format) in Preset::ALL.into_iter().zip(expected) {
        assert_eq!(preset.rules().format, format, "{preset}");
        let game = Game::new(preset.rules()).unwrap();
        let partners = game.position().are_partners(Army::Red, Army::Yellow);
        assert_eq!(
            partners,
            format == Teams,
            "{preset}: Red and Yellow partners"
        );
        assert_eq!(game.rules().has_teams(), format != FreeForAll, "{preset}");
    }
    // Duo: four seats, two armies, each shared by a team.
    let game = Game::new(Preset::Duo.rules()).unwrap();
    let armies: Vec<Army> = Seat::ALL.iter().map(|&s| game.army_of(s)).collect();
    assert_eq!(armies, [Army::WHITE, Army::BLACK, Army::WHITE, Army::BLACK]);
    assert_eq!(
        Seat::ALL.map(|s| s.team()),
        [Team::WHITE, Team::BLACK, Team::WHITE, Team::BLACK]
    );
}

/// "| castling | on | off | on | on | on | on |"
#[test]
fn preset_table_castling_row() {
    let expected = [true, false, true, true, true, true];
    for (preset, on) in Preset::ALL.into_iter().zip(expected) {
        assert_eq!(preset.rules().castling, on, "{preset}");
        let (setup, king, sides) = if preset == Preset::Duo {
            (
                classic("w", "wK e1, wR a1, wR h1, bK e8").castling_both(Army::WHITE),
                "e1",
                ["g1", "c1"],
            )
        } else {
            (
                cross("R", &with_kings("rR d1, rR k1")).castling_both(Army::Red),
                "h1",
                ["j1", "f1"],
            )
        };
        let pos = position(&setup, preset);
        for (to, side) in sides.into_iter().zip(CastleSide::ALL) {
            let castles = pos
                .legal_moves()
                .iter()
                .any(|m| m.kind() == MoveKind::Castle(side));
            assert_eq!(castles, on, "{preset} {side:?}");
            assert_eq!(has_move(&pos, king, to), on, "{preset} {king}-{to}");
        }
    }
}

/// "| en passant | on | off | off | on | off | on |"
#[test]
fn preset_table_en_passant_row() {
    let expected = [true, false, false, true, false, true];
    for (preset, on) in Preset::ALL.into_iter().zip(expected) {
        assert_eq!(preset.rules().en_passant, on, "{preset}");
        let mut game = if preset == Preset::Duo {
            let mut game = game_from(&classic("w", "wK e1, wP e2, bK e8, bP d4"), preset);
            play(&mut game, "e2", "e4");
            game
        } else {
            // Blue's pawn double-steps past Yellow's pawn on d8.
            let mut game = game_from(&cross("B", &with_kings("bP b7, yP d8")), preset);
            play(&mut game, "b7", "d7");
            game
        };
        let (from, to) = if preset == Preset::Duo {
            ("d4", "e3")
        } else {
            ("d8", "c7")
        };
        assert_eq!(has_move(game.position(), from, to), on, "{preset}");
        if on {
            let ply = play(&mut game, from, to);
            assert_eq!(ply.mv.kind(), MoveKind::EnPassant);
            assert_eq!(ply.captured.map(|p| p.role), Some(Role::Pawn));
        }
    }
}

/// Green to move: its bishop on c7 shields its partner Blue's king (a7) from Red's rook (d7).
const SHIELD: &str = "rK h1, rR d7, bK a7, gB c7, yK g14, gK n8";

/// "| king capture | on | off | on | on (20 pts) | on (20 pts) | n/a (classic mate) |"
#[test]
fn preset_table_king_capture_row() {
    let expected = [
        (Preset::Teams, true),
        (Preset::TeamsHouse, false),
        (Preset::TeamsClassic, true),
        (Preset::Ffa, true),
        (Preset::FfaWalkingKings, true),
    ];
    for (preset, on) in expected {
        assert_eq!(preset.rules().king_capture, on, "{preset}");
        let mut game = game_from(&cross("G", SHIELD), preset);
        play(&mut game, "c7", "e5");
        assert!(game.position().is_check(Army::Blue));
        assert_eq!(has_move(game.position(), "d7", "a7"), on, "{preset}");
        if on {
            play(&mut game, "d7", "a7");
            if preset.rules().format == Format::FreeForAll {
                assert_eq!(game.points()[Army::Red], 20, "{preset}");
                assert!(!game.is_over());
            } else {
                assert!(
                    matches!(
                        game.outcome(),
                        Some(Outcome::Win {
                            team: Team::RedYellow,
                            ..
                        })
                    ),
                    "{preset}"
                );
            }
        }
    }
    // Duo: a classic mate, no king capture (each team answers for its one king on its own turn).
    assert!(!Preset::Duo.rules().king_capture);
    let rules = RuleSet {
        king_capture: true,
        ..Preset::Duo.rules()
    };
    assert!(matches!(
        rules.validate(),
        Err(RuleSetError::NotForFormat {
            option: "king_capture",
            ..
        })
    ));
}

/// "| mate decided | at turn start | at turn start | at turn start | at once, after any move | at
/// turn start | at once |"
#[test]
fn preset_table_mate_decided_row() {
    use MateTiming::*;
    let expected = [
        TurnStart, TurnStart, TurnStart, Immediate, TurnStart, Immediate,
    ];
    for (preset, timing) in Preset::ALL.into_iter().zip(expected) {
        assert_eq!(preset.rules().mate, timing, "{preset}");
    }
    // Blue's rook mates Red's king on the first rank; Yellow and Green move before Red.
    for preset in CROSS_PRESETS {
        let mut game = game_from(&cross("B", &format!("{BACK_RANK}, bR e5, yN d3")), preset);
        let ply = play(&mut game, "e5", "e1");
        match preset.rules().mate {
            Immediate => {
                assert_eq!(ply.mates, 1, "{preset}");
                assert!(ply.text.ends_with("#"), "{preset}: {}", ply.text);
                assert_eq!(
                    game.position().status(Army::Red),
                    ArmyStatus::Out,
                    "{preset}"
                );
                assert_eq!(game.points()[Army::Blue], 20, "{preset}");
            }
            TurnStart => {
                assert!(ply.mates == 0 && !game.is_over(), "{preset}");
                assert_eq!(
                    game.position().status(Army::Red),
                    ArmyStatus::Playing,
                    "{preset}"
                );
                // Yellow's knight takes the rook; Red is saved.
                play(&mut game, "d3", "e1");
                play(&mut game, "n8", "n9");
                assert!(!game.is_over(), "{preset}");
                assert_eq!(game.to_move(), Some(seat(Army::Red)), "{preset}");
            }
        }
    }
    // Duo: the mate ends the game on the move that gives it.
    let mut game = game_from(&classic("w", "wK f6, wQ g1, bK h8"), Preset::Duo);
    let ply = play(&mut game, "g1", "g7");
    assert_eq!(ply.mates, 1);
    assert!(matches!(
        game.outcome(),
        Some(Outcome::Win {
            team: Team::WHITE,
            reason: WinReason::Checkmate { .. }
        })
    ));
}

/// "| promotion line / set | 11th, Q R B N | 11th, Q R B N | 11th, Q R B N | 8th, Q only | 8th, Q
/// only | 8th, Q R B N |"
#[test]
fn preset_table_promotion_row() {
    use Role::*;
    for preset in Preset::ALL {
        let rules = preset.rules();
        let (setup, from, to, roles): (Setup, _, _, &[Role]) = match preset {
            Preset::Duo => (
                classic("w", "wK e1, wP b7, bK h8"),
                "b7",
                "b8",
                &[Queen, Rook, Bishop, Knight],
            ),
            Preset::Ffa | Preset::FfaWalkingKings => {
                (cross("R", &with_kings("rP e7")), "e7", "e8", &[Queen])
            }
            _ => (
                cross("R", &with_kings("rP e10")),
                "e10",
                "e11",
                &[Queen, Rook, Bishop, Knight],
            ),
        };
        let line = match preset {
            Preset::Teams | Preset::TeamsHouse | Preset::TeamsClassic => 11,
            _ => 8,
        };
        assert_eq!(rules.promotion_rank, line, "{preset}");
        let pos = position(&setup, preset);
        assert_eq!(promotions(&pos, from, to), roles, "{preset}");
    }
    assert_eq!(Preset::Ffa.rules().promotion, PromotionSet::QueenOnly);
    // In Teams the 8th rank is just another square.
    let pos = position(&cross("R", &with_kings("rP e7")), Preset::Teams);
    assert_eq!(mv(&pos, "e7", "e8").promotion(), None);
}

/// Green's rook move m5-i5 stalemates Red (rooks on g5 and i5 and the knight on f3 cover every
/// square next to Red's king, which is not attacked).
const STALEMATE: &str = "rK h1, gR g5, gR m5, gN f3, bK a7, yK d14, gK n8";

/// "| stalemate | draw | draw | draw | out, +20 | out, +20 | draw |"
#[test]
fn preset_table_stalemate_row() {
    for preset in CROSS_PRESETS {
        let mut game = game_from(&cross("G", STALEMATE), preset);
        let ply = play(&mut game, "m5", "i5");
        if preset.rules().format == Format::FreeForAll {
            assert_eq!(
                ply.consequences,
                [
                    Consequence::Scored {
                        army: Army::Red,
                        points: 20,
                        reason: ScoreReason::Stalemate
                    },
                    Consequence::Eliminated {
                        army: Army::Red,
                        reason: Elimination::Stalemate,
                        king_walks: false,
                        on_turn: true
                    },
                ],
                "{preset}"
            );
            assert!(!game.is_over(), "{preset}");
            assert_eq!(game.position().turn(), Army::Blue, "{preset}");
        } else {
            let stalemate = Outcome::Draw {
                reason: DrawReason::Stalemate {
                    seat: seat(Army::Red),
                },
            };
            assert_eq!(game.outcome(), Some(&stalemate), "{preset}");
        }
    }
    let mut game = game_from(&classic("w", "wK f7, wQ e6, bK h8"), Preset::Duo);
    play(&mut game, "e6", "g6");
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Draw {
            reason: DrawReason::Stalemate { seat: Seat::ALL[1] }
        })
    );
}

/// "| fifty-move rule | 200 plies | none | 200 plies | 200 plies | 200 plies | 100 plies |"
#[test]
fn preset_table_fifty_move_row() {
    let expected = [Some(200), None, Some(200), Some(200), Some(200), Some(100)];
    for (preset, plies) in Preset::ALL.into_iter().zip(expected) {
        assert_eq!(preset.rules().fifty_move_plies, plies, "{preset}");
        // One quiet move takes the count to the limit (or far past 200 where there is none).
        let clock = plies.map_or(300, |n| n - 1);
        let mut game = if preset == Preset::Duo {
            let mut game = game_from(
                &classic("w", "wK e1, wN g1, wP a2, bK e8, bP h7").clock(clock),
                preset,
            );
            play(&mut game, "g1", "f3");
            game
        } else {
            let mut game = game_from(&cross("R", KNIGHTS).clock(clock), preset);
            play(&mut game, "e1", "f3");
            game
        };
        match (plies, game.outcome()) {
            (None, None) => {
                play(&mut game, "a5", "c6");
                assert!(!game.is_over(), "{preset}");
            }
            (
                Some(_),
                Some(Outcome::Draw {
                    reason: DrawReason::FiftyMoves,
                }),
            ) => {}
            (
                Some(_),
                Some(Outcome::Standings {
                    reason: FfaEnding::Draw(DrawReason::FiftyMoves),
                    points,
                    ..
                }),
            ) => {
                assert_eq!(points.0, [10; 4], "{preset}: +10 to each player still in");
            }
            (_, outcome) => panic!("{preset}: {outcome:?}"),
        }
    }
}

/// "| threefold | draw | draw | draw | draw (+10 each still in) | draw (+10 each still in) | draw |"
#[test]
fn preset_table_threefold_row() {
    for preset in CROSS_PRESETS {
        // Yellow is out in free-for-all: it gets no bonus.
        let setup = if preset.rules().format == Format::FreeForAll {
            cross("R", KNIGHTS).out(Army::Yellow)
        } else {
            cross("R", KNIGHTS)
        };
        let mut game = game_from(&setup, preset);
        let rounds = if preset.rules().format == Format::FreeForAll {
            "e1-f3 a5-c6 n5-l6 f3-e1 c6-a5 l6-n5"
        } else {
            KNIGHT_ROUNDS
        };
        play_line(&mut game, rounds);
        play_line(&mut game, rounds);
        match game.outcome() {
            Some(Outcome::Draw {
                reason: DrawReason::Repetition,
            }) => {}
            Some(Outcome::Standings {
                reason: FfaEnding::Draw(DrawReason::Repetition),
                points,
                ..
            }) => {
                assert_eq!(points.0, [10, 10, 0, 10], "{preset}");
            }
            other => panic!("{preset}: {other:?}"),
        }
    }
    let mut game = game_from(
        &classic("w", "wK e1, wN g1, wP a2, bK e8, bN g8, bP h7"),
        Preset::Duo,
    );
    play_line(&mut game, "g1-f3 g8-f6 f3-g1 f6-g8 g1-f3 g8-f6 f3-g1");
    assert!(!game.is_over());
    play(&mut game, "f6", "g8");
    assert_drawn(&game, DrawReason::Repetition);
}

/// "| resign | team loses | team loses | needs partner's consent | out | out, king walks on | team
/// loses |"
#[test]
fn preset_table_resign_row() {
    use Resignation::*;
    let expected = [
        TeamLoses,
        TeamLoses,
        PartnerConsent,
        Out,
        OutKingWalks,
        TeamLoses,
    ];
    for (preset, resignation) in Preset::ALL.into_iter().zip(expected) {
        assert_eq!(preset.rules().resignation, resignation, "{preset}");
        let mut game = Game::new(preset.rules()).unwrap();
        // Seat 1: Blue on the cross board, B1 in Duo.
        let result = game.resign(Seat::ALL[1]).unwrap();
        match resignation {
            TeamLoses => {
                assert_eq!(result, ResignOutcome::Resigned);
                assert!(
                    matches!(
                        game.outcome(),
                        Some(Outcome::Win {
                            team: Team::RedYellow,
                            ..
                        })
                    ),
                    "{preset}"
                );
            }
            PartnerConsent => {
                assert_eq!(result, ResignOutcome::PartnerAsked);
                assert!(!game.is_over());
            }
            Out | OutKingWalks => {
                let status = if resignation == Out {
                    ArmyStatus::Out
                } else {
                    ArmyStatus::KingWalking
                };
                assert_eq!(game.position().status(Army::Blue), status, "{preset}");
                assert!(!game.is_over());
            }
        }
    }
}

/// "| friendly capture | no | no | no | n/a | n/a | yes (own army, not the king) |"
#[test]
fn preset_table_friendly_capture_row() {
    for preset in CROSS_PRESETS {
        assert!(!preset.rules().friendly_capture, "{preset}");
        let pos = position(&cross("R", &with_kings("rR e5, rN e8")), preset);
        assert!(!has_move(&pos, "e5", "e8"), "{preset}");
    }
    // "n/a": free-for-all rejects the option.
    let rules = RuleSet {
        friendly_capture: true,
        ..Preset::Ffa.rules()
    };
    assert!(matches!(
        rules.validate(),
        Err(RuleSetError::NotForFormat {
            option: "friendly_capture",
            ..
        })
    ));
    assert!(Preset::Duo.rules().friendly_capture);
}

// ---------------------------------------------------------------------------------------------
// Free-for-all.
// ---------------------------------------------------------------------------------------------

/// "**Free-for-all** (both presets): every player alone."
#[test]
fn free_for_all_every_player_is_alone() {
    let setup = cross("R", &with_kings("rR e5, yN e9"));
    for preset in [Preset::Ffa, Preset::FfaWalkingKings] {
        let pos = position(&setup, preset);
        assert!(
            has_move(&pos, "e5", "e9"),
            "{preset}: Red may take Yellow's knight"
        );
        assert!(
            Army::ALL
                .iter()
                .all(|&a| Army::ALL.iter().all(|&b| !pos.are_partners(a, b)))
        );
    }
    assert!(!has_move(&position(&setup, Preset::Teams), "e5", "e9"));
}

/// "Points: capture pawn 1, knight 3, bishop 5, rook 5, queen 9, promoted piece 1, king 20".
#[test]
fn free_for_all_capture_points_pawn_1_knight_3_bishop_5_rook_5_queen_9_promoted_1() {
    for (victim, promoted, points) in [
        ("bP", false, 1),
        ("bN", false, 3),
        ("bB", false, 5),
        ("bR", false, 5),
        ("bQ", false, 9),
        ("bQ", true, 1),
        ("bR", true, 1),
    ] {
        let mut setup = cross("R", &with_kings(&format!("rR e5, {victim} e6")));
        if promoted {
            setup = setup.promoted("e6");
        }
        let mut game = game_from(&setup, Preset::Ffa);
        let ply = play(&mut game, "e5", "e6");
        assert_eq!(
            game.points()[Army::Red],
            points,
            "{victim} promoted: {promoted}"
        );
        assert!(matches!(
            ply.consequences[..],
            [Consequence::Scored {
                reason: ScoreReason::Capture(_),
                ..
            }]
        ));
    }
    // King 20: see `king_capture_in_free_for_all_scores_20_and_puts_the_victim_out` (section 5).
}

/// "checkmate 20 to the player whose move made the position mate": here that player also gives
/// the check.
#[test]
fn checkmate_scores_20_for_the_player_whose_move_mates() {
    // Blue's rook checks Red (who can still step to h2); Yellow's rook then covers h2 and attacks
    // the king too: mate, delivered by Yellow's move.
    let setup = cross(
        "B",
        "rK h1, rP g2, rP i2, bR e5, yR c10, bK a7, yK g14, gK n8",
    );
    let mut game = game_from(&setup, Preset::Ffa);
    let ply = play(&mut game, "e5", "e1");
    assert!(ply.consequences.is_empty(), "Red can step to h2");
    let ply = play(&mut game, "c10", "h10");
    assert_eq!(ply.mates, 1);
    assert_eq!(
        ply.consequences,
        [
            Consequence::Scored {
                army: Army::Yellow,
                points: 20,
                reason: ScoreReason::Checkmate
            },
            Consequence::Eliminated {
                army: Army::Red,
                reason: Elimination::Checkmate,
                king_walks: false,
                on_turn: false
            },
        ]
    );
    // Decided at turn start (walking-kings preset): the same two attackers, and Green moves in
    // between; the points still go to the attacker who moved most recently, Yellow.
    let mut game = game_from(&setup, Preset::FfaWalkingKings);
    play_line(&mut game, "e5-e1 c10-h10");
    assert_eq!(game.position().status(Army::Red), ArmyStatus::Playing);
    play(&mut game, "n8", "n9");
    assert_eq!(game.position().status(Army::Red), ArmyStatus::Out);
    assert_eq!(game.points().0, [0, 0, 20, 0]);
}

/// "one move that checks two kings scores 5 (1 if the checking piece is a queen)".
#[test]
fn double_check_scores_5_and_1_with_a_queen() {
    // A knight forks Blue's and Green's kings.
    let mut game = game_from(
        &cross("R", "rK h1, rN e5, bK d8, yK g14, gK h8"),
        Preset::Ffa,
    );
    let ply = play(&mut game, "e5", "f7");
    assert_eq!(ply.checks, ArmySet::single(Army::Blue).with(Army::Green));
    assert_eq!(
        ply.consequences,
        scored(Army::Red, 5, ScoreReason::DoubleCheck)
    );
    // A queen on the rank between them.
    let mut game = game_from(
        &cross("R", "rK h1, rQ f5, bK d8, yK g14, gK h8"),
        Preset::Ffa,
    );
    let ply = play(&mut game, "f5", "f8");
    assert_eq!(ply.checks.len(), 2);
    assert_eq!(
        ply.consequences,
        scored(Army::Red, 1, ScoreReason::DoubleCheck)
    );
}

/// "(1 if the checking piece is a queen)". Choice where RULES.md leaves room: if a queen is among
/// the pieces giving the checks, after promotion too, so a pawn promoting to a queen with a double
/// check scores 1.
#[test]
fn double_check_with_a_queen_scores_1_even_when_the_queen_was_just_promoted() {
    let mut game = game_from(
        &cross("R", "rK h1, rP e7, bK b8, yK g14, gK l8"),
        Preset::Ffa,
    );
    let ply = play_promotion(&mut game, "e7", "e8", Role::Queen);
    assert_eq!(ply.checks, ArmySet::single(Army::Blue).with(Army::Green));
    assert_eq!(
        ply.consequences,
        scored(Army::Red, 1, ScoreReason::DoubleCheck)
    );
}

/// "three kings 20 (5 with a queen)".
#[test]
fn triple_check_scores_20_and_5_with_a_queen() {
    // The knight forks Blue (f8) and Green (i5) and uncovers the bishop's diagonal to Yellow (k11).
    let mut game = game_from(
        &cross("R", "rK h1, rN h8, rB f6, bK f8, yK k11, gK i5"),
        Preset::Ffa,
    );
    let ply = play(&mut game, "h8", "g6");
    assert_eq!(ply.checks.len(), 3);
    assert_eq!(
        ply.consequences,
        scored(Army::Red, 20, ScoreReason::TripleCheck)
    );
    // A queen on g8 sees d8, k8 and g11.
    let mut game = game_from(
        &cross("R", "rK h1, rQ c4, bK d8, yK g11, gK k8"),
        Preset::Ffa,
    );
    let ply = play(&mut game, "c4", "g8");
    assert_eq!(ply.checks.len(), 3);
    assert_eq!(
        ply.consequences,
        scored(Army::Red, 5, ScoreReason::TripleCheck)
    );
}

/// "Checks are counted, scored and marked (`+`, `++`, `+++`) only for kings that the move itself
/// puts in check, not for kings already attacked before it." The issue's example: Green's knight
/// leaves d7, uncovering Red's rooks on Blue's and Yellow's kings; Red's quiet king move then
/// checks nobody.
#[test]
fn checks_count_only_the_kings_the_move_itself_puts_in_check() {
    let setup = cross("G", "rK h1, rR d3, rR f7, gN d7, bK a7, yK d14, gK n8");
    let mut game = game_from(&setup, Preset::Ffa);
    let ply = play(&mut game, "d7", "f8");
    // Green's move put both kings in check (with Red's rooks), and is marked so; the bonus is
    // for the mover's own checks only.
    assert_eq!(ply.checks, ArmySet::single(Army::Blue).with(Army::Yellow));
    assert_eq!(ply.text, "Nd7-f8++");
    assert!(ply.consequences.is_empty(), "{:?}", ply.consequences);
    let ply = play(&mut game, "h1", "i1");
    assert!(ply.checks.is_empty());
    assert_eq!(ply.text, "Kh1-i1");
    assert!(ply.consequences.is_empty(), "{:?}", ply.consequences);
    assert_eq!(game.points().0, [0; 4]);
    // "in every preset": Teams marks the same way (Yellow is Red's partner there).
    let mut game = game_from(&setup, Preset::Teams);
    assert_eq!(play(&mut game, "d7", "f8").text, "Nd7-f8+");
    assert_eq!(play(&mut game, "h1", "i1").text, "Kh1-i1");
}

/// "checkmate 20 to the player whose move made the position mate (the move chess.com marks `#`;
/// when Green checks Yellow and Red's next move takes Yellow's last escape, Red scores)".
#[test]
fn checkmate_points_go_to_the_player_whose_move_made_the_position_mate() {
    // Green's knight checks Yellow; Red's bishop already covers f14, so h14 is Yellow's last
    // escape, and Red's knight takes it.
    let setup = cross(
        "G",
        "rK h1, rN e11, rB d12, bK a7, yK g14, yP f13, yP g13, yP h13, gN j11, gK n8",
    );
    let mut game = game_from(&setup, Preset::Ffa);
    let ply = play(&mut game, "j11", "i13");
    assert_eq!(ply.text, "Nj11-i13+");
    assert!(ply.consequences.is_empty(), "Yellow can still step to h14");
    let ply = play(&mut game, "e11", "g12");
    assert_eq!(ply.text, "Ne11-g12#");
    assert_eq!(ply.mates, 1);
    assert_eq!(
        ply.consequences,
        [
            Consequence::Scored {
                army: Army::Red,
                points: 20,
                reason: ScoreReason::Checkmate
            },
            Consequence::Eliminated {
                army: Army::Yellow,
                reason: Elimination::Checkmate,
                king_walks: false,
                on_turn: false
            }
        ]
    );
    assert_eq!(game.points().0, [20, 0, 0, 0]);
}

/// "a single check scores nothing."
#[test]
fn a_single_check_scores_nothing() {
    let mut game = game_from(
        &cross("R", "rK h1, rQ f5, bK d8, yK g14, gK n11"),
        Preset::Ffa,
    );
    let ply = play(&mut game, "f5", "f8");
    assert_eq!(ply.checks, ArmySet::single(Army::Blue));
    assert!(ply.consequences.is_empty());
    assert_eq!(game.points().0, [0; 4]);
}

/// "An out player's pieces turn grey: they stay, never move, never attack, and capturing them
/// scores nothing."
#[test]
fn grey_pieces_stay_never_move_never_attack_and_score_nothing() {
    let setup = cross("R", &with_kings("rR e5, bR h6, bN b5"));
    let mut game = game_from(&setup, Preset::Ffa);
    // Blue's rook pins nothing and checks nothing once Blue is out.
    game.resign(seat(Army::Blue)).unwrap();
    assert_eq!(
        piece_on(game.position(), "h6"),
        Some(Piece::new(Army::Blue, Role::Rook)),
        "stays"
    );
    assert!(
        has_move(game.position(), "h1", "h2"),
        "h2 is on the grey rook's file"
    );
    play(&mut game, "e5", "e6");
    assert_eq!(
        game.position().turn(),
        Army::Yellow,
        "Blue's seat is skipped: its pieces never move"
    );
    play_line(&mut game, "g14-g13 n8-n7");
    let ply = play(&mut game, "e6", "h6");
    assert_eq!(ply.captured, Some(Piece::new(Army::Blue, Role::Rook)));
    assert!(ply.consequences.is_empty());
    assert_eq!(game.points()[Army::Red], 0);
}

/// "An out player's pieces turn grey: they stay, never move, never attack, and anyone may capture
/// them, the grey king included, for nothing".
#[test]
fn a_grey_king_is_captured_by_anyone_for_nothing() {
    let setup = cross("R", "rK h1, rR a5, bK a7, bN a6, yK g14, gK n8").out(Army::Blue);
    let mut game = game_from(&setup, Preset::Ffa);
    play_line(&mut game, "a5-a6 g14-g13 n8-n7");
    let ply = play(&mut game, "a6", "a7");
    assert_eq!(ply.captured, Some(Piece::new(Army::Blue, Role::King)));
    assert!(ply.consequences.is_empty(), "{:?}", ply.consequences);
    assert_eq!(game.points().0, [0; 4]);
    assert_eq!(game.position().status(Army::Blue), ArmyStatus::Out);
    assert!(!game.is_over());
}

/// "... a walking king may capture grey pieces too", its own army's included.
#[test]
fn a_walking_king_captures_grey_pieces_its_own_included() {
    let setup = cross(
        "B",
        "rK h1, rN e1, bK a7, bP b7, yK g14, yN e14, gK n8, gN n5",
    )
    .status(Army::Blue, ArmyStatus::KingWalking);
    let mut game = game_from(&setup, Preset::FfaWalkingKings);
    let take = mv(game.position(), "a7", "b7");
    let ply = game.walk_king_with(take).unwrap().clone();
    assert_eq!(ply.captured, Some(Piece::new(Army::Blue, Role::Pawn)));
    assert!(ply.consequences.is_empty(), "{:?}", ply.consequences);
    assert_eq!(game.points().0, [0; 4]);
}

/// "| mate decided | ... | at once, after any move | ...". Choice where RULES.md leaves room: "at
/// once" is for mates only; a stalemate is decided at the victim's turn start (section 5), so a
/// move in between can free the player.
#[test]
fn free_for_all_mate_at_once_is_for_mates_only_and_stalemate_waits_for_the_turn() {
    // Blue's rook to m4 leaves Green's king (n8) without a move but not attacked.
    let setup = cross(
        "B",
        "rK h1, bK b11, bR c7, bR c9, bR d4, yB a5, yK g14, gK n8",
    );
    let mut game = game_from(&setup, Preset::Ffa);
    let ply = play(&mut game, "d4", "m4");
    assert!(ply.consequences.is_empty());
    assert_eq!(game.position().status(Army::Green), ArmyStatus::Playing);
    // Yellow takes the rook on c7 (5 points), which frees n7.
    play(&mut game, "a5", "c7");
    assert_eq!(game.to_move(), Some(seat(Army::Green)));
    assert_eq!(targets(game.position(), "n8"), ["n7"]);
}

/// "`ffa-walking-kings`: a player who resigns (or times out) is out, but their king walks on by
/// itself (a random legal king move on its turn) until checkmated".
#[test]
fn walking_kings_a_resigned_players_king_walks_on_by_itself() {
    let mut game = game_from(&cross("R", KNIGHTS), Preset::FfaWalkingKings);
    game.resign(seat(Army::Blue)).unwrap();
    assert_eq!(game.position().status(Army::Blue), ArmyStatus::KingWalking);
    assert!(!game.is_in_game(seat(Army::Blue)));
    play(&mut game, "e1", "f3");
    assert!(game.walking_king_to_move());
    assert!(
        game.legal_moves().is_empty(),
        "nobody chooses the walking king's move"
    );
    let knight = Move::new(sq("a5"), sq("c6"), MoveKind::Normal, None);
    assert_eq!(
        game.play(seat(Army::Blue), knight).map(|_| ()),
        Err(GameError::WalkingKing)
    );
    let expected = game.walking_king_move().unwrap();
    let ply = game.walk_king().unwrap().clone();
    assert!(ply.walking);
    assert_eq!(ply.mv, expected);
    assert_eq!(ply.piece, Piece::new(Army::Blue, Role::King));
    assert_eq!(
        piece_on(game.position(), "a5"),
        Some(Piece::new(Army::Blue, Role::Knight)),
        "grey knight stays"
    );
    // Timing out has the same effect.
    game.time_out(seat(Army::Green)).unwrap();
    assert_eq!(game.position().status(Army::Green), ArmyStatus::KingWalking);
}

/// "... until checkmated".
#[test]
fn walking_kings_walk_until_checkmated() {
    // Blue's king walks; Yellow's rook on b11 holds the b-file, and the other one mates it down
    // the a-file.
    let setup = cross("Y", "rK h1, bK a7, yR b11, yR d10, yK g14, gK n8")
        .status(Army::Blue, ArmyStatus::KingWalking);
    let mut game = game_from(&setup, Preset::FfaWalkingKings);
    play_line(&mut game, "d10-a10 n8-n9");
    assert_eq!(game.position().status(Army::Blue), ArmyStatus::KingWalking);
    let ply = play(&mut game, "h1", "g1");
    assert!(ply.consequences.contains(&Consequence::Eliminated {
        army: Army::Blue,
        reason: Elimination::Checkmate,
        king_walks: false,
        on_turn: true
    }));
    assert_eq!(game.position().status(Army::Blue), ArmyStatus::Out);
    assert_eq!(game.points()[Army::Yellow], 20);
    assert!(!game.is_over());
}

/// "| stalemate | ... | out, +20 | out, +20 | ...". Choice where RULES.md leaves room: a walking
/// king's player is already out and scores nothing more, so its stalemate's 20 are shared by the
/// players still in, as chess.com scores it (7 each for three, 10 each for two: the real games of
/// `tests/data/chesscom` show both).
#[test]
fn walking_kings_a_stalemated_walking_kings_20_are_shared_by_the_players_still_in() {
    // Yellow's knight on c7 covers a6 and a8; its rook on b11 holds the b-file.
    let setup = cross("Y", "rK h1, bK a7, yR b11, yN e8, yK g14, gK n8")
        .status(Army::Blue, ArmyStatus::KingWalking);
    let mut game = game_from(&setup, Preset::FfaWalkingKings);
    play_line(&mut game, "e8-c7 n8-n9");
    let ply = play(&mut game, "h1", "g1");
    let share = |army| Consequence::Scored {
        army,
        points: 7,
        reason: ScoreReason::WalkingKingStalemate,
    };
    assert_eq!(
        ply.consequences,
        [
            share(Army::Red),
            share(Army::Yellow),
            share(Army::Green),
            Consequence::Eliminated {
                army: Army::Blue,
                reason: Elimination::Stalemate,
                king_walks: false,
                on_turn: true
            }
        ]
    );
    assert_eq!(game.points().0, [7, 0, 7, 7]);
}

/// "when three players are out the last one gets 20 for every king still walking."
#[test]
fn walking_kings_the_last_player_gets_20_for_every_king_still_walking() {
    let mut game = game_from(&cross("R", KNIGHTS), Preset::FfaWalkingKings);
    game.resign(seat(Army::Blue)).unwrap();
    game.resign(seat(Army::Yellow)).unwrap();
    assert!(!game.is_over());
    game.resign(seat(Army::Green)).unwrap();
    let (points, winners, reason) = standings(&game);
    assert_eq!(points, [60, 0, 0, 0]);
    assert_eq!(winners, ArmySet::single(Army::Red));
    assert_eq!(reason, FfaEnding::LastPlayer);
}

/// "The game ends when three players are out".
#[test]
fn free_for_all_ends_when_three_players_are_out() {
    let mut game = game_from(&cross("R", KNIGHTS).points(Army::Blue, 9), Preset::Ffa);
    game.resign(seat(Army::Red)).unwrap();
    game.resign(seat(Army::Yellow)).unwrap();
    assert!(!game.is_over());
    game.resign(seat(Army::Green)).unwrap();
    let (_, winners, reason) = standings(&game);
    assert_eq!(reason, FfaEnding::LastPlayer);
    assert_eq!(winners, ArmySet::single(Army::Blue));
}

/// Blue and Yellow out; Red's rook can take Green's pawn (1 point).
fn two_left(red: i32, blue: i32) -> Setup {
    cross("R", "rK h1, rR e5, bK a7, yK g14, gK n8, gP m5")
        .out(Army::Blue)
        .out(Army::Yellow)
        .points(Army::Red, red)
        .points(Army::Blue, blue)
}

/// "... or when two remain and the leader is more than 20 points ahead of the other and no one out
/// has more points than the leader".
#[test]
fn free_for_all_ends_when_the_leader_of_the_last_two_is_more_than_20_ahead() {
    // 21 ahead: over.
    let mut game = game_from(&two_left(20, 0), Preset::Ffa);
    play(&mut game, "e5", "m5");
    let (_, winners, reason) = standings(&game);
    assert_eq!(
        (reason, winners),
        (FfaEnding::Lead, ArmySet::single(Army::Red))
    );
    // Exactly 20 ahead: not yet.
    let mut game = game_from(&two_left(19, 0), Preset::Ffa);
    play(&mut game, "e5", "m5");
    assert!(!game.is_over());
    // 21 ahead, but Blue, who is out, has more: not yet.
    let mut game = game_from(&two_left(20, 22), Preset::Ffa);
    play(&mut game, "e5", "m5");
    assert!(!game.is_over());
}

/// "most points wins (ties share)."
#[test]
fn free_for_all_most_points_wins_and_ties_share() {
    let setup = cross("R", KNIGHTS)
        .points(Army::Red, 10)
        .points(Army::Yellow, 10)
        .points(Army::Green, 4);
    let mut game = game_from(&setup, Preset::Ffa);
    for army in [Army::Blue, Army::Green, Army::Yellow] {
        game.resign(seat(army)).unwrap();
    }
    let (_, winners, _) = standings(&game);
    assert_eq!(winners, ArmySet::single(Army::Red).with(Army::Yellow));
}

/// "A draw (threefold, fifty-move, kings only) gives +10 to each player still in, then points
/// decide."
#[test]
fn free_for_all_a_draw_gives_10_to_each_player_still_in_then_points_decide() {
    let setup = cross("R", KNIGHTS)
        .out(Army::Blue)
        .points(Army::Blue, 14)
        .points(Army::Green, 3)
        .clock(199);
    let mut game = game_from(&setup, Preset::Ffa);
    play(&mut game, "e1", "f3");
    let (points, winners, reason) = standings(&game);
    assert_eq!(reason, FfaEnding::Draw(DrawReason::FiftyMoves));
    assert_eq!(points, [10, 14, 10, 13]);
    assert_eq!(winners, ArmySet::single(Army::Blue));
}

// ---------------------------------------------------------------------------------------------
// Duo.
// ---------------------------------------------------------------------------------------------

/// "**Duo** (2 against 2 on the classic board): White is played by W1 and W2, Black by B1 and B2;
/// the order is W1 → B1 → W2 → B2."
#[test]
fn duo_seats_move_in_the_order_w1_b1_w2_b2() {
    let mut game = Game::new(Preset::Duo.rules()).unwrap();
    let mut order = Vec::new();
    for (from, to) in [
        ("e2", "e4"),
        ("e7", "e5"),
        ("g1", "f3"),
        ("b8", "c6"),
        ("f1", "c4"),
    ] {
        let seat = game.to_move().unwrap();
        order.push((seat.name(Format::Duo), game.army_of(seat)));
        play(&mut game, from, to);
    }
    assert_eq!(
        order,
        [
            ("W1", Army::WHITE),
            ("B1", Army::BLACK),
            ("W2", Army::WHITE),
            ("B2", Army::BLACK),
            ("W1", Army::WHITE)
        ]
    );
}

/// "On their turn either teammate may move any piece of their colour."
#[test]
fn duo_either_teammate_may_move_any_piece_of_their_colour() {
    let mut game = Game::new(Preset::Duo.rules()).unwrap();
    play_line(&mut game, "g1-f3 g8-f6");
    // W2 moves the knight W1 moved, B2 the knight B1 moved.
    assert_eq!(game.to_move(), Some(Seat::ALL[2]));
    play_line(&mut game, "f3-g5 f6-g4");
    // And W1 may move a piece nobody has touched, or the same knight again.
    assert!(has_move(game.position(), "g5", "f7") && has_move(game.position(), "b1", "c3"));
    // A seat may not move for its teammate.
    let knight = mv(game.position(), "b1", "c3");
    assert!(matches!(
        game.play(Seat::ALL[2], knight),
        Err(GameError::NotYourTurn { .. })
    ));
}

/// "Standard chess rules otherwise (castling, en passant, promotion)".
#[test]
fn duo_castling_en_passant_and_promotion_are_as_in_chess() {
    // Castling on both sides.
    for (to, rook_from, rook_to) in [("g1", "h1", "f1"), ("c1", "a1", "d1")] {
        let setup = classic("w", "wK e1, wR a1, wR h1, bK e8").castling_both(Army::WHITE);
        let mut game = game_from(&setup, Preset::Duo);
        play(&mut game, "e1", to);
        assert_eq!(
            piece_on(game.position(), rook_to),
            Some(Piece::new(Army::WHITE, Role::Rook))
        );
        assert_eq!(piece_on(game.position(), rook_from), None);
    }
    // En passant: only on the very next turn (B1 after W1's double step), not after W2 has moved.
    let setup = classic("w", "wK e1, wP e2, bK e8, bP d4");
    let mut game = game_from(&setup, Preset::Duo);
    play(&mut game, "e2", "e4");
    assert_eq!(mv(game.position(), "d4", "e3").kind(), MoveKind::EnPassant);
    play_line(&mut game, "e8-d8 e1-f1");
    assert!(!has_move(game.position(), "d4", "e3"));
    // Promotion on the 8th rank to any of queen, rook, bishop, knight.
    let pos = position(&classic("w", "wK e1, wP b7, bK h8"), Preset::Duo);
    assert_eq!(
        promotions(&pos, "b7", "b8"),
        [Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
    );
}

/// "plus friendly capture: a player may capture a piece of their own colour except the king. The
/// king itself makes no friendly captures unless the room turns that on (so chess's mates stay
/// mates)."
#[test]
fn duo_friendly_capture_of_an_own_piece_but_never_the_own_king() {
    let setup = classic("w", "wK e1, wR a1, wN a4, bK e8");
    let mut game = game_from(&setup, Preset::Duo);
    assert!(!has_move(game.position(), "a1", "e1"));
    assert_eq!(
        targets(game.position(), "a1"),
        ["b1", "c1", "d1", "a2", "a3", "a4"]
    );
    let ply = play(&mut game, "a1", "a4");
    assert_eq!(ply.captured, Some(Piece::new(Army::WHITE, Role::Knight)));
    assert!(!game.is_over());
    // The king takes none of its own pieces: behind its own pawns a back-rank mate is mate, as
    // in chess.
    let setup = classic("w", "wK g1, wR a1, bK g8, bP f7, bP g7, bP h7");
    let mut game = game_from(&setup, Preset::Duo);
    play(&mut game, "a1", "a8");
    assert_eq!(
        game.outcome(),
        Some(&Outcome::Win {
            team: Team::WHITE,
            reason: WinReason::Checkmate {
                mated: Seat::ALL[1]
            }
        })
    );
    // Fool's mate is mate.
    let mut game = Game::new(Preset::Duo.rules()).unwrap();
    play_line(&mut game, "f2-f3 e7-e5 g2-g4 d8-h4");
    assert!(game.is_over());
    // With the room option the king may take an own piece, and the same back rank is no mate:
    // the king eats a pawn in front of it.
    let rules = RuleSet {
        king_friendly_capture: true,
        ..Preset::Duo.rules()
    };
    let mut game = Game::from_setup(&setup, rules, 0).unwrap();
    play(&mut game, "a1", "a8");
    assert!(!game.is_over());
    assert_eq!(targets(game.position(), "g8"), ["f7", "g7", "h7"]);
}

/// "Mate of the shared king on the mover's turn ends the game."
#[test]
fn duo_mate_of_the_shared_king_ends_the_game() {
    let mut game = game_from(&classic("w", "wK f6, wQ g1, bK h8"), Preset::Duo);
    play(&mut game, "g1", "g7");
    let outcome = game.outcome().unwrap();
    let mated = Seat::ALL[1];
    assert_eq!(
        outcome,
        &Outcome::Win {
            team: Team::WHITE,
            reason: WinReason::Checkmate { mated }
        }
    );
    assert_eq!(game.to_move(), None);
    // The winning team plays one army: White.
    assert_eq!(
        outcome.winning_armies(Format::Duo),
        ArmySet::single(Army::WHITE)
    );
}

/// "Draws: stalemate, insufficient material, fifty-move (100 plies), threefold."
/// (Stalemate and threefold: see the table rows above; insufficient material and the fifty-move
/// rule: section 6.) Threefold needs "the same player to move" (section 6): in Duo W1 and W2 are
/// different players, so the seat counts, not only the colour.
#[test]
fn duo_repetition_needs_the_same_seat_to_move() {
    // Both kings walk a triangle (three moves each): the start placement is back every 6 plies,
    // with W2 and W1 to move in turn.
    let setup = classic("w", "wK e1, wP a2, bK e8, bP h7");
    let mut game = game_from(&setup, Preset::Duo);
    let triangle = "e1-e2 e8-e7 e2-d1 e7-d8 d1-e1 d8-e8";
    play_line(&mut game, triangle);
    play_line(&mut game, triangle);
    assert_eq!(game.to_move(), Some(Seat::ALL[0]));
    assert!(
        !game.is_over(),
        "the placement's third time, but only W1's second"
    );
    play_line(&mut game, triangle);
    play_line(&mut game, "e1-e2 e8-e7 e2-d1 e7-d8 d1-e1");
    assert!(!game.is_over());
    play(&mut game, "d8", "e8");
    assert_drawn(&game, DrawReason::Repetition);
}

/// "An out player's pieces turn grey" and a player who resigned is out: a walking king may still
/// capture, but the player it belongs to scores nothing more (choice where RULES.md leaves room).
#[test]
fn walking_kings_capture_but_score_nothing() {
    let setup = cross(
        "R",
        "rK h1, rN e1, bK a7, yN b8, yK g14, yN e14, gK n8, gN n5",
    )
    .status(Army::Blue, ArmyStatus::KingWalking);
    let mut game = game_from(&setup, Preset::FfaWalkingKings);
    play(&mut game, "e1", "f3");
    let capture = mv(game.position(), "a7", "b8");
    let ply = game.walk_king_with(capture).unwrap().clone();
    assert_eq!(ply.captured, Some(Piece::new(Army::Yellow, Role::Knight)));
    assert!(ply.consequences.is_empty(), "{:?}", ply.consequences);
    assert_eq!(game.points()[Army::Blue], 0);
}

/// "Rotate the first player (room option, on by default): on each rematch the first seat moves
/// one place. In Duo the people move round the seats instead: White always moves first." Any
/// cross-board seat may open; in Duo W1 or W2 (for White), never a Black seat.
#[test]
fn any_seat_may_move_first() {
    let game = Game::starting_at(Preset::Teams.rules(), Seat::ALL[2], 1).unwrap();
    assert_eq!(game.to_move(), Some(Seat::ALL[2]));
    assert_eq!(game.position().turn(), Army::Yellow);
    let mut duo = Game::starting_at(Preset::Duo.rules(), Seat::ALL[2], 1).unwrap();
    assert_eq!(duo.to_move(), Some(Seat::ALL[2]), "W2 opens");
    let mv = duo.legal_moves()[0];
    duo.play(Seat::ALL[2], mv).unwrap();
    assert_eq!(duo.to_move(), Some(Seat::ALL[3]), "then B2");
    for black in [Seat::ALL[1], Seat::ALL[3]] {
        assert_eq!(
            Game::starting_at(Preset::Duo.rules(), black, 1).map(|_| ()),
            Err(RuleSetError::FirstArmy(Army::BLACK)),
            "White moves first in every Duo game"
        );
    }
}
