//! A finished game for the archive: the whole game as PGN4 (PGN for Duo), with its players,
//! settings and result.

use fourkings_engine::Format;
use fourkings_engine::notation::{termination_text, write_pgn, write_pgn4};

use super::state::{Room, SeatSlot};
use super::views;
use crate::storage::ArchivedGame;

impl Room {
    /// The id of the current game in the archive: `<room>-<n>`.
    pub(super) fn game_id(&self) -> String {
        format!("{}-{}", self.id, self.games_played)
    }

    /// The current game, if it is over, as the archive keeps it.
    pub(super) fn archive(&self) -> Option<ArchivedGame> {
        let game = self.game.as_ref().filter(|g| g.is_over())?;
        let format = game.rules().format;
        let names: Vec<String> = (0..4u8)
            .map(|seat| match &self.seats[usize::from(seat)] {
                SeatSlot::Human { name, .. } => name.clone(),
                SeatSlot::Cpu { level } => format!("CPU ({level:?})").to_lowercase(),
                SeatSlot::Empty => String::new(),
            })
            .collect();
        let at = self.wall_now();
        let date = date_of(at);
        let mut tags = vec![
            ("Event".to_owned(), "Four Kings".to_owned()),
            ("Site".to_owned(), format!("room {}", self.id)),
            ("Date".to_owned(), date),
        ];
        let text = if format == Format::Duo {
            let pair = |a: usize, b: usize| format!("{} & {}", names[a], names[b]);
            tags.push(("White".to_owned(), pair(0, 2)));
            tags.push(("Black".to_owned(), pair(1, 3)));
            write_pgn(game, &tags)
        } else {
            for (seat, name) in names.iter().enumerate() {
                tags.push((views::seat_label(format, seat as u8), name.clone()));
            }
            if self.settings.turn_limit > 0 {
                tags.push((
                    "TimeControl".to_owned(),
                    format!("{} per move", self.settings.turn_limit),
                ));
            }
            write_pgn4(game, &tags)
        };
        Some(ArchivedGame {
            id: self.game_id(),
            room: self.id.clone(),
            finished_at: at,
            board: if format == Format::Duo {
                "classic"
            } else {
                "cross"
            }
            .to_owned(),
            players: serde_json::to_string(&names).unwrap_or_default(),
            settings: serde_json::to_string(&self.settings).unwrap_or_default(),
            result: termination_text(game).unwrap_or_default(),
            text,
        })
    }
}

/// The UTC date of a moment (ms since the epoch), `YYYY-MM-DD`.
fn date_of(ms: u64) -> String {
    // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
    let days = (ms / 86_400_000) as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::date_of;

    #[test]
    fn dates_are_civil_dates() {
        assert_eq!(date_of(0), "1970-01-01");
        // 2026-11-30 00:00 UTC.
        assert_eq!(date_of(1_795_996_800_000), "2026-11-30");
        assert_eq!(date_of(951_782_400_000), "2000-02-29");
    }
}
