// The protocol messages this client reads and writes, as JSDoc types for the type check
// (`npm run check`). Types only: no module imports this file at run time (`import("./protocol.js")`
// in a JSDoc comment is read by the checker, not the browser). Every type comes from
// types/protocol.d.ts, which web-client/scripts/protocol-types.mjs generates from the JSON Schema
// of the server's types (protocol/schema.json): a field the server does not have, or a value it
// does not take, fails the check. protocol/README.md describes every field.

/** @typedef {import("../types/protocol").SeatIndex} Seat a seat, 0–3 in turn order */
/** @typedef {import("../types/protocol").Occupant} Occupant */
/** @typedef {import("../types/protocol").Presence} Presence */
/** @typedef {import("../types/protocol").CpuLevel} CpuLevel */
/** @typedef {import("../types/protocol").GameStatus} RoomStatus */
/** @typedef {import("../types/protocol").ArmyState} ArmyState */
/** @typedef {import("../types/protocol").ChatChannel} ChatChannel */
/** @typedef {import("../types/protocol").PremovesDropped} PremovesDropped why the server emptied a premove queue */
/** @typedef {import("../types/protocol").ErrorCode} ErrorCode */
/** @typedef {import("../types/protocol").Settings} Settings */
/** @typedef {import("../types/protocol").SettingsPatch} SettingsPatch only the fields to change */
/** @typedef {import("../types/protocol").GameClock} GameClock */
/** @typedef {import("../types/protocol").RulesView} RulesView */
/** @typedef {import("../types/protocol").SeatView} SeatView */
/** @typedef {import("../types/protocol").Clock} Clock */
/** @typedef {import("../types/protocol").GameResult} GameResult */
/** @typedef {import("../types/protocol").GameView} GameView */
/** @typedef {import("../types/protocol").PlyRecord} PlyRecord */
/** @typedef {import("../types/protocol").GameHistory} GameHistory */
/** @typedef {import("../types/protocol").LegalMoves} LegalMoves */
/** @typedef {import("../types/protocol").ChatLine} ChatLine */
/** @typedef {import("../types/protocol").SessionView} SessionView */
/** @typedef {import("../types/protocol").Snapshot} Snapshot */
/** @typedef {import("../types/protocol").Limits} Limits */
/** @typedef {import("../types/protocol").CreateRoomResponse} CreateRoomResponse */
/** @typedef {import("../types/protocol").ErrorBody} ErrorBody */
/** @typedef {import("../types/protocol").ServerMessage} ServerMessage */

/** @typedef {import("../types/protocol").Event} RoomEvent a room event, by its `kind` */
/** @typedef {Extract<RoomEvent, {kind: "moved"}>} MovedEvent */
/** @typedef {Extract<ServerMessage, {type: "event"}>} EventMessage */
/** @typedef {Extract<ServerMessage, {type: "legal_moves"}>} LegalMovesMessage */
/** @typedef {Extract<ServerMessage, {type: "ack"}>} Ack */
/** @typedef {Extract<ServerMessage, {type: "error"}>} ErrorMessage */
/** @typedef {Extract<ServerMessage, {type: "pong"}>} Pong */

/**
 * A client message without its `req` (the connection adds it).
 * @typedef {import("../types/protocol").ClientMessage} Request
 */

export {};
