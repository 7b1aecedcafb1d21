//! What a room's rules let its players do, as the server decides it and tells clients (the
//! protocol's `RulesView`): the format, what resigning does, whether the team channel is open,
//! the takebacks a team has and how a win may be claimed. Clients offer what this says instead of
//! working it out from the preset's name, so each of these rules has one home: the engine's rule
//! set, plus the team-chat rule here, which the room also enforces (`Room::write_chat`).

use fourkings_engine::{Format, LeadEnding, Preset, Resignation, RuleSet};
use fourkings_protocol::{ClaimRule, GameFormat, ResignationRule, RulesView, Settings};

use crate::room::rules::rule_set;

/// Why the team channel is closed, or `None` while partners may write in it: free-for-all has no
/// teams, and silent partners keep quiet once the game has started.
pub(crate) fn team_chat_refusal(
    format: Format,
    silent_partners: bool,
    started: bool,
) -> Option<&'static str> {
    if format == Format::FreeForAll {
        Some("free-for-all has no teams")
    } else if silent_partners && started {
        Some("silent partners: no team chat after the start")
    } else {
        None
    }
}

/// What `rules` let players do; `silent_partners` is the room's setting (the engine's rule set
/// does not hold it) and `started` whether a game has begun.
pub(crate) fn rules_view(rules: &RuleSet, silent_partners: bool, started: bool) -> RulesView {
    RulesView {
        format: match rules.format {
            Format::Teams => GameFormat::Teams,
            Format::FreeForAll => GameFormat::FreeForAll,
            Format::Duo => GameFormat::Duo,
        },
        resignation: match rules.resignation {
            Resignation::TeamLoses => ResignationRule::TeamLoses,
            Resignation::PartnerConsent => ResignationRule::PartnerConsent,
            Resignation::Out => ResignationRule::Out,
            Resignation::OutKingWalks => ResignationRule::OutKingWalks,
        },
        team_chat: team_chat_refusal(rules.format, silent_partners, started).is_none(),
        takebacks: rules.lifelines,
        // As `Room::claim_win` decides: the engine's claim in free-for-all, the room's absence
        // rule in Duo.
        claim: match rules.format {
            Format::FreeForAll => {
                (rules.lead_ending == LeadEnding::Claim).then_some(ClaimRule::Lead)
            }
            Format::Duo => Some(ClaimRule::Abandonment),
            Format::Teams => None,
        },
    }
}

/// What a room's settings let players do, before the start (`started` false) or during a game.
pub(crate) fn room_rules(settings: &Settings, started: bool) -> RulesView {
    // A room's settings were checked when they were set, so the fallback is never taken.
    let rules = rule_set(settings).unwrap_or_else(|_| Preset::Teams.rules());
    rules_view(&rules, settings.silent_partners, started)
}

#[cfg(test)]
mod tests {
    use fourkings_protocol::SettingsPatch;

    use super::*;
    use crate::room::rules::{apply, defaults};

    /// Every preset's defaults, as clients are told them before the start.
    #[test]
    fn each_preset_says_what_it_lets_players_do() {
        use ResignationRule::*;
        let table = [
            (Preset::Teams, GameFormat::Teams, TeamLoses, true, None),
            (Preset::TeamsHouse, GameFormat::Teams, TeamLoses, true, None),
            (
                Preset::TeamsClassic,
                GameFormat::Teams,
                PartnerConsent,
                true,
                None,
            ),
            (Preset::Ffa, GameFormat::FreeForAll, Out, false, None),
            (
                Preset::FfaWalkingKings,
                GameFormat::FreeForAll,
                OutKingWalks,
                false,
                None,
            ),
            (
                Preset::Duo,
                GameFormat::Duo,
                TeamLoses,
                true,
                Some(ClaimRule::Abandonment),
            ),
        ];
        assert_eq!(table.len(), Preset::ALL.len());
        for (preset, format, resignation, team_chat, claim) in table {
            let expected = RulesView {
                format,
                resignation,
                team_chat,
                takebacks: 0,
                claim,
            };
            assert_eq!(room_rules(&defaults(preset), false), expected, "{preset}");
            assert_eq!(room_rules(&defaults(preset), true), expected, "{preset}");
        }
    }

    /// The twists and options that change what players may do.
    #[test]
    fn twists_open_takebacks_and_claims_and_silent_partners_close_team_chat_at_the_start() {
        let patched = |patch: SettingsPatch| apply(&defaults(Preset::Teams), &patch).unwrap();
        let lifelines = patched(SettingsPatch {
            lifelines: Some(true),
            ..SettingsPatch::default()
        });
        assert_eq!(room_rules(&lifelines, true).takebacks, 2);
        let silent = patched(SettingsPatch {
            silent_partners: Some(true),
            ..SettingsPatch::default()
        });
        assert!(room_rules(&silent, false).team_chat, "open in the lobby");
        assert!(
            !room_rules(&silent, true).team_chat,
            "closed from the start"
        );
        let claim = patched(SettingsPatch {
            claim_win: Some(true),
            ..SettingsPatch::preset("ffa")
        });
        assert_eq!(room_rules(&claim, true).claim, Some(ClaimRule::Lead));
        assert_eq!(room_rules(&claim, true).format, GameFormat::FreeForAll);
    }
}
