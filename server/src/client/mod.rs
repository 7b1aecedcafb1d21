//! `fourkings client`: a command-line client that joins a room through the public protocol only
//! (the `fourkings-protocol` types over a WebSocket), takes seats, and plays random legal moves
//! from the moves the server sends until the game ends. It proves the protocol from outside the
//! server, and lets anyone fill seats from a terminal.

use std::collections::HashMap;

use anyhow::{Context, anyhow, bail};
use clap::Args;
use fourkings_protocol::{
    ClientMessage, ClientRequest, Event, GameResult, SeatIndex, ServerMessage,
};
use futures_util::{SinkExt, StreamExt};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio_tungstenite::tungstenite::Message;

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
    let (mut socket, _) = tokio_tungstenite::connect_async(&url)
        .await
        .with_context(|| format!("connecting to {url}"))?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    let mut next_req = 0u64;
    let mut request = |message: ClientMessage| {
        next_req += 1;
        let request = ClientRequest::new(next_req, message);
        (
            next_req,
            serde_json::to_string(&request).expect("client messages serialise"),
        )
    };
    let host = args.host_token.clone();
    let (_, hello) = request(ClientMessage::Hello {
        seat_tokens: vec![],
        host_token: host.clone(),
        since: None,
    });
    socket.send(Message::text(hello)).await?;
    // Requests waiting for an answer, and what to do once answered.
    let mut waiting: HashMap<u64, Pending> = HashMap::new();
    for &seat in &args.seats {
        let name = args.name.clone();
        let (req, text) = request(ClientMessage::TakeSeat {
            seat,
            name: name.clone(),
        });
        waiting.insert(req, Pending::Seat(seat));
        socket.send(Message::text(text)).await?;
    }
    let mut tokens: HashMap<SeatIndex, String> = HashMap::new();
    let mut started_request = false;
    let mut version = 0u64;
    let mut moves = Vec::new();
    let mut played = 0;
    while let Some(frame) = socket.next().await {
        let text = match frame? {
            Message::Text(text) => text,
            Message::Close(frame) => bail!("the server closed the connection: {frame:?}"),
            _ => continue,
        };
        let message: ServerMessage =
            serde_json::from_str(&text).with_context(|| format!("server sent {text}"))?;
        match message {
            ServerMessage::Snapshot(snapshot) => {
                version = snapshot.v;
                if let Some(game) = &snapshot.game {
                    moves.clone_from(&game.moves);
                    if let Some(result) = game.result.clone() {
                        return Ok(ClientReport {
                            result,
                            moves,
                            played,
                        });
                    }
                }
            }
            ServerMessage::Event { v, event } => {
                if v != version + 1 {
                    // A gap: ask for what was missed.
                    let (_, text) = request(ClientMessage::Resync { since: version });
                    socket.send(Message::text(text)).await?;
                    continue;
                }
                version = v;
                match event {
                    Event::Moved(moved) => {
                        if !args.quiet {
                            println!("{:>4}. {}", moved.ply, moved.text);
                        }
                        moves.push(moved.text);
                        if let Some(result) = moved.result {
                            return Ok(ClientReport {
                                result,
                                moves,
                                played,
                            });
                        }
                    }
                    Event::GameChanged { game, .. } | Event::Started { game } => {
                        if let Some(result) = game.result {
                            return Ok(ClientReport {
                                result,
                                moves,
                                played,
                            });
                        }
                    }
                    _ => {}
                }
            }
            ServerMessage::LegalMoves { moves: legal, .. } => {
                let Some(token) = tokens.get(&legal.seat) else {
                    continue;
                };
                if legal.moves.is_empty() {
                    continue;
                }
                let choice = legal.moves[rng.random_range(0..legal.moves.len())].clone();
                tokio::time::sleep(std::time::Duration::from_millis(args.move_delay_ms)).await;
                let token = token.clone();
                let (req, text) = request(ClientMessage::Move {
                    seat: legal.seat,
                    token: token.clone(),
                    ply: legal.ply,
                    mv: choice.clone(),
                });
                waiting.insert(req, Pending::Move);
                socket.send(Message::text(text)).await?;
                played += 1;
            }
            ServerMessage::Ack {
                req, seat_token, ..
            } => {
                if let (Some(Pending::Seat(seat)), Some(token)) = (waiting.remove(&req), seat_token)
                {
                    tokens.insert(seat, token);
                }
                if args.start && !started_request && tokens.len() == args.seats.len() {
                    started_request = true;
                    let host = host.clone().unwrap_or_default();
                    let (_, text) = request(ClientMessage::Start {
                        host_token: host.clone(),
                    });
                    socket.send(Message::text(text)).await?;
                }
            }
            ServerMessage::Error { req, code, message } => {
                let pending = req.and_then(|r| waiting.remove(&r));
                match pending {
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
    }
    bail!("the connection ended before the game did")
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
