//! The HTTP routes: the room API, the WebSocket upgrade, health and metrics.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{ConnectInfo, FromRequestParts, Path, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use fourkings_engine::Preset;
use fourkings_protocol::{CreateRoomResponse, ErrorBody, ErrorCode, Settings, SettingsPatch};
use tokio::sync::oneshot;
use tokio_util::task::TaskTracker;

use crate::address::AddressLimits;
use crate::config::Config;
use crate::connection;
use crate::directory::{CreateError, Directory, Found};
use crate::forward::{FORWARDED, Forwarder};
use crate::health::{Health, Readiness};
use crate::ids::is_room_id;
use crate::metrics::{self, Metrics};
use crate::room::{Command, GameDocument, rules};
use crate::storage::writer::StorageHandle;

/// What every handler shares.
#[derive(Clone)]
pub(crate) struct AppState {
    pub(crate) directory: Arc<Directory>,
    pub(crate) config: Arc<Config>,
    /// Connection tasks, so that a shutdown can wait for them.
    pub(crate) connections: TaskTracker,
    /// The archive of finished games.
    pub(crate) storage: StorageHandle,
    /// What `/metrics` serves.
    pub(crate) metrics: Arc<Metrics>,
    /// Whether the server is shutting down.
    pub(crate) health: Arc<Health>,
    /// What each client address may do.
    pub(crate) limits: Arc<AddressLimits>,
    /// Sends requests for rooms that another node serves to that node.
    pub(crate) forwarder: Forwarder,
    /// The sockets open, for readiness.
    pub(crate) admission: Arc<crate::admission::Admission>,
}

/// The router.
pub(crate) fn router(state: AppState) -> Router {
    Router::new()
        .route("/api/rooms", post(create_room))
        .route("/api/rooms/{id}", get(room_info))
        .route("/ws/{id}", get(websocket))
        .route("/api/games/{file}", get(archived_game))
        .route("/api/rooms/{id}/game", get(current_game))
        .route("/api/rooms/{id}/game/history", get(current_game_history))
        .route("/api/schema.json", get(schema))
        .route("/cluster/rooms/{id}/handover", post(hand_over))
        .route("/healthz", get(|| async { "ok" }))
        .route("/readyz", get(ready))
        .route("/metrics", get(metrics_text))
        .route("/", get(crate::web::index))
        .route("/r/{id}", get(crate::web::index))
        .route("/assets/{*path}", get(crate::web::asset))
        .with_state(state)
}

fn error(status: StatusCode, code: ErrorCode, message: impl Into<String>) -> Response {
    (
        status,
        axum::Json(ErrorBody {
            code,
            message: message.into(),
        }),
    )
        .into_response()
}

/// `503` with `shutting_down`: the server drains and takes nothing new.
fn shutting_down() -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::ShuttingDown,
        "the server is shutting down; try again in a moment",
    )
}

/// `GET /readyz`: `200 ready`, or `503` with the reason.
async fn ready(State(state): State<AppState>) -> Response {
    let full = state.directory.len() >= state.config.max_rooms;
    let storage = state.storage.is_running() && state.storage.health().is_ok();
    let readiness = state
        .health
        .readiness(storage, state.admission.at_limit(), full);
    let status = if readiness == Readiness::Ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (status, readiness.as_str()).into_response()
}

/// `GET /metrics`: every metric, as Prometheus scrapes it.
async fn metrics_text(State(state): State<AppState>) -> Response {
    (
        [(header::CONTENT_TYPE, metrics::CONTENT_TYPE)],
        state.metrics.render(),
    )
        .into_response()
}

/// `GET /api/schema.json`: the protocol as one JSON Schema document, generated once.
async fn schema() -> Response {
    static DOCUMENT: std::sync::LazyLock<Bytes> =
        std::sync::LazyLock::new(|| Bytes::from(fourkings_protocol::schema::document_text()));
    (
        [
            (header::CONTENT_TYPE, "application/schema+json"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        DOCUMENT.clone(),
    )
        .into_response()
}

/// `503` with `storage_unavailable`: storage takes no writes now, or did not answer in time.
fn storage_unavailable() -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::StorageUnavailable,
        "storage is not answering; try again in a moment",
    )
}

fn not_found() -> Response {
    error(
        StatusCode::NOT_FOUND,
        ErrorCode::RoomNotFound,
        "no such room",
    )
}

async fn create_room(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if state.health.draining() {
        return shutting_down();
    }
    let settings = match new_room_settings(&body) {
        Ok(settings) => settings,
        Err(why) => return error(StatusCode::BAD_REQUEST, ErrorCode::InvalidSettings, why),
    };
    // Refused at once while storage takes no writes: the room could not be stored.
    if state.storage.health().is_err() {
        return storage_unavailable();
    }
    // Counted once the request is good: a client is limited by the rooms it creates.
    let client = state.limits.client(peer.ip(), &headers);
    if let Err(too_fast) = state.limits.create_room(client) {
        tracing::debug!(%client, "room creation refused: too many from this address");
        return creating_too_fast(too_fast.retry_after);
    }
    match state.directory.create(settings).await {
        Ok((id, host_token)) => {
            // `201` only once the room is on disk: a host token for a room that a crash could
            // lose would be worthless. Its creation was handed to storage before this question.
            // A room refused here is dropped unjoined, or as soon as storage gives it up.
            let stored =
                tokio::time::timeout(state.config.storage_timeout(), state.storage.created(&id))
                    .await;
            if !matches!(stored, Ok(Ok(true))) {
                tracing::warn!(room = %id, "a new room was not stored in time; its creation is refused");
                return storage_unavailable();
            }
            let link = format!("/r/{id}");
            (
                StatusCode::CREATED,
                axum::Json(CreateRoomResponse {
                    id,
                    link,
                    host_token,
                }),
            )
                .into_response()
        }
        Err(CreateError::TooManyRooms) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::TooManyRooms,
            "the server holds all the rooms it may",
        ),
        Err(CreateError::Storage) => storage_unavailable(),
    }
}

/// Where a room is, for a request: served here, or on the node of the cluster that serves it.
enum Place {
    Here(crate::room::RoomHandle),
    Node(String),
}

/// Where room `id` is (adopted here if no node serves it), or the answer to give instead: not
/// found, or unavailable. A request that another node forwarded is not sent on again.
async fn find(state: &AppState, id: &str, headers: &HeaderMap) -> Result<Place, Response> {
    if !is_room_id(id) {
        return Err(not_found());
    }
    match state.directory.find(id).await {
        Found::Here(room) => Ok(Place::Here(room)),
        Found::Missing => Err(not_found()),
        Found::Unavailable => Err(storage_unavailable()),
        // The nodes disagree for a moment (the room just moved): the client tries again.
        Found::Elsewhere(_) if headers.contains_key(FORWARDED) => Err(node_unavailable()),
        Found::Elsewhere(node) => Ok(Place::Node(node)),
    }
}

/// `503` with `shutting_down`: the room's node cannot be reached now (it is stopping, or the
/// room is moving); a client tries again in a moment, as for a server restarting.
fn node_unavailable() -> Response {
    error(
        StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::ShuttingDown,
        "the room's server cannot be reached; try again in a moment",
    )
}

/// `request` sent on to `node`, which serves its room, and the node's answer.
async fn forward(
    state: &AppState,
    node: &str,
    request: Request,
    peer: SocketAddr,
    upgrade: Option<hyper::upgrade::OnUpgrade>,
) -> Response {
    let websocket = upgrade.is_some();
    match state.forwarder.forward(node, request, peer, upgrade).await {
        Ok(answer) => {
            let counter = if websocket {
                &state.metrics.cluster.forwarded_connections
            } else {
                &state.metrics.cluster.forwarded_requests
            };
            counter.inc();
            answer
        }
        Err(error) => {
            tracing::warn!(error = %crate::storage::Chain(&error), "a request could not be forwarded");
            node_unavailable()
        }
    }
}

/// The settings of a new room: the body's patch (none for an empty body) over the Teams
/// defaults, or why they are refused.
fn new_room_settings(body: &[u8]) -> Result<Settings, String> {
    let patch: SettingsPatch = if body.iter().all(u8::is_ascii_whitespace) {
        SettingsPatch::default()
    } else {
        serde_json::from_slice(body).map_err(|e| e.to_string())?
    };
    rules::apply(&rules::defaults(Preset::Teams), &patch).map_err(|e| e.to_string())
}

/// `429 rate_limited`, with when to try again.
fn creating_too_fast(retry_after: std::time::Duration) -> Response {
    let mut response = error(
        StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::RateLimited,
        "this address has created rooms faster than it may; try again later",
    );
    let seconds = retry_after.as_secs_f64().ceil().max(1.0) as u64;
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from(seconds));
    response
}

async fn room_info(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    let room = match find(&state, &id, request.headers()).await {
        Ok(Place::Here(room)) => room,
        Ok(Place::Node(node)) => return forward(&state, &node, request, peer, None).await,
        Err(answer) => return answer,
    };
    let (reply, answer) = oneshot::channel();
    if !room.send(Command::Info { reply }).await {
        return not_found();
    }
    match answer.await {
        Ok(info) => axum::Json(info).into_response(),
        Err(_) => not_found(),
    }
}

async fn websocket(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    let (mut parts, body) = request.into_parts();
    if !origin_allowed(&parts.headers, &state.config.allowed_origins) {
        return error(
            StatusCode::FORBIDDEN,
            ErrorCode::ForbiddenOrigin,
            "this origin may not connect",
        );
    }
    // The client's side of the upgrade, kept aside while the request is checked: it is the
    // socket this node serves, or the one it relays to the room's node.
    let client_side = parts.extensions.remove::<hyper::upgrade::OnUpgrade>();
    match WebSocketUpgrade::from_request_parts(&mut parts, &state).await {
        // Every header is right; only the connection, set aside, is missing.
        Ok(_) | Err(WebSocketUpgradeRejection::ConnectionNotUpgradable(_)) => {}
        Err(rejection) => return not_an_upgrade(&rejection),
    }
    if state.health.draining() {
        return shutting_down();
    }
    let mut place = find(&state, &id, &parts.headers).await;
    if let Ok(Place::Node(node)) = &place {
        // Nobody may be connected to the room where it is (a room just created there, or left
        // by all): then it moves here, and this connection and those that follow it here (a
        // balancer that routes by room) skip the hop.
        if state.forwarder.ask_hand_over(node, &id).await {
            place = find(&state, &id, &parts.headers).await;
            if matches!(place, Ok(Place::Here(_))) {
                state.metrics.cluster.rooms_pulled.inc();
            }
        }
    }
    let room = match place {
        Ok(Place::Here(room)) => room,
        Ok(Place::Node(node)) => {
            let request = Request::from_parts(parts, body);
            return forward(&state, &node, request, peer, client_side).await;
        }
        Err(answer) => return answer,
    };
    if let Some(client_side) = client_side {
        parts.extensions.insert(client_side);
    }
    let upgrade = match WebSocketUpgrade::from_request_parts(&mut parts, &state).await {
        Ok(upgrade) => upgrade,
        Err(rejection) => return not_an_upgrade(&rejection),
    };
    let headers = parts.headers;
    let client = state.limits.client(peer.ip(), &headers);
    // Held for as long as the connection lives (dropped with the upgrade if it fails).
    let Some(slot) = state.limits.open_connection(client) else {
        tracing::debug!(%client, "WebSocket refused: too many open from this address");
        return error(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::TooManyConnections,
            "this address holds as many connections open as one address may",
        );
    };
    let config = state.config.clone();
    // The socket's own limit is a backstop well above the configured one, which the reader
    // enforces itself so that it can answer with an error code first. Client messages are a few
    // hundred bytes: a 2 KiB read buffer (it grows for a larger frame) keeps an idle connection
    // small, where the default 128 KiB would dominate its memory.
    let limit = config.max_message_bytes * 4;
    // A connection's lines name its room, as the room's own lines do. The span is entered for
    // those (rare) lines only, not for every poll of the connection.
    let span = tracing::info_span!("connection", room = %id);
    let tracker = state.connections;
    upgrade
        .max_message_size(limit)
        .max_frame_size(limit)
        .read_buffer_size(2048)
        .write_buffer_size(4096)
        .on_failed_upgrade(|error| {
            tracing::debug!(%error, "the WebSocket upgrade did not complete");
        })
        .on_upgrade(move |socket| {
            tracker.track_future(async move {
                connection::run(socket, room, config, span).await;
                drop(slot);
            })
        })
}

/// `POST /cluster/rooms/<id>/handover`, from another node of the cluster that a client of the
/// room reached: `204` once the room, which nobody was connected to here, stored everything and
/// its lease is released (that node adopts it); `409` if it stays here (someone is connected, or
/// this node is stopping); `404` if it is not served here. Only the addresses trusted as
/// proxies, where the nodes are listed, may ask.
async fn hand_over(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
) -> Response {
    if !state.directory.is_clustered() {
        return not_found();
    }
    if !state.limits.is_trusted(peer.ip()) {
        return (
            StatusCode::FORBIDDEN,
            "only another node may ask for a room",
        )
            .into_response();
    }
    if state.health.draining() {
        return (StatusCode::CONFLICT, "this node is stopping").into_response();
    }
    if state.directory.get(&id).is_none() {
        return (StatusCode::NOT_FOUND, "the room is not served here").into_response();
    }
    if state.directory.hand_over(&id).await {
        StatusCode::NO_CONTENT.into_response()
    } else {
        (
            StatusCode::CONFLICT,
            "the room stays: someone is connected to it",
        )
            .into_response()
    }
}

/// The answer to a request to `/ws/<id>` that is not a WebSocket upgrade.
fn not_an_upgrade(rejection: &WebSocketUpgradeRejection) -> Response {
    if let WebSocketUpgradeRejection::InvalidWebSocketVersionHeader(_) = rejection {
        // 426 Upgrade Required, naming the version spoken (RFC 6455, section 4.4).
        let mut response = error(
            StatusCode::UPGRADE_REQUIRED,
            ErrorCode::NotWebSocket,
            "only WebSocket version 13 is spoken here",
        );
        response.headers_mut().insert(
            header::SEC_WEBSOCKET_VERSION,
            header::HeaderValue::from_static("13"),
        );
        return response;
    }
    error(
        StatusCode::BAD_REQUEST,
        ErrorCode::NotWebSocket,
        format!("a WebSocket address: {}", rejection.body_text()),
    )
}

/// `GET /api/games/<id>.pgn4` (`.pgn` for Duo): a finished game from the archive.
async fn archived_game(State(state): State<AppState>, Path(file): Path<String>) -> Response {
    let missing = || {
        error(
            StatusCode::NOT_FOUND,
            ErrorCode::GameNotFound,
            "no such game",
        )
    };
    let Some((id, extension)) = file.rsplit_once('.') else {
        return missing();
    };
    let (room, number) = id.rsplit_once('-').unwrap_or(("", ""));
    if !is_room_id(room) || number.parse::<u32>().is_err() {
        return missing();
    }
    let game = match state.storage.game(id).await {
        Ok(Some(game)) => game,
        Ok(None) => return missing(),
        Err(e) => {
            tracing::error!(error = %crate::storage::Chain(&e), "reading the archive");
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                ErrorCode::Internal,
                "the archive cannot be read",
            );
        }
    };
    let expected = if game.board == "classic" {
        "pgn"
    } else {
        "pgn4"
    };
    if extension != expected {
        return missing();
    }
    game_download(id, expected, game.text)
}

/// The room's current game, finished or not, as the server records it.
async fn current_game(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    game_document(&state, &id, GameDocument::Record, request, peer).await
}

/// Every position of the room's current game: the start and each move's diff, as JSON.
async fn current_game_history(
    State(state): State<AppState>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    Path(id): Path<String>,
    request: Request,
) -> Response {
    game_document(&state, &id, GameDocument::History, request, peer).await
}

/// A document of room `id`'s current game, once what it shows is durable.
async fn game_document(
    state: &AppState,
    id: &str,
    document: GameDocument,
    request: Request,
    peer: SocketAddr,
) -> Response {
    let room = match find(state, id, request.headers()).await {
        Ok(Place::Here(room)) => room,
        Ok(Place::Node(node)) => return forward(state, &node, request, peer, None).await,
        Err(answer) => return answer,
    };
    let (reply, answer) = oneshot::channel();
    if !room.send(Command::GameFile { document, reply }).await {
        return not_found();
    }
    // The room answers once the game it describes is durable.
    let Ok(answer) = tokio::time::timeout(state.config.storage_timeout(), answer).await else {
        return storage_unavailable();
    };
    match answer {
        Ok(Some(file)) if document == GameDocument::History => {
            ([(header::CONTENT_TYPE, "application/json")], file.text).into_response()
        }
        Ok(Some(file)) => game_download(&file.id, file.extension, file.text),
        Ok(None) => error(
            StatusCode::NOT_FOUND,
            ErrorCode::GameNotFound,
            "no game has started in this room",
        ),
        Err(_) => not_found(),
    }
}

/// A game record as a file download named after the game.
fn game_download(id: &str, extension: &str, text: String) -> Response {
    let disposition = format!("attachment; filename=\"fourkings-{id}.{extension}\"");
    (
        [
            (
                header::CONTENT_TYPE,
                "application/x-chess-pgn; charset=utf-8".to_owned(),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        text,
    )
        .into_response()
}

/// Whether a WebSocket upgrade's Origin may connect: no Origin (not a browser), an origin in the
/// allowed list (`*` allows all), or, with no list, the server's own origin.
pub(crate) fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
        return true;
    };
    if allowed
        .iter()
        .any(|a| a == "*" || a.eq_ignore_ascii_case(origin))
    {
        return true;
    }
    if !allowed.is_empty() {
        return false;
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let origin_host = origin.split_once("://").map_or("", |(_, rest)| rest);
    !host.is_empty() && origin_host.eq_ignore_ascii_case(host)
}
