//! A room's settings: defaults per preset, patches, validation, and the engine rule set they make.

use fourkings_engine::{
    Format, LeadEnding, ParsePresetError, Preset, PromotionSet, RuleSet, RuleSetError,
};
use fourkings_protocol::{CpuLevel, PromotionChoice, Settings, SettingsPatch};

/// Settings no game can be played with.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SettingsError {
    /// A turn limit that is not one of the choices.
    #[error("turn_limit must be 0, 30 or 60 seconds, not {0}")]
    TurnLimit(u32),
    /// A team clock that is not one of the choices.
    #[error("team_clock must be 0, 3, 5, 10 or 15 minutes, not {0}")]
    TeamClock(u32),
    /// More premoves than a seat may queue.
    #[error("premoves takes 0 to {MAX_PREMOVES}, not {0}")]
    Premoves(u32),
    /// A game clock out of its ranges.
    #[error(
        "game_clock takes 1 to 60 minutes and 0 to 60 seconds of increment or of delay (not both)"
    )]
    GameClock,
    /// A preset name no preset has.
    #[error(transparent)]
    Preset(#[from] ParsePresetError),
    /// An option of another format's.
    #[error("{0} applies to {1} only")]
    OtherFormat(&'static str, &'static str),
    /// A rule set the engine refuses.
    #[error(transparent)]
    Rules(#[from] RuleSetError),
}

/// The most premoves a room may let a seat queue (chess.com's number).
const MAX_PREMOVES: u32 = 10;

/// The settings of a new room with `preset`.
pub(crate) fn defaults(preset: Preset) -> Settings {
    let rules = preset.rules();
    Settings {
        preset: preset.name().to_owned(),
        castling: rules.castling,
        en_passant: rules.en_passant,
        king_capture: rules.king_capture,
        king_friendly_capture: rules.king_friendly_capture,
        promotion: match rules.promotion {
            PromotionSet::All => PromotionChoice::All,
            PromotionSet::QueenOnly => PromotionChoice::Queen,
            PromotionSet::Minor => PromotionChoice::Minor,
        },
        fifty_move_rule: rules.fifty_move_plies.is_some(),
        move_limit: 0,
        pawn_breakthrough: false,
        lifelines: false,
        silent_partners: false,
        switch_partners: false,
        claim_win: false,
        turn_limit: 0,
        team_clock: 0,
        game_clock: None,
        premoves: fourkings_protocol::DEFAULT_PREMOVES,
        cpu_level: CpuLevel::Medium,
        rotate_first_seat: true,
        show_legal_moves: true,
    }
}

/// Applies `patch` to `settings`, or says what is wrong and leaves them unchanged.
pub(crate) fn apply(settings: &Settings, patch: &SettingsPatch) -> Result<Settings, SettingsError> {
    let mut next = match &patch.preset {
        Some(name) => {
            let preset: Preset = name.parse()?;
            Settings {
                cpu_level: settings.cpu_level,
                premoves: settings.premoves,
                rotate_first_seat: settings.rotate_first_seat,
                ..defaults(preset)
            }
        }
        None => settings.clone(),
    };
    macro_rules! set {
        ($($field:ident),*) => { $( if let Some(value) = patch.$field { next.$field = value; } )* };
    }
    set!(
        castling,
        en_passant,
        king_capture,
        king_friendly_capture,
        promotion,
        fifty_move_rule,
        move_limit,
        pawn_breakthrough,
        lifelines,
        silent_partners,
        switch_partners,
        claim_win,
        turn_limit,
        team_clock,
        premoves,
        cpu_level,
        rotate_first_seat,
        show_legal_moves
    );
    if let Some(game_clock) = patch.game_clock {
        next.game_clock = game_clock;
    }
    validate(&next)?;
    Ok(next)
}

/// Checks settings that no rule set could express, then the rule set itself.
pub(crate) fn validate(settings: &Settings) -> Result<(), SettingsError> {
    if ![0, 30, 60].contains(&settings.turn_limit) {
        return Err(SettingsError::TurnLimit(settings.turn_limit));
    }
    if ![0, 3, 5, 10, 15].contains(&settings.team_clock) {
        return Err(SettingsError::TeamClock(settings.team_clock));
    }
    if settings.premoves > MAX_PREMOVES {
        return Err(SettingsError::Premoves(settings.premoves));
    }
    if let Some(clock) = settings.game_clock {
        let seconds = 0..=60;
        let fits = (1..=60).contains(&clock.minutes)
            && seconds.contains(&clock.increment)
            && seconds.contains(&clock.delay)
            && (clock.increment == 0 || clock.delay == 0);
        if !fits {
            return Err(SettingsError::GameClock);
        }
    }
    // Said before the rule set is built: its own error would name the wrong option.
    let preset: Preset = settings.preset.parse()?;
    if preset.rules().format != Format::Duo && settings.king_friendly_capture {
        return Err(SettingsError::OtherFormat("king_friendly_capture", "Duo"));
    }
    let rules = rule_set(settings)?;
    if rules.format != Format::Duo && settings.team_clock != 0 {
        return Err(SettingsError::OtherFormat("team_clock", "Duo"));
    }
    if rules.format == Format::Duo && settings.game_clock.is_some() {
        return Err(SettingsError::OtherFormat(
            "game_clock",
            "Teams and free-for-all (Duo has its team clock)",
        ));
    }
    if rules.format != Format::Teams && (settings.silent_partners || settings.switch_partners) {
        return Err(SettingsError::OtherFormat(
            "silent_partners and switch_partners",
            "Teams",
        ));
    }
    if rules.format != Format::FreeForAll && settings.claim_win {
        return Err(SettingsError::OtherFormat("claim_win", "free-for-all"));
    }
    Ok(())
}

/// The engine rule set the settings describe.
pub(crate) fn rule_set(settings: &Settings) -> Result<RuleSet, SettingsError> {
    let preset: Preset = settings.preset.parse()?;
    let base = preset.rules();
    let default_fifty = match base.format {
        Format::Duo => 100,
        _ => 200,
    };
    let rules = RuleSet {
        castling: settings.castling,
        en_passant: settings.en_passant,
        king_capture: settings.king_capture,
        king_friendly_capture: settings.king_friendly_capture,
        promotion: match settings.promotion {
            PromotionChoice::All => PromotionSet::All,
            PromotionChoice::Queen => PromotionSet::QueenOnly,
            PromotionChoice::Minor => PromotionSet::Minor,
        },
        fifty_move_plies: settings
            .fifty_move_rule
            .then(|| base.fifty_move_plies.unwrap_or(default_fifty)),
        move_limit: (settings.move_limit > 0).then_some(settings.move_limit),
        pawn_breakthrough: settings.pawn_breakthrough,
        lifelines: if settings.lifelines { 2 } else { 0 },
        lead_ending: if settings.claim_win {
            LeadEnding::Claim
        } else {
            LeadEnding::Automatic
        },
        ..base
    };
    rules.validate()?;
    Ok(rules)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_default_is_valid() {
        for preset in Preset::ALL {
            let settings = defaults(preset);
            validate(&settings).unwrap();
            assert_eq!(rule_set(&settings).unwrap(), preset.rules());
        }
    }

    #[test]
    fn patches_change_only_what_they_name_and_are_checked() {
        let settings = defaults(Preset::Teams);
        let patch = SettingsPatch {
            en_passant: Some(false),
            turn_limit: Some(30),
            ..SettingsPatch::default()
        };
        let next = apply(&settings, &patch).unwrap();
        assert!(!next.en_passant && next.castling && next.turn_limit == 30);
        let bad = SettingsPatch {
            turn_limit: Some(45),
            ..SettingsPatch::default()
        };
        assert!(apply(&settings, &bad).is_err());
        let bad = SettingsPatch {
            preset: Some("duo".into()),
            king_capture: Some(true),
            ..SettingsPatch::default()
        };
        assert!(apply(&settings, &bad).is_err());
        let duo = SettingsPatch {
            preset: Some("duo".into()),
            team_clock: Some(5),
            ..SettingsPatch::default()
        };
        let next = apply(&settings, &duo).unwrap();
        assert_eq!(
            (next.preset.as_str(), next.team_clock, next.king_capture),
            ("duo", 5, false)
        );
        let bad = SettingsPatch {
            preset: Some("chess".into()),
            ..SettingsPatch::default()
        };
        assert!(
            apply(&settings, &bad)
                .unwrap_err()
                .to_string()
                .contains("unknown preset")
        );
    }
}
