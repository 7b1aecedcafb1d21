//! The open-files limit: every connection is an open file, so the limit bounds the connections a
//! server can hold. Debian's default soft limit is 1,024 while the hard limit is usually far
//! higher; the server raises its soft limit to the hard limit at start.

/// Files the server keeps open besides its connections: the listener, the database and its
/// journal, the runtime's own, with room to spare.
pub(crate) const RESERVED: u64 = 64;

/// Raises the soft limit to the hard limit; the limit now.
pub(crate) fn raise() -> std::io::Result<u64> {
    rlimit::increase_nofile_limit(u64::MAX)
}

/// The soft limit now, if it can be read.
pub(crate) fn limit() -> Option<u64> {
    rlimit::Resource::NOFILE.get().ok().map(|(soft, _)| soft)
}
