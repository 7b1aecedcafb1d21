//! `fourkings client`: a command-line client that joins a room through the public protocol only
//! (the `fourkings-protocol` types over a WebSocket), takes seats, and plays random legal moves
//! from the moves the server sends until the game ends. It proves the protocol from outside the
//! server, and lets anyone fill seats from a terminal.

use std::collections::HashMap;

use anyhow::{Context, anyhow, bail};
use clap::Args;
use fourkings_protocol::{
    ClientMessage, ClientRequest, Event, GameResult, LegalMoves, SeatIndex, ServerMessage,
};
use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Arguments of `fourkings client`.
#[derive(Clone, Debug, Args)]
pub struct ClientArgs {
    /// The room's link, e.g. http://127.0.0.1:8080/r/7k3m9x2pq4t1v.
    pub link: String,
    /// The seats to take (0–3; repeat the flag for several; none: just watch).
    #[arg(long = "seat", value_parser = seat_arg)]
    pub seats: Vec<SeatIndex>,
    /// The display name for the seats taken.
    #[arg(long, default_value = "terminal")]
    pub name: String,
    /// The host token (from creating the room), to start the game.
    // Tokens are base64url, so one in 32 starts with '-'; it is still the flag's value.
    #[arg(long, allow_hyphen_values = true)]
    pub host_token: Option<String>,
    /// Start the game once the seats are taken (needs --host-token).
    #[arg(long)]
    pub start: bool,
    /// Seed for the random choice of moves.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print nothing but the result.
    #[arg(long)]
    pub quiet: bool,
    /// Milliseconds to wait before each move, to stay within the server's message rate.
    #[arg(long, default_value_t = 100)]
    pub move_delay_ms: u64,
}

/// How a client's game ended.
#[derive(Clone, Debug)]
pub struct ClientReport {
    /// The result the server announced.
    pub result: GameResult,
    /// Every move in notation, as announced.
    pub moves: Vec<String>,
    /// The moves this client played.
    pub played: usize,
}

/// The WebSocket address of a room link (`http://host/r/<id>` → `ws://host/ws/<id>`).
pub fn websocket_url(link: &str) -> anyhow::Result<String> {
    let (scheme, rest) = link
        .split_once("://")
        .ok_or_else(|| anyhow!("{link:?} is not a room link"))?;
    let ws = match scheme {
        "http" | "ws" => "ws",
        "https" | "wss" => "wss",
        other => bail!("unsupported scheme {other:?}"),
    };
    let (host, path) = rest
        .split_once('/')
        .ok_or_else(|| anyhow!("{link:?} has no room path"))?;
    let id = path
        .trim_start_matches("r/")
        .trim_start_matches("ws/")
        .trim_end_matches('/');
    if id.is_empty() || id.contains('/') {
        bail!("{link:?} is not a room link like http://host/r/<id>");
    }
    Ok(format!("{ws}://{host}/ws/{id}"))
}

/// Joins the room, takes the seats, plays until the game ends, and reports the result.
pub async fn run(args: &ClientArgs) -> anyhow::Result<ClientReport> {
    if args.start && args.host_token.is_none() {
        bail!("--start needs --host-token");
    }
    let url = websocket_url(&args.link)?;
    let (socket, _) = tokio_tungstenite::connect_async(&url)
        .await
        .with_context(|| format!("connecting to {url}"))?;
    let mut session = Session::new(args, socket);
    session.join().await?;
    while let Some(frame) = session.socket.next().await {
        let text = match frame? {
            Message::Text(text) => text,
            Message::Close(frame) => bail!("the server closed the connection: {frame:?}"),
            _ => continue,
        };
        let message: ServerMessage =
            serde_json::from_str(&text).with_context(|| format!("server sent {text}"))?;
        if let Some(result) = session.receive(message).await? {
            return Ok(ClientReport {
                result,
                moves: session.moves,
                played: session.played,
            });
        }
    }
    bail!("the connection ended before the game did")
}

/// One client's connection to its room, and what it has learnt so far.
struct Session<'a> {
    args: &'a ClientArgs,
    socket: WebSocketStream<MaybeTlsStream<TcpStream>>,
    rng: ChaCha8Rng,
    /// The number of the last request sent.
    last_req: u64,
    /// Requests waiting for an answer, and what to do once answered.
    waiting: HashMap<u64, Pending>,
    /// The token of each seat taken.
    tokens: HashMap<SeatIndex, String>,
    /// Whether `start` was asked for.
    started: bool,
    /// The version of the last event applied.
    version: u64,
    /// Every move in notation, as announced.
    moves: Vec<String>,
    /// The moves this client played.
    played: usize,
}

impl<'a> Session<'a> {
    fn new(args: &'a ClientArgs, socket: WebSocketStream<MaybeTlsStream<TcpStream>>) -> Self {
        Session {
            args,
            socket,
            rng: ChaCha8Rng::seed_from_u64(args.seed),
            last_req: 0,
            waiting: HashMap::new(),
            tokens: HashMap::new(),
            started: false,
            version: 0,
            moves: Vec::new(),
            played: 0,
        }
    }

    /// Sends `message` as the next request and returns its number.
    async fn send(&mut self, message: ClientMessage) -> anyhow::Result<u64> {
        self.last_req += 1;
        let request = ClientRequest::new(self.last_req, message);
        let text = serde_json::to_string(&request).expect("client messages serialise");
        self.socket.send(Message::text(text)).await?;
        Ok(self.last_req)
    }

    /// Says hello (as the host, if a host token was given) and asks for every seat to take.
    async fn join(&mut self) -> anyhow::Result<()> {
        self.send(ClientMessage::Hello {
            seat_tokens: vec![],
            host_token: self.args.host_token.clone(),
            since: None,
        })
        .await?;
        for &seat in &self.args.seats {
            let name = self.args.name.clone();
            let req = self.send(ClientMessage::TakeSeat { seat, name }).await?;
            self.waiting.insert(req, Pending::Seat(seat));
        }
        Ok(())
    }

    /// Acts on one message from the server; the game's result once it has one.
    async fn receive(&mut self, message: ServerMessage) -> anyhow::Result<Option<GameResult>> {
        match message {
            ServerMessage::Snapshot(snapshot) => {
                self.version = snapshot.v;
                if let Some(game) = snapshot.game {
                    self.moves = game.moves;
                    return Ok(game.result);
                }
            }
            ServerMessage::Event { v, event } => {
                if v != self.version + 1 {
                    // A gap: ask for what was missed.
                    let since = self.version;
                    self.send(ClientMessage::Resync { since }).await?;
                    return Ok(None);
                }
                self.version = v;
                return Ok(self.apply(event));
            }
            ServerMessage::LegalMoves { moves: legal, .. } => self.play(legal).await?,
            ServerMessage::Ack {
                req, seat_token, ..
            } => {
                if let (Some(Pending::Seat(seat)), Some(token)) =
                    (self.waiting.remove(&req), seat_token)
                {
                    self.tokens.insert(seat, token);
                }
                if self.args.start && !self.started && self.tokens.len() == self.args.seats.len() {
                    self.started = true;
                    let host_token = self.args.host_token.clone().unwrap_or_default();
                    self.send(ClientMessage::Start { host_token }).await?;
                }
            }
            ServerMessage::Error { req, code, message } => {
                match req.and_then(|r| self.waiting.remove(&r)) {
                    // A move can lose a race with the server (the position moved on): the next
                    // legal moves will come.
                    Some(Pending::Move) => {}
                    _ => bail!(
                        "the server refused request {req:?}: {} ({message})",
                        code.as_str()
                    ),
                }
            }
            ServerMessage::Pong { .. } => {}
        }
        Ok(None)
    }

    /// Applies an event in order; the game's result if it ended.
    fn apply(&mut self, event: Event) -> Option<GameResult> {
        match event {
            Event::Moved(moved) => {
                if !self.args.quiet {
                    println!("{:>4}. {}", moved.ply, moved.text);
                }
                self.moves.push(moved.text);
                moved.result
            }
            Event::GameChanged { game, .. } | Event::Started { game } => game.result,
            _ => None,
        }
    }

    /// Plays a random one of `legal`, if the seat to move is one of ours.
    async fn play(&mut self, legal: LegalMoves) -> anyhow::Result<()> {
        let Some(token) = self.tokens.get(&legal.seat).cloned() else {
            return Ok(());
        };
        if legal.moves.is_empty() {
            return Ok(());
        }
        let mv = legal.moves[self.rng.random_range(0..legal.moves.len())].clone();
        tokio::time::sleep(std::time::Duration::from_millis(self.args.move_delay_ms)).await;
        let req = self
            .send(ClientMessage::Move {
                seat: legal.seat,
                token,
                ply: legal.ply,
                mv,
            })
            .await?;
        self.waiting.insert(req, Pending::Move);
        self.played += 1;
        Ok(())
    }
}

/// Reads a `--seat`: a seat index, 0–3.
fn seat_arg(text: &str) -> Result<SeatIndex, String> {
    let not_a_seat = || format!("{text:?} is not a seat: seats are 0 to 3");
    let number: u8 = text.parse().map_err(|_| not_a_seat())?;
    SeatIndex::new(number).ok_or_else(not_a_seat)
}

/// What a request waiting for its answer was.
enum Pending {
    Seat(SeatIndex),
    Move,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_links_become_websocket_urls() {
        assert_eq!(
            websocket_url("http://127.0.0.1:8080/r/abc").unwrap(),
            "ws://127.0.0.1:8080/ws/abc"
        );
        assert_eq!(
            websocket_url("https://chess.example.org/r/abc/").unwrap(),
            "wss://chess.example.org/ws/abc"
        );
        assert!(websocket_url("ftp://x/r/abc").is_err());
        assert!(websocket_url("http://x/").is_err());
    }

    #[derive(clap::Parser)]
    struct Command {
        #[command(flatten)]
        client: ClientArgs,
    }

    #[test]
    fn a_host_token_that_starts_with_a_hyphen_is_still_the_flags_value() {
        use clap::Parser;
        let parsed = Command::try_parse_from([
            "client",
            "http://127.0.0.1:8080/r/abc",
            "--host-token",
            "-Mx3_token",
            "--start",
        ])
        .unwrap();
        assert_eq!(parsed.client.host_token.as_deref(), Some("-Mx3_token"));
        assert!(parsed.client.start);
    }
}
