//! The strength levels: how much each may search and how it errs.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use thiserror::Error;

/// How strongly the bot plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Level {
    /// A beginner: a shallow look, and now and then a move a person might play without looking
    /// closely.
    Easy,
    /// A decent club player.
    #[default]
    Medium,
    /// As strong as the budget allows.
    Hard,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    /// The level's name (`easy`, `medium`, `hard`).
    pub const fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }

    /// What the level may spend and how it errs.
    pub const fn settings(self) -> LevelSettings {
        match self {
            Level::Easy => LevelSettings {
                nodes: Some(3_000),
                time: Duration::from_millis(300),
                max_depth: 2,
                noise: 90,
                blunder_percent: 10,
                options: SearchOptions::DEFAULT,
            },
            Level::Medium => LevelSettings {
                nodes: Some(20_000),
                time: Duration::from_millis(1_500),
                max_depth: 64,
                noise: 0,
                blunder_percent: 0,
                options: SearchOptions::DEFAULT,
            },
            Level::Hard => LevelSettings {
                nodes: None,
                time: Duration::from_millis(1_000),
                max_depth: 64,
                noise: 0,
                blunder_percent: 0,
                options: SearchOptions::DEFAULT,
            },
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a level.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown level {0:?}: expected easy, medium or hard")]
pub struct ParseLevelError(pub String);

impl FromStr for Level {
    type Err = ParseLevelError;

    fn from_str(s: &str) -> Result<Level, ParseLevelError> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s))
            .ok_or_else(|| ParseLevelError(s.to_owned()))
    }
}

/// What one level may spend on a move, and how it errs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LevelSettings {
    /// Nodes per move, if the level counts them. A node budget keeps the level's strength the
    /// same on any machine and under any load, and its time budget only guards against slow
    /// machines; a level without one (hard) thinks for its time, or for less when the caller's
    /// limits (the turn limit, the clock) leave less.
    pub nodes: Option<u64>,
    /// What a move may take: the search stops there once its choice looks settled, and thinks
    /// on while its best move keeps changing or its score falls, up to three times as long (a
    /// caller's shorter time always wins).
    pub time: Duration,
    /// The deepest iteration (plies).
    pub max_depth: u8,
    /// Seeded noise, in centipawns, added to each root move's score: a player who does not
    /// calculate exactly. 0 plays the best move found.
    pub noise: i32,
    /// Percent of moves where the bot settles for the second or third choice, as a person who
    /// overlooks something might.
    pub blunder_percent: u8,
    /// Which pruning techniques the search uses.
    pub options: SearchOptions,
}

/// The pruning techniques a search may use, each switchable so that its worth can be measured
/// (`fourkings arena` plays one setting against another, naming them as in [`SearchOptions::NAMES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SearchOptions {
    /// Late move reductions: quiet moves late in the ordering are first searched a ply or two
    /// shallower, and again at full depth only if they look good.
    pub late_move_reductions: bool,
    /// Null-move pruning (Teams and Duo only): if passing the turn still leaves the side to move
    /// above the window, the position is not searched further.
    pub null_move: bool,
    /// Aspiration windows: each iteration first searches a narrow window around the previous
    /// iteration's score, and again with the full window only if the score falls outside.
    pub aspiration: bool,
    /// Late move pruning: near the leaves, once a move is in hand, quiet moves far down the
    /// ordering are not searched at all (the side to move not in check).
    pub late_move_pruning: bool,
    /// Principal variation search: after the first move, each move is first searched with a
    /// null window (can it beat the best so far at all?) and again with the full window only
    /// if it can.
    pub principal_variation: bool,
    /// Futility pruning: near the leaves, a position whose static value is far beyond the
    /// window is not searched further, and quiet moves that cannot lift a position far below
    /// it are skipped.
    pub futility: bool,
    /// Check extensions: a move that checks the next player is searched a ply deeper.
    pub check_extensions: bool,
    /// Quiescence skips captures that lose material to a defender and captures too small to
    /// reach the window.
    pub quiescence_pruning: bool,
    /// With only a time budget, keep deepening until the time is up (a cut-short iteration
    /// still improves the move), rather than stopping when the next one looks unlikely to finish.
    pub use_all_time: bool,
    /// Evaluation: enemy pieces bearing on the squares around each king (worse when two enemy
    /// armies take part), and a king off its back rank or without cover.
    pub king_zone: bool,
    /// Evaluation: pieces attacked by clearly lesser enemy pieces.
    pub threats: bool,
    /// Evaluation: developed pieces, more when both partners of a team have them (Teams and
    /// Duo).
    pub activation: bool,
    /// Evaluation: knights one jump from a square that checks an enemy king (Teams and Duo).
    pub knight_reach: bool,
    /// Evaluation: threats weigh twice as much (Teams).
    pub heavy_threats: bool,
    /// Evaluation: rooks in the middle of the board, or with no pawn ahead (Teams and Duo).
    pub rooks: bool,
    /// Late move reductions a ply deeper for every three plies of depth beyond five, so that
    /// they grow in proportion to depth as well as with its logarithm.
    pub deep_reductions: bool,
    /// Late move reductions a ply smaller for the table's move or a killer, and up to two plies
    /// smaller or larger as the quiet move's histories are good or bad.
    pub history_reductions: bool,
    /// A static value at every node not in check, compared with the one two plies up the line
    /// (the same team's in Teams and Duo): late move reductions a ply smaller where it rose by
    /// more than 150 centipawns, a ply larger where it fell as much.
    pub improving: bool,
}

impl SearchOptions {
    /// What the levels use: what measured as a gain (see the engine's README).
    pub const DEFAULT: SearchOptions = SearchOptions {
        late_move_reductions: true,
        null_move: true,
        aspiration: false,
        late_move_pruning: true,
        principal_variation: true,
        futility: true,
        check_extensions: true,
        quiescence_pruning: true,
        use_all_time: true,
        king_zone: true,
        threats: true,
        activation: true,
        knight_reach: true,
        heavy_threats: true,
        rooks: true,
        deep_reductions: true,
        history_reductions: true,
        improving: true,
    };

    /// The short name of every option, as `fourkings arena` writes them (`hard/+null/-lmr`).
    pub const NAMES: [&'static str; 18] = [
        "lmr",
        "null",
        "aspiration",
        "lmp",
        "pvs",
        "futility",
        "checkext",
        "qprune",
        "alltime",
        "kingzone",
        "threats",
        "activation",
        "knightreach",
        "heavythreats",
        "rooks",
        "deeplmr",
        "historylmr",
        "improving",
    ];

    fn field(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "lmr" => &mut self.late_move_reductions,
            "null" => &mut self.null_move,
            "aspiration" => &mut self.aspiration,
            "lmp" => &mut self.late_move_pruning,
            "pvs" => &mut self.principal_variation,
            "futility" => &mut self.futility,
            "checkext" => &mut self.check_extensions,
            "qprune" => &mut self.quiescence_pruning,
            "alltime" => &mut self.use_all_time,
            "kingzone" => &mut self.king_zone,
            "threats" => &mut self.threats,
            "activation" => &mut self.activation,
            "knightreach" => &mut self.knight_reach,
            "heavythreats" => &mut self.heavy_threats,
            "rooks" => &mut self.rooks,
            "deeplmr" => &mut self.deep_reductions,
            "historylmr" => &mut self.history_reductions,
            "improving" => &mut self.improving,
            _ => return None,
        })
    }

    /// Turns the option `name` (one of [`SearchOptions::NAMES`]) on or off; `false` if there is
    /// no such option.
    pub fn set(&mut self, name: &str, on: bool) -> bool {
        self.field(name).map(|f| *f = on).is_some()
    }

    /// Whether the option `name` is on (`None` if there is no such option).
    pub fn get(&self, name: &str) -> Option<bool> {
        let mut copy = *self;
        copy.field(name).map(|f| *f)
    }
}

impl Default for SearchOptions {
    fn default() -> SearchOptions {
        SearchOptions::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_option_name_sets_its_own_field() {
        for name in SearchOptions::NAMES {
            let mut options = SearchOptions::DEFAULT;
            let was = options.get(name).expect("a named option");
            assert!(options.set(name, !was));
            assert_eq!(options.get(name), Some(!was));
            let changed = SearchOptions::NAMES
                .iter()
                .filter(|&&other| options.get(other) != SearchOptions::DEFAULT.get(other))
                .count();
            assert_eq!(changed, 1, "{name} changes only itself");
        }
        let mut options = SearchOptions::DEFAULT;
        assert!(!options.set("nonsense", true));
        assert_eq!(options, SearchOptions::DEFAULT);
    }
}
