//! Bad input. Every case is answered with an error carrying the right code (and the request id when
//! one could be read), leaves the room exactly as it was (its public state, a fresh spectator's
//! snapshot and its version `v`), and the connection goes on (a `ping` that follows is answered).
//! Only floods and frames over the size limit end the connection, with the WebSocket close code of
//! its own (1009 too large, 1008 a flood).
//!
//! Each test is a table: rows of what is sent and the error code (or close code, or HTTP status)
//! it must bring, run by one loop that goes through every row and, when rows fail, names each of
//! them. A new case is a new row.
//!
//! - `json`: frames that are not a message: not JSON, not an object, an unknown `type`, missing
//!   fields, fields of the wrong type, binary frames;
//! - `moves`: moves out of turn, for another seat or ply, illegal, malformed, taken back;
//! - `seats`: seat and host actions without the right token, seats and names refused, what is
//!   fixed after the start, versions from the future;
//! - `frames`: frames over the size limit and floods, which end the connection (1009, 1008);
//! - `raw`: bytes written by hand: a burst past the rate in one write, frames that are not UTF-8
//!   or not WebSocket frames;
//! - `upgrade`: the WebSocket upgrade's Origin check, and requests that are not an upgrade;
//! - `support`: the server, the room's state, [`support::Row`] and the loop that runs a table
//!   ([`support::refuse_all`]).

mod frames;
mod json;
mod moves;
mod raw;
mod seats;
mod support;
mod upgrade;
