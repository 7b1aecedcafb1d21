// The room's WebSocket: requests with ids and their answers, `hello` with the device's tokens,
// catching up by version after a reconnection (or taking the snapshot the server sends instead),
// resync on a version gap, and reconnection with capped exponential backoff and jitter.
// See protocol/README.md, "Connection lifecycle" and "Versions and resync".

import { ApiError, roomInfo } from "./api.js";
import { noteServerTime } from "./clock.js";

/** @typedef {import("./protocol.js").ServerMessage} ServerMessage */
/** @typedef {import("./protocol.js").Snapshot} Snapshot */
/** @typedef {import("./protocol.js").EventMessage} EventMessage */
/** @typedef {import("./protocol.js").LegalMovesMessage} LegalMovesMessage */
/** @typedef {import("./protocol.js").Ack} Ack */
/** @typedef {import("./protocol.js").Request} Request */

/**
 * The connection's state, for the banner: `restarting` is true from a close for a server
 * restart until the next successful hello.
 * @typedef {{state: "connecting" | "reconnecting" | "waiting" | "open", attempt: number, restarting: boolean, retryInMs?: number, retryAt?: number}} Status
 */

/**
 * What the connection needs from the room's state.
 * @typedef {object} RoomLink
 * @property {() => {seat_tokens: string[], host_token?: string}} hello the tokens to present
 * @property {() => number | null} version the version held, or null
 * @property {(msg: Snapshot) => void} onSnapshot
 * @property {(msg: EventMessage) => void} onEvent
 * @property {(msg: LegalMovesMessage) => void} onLegalMoves
 * @property {(ack: Ack) => void} onHello
 * @property {(status: Status) => void} onStatus
 * @property {(known: boolean) => void} onGone there is no such room: `known` when this connection was in it (it has closed), else it may never have existed
 */

/** @typedef {{hello?: boolean, resolve: (ack: any) => void, reject: (error: RequestError) => void}} Pending */

const BACKOFF_FIRST_MS = 500;
const BACKOFF_CAP_MS = 15000;
const PING_EVERY_MS = 10000;
const PONG_WITHIN_MS = 6000;
// The server's close code for a shutdown (protocol/README.md, "The WebSocket"): it stored every
// room first, so the client only has to come back once it is up again.
const SERVER_RESTARTING = 1012;
// The server's close code for a room that closed (nobody was connected for the idle time): it
// is gone, and reconnecting would get a 404.
const ROOM_CLOSED = 4001;

/** A request the server refused (`code` is its error code), or one that could not be sent. */
export class RequestError extends Error {
  /**
   * @param {string} code
   * @param {string} [message]
   */
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

export class Connection {
  /**
   * @param {string} roomId
   * @param {RoomLink} room
   */
  constructor(roomId, room) {
    this.roomId = roomId;
    this.room = room;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.nextReq = 1;
    /** @type {Map<number, Pending>} */
    this.pending = new Map();
    this.ready = false; // the hello was answered: messages are applied
    this.resyncing = false;
    this.attempt = 0;
    /** @type {number | undefined} */
    this.retryTimer = undefined;
    /** @type {number | undefined} */
    this.retryAt = undefined;
    /** @type {number | undefined} */
    this.pingTimer = undefined;
    /** @type {number | undefined} */
    this.pongTimer = undefined;
    this.stopped = false;
    this.everOpen = false; // a socket of this connection ever opened
    /** @type {Status["state"]} */
    this.state = "connecting";
    this.restarting = false;
    this.onOnline = () => this.retryNow();
    window.addEventListener("online", this.onOnline);
  }

  start() {
    this.open();
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("online", this.onOnline);
    clearTimeout(this.retryTimer);
    this.stopPing();
    if (this.ws) this.ws.close(1000, "leaving");
  }

  /**
   * @param {Status["state"]} state
   * @param {{retryInMs?: number, retryAt?: number}} [extra]
   */
  setState(state, extra = {}) {
    this.state = state;
    this.room.onStatus({ state, attempt: this.attempt, restarting: this.restarting, ...extra });
  }

  open() {
    if (this.stopped) return;
    clearTimeout(this.retryTimer);
    this.ready = false;
    this.resyncing = false;
    this.setState(this.attempt === 0 && !this.everOpen ? "connecting" : "reconnecting");
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(this.roomId)}`);
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.everOpen = true;
      this.sendHello(true);
      this.startPing();
    });
    ws.addEventListener("message", (e) => {
      if (ws !== this.ws) return;
      /** @type {ServerMessage} */
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      this.receive(msg);
    });
    ws.addEventListener("close", (e) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.ready = false;
      this.stopPing();
      for (const { reject } of this.pending.values()) reject(new RequestError("disconnected", "the connection was lost"));
      this.pending.clear();
      if (this.stopped) return;
      if (e.code === SERVER_RESTARTING) this.restarting = true;
      if (e.code === ROOM_CLOSED) {
        this.checkGone(true);
        return;
      }
      this.scheduleRetry();
    });
  }

  scheduleRetry() {
    const base = Math.min(BACKOFF_CAP_MS, BACKOFF_FIRST_MS * 2 ** this.attempt);
    const delay = Math.round(base * (0.5 + Math.random() * 0.5));
    this.attempt += 1;
    this.retryAt = Date.now() + delay;
    this.setState("waiting", { retryInMs: delay, retryAt: this.retryAt });
    this.retryTimer = setTimeout(() => this.open(), delay);
    // Never connected, or failing again and again: perhaps there is no such room (any more).
    if (!this.everOpen || this.attempt >= 3) this.checkGone(false);
  }

  /** Reconnects at once (the network came back, or the user asked). */
  retryNow() {
    if (this.stopped || this.ws) return;
    clearTimeout(this.retryTimer);
    this.open();
  }

  /**
   * Asks the HTTP API whether the room is still there; stops for good if it is not.
   * @param {boolean} closedByServer the server closed the socket: retry if the room is there
   */
  async checkGone(closedByServer) {
    try {
      await roomInfo(this.roomId);
      if (closedByServer) this.scheduleRetry();
    } catch (error) {
      if (error instanceof ApiError && error.code === "room_not_found") {
        this.stop();
        this.room.onGone(closedByServer || this.everOpen);
      } else if (closedByServer) {
        this.scheduleRetry();
      }
    }
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
      const req = this.nextReq++;
      this.send({ type: "ping", req });
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => {
        // Nothing came back: the link is dead even if the socket does not know it yet.
        if (this.ws) this.ws.close(4000, "no pong");
      }, PONG_WITHIN_MS);
    }, PING_EVERY_MS);
  }

  stopPing() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }

  /** @param {Request & {req: number}} msg */
  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  /** @param {boolean} withSince catch up from the version held (else take a snapshot) */
  sendHello(withSince) {
    const since = withSince ? this.room.version() : null;
    /** @type {Request & {req?: number, since?: number}} */
    const msg = { type: "hello", ...this.room.hello() };
    if (since !== null && since !== undefined) msg.since = since;
    const req = this.nextReq++;
    this.pending.set(req, {
      hello: true,
      /** @param {Ack} ack */
      resolve: (ack) => {
        this.ready = true;
        this.attempt = 0;
        this.restarting = false;
        this.setState("open");
        this.room.onHello(ack);
      },
      reject: (error) => {
        // A `since` the server cannot serve (`bad_version`): take a fresh snapshot instead.
        if (error.code !== "disconnected") this.sendHello(false);
      },
    });
    this.send({ ...msg, req });
  }

  /** Presents the tokens again (after taking a seat elsewhere, say); a snapshot follows. */
  rehello() {
    if (this.ready) {
      this.ready = false;
      this.sendHello(false);
    }
  }

  /**
   * Sends a request; resolves with its ack, rejects with a RequestError.
   * @param {Request} msg
   * @returns {Promise<Ack>}
   */
  request(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || !this.ready) {
      return Promise.reject(new RequestError("offline", "not connected: reconnecting…"));
    }
    const req = this.nextReq++;
    return new Promise((resolve, reject) => {
      this.pending.set(req, { resolve, reject });
      this.send({ ...msg, req });
    });
  }

  /** @param {ServerMessage} msg */
  receive(msg) {
    switch (msg.type) {
      case "ack":
      case "pong":
      case "error": {
        if (msg.type === "pong") {
          clearTimeout(this.pongTimer);
          noteServerTime(msg.server_time);
        }
        const req = msg.req;
        const waiting = req !== null && req !== undefined ? this.pending.get(req) : null;
        if (!waiting || req === null) return;
        this.pending.delete(req);
        if (msg.type === "error") waiting.reject(new RequestError(msg.code, msg.message));
        else waiting.resolve(msg);
        return;
      }
      case "snapshot":
        // Before the hello is answered, what arrives is covered by what follows the answer.
        if (!this.ready) return;
        this.resyncing = false;
        this.room.onSnapshot(msg);
        return;
      case "event": {
        if (!this.ready || this.resyncing) return;
        const held = this.room.version();
        if (held === null || msg.v <= held) return; // a duplicate after a resync
        if (msg.v > held + 1) {
          this.resync(held);
          return;
        }
        this.room.onEvent(msg);
        return;
      }
      case "legal_moves":
        if (!this.ready || this.resyncing) return;
        this.room.onLegalMoves(msg);
        return;
      default:
        // Later protocol versions may add messages: ignore what we do not know.
        return;
    }
  }

  /**
   * A gap: ask for the events after the version held (or a snapshot).
   * @param {number} since
   */
  resync(since) {
    this.resyncing = true;
    const req = this.nextReq++;
    this.pending.set(req, {
      resolve: () => {
        this.resyncing = false;
      },
      reject: () => {
        this.resyncing = false;
        this.rehello();
      },
    });
    this.send({ type: "resync", req, since });
  }
}
