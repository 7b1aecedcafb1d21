//! What a player's searches keep from one move to the next: the transposition table and the
//! quiet-move histories, as an engine that plays a whole game keeps them (4pchess does, and so
//! does every UCI engine between `go` commands).

use super::ordering::Heuristics;
use super::tt::Table;

/// The table slots of a [`SearchMemory`] made by [`SearchMemory::default`]: 2M slots of 16
/// bytes (32 MiB), enough for the interior nodes of a search of a few seconds.
pub const DEFAULT_TABLE_SLOTS: usize = 1 << 21;

/// A player's search memory, carried from one search to the next with
/// [`Bot::choose_with`](super::Bot::choose_with).
///
/// One memory serves any root army, rules and level: entries of a search for one army are keyed
/// apart from another army's, so a memory shared by both seats of a team, or kept over a whole
/// match, never answers with a score seen from the other side.
pub struct SearchMemory {
    table: Table,
    heuristics: Heuristics,
}

impl SearchMemory {
    /// An empty memory whose table has at least `slots` slots (rounded up to a power of two).
    pub fn with_table_slots(slots: usize) -> SearchMemory {
        SearchMemory {
            table: Table::new(slots),
            heuristics: Heuristics::new(),
        }
    }

    /// An empty memory whose table takes about `megabytes` MiB (the UCI `Hash` option).
    pub fn with_megabytes(megabytes: usize) -> SearchMemory {
        SearchMemory::with_table_slots((megabytes << 20) / Table::SLOT_BYTES)
    }

    /// Hands the parts to a search, leaving a small empty memory in their place until they come
    /// back through [`SearchMemory::restore`].
    pub(crate) fn take(&mut self) -> (Table, Heuristics) {
        self.table.next_search();
        let table = std::mem::replace(&mut self.table, Table::new(0));
        let heuristics = std::mem::replace(&mut self.heuristics, Heuristics::empty());
        (table, heuristics)
    }

    /// Takes back the parts a search was lent.
    pub(crate) fn restore(&mut self, table: Table, heuristics: Heuristics) {
        self.table = table;
        self.heuristics = heuristics;
    }
}

impl Default for SearchMemory {
    fn default() -> SearchMemory {
        SearchMemory::with_table_slots(DEFAULT_TABLE_SLOTS)
    }
}

impl std::fmt::Debug for SearchMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchMemory")
            .field("table_slots", &self.table.slots())
            .finish_non_exhaustive()
    }
}
