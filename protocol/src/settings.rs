//! A room's settings.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a pawn may promote to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PromotionChoice {
    /// Queen, rook, bishop or knight.
    All,
    /// Queen only.
    Queen,
    /// Knight or bishop only (the minor-piece twist).
    Minor,
}

/// How strong the CPU plays.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CpuLevel {
    /// Quick, with human-like mistakes.
    Easy,
    /// A decent club player.
    #[default]
    Medium,
    /// The strongest level.
    Hard,
}

/// A game clock: each seat's own bank of time, running only during that seat's turns.
/// chess.com's 4PC controls are written `1 | 15D` (one minute, a 15-second delay) or `1 | 7` (one
/// minute, 7 seconds' increment).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct GameClock {
    /// Minutes in each seat's bank at the start, 1–60.
    pub minutes: u32,
    /// Seconds added to the bank after each of the seat's moves, 0–60.
    pub increment: u32,
    /// Seconds each turn waits before the bank starts to run, 0–60 (at most one of increment
    /// and delay is above 0).
    pub delay: u32,
}

/// Every setting of a room, as the server reports it: the preset and each option's current value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Settings {
    /// The rule system: `teams`, `teams-house`, `teams-classic`, `ffa`, `ffa-walking-kings`, `duo`.
    pub preset: String,
    /// Castling allowed.
    pub castling: bool,
    /// En passant allowed.
    pub en_passant: bool,
    /// A king left attacked may be captured (not in Duo).
    pub king_capture: bool,
    /// Duo: the king, too, may capture its own pieces (off by default, so that chess's mates
    /// stay mates). Rooms stored before this setting existed read it as off.
    #[serde(default)]
    pub king_friendly_capture: bool,
    /// What pawns promote to.
    pub promotion: PromotionChoice,
    /// The fifty-move rule is on.
    pub fifty_move_rule: bool,
    /// Plies after which the game ends; 0 for none.
    pub move_limit: u32,
    /// Twist (Teams): the first pawn on its promotion line wins.
    pub pawn_breakthrough: bool,
    /// Twist (Teams): each team has two takeback tokens.
    pub lifelines: bool,
    /// Twist (Teams): no team chat after the start.
    pub silent_partners: bool,
    /// Twist (Teams): a session of three games, every pairing once.
    pub switch_partners: bool,
    /// Free-for-all: with two players left and a lead of more than 20, the leader claims the win
    /// (`claim_win`) instead of the game ending by itself.
    pub claim_win: bool,
    /// Seconds per move: 0 (none), 30 or 60.
    pub turn_limit: u32,
    /// Duo: minutes per team bank: 0 (untimed), 3, 5, 10 or 15.
    pub team_clock: u32,
    /// Every format but Duo: each seat's game clock, or `null` for none. With a turn limit too,
    /// whichever runs out first decides. Rooms stored before this setting read it as none.
    #[serde(default)]
    pub game_clock: Option<GameClock>,
    /// How many moves a seat may queue while others move (premoves), 0 to 10; 0 turns premoves
    /// off. Rooms stored before this setting read it as 10.
    #[serde(default = "default_premoves")]
    pub premoves: u32,
    /// How strong CPU seats play by default.
    pub cpu_level: CpuLevel,
    /// On each rematch the first seat moves one place (Duo: the people move one seat on, White
    /// still moving first).
    pub rotate_first_seat: bool,
    /// Clients mark where a selected piece can go.
    pub show_legal_moves: bool,
}

/// A change to some settings: only the fields present change. Changing `preset` first resets every
/// rule option to that preset's value, then applies the other fields of the same patch.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SettingsPatch {
    /// See [`Settings::preset`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    /// See [`Settings::castling`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub castling: Option<bool>,
    /// See [`Settings::en_passant`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub en_passant: Option<bool>,
    /// See [`Settings::king_capture`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub king_capture: Option<bool>,
    /// See [`Settings::king_friendly_capture`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub king_friendly_capture: Option<bool>,
    /// See [`Settings::promotion`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotion: Option<PromotionChoice>,
    /// See [`Settings::fifty_move_rule`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fifty_move_rule: Option<bool>,
    /// See [`Settings::move_limit`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_limit: Option<u32>,
    /// See [`Settings::pawn_breakthrough`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pawn_breakthrough: Option<bool>,
    /// See [`Settings::lifelines`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifelines: Option<bool>,
    /// See [`Settings::silent_partners`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silent_partners: Option<bool>,
    /// See [`Settings::switch_partners`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switch_partners: Option<bool>,
    /// See [`Settings::claim_win`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim_win: Option<bool>,
    /// See [`Settings::turn_limit`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_limit: Option<u32>,
    /// See [`Settings::team_clock`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_clock: Option<u32>,
    /// See [`Settings::game_clock`]; `null` turns the game clock off (absent leaves it).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present_even_if_null"
    )]
    pub game_clock: Option<Option<GameClock>>,
    /// See [`Settings::premoves`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub premoves: Option<u32>,
    /// See [`Settings::cpu_level`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_level: Option<CpuLevel>,
    /// See [`Settings::rotate_first_seat`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotate_first_seat: Option<bool>,
    /// See [`Settings::show_legal_moves`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show_legal_moves: Option<bool>,
}

/// The premoves a seat may queue unless the host chose otherwise: as many as chess.com allows.
pub const DEFAULT_PREMOVES: u32 = 10;

fn default_premoves() -> u32 {
    DEFAULT_PREMOVES
}

/// A patch field that may be set to `null`: absent reads as `None` (unchanged, by the field's
/// default), present as `Some`, `null` included.
fn present_even_if_null<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

impl SettingsPatch {
    /// A patch that picks `preset` (`"teams"`, `"duo"`, …) and changes nothing else.
    pub fn preset(preset: impl Into<String>) -> SettingsPatch {
        SettingsPatch {
            preset: Some(preset.into()),
            ..SettingsPatch::default()
        }
    }
}
