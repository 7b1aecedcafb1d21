//! Runs the perft data files in `tests/data/*.perft`: one test per file.
//!
//! # File format
//!
//! Line by line; blank lines and lines starting with `#` are ignored.
//!
//! - `id <name>`: names the next position in failure messages (optional).
//! - `fen <FEN>`: a position on the classic board; its rules default to Duo with friendly capture
//!   switched off, which is standard chess.
//! - `start <preset>`: the standard start position under the preset's rules.
//! - `rules <preset> [option…]`: the rules for the current position, set after its `fen` or
//!   `start` line and before its first `perft` line. Options switch a rule on or off: `+name` or
//!   `-name` for `castling`, `en-passant`, `king-capture`, `friendly-capture`, `breakthrough`;
//!   `promotion=all|queen|minor`; `promotion-rank=N`.
//! - `perft <depth> <nodes>`: the number of move sequences of `depth` plies from the position.

use std::fmt::Write as _;
use std::time::Instant;

use fourkings_engine::notation::Fen;
use fourkings_engine::{Position, Preset, PromotionSet, RuleSet, perft};

/// How a position is named in its file.
enum Source {
    Fen(Fen),
    /// The standard start position of the rules' board.
    Start,
}

/// One position of a file and what is expected of it.
struct Case {
    /// The line the position starts on.
    line: usize,
    name: String,
    source: Source,
    rules: RuleSet,
    /// `(line, depth, nodes)`.
    expected: Vec<(usize, u32, u64)>,
}

fn chess_rules() -> RuleSet {
    RuleSet {
        friendly_capture: false,
        ..Preset::Duo.rules()
    }
}

fn parse_rules(args: &str) -> Result<RuleSet, String> {
    let mut words = args.split_whitespace();
    let preset: Preset = words
        .next()
        .ok_or("rules needs a preset name")?
        .parse()
        .map_err(|e| format!("{e}"))?;
    let mut rules = preset.rules();
    for word in words {
        if let Some(value) = word.strip_prefix("promotion=") {
            rules.promotion = match value {
                "all" => PromotionSet::All,
                "queen" => PromotionSet::QueenOnly,
                "minor" => PromotionSet::Minor,
                _ => return Err(format!("unknown promotion set {value:?}")),
            };
            continue;
        }
        if let Some(value) = word.strip_prefix("promotion-rank=") {
            rules.promotion_rank = value
                .parse()
                .map_err(|_| format!("bad promotion rank {value:?}"))?;
            continue;
        }
        let (on, name) = match word.split_at_checked(1) {
            Some(("+", name)) => (true, name),
            Some(("-", name)) => (false, name),
            _ => return Err(format!("option {word:?} is not +name, -name or key=value")),
        };
        let flag = match name {
            "castling" => &mut rules.castling,
            "en-passant" => &mut rules.en_passant,
            "king-capture" => &mut rules.king_capture,
            "friendly-capture" => &mut rules.friendly_capture,
            "king-friendly-capture" => &mut rules.king_friendly_capture,
            "breakthrough" => &mut rules.pawn_breakthrough,
            _ => return Err(format!("unknown rule option {name:?}")),
        };
        *flag = on;
    }
    Ok(rules)
}

/// Reads a perft file into its cases.
fn parse_file(text: &str) -> Result<Vec<Case>, String> {
    let mut cases: Vec<Case> = Vec::new();
    let mut next_name: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let at = |msg: String| format!("line {line}: {msg}");
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let (keyword, args) = raw.split_once(char::is_whitespace).unwrap_or((raw, ""));
        let args = args.trim();
        match keyword {
            "id" => next_name = Some(args.to_owned()),
            "fen" | "start" => {
                let (source, rules) = if keyword == "fen" {
                    (
                        Source::Fen(args.parse().map_err(|e| at(format!("{e}")))?),
                        chess_rules(),
                    )
                } else {
                    let preset: Preset = args.parse().map_err(|e| at(format!("{e}")))?;
                    (Source::Start, preset.rules())
                };
                let name = next_name.take().unwrap_or_else(|| raw.to_owned());
                cases.push(Case {
                    line,
                    name,
                    source,
                    rules,
                    expected: Vec::new(),
                });
            }
            "rules" => {
                let case = cases
                    .last_mut()
                    .ok_or_else(|| at("rules before any position".into()))?;
                if !case.expected.is_empty() {
                    return Err(at("rules after perft lines".into()));
                }
                case.rules = parse_rules(args).map_err(at)?;
            }
            "perft" => {
                let case = cases
                    .last_mut()
                    .ok_or_else(|| at("perft before any position".into()))?;
                let mut nums = args.split_whitespace().map(str::parse::<u64>);
                match (nums.next(), nums.next(), nums.next()) {
                    (Some(Ok(depth)), Some(Ok(nodes)), None) => {
                        case.expected.push((line, depth as u32, nodes))
                    }
                    _ => {
                        return Err(at(format!(
                            "expected `perft <depth> <nodes>`, found {raw:?}"
                        )));
                    }
                }
            }
            _ => return Err(at(format!("unknown keyword {keyword:?}"))),
        }
    }
    Ok(cases)
}

/// Runs every case of a file, reporting all failures at once.
fn run_file(file: &str, text: &str) {
    let cases = parse_file(text).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert!(!cases.is_empty(), "{file}: no positions");
    let started = Instant::now();
    let mut failures = String::new();
    let mut total = 0;
    for case in &cases {
        let mut pos = match &case.source {
            Source::Fen(fen) => fen.position(&case.rules),
            Source::Start => Position::new(&case.rules),
        }
        .unwrap_or_else(|e| {
            panic!(
                "{file}:{}: {}: not a legal position: {e}",
                case.line, case.name
            )
        });
        assert!(
            !case.expected.is_empty(),
            "{file}:{}: {}: no perft lines",
            case.line,
            case.name
        );
        for &(line, depth, nodes) in &case.expected {
            let got = perft(&mut pos, depth);
            total += got;
            if got != nodes {
                let _ = writeln!(
                    failures,
                    "{file}:{line}: {}: perft {depth} = {got}, expected {nodes} (off by {})",
                    case.name,
                    got as i64 - nodes as i64
                );
            }
        }
    }
    println!(
        "{file}: {} positions, {total} nodes in {:.2?}",
        cases.len(),
        started.elapsed()
    );
    assert!(failures.is_empty(), "perft mismatches:\n{failures}");
}

macro_rules! perft_files {
    ($($test:ident => $file:literal),* $(,)?) => {
        $(
            #[test]
            fn $test() {
                run_file($file, include_str!(concat!("data/", $file)));
            }
        )*

        /// Every data file has a test above, so none is skipped silently.
        #[test]
        fn every_data_file_is_run() {
            let listed = [$($file),*];
            let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
            for entry in std::fs::read_dir(dir).unwrap() {
                let name = entry.unwrap().file_name().into_string().unwrap();
                if name.ends_with(".perft") {
                    assert!(listed.contains(&name.as_str()), "{name} has no test in perft_data.rs");
                }
            }
        }
    };
}

perft_files! {
    chess => "chess.perft",
    chess_tricky => "chess-tricky.perft",
    cross => "cross.perft",
    duo => "duo.perft",
}

#[test]
fn the_format_is_checked() {
    assert!(parse_file("perft 1 20").is_err());
    assert!(parse_file("start teams\nperft 1").is_err());
    assert!(parse_file("start nonsense").is_err());
    assert!(parse_file("fen 8/8 w - - 0 1").is_err());
    assert!(parse_file("start teams\nperft 1 20\nrules teams").is_err());
    assert!(parse_file("start teams\nrules teams +nonsense").is_err());
    let cases = parse_file(
        "# c\n\nid x\nstart duo\nrules duo -friendly-capture promotion=minor\nperft 1 20\n",
    )
    .unwrap();
    assert_eq!(cases.len(), 1);
    assert_eq!(cases[0].name, "x");
    assert!(!cases[0].rules.friendly_capture);
    assert_eq!(cases[0].rules.promotion, PromotionSet::Minor);
    assert_eq!(cases[0].expected, vec![(6, 1, 20)]);
}
