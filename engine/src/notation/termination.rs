//! The `Result` and `Termination` tags: written from a game's outcome, and read back into the
//! action that ended a game when the movetext alone does not end it.

use crate::army::{Army, ByArmy};
use crate::game::{DrawReason, FfaEnding, Game, Outcome, Seat, Team, WinReason};
use crate::rules::Format;

/// The `Result` of a free-for-all as chess.com writes it: each player's name and points,
/// `ana: 72 - bo: 14 - cy: 61 - di: 33` (in no fixed order; names from the `Red`, `Blue`, `Yellow`
/// and `Green` tags).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChessComResult {
    /// Every army's points.
    pub(crate) points: ByArmy<i32>,
}

impl ChessComResult {
    /// Reads `value` with the players named in `tags`; `None` unless every army's points are
    /// there once (a name shared by two players cannot be told apart).
    pub(crate) fn parse(value: &str, tags: &[(String, String)]) -> Option<ChessComResult> {
        let mut points: ByArmy<Option<i32>> = ByArmy::default();
        for part in value.split(" - ") {
            let (name, pts) = part.rsplit_once(':')?;
            let pts: i32 = pts.trim().parse().ok()?;
            let mut armies = Army::ALL
                .into_iter()
                .filter(|&a| player_name(tags, a) == name.trim());
            let army = armies.next()?;
            if armies.next().is_some() || points[army].is_some() {
                return None;
            }
            points[army] = Some(pts);
        }
        let points = ByArmy::from_fn(|a| points[a]);
        Some(ChessComResult {
            points: ByArmy(points.0.map(|p| p.unwrap_or_default())),
        })
        .filter(|_| points.0.iter().all(Option::is_some))
    }
}

/// The name of the player of `army` in a `Result`: its tag, or the army's name where there is
/// none or two players share it (two CPU seats), so that every part names one player.
fn player_name(tags: &[(String, String)], army: Army) -> &str {
    let name_of = |a: Army| {
        tags.iter()
            .find(|(n, v)| n == a.name() && !v.trim().is_empty())
            .map(|(_, v)| v.trim())
    };
    match name_of(army) {
        Some(name)
            if Army::ALL
                .iter()
                .filter(|&&a| name_of(a) == Some(name))
                .count()
                == 1 =>
        {
            name
        }
        _ => army.name(),
    }
}

/// A free-for-all's `Result` in chess.com's form, in seat order.
pub(crate) fn write_chesscom_result(points: &ByArmy<i32>, tags: &[(String, String)]) -> String {
    Army::ALL
        .into_iter()
        .map(|a| format!("{}: {}", player_name(tags, a), points[a]))
        .collect::<Vec<_>>()
        .join(" - ")
}

/// The `Result` tag of a Teams or Duo outcome: `1-0` (Red and Yellow, or White), `0-1`,
/// `1/2-1/2`; `*` while the game goes on. A free-for-all's points are written in chess.com's form
/// by [`write_chesscom_result`]; here they are joined by dashes, `45-20-12-30`.
pub(crate) fn result_text(outcome: Option<&Outcome>) -> String {
    match outcome {
        None => "*".to_owned(),
        Some(Outcome::Win {
            team: Team::RedYellow,
            ..
        }) => "1-0".to_owned(),
        Some(Outcome::Win {
            team: Team::BlueGreen,
            ..
        }) => "0-1".to_owned(),
        Some(Outcome::Draw { .. }) => "1/2-1/2".to_owned(),
        Some(Outcome::Standings { points, .. }) => points
            .0
            .iter()
            .map(i32::to_string)
            .collect::<Vec<_>>()
            .join("-"),
    }
}

/// How a finished game ended, in words, then the result as PGN4/PGN write it (`Blue checkmated.
/// 1-0`, `Draw agreed. 1/2-1/2`); `None` while it goes on. This is the `Termination` tag.
pub fn termination_text(game: &Game) -> Option<String> {
    let outcome = game.outcome()?;
    let format = game.rules().format;
    let seat = |s: Seat| s.name(format);
    let words = match outcome {
        Outcome::Win { team, reason } => match reason {
            WinReason::Checkmate { mated } => format!("{} checkmated", seat(*mated)),
            WinReason::KingCaptured { victim } => format!("{}'s king captured", seat(*victim)),
            WinReason::Resignation { seat: s } => format!("{} resigned", seat(*s)),
            WinReason::Breakthrough { seat: s } => format!("{} broke through", seat(*s)),
            WinReason::Timeout { seat: s } => format!("{} lost on time", seat(*s)),
            WinReason::Abandonment { seat: s } => {
                format!("{} left; {} claimed the win", seat(*s), team.name(format))
            }
        },
        Outcome::Draw { reason } => draw_words(*reason, format),
        Outcome::Standings {
            winners, reason, ..
        } => {
            let names: Vec<&str> = winners.iter().map(Army::name).collect();
            let how = match reason {
                FfaEnding::LastPlayer => "Three players out".to_owned(),
                FfaEnding::Lead => "Decided by a lead of more than 20".to_owned(),
                FfaEnding::Claimed { seat: s } => format!("{} claimed the win", seat(*s)),
                FfaEnding::Draw(reason) => draw_words(*reason, format),
                FfaEnding::MoveLimit => "Move limit".to_owned(),
            };
            format!(
                "{how}; {} {}",
                names.join(" and "),
                if names.len() == 1 {
                    "wins"
                } else {
                    "share the win"
                }
            )
        }
    };
    Some(format!("{words}. {}", result_text(Some(outcome))))
}

fn draw_words(reason: DrawReason, format: Format) -> String {
    match reason {
        DrawReason::Stalemate { seat } => format!("{} stalemated", seat.name(format)),
        DrawReason::Agreement => "Draw agreed".to_owned(),
        DrawReason::Repetition => "Threefold repetition".to_owned(),
        DrawReason::FiftyMoves => "Fifty-move rule".to_owned(),
        DrawReason::DeadPosition => "Insufficient material".to_owned(),
        DrawReason::MoveLimit => "Move limit".to_owned(),
        DrawReason::TimeoutVsInsufficientMaterial { seat } => {
            format!(
                "{} lost on time against insufficient material",
                seat.name(format)
            )
        }
    }
}

/// Ends `game` the way a `Termination` tag says, when its moves alone did not: a draw agreed, a
/// resignation, a timeout, a claimed win or a player who left. Returns whether it did.
pub(crate) fn apply_termination(game: &mut Game, termination: &str) -> bool {
    if game.is_over() {
        return false;
    }
    let text = termination.to_ascii_lowercase();
    let format = game.rules().format;
    let named = Seat::ALL
        .into_iter()
        .find(|s| text.starts_with(&s.name(format).to_ascii_lowercase()));
    if text.starts_with("draw agreed") {
        for seat in game.seats_in_game() {
            let _ = game.offer_draw(seat);
        }
    } else if let Some(seat) = named {
        if text.contains("resigned") {
            if let Ok(crate::game::ResignOutcome::PartnerAsked) = game.resign(seat) {
                let _ = game.answer_resignation(seat.partner(), true);
            }
        } else if text.contains("on time") || text.contains("timed out") {
            let _ = game.time_out(seat);
        } else if text.contains("claimed the win") && format == Format::FreeForAll {
            let _ = game.claim_win(seat);
        } else if text.contains(" left") {
            let _ = game.abandon(seat);
        }
    }
    game.is_over()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(names: [&str; 4]) -> Vec<(String, String)> {
        Army::ALL
            .into_iter()
            .zip(names)
            .map(|(a, n)| (a.name().to_owned(), n.to_owned()))
            .collect()
    }

    #[test]
    fn chesscom_results_name_the_players_in_any_order() {
        let tags = tags(["dalay045", "ThefFo0l", "OutlawedGangster", "StockBrilliant"]);
        let read = ChessComResult::parse(
            "OutlawedGangster: 61 - dalay045: 72 - StockBrilliant: 33 - ThefFo0l: 14",
            &tags,
        )
        .unwrap();
        assert_eq!(read.points.0, [72, 14, 61, 33]);
        assert_eq!(
            write_chesscom_result(&read.points, &tags),
            "dalay045: 72 - ThefFo0l: 14 - OutlawedGangster: 61 - StockBrilliant: 33"
        );
        // A missing player, an unknown name or a number that is not one: not this form.
        assert!(ChessComResult::parse("dalay045: 72 - ThefFo0l: 14", &tags).is_none());
        assert!(
            ChessComResult::parse(
                "x: 1 - ThefFo0l: 14 - OutlawedGangster: 61 - StockBrilliant: 33",
                &tags
            )
            .is_none()
        );
        assert!(ChessComResult::parse("45-20-12-30", &tags).is_none());
    }

    #[test]
    fn players_without_a_name_of_their_own_are_named_by_their_army() {
        let tags = tags(["cpu (hard)", "ana", "cpu (hard)", ""]);
        let points = ByArmy([3, 20, 9, 0]);
        let text = write_chesscom_result(&points, &tags);
        assert_eq!(text, "Red: 3 - ana: 20 - Yellow: 9 - Green: 0");
        assert_eq!(ChessComResult::parse(&text, &tags).unwrap().points, points);
    }
}
