//! Storage in memory: for tests, and for a server that does not need to survive a restart.

use std::collections::HashMap;

use super::{ArchivedGame, Loaded, RoomLog, Storage, StorageError, Write};

/// Keeps everything in memory; gone when the process ends.
#[derive(Debug, Default)]
pub struct MemoryStorage {
    rooms: HashMap<String, RoomLog, foldhash::fast::RandomState>,
    /// Insertion order of the rooms, so that loading is deterministic.
    order: Vec<String>,
    closed: Vec<String>,
    games: HashMap<String, ArchivedGame>,
    alive_at: Option<u64>,
}

impl MemoryStorage {
    /// Empty storage.
    pub fn new() -> MemoryStorage {
        MemoryStorage::default()
    }
}

impl Storage for MemoryStorage {
    fn load(&mut self) -> Result<Loaded, StorageError> {
        let rooms = self
            .order
            .iter()
            .filter(|id| !self.closed.contains(id))
            .filter_map(|id| self.rooms.get(id))
            .cloned()
            .collect();
        Ok(Loaded {
            rooms,
            alive_at: self.alive_at,
        })
    }

    fn room(&mut self, id: &str) -> Result<Option<RoomLog>, StorageError> {
        Ok(self.rooms.get(id).cloned())
    }

    fn write(&mut self, writes: &[Write]) -> Result<(), StorageError> {
        for write in writes {
            match write {
                Write::CreateRoom { room, .. } => {
                    self.order.push(room.clone());
                    self.rooms.insert(
                        room.clone(),
                        RoomLog {
                            id: room.clone(),
                            ..RoomLog::default()
                        },
                    );
                }
                Write::Record {
                    room, at, body, v, ..
                } => {
                    if let Some(log) = self.rooms.get_mut(room) {
                        log.records.push((*at, body.clone()));
                        if let Some(v) = v {
                            log.version = *v;
                        }
                    }
                }
                Write::Version { room, v, .. } => {
                    if let Some(log) = self.rooms.get_mut(room) {
                        log.version = *v;
                    }
                }
                Write::Archive(game) => {
                    self.games.insert(game.id.clone(), game.clone());
                }
                Write::CloseRoom { room, .. } => {
                    self.closed.push(room.clone());
                    self.rooms.remove(room);
                }
                Write::Alive { at } => self.alive_at = Some(*at),
            }
        }
        Ok(())
    }

    fn game(&mut self, id: &str) -> Result<Option<ArchivedGame>, StorageError> {
        Ok(self.games.get(id).cloned())
    }

    fn is_immediate(&self) -> bool {
        true
    }
}
