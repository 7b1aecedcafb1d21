//! A connection's sending side: the queue its room and its reader put frames in, and the
//! socket's sending half, under one lock.
//!
//! The room writes what it queued itself, once per turn ([`Outbox::write_out`]): a move's frames
//! go into the sockets of the room's connections without waking a task for each. The
//! connection's writer task runs only when the socket cannot take more (the room's write left the
//! writer's waker with the socket), for the heartbeat, and to close.
//!
//! This is a trick on the hot path, kept because it pays: the plain design (a writer task fed
//! by a channel) costs a send, a wake-up and a task switch per frame (tests/perf/README.md,
//! "The room writes a move's frames into its connections' sockets itself").
//!
//! The queue is still bounded and nobody waits on it: a frame that finds the socket full waits
//! in the queue for the writer, and a connection whose queue is full is dropped as too slow.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll, Waker, ready};

use axum::body::Bytes;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures_util::SinkExt;
use tokio::time::Instant;

use super::ConnId;

/// What goes out, in order.
enum Outgoing {
    Text(Utf8Bytes),
    Ping,
    Close(u16, &'static str),
}

/// A handle on a connection's queue, held by its room and its reader. Queueing never waits: a
/// connection that cannot keep up is closed instead of slowing the room down. When the last
/// handle is dropped, the connection is closed once what is queued has been written.
pub(crate) struct Outbox {
    wire: Arc<Wire>,
}

/// What [`Outbox::queue`] did with a frame.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Queued {
    /// Queued behind nothing: the caller is to call [`Outbox::write_out`] before it waits.
    First,
    /// Queued behind other frames, which someone is already writing out.
    Behind,
    /// Not queued: the queue is full, the client reads too slowly.
    Full,
    /// Not queued: the connection is over or closing.
    Gone,
}

impl Outbox {
    /// A queue of at most `capacity` frames in front of `sink`, and the connection's writer
    /// task, which is to be spawned.
    pub(super) fn new(
        sink: futures_util::stream::SplitSink<WebSocket, Message>,
        capacity: usize,
        write_timeout: std::time::Duration,
        heartbeat: Heartbeat,
    ) -> (Outbox, impl Future<Output = ()> + Send + 'static) {
        let wire = Arc::new(Wire {
            state: Mutex::new(WireState {
                writer: None,
                io: WireIo {
                    queue: VecDeque::new(),
                    sink: TimedSink {
                        inner: sink,
                        limit: write_timeout,
                        waiting: None,
                    },
                    unflushed: false,
                    closing: false,
                    hung_up: false,
                    ended: None,
                },
            }),
            outboxes: AtomicUsize::new(1),
            capacity,
        });
        let writer = write_loop(wire.clone(), heartbeat);
        (Outbox { wire }, writer)
    }

    /// Queues a frame for the caller to write out with [`Outbox::write_out`] (the room does, at
    /// the end of each turn, for the connections it queued a first frame for).
    pub(crate) fn queue(&self, frame: Utf8Bytes) -> Queued {
        self.wire.lock().io.push(frame, self.wire.capacity)
    }

    /// Queues a frame and has the writer task write it; `false` if the queue is full or the
    /// connection is over.
    pub(crate) fn send(&self, frame: Utf8Bytes) -> bool {
        let mut state = self.wire.lock();
        match state.io.push(frame, self.wire.capacity) {
            Queued::First | Queued::Behind => {
                state.wake_writer();
                true
            }
            Queued::Full | Queued::Gone => false,
        }
    }

    /// Writes what is queued into the socket, in the caller's task, as far as the socket takes
    /// it; the writer task finishes the rest when the socket drains (it is woken for it).
    pub(crate) fn write_out(&self) {
        let mut state = self.wire.lock();
        let WireState { writer, io } = &mut *state;
        // A writer that has not run yet writes everything at its first run.
        let Some(waker) = writer else {
            return;
        };
        // The writer's waker goes to the socket and the write timer: whatever this write leaves
        // waiting wakes the writer, not the caller.
        let mut cx = Context::from_waker(waker);
        if let Poll::Ready(Err(_)) = io.poll_write_out(&mut cx) {
            // The connection is over: the writer is to see it and end.
            waker.wake_by_ref();
        }
    }

    /// Closes the connection with `code` after what is already queued.
    ///
    /// The close frame goes into the queue even when it is full: what is queued before it is at
    /// most `capacity` frames, and the write timeout bounds how long a client that does not
    /// read can hold them up.
    pub(crate) fn close(&self, code: u16, reason: &'static str) {
        let mut state = self.wire.lock();
        let io = &mut state.io;
        if io.ended.is_some() || io.closing {
            return;
        }
        io.queue.push_back(Outgoing::Close(code, reason));
        io.closing = true;
        state.wake_writer();
    }
}

impl Clone for Outbox {
    fn clone(&self) -> Outbox {
        self.wire.outboxes.fetch_add(1, Ordering::Relaxed);
        Outbox {
            wire: self.wire.clone(),
        }
    }
}

impl Drop for Outbox {
    fn drop(&mut self) {
        if self.wire.outboxes.fetch_sub(1, Ordering::AcqRel) == 1 {
            let mut state = self.wire.lock();
            state.io.hung_up = true;
            state.wake_writer();
        }
    }
}

/// What a connection's outboxes and its writer share.
struct Wire {
    state: Mutex<WireState>,
    /// Outboxes alive.
    outboxes: AtomicUsize,
    /// How many frames may wait in the queue.
    capacity: usize,
}

impl Wire {
    fn lock(&self) -> MutexGuard<'_, WireState> {
        // Nothing under the lock leaves the state half-changed when it panics.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The writer task's side: writes what is queued, pings on the heartbeat, and closes the
    /// socket when every outbox is gone; ready with how the connection ended.
    fn poll_writer(
        &self,
        cx: &mut Context<'_>,
        timer: &mut PingTimer,
        heartbeat: &Heartbeat,
    ) -> Poll<Ended> {
        let mut state = self.lock();
        if !state
            .writer
            .as_ref()
            .is_some_and(|w| w.will_wake(cx.waker()))
        {
            state.writer = Some(cx.waker().clone());
        }
        let io = &mut state.io;
        loop {
            if let Err(ended) = ready!(io.poll_write_out(cx)) {
                return Poll::Ready(ended);
            }
            if io.hung_up {
                let _ = ready!(io.sink.poll_close_unpin(cx));
                io.ended = Some(Ended::Closed);
                return Poll::Ready(Ended::Closed);
            }
            // Everything is written: only the heartbeat is left to wait for. A writer that always
            // has more to write never pings, and needs not: a client that is gone stops taking
            // the bytes, and the write timeout ends the connection.
            if !timer.poll_fired(cx) {
                return Poll::Pending;
            }
            timer.set_next();
            if heartbeat.heard.silent_for() > heartbeat.every * 3 {
                heartbeat.dropping("no heartbeat answer");
                let (code, reason) = fourkings_protocol::close::NO_HEARTBEAT;
                io.queue.push_back(Outgoing::Close(code, reason));
                io.closing = true;
            } else {
                // The client's WebSocket answers with a pong.
                io.queue.push_back(Outgoing::Ping);
            }
        }
    }
}

/// The shared state: the writer's waker and the socket with its queue.
struct WireState {
    /// The writer task's waker, from its last run; `None` until it has run.
    writer: Option<Waker>,
    io: WireIo,
}

impl WireState {
    fn wake_writer(&self) {
        if let Some(writer) = &self.writer {
            writer.wake_by_ref();
        }
    }
}

/// The queue and the socket's sending half.
struct WireIo {
    queue: VecDeque<Outgoing>,
    sink: TimedSink,
    /// Frames have gone into the sink since its last flush.
    unflushed: bool,
    /// A close frame is queued or sent: nothing more is queued.
    closing: bool,
    /// Every outbox is gone: the socket is closed once the queue is written.
    hung_up: bool,
    /// The connection is over.
    ended: Option<Ended>,
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

impl WireIo {
    /// Puts a frame at the end of the queue, unless the connection is over or the queue holds
    /// `capacity` frames.
    fn push(&mut self, frame: Utf8Bytes, capacity: usize) -> Queued {
        if self.ended.is_some() || self.closing {
            return Queued::Gone;
        }
        if self.queue.len() >= capacity {
            return Queued::Full;
        }
        self.queue.push_back(Outgoing::Text(frame));
        if self.queue.len() == 1 {
            Queued::First
        } else {
            Queued::Behind
        }
    }

    /// Writes the queue into the sink and flushes it once; ready with `Ok` when everything is
    /// written, with `Err` when the connection is over (a close frame went out, or the socket
    /// failed), pending while the socket takes no more (`cx` is woken when it does).
    fn poll_write_out(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Ended>> {
        if let Some(ended) = self.ended {
            return Poll::Ready(Err(ended));
        }
        let written = ready!(self.poll_drain(cx));
        if let Err(ended) = written {
            self.ended = Some(ended);
            self.queue.clear();
        }
        Poll::Ready(written)
    }

    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Ended>> {
        while !self.queue.is_empty() {
            ready!(self.sink.poll_ready_unpin(cx))?;
            let message = match self.queue.pop_front() {
                Some(Outgoing::Text(text)) => Message::Text(text),
                Some(Outgoing::Ping) => Message::Ping(Bytes::new()),
                Some(Outgoing::Close(code, reason)) => {
                    // Nothing follows a close frame.
                    self.queue.clear();
                    close_frame(code, reason)
                }
                None => break,
            };
            let is_close = matches!(message, Message::Close(_));
            self.sink.start_send_unpin(message)?;
            self.unflushed = true;
            if is_close {
                ready!(self.sink.poll_flush_unpin(cx))?;
                self.unflushed = false;
                return Poll::Ready(Err(Ended::Closed));
            }
        }
        if self.unflushed {
            ready!(self.sink.poll_flush_unpin(cx))?;
            self.unflushed = false;
        }
        Poll::Ready(Ok(()))
    }
}

/// The writer task: runs when the room's writes left it waiting on the socket, on the heartbeat,
/// and to close; it ends with the connection's sending side.
async fn write_loop(wire: Arc<Wire>, heartbeat: Heartbeat) {
    let mut timer = PingTimer::new(heartbeat.every);
    let ended = std::future::poll_fn(|cx| wire.poll_writer(cx, &mut timer, &heartbeat)).await;
    if ended == Ended::TimedOut {
        heartbeat.dropping("the client reads nothing");
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

/// The socket's sending half, giving up on a client that reads nothing: a write (a frame into
/// the buffer, a flush, the close) that has waited for `limit` fails with `TimedOut`. Without a
/// limit, a client that stops reading (its receive window stays shut) would hold its
/// connection, and everything queued for it, forever.
struct TimedSink {
    inner: futures_util::stream::SplitSink<WebSocket, Message>,
    limit: std::time::Duration,
    /// Started when a write first has to wait, and dropped when it goes through. Nearly every
    /// write goes through at once and then costs neither a clock reading nor a timer; boxed so
    /// that it takes no room beside every connection (a timer in place, through
    /// `tokio::time::timeout`, made each connection's writer twice as large).
    waiting: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl TimedSink {
    /// `poll`, the inner sink's answer, unless it has been waiting for the limit.
    fn within_limit(
        &mut self,
        cx: &mut Context<'_>,
        poll: Poll<Result<(), axum::Error>>,
    ) -> Poll<Result<(), Ended>> {
        if let Poll::Ready(result) = poll {
            self.waiting = None;
            return Poll::Ready(result.map_err(|_| Ended::Failed));
        }
        let limit = self.limit;
        let timer = self
            .waiting
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(Ended::TimedOut)),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl futures_util::Sink<Message> for TimedSink {
    type Error = Ended;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Ended>> {
        let poll = self.inner.poll_ready_unpin(cx);
        self.within_limit(cx, poll)
    }

    fn start_send(mut self: Pin<&mut Self>, item: Message) -> Result<(), Ended> {
        self.inner.start_send_unpin(item).map_err(|_| Ended::Failed)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Ended>> {
        let poll = self.inner.poll_flush_unpin(cx);
        self.within_limit(cx, poll)
    }

    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Ended>> {
        let poll = self.inner.poll_close_unpin(cx);
        self.within_limit(cx, poll)
    }
}

/// The heartbeat's timer, polled only when it may have fired. Once a poll has registered the
/// writer's waker with it, the timer wakes the writer by itself when it fires; polling it
/// again at every wake-up, as `select!` does, showed in the profile (tests/perf/README.md).
struct PingTimer {
    sleep: Pin<Box<tokio::time::Sleep>>,
    every: std::time::Duration,
    /// The timer has been polled since it was last set, and holds the writer's waker.
    registered: bool,
}

impl PingTimer {
    fn new(every: std::time::Duration) -> PingTimer {
        PingTimer {
            sleep: Box::pin(tokio::time::sleep(every)),
            every,
            registered: false,
        }
    }

    /// Whether the timer has fired; registers the waker when it has not.
    fn poll_fired(&mut self, cx: &mut Context<'_>) -> bool {
        if self.registered && !self.sleep.is_elapsed() {
            return false;
        }
        match self.sleep.as_mut().poll(cx) {
            Poll::Ready(()) => true,
            Poll::Pending => {
                self.registered = true;
                false
            }
        }
    }

    /// Sets the timer for the next heartbeat, counted from now.
    fn set_next(&mut self) {
        let next = Instant::now() + self.every;
        self.sleep.as_mut().reset(next);
        self.registered = false;
    }
}
