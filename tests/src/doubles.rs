//! A storage double for the tests of durability and of storage failing: a real store (in memory,
//! a SQLite file or PostgreSQL) whose commits the test can hold at a gate (a slow or hanging
//! disk) or make fail (a full disk, an I/O error), and which remembers every batch it stored.

use std::sync::{Arc, Condvar, Mutex};

use fourkings_server::storage::{ArchivedGame, Loaded, RoomLog, Storage, StorageError, Write};

use crate::{Store, StoreData};

/// The double; its clones share one store, so the test keeps one and the server another.
#[derive(Clone)]
pub struct TestStorage {
    inner: Arc<Mutex<Box<dyn Storage>>>,
    /// Whether commits go through (`false`: they wait until it is `true` again).
    open: Arc<(Mutex<bool>, Condvar)>,
    /// Whether commits fail.
    failing: Arc<Mutex<bool>>,
    batches: Arc<Mutex<Vec<Vec<Write>>>>,
    /// The folder of the SQLite file or the database server, removed with the last clone.
    _data: Arc<Option<StoreData>>,
}

impl TestStorage {
    /// A store of this kind, open and working.
    pub fn new(store: Store) -> TestStorage {
        let (inner, data) = store.open();
        TestStorage {
            inner: Arc::new(Mutex::new(inner)),
            open: Arc::new((Mutex::new(true), Condvar::new())),
            failing: Arc::default(),
            batches: Arc::default(),
            _data: Arc::new(data),
        }
    }

    /// Holds commits at the gate (`false`), or lets them through (`true`).
    pub fn set_open(&self, open: bool) {
        *self.open.0.lock().unwrap() = open;
        self.open.1.notify_all();
    }

    /// Makes every commit fail (`true`: "No space left on device"), or work again.
    pub fn set_failing(&self, failing: bool) {
        *self.failing.lock().unwrap() = failing;
    }

    /// Every batch stored so far.
    pub fn batches(&self) -> Vec<Vec<Write>> {
        self.batches.lock().unwrap().clone()
    }

    /// The records stored so far, as text.
    pub fn stored_records(&self) -> Vec<String> {
        self.batches()
            .iter()
            .flatten()
            .filter_map(|w| match w {
                Write::Record { body, .. } => Some(body.clone()),
                _ => None,
            })
            .collect()
    }
}

impl Storage for TestStorage {
    fn load(&mut self) -> Result<Loaded, StorageError> {
        self.inner.lock().unwrap().load()
    }

    fn room(&mut self, id: &str) -> Result<Option<RoomLog>, StorageError> {
        self.inner.lock().unwrap().room(id)
    }

    fn write(&mut self, writes: &[Write]) -> Result<(), StorageError> {
        let (lock, ready) = &*self.open;
        let mut open = lock.lock().unwrap();
        while !*open {
            open = ready.wait(open).unwrap();
        }
        drop(open);
        if *self.failing.lock().unwrap() {
            return Err(StorageError::database(std::io::Error::other(
                "No space left on device (os error 28)",
            )));
        }
        self.inner.lock().unwrap().write(writes)?;
        self.batches.lock().unwrap().push(writes.to_vec());
        Ok(())
    }

    fn game(&mut self, id: &str) -> Result<Option<ArchivedGame>, StorageError> {
        self.inner.lock().unwrap().game(id)
    }
}
