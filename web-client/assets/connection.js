// The room's WebSocket: requests with ids and their answers, `hello` with the device's tokens,
// catching up by version after a reconnection (or taking the snapshot the server sends instead),
// resync on a version gap, and reconnection with capped exponential backoff and jitter.
// See protocol/README.md, "Connection lifecycle" and "Versions and resync".

import { roomInfo } from "./api.js";

const BACKOFF_FIRST_MS = 500;
const BACKOFF_CAP_MS = 15000;
const PING_EVERY_MS = 10000;
const PONG_WITHIN_MS = 6000;
// The server's close code for a shutdown (protocol/README.md, "The WebSocket"): it stored every
// room first, so the client only has to come back once it is up again.
const SERVER_RESTARTING = 1012;

export class RequestError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

export class Connection {
  /**
   * @param {string} roomId
   * @param {object} room  what the connection needs from the room's state:
   *   `hello()` → `{seat_tokens, host_token}`, `version()` → the version held or null,
   *   `onSnapshot(msg)`, `onEvent(msg)`, `onLegalMoves(msg)`, `onHello(ack)`,
   *   `onStatus({state, retryInMs, attempt, restarting})`, `onGone()`; `restarting` is true
   *   from a close for a server restart until the next successful hello.
   */
  constructor(roomId, room) {
    this.roomId = roomId;
    this.room = room;
    this.ws = null;
    this.nextReq = 1;
    this.pending = new Map();
    this.ready = false; // the hello was answered: messages are applied
    this.resyncing = false;
    this.attempt = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.pongTimer = null;
    this.stopped = false;
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
      if (e.code === 1001 && /closed/.test(e.reason)) {
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

  async checkGone(closedByServer) {
    try {
      await roomInfo(this.roomId);
      if (closedByServer) this.scheduleRetry();
    } catch (error) {
      if (error.code === "room_not_found") {
        this.stop();
        this.room.onGone();
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

  send(msg) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(msg));
  }

  sendHello(withSince) {
    const since = withSince ? this.room.version() : null;
    const msg = { type: "hello", ...this.room.hello() };
    if (since !== null && since !== undefined) msg.since = since;
    const req = this.nextReq++;
    msg.req = req;
    this.pending.set(req, {
      hello: true,
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
    this.send(msg);
  }

  /** Presents the tokens again (after taking a seat elsewhere, say); a snapshot follows. */
  rehello() {
    if (this.ready) {
      this.ready = false;
      this.sendHello(false);
    }
  }

  /** Sends a request; resolves with its ack, rejects with a RequestError. */
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

  receive(msg) {
    switch (msg.type) {
      case "ack":
      case "pong":
      case "error": {
        if (msg.type === "pong") clearTimeout(this.pongTimer);
        const waiting = msg.req !== null && msg.req !== undefined ? this.pending.get(msg.req) : null;
        if (!waiting) return;
        this.pending.delete(msg.req);
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

  /** A gap: ask for the events after the version held (or a snapshot). */
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
