//! `fourkings health`: asks a running server whether it is up, and exits 0 if it is, 1 if not.
//! Container health checks run it: the slim runtime image has no curl, and the binary already
//! knows the server's address from the same `FOURKINGS_ADDR` the server reads.

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpStream};
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Args;

/// Where to ask and what.
#[derive(Debug, Args)]
pub(crate) struct HealthArgs {
    /// The server's address, as `serve` was given it. An unspecified address (`0.0.0.0`, `::`)
    /// is asked on the loopback, where a server listening on all addresses also answers.
    #[arg(long, env = "FOURKINGS_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The path to ask: `/healthz` (the process is up) or `/readyz` (ready for rooms).
    #[arg(long, default_value = "/healthz")]
    path: String,
    /// Seconds to wait for the answer.
    #[arg(long, default_value_t = 3.0, value_parser = crate::config::seconds)]
    timeout_seconds: f64,
}

/// Asks, and prints the answer's status; an error (and so exit code 1) unless it is 2xx.
pub(crate) fn run(args: &HealthArgs) -> anyhow::Result<()> {
    let addr = loopback_if_unspecified(args.addr);
    let timeout = crate::config::duration(args.timeout_seconds, 0.1, 300.0);
    let status = probe(addr, &args.path, timeout)
        .with_context(|| format!("asking http://{addr}{}", args.path))?;
    if !(200..300).contains(&status) {
        bail!("http://{addr}{} answered {status}", args.path);
    }
    println!("http://{addr}{}: {status}", args.path);
    Ok(())
}

/// `0.0.0.0` and `::` mean every address to a listener, and no address to a client.
fn loopback_if_unspecified(addr: SocketAddr) -> SocketAddr {
    match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), addr.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(Ipv6Addr::LOCALHOST), addr.port())
        }
        _ => addr,
    }
}

/// One `GET` over HTTP/1.1; the status code of the answer.
fn probe(addr: SocketAddr, path: &str, timeout: Duration) -> anyhow::Result<u16> {
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    // The status line is all that is needed: `HTTP/1.1 200 OK`.
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n") && head.len() < 256 {
        if stream.read(&mut byte)? == 0 {
            break;
        }
        head.push(byte[0]);
    }
    status_of(&String::from_utf8_lossy(&head))
}

/// The status code of an HTTP status line.
fn status_of(line: &str) -> anyhow::Result<u16> {
    let mut words = line.split_whitespace();
    match (words.next(), words.next()) {
        (Some(version), Some(code)) if version.starts_with("HTTP/") => code
            .parse()
            .with_context(|| format!("a status line with no status: {line:?}")),
        _ => bail!("not an HTTP answer: {line:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::{loopback_if_unspecified, status_of};

    #[test]
    fn an_unspecified_address_is_asked_on_the_loopback() {
        let cases = [
            ("0.0.0.0:8080", "127.0.0.1:8080"),
            ("[::]:9", "[::1]:9"),
            ("10.1.2.3:80", "10.1.2.3:80"),
            ("127.0.0.1:1", "127.0.0.1:1"),
        ];
        for (given, asked) in cases {
            assert_eq!(
                loopback_if_unspecified(given.parse().unwrap()),
                asked.parse().unwrap()
            );
        }
    }

    #[test]
    fn status_lines() {
        assert_eq!(status_of("HTTP/1.1 200 OK\r\n").unwrap(), 200);
        assert_eq!(
            status_of("HTTP/1.1 503 Service Unavailable\r\n").unwrap(),
            503
        );
        assert!(status_of("").is_err());
        assert!(status_of("SSH-2.0-OpenSSH\r\n").is_err());
        assert!(status_of("HTTP/1.1 abc\r\n").is_err());
    }
}
