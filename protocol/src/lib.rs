//! The Four Kings wire protocol. The message types arrive with the server (issue 3); for now the
//! crate fixes the protocol version that every message will carry.

/// The protocol version a client and the server must agree on.
pub const PROTOCOL_VERSION: u32 = 1;
