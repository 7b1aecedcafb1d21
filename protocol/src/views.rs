//! What the server shows of a room: seats, the game, results.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::SeatIndex;
use crate::settings::{CpuLevel, Settings};

/// Who sits in a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Occupant {
    /// Nobody: a player may take it (a CPU takes it at the start).
    Empty,
    /// A person.
    Human,
    /// The CPU.
    Cpu,
}

/// Whether the person in a seat is here.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// Connected.
    Online,
    /// Dropped, within the grace period: the seat waits for them.
    Away,
    /// Gone past the grace period, during a game: the CPU plays for them until they come back.
    CpuPlaying,
    /// Gone past the grace period where no CPU plays for them: before or after a game, and in Duo
    /// (where the other team may claim the win). They may still come back.
    Gone,
}

/// One seat as everyone sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SeatView {
    /// The seat, 0–3.
    pub seat: SeatIndex,
    /// Its label: the army (`Red`) or, in Duo, `W1`, `B1`, `W2`, `B2`.
    pub label: String,
    /// Who sits there.
    pub occupant: Occupant,
    /// The player's display name, as they gave it (render it as text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The CPU's level, for a CPU seat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_level: Option<CpuLevel>,
    /// Whether the player is here, for a seat with a person in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presence: Option<Presence>,
    /// For a player away within the grace period: when it ends, in milliseconds since the Unix
    /// epoch on the server's clock (then the CPU plays for them, or in Duo the win may be
    /// claimed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_ends_at: Option<u64>,
}

/// The game's clocks, as the server keeps them. Clients count down from `turn_ends_at` (server time)
/// or, not trusting their own clock, from `turn_remaining_ms` at the moment they received it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Clock {
    /// When the current turn ends, in milliseconds since the Unix epoch on the server's clock
    /// (the turn limit or the team's bank, whichever ends first); absent when nothing limits it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_ends_at: Option<u64>,
    /// The same as milliseconds left when the message was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_remaining_ms: Option<u64>,
    /// Milliseconds left in each bank when the message was written: with a game clock, one per
    /// seat (0–3); with Duo's team clock, one per team (seats 0 + 2, seats 1 + 3). Absent when
    /// untimed. The bank of the seat to move runs (after its delay), the others stand still.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub banks_ms: Option<Vec<u64>>,
    /// With a delay: what is left of the current turn's delay, in milliseconds, when the message
    /// was written; the bank of the seat to move starts to run after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay_ms: Option<u64>,
    /// Whether the clocks are stopped (Duo, while a player is away).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub paused: bool,
}

/// Where a chat message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ChatChannel {
    /// Players' room chat: everyone reads it.
    Room,
    /// Partners only (not under silent partners, not in free-for-all).
    Team,
    /// Spectators' chat: spectators only, so that nobody prompts the players.
    Spectators,
}

/// One chat message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChatLine {
    /// The channel.
    pub channel: ChatChannel,
    /// The seat that wrote it (absent for a spectator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<SeatIndex>,
    /// The writer's name as given (a spectator's is `spectator`). Render it as text.
    pub name: String,
    /// The message as given. Render it as text.
    pub text: String,
    /// When the server received it, in milliseconds since the Unix epoch.
    pub at: u64,
}

/// A switch-partners session: three games, every pairing once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionView {
    /// The game being played or just finished, 1–3.
    pub game: u8,
    /// Each person's session points (1 per team win, ½ per draw), highest first.
    pub standings: Vec<SessionPoints>,
    /// Whether all three games are over.
    pub finished: bool,
}

/// One person's session points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SessionPoints {
    /// Their display name.
    pub name: String,
    /// Their seat in the current game.
    pub seat: SeatIndex,
    /// Their points.
    pub points: f32,
}

/// Where a room is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameStatus {
    /// Seats and settings are being arranged.
    Lobby,
    /// A game is being played.
    Playing,
    /// The game has ended.
    Finished,
}

/// How an army stands in the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArmyState {
    /// In the game.
    Playing,
    /// Out, but its king walks on by itself.
    KingWalking,
    /// Out: its pieces are grey.
    Out,
    /// Reserved for a seat with no army on the board: no preset sends it (in Duo each of the four
    /// seats shows the state of its colour's army).
    Absent,
}

/// A finished game's result.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GameResult {
    /// The winning seats (empty for a draw; a team's two seats; the free-for-all leaders).
    pub winners: Vec<SeatIndex>,
    /// What ended the game, as a stable code: `checkmate`, `king_captured`, `resignation`,
    /// `breakthrough`, `timeout`, `abandonment`, `stalemate`, `agreement`, `repetition`,
    /// `fifty_moves`, `dead_position`, `move_limit`, `last_player`, `lead`, `claimed`.
    pub reason: String,
    /// The result in words, e.g. `Blue checkmated. 1-0`.
    pub text: String,
    /// Free-for-all: every seat's final points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<[i32; 4]>,
}

/// The board a game is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BoardShape {
    /// The four-player board: 14 × 14 squares without the 3 × 3 corners, 160 squares.
    Cross,
    /// The 8 × 8 board (Duo).
    Classic,
}

/// How a game is played: it decides the board, the teams and the scoring.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum GameFormat {
    /// Two teams of partners sitting opposite (seats 0 + 2 against seats 1 + 3), cross board.
    #[default]
    Teams,
    /// Everyone for themselves on the cross board, for points.
    FreeForAll,
    /// Two teams on an ordinary board, partners sharing one army and taking turns.
    Duo,
}

/// What `resign` does under the room's rules.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ResignationRule {
    /// The resigner's team loses at once.
    #[default]
    TeamLoses,
    /// The partner is asked first (`resignation_requested`); the team loses when they agree.
    PartnerConsent,
    /// The resigner leaves the game (free-for-all); their pieces turn grey.
    Out,
    /// The resigner leaves the game, and their king walks on by itself until it is mated.
    OutKingWalks,
}

/// How the win may be claimed with `claim_win`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ClaimRule {
    /// Free-for-all with the `claim_win` setting: the leader, once two players are left and the
    /// lead is more than 20 points (`cannot_claim` before that).
    Lead,
    /// Duo: a seat whose opponent has been away past the grace period (presence `gone`).
    Abandonment,
}

/// What the room's rules let its players do, as the server decides it from the settings and the
/// engine's rule set. Clients offer what this says instead of working it out from the preset's
/// name, so that each rule has one home. It is in every snapshot, every `settings_changed` and
/// every game view. A message from a server that predates it reads as the default: Teams, the team
/// losing on a resignation, and nothing optional (no team chat, takebacks or claim).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RulesView {
    /// Teams, free-for-all or Duo.
    pub format: GameFormat,
    /// What resigning does.
    pub resignation: ResignationRule,
    /// Whether players may write in the team channel now: never in free-for-all, and not after
    /// the start under silent partners (the server refuses it with `not_allowed` exactly then).
    pub team_chat: bool,
    /// Takebacks (`take_back`) each team has for a game: 2 with the lifelines twist, else 0 (and
    /// `take_back` is refused with `not_allowed`). What is left is the game's `lifelines`.
    pub takebacks: u8,
    /// How the win may be claimed, if it may.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim: Option<ClaimRule>,
}

/// The whole game as a client draws it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GameView {
    /// The game's id; once it is over, `GET /api/games/<id>.pgn4` (`.pgn` in Duo) downloads it.
    pub id: String,
    /// The board: `cross` (160 squares) or `classic` (8×8, Duo).
    pub board: BoardShape,
    /// Every piece by square: army letter and role letter (`rK`, `gP`; Duo: `wK`, `bP`).
    pub pieces: BTreeMap<String, String>,
    /// Squares of promoted pieces (they score 1 in free-for-all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub promoted: Vec<String>,
    /// The seat to move, while the game goes on.
    pub to_move: Option<SeatIndex>,
    /// Plies played.
    pub ply: u32,
    /// Every move so far in notation (long algebraic on the cross board, SAN in Duo).
    pub moves: Vec<String>,
    /// The seat that played each of `moves`, so that clients need not replay the turn order
    /// (who was still in, whose king walked) to tell. Older servers sent none.
    #[serde(default)]
    pub move_seats: Vec<SeatIndex>,
    /// Each of `moves` in coordinate form (`h2h4`, `e7e8q`), whatever the notation of `moves`:
    /// with `move_seats`, every army's last move. Older servers sent none.
    #[serde(default)]
    pub move_coordinates: Vec<String>,
    /// The last move's from- and to-square.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_move: Option<[String; 2]>,
    /// Seats whose king is attacked.
    pub checks: Vec<SeatIndex>,
    /// The squares of the pieces attacking those kings, rank by rank from the first (`a` to
    /// `n` within a rank).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checking: Vec<String>,
    /// Free-for-all points by seat.
    pub points: [i32; 4],
    /// How each seat's army stands.
    pub armies: [ArmyState; 4],
    /// Lifeline tokens left per team (seats 0+2, seats 1+3).
    pub lifelines: [u8; 2],
    /// Seats that agreed to an open draw offer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub draw_offer: Vec<SeatIndex>,
    /// A seat whose resignation waits for its partner.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resignation_request: Option<SeatIndex>,
    /// The position as FEN4 (cross board) or FEN (Duo).
    pub fen: String,
    /// The result, once the game has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
    /// The clocks.
    #[serde(default)]
    pub clock: Clock,
    /// The seat that moves first in this game.
    pub first_seat: SeatIndex,
    /// What the game's rules let its players do.
    #[serde(default)]
    pub rules: RulesView,
}

/// Everything a client needs to draw a room, sent on connecting and on resync.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Snapshot {
    /// The protocol version the server speaks ([`crate::PROTOCOL_VERSION`]).
    pub protocol: u32,
    /// The room's event version this snapshot shows.
    pub v: u64,
    /// The room id.
    pub room: String,
    /// Where the room is in its life.
    pub status: GameStatus,
    /// The settings.
    pub settings: Settings,
    /// The four seats.
    pub seats: Vec<SeatView>,
    /// The host's seat, if the host sits at the table.
    pub host_seat: Option<SeatIndex>,
    /// The seats this connection holds.
    pub your_seats: Vec<SeatIndex>,
    /// Whether this connection holds the host role.
    pub you_are_host: bool,
    /// The host token, for connections that hold the host's seat: the host role survives a lost
    /// connection like the seat does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_token: Option<String>,
    /// The game, once started.
    pub game: Option<GameView>,
    /// Your legal moves, when one of your seats is to move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub legal_moves: Option<LegalMoves>,
    /// The recent chat you may read, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<ChatLine>,
    /// The switch-partners session, if the room plays one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<SessionView>,
    /// The premoves your seats have queued, for each of your seats that has any (nobody else's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub premoves: Vec<PremoveQueue>,
    /// What the room's rules let its players do now (once a game has started, the same as
    /// `game.rules`).
    #[serde(default)]
    pub rules: RulesView,
    /// The limits this server sets on what players write, so that clients say the same (older
    /// servers sent none: all 0).
    #[serde(default)]
    pub limits: Limits,
    /// The server's time when it wrote the snapshot, in milliseconds since the Unix epoch: a
    /// clock reference for clients even in an untimed game (older servers sent none: 0).
    #[serde(default)]
    pub server_time: u64,
}

/// The server's limits on what players write (its settings), for clients to check against and
/// to name in their messages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Limits {
    /// The longest display name, in characters (`bad_name` beyond it).
    pub name_chars: u32,
    /// The longest chat message, in characters (`bad_chat` beyond it).
    pub chat_chars: u32,
    /// Chat messages a connection may send a minute (`chat_limited` beyond it).
    pub chat_per_minute: u32,
}

/// The legal moves of the seat to move, sent only to that seat's connections.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LegalMoves {
    /// The seat to move.
    pub seat: SeatIndex,
    /// The ply they are for.
    pub ply: u32,
    /// Each move in coordinate form (`h2h4`, `h10h11q`).
    pub moves: Vec<String>,
}

/// A move was played: the diff every client applies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MovedEvent {
    /// The seat that moved.
    pub seat: SeatIndex,
    /// The ply this move was (1 for the first move).
    pub ply: u32,
    /// The move in notation (`Bh2xNl6`, `Nf3+`).
    pub text: String,
    /// The move in coordinate form (`h2h4`).
    #[serde(rename = "move")]
    pub mv: String,
    /// Every square whose contents changed, with what stands there now (`null` when empty).
    pub changed: BTreeMap<String, Option<String>>,
    /// The seat to move next, if the game goes on.
    pub to_move: Option<SeatIndex>,
    /// Seats whose king is attacked now.
    pub checks: Vec<SeatIndex>,
    /// The squares of the pieces attacking those kings, rank by rank from the first (`a` to
    /// `n` within a rank): who gives each check, a discovered one included.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub checking: Vec<String>,
    /// Free-for-all points by seat, after the move.
    pub points: [i32; 4],
    /// How each seat's army stands, after the move.
    pub armies: [ArmyState; 4],
    /// For a promotion, the piece the pawn became, written as in the game's `pieces` (`rQ`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotion: Option<String>,
    /// Whether the move ended a draw offer that was open (a move answers an offer with no).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ended_draw_offer: bool,
    /// Whether the move was played for the player by the CPU (the turn limit ran out, or the player
    /// is away) or by a walking king.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub automatic: bool,
    /// Whether the move was the player's premove, played by the server as the turn began.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub premove: bool,
    /// The clocks after the move.
    #[serde(default)]
    pub clock: Clock,
    /// The result, if the move ended the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GameResult>,
}

/// A seat's premove queue, first to play first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PremoveQueue {
    /// The seat.
    pub seat: SeatIndex,
    /// The queued moves in coordinate form, first to play first.
    pub moves: Vec<String>,
}

/// Why the server emptied a seat's premove queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PremovesDropped {
    /// The first queued move was not legal when the seat's turn began.
    Illegal,
    /// A takeback changed the position the moves were queued for.
    TakenBack,
    /// The CPU played the seat's turn (its turn limit ran out, or the player is away past the
    /// grace period): queued moves are never played for an absent player.
    CpuPlayed,
    /// The player was away (disconnected) when the turn began.
    Away,
    /// The seat is out of the game, or the game is over.
    GameOver,
}
