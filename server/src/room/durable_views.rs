//! What the room's HTTP readers are shown: the room as of its durable version, never a change
//! still on its way to the disk. A WebSocket client's messages wait in [`super::delivery`]; these
//! are the room's answers to `GET /api/rooms/<id>` and to the game download.
//!
//! The room's info is kept as it stood before the first change that is not durable yet, from
//! that change until it is durable: readers get it at once, even while storage is slow or stalled.
//! (Building it costs a few small allocations, once a turn that changes the room.) A game download
//! is written when asked and sent once the version it shows is durable; the HTTP handler bounds
//! the wait.

use fourkings_protocol::RoomInfo;
use tokio::sync::oneshot;

use super::command::GameFile;

/// A game download waiting for durability: the version it needs, where it goes, and the file.
type HeldGameFile = (u64, oneshot::Sender<Option<GameFile>>, Option<GameFile>);

/// The room's answers to HTTP readers.
pub(crate) struct DurableViews {
    /// The info as it stood when everything was last durable, while a change since is not.
    info: Option<RoomInfo>,
    /// Game downloads waiting for the version they show to be durable.
    game_files: Vec<HeldGameFile>,
}

impl DurableViews {
    /// Nothing held.
    pub(crate) fn new() -> DurableViews {
        DurableViews {
            info: None,
            game_files: Vec::new(),
        }
    }

    /// Whether it holds the info as it stood before a change that is not durable yet.
    pub(crate) fn holds_info(&self) -> bool {
        self.info.is_some()
    }

    /// The room, all durable, is about to change: readers see `info` until the change is
    /// durable too.
    pub(crate) fn hold_info(&mut self, info: RoomInfo) {
        self.info = Some(info);
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
