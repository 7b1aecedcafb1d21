//! Admission of TCP connections: every accepted socket is an open file, and the process may hold
//! only so many. So that one address cannot take them all, and the server keeps serving new
//! clients near its limit:
//!
//! - each client address (an IPv6 client by its /64) may hold at most `--max-sockets-per-address`
//!   sockets; one over is closed at once, unread (trusted proxies are not held to it: each of
//!   their connections carries another client);
//! - when the sockets open come within `--socket-reserve` of what the limit allows, the oldest
//!   idle plain-HTTP connections are closed to make room (never a WebSocket: a game's connection
//!   is never shed), and `/readyz` says the server is at its limit;
//! - a connection that sends no whole request head within `--request-head-seconds` (hyper's own
//!   deadline, which also bounds a keep-alive connection's wait for its next request) is closed
//!   by `http`.

use std::collections::HashMap;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Instant;

use ipnet::IpNet;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio_util::sync::CancellationToken;

use crate::address::Client;

/// The activity of a connection that is no longer plain HTTP: not tracked.
const UNTRACKED: u64 = u64::MAX;

/// Who may connect, and the connections to shed when the server runs short.
pub(crate) struct Admission {
    /// The most sockets one client address may hold; 0 for no limit.
    per_address: usize,
    /// Addresses not held to the per-address limit.
    trusted: Vec<IpNet>,
    /// Sockets the server may hold in all (what the open-files limit leaves).
    capacity: usize,
    /// Sockets kept free for new clients: idle connections are shed to keep them.
    reserve: usize,
    state: Mutex<State>,
    /// When this process started: activity is counted in microseconds from it.
    epoch: Instant,
}

#[derive(Default)]
struct State {
    /// Open sockets by client (clients with none are not kept).
    by_client: HashMap<Client, usize>,
    /// Open sockets in all, WebSockets included.
    open: usize,
    /// Plain-HTTP connections that may be shed, by their id.
    sheddable: HashMap<u64, Sheddable>,
    /// Connections told to close whose sockets are not closed yet: not shed again for.
    closing: std::collections::HashSet<u64>,
    next_id: u64,
}

/// A plain-HTTP connection: when it was last active, and how to close it.
struct Sheddable {
    activity: Arc<AtomicU64>,
    close: CancellationToken,
}

/// Why a connection was not admitted.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// Its address holds as many sockets as one may.
    PerAddress,
}

/// An admitted socket's place: dropping it (when the socket closes, as HTTP or as a WebSocket)
/// frees it.
pub(crate) struct Ticket {
    admission: Arc<Admission>,
    client: Client,
    /// Set while the connection speaks plain HTTP, so that it may be shed.
    id: u64,
    activity: Arc<AtomicU64>,
}

impl Admission {
    /// Admission for a server that may hold `capacity` sockets.
    pub(crate) fn new(
        per_address: usize,
        trusted: Vec<IpNet>,
        capacity: usize,
        reserve: usize,
    ) -> Admission {
        Admission {
            per_address,
            trusted,
            capacity,
            reserve: reserve.min(capacity / 2),
            state: Mutex::new(State::default()),
            epoch: Instant::now(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_micros() as u64
    }

    /// Admits a socket from `peer`, whose connection `close` ends; with its ticket, how many
    /// connections were told to close to make room for it.
    pub(crate) fn admit(
        self: &Arc<Self>,
        peer: IpAddr,
        close: CancellationToken,
    ) -> Result<(Ticket, usize), Refused> {
        let client = Client::of(peer);
        let trusted = self.trusted.iter().any(|net| net.contains(&peer));
        let mut state = self.lock();
        let held = state.by_client.get(&client).copied().unwrap_or(0);
        if self.per_address > 0 && !trusted && held >= self.per_address {
            return Err(Refused::PerAddress);
        }
        *state.by_client.entry(client).or_default() += 1;
        state.open += 1;
        let shed = self.shed(&mut state);
        let id = state.next_id;
        state.next_id += 1;
        let activity = Arc::new(AtomicU64::new(self.now()));
        state.sheddable.insert(
            id,
            Sheddable {
                activity: activity.clone(),
                close,
            },
        );
        Ok((
            Ticket {
                admission: self.clone(),
                client,
                id,
                activity,
            },
            shed,
        ))
    }

    /// Closes the oldest idle plain-HTTP connections until the reserve is free again (or none is
    /// left to close); how many.
    fn shed(&self, state: &mut State) -> usize {
        let keep_below = self.capacity.saturating_sub(self.reserve);
        let mut shed = 0;
        while state.open.saturating_sub(state.closing.len()) > keep_below {
            let oldest = state
                .sheddable
                .iter()
                .min_by_key(|(_, s)| s.activity.load(Ordering::Relaxed))
                .map(|(&id, _)| id);
            let Some(id) = oldest else { break };
            if let Some(victim) = state.sheddable.remove(&id) {
                victim.close.cancel();
                state.closing.insert(id);
                shed += 1;
            }
        }
        shed
    }

    /// Whether the sockets open are within the reserve of the capacity: the server is at its
    /// limit and sheds idle connections for new ones.
    pub(crate) fn at_limit(&self) -> bool {
        self.lock().open > self.capacity.saturating_sub(self.reserve)
    }

    /// Sockets open now.
    pub(crate) fn open(&self) -> usize {
        self.lock().open
    }

    /// Connection `id` no longer speaks plain HTTP (it became a WebSocket, or ended): it is not
    /// shed.
    pub(crate) fn settled(&self, id: u64) {
        if let Some(settled) = self.lock().sheddable.remove(&id) {
            settled.activity.store(UNTRACKED, Ordering::Relaxed);
        }
    }
}

impl Ticket {
    /// The connection's id, for [`Admission::settled`].
    pub(crate) fn id(&self) -> u64 {
        self.id
    }

    /// The socket, counted as active whenever it reads or writes.
    pub(crate) fn track<S>(self, socket: S) -> Tracked<S> {
        Tracked {
            socket,
            ticket: self,
        }
    }

    fn touch(&self) {
        // A WebSocket's every frame passes here: once settled, one load and no clock.
        if self.activity.load(Ordering::Relaxed) != UNTRACKED {
            self.activity.store(self.admission.now(), Ordering::Relaxed);
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut state = self.admission.lock();
        state.sheddable.remove(&self.id);
        state.closing.remove(&self.id);
        state.open -= 1;
        if let Some(held) = state.by_client.get_mut(&self.client) {
            *held -= 1;
            if *held == 0 {
                state.by_client.remove(&self.client);
            }
        }
    }
}

/// A socket that holds its [`Ticket`] for as long as it lives (as HTTP, then as a WebSocket) and
/// marks its connection active when it reads or writes.
pub(crate) struct Tracked<S> {
    socket: S,
    ticket: Ticket,
}

impl<S: AsyncRead + Unpin> AsyncRead for Tracked<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.socket).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.ticket.touch();
        }
        polled
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Tracked<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.socket).poll_write(cx, data);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.ticket.touch();
        }
        polled
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.socket).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.socket).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let polled = Pin::new(&mut self.socket).poll_write_vectored(cx, bufs);
        if matches!(polled, Poll::Ready(Ok(n)) if n > 0) {
            self.ticket.touch();
        }
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.socket.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn one_address_holds_at_most_its_share_and_a_trusted_proxy_any_number() {
        let admission = Arc::new(Admission::new(
            2,
            vec!["10.0.0.1/32".parse().unwrap()],
            100,
            10,
        ));
        let a1 = admission
            .admit(ip("127.0.0.2"), CancellationToken::new())
            .unwrap();
        let _a2 = admission
            .admit(ip("127.0.0.2"), CancellationToken::new())
            .unwrap();
        assert_eq!(
            admission
                .admit(ip("127.0.0.2"), CancellationToken::new())
                .err(),
            Some(Refused::PerAddress)
        );
        assert!(
            admission
                .admit(ip("127.0.0.3"), CancellationToken::new())
                .is_ok()
        );
        for _ in 0..5 {
            assert!(
                admission
                    .admit(ip("10.0.0.1"), CancellationToken::new())
                    .is_ok()
            );
        }
        drop(a1);
        assert!(
            admission
                .admit(ip("127.0.0.2"), CancellationToken::new())
                .is_ok()
        );
    }

    #[test]
    fn near_the_capacity_the_oldest_idle_http_connection_is_shed_never_a_websocket() {
        let admission = Arc::new(Admission::new(0, vec![], 10, 2));
        let mut kept = Vec::new();
        let websocket = CancellationToken::new();
        let (ticket, _) = admission.admit(ip("127.0.0.9"), websocket.clone()).unwrap();
        admission.settled(ticket.id());
        kept.push(ticket);
        let mut closes = Vec::new();
        for i in 0..7 {
            let close = CancellationToken::new();
            let (ticket, shed) = admission.admit(ip("127.0.0.2"), close.clone()).unwrap();
            assert_eq!(shed, 0, "below the reserve at {i}");
            kept.push(ticket);
            closes.push(close);
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        // The second one is active again: the first is now the oldest idle.
        kept[2].touch();
        assert!(!admission.at_limit());
        let (ticket, shed) = admission
            .admit(ip("127.0.0.3"), CancellationToken::new())
            .unwrap();
        kept.push(ticket);
        assert_eq!(shed, 1);
        assert!(closes[0].is_cancelled(), "the oldest idle one");
        assert!(!closes[1].is_cancelled(), "active since");
        assert!(!websocket.is_cancelled(), "never a WebSocket");
        assert!(admission.at_limit());
    }
}
