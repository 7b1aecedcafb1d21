//! A room: one task that owns all of a room's state and takes commands from its inbox. Nothing
//! else touches the state, so a room needs no locks; connections and timers only send commands.
//!
//! The state is a few parts, each owning its own and changed only through its methods. A command
//! flows one way:
//!
//! ```text
//!  inbox ─▶ task ─▶ handler ─▶ the part that decides ─▶ records ─▶ commit ─┬▶ parts (applied)
//!  (command)  (task/)  (task/*.rs)   (seating, driver, chat)   (record)      └▶ journal ─▶ writer
//!                                                                               │ durable
//!           events ◀── handler publishes what changed                            ▼
//!           (EventLog) ──────────────────────────────▶ delivery ─▶ connections (held until durable)
//! ```
//!
//! Where each concern lives:
//!
//! | concern | module |
//! |---|---|
//! | commands, the handle, the context | [`command`] |
//! | the task: routing, commit, the end of a turn | `task` (its handlers in `task/*.rs`) |
//! | what changes are stored as | [`record`] |
//! | versions and the kept events | [`events`] |
//! | storage writes and what is durable | [`journal`] |
//! | connections, proofs of seats, fan-out, durability gating | [`delivery`] |
//! | seats, tokens, the host, presence and absence | [`seating`] |
//! | the game, clocks, CPU turns, legal moves | [`driver`] (clocks in [`clock`]) |
//! | when the room closes | [`lifecycle`] |
//! | what waits while storage takes no writes | [`outage`] |
//! | chat lines and allowances | [`chat`] |
//! | switch-partners sessions | [`session`] |
//! | the room's clock on restore | [`timebase`] |
//! | refusals | [`refusal`] |
//! | settings and rule sets | [`rules`] |
//! | protocol views of a game | [`views`] |
//! | game records for download and the archive | [`archive`] |
//! | metrics and log lines | [`observe`] |
//!
//! The parts know nothing of the room or of each other (only [`delivery`] reads the event log
//! it sends from); the task is the one place that holds them all.

mod archive;
mod chat;
mod clock;
mod command;
mod delivery;
mod driver;
mod durable_views;
mod events;
pub(crate) mod frames;
mod journal;
mod lifecycle;
mod observe;
mod outage;
mod premoves;
mod record;
mod refusal;
pub(crate) mod rules;
pub(crate) mod seat_numbers;
mod seating;
mod session;
mod task;
mod timebase;
pub(crate) mod views;

pub(crate) use command::{Command, GameDocument, RoomContext, RoomHandle};
pub(crate) use task::{restore, spawn};
