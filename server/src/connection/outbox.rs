//! A connection's sending side: a bounded queue that its room and its reader put frames in, and
//! the writer task that empties it into the socket, pings on the heartbeat, and closes.
//!
//! The plain design, as the raw baseline has it (`tests/src/bin/baseline_server.rs`): nobody
//! but the writer touches the socket. A design in which the room wrote its frames into the
//! sockets itself, with the writer's waker, under a mutex (saving a wake-up and a task switch a
//! frame) was measured against this one and did not pay for itself: FIGURES.
//!
//! Queueing never waits: a connection whose queue is full reads too slowly and is closed
//! instead of slowing its room down, and a write the client leaves waiting for the write timeout
//! ends the connection.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::SinkExt;
use futures_util::stream::SplitSink;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use super::ConnId;

/// A handle on a connection's queue, held by its room and its reader. When the last handle is
/// dropped, the connection is closed once what is queued has been written.
#[derive(Clone)]
pub(crate) struct Outbox {
    frames: mpsc::Sender<Utf8Bytes>,
    close: Arc<Close>,
}

/// A close asked for: it goes out after what is queued, even when the queue is full.
struct Close {
    frame: OnceLock<(u16, &'static str)>,
    asked: CancellationToken,
}

/// What [`Outbox::queue`] did with a frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Queued {
    /// Queued: it waits for the writer.
    Waiting,
    /// Not queued: the queue is full, the client reads too slowly.
    Full,
    /// Not queued: the connection is over or closing.
    Gone,
}

impl Outbox {
    /// A queue of at most `capacity` frames in front of `sink`, and the connection's writer
    /// task, which is to be spawned.
    pub(super) fn new(
        sink: SplitSink<WebSocket, Message>,
        capacity: usize,
        write_timeout: Duration,
        heartbeat: Heartbeat,
    ) -> (Outbox, impl Future<Output = ()> + Send + 'static) {
        let (frames, queue) = mpsc::channel(capacity.max(1));
        let close = Arc::new(Close {
            frame: OnceLock::new(),
            asked: CancellationToken::new(),
        });
        let writer = Writer {
            sink,
            queue,
            close: close.clone(),
            write_timeout,
            heartbeat,
        };
        (Outbox { frames, close }, writer.run())
    }

    /// Queues a frame for the writer.
    pub(crate) fn queue(&self, frame: Utf8Bytes) -> Queued {
        if self.close.asked.is_cancelled() {
            return Queued::Gone;
        }
        match self.frames.try_send(frame) {
            Ok(()) => Queued::Waiting,
            Err(TrySendError::Full(_)) => Queued::Full,
            Err(TrySendError::Closed(_)) => Queued::Gone,
        }
    }

    /// Queues a frame; `false` if the queue is full or the connection is over.
    pub(crate) fn send(&self, frame: Utf8Bytes) -> bool {
        self.queue(frame) == Queued::Waiting
    }

    /// Closes the connection with `code` after what is already queued.
    ///
    /// The close frame does not wait for room in the queue: what is queued before it is at most
    /// `capacity` frames, and the write timeout bounds how long a client that does not read can
    /// hold them up.
    pub(crate) fn close(&self, code: u16, reason: &'static str) {
        if self.close.frame.set((code, reason)).is_ok() {
            self.close.asked.cancel();
        }
    }
}

/// How a connection's sending side ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ended {
    /// A close frame went out, or the socket was closed.
    Closed,
    /// The client read nothing for the write timeout.
    TimedOut,
    /// The socket failed.
    Failed,
}

/// The writer task's state: the socket's sending half and the queue's receiving end.
struct Writer {
    sink: SplitSink<WebSocket, Message>,
    queue: mpsc::Receiver<Utf8Bytes>,
    close: Arc<Close>,
    write_timeout: Duration,
    heartbeat: Heartbeat,
}

impl Writer {
    /// Writes what is queued, a burst at a time with one flush, pings on the heartbeat, and
    /// closes when asked or when every outbox is gone; it ends with the connection's sending
    /// side.
    async fn run(mut self) {
        let every = self.heartbeat.every;
        let mut pings = tokio::time::interval_at(Instant::now() + every, every);
        pings.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let ended = loop {
            let step = tokio::select! {
                // Frames before a close: it goes out after what was queued before it.
                biased;
                frame = self.queue.recv() => match frame {
                    Some(frame) => self.write_burst(frame).await,
                    None => {
                        // Every outbox is gone.
                        let _ = within(self.write_timeout, self.sink.close()).await;
                        Err(Ended::Closed)
                    }
                },
                () = self.close.asked.cancelled() => {
                    let (code, reason) = *self.close.frame.get().expect("set before it is asked");
                    self.close_after_queue(code, reason).await
                }
                _ = pings.tick() => {
                    if self.heartbeat.heard.silent_for() > every * 3 {
                        self.heartbeat.dropping("no heartbeat answer");
                        let (code, reason) = fourkings_protocol::close::NO_HEARTBEAT;
                        self.close_after_queue(code, reason).await
                    } else {
                        // The client's WebSocket answers with a pong.
                        within(self.write_timeout, self.sink.send(Message::Ping(Bytes::new()))).await
                    }
                }
            };
            if let Err(ended) = step {
                break ended;
            }
        };
        if ended == Ended::TimedOut {
            self.heartbeat.dropping("the client reads nothing");
        }
    }

    /// Writes `first` and whatever else is queued now, then flushes once.
    async fn write_burst(&mut self, first: Utf8Bytes) -> Result<(), Ended> {
        let queue = &mut self.queue;
        let sink = &mut self.sink;
        within(self.write_timeout, async {
            sink.feed(Message::Text(first)).await?;
            while let Ok(more) = queue.try_recv() {
                sink.feed(Message::Text(more)).await?;
            }
            sink.flush().await
        })
        .await
    }

    /// Writes what is queued, then the close frame.
    async fn close_after_queue(&mut self, code: u16, reason: &'static str) -> Result<(), Ended> {
        self.queue.close();
        let queue = &mut self.queue;
        let sink = &mut self.sink;
        within(self.write_timeout, async {
            while let Ok(more) = queue.try_recv() {
                sink.feed(Message::Text(more)).await?;
            }
            sink.send(close_frame(code, reason)).await
        })
        .await?;
        Err(Ended::Closed)
    }
}

/// `write`, failing with [`Ended::TimedOut`] if it has waited for `limit`. Without a limit, a
/// client that stops reading (its receive window stays shut) would hold its connection, and
/// everything queued for it, forever.
async fn within<E>(
    limit: Duration,
    write: impl Future<Output = Result<(), E>>,
) -> Result<(), Ended> {
    match tokio::time::timeout(limit, write).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(_)) => Err(Ended::Failed),
        Err(_) => Err(Ended::TimedOut),
    }
}

fn close_frame(code: u16, reason: &'static str) -> Message {
    Message::Close(Some(CloseFrame {
        code,
        reason: Utf8Bytes::from_static(reason),
    }))
}

/// When a connection last heard from its client, shared by the reader (which hears) and the
/// writer (which pings, and gives up on a client silent for three heartbeats). The heartbeat
/// lives in the writer, as in the baseline: a timer in the reader woke it for every ping and
/// made it poll the socket once or twice for nothing.
pub(super) struct Heard {
    /// The moment the connection opened; `at` counts from it.
    start: Instant,
    /// Milliseconds from `start` to the last frame received.
    at: AtomicU64,
}

impl Heard {
    pub(super) fn new() -> Heard {
        Heard {
            start: Instant::now(),
            at: AtomicU64::new(0),
        }
    }

    /// A frame came in `now`.
    pub(super) fn heard(&self, now: Instant) {
        let ms = u64::try_from(now.duration_since(self.start).as_millis()).unwrap_or(u64::MAX);
        self.at.store(ms, Ordering::Relaxed);
    }

    /// How long the client has been silent.
    fn silent_for(&self) -> std::time::Duration {
        let heard = self.start + std::time::Duration::from_millis(self.at.load(Ordering::Relaxed));
        Instant::now().saturating_duration_since(heard)
    }
}

/// The writer's heartbeat: a ping every `every`, and the end of a client silent for three.
pub(super) struct Heartbeat {
    pub(super) every: std::time::Duration,
    pub(super) heard: Arc<Heard>,
    /// Names the room in the line that says a connection was dropped.
    pub(super) span: tracing::Span,
    pub(super) conn: ConnId,
}

impl Heartbeat {
    /// Logs why the connection is being dropped.
    fn dropping(&self, why: &str) {
        self.span
            .in_scope(|| tracing::debug!(conn = self.conn, "{why}: dropping the connection"));
    }
}
