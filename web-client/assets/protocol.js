// The protocol messages this client reads and writes, as JSDoc types for the type check
// (`npm run check`). Types only: no module imports this file at run time (`import("./protocol.js")`
// in a JSDoc comment is read by the checker, not the browser). protocol/README.md describes every
// field; the Rust types in protocol/src/ are the reference.

/** @typedef {number} Seat a seat, 0–3 in turn order */
/** @typedef {"empty" | "human" | "cpu"} Occupant */
/** @typedef {"online" | "away" | "cpu_playing" | "gone"} Presence */
/** @typedef {"easy" | "medium" | "hard"} CpuLevel */
/** @typedef {"lobby" | "playing" | "finished"} RoomStatus */
/** @typedef {"playing" | "king_walking" | "out" | "absent"} ArmyState */
/** @typedef {"room" | "team" | "spectators"} ChatChannel */

/**
 * Every setting of a room, as the server reports it.
 * @typedef {object} Settings
 * @property {string} preset `teams`, `teams-house`, `teams-classic`, `ffa`, `ffa-walking-kings`, `duo`
 * @property {boolean} castling
 * @property {boolean} en_passant
 * @property {boolean} king_capture
 * @property {boolean} king_friendly_capture
 * @property {"all" | "queen" | "minor"} promotion
 * @property {boolean} fifty_move_rule
 * @property {number} move_limit
 * @property {boolean} pawn_breakthrough
 * @property {boolean} lifelines
 * @property {boolean} silent_partners
 * @property {boolean} switch_partners
 * @property {boolean} claim_win
 * @property {number} turn_limit
 * @property {number} team_clock
 * @property {CpuLevel} cpu_level
 * @property {boolean} rotate_first_seat
 * @property {boolean} show_legal_moves
 */

/** @typedef {Partial<Settings>} SettingsPatch only the fields to change */

/**
 * What the room's rules let its players do, as the server decides it (protocol/README.md,
 * "Rules"). The client offers what this says and works out none of it from the preset.
 * @typedef {object} RulesView
 * @property {"teams" | "free_for_all" | "duo"} format
 * @property {"team_loses" | "partner_consent" | "out" | "out_king_walks"} resignation what `resign` does
 * @property {boolean} team_chat whether players may write in the team channel now
 * @property {number} takebacks takebacks each team has for a game (0 without the lifelines twist)
 * @property {"lead" | "abandonment"} [claim] how the win may be claimed, if it may
 */

/**
 * @typedef {object} SeatView
 * @property {Seat} seat
 * @property {string} label the army (`Red`) or, in Duo, `W1`, `B1`, `W2`, `B2`
 * @property {Occupant} occupant
 * @property {string} [name] a person's name, as given (render it as text)
 * @property {CpuLevel} [cpu_level] a CPU seat's level
 * @property {Presence} [presence] whether a person is here
 * @property {number} [grace_ends_at] while away: when the grace period ends (server clock, ms)
 */

/**
 * The clocks when the message was written; every field may be absent (`{}` when untimed).
 * @typedef {object} Clock
 * @property {number} [turn_ends_at] when the current turn ends, on the server's clock (ms since the epoch)
 * @property {number} [turn_remaining_ms] the same as milliseconds left
 * @property {[number, number]} [banks_ms] Duo: the banks of seats 0 + 2 and seats 1 + 3
 * @property {boolean} [paused] the clocks are stopped
 */

/**
 * @typedef {object} GameResult
 * @property {Seat[]} winners
 * @property {string} reason a stable code: `checkmate`, `resignation`, …
 * @property {string} text
 * @property {[number, number, number, number]} [points] free-for-all: final points by seat
 */

/**
 * The whole game as the client draws it.
 * @typedef {object} GameView
 * @property {string} id
 * @property {"cross" | "classic"} board
 * @property {Record<string, string>} pieces square → army letter and piece letter (`rP`, `wK`)
 * @property {string[]} [promoted] squares of pieces that were pawns
 * @property {Seat | null} to_move
 * @property {number} ply
 * @property {string[]} moves every move so far, in notation
 * @property {Seat[]} move_seats the seat that played each of `moves`
 * @property {string[]} move_coordinates each of `moves` in coordinate form
 * @property {[string, string]} [last_move]
 * @property {Seat[]} checks
 * @property {string[]} [checking] squares of the pieces attacking the kings in `checks`
 * @property {number[]} points
 * @property {ArmyState[]} armies
 * @property {[number, number]} lifelines left for seats 0 + 2 and seats 1 + 3
 * @property {Seat[]} [draw_offer]
 * @property {Seat} [resignation_request]
 * @property {string} fen
 * @property {GameResult} [result]
 * @property {Clock} clock
 * @property {Seat} first_seat
 * @property {RulesView} rules
 */

/**
 * One move of a game's history: what its `moved` event said of it.
 * @typedef {object} PlyRecord
 * @property {Seat} seat
 * @property {string} text in notation
 * @property {string} move in coordinate form
 * @property {Record<string, string | null>} changed square → what stood there after the move
 * @property {Seat[]} checks seats in check after the move
 * @property {string[]} [checking] squares of the pieces giving those checks
 */

/**
 * `GET /api/rooms/<id>/game/history`: the start and each move's diff.
 * @typedef {object} GameHistory
 * @property {string} id the game's id
 * @property {"cross" | "classic"} board
 * @property {Record<string, string>} start every piece before the first move
 * @property {PlyRecord[]} plies oldest first
 */

/**
 * @typedef {object} LegalMoves
 * @property {Seat} seat
 * @property {number} ply
 * @property {string[]} moves in coordinate form (`h2h4`, `h10h11q`)
 */

/**
 * @typedef {object} ChatLine
 * @property {ChatChannel} channel
 * @property {Seat} [seat] absent for a spectator
 * @property {string} name
 * @property {string} text
 * @property {number} at ms since the epoch
 */

/**
 * @typedef {object} SessionView
 * @property {number} game 1–3
 * @property {{name: string, seat: Seat, points: number}[]} standings
 * @property {boolean} finished
 */

/**
 * @typedef {object} Snapshot
 * @property {"snapshot"} type
 * @property {number} protocol
 * @property {number} v
 * @property {string} room
 * @property {RoomStatus} status
 * @property {Settings} settings
 * @property {SeatView[]} seats
 * @property {Seat | null} host_seat
 * @property {Seat[]} your_seats
 * @property {boolean} you_are_host
 * @property {string} [host_token]
 * @property {GameView | null} game
 * @property {LegalMoves} [legal_moves]
 * @property {ChatLine[]} [chat]
 * @property {SessionView} [session]
 * @property {RulesView} rules
 * @property {Limits} limits
 * @property {number} server_time the server's time when it wrote the snapshot (ms since the epoch)
 */

/**
 * The server's limits on what players write.
 * @typedef {object} Limits
 * @property {number} name_chars the longest display name
 * @property {number} chat_chars the longest chat message
 * @property {number} chat_per_minute chat messages a connection may send a minute
 */

/**
 * @typedef {object} MovedEvent
 * @property {"moved"} kind
 * @property {Seat} seat
 * @property {number} ply the ply this move was, 1 for the first
 * @property {string} text
 * @property {string} move coordinate form
 * @property {Record<string, string | null>} changed
 * @property {Seat | null} to_move
 * @property {Seat[]} checks
 * @property {string[]} [checking] squares of the pieces attacking the kings in `checks`
 * @property {number[]} points
 * @property {ArmyState[]} armies
 * @property {boolean} [automatic]
 * @property {Clock} [clock]
 * @property {GameResult} [result]
 */

/**
 * A room event (the `event` of an `event` message), by its `kind`.
 * @typedef {{kind: "seat_taken", seat: Seat, name: string}
 *   | {kind: "seat_left", seat: Seat}
 *   | {kind: "player_moved", from: Seat, to: Seat}
 *   | {kind: "cpu_seat", seat: Seat, level: CpuLevel | null}
 *   | {kind: "settings_changed", settings: Settings, rules: RulesView}
 *   | {kind: "host_changed", seat: Seat}
 *   | {kind: "host_token", host_token: string}
 *   | {kind: "hidden"}
 *   | {kind: "started", game: GameView}
 *   | MovedEvent
 *   | {kind: "game_changed", what: string, seat: Seat, game: GameView}
 *   | {kind: "presence", seat: Seat, presence: Presence, grace_ends_at?: number, clock: Clock}
 *   | ({kind: "chat"} & ChatLine)
 *   | {kind: "rematch", seats: SeatView[], game: GameView, seat_moves?: [Seat, Seat, Seat, Seat]}
 *   | ({kind: "session"} & SessionView)} RoomEvent
 */

/** @typedef {{type: "event", v: number, event: RoomEvent}} EventMessage */
/** @typedef {{type: "legal_moves", v: number} & LegalMoves} LegalMovesMessage */

/**
 * @typedef {object} Ack
 * @property {"ack"} type
 * @property {number} req
 * @property {string} [seat_token] after `take_seat`
 * @property {Seat[]} [seats] after `hello`
 * @property {(Seat | null)[]} [token_seats] after `hello`: each presented token's seat, in order
 * @property {boolean} [host] after `hello`
 */

/** @typedef {{type: "error", req: number | null, code: string, message: string}} ErrorMessage */
/** @typedef {{type: "pong", req: number, server_time: number}} Pong */

/** @typedef {Snapshot | EventMessage | LegalMovesMessage | Ack | ErrorMessage | Pong} ServerMessage */

/**
 * A client message without its `req` (the connection adds it). Only the fields this client
 * sends; protocol/README.md lists every message.
 * @typedef {{type: string, [field: string]: unknown}} Request
 */

/** @typedef {{id: string, link: string, host_token: string}} CreateRoomResponse */
/** @typedef {{code: string, message: string}} ErrorBody */

export {};
