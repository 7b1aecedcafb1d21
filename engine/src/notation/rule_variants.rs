//! PGN4's `Variant` and `RuleVariants` tags, to and from a [`RuleSet`].
//!
//! `Variant "Teams"` and `Variant "FFA"` (or `Solo`) name chess.com's defaults: castling, king
//! capture, mate at the victim's turn start in Teams and at once in free-for-all, no en passant,
//! promotion on the 11th rank to any piece (Teams) or on the 8th to a queen only (free-for-all),
//! the fifty-move rule over 200 plies; and in free-for-all chess.com's way of ending and scoring
//! a game: play goes on after one of the last two leads by more than 20 (the leader may claim,
//! [`LeadEnding::Claim`]), and points as [`FfaScoring::ChessCom`] counts them. `RuleVariants`
//! lists the rules that differ, as space-separated tokens. The common tokens are `EnPassant`,
//! `DeadKingWalking`, `Prom=<rank>` and `PromoteTo=<letters>`; Four Kings adds tokens for its
//! other options (`NoCastling`, `NoKingCapture`, `MateAtTurnStart`, `MateAtOnce`,
//! `FiftyMove=<plies>`, `NoFiftyMove`, `ResignConsent`, `MoveLimit=<plies>`, `Breakthrough`,
//! `Lifelines=<n>`, `LeadClaim`, and for its presets' free-for-all `LeadEnds` (the lead ends the
//! game by itself) and `FourKingsScoring` (points as the rules specification counts them)).
//! Tokens that change nothing in the game (`Anonymous`, `SemiAnonymous`) and those it does not
//! know are kept as written.

use crate::rules::{
    FfaScoring, Format, LeadEnding, MateTiming, Preset, PromotionSet, Resignation, RuleSet,
};

/// The rules `Variant` names before any `RuleVariants` token.
pub(crate) fn base_rules(format: Format) -> RuleSet {
    match format {
        Format::FreeForAll => RuleSet {
            en_passant: false,
            lead_ending: LeadEnding::Claim,
            ffa_scoring: FfaScoring::ChessCom,
            ..Preset::Ffa.rules()
        },
        _ => RuleSet {
            en_passant: false,
            ..Preset::Teams.rules()
        },
    }
}

/// The `Variant` tag value of a format.
pub(crate) fn variant_name(format: Format) -> &'static str {
    match format {
        Format::FreeForAll => "FFA",
        _ => "Teams",
    }
}

/// The format a `Variant` tag value names.
pub(crate) fn parse_variant(value: &str) -> Option<Format> {
    match value.to_ascii_lowercase().as_str() {
        "teams" | "" => Some(Format::Teams),
        "ffa" | "solo" | "free-for-all" | "freeforall" => Some(Format::FreeForAll),
        _ => None,
    }
}

/// The `RuleVariants` tokens that turn [`base_rules`] into `rules`.
pub(crate) fn rule_variant_tokens(rules: &RuleSet) -> Vec<String> {
    let base = base_rules(rules.format);
    let mut tokens = Vec::new();
    if rules.en_passant && !base.en_passant {
        tokens.push("EnPassant".to_owned());
    }
    if rules.resignation == Resignation::OutKingWalks {
        tokens.push("DeadKingWalking".to_owned());
    }
    if rules.promotion_rank != base.promotion_rank {
        tokens.push(format!("Prom={}", rules.promotion_rank));
    }
    if rules.promotion != base.promotion {
        let letters = match rules.promotion {
            PromotionSet::All => "QRBN",
            PromotionSet::QueenOnly => "D",
            PromotionSet::Minor => "NB",
        };
        tokens.push(format!("PromoteTo={letters}"));
    }
    if !rules.castling {
        tokens.push("NoCastling".to_owned());
    }
    if !rules.king_capture {
        tokens.push("NoKingCapture".to_owned());
    }
    if rules.mate != base.mate {
        tokens.push(match rules.mate {
            MateTiming::TurnStart => "MateAtTurnStart".to_owned(),
            MateTiming::Immediate => "MateAtOnce".to_owned(),
        });
    }
    match rules.fifty_move_plies {
        None => tokens.push("NoFiftyMove".to_owned()),
        Some(n) if Some(n) != base.fifty_move_plies => tokens.push(format!("FiftyMove={n}")),
        Some(_) => {}
    }
    if rules.resignation == Resignation::PartnerConsent {
        tokens.push("ResignConsent".to_owned());
    }
    if let Some(limit) = rules.move_limit {
        tokens.push(format!("MoveLimit={limit}"));
    }
    if rules.pawn_breakthrough {
        tokens.push("Breakthrough".to_owned());
    }
    if rules.lifelines > 0 {
        tokens.push(format!("Lifelines={}", rules.lifelines));
    }
    if rules.lead_ending != base.lead_ending {
        tokens.push(match rules.lead_ending {
            LeadEnding::Claim => "LeadClaim".to_owned(),
            LeadEnding::Automatic => "LeadEnds".to_owned(),
        });
    }
    if rules.ffa_scoring != base.ffa_scoring && rules.ffa_scoring == FfaScoring::Standard {
        tokens.push("FourKingsScoring".to_owned());
    }
    tokens
}

/// Applies the `RuleVariants` tokens to `rules`; returns the tokens it does not know.
pub(crate) fn apply_rule_variants(rules: &mut RuleSet, value: &str) -> Vec<String> {
    let mut unknown = Vec::new();
    for token in value.split_whitespace() {
        let (name, arg) = match token.split_once('=') {
            Some((n, a)) => (n, Some(a)),
            None => (token, None),
        };
        let number = || arg.and_then(|a| a.parse::<u32>().ok());
        let known = match (name, arg) {
            ("EnPassant", None) => {
                rules.en_passant = true;
                true
            }
            ("DeadKingWalking", None) => {
                rules.resignation = Resignation::OutKingWalks;
                true
            }
            ("Prom", Some(_)) => match number().and_then(|n| u8::try_from(n).ok()) {
                Some(n) => {
                    rules.promotion_rank = n;
                    true
                }
                None => false,
            },
            ("PromoteTo", Some(letters)) => {
                let set = match letters.to_ascii_uppercase().as_str() {
                    "D" | "Q" => Some(PromotionSet::QueenOnly),
                    "NB" | "BN" => Some(PromotionSet::Minor),
                    "QRBN" | "DRBN" | "QRNB" => Some(PromotionSet::All),
                    _ => None,
                };
                set.map(|s| rules.promotion = s).is_some()
            }
            ("NoCastling", None) => {
                rules.castling = false;
                true
            }
            ("NoKingCapture", None) => {
                rules.king_capture = false;
                true
            }
            ("MateAtTurnStart", None) => {
                rules.mate = MateTiming::TurnStart;
                true
            }
            ("MateAtOnce", None) => {
                rules.mate = MateTiming::Immediate;
                true
            }
            ("NoFiftyMove", None) => {
                rules.fifty_move_plies = None;
                true
            }
            ("FiftyMove", Some(_)) => match number().and_then(|n| u16::try_from(n).ok()) {
                Some(n) => {
                    rules.fifty_move_plies = Some(n);
                    true
                }
                None => false,
            },
            ("ResignConsent", None) => {
                rules.resignation = Resignation::PartnerConsent;
                true
            }
            ("MoveLimit", Some(_)) => number().map(|n| rules.move_limit = Some(n)).is_some(),
            ("Breakthrough", None) => {
                rules.pawn_breakthrough = true;
                true
            }
            ("Lifelines", Some(_)) => match number().and_then(|n| u8::try_from(n).ok()) {
                Some(n) => {
                    rules.lifelines = n;
                    true
                }
                None => false,
            },
            ("LeadClaim", None) => {
                rules.lead_ending = LeadEnding::Claim;
                true
            }
            ("LeadEnds", None) => {
                rules.lead_ending = LeadEnding::Automatic;
                true
            }
            ("FourKingsScoring", None) => {
                rules.ffa_scoring = FfaScoring::Standard;
                true
            }
            // chess.com's display options: nothing in the game changes.
            ("Anonymous" | "SemiAnonymous", None) => true,
            _ => false,
        };
        if !known {
            unknown.push(token.to_owned());
        }
    }
    unknown
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cross_board_preset_round_trips_through_its_tokens() {
        for preset in Preset::ALL.into_iter().filter(|p| *p != Preset::Duo) {
            let rules = preset.rules();
            let mut read = base_rules(rules.format);
            let unknown = apply_rule_variants(&mut read, &rule_variant_tokens(&rules).join(" "));
            assert!(unknown.is_empty());
            assert_eq!(read, rules, "{preset}");
        }
        assert_eq!(
            rule_variant_tokens(&Preset::Teams.rules()),
            vec!["EnPassant"]
        );
    }

    #[test]
    fn unknown_tokens_are_kept() {
        let mut rules = base_rules(Format::Teams);
        assert_eq!(
            apply_rule_variants(&mut rules, "EnPassant Atomic Prom=x"),
            vec!["Atomic", "Prom=x"]
        );
        assert!(rules.en_passant);
    }
}
