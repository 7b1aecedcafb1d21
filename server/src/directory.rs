//! The directory: room ids to room handles. The lock is never held across an `.await`.

use std::collections::HashMap;
use std::sync::RwLock;

use fourkings_protocol::Settings;

use crate::ids::new_room_id;
use crate::room::{self, RoomContext, RoomHandle};

/// Every room the server holds.
pub(crate) struct Directory {
    rooms: RwLock<HashMap<String, RoomHandle>>,
    context: RoomContext,
}

/// The server holds as many rooms as it may.
#[derive(Debug)]
pub(crate) struct TooManyRooms;

impl Directory {
    pub(crate) fn new(context: RoomContext) -> Directory {
        Directory {
            rooms: RwLock::new(HashMap::new()),
            context,
        }
    }

    /// Creates a room; returns its id and host token.
    pub(crate) fn create(&self, settings: Settings) -> Result<(String, String), TooManyRooms> {
        let mut rooms = self.rooms.write().unwrap_or_else(|e| e.into_inner());
        if rooms.len() >= self.context.config.max_rooms {
            return Err(TooManyRooms);
        }
        let mut id = new_room_id();
        while rooms.contains_key(&id) {
            id = new_room_id();
        }
        let (handle, host_token) = room::spawn(id.clone(), settings, self.context.clone());
        rooms.insert(id.clone(), handle);
        Ok((id, host_token))
    }

    /// Adds a room rebuilt from storage.
    pub(crate) fn insert(&self, id: String, handle: RoomHandle) {
        self.rooms
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(id, handle);
    }

    /// Forgets a room that has ended.
    pub(crate) fn remove(&self, id: &str) {
        self.rooms
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(id);
    }

    /// How many rooms it holds.
    pub(crate) fn len(&self) -> usize {
        self.rooms.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// The room with this id.
    pub(crate) fn get(&self, id: &str) -> Option<RoomHandle> {
        self.rooms
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(id)
            .cloned()
    }
}
