//! Limits per client address, so that no one client can deny service to the others: how fast it
//! may create rooms, and how many WebSockets it may hold open at once.
//!
//! A client's address is its TCP peer's, or, when the peer is one of the configured trusted
//! proxies, the nearest address in `X-Forwarded-For` that is not a trusted proxy itself (a
//! client can write anything into the header, so only what the proxies appended is believed, and
//! the header is ignored altogether without a trusted proxy). IPv6 clients are counted by their
//! /64 network: a host or a home is given a whole /64 and can pick any address in it.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::http::HeaderMap;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};
use ipnet::IpNet;

use crate::config::Config;

/// Keys kept by the room-creation limiter before those back to a full allowance are dropped.
const PRUNE_ABOVE: usize = 10_000;

/// A client, as the limits count it: an IPv4 address, or an IPv6 /64 network.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Client(IpAddr);

impl Client {
    /// The client that `address` belongs to.
    pub(crate) fn of(address: IpAddr) -> Client {
        match address {
            IpAddr::V4(v4) => Client(IpAddr::V4(v4)),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => Client(IpAddr::V4(v4)),
                None => {
                    let [a, b, c, d, ..] = v6.segments();
                    Client(IpAddr::V6(Ipv6Addr::new(a, b, c, d, 0, 0, 0, 0)))
                }
            },
        }
    }
}

impl std::fmt::Display for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IpAddr::V4(v4) => write!(f, "{v4}"),
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
        }
    }
}

/// The limits, shared by every request.
pub(crate) struct AddressLimits {
    trusted_proxies: Vec<IpNet>,
    /// Room creations per client; `None` without a limit.
    creations: Option<DefaultKeyedRateLimiter<Client>>,
    /// Open WebSockets per client (only clients with one open are kept).
    connections: Mutex<HashMap<Client, usize>>,
    /// The most WebSockets a client may hold open; 0 for no limit.
    max_connections: usize,
}

/// Why a client may not create a room now.
#[derive(Debug)]
pub(crate) struct TooFast {
    /// When it may try again.
    pub(crate) retry_after: Duration,
}

/// One of a client's open WebSockets; dropping it frees its place.
pub(crate) struct ConnectionSlot {
    limits: Arc<AddressLimits>,
    client: Client,
}

impl AddressLimits {
    /// The limits `config` sets.
    pub(crate) fn new(config: &Config) -> AddressLimits {
        let creations = NonZeroU32::new(config.room_creations_per_minute).map(|rate| {
            let burst = NonZeroU32::new(config.room_creation_burst).unwrap_or(rate);
            RateLimiter::keyed(Quota::per_minute(rate).allow_burst(burst))
        });
        AddressLimits {
            trusted_proxies: config.trusted_proxies.clone(),
            creations,
            connections: Mutex::new(HashMap::new()),
            max_connections: config.max_connections_per_address,
        }
    }

    /// The client behind a request that came from `peer` with `headers`.
    pub(crate) fn client(&self, peer: IpAddr, headers: &HeaderMap) -> Client {
        Client::of(self.address(peer, headers))
    }

    fn address(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.is_trusted(peer) {
            return peer;
        }
        // Each proxy appends the address it was reached from: read from the right, past the
        // trusted proxies. A header that cannot be read leaves the last proxy as the client.
        let forwarded = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        let mut address = peer;
        for hop in forwarded.iter().rev() {
            let Ok(hop) = hop.parse::<IpAddr>() else {
                return address;
            };
            address = hop;
            if !self.is_trusted(hop) {
                break;
            }
        }
        address
    }

    /// Whether `address` is a trusted proxy (`--trusted-proxy`): on a cluster, the other nodes
    /// are listed there too.
    pub(crate) fn is_trusted(&self, address: IpAddr) -> bool {
        let address = match address {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
            v4 => v4,
        };
        self.trusted_proxies
            .iter()
            .any(|net| net.contains(&address))
    }

    /// Counts a room creation by `client`, or says when it may create one again.
    pub(crate) fn create_room(&self, client: Client) -> Result<(), TooFast> {
        let Some(limiter) = &self.creations else {
            return Ok(());
        };
        if limiter.len() > PRUNE_ABOVE {
            limiter.retain_recent();
        }
        limiter.check_key(&client).map_err(|not_until| TooFast {
            retry_after: not_until.wait_time_from(DefaultClock::default().now()),
        })
    }

    /// A place for one more WebSocket of `client`, if it has not reached the limit.
    pub(crate) fn open_connection(self: &Arc<Self>, client: Client) -> Option<ConnectionSlot> {
        let mut connections = self.lock();
        let open = connections.entry(client).or_default();
        if self.max_connections != 0 && *open >= self.max_connections {
            if *open == 0 {
                connections.remove(&client);
            }
            return None;
        }
        *open += 1;
        Some(ConnectionSlot {
            limits: self.clone(),
            client,
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Client, usize>> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut connections = self.limits.lock();
        if let Some(open) = connections.get_mut(&self.client) {
            *open -= 1;
            if *open == 0 {
                connections.remove(&self.client);
            }
        }
    }
}

/// Reads a trusted proxy's address or network (`10.0.0.1`, `10.0.0.0/8`, `fd00::/8`).
pub(crate) fn parse_proxy(text: &str) -> Result<IpNet, String> {
    if let Ok(net) = text.parse::<IpNet>() {
        return Ok(net);
    }
    text.parse::<IpAddr>()
        .map(IpNet::from)
        .map_err(|_| format!("{text:?} is not an IP address or network (such as 10.0.0.0/8)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(trusted: &[&str]) -> AddressLimits {
        let mut config = Config::with_addr("127.0.0.1:0".parse().unwrap());
        config.trusted_proxies = trusted.iter().map(|t| parse_proxy(t).unwrap()).collect();
        config.room_creations_per_minute = 1;
        config.room_creation_burst = 2;
        config.max_connections_per_address = 2;
        AddressLimits::new(&config)
    }

    fn forwarded(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append("x-forwarded-for", value.parse().unwrap());
        }
        headers
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn the_forwarded_address_counts_only_behind_a_trusted_proxy() {
        let header = forwarded(&["203.0.113.9, 198.51.100.7"]);
        let untrusted = limits(&[]);
        assert_eq!(
            untrusted.client(ip("10.0.0.1"), &header),
            Client(ip("10.0.0.1"))
        );
        let trusted = limits(&["10.0.0.0/8"]);
        // The nearest hop the proxy saw, not what the client wrote before it.
        assert_eq!(
            trusted.client(ip("10.0.0.1"), &header),
            Client(ip("198.51.100.7"))
        );
        // Past a chain of trusted proxies.
        let chain = forwarded(&["203.0.113.9", "198.51.100.7, 10.1.1.1"]);
        assert_eq!(
            trusted.client(ip("10.0.0.1"), &chain),
            Client(ip("198.51.100.7"))
        );
        // Without the header, or with garbage in it, the proxy is the client.
        assert_eq!(
            trusted.client(ip("10.0.0.1"), &HeaderMap::new()),
            Client(ip("10.0.0.1"))
        );
        let garbage = forwarded(&["203.0.113.9, not-an-address"]);
        assert_eq!(
            trusted.client(ip("10.0.0.1"), &garbage),
            Client(ip("10.0.0.1"))
        );
        // A peer outside the trusted networks is believed over any header.
        assert_eq!(
            trusted.client(ip("192.0.2.1"), &header),
            Client(ip("192.0.2.1"))
        );
    }

    #[test]
    fn ipv6_clients_count_by_their_64_network() {
        let limits = limits(&[]);
        let a = limits.client(ip("2001:db8:1:2:aaaa::1"), &HeaderMap::new());
        let b = limits.client(ip("2001:db8:1:2:bbbb::9"), &HeaderMap::new());
        let other = limits.client(ip("2001:db8:1:3::1"), &HeaderMap::new());
        assert_eq!(a, b);
        assert_ne!(a, other);
        assert_eq!(a.to_string(), "2001:db8:1:2::/64");
        let mapped = limits.client(ip("::ffff:192.0.2.1"), &HeaderMap::new());
        assert_eq!(mapped, Client(ip("192.0.2.1")));
    }

    #[test]
    fn room_creations_are_limited_per_client() {
        let limits = limits(&[]);
        let (one, two) = (Client(ip("192.0.2.1")), Client(ip("192.0.2.2")));
        assert!(limits.create_room(one).is_ok());
        assert!(limits.create_room(one).is_ok());
        let refused = limits.create_room(one).unwrap_err();
        assert!(
            refused.retry_after > Duration::ZERO && refused.retry_after <= Duration::from_secs(60)
        );
        assert!(limits.create_room(two).is_ok());
    }

    #[test]
    fn open_connections_are_capped_per_client_and_freed_when_dropped() {
        let limits = Arc::new(limits(&[]));
        let (one, two) = (Client(ip("192.0.2.1")), Client(ip("192.0.2.2")));
        let first = limits.open_connection(one).unwrap();
        let second = limits.open_connection(one).unwrap();
        assert!(limits.open_connection(one).is_none());
        assert!(limits.open_connection(two).is_some());
        drop(first);
        assert!(limits.open_connection(one).is_some());
        // Nothing is kept for clients with nothing open.
        drop(second);
        assert!(limits.lock().get(&two).is_none());
    }
}
