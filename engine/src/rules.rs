//! Rule sets: every option of the rules specification, and the named presets.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::army::Army;
use crate::geometry::BoardKind;
use crate::piece::Role;

/// How the four players are grouped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Two against two on the cross board; partners sit opposite (Red+Yellow v Blue+Green).
    Teams,
    /// Everyone alone on the cross board, scoring points.
    FreeForAll,
    /// Two against two on the classic board, each team sharing one army (W1 → B1 → W2 → B2).
    Duo,
}

impl Format {
    /// The board this format is played on.
    pub const fn board(self) -> BoardKind {
        match self {
            Format::Duo => BoardKind::Classic,
            _ => BoardKind::Cross,
        }
    }
}

/// When a player with no legal move is found to be mated or stalemated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MateTiming {
    /// Only when the victim's own turn begins: until then partners may still help.
    TurnStart,
    /// Right after any move: a player left without a legal move while attacked is mated at once.
    Immediate,
}

/// The pieces a pawn may become.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PromotionSet {
    /// Queen, rook, bishop or knight.
    All,
    /// Queen only.
    QueenOnly,
    /// Knight or bishop only (the minor-piece twist).
    Minor,
}

impl PromotionSet {
    /// The roles in the set, strongest first.
    pub const fn roles(self) -> &'static [Role] {
        match self {
            PromotionSet::All => &[Role::Queen, Role::Rook, Role::Bishop, Role::Knight],
            PromotionSet::QueenOnly => &[Role::Queen],
            PromotionSet::Minor => &[Role::Knight, Role::Bishop],
        }
    }
}

/// What a resignation does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Resignation {
    /// The resigner's team loses at once.
    TeamLoses,
    /// The resigner asks; the team loses when the partner accepts.
    PartnerConsent,
    /// The resigner is out (free-for-all); their pieces turn grey.
    Out,
    /// The resigner is out, but their king walks on by itself until it is mated.
    OutKingWalks,
}

/// How a free-for-all with two players left ends when one leads by more than 20.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LeadEnding {
    /// The game ends by itself as soon as the condition holds.
    Automatic,
    /// The leader may claim the win; play goes on until they do.
    Claim,
}

/// How free-for-all scores the few things chess.com's games score differently from the rules
/// specification. The presets score as the specification says; a chess.com file is read with
/// [`FfaScoring::ChessCom`], since that is how its points were counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FfaScoring {
    /// As RULES.md has it: a double check scores 5 (1 with a queen), a triple 20 (5 with a
    /// queen); when three players are out the last one gets 20 for every king still walking.
    Standard,
    /// As chess.com's games count it (every one of the real games in `tests/data/chesscom`
    /// agrees): a double check scores 1 and a triple 5, whatever the piece; a king still walking
    /// when the game ends is worth 20, shared by the players still in, whatever ends it (so a draw
    /// with one walking king and two players in gives them 10 each besides the draw's 10); and
    /// when a resignation or timeout leaves one player who cannot mate (a bare king, or a king
    /// and one bishop or knight), the game is drawn by insufficient material: the last player
    /// and the one who just left score the draw's 10, and only the kings that walked before are
    /// worth 20 to the last player.
    ChessCom,
}

/// Every option of a rule system. Build one from a [`Preset`] and change what you need; then
/// [`RuleSet::validate`] (done by every constructor that takes a rule set) rejects combinations
/// that make no sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    /// Teams, free-for-all or Duo; also decides the board.
    pub format: Format,
    /// Whether castling is allowed.
    pub castling: bool,
    /// Whether en passant is allowed.
    pub en_passant: bool,
    /// Whether a king left attacked may be captured by the next enemy to move (not in Duo).
    pub king_capture: bool,
    /// When mate and stalemate are decided.
    pub mate: MateTiming,
    /// The promotion line, counted as the army's own rank (1 = its back rank): 11 or 8.
    pub promotion_rank: u8,
    /// What a pawn may promote to.
    pub promotion: PromotionSet,
    /// Plies without a capture or pawn move that draw the game, if the rule is on. On the cross
    /// board this is the count for four armies taking turns; with fewer the count shrinks with
    /// them, so that it is always the same number of moves by each (fifty moves each: 200 plies
    /// with four, 150 with three, 100 with two). See [`RuleSet::fifty_move_limit`].
    pub fifty_move_plies: Option<u16>,
    /// What resigning does.
    pub resignation: Resignation,
    /// Whether a player may capture their own army's pieces except the king (Duo).
    pub friendly_capture: bool,
    /// Whether the king itself makes friendly captures (a room option of Duo, off by default, so
    /// that chess's mates stay mates); only with [`RuleSet::friendly_capture`].
    pub king_friendly_capture: bool,
    /// Total plies after which the game ends (a draw in Teams and Duo, points in free-for-all).
    pub move_limit: Option<u32>,
    /// Twist: the first team to land a pawn on its promotion line wins instead of promoting.
    pub pawn_breakthrough: bool,
    /// Twist: takeback tokens per team (0 = off; the twist gives 2).
    pub lifelines: u8,
    /// Free-for-all: how a lead of more than 20 with two players left ends the game.
    pub lead_ending: LeadEnding,
    /// Free-for-all: the scoring of checks and of walking kings at the end (see [`FfaScoring`]).
    pub ffa_scoring: FfaScoring,
    /// The army that moves first from the start position (Duo: always White; the seat order is
    /// W1, B1, W2, B2).
    pub first: Army,
}

/// A rule set whose options contradict each other.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RuleSetError {
    /// The promotion rank is not one a pawn can reach by single steps on this board.
    #[error("promotion rank {rank} is outside 5..={max} for this board")]
    PromotionRank {
        /// The rank asked for.
        rank: u8,
        /// The highest rank allowed.
        max: u8,
    },
    /// An option that exists only for another format.
    #[error("option {option} does not apply to the {format:?} format")]
    NotForFormat {
        /// The option's name.
        option: &'static str,
        /// The format it was set on.
        format: Format,
    },
    /// The first army does not play on this board, or (Duo) is not White.
    #[error("{0} cannot move first in this format")]
    FirstArmy(Army),
    /// An option that only makes sense with another one.
    #[error("option {option} needs {requires}")]
    Requires {
        /// The option's name.
        option: &'static str,
        /// The option it needs.
        requires: &'static str,
    },
    /// A fifty-move count or move limit of zero.
    #[error("{0} must be at least 1")]
    Zero(&'static str),
}

impl RuleSet {
    /// The board the rules are played on.
    pub const fn board(&self) -> BoardKind {
        self.format.board()
    }

    /// Whether players are grouped in two teams (Teams and Duo).
    pub const fn has_teams(&self) -> bool {
        !matches!(self.format, Format::FreeForAll)
    }

    /// The plies without a capture or pawn move that draw the game while `armies` armies take
    /// turns, if the rule is on: [`RuleSet::fifty_move_plies`] shared out over the armies, so
    /// that each makes the same number of moves whoever is left.
    pub fn fifty_move_limit(&self, armies: usize) -> Option<u16> {
        let plies = self.fifty_move_plies?;
        let full = self.board().armies().len() as u32;
        let armies = (armies as u32).clamp(1, full);
        Some((u32::from(plies) * armies / full).max(1) as u16)
    }

    /// Checks that the options fit together.
    pub fn validate(&self) -> Result<(), RuleSetError> {
        let max = self.board().size();
        // A double step lands on the army's 4th rank; the line must lie beyond it.
        if !(5..=max).contains(&self.promotion_rank) {
            return Err(RuleSetError::PromotionRank {
                rank: self.promotion_rank,
                max,
            });
        }
        if !self.board().armies().contains(self.first) {
            return Err(RuleSetError::FirstArmy(self.first));
        }
        let not_for = |option| {
            Err(RuleSetError::NotForFormat {
                option,
                format: self.format,
            })
        };
        match self.format {
            Format::FreeForAll => {
                if self.pawn_breakthrough {
                    return not_for("pawn_breakthrough");
                }
                if self.lifelines > 0 {
                    return not_for("lifelines");
                }
                if self.friendly_capture {
                    return not_for("friendly_capture");
                }
                if matches!(
                    self.resignation,
                    Resignation::TeamLoses | Resignation::PartnerConsent
                ) {
                    return not_for("team resignation");
                }
            }
            Format::Teams | Format::Duo => {
                if self.ffa_scoring != FfaScoring::Standard {
                    return not_for("ffa_scoring");
                }
                if self.format == Format::Duo && self.pawn_breakthrough {
                    return not_for("pawn_breakthrough");
                }
                if self.format == Format::Duo && self.lifelines > 0 {
                    return not_for("lifelines");
                }
                if matches!(
                    self.resignation,
                    Resignation::Out | Resignation::OutKingWalks
                ) {
                    return not_for("free-for-all resignation");
                }
                if self.format == Format::Duo && self.king_capture {
                    return not_for("king_capture");
                }
                if self.format == Format::Teams && self.friendly_capture {
                    return not_for("friendly_capture");
                }
            }
        }
        if self.king_friendly_capture && !self.friendly_capture {
            return Err(RuleSetError::Requires {
                option: "king_friendly_capture",
                requires: "friendly_capture",
            });
        }
        if self.format == Format::Duo && self.first != Army::WHITE {
            return Err(RuleSetError::FirstArmy(self.first));
        }
        if self.fifty_move_plies == Some(0) {
            return Err(RuleSetError::Zero("fifty_move_plies"));
        }
        if self.move_limit == Some(0) {
            return Err(RuleSetError::Zero("move_limit"));
        }
        Ok(())
    }
}

/// The named rule systems of the rules specification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Preset {
    /// Teams as most online sites play it: castling, en passant, king capture, mate at turn start.
    Teams,
    /// The tabletop house format: no castling, en passant or king capture; no fifty-move rule.
    TeamsHouse,
    /// Classic Teams: no en passant; resignation needs the partner's consent.
    TeamsClassic,
    /// Free-for-all: points, queen-only promotion on the 8th rank, mate decided at once.
    Ffa,
    /// Free-for-all where a resigned player's king walks on by itself.
    FfaWalkingKings,
    /// Two against two on the ordinary board, each team sharing one army, friendly capture.
    Duo,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 6] = [
        Preset::Teams,
        Preset::TeamsHouse,
        Preset::TeamsClassic,
        Preset::Ffa,
        Preset::FfaWalkingKings,
        Preset::Duo,
    ];

    /// The preset's name as used on the command line and in the protocol (`teams-house`).
    pub const fn name(self) -> &'static str {
        match self {
            Preset::Teams => "teams",
            Preset::TeamsHouse => "teams-house",
            Preset::TeamsClassic => "teams-classic",
            Preset::Ffa => "ffa",
            Preset::FfaWalkingKings => "ffa-walking-kings",
            Preset::Duo => "duo",
        }
    }

    /// One line saying what the preset is.
    pub const fn description(self) -> &'static str {
        match self {
            Preset::Teams => "2 v 2 on the cross board; mate or capture an enemy king to win.",
            Preset::TeamsHouse => {
                "The tabletop house rules: no castling, no en passant, no king capture."
            }
            Preset::TeamsClassic => {
                "Classic Teams: no en passant; resigning needs your partner's consent."
            }
            Preset::Ffa => "Everyone for themselves, scoring points for captures and mates.",
            Preset::FfaWalkingKings => {
                "Free-for-all where a resigned player's king walks on by itself."
            }
            Preset::Duo => "2 v 2 on an ordinary board: partners share one army and take turns.",
        }
    }

    /// The preset's rules.
    pub const fn rules(self) -> RuleSet {
        let teams = RuleSet {
            format: Format::Teams,
            castling: true,
            en_passant: true,
            king_capture: true,
            mate: MateTiming::TurnStart,
            promotion_rank: 11,
            promotion: PromotionSet::All,
            fifty_move_plies: Some(200),
            resignation: Resignation::TeamLoses,
            friendly_capture: false,
            king_friendly_capture: false,
            move_limit: None,
            pawn_breakthrough: false,
            lifelines: 0,
            lead_ending: LeadEnding::Automatic,
            ffa_scoring: FfaScoring::Standard,
            first: Army::Red,
        };
        match self {
            Preset::Teams => teams,
            Preset::TeamsHouse => RuleSet {
                castling: false,
                en_passant: false,
                king_capture: false,
                fifty_move_plies: None,
                ..teams
            },
            Preset::TeamsClassic => RuleSet {
                en_passant: false,
                resignation: Resignation::PartnerConsent,
                ..teams
            },
            Preset::Ffa => RuleSet {
                format: Format::FreeForAll,
                mate: MateTiming::Immediate,
                promotion_rank: 8,
                promotion: PromotionSet::QueenOnly,
                resignation: Resignation::Out,
                ..teams
            },
            Preset::FfaWalkingKings => RuleSet {
                format: Format::FreeForAll,
                en_passant: false,
                promotion_rank: 8,
                promotion: PromotionSet::QueenOnly,
                resignation: Resignation::OutKingWalks,
                ..teams
            },
            Preset::Duo => RuleSet {
                format: Format::Duo,
                king_capture: false,
                mate: MateTiming::Immediate,
                promotion_rank: 8,
                fifty_move_plies: Some(100),
                friendly_capture: true,
                ..teams
            },
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A preset name that is not one of [`Preset::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "unknown preset {0:?}: expected one of teams, teams-house, teams-classic, ffa, ffa-walking-kings, duo"
)]
pub struct ParsePresetError(pub String);

impl FromStr for Preset {
    type Err = ParsePresetError;

    fn from_str(s: &str) -> Result<Preset, ParsePresetError> {
        Preset::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| ParsePresetError(s.to_owned()))
    }
}

impl From<Preset> for RuleSet {
    fn from(preset: Preset) -> RuleSet {
        preset.rules()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_is_valid_and_named() {
        for preset in Preset::ALL {
            preset.rules().validate().unwrap();
            assert_eq!(preset.name().parse::<Preset>().unwrap(), preset);
        }
    }

    #[test]
    fn contradictions_are_rejected() {
        let rules = RuleSet {
            pawn_breakthrough: true,
            ..Preset::Ffa.rules()
        };
        assert!(matches!(
            rules.validate(),
            Err(RuleSetError::NotForFormat { .. })
        ));
        let rules = RuleSet {
            promotion_rank: 12,
            ..Preset::Duo.rules()
        };
        assert!(matches!(
            rules.validate(),
            Err(RuleSetError::PromotionRank { .. })
        ));
        let rules = RuleSet {
            first: Army::Blue,
            ..Preset::Duo.rules()
        };
        assert_eq!(rules.validate(), Err(RuleSetError::FirstArmy(Army::Blue)));
    }
}
