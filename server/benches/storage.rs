//! What one group commit costs the writer thread: a batch of moves from many rooms (each a record
//! carrying the room's new version), committed to SQLite (WAL, each sync level) and to memory, the
//! baseline measured in the same run.
// criterion_group! and criterion_main! generate functions that cannot carry docs.
#![allow(missing_docs)]

use std::path::{Path, PathBuf};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use fourkings_server::StorageSync;
use fourkings_server::storage::memory::MemoryStorage;
use fourkings_server::storage::sqlite::SqliteStorage;
use fourkings_server::storage::{Storage, Write};

/// Rooms whose moves arrive together, as under load.
const ROOMS: usize = 400;

/// A record as a room writes it for a move (the JSON of `Record::Game`).
const MOVE_RECORD: &str =
    r#"{"type":"game","action":{"type":"move","seat":1,"mv":"h2h4","automatic":false}}"#;

fn room_id(i: usize) -> String {
    format!("bench{i:08}")
}

/// Every room created, so that versions update existing rows.
fn fill(storage: &mut dyn Storage) {
    let writes: Vec<Write> = (0..ROOMS)
        .map(|i| Write::CreateRoom {
            room: room_id(i),
            at: 1,
        })
        .collect();
    storage.write(&writes).expect("rooms created");
}

/// One batch: each room's move record and new version.
fn batch(version: u64) -> Vec<Write> {
    (0..ROOMS)
        .map(|i| Write::Record {
            room: room_id(i),
            at: 1_700_000_000_000 + version,
            body: MOVE_RECORD.to_owned(),
            v: Some(version),
            epoch: None,
        })
        .collect()
}

fn temp_file(name: &str) -> PathBuf {
    let path =
        std::env::temp_dir().join(format!("fourkings-bench-{}-{name}.db", std::process::id()));
    remove(&path);
    path
}

fn remove(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
    }
}

fn group_commit(c: &mut Criterion) {
    let mut group = c.benchmark_group("group_commit_400_moves");
    group.throughput(Throughput::Elements(ROOMS as u64));
    let mut memory = MemoryStorage::default();
    fill(&mut memory);
    let mut version = 0;
    group.bench_function("memory", |b| {
        b.iter_batched(
            || {
                version += 1;
                batch(version)
            },
            |writes| memory.write(&writes).expect("written"),
            BatchSize::LargeInput,
        );
    });
    for (name, sync) in [
        ("sqlite_normal", StorageSync::Normal),
        ("sqlite_full", StorageSync::Full),
    ] {
        let path = temp_file(name);
        let mut sqlite = SqliteStorage::open(&path, sync).expect("a fresh database");
        fill(&mut sqlite);
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    version += 1;
                    batch(version)
                },
                |writes| sqlite.write(&writes).expect("written"),
                BatchSize::LargeInput,
            );
        });
        drop(sqlite);
        remove(&path);
    }
    group.finish();
}

criterion_group!(benches, group_commit);
criterion_main!(benches);
