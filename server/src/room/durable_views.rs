//! What the room's HTTP readers are shown: the room as of its durable version, never a change
//! still on its way to the disk. A WebSocket client's messages wait in [`super::delivery`]; these
//! are the room's answers to `GET /api/rooms/<id>` and to the game download.
//!
//! The room's info is kept as it stood before the first change that is not durable yet, from
//! that change until it is durable, with how far its game had got: readers get the info at once,
//! and the game download the game as it stood then, even while storage is slow or stalled.
//! Only a download across a new game not yet durable (a rematch) waits for it, as far as its HTTP
//! handler lets it.
//!
//! Keeping the info is on every move's path; it is simply built before each change, as sharing
//! one between moves saved too little to keep (tests/perf/README.md, "Tried and not kept").

use fourkings_protocol::RoomInfo;
use tokio::sync::oneshot;

use super::command::GameFile;

/// A game download waiting for durability: the version it needs, where it goes, and the file.
type HeldGameFile = (u64, oneshot::Sender<Option<GameFile>>, Option<GameFile>);

/// How far the room's game had got when everything was last durable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GameAt {
    /// Games begun in the room by then.
    pub(crate) games_played: u32,
    /// The events (plies and actions) of its game by then.
    pub(crate) events: usize,
}

/// The room's answers to HTTP readers.
pub(crate) struct DurableViews {
    /// The info as it stood when everything was last durable, while a change since is not.
    info: Option<RoomInfo>,
    /// How far the game had got then (`None` before a game began).
    game: Option<GameAt>,
    /// Game downloads waiting for the version they show to be durable.
    game_files: Vec<HeldGameFile>,
}

impl DurableViews {
    /// Nothing held.
    pub(crate) fn new() -> DurableViews {
        DurableViews {
            info: None,
            game: None,
            game_files: Vec::new(),
        }
    }

    /// Whether it holds the info as it stood before a change that is not durable yet.
    pub(crate) fn holds_info(&self) -> bool {
        self.info.is_some()
    }

    /// The room, all durable, is about to change: readers see `info`, and its game as far as
    /// `game`, until the change is durable too.
    pub(crate) fn hold(&mut self, info: RoomInfo, game: Option<GameAt>) {
        self.info = Some(info);
        self.game = game;
    }

    /// How far the game readers see had got, while a change is on its way to the disk: `None`
    /// when there is none on its way (or no game had begun).
    pub(crate) fn pending_game(&self) -> Option<GameAt> {
        self.info.as_ref().and(self.game)
    }

    /// The info readers see while a change is on its way to the disk; `None` when the room as it
    /// is now is durable.
    pub(crate) fn pending_info(&self) -> Option<&RoomInfo> {
        self.info.as_ref()
    }

    /// Sends `file`, which shows the room at version `needs`, to `reply` once that version is
    /// durable (`durable` is the durable version now).
    pub(crate) fn send_game_file(
        &mut self,
        reply: oneshot::Sender<Option<GameFile>>,
        file: Option<GameFile>,
        needs: u64,
        durable: u64,
    ) {
        if needs <= durable {
            let _ = reply.send(file);
            return;
        }
        // Readers that gave up (their handler's wait is bounded) are not kept waiting for.
        self.game_files.retain(|(_, reply, _)| !reply.is_closed());
        self.game_files.push((needs, reply, file));
    }

    /// Everything up to `durable` is durable now, and all of the room if `all_durable`.
    pub(crate) fn durable_upto(&mut self, durable: u64, all_durable: bool) {
        if all_durable {
            self.info = None;
            self.game = None;
        }
        if self.game_files.is_empty() {
            return;
        }
        let (ready, waiting) = std::mem::take(&mut self.game_files)
            .into_iter()
            .partition::<Vec<_>, _>(|(needs, _, _)| *needs <= durable);
        self.game_files = waiting;
        for (_, reply, file) in ready {
            let _ = reply.send(file);
        }
    }
}
