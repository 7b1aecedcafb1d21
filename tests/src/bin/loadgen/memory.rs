//! Idle memory: the server's resident memory empty, then holding rooms with games, then also
//! holding four idle connections a room; the differences divided by the rooms and connections.

use std::rc::Rc;
use std::time::Duration;

use anyhow::Context;
use fourkings_protocol::{ClientMessage, ClientRequest, SeatIndex, SettingsPatch};
use futures_util::{SinkExt, StreamExt};
use tokio::sync::{Semaphore, watch};

use crate::scenario::{connect, create_room, frame, until_ack};
use crate::system::rss_kib;

/// What one memory measurement found, in KiB.
pub(crate) struct Memory {
    /// Rooms measured.
    pub(crate) rooms: usize,
    /// The empty server.
    pub(crate) empty: u64,
    /// With the rooms and their games.
    pub(crate) with_rooms: u64,
    /// With four idle connections a room as well.
    pub(crate) with_connections: u64,
}

impl Memory {
    /// Memory per room with its game, in KB (1000 bytes).
    pub(crate) fn per_room_kb(&self) -> f64 {
        (self.with_rooms.saturating_sub(self.empty)) as f64 * 1.024 / self.rooms as f64
    }

    /// Memory per idle connection, in KB (1000 bytes).
    pub(crate) fn per_connection_kb(&self) -> f64 {
        (self.with_connections.saturating_sub(self.with_rooms)) as f64 * 1.024
            / (4 * self.rooms) as f64
    }

    /// Prints the measurement.
    pub(crate) fn print(&self, label: &str) {
        println!(
            "{label}: RSS empty {} MiB, with {} rooms {} MiB, with {} connections {} MiB: {:.1} KB per room, {:.1} KB per connection",
            self.empty / 1024,
            self.rooms,
            self.with_rooms / 1024,
            4 * self.rooms,
            self.with_connections / 1024,
            self.per_room_kb(),
            self.per_connection_kb(),
        );
    }
}

/// How long the server is left alone before each reading, so that it has finished the work of the
/// step before.
const SETTLE: Duration = Duration::from_millis(1000);

/// Measures the server at `base` (process `pid`), which should be fresh: `rooms` rooms, each set up
/// by one short-lived connection that takes the four seats and starts the game, then four
/// connections a room that present their seat's token and stay idle.
///
/// The setup connections are few at a time (16), so that the memory they free, which the
/// allocator keeps for reuse, is small beside what the idle connections need.
pub(crate) async fn measure(base: &str, pid: i32, rooms: usize) -> anyhow::Result<Memory> {
    tokio::time::sleep(SETTLE).await;
    let empty = rss_kib(pid)?;
    let http = reqwest::Client::new();
    let setup = Rc::new(Semaphore::new(16));
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async {
            let mut made = Vec::new();
            for _ in 0..rooms {
                let (base, http, setup) = (base.to_owned(), http.clone(), setup.clone());
                made.push(tokio::task::spawn_local(async move {
                    let _permit = setup.acquire().await?;
                    let room = create_room(&http, &base, &SettingsPatch::default()).await?;
                    let mut socket = connect(&base, &room.id).await?;
                    let mut tokens = Vec::new();
                    for seat in SeatIndex::ALL {
                        let req = u64::from(seat.get()) + 1;
                        socket
                            .send(frame(&ClientRequest::new(
                                req,
                                ClientMessage::TakeSeat {
                                    seat,
                                    name: format!("p{seat}"),
                                },
                            )))
                            .await?;
                        tokens.push(until_ack(&mut socket, req).await?.context("no token")?);
                    }
                    let host_token = room.host_token.clone();
                    socket
                        .send(frame(&ClientRequest::new(
                            9,
                            ClientMessage::Start { host_token },
                        )))
                        .await?;
                    until_ack(&mut socket, 9).await?;
                    socket.close(None).await?;
                    // Read to the end, so that the server has seen the close.
                    while socket.next().await.is_some() {}
                    Ok::<_, anyhow::Error>((room.id, tokens))
                }));
            }
            let mut tokens = Vec::new();
            for room in made {
                tokens.push(room.await??);
            }
            tokio::time::sleep(SETTLE).await;
            let with_rooms = rss_kib(pid)?;
            // Four connections a room, each holding its seat; they answer heartbeats until told to
            // stop.
            let (stop, stopped) = watch::channel(false);
            let (acked, mut acks) = tokio::sync::mpsc::unbounded_channel::<()>();
            let setup = Rc::new(Semaphore::new(128));
            let mut idle = Vec::new();
            for (id, room_tokens) in tokens {
                for token in room_tokens {
                    let (base, id, setup, mut stopped, acked) = (
                        base.to_owned(),
                        id.clone(),
                        setup.clone(),
                        stopped.clone(),
                        acked.clone(),
                    );
                    idle.push(tokio::task::spawn_local(async move {
                        let permit = setup.acquire().await?;
                        let mut socket = connect(&base, &id).await?;
                        socket
                            .send(frame(&ClientRequest::new(
                                1,
                                ClientMessage::Hello {
                                    seat_tokens: vec![token],
                                    host_token: None,
                                    since: None,
                                },
                            )))
                            .await?;
                        until_ack(&mut socket, 1).await?;
                        drop(permit);
                        let _ = acked.send(());
                        loop {
                            tokio::select! {
                                next = socket.next() => if next.is_none() { break },
                                _ = stopped.wait_for(|s| *s) => break,
                            }
                        }
                        Ok::<_, anyhow::Error>(())
                    }));
                }
            }
            // Every connection holds its seat, then the server settles.
            drop(acked);
            let all_acked = async {
                for _ in 0..4 * rooms {
                    acks.recv().await.context("a connection failed")?;
                }
                Ok::<_, anyhow::Error>(())
            };
            tokio::time::timeout(Duration::from_secs(120), all_acked)
                .await
                .context("the connections were not all in after two minutes")??;
            tokio::time::sleep(SETTLE).await;
            let with_connections = rss_kib(pid)?;
            stop.send_replace(true);
            for conn in idle {
                conn.await??;
            }
            Ok(Memory {
                rooms,
                empty,
                with_rooms,
                with_connections,
            })
        })
        .await
}
