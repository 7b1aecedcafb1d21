//! Connections over their address's socket cap, held unread for a while instead of closed at
//! once. A flood that re-opens every connection the server closes would otherwise turn each
//! close into a new handshake at once: the listening socket's accept queue fills with that
//! address's connections, and other clients' handshakes are dropped. Held, an over-cap connection
//! costs the flood a connection slot for the hold's length, and the server a descriptor from a
//! bounded budget: when the budget is spent, the connection held longest is released first.
//! Released, a connection gets `429` with `too_many_connections` (as much as its send buffer
//! takes without waiting) and is closed.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use tokio::net::TcpStream;
use tokio::time::Instant;

/// What a released connection is told before it is closed.
const TOO_MANY: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\n\
connection: close\r\ncontent-length: 92\r\n\r\n\
{\"code\":\"too_many_connections\",\"message\":\"this address holds as many connections as it may\"}";

/// Over-cap connections held unread, oldest first, within a budget of descriptors.
pub(crate) struct HeldSockets {
    /// The most connections held at once; 0 closes each at once.
    budget: usize,
    /// How long a connection is held before it is released.
    hold: Duration,
    held: Mutex<VecDeque<(Instant, TcpStream)>>,
}

impl HeldSockets {
    /// Holds up to `budget` connections for `hold` each.
    pub(crate) fn new(budget: usize, hold: Duration) -> HeldSockets {
        let budget = if hold.is_zero() { 0 } else { budget };
        HeldSockets {
            budget,
            hold,
            held: Mutex::new(VecDeque::new()),
        }
    }

    /// The most connections held at once.
    pub(crate) fn budget(&self) -> usize {
        self.budget
    }

    /// How long a connection is held.
    pub(crate) fn hold_for(&self) -> Duration {
        self.hold
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<(Instant, TcpStream)>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Holds `stream` until `now` and the hold's length; releases what is due and, if the budget
    /// is spent, the connection held longest. How many were released.
    pub(crate) fn hold(&self, stream: TcpStream, now: Instant) -> usize {
        if self.budget == 0 {
            release(stream);
            return 1;
        }
        let mut held = self.lock();
        let mut released = release_due(&mut held, now);
        while held.len() >= self.budget {
            let Some((_, oldest)) = held.pop_front() else {
                break;
            };
            release(oldest);
            released += 1;
        }
        held.push_back((now + self.hold, stream));
        released
    }

    /// Releases the connections held past their time; how many.
    pub(crate) fn release_due(&self, now: Instant) -> usize {
        release_due(&mut self.lock(), now)
    }

    /// Connections held now.
    pub(crate) fn held(&self) -> usize {
        self.lock().len()
    }
}

fn release_due(held: &mut VecDeque<(Instant, TcpStream)>, now: Instant) -> usize {
    let mut released = 0;
    while held.front().is_some_and(|(until, _)| *until <= now) {
        if let Some((_, stream)) = held.pop_front() {
            release(stream);
            released += 1;
        }
    }
    released
}

/// Tells the connection why, as far as its send buffer takes it without waiting, and closes it.
fn release(stream: TcpStream) {
    let _ = stream.try_write(TOO_MANY);
    drop(stream);
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;
    use tokio::net::TcpListener;

    /// `count` connected pairs: the client's end and the server's.
    async fn pairs(count: usize) -> Vec<(TcpStream, TcpStream)> {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut out = Vec::new();
        for _ in 0..count {
            let client = TcpStream::connect(addr).await.unwrap();
            let (server, _) = listener.accept().await.unwrap();
            out.push((client, server));
        }
        out
    }

    /// Whether the server closed `client`'s connection, and what it said first.
    async fn said(client: &mut TcpStream) -> Option<String> {
        let mut text = Vec::new();
        match tokio::time::timeout(Duration::from_millis(200), client.read_to_end(&mut text)).await
        {
            Ok(Ok(_)) => Some(String::from_utf8_lossy(&text).into_owned()),
            _ => None,
        }
    }

    #[test]
    fn the_answer_is_well_formed() {
        let text = std::str::from_utf8(TOO_MANY).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        assert!(head.contains(&format!("content-length: {}", body.len())));
        let body: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(body["code"], "too_many_connections");
    }

    #[tokio::test]
    async fn held_connections_are_released_when_due_oldest_first_beyond_the_budget() {
        let held = HeldSockets::new(2, Duration::from_secs(10));
        let start = Instant::now();
        let mut clients = Vec::new();
        for (i, (client, server)) in pairs(3).await.into_iter().enumerate() {
            let released = held.hold(server, start + Duration::from_secs(i as u64));
            assert_eq!(released, usize::from(i == 2), "the third spends the budget");
            clients.push(client);
        }
        assert_eq!(held.held(), 2);
        // The first was released for the third; the others are still held, unread.
        assert!(
            said(&mut clients[0])
                .await
                .unwrap()
                .starts_with("HTTP/1.1 429")
        );
        assert_eq!(said(&mut clients[1]).await, None);
        // Ten seconds after the second was held, it is released; the third stays a second more.
        assert_eq!(held.release_due(start + Duration::from_secs(11)), 1);
        assert!(
            said(&mut clients[1])
                .await
                .unwrap()
                .contains("too_many_connections")
        );
        assert_eq!(said(&mut clients[2]).await, None);
        assert_eq!(held.release_due(start + Duration::from_secs(12)), 1);
        assert_eq!(held.held(), 0);
    }

    #[tokio::test]
    async fn without_a_hold_a_connection_is_closed_at_once() {
        let held = HeldSockets::new(100, Duration::ZERO);
        assert_eq!(held.budget(), 0);
        let (mut client, server) = pairs(1).await.pop().unwrap();
        assert_eq!(held.hold(server, Instant::now()), 1);
        assert!(said(&mut client).await.is_some());
    }
}
