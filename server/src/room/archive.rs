//! A finished game for the archive: the whole game as PGN4 (PGN for Duo), with its players,
//! settings and result.

use fourkings_engine::notation::{termination_text, write_pgn_upto, write_pgn4_upto};
use fourkings_engine::{Format, Game};
use fourkings_protocol::{SeatIndex, Settings};

use super::command::GameFile;
use super::seat_numbers;
use crate::storage::ArchivedGame;

/// What a game's record says about the room it was played in.
pub(crate) struct Table<'a> {
    /// The room's id.
    pub(crate) room: &'a str,
    /// The game's id in the archive (`<room>-<n>`).
    pub(crate) game_id: String,
    /// Each seat's player as the record names them.
    pub(crate) names: Vec<String>,
    /// The room's settings.
    pub(crate) settings: &'a Settings,
}

/// A finished game as the archive keeps it, finished at `at` (ms since the epoch).
pub(crate) fn archived(table: Table<'_>, game: &Game, at: u64) -> ArchivedGame {
    let players = serde_json::to_string(&table.names).unwrap_or_default();
    let settings = serde_json::to_string(table.settings).unwrap_or_default();
    let room = table.room.to_owned();
    let file = game_file(table, game, at);
    ArchivedGame {
        id: file.id,
        room,
        finished_at: at,
        board: if file.extension == "pgn" {
            "classic"
        } else {
            "cross"
        }
        .to_owned(),
        players,
        settings,
        result: termination_text(game).unwrap_or_default(),
        text: file.text,
    }
}

/// A game, finished or not, as a file to download at `at`: the server's record, so that every
/// client downloads the same text, with each ply's seat, eliminations and comments.
pub(crate) fn game_file(table: Table<'_>, game: &Game, at: u64) -> GameFile {
    game_file_upto(table, game, game.events().len(), at)
}

/// [`game_file`] of `game` as it stood after its first `events` events (its plies and actions):
/// what the room shows while its last events are not durable yet.
pub(crate) fn game_file_upto(table: Table<'_>, game: &Game, events: usize, at: u64) -> GameFile {
    let format = game.rules().format;
    let names = &table.names;
    let mut tags = vec![
        ("Event".to_owned(), "Four Kings".to_owned()),
        ("Site".to_owned(), format!("room {}", table.room)),
        ("Date".to_owned(), date_of(at)),
    ];
    let (extension, text) = if format == Format::Duo {
        let pair = |a: usize, b: usize| format!("{} & {}", names[a], names[b]);
        tags.push(("White".to_owned(), pair(0, 2)));
        tags.push(("Black".to_owned(), pair(1, 3)));
        ("pgn", write_pgn_upto(game, &tags, events))
    } else {
        for (seat, name) in SeatIndex::ALL.into_iter().zip(names) {
            tags.push((seat_numbers::seat_label(format, seat), name.clone()));
        }
        if table.settings.turn_limit > 0 {
            tags.push((
                "TimeControl".to_owned(),
                format!("{} per move", table.settings.turn_limit),
            ));
        }
        ("pgn4", write_pgn4_upto(game, &tags, events))
    };
    GameFile {
        id: table.game_id,
        extension,
        text,
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
