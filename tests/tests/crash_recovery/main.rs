//! Crash recovery, end to end.
//!
//! The real binary runs on a database file in a fresh directory (and again on a PostgreSQL server
//! of the test's own). The test sets up 50 rooms in
//! varied states: mid-game under every preset, turn limits and Duo team clocks running, CPU seats
//! (and rooms of CPUs only, started just before the kill so that they are still playing), a
//! player in the grace period, pending draw offers, a resignation waiting for the partner,
//! finished games awaiting a rematch, a rematch and a switch-partners session under way, lobbies
//! with seats taken and settings changed (one after a player was moved and the host role handed
//! over), a lifeline takeback, and chat in every channel. Every connection keeps its own copy of
//! its room ([`Model`](fourkings_tests::model::Model)) from what the server sends, and the test records what was acknowledged:
//! tokens, versions, moves, chat.
//!
//! Then each room is captured (a fresh spectator snapshot and `GET /api/rooms/<id>`), the process
//! is killed with SIGKILL, left dead for a while, and started again on the same file. Every room
//! must be back as it was: version (plus exactly one `presence` event per person who was online:
//! the restart marks them `away`), board, moves, seats, host, settings, chat, draw offer and
//! result; a running turn limit resumes with the time it had left when the process died (the time
//! it was down does not count), and Duo's banks likewise (stopped, since everyone is away). Every
//! connection then reconnects with its tokens and its last version and must receive exactly the
//! events it missed (and a connection opened after the restart only the events after its
//! snapshot); one that was already behind when the process died gets a snapshot of the restored
//! room instead, since the records are stored and the events published from them are not. Then
//! the game carries on with legal moves. Every acknowledged move is in the move
//! list exactly once at its ply, and sending one again is refused as `stale_ply`.
//!
//! Item 6 runs the same 50 rooms through SIGTERM instead: every connection receives what it was
//! owed and then the close for a restart (1012), the process exits cleanly, and every room comes
//! back just the same.
//!
//! A second, small test pins down the bug this one found: the restart's own `presence` events
//! were sent a second time, after the snapshot that already showed them.
//!
//! # Layout
//!
//! - `specs`: the 50 rooms, and what each goes through besides moves (`Twist`);
//! - `base`, `peer`, `rejoin`: where the server is, and one connection of the test with its own
//!   copy of the room (`rejoin`: the same connection across the restart);
//! - `room`, `setup`, `twists`: a room of the test, bringing it to its state before the kill,
//!   playing on, and what the twisted rooms do before the kill and after the restart;
//! - `capture`, `clocks`, `recover`: the room just before the kill, the same room after the
//!   restart, the clocks across it, and everyone coming back;
//! - `run`: one run of the 50 rooms, stopped by SIGKILL or SIGTERM;
//! - `presence_once`: the small test.

mod base;
mod capture;
mod clocks;
mod peer;
mod presence_once;
mod recover;
mod rejoin;
mod room;
mod run;
mod setup;
mod specs;
mod twists;

use std::time::Duration;

use run::{Backend, Stop};

/// The whole test may not take longer than this.
const TEST_BUDGET: Duration = Duration::from_secs(150);

/// The two runs of 50 rooms take turns: side by side they would share the two cores, and the
/// clock checks are about the server's time, not the machine's load.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_room_comes_back_after_a_kill_and_play_goes_on() {
    let _turn = ONE_AT_A_TIME.lock().await;
    tokio::time::timeout(TEST_BUDGET, run::run(Stop::Kill, Backend::File))
        .await
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}

/// The same 50 rooms and kill, on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_every_room_comes_back_after_a_kill_and_play_goes_on() {
    let _turn = ONE_AT_A_TIME.lock().await;
    tokio::time::timeout(TEST_BUDGET, run::run(Stop::Kill, Backend::Postgres))
        .await
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}

/// The same 50 rooms and kill on a node of a cluster: another node, started after the downtime,
/// adopts every room from the database.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_cluster_every_room_comes_back_at_another_node_after_a_kill() {
    let _turn = ONE_AT_A_TIME.lock().await;
    tokio::time::timeout(TEST_BUDGET, run::run(Stop::Kill, Backend::Cluster))
        .await
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}

/// The same 50 rooms through a graceful restart. Every connection receives what it was owed and
/// then the close for a restart, the process exits cleanly, and every room comes back as after a
/// kill: nothing lost, and every client carries on from its version.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_room_comes_back_after_sigterm_and_play_goes_on() {
    let _turn = ONE_AT_A_TIME.lock().await;
    tokio::time::timeout(TEST_BUDGET, run::run(Stop::Term, Backend::File))
        .await
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}

/// The same graceful restart, on PostgreSQL.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_postgres_every_room_comes_back_after_sigterm_and_play_goes_on() {
    let _turn = ONE_AT_A_TIME.lock().await;
    tokio::time::timeout(TEST_BUDGET, run::run(Stop::Term, Backend::Postgres))
        .await
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}

/// The same graceful stop on a node of a cluster: it releases its leases, and another node
/// adopts every room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_cluster_every_room_comes_back_at_another_node_after_sigterm() {
    let _turn = ONE_AT_A_TIME.lock().await;
    tokio::time::timeout(TEST_BUDGET, run::run(Stop::Term, Backend::Cluster))
        .await
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}

/// The restart marks the people who were online `away` while nobody is connected: those events
/// reach a client once, in its snapshot or in its replay (see `presence_once`).
#[tokio::test]
async fn the_restarts_own_events_are_not_sent_again_after_a_snapshot() {
    tokio::time::timeout(Duration::from_secs(60), presence_once::run())
        .await
        .expect("the test finishes within its budget")
        .unwrap_or_else(|e| panic!("{e:#}"));
}
