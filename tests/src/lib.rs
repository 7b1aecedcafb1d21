//! Helpers for the end-to-end tests: a real server on 127.0.0.1 port 0, HTTP calls, and a small
//! WebSocket client that speaks the protocol.

pub mod disk;
pub mod doubles;
pub mod model;
pub mod podman;
pub mod postgres;

use std::time::Duration;

use anyhow::{Context, anyhow, bail};
use fourkings_protocol::{
    ClientMessage, ClientRequest, CreateRoomResponse, ErrorCode, Event, LegalMoves, Presence,
    SeatIndex, ServerMessage, SettingsPatch, Snapshot,
};
use fourkings_server::{Config, Server};
use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::CloseFrame;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// How long a test waits for any one message before failing.
pub const WAIT: Duration = Duration::from_secs(10);

/// The most requests a client that does not read sends while it waits for the server to give
/// up on it (the tests stop sending as soon as it has): far more answers than the socket buffers
/// between them can hold (the server's send buffer grows to 4 MB on Linux; these are about 90 MB),
/// and a bound on a test that would otherwise flood forever.
pub const FLOOD_LIMIT: u32 = 200_000;

/// The seat numbered `index` (0–3), for the messages and the expected values of tests. Panics for
/// any other number: a message with a seat out of range can only be sent as text (see
/// [`Client::fails_text`]).
pub fn seat(index: u8) -> SeatIndex {
    SeatIndex::new(index).unwrap_or_else(|| panic!("{index} is not a seat"))
}

/// This machine's wall clock in milliseconds since the Unix epoch: the server's clock, in tests
/// that check the times it sends.
pub fn now_ms() -> u64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the clock is after 1970");
    u64::try_from(since.as_millis()).expect("milliseconds fit in u64")
}

/// Polls `condition` until it holds, for at most `within`, and says whether it held: for a
/// condition that no message announces (a room leaving memory, a counter of `/metrics` moving).
/// Whatever can be awaited as a message is awaited instead.
pub async fn eventually<F, Fut>(within: Duration, mut condition: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + within;
    loop {
        if condition().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
}

/// How often [`eventually`] asks again.
const POLL_EVERY: Duration = Duration::from_millis(10);

/// Where a test server keeps its rooms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// In memory (the tests' default: nothing to clean up, nothing waits for a disk).
    Memory,
    /// A SQLite file in a fresh temporary directory, committed as the binary does by default
    /// (`--storage-sync full`): the writer thread, group commits, a real disk.
    SqliteFile,
    /// A PostgreSQL server of the test's own ([`postgres::TestPostgres`]).
    Postgres,
}

/// What a test's store needs kept while it is used: the folder of its file, or its database
/// server. Dropping it removes the folder, or stops the server and removes its folder.
pub enum StoreData {
    /// The folder of a SQLite file.
    Folder(TempDir),
    /// A PostgreSQL server.
    Postgres(postgres::TestPostgres),
}

impl Store {
    /// A store of this kind, for [`TestServer::with_storage`], and the directory that holds its
    /// file (keep it as long as the store; `None` in memory).
    pub fn open(
        self,
    ) -> (
        Box<dyn fourkings_server::storage::Storage>,
        Option<StoreData>,
    ) {
        use fourkings_server::StorageSync;
        use fourkings_server::storage::postgres::PostgresStorage;
        use fourkings_server::storage::sqlite::SqliteStorage;
        match self {
            Store::Memory => (
                Box::new(fourkings_server::storage::memory::MemoryStorage::new()),
                None,
            ),
            Store::SqliteFile => {
                let dir = temp_dir("store");
                let storage = SqliteStorage::open(&dir.path().join("rooms.db"), StorageSync::Full)
                    .expect("a fresh database opens");
                (Box::new(storage), Some(StoreData::Folder(dir)))
            }
            Store::Postgres => {
                let database = postgres::TestPostgres::start();
                let storage = PostgresStorage::open(&database.url(), 2, Duration::from_secs(5))
                    .expect("a fresh database opens");
                (Box::new(storage), Some(StoreData::Postgres(database)))
            }
        }
    }
}

/// Runs each scenario `async fn <name>(store: Store)` as three tests, `<name>::in_memory`,
/// `<name>::on_sqlite_file` and `<name>::on_postgres`, each a `#[tokio::test]` (with
/// `multi_thread:` first, on two worker threads): the end-to-end suites run against every store.
/// `cargo test on_postgres` runs only the third kind.
#[macro_export]
macro_rules! on_every_store {
    (multi_thread: $($name:ident),+ $(,)?) => {
        $($crate::on_every_store!(
            @one #[tokio::test(flavor = "multi_thread", worker_threads = 2)] $name
        );)+
    };
    ($($name:ident),+ $(,)?) => {
        $($crate::on_every_store!(@one #[tokio::test] $name);)+
    };
    (@one #[$test:meta] $name:ident) => {
        mod $name {
            #[$test]
            async fn in_memory() {
                super::$name($crate::Store::Memory).await;
            }

            #[$test]
            async fn on_sqlite_file() {
                super::$name($crate::Store::SqliteFile).await;
            }

            #[$test]
            async fn on_postgres() {
                super::$name($crate::Store::Postgres).await;
            }
        }
    };
}

/// A server for one test.
pub struct TestServer {
    /// The running server.
    pub server: Server,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    http: reqwest::Client,
    /// Its database file's folder or its database server, removed after the server is dropped
    /// (a field is dropped after those declared before it).
    data: Option<StoreData>,
}

/// The configuration test servers start from: the defaults, on a free port of 127.0.0.1, with
/// no limits per client address (every test client comes from 127.0.0.1, and the tests of
/// those limits set them).
pub fn test_config() -> Config {
    let mut config = Config::with_addr("127.0.0.1:0".parse().unwrap());
    config.room_creations_per_minute = 0;
    config.max_connections_per_address = 0;
    config.max_sockets_per_address = 0;
    config
}

/// The environment a server process is started with unless a test says otherwise: no limits
/// per client address, as in [`test_config`].
const PROCESS_ENV: [(&str, &str); 3] = [
    ("FOURKINGS_ROOM_CREATIONS_PER_MINUTE", "0"),
    ("FOURKINGS_MAX_CONNECTIONS_PER_ADDRESS", "0"),
    ("FOURKINGS_MAX_SOCKETS_PER_ADDRESS", "0"),
];

impl TestServer {
    /// Starts a server with the default configuration.
    pub async fn start() -> TestServer {
        TestServer::with(|_| {}).await
    }

    /// Starts a server after `adjust` changed the default configuration.
    pub async fn with(adjust: impl FnOnce(&mut Config)) -> TestServer {
        TestServer::on(Store::Memory, adjust).await
    }

    /// Starts a server that keeps its rooms in `store`, after `adjust` changed the default
    /// configuration.
    pub async fn on(store: Store, adjust: impl FnOnce(&mut Config)) -> TestServer {
        TestServer::on_with_strategy(
            store,
            adjust,
            std::sync::Arc::new(fourkings_server::cpu::RandomMover),
        )
        .await
    }

    /// Starts a server that keeps its rooms in `storage`.
    pub async fn with_storage(
        adjust: impl FnOnce(&mut Config),
        storage: Box<dyn fourkings_server::storage::Storage>,
    ) -> TestServer {
        let mut config = test_config();
        adjust(&mut config);
        let strategy = std::sync::Arc::new(fourkings_server::cpu::RandomMover);
        let server = Server::start_with_storage(config, strategy, storage)
            .await
            .expect("the server starts");
        TestServer::serving(server, None)
    }

    /// Starts a server whose CPU seats play `strategy`.
    pub async fn with_strategy(
        adjust: impl FnOnce(&mut Config),
        strategy: std::sync::Arc<dyn fourkings_server::cpu::Strategy>,
    ) -> TestServer {
        TestServer::on_with_strategy(Store::Memory, adjust, strategy).await
    }

    /// Starts a server that keeps its rooms in `store` and whose CPU seats play `strategy`.
    pub async fn on_with_strategy(
        store: Store,
        adjust: impl FnOnce(&mut Config),
        strategy: std::sync::Arc<dyn fourkings_server::cpu::Strategy>,
    ) -> TestServer {
        let mut config = test_config();
        let data = match store {
            Store::Memory => None,
            Store::SqliteFile => {
                let dir = temp_dir("store");
                config.in_memory = false;
                config.database = dir.path().join("rooms.db").into();
                Some(StoreData::Folder(dir))
            }
            Store::Postgres => {
                let database = postgres::TestPostgres::start();
                config.in_memory = false;
                config.database = fourkings_server::Database::Postgres(database.url());
                Some(StoreData::Postgres(database))
            }
        };
        adjust(&mut config);
        let server = Server::start_with(config, strategy)
            .await
            .expect("the server starts");
        if let Some(StoreData::Folder(dir)) = &data {
            assert!(
                dir.path().join("rooms.db").is_file(),
                "the server opened its file"
            );
        }
        TestServer::serving(server, data)
    }

    /// A node of a cluster over `database`, whose leases last `lease`, listening on a free port
    /// of 127.0.0.1 (its node URL names that port), trusting 127.0.0.1 (the other nodes).
    pub async fn node(database: &postgres::TestPostgres, lease: Duration) -> TestServer {
        TestServer::node_with(database, lease, |_| {}).await
    }

    /// Like [`TestServer::node`], after `adjust` changed the configuration.
    pub async fn node_with(
        database: &postgres::TestPostgres,
        lease: Duration,
        adjust: impl FnOnce(&mut Config),
    ) -> TestServer {
        let url = database.url();
        TestServer::with(|config| {
            config.in_memory = false;
            config.database = fourkings_server::Database::Postgres(url);
            config.node_url = Some("http://127.0.0.1:0".into());
            config.lease_seconds = lease.as_secs_f64();
            // The other nodes are on this machine: trusted, as an operator lists their network.
            config.trusted_proxies = vec!["127.0.0.1/32".parse().unwrap()];
            adjust(config);
        })
        .await
    }

    /// The PostgreSQL server the test server keeps its rooms in, if it does.
    pub fn postgres(&self) -> Option<&postgres::TestPostgres> {
        match &self.data {
            Some(StoreData::Postgres(database)) => Some(database),
            _ => None,
        }
    }

    fn serving(server: Server, data: Option<StoreData>) -> TestServer {
        let base = format!("http://{}", server.addr());
        TestServer {
            server,
            base,
            http: reqwest::Client::new(),
            data,
        }
    }

    /// `POST /api/rooms` with these settings; panics unless it succeeds.
    pub async fn create_room(&self, settings: &SettingsPatch) -> CreateRoomResponse {
        let response = self
            .post_room(&serde_json::to_string(settings).unwrap())
            .await;
        assert_eq!(response.status(), 201);
        response.json().await.unwrap()
    }

    /// A server with [`TestServer::slow_reader_limits`], and one client of a fresh room that sent
    /// a flood of requests without reading the answers and was closed for it (code 4002, as
    /// asserted here).
    pub async fn with_a_client_dropped_for_a_full_queue() -> TestServer {
        let server = TestServer::with(TestServer::slow_reader_limits).await;
        let mut slow = server.slow_reader_dropped().await;
        assert_eq!(
            slow.until_closed().await.1,
            Some(fourkings_protocol::close::TOO_SLOW.0)
        );
        server
    }

    /// Settings for the tests of clients that do not read: a connection may send as much as it
    /// likes, and its queue holds more than a burst of answers (the reader hands the room at most
    /// 128 messages before it yields), so that only a socket whose client does not read lets
    /// the queue fill; and a write may wait on that socket for a long time, so that the full
    /// queue, not the write timeout, ends the connection however slow the machine is (the test
    /// of the write timeout sets its own).
    pub fn slow_reader_limits(config: &mut Config) {
        config.outbound_queue = 1024;
        config.rate_per_second = 1_000_000;
        config.rate_burst = 1_000_000;
        config.write_timeout_seconds = 600.0;
    }

    /// A client in seat 0 of a fresh room that sent requests without reading a single answer
    /// until the server gave up on it: the room found its queue full, and a spectator saw the
    /// seat go away. Whatever the server still writes to it waits in the
    /// socket, unread.
    pub async fn slow_reader_dropped(&self) -> Client {
        let room = self.create_room(&SettingsPatch::default()).await;
        let (mut watcher, _) = self.connect(&room.id).await;
        let mut slow = self.connect_slow_reader(&room.id).await;
        slow.take_seat(seat(0), "Slow").await;
        // The spectator reads all along, so that only the slow client falls behind.
        let seat_went_away = watcher.event_where(|_, event| {
            matches!(
                event,
                Event::Presence {
                    seat: s,
                    presence: Presence::Away,
                    ..
                } if *s == seat(0)
            )
            .then_some(())
        });
        tokio::select! {
            () = seat_went_away => {}
            sent = slow.flood(&room.host_token, FLOOD_LIMIT) => panic!(
                "the server never gave up on a client that read nothing \
                 (all {FLOOD_LIMIT} requests sent: {sent})"
            ),
        }
        slow
    }

    /// Opens a room's WebSocket over a socket with a small receive buffer, and reads the
    /// snapshot: a client whose window shuts after a few kilobytes left unread, so that the
    /// server's writes soon wait for it.
    pub async fn connect_slow_reader(&self, room: &str) -> Client {
        let socket = tokio::net::TcpSocket::new_v4().expect("a socket");
        socket
            .set_recv_buffer_size(4096)
            .expect("the receive buffer can be set");
        let stream = socket
            .connect(self.server.addr())
            .await
            .expect("the server accepts");
        let url = format!("ws://{}/ws/{room}", self.server.addr());
        let (socket, _) = tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream))
            .await
            .expect("the WebSocket opens");
        let mut client = Client {
            socket,
            next_req: 0,
        };
        client.snapshot().await;
        client
    }

    /// `POST /api/rooms` with a raw body.
    pub async fn post_room(&self, body: &str) -> reqwest::Response {
        self.http
            .post(format!("{}/api/rooms", self.base))
            .body(body.to_owned())
            .send()
            .await
            .unwrap()
    }

    /// The sum of every series of the metric `name` (over all its labels) in a scrape of
    /// `/metrics`, e.g. `fourkings_moves_accepted_total`; 0 when it has none yet.
    pub async fn metric(&self, name: &str) -> f64 {
        let text = self.get("/metrics").await.text().await.expect("a scrape");
        let labelled = format!("{name}{{");
        text.lines()
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.rsplit_once(' '))
            .filter(|(series, _)| *series == name || series.starts_with(&labelled))
            .map(|(_, value)| value.parse::<f64>().expect("a number"))
            .sum()
    }

    /// `GET` a path.
    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .unwrap()
    }

    /// Opens a room's WebSocket and reads the spectator snapshot that comes first.
    pub async fn connect(&self, room: &str) -> (Client, Snapshot) {
        let mut client = self
            .connect_raw(room, None)
            .await
            .expect("the WebSocket opens");
        let snapshot = client.snapshot().await;
        (client, snapshot)
    }

    /// Opens a room's WebSocket from the local address `local` (any of 127.0.0.0/8 reaches the
    /// server): a client at another address, for the limits per address.
    pub async fn connect_from(
        &self,
        room: &str,
        local: std::net::IpAddr,
    ) -> anyhow::Result<Client> {
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.bind(std::net::SocketAddr::new(local, 0))?;
        let stream = socket.connect(self.server.addr()).await?;
        let url = format!("ws://{}/ws/{room}", self.server.addr());
        let (socket, _) =
            tokio_tungstenite::client_async(url, MaybeTlsStream::Plain(stream)).await?;
        let mut client = Client {
            socket,
            next_req: 0,
        };
        client.snapshot().await;
        Ok(client)
    }

    /// An HTTP client whose requests come from the local address `local`.
    pub fn http_from(local: std::net::IpAddr) -> reqwest::Client {
        reqwest::Client::builder()
            .local_address(local)
            .build()
            .expect("an HTTP client")
    }

    /// Opens a room's WebSocket, with an Origin header if given.
    pub async fn connect_raw(&self, room: &str, origin: Option<&str>) -> anyhow::Result<Client> {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        let url = format!("ws://{}/ws/{room}", self.server.addr());
        let mut request = url.into_client_request()?;
        if let Some(origin) = origin {
            request.headers_mut().insert("origin", origin.parse()?);
        }
        let (socket, _) = tokio_tungstenite::connect_async(request).await?;
        Ok(Client {
            socket,
            next_req: 0,
        })
    }
}

/// A WebSocket client of the protocol.
pub struct Client {
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    next_req: u64,
}

impl Client {
    /// Opens the WebSocket at `url` (`ws://<host>/ws/<room>`), e.g. of a [`ServerProcess`].
    pub async fn open(url: &str) -> anyhow::Result<Client> {
        let (socket, _) = tokio_tungstenite::connect_async(url).await?;
        Ok(Client {
            socket,
            next_req: 0,
        })
    }

    /// Opens room `room`'s WebSocket on the server at `base` (`http://<host>`), and reads the
    /// spectator snapshot that comes first.
    pub async fn join(base: &str, room: &str) -> anyhow::Result<(Client, Snapshot)> {
        let url = format!("{}/ws/{room}", base.replacen("http://", "ws://", 1));
        let mut client = Client::open(&url).await?;
        match client.try_next().await? {
            ServerMessage::Snapshot(snapshot) => Ok((client, *snapshot)),
            other => bail!("expected a snapshot first, got {other:?}"),
        }
    }

    /// A fresh request id.
    pub fn req(&mut self) -> u64 {
        self.next_req += 1;
        self.next_req
    }

    /// Sends a request.
    pub async fn send(&mut self, request: &ClientRequest) {
        self.send_text(&serde_json::to_string(request).unwrap())
            .await;
    }

    /// Sends a request and says whether it could be sent (the server may have closed first).
    pub async fn try_send(&mut self, request: &ClientRequest) -> anyhow::Result<()> {
        self.try_send_text(&serde_json::to_string(request)?).await
    }

    /// Sends raw text.
    pub async fn send_text(&mut self, text: &str) {
        self.socket
            .send(Message::text(text.to_owned()))
            .await
            .expect("sending works");
    }

    /// Sends raw text and says whether it could be sent (the server may have closed first).
    pub async fn try_send_text(&mut self, text: &str) -> anyhow::Result<()> {
        self.socket.send(Message::text(text.to_owned())).await?;
        Ok(())
    }

    /// Sends a binary frame.
    pub async fn send_binary(&mut self, bytes: &[u8]) {
        self.socket
            .send(Message::binary(bytes.to_vec()))
            .await
            .expect("sending works");
    }

    /// Reads and drops whatever the server sent before now: sends a `ping` and skips everything
    /// up to its `pong` (a room answers in order).
    pub async fn drain(&mut self) {
        let req = self.req();
        self.send(&ClientRequest::new(req, ClientMessage::Ping))
            .await;
        self.find(&format!("the pong of request {req}"), |m| match m {
            ServerMessage::Pong { req: r, .. } if *r == req => Some(()),
            _ => None,
        })
        .await;
    }

    /// The next server message (panics after [`WAIT`] or if the connection closed).
    pub async fn next(&mut self) -> ServerMessage {
        self.try_next().await.expect("a message from the server")
    }

    /// The first message that `pick` accepts, skipping others. When none comes within [`WAIT`] of
    /// the last message, or the connection ends, it panics saying what it waited for (`what`) and
    /// the messages it passed over, so that a failure on a slow machine tells what it saw.
    pub async fn find<T>(
        &mut self,
        what: &str,
        mut pick: impl FnMut(&ServerMessage) -> Option<T>,
    ) -> T {
        let mut passed = PassedOver::default();
        loop {
            let message = self
                .try_next()
                .await
                .unwrap_or_else(|e| panic!("waited for {what}: {e:#}; {passed}"));
            if let Some(found) = pick(&message) {
                return found;
            }
            passed.push(&message);
        }
    }

    /// The next server message, or why there is none (within [`WAIT`], however many heartbeat
    /// pings arrive meanwhile).
    pub async fn try_next(&mut self) -> anyhow::Result<ServerMessage> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let frame = tokio::time::timeout_at(deadline, self.socket.next())
                .await
                .context("no message within the wait")?
                .ok_or_else(|| anyhow!("the connection ended"))??;
            match frame {
                Message::Text(text) => {
                    return serde_json::from_str(&text).with_context(|| format!("parsing {text}"));
                }
                Message::Close(frame) => bail!("closed: {frame:?}"),
                _ => continue,
            }
        }
    }

    /// Waits for the connection to be closed by the server and returns the close frame.
    pub async fn closed(&mut self) -> Option<CloseFrame> {
        loop {
            match tokio::time::timeout(WAIT, self.socket.next()).await.ok()? {
                Some(Ok(Message::Close(frame))) => return frame,
                Some(Ok(_)) => continue,
                _ => return None,
            }
        }
    }

    /// Reads until the server closes the connection, and asserts that it closed with `code` and
    /// that nothing before told of a move (a move storage gave up, or that was never stored).
    pub async fn closed_unaware_of_moves(&mut self, code: u16) {
        let (messages, closed_with) = self.until_closed().await;
        assert_eq!(closed_with, Some(code), "{messages:?}");
        assert!(
            !messages.iter().any(|m| matches!(
                m,
                ServerMessage::Event {
                    event: Event::Moved(_),
                    ..
                }
            )),
            "nobody heard of the move: {messages:?}"
        );
    }

    /// Joins room `room` through `base` as the holder of `token`, trying again until a server
    /// there answers with the room (one that does not serve it yet answers 503, or relays to a
    /// node that is gone), within `within`.
    pub async fn rejoin(base: &str, room: &str, token: &str, within: Duration) -> Client {
        let deadline = std::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            // An attempt that hangs (a proxy waiting on a node that is gone) is given up at the
            // deadline, not waited out.
            if let Ok(Ok((mut client, _))) =
                tokio::time::timeout(left, Client::join(base, room)).await
            {
                let hello = client
                    .request(ClientMessage::Hello {
                        seat_tokens: vec![token.to_owned()],
                        host_token: None,
                        since: None,
                    })
                    .await;
                if matches!(hello, ServerMessage::Ack { .. }) {
                    return client;
                }
            }
            assert!(
                std::time::Instant::now() < deadline,
                "{base} never served {room}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Reads until the server closes the connection: the messages that came first, and the close
    /// code (`None` if the connection ended without a close frame). Panics after [`WAIT`].
    pub async fn until_closed(&mut self) -> (Vec<ServerMessage>, Option<u16>) {
        let mut messages = Vec::new();
        loop {
            let frame = tokio::time::timeout(WAIT, self.socket.next())
                .await
                .expect("the server closes the connection within the wait");
            match frame {
                Some(Ok(Message::Text(text))) => messages.push(
                    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parsing {text}: {e}")),
                ),
                Some(Ok(Message::Close(frame))) => {
                    return (messages, frame.map(|f| u16::from(f.code)));
                }
                Some(Ok(_)) => continue,
                Some(Err(_)) | None => return (messages, None),
            }
        }
    }

    /// Sends `count` settings updates as the host without reading a single answer (each brings
    /// an ack and an event); `false` if the server closed the socket before all went. A client
    /// that never reads, for the too-slow-client paths.
    pub async fn flood(&mut self, host_token: &str, count: u32) -> bool {
        for i in 0..count {
            let update = ClientRequest::new(
                u64::from(i),
                ClientMessage::UpdateSettings {
                    host_token: host_token.to_owned(),
                    settings: SettingsPatch {
                        castling: Some(i % 2 == 0),
                        ..SettingsPatch::default()
                    },
                },
            );
            let text = serde_json::to_string(&update).expect("client messages serialise");
            if self.try_send_text(&text).await.is_err() {
                return false;
            }
        }
        true
    }

    /// Plays `mv` (coordinate form) for `seat`, holding `token`, at `ply`; returns the answer.
    pub async fn play_move(
        &mut self,
        seat: SeatIndex,
        token: &str,
        ply: u32,
        mv: &str,
    ) -> ServerMessage {
        let (token, mv) = (token.to_owned(), mv.to_owned());
        self.request(ClientMessage::Move {
            seat,
            token,
            ply,
            mv,
        })
        .await
    }

    /// The next message that is a snapshot (others are skipped).
    pub async fn snapshot(&mut self) -> Snapshot {
        self.find("a snapshot", |m| match m {
            ServerMessage::Snapshot(s) => Some(s.as_ref().clone()),
            _ => None,
        })
        .await
    }

    /// Sends a message under a fresh request id and returns the answer to it (ack or error),
    /// skipping other messages.
    pub async fn request(&mut self, message: ClientMessage) -> ServerMessage {
        self.request_text(|req| {
            serde_json::to_string(&ClientRequest::new(req, message))
                .expect("client messages serialise")
        })
        .await
    }

    /// Sends a request written as text (for what a [`ClientMessage`] cannot hold, such as seat 4)
    /// and returns the answer to it, skipping other messages.
    pub async fn request_text(&mut self, build: impl FnOnce(u64) -> String) -> ServerMessage {
        let req = self.req();
        self.send_text(&build(req)).await;
        self.answer(req).await
    }

    /// The ack or error for `req`, skipping other messages.
    pub async fn answer(&mut self, req: u64) -> ServerMessage {
        self.find(&format!("the answer to request {req}"), |m| match m {
            ServerMessage::Ack { req: r, .. } if *r == req => Some(m.clone()),
            ServerMessage::Error { req: Some(r), .. } if *r == req => Some(m.clone()),
            _ => None,
        })
        .await
    }

    /// Sends a request that must succeed; returns the ack.
    pub async fn ok(&mut self, message: ClientMessage) -> ServerMessage {
        let answer = self.request(message).await;
        assert!(
            matches!(answer, ServerMessage::Ack { .. }),
            "expected an ack, got {answer:?}"
        );
        answer
    }

    /// Sends a request that must fail with `code`.
    pub async fn fails(&mut self, code: ErrorCode, message: ClientMessage) {
        expect_error(self.request(message).await, code);
    }

    /// Sends a request written as text (see [`Client::request_text`]) that must fail with `code`.
    pub async fn fails_text(&mut self, code: ErrorCode, build: impl FnOnce(u64) -> String) {
        expect_error(self.request_text(build).await, code);
    }

    /// The next room event (with its version), skipping acks, snapshots and legal moves.
    pub async fn event(&mut self) -> (u64, Event) {
        self.find("an event", |m| match m {
            ServerMessage::Event { v, event } => Some((*v, event.clone())),
            _ => None,
        })
        .await
    }

    /// The next legal-moves message.
    pub async fn legal_moves(&mut self) -> LegalMoves {
        self.find("the legal moves", |m| match m {
            ServerMessage::LegalMoves { moves, .. } => Some(moves.clone()),
            _ => None,
        })
        .await
    }

    /// Takes a seat and returns its token.
    pub async fn take_seat(&mut self, seat: SeatIndex, name: &str) -> String {
        match self
            .ok(ClientMessage::TakeSeat {
                seat,
                name: name.to_owned(),
            })
            .await
        {
            ServerMessage::Ack {
                seat_token: Some(token),
                ..
            } => token,
            other => panic!("no seat token in {other:?}"),
        }
    }

    /// The next event that `pick` accepts (others are skipped).
    pub async fn event_where<T>(&mut self, mut pick: impl FnMut(u64, &Event) -> Option<T>) -> T {
        self.find("an event the test looks for", |m| match m {
            ServerMessage::Event { v, event } => pick(*v, event),
            _ => None,
        })
        .await
    }

    /// Reads for `wait`, answering the server's heartbeat pings (the WebSocket does it while
    /// reading), and counts them; fails if the connection closes or a message arrives.
    pub async fn pings_within(&mut self, wait: Duration) -> anyhow::Result<usize> {
        let deadline = tokio::time::Instant::now() + wait;
        let mut pings = 0;
        while let Ok(frame) = tokio::time::timeout_at(deadline, self.socket.next()).await {
            match frame.ok_or_else(|| anyhow!("the connection ended"))?? {
                Message::Ping(_) => pings += 1,
                other => bail!("expected only pings, got {other:?}"),
            }
        }
        Ok(pings)
    }

    /// Whether anything arrives within `wait` (used to show that nothing was sent).
    pub async fn quiet_for(&mut self, wait: Duration) -> Option<ServerMessage> {
        match tokio::time::timeout(wait, self.socket.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => serde_json::from_str(&text).ok(),
            _ => None,
        }
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.socket.close(None).await;
    }
}

/// Panics unless `answer` is an error with `code`.
fn expect_error(answer: ServerMessage, code: ErrorCode) {
    match answer {
        ServerMessage::Error { code: c, .. } if c == code => {}
        other => panic!("expected error {code:?}, got {other:?}"),
    }
}

/// Four people at a table: one connection each, seat `i` held by `players[i]`.
pub struct Table {
    /// The room.
    pub room: CreateRoomResponse,
    /// The connections, by seat.
    pub players: Vec<Client>,
    /// The seat tokens, by seat.
    pub tokens: Vec<String>,
}

impl Table {
    /// Creates a room with `settings`, seats four players (seat 0 is the host), and starts the
    /// game unless `start` is false.
    pub async fn seat_four(server: &TestServer, settings: &SettingsPatch, start: bool) -> Table {
        let room = server.create_room(settings).await;
        Table::seat_everyone(room, &[&server.base], start).await
    }

    /// Creates a room with `settings` on the server at `bases[0]`, seats four players, the one
    /// at seat `i` connected through `bases[i % bases.len()]` (seat 0 is the host), and starts
    /// the game.
    pub async fn seat_four_through(bases: &[&str], settings: &SettingsPatch) -> Table {
        let created = reqwest::Client::new()
            .post(format!("{}/api/rooms", bases[0]))
            .body(serde_json::to_string(settings).unwrap())
            .send()
            .await
            .expect("the server answers");
        assert_eq!(created.status(), 201);
        let room: CreateRoomResponse = created.json().await.unwrap();
        Table::seat_everyone(room, bases, true).await
    }

    /// Seats four players in `room`, seat `i` connected through `bases[i % bases.len()]`, and
    /// starts the game if `start`.
    async fn seat_everyone(room: CreateRoomResponse, bases: &[&str], start: bool) -> Table {
        let mut players = Vec::new();
        let mut tokens = Vec::new();
        for seat in SeatIndex::ALL {
            let base = bases[seat.index() % bases.len()];
            let (mut client, _) = Client::join(base, &room.id)
                .await
                .expect("the WebSocket opens");
            tokens.push(client.take_seat(seat, &format!("player {seat}")).await);
            players.push(client);
        }
        if start {
            let host_token = room.host_token.clone();
            players[0].ok(ClientMessage::Start { host_token }).await;
        }
        Table {
            room,
            players,
            tokens,
        }
    }

    /// Red's first move (`h2h4`), sent while storage fails or hangs: refused with
    /// `storage_unavailable` within `within`; then every player's connection is closed for a
    /// restart (the room goes back to what is stored), none of them told of the move.
    pub async fn first_move_is_given_up(&mut self, within: Duration) {
        let began = std::time::Instant::now();
        let red_move = self.send_move(seat(0), 0, "h2h4").await;
        let answer = self.players[0].answer(red_move).await;
        assert!(
            matches!(
                answer,
                ServerMessage::Error {
                    code: ErrorCode::StorageUnavailable,
                    ..
                }
            ),
            "{answer:?}"
        );
        assert!(
            began.elapsed() < within,
            "answered within the bound: {:?}",
            began.elapsed()
        );
        for player in &mut self.players {
            player
                .closed_unaware_of_moves(fourkings_protocol::close::ROOM_RESTARTING.0)
                .await;
        }
    }

    /// Sends `mv` (coordinate form) for `seat` at `ply` without waiting for the answer; returns
    /// the request's id.
    pub async fn send_move(&mut self, seat: SeatIndex, ply: u32, mv: &str) -> u64 {
        let token = self.tokens[seat.index()].clone();
        let player = &mut self.players[seat.index()];
        let req = player.req();
        player
            .send(&ClientRequest::new(
                req,
                ClientMessage::Move {
                    seat,
                    token,
                    ply,
                    mv: mv.to_owned(),
                },
            ))
            .await;
        req
    }

    /// Plays `moves` (seat number, coordinate form) from the first ply on; each must be
    /// acknowledged.
    pub async fn play_opening(&mut self, moves: &[(u8, &str)]) {
        self.play_opening_from(0, moves).await;
    }

    /// Plays `moves` (seat number, coordinate form) from ply `first` on; each must be
    /// acknowledged.
    pub async fn play_opening_from(&mut self, first: u32, moves: &[(u8, &str)]) {
        for (ply, &(seat, mv)) in (first..).zip(moves) {
            let answer = self.play(self::seat(seat), ply, mv).await;
            assert!(
                matches!(answer, ServerMessage::Ack { .. }),
                "ply {ply}, {mv} for seat {seat}: {answer:?}"
            );
        }
    }

    /// `seat` resigns (acknowledged).
    pub async fn resign(&mut self, seat: SeatIndex) {
        let token = self.tokens[seat.index()].clone();
        self.players[seat.index()]
            .ok(ClientMessage::Resign { seat, token })
            .await;
    }

    /// Plays `mv` (coordinate form) for `seat` at the current ply and returns the answer.
    pub async fn play(&mut self, seat: SeatIndex, ply: u32, mv: &str) -> ServerMessage {
        let token = self.tokens[seat.index()].clone();
        self.players[seat.index()]
            .play_move(seat, &token, ply, mv)
            .await
    }
}

/// The `fourkings` binary of this build, as a `&Path`: `fourkings-under-test`, this package's
/// own build of the server's `server/src/main.rs`, which Cargo builds before the integration
/// tests and names to them in `CARGO_BIN_EXE_fourkings-under-test`. A macro, so that `env!`
/// reads that variable where it is set: in the integration test that calls it.
#[macro_export]
macro_rules! fourkings_binary {
    () => {
        ::std::path::Path::new(env!("CARGO_BIN_EXE_fourkings-under-test"))
    };
}

/// A `fourkings serve` process, stopped when dropped.
pub struct ServerProcess {
    /// The process.
    pub child: std::process::Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// Its standard output, after the `listening on` line.
    pub stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl ServerProcess {
    /// Runs `binary` (the test's [`fourkings_binary!`]) with `args` and `env`, and waits for its
    /// `listening on` line. Storage is in memory unless `env` names a database
    /// (`FOURKINGS_DATABASE`).
    pub fn spawn(binary: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> ServerProcess {
        ServerProcess::spawn_logging_to(binary, args, env, std::process::Stdio::null())
    }

    /// Like [`ServerProcess::spawn`], with the server's standard error (its log) going to
    /// `stderr`.
    pub fn spawn_logging_to(
        binary: &std::path::Path,
        args: &[&str],
        env: &[(&str, &str)],
        stderr: impl Into<std::process::Stdio>,
    ) -> ServerProcess {
        use std::io::BufRead;
        let mut command = std::process::Command::new(binary);
        command
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(stderr);
        if !env.iter().any(|(key, _)| *key == "FOURKINGS_DATABASE") {
            command.env("FOURKINGS_IN_MEMORY", "true");
        }
        for (key, value) in PROCESS_ENV {
            command.env(key, value);
        }
        for (key, value) in env {
            command.env(key, value);
        }
        let mut child = command.spawn().expect("the binary starts");
        let stdout = std::io::BufReader::new(child.stdout.take().expect("piped stdout"));
        // From here on, dropping the process (a failed assertion included) kills and reaps it.
        let mut process = ServerProcess {
            child,
            base: String::new(),
            stdout,
        };
        let mut line = String::new();
        loop {
            line.clear();
            let read = process
                .stdout
                .read_line(&mut line)
                .expect("reading the server's output");
            assert!(read > 0, "the server exited before listening");
            if let Some(base) = listening_address(&line) {
                process.base = base;
                return process;
            }
        }
    }

    /// Sends a signal (`TERM`, `INT`, `KILL`) and waits for the process to exit.
    pub fn signal_and_wait(&mut self, signal: &str) -> std::process::ExitStatus {
        let status = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
        self.child.wait().expect("the server exits")
    }
}

/// The address in `fourkings serve`'s standard output line: `listening on http://ADDR`, or, with
/// JSON logs, a JSON log line whose `address` field holds it.
pub fn listening_address(line: &str) -> Option<String> {
    let line = line.trim();
    if let Some(base) = line.strip_prefix("listening on ") {
        return Some(base.to_owned());
    }
    let event: serde_json::Value = serde_json::from_str(line).ok()?;
    let message = event["message"].as_str()?;
    message.starts_with("listening on ").then_some(())?;
    event["address"].as_str().map(str::to_owned)
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fresh directory (for a database, a log), removed when dropped.
pub use tempfile::TempDir;

/// A new empty directory under the system's temporary directory, named after `purpose`.
pub fn temp_dir(purpose: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(&format!("fourkings-{purpose}-"))
        .tempdir()
        .expect("a temporary directory")
}

/// The messages a wait passed over, for its failure's message: how many, and the last few.
#[derive(Default)]
struct PassedOver {
    count: usize,
    last: std::collections::VecDeque<String>,
}

impl PassedOver {
    /// How many of the messages passed over a failure shows.
    const SHOWN: usize = 8;
    /// How much of each it shows.
    const CHARS: usize = 300;

    fn push(&mut self, message: &ServerMessage) {
        self.count += 1;
        if self.last.len() == Self::SHOWN {
            self.last.pop_front();
        }
        let mut text = serde_json::to_string(message).unwrap_or_else(|e| e.to_string());
        if let Some((cut, _)) = text.char_indices().nth(Self::CHARS) {
            text.truncate(cut);
            text.push('…');
        }
        self.last.push_back(text);
    }
}

impl std::fmt::Display for PassedOver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.count == 0 {
            return f.write_str("no other message came meanwhile");
        }
        write!(
            f,
            "passed over {} messages meanwhile, the last of them:",
            self.count
        )?;
        for text in &self.last {
            write!(f, "\n  {text}")?;
        }
        Ok(())
    }
}
