//! A finished game for the archive: the whole game as PGN4 (PGN for Duo), with its players,
//! settings and result.

use fourkings_engine::notation::{termination_text, write_pgn, write_pgn4};
use fourkings_engine::{Format, Game};

use super::GameFile;
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
        let at = self.wall_now();
        let file = self.game_file_of(game, at);
        Some(ArchivedGame {
            id: file.id,
            room: self.id.clone(),
            finished_at: at,
            board: if file.extension == "pgn" {
                "classic"
            } else {
                "cross"
            }
            .to_owned(),
            players: serde_json::to_string(&self.player_names()).unwrap_or_default(),
            settings: serde_json::to_string(&self.settings).unwrap_or_default(),
            result: termination_text(game).unwrap_or_default(),
            text: file.text,
        })
    }

    /// The current game, finished or not, as a file to download: the server's record, so that
    /// every client downloads the same text, with each ply's seat, eliminations and comments.
    pub(super) fn game_file(&self) -> Option<GameFile> {
        let game = self.game.as_ref()?;
        Some(self.game_file_of(game, self.wall_now()))
    }

    fn player_names(&self) -> Vec<String> {
        (0..4u8)
            .map(|seat| match &self.seats[usize::from(seat)] {
                SeatSlot::Human { name, .. } => name.clone(),
                SeatSlot::Cpu { level } => format!("CPU ({level:?})").to_lowercase(),
                SeatSlot::Empty => String::new(),
            })
            .collect()
    }

    fn game_file_of(&self, game: &Game, at: u64) -> GameFile {
        let format = game.rules().format;
        let names = self.player_names();
        let mut tags = vec![
            ("Event".to_owned(), "Four Kings".to_owned()),
            ("Site".to_owned(), format!("room {}", self.id)),
            ("Date".to_owned(), date_of(at)),
        ];
        let (extension, text) = if format == Format::Duo {
            let pair = |a: usize, b: usize| format!("{} & {}", names[a], names[b]);
            tags.push(("White".to_owned(), pair(0, 2)));
            tags.push(("Black".to_owned(), pair(1, 3)));
            ("pgn", write_pgn(game, &tags))
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
            ("pgn4", write_pgn4(game, &tags))
        };
        GameFile {
            id: self.game_id(),
            extension,
            text,
        }
    }
}

/// The UTC date of a moment (ms since the epoch), `YYYY-MM-DD`.
fn date_of(ms: u64) -> String {
    let at = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    at.format(time::macros::format_description!("[year]-[month]-[day]"))
        .unwrap_or_default()
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
