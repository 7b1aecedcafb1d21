// Chat: the room channel for everyone, the team channel for partners, the spectators' channel
// for those who hold no seat. Names and texts are shown as text, never as HTML.

import { h, fill } from "./dom.js";
import { armyBadge, errorText } from "./ui.js";

/** @typedef {import("./protocol.js").ChatChannel} ChatChannel */
/** @typedef {import("./protocol.js").ChatLine} ChatLine */
/** @typedef {import("./state.js").RoomState} RoomState */

/** @type {Record<ChatChannel, string>} */
const CHANNEL_NAMES = { room: "Room", team: "Team", spectators: "Spectators" };

export class Chat {
  /** @param {{send: (message: {channel: ChatChannel, text: string}) => Promise<unknown>}} options */
  constructor({ send }) {
    this.send = send;
    /** @type {import("./protocol.js").Limits | null} the server's limits, from the snapshot */
    this.limits = null;
    this.list = h("ol", { class: "chat-list", "aria-label": "Chat messages", "aria-live": "off" });
    this.channel = h("select", { class: "chat-channel", "aria-label": "Channel" });
    this.input = h("input", { class: "chat-input", type: "text", placeholder: "Say something…", "aria-label": "Chat message", autocomplete: "off" });
    this.error = h("p", { class: "chat-error", role: "alert" });
    const form = h(
      "form",
      { class: "chat-form", on: { submit: (e) => this.submit(e) } },
      this.channel,
      this.input,
      h("button", { class: "btn small primary", type: "submit", text: "Send" }),
    );
    // New messages that arrive while the chat is out of view (below the fold, say) are counted
    // on a button that stays in view and takes the player to them.
    this.unreadButton = h("button", { class: "btn small primary chat-unread", type: "button", dataset: { action: "unread-chat" }, hidden: true, on: { click: () => this.reveal() } });
    this.el = h("section", { class: "card chat", "aria-label": "Chat" }, h("h2", { class: "card-title", text: "Chat" }), this.list, form, this.error, this.unreadButton);
    this.shown = 0;
    this.channelsKey = "";
    /** messages from others that came while the chat was out of view */
    this.unread = 0;
    /** whether the list of messages is on screen */
    this.inView = false;
    /** whether the first lines (a snapshot's) were taken in: only later ones are new */
    this.primed = false;
    this.observer = new IntersectionObserver((entries) => {
      this.inView = entries.some((e) => e.isIntersecting);
      if (this.inView) this.setUnread(0);
    }, { threshold: 0.5 });
    this.observer.observe(this.list);
  }

  /** Scrolls the chat into view, its newest message at the bottom, the focus on its input. */
  reveal() {
    this.el.scrollIntoView({ block: "nearest", behavior: "smooth" });
    this.list.scrollTop = this.list.scrollHeight;
    this.input.focus({ preventScroll: true });
    this.setUnread(0);
  }

  /** @param {number} count */
  setUnread(count) {
    this.unread = count;
    this.unreadButton.hidden = count === 0;
    this.unreadButton.textContent = count === 1 ? "1 new chat message ↓" : `${count} new chat messages ↓`;
  }

  /** @param {SubmitEvent} e */
  async submit(e) {
    e.preventDefault();
    const text = this.input.value;
    if (!text.trim()) return;
    this.error.textContent = "";
    try {
      await this.send({ channel: /** @type {ChatChannel} */ (this.channel.value), text });
      // What was typed while this one travelled is the next message: it stays.
      if (this.input.value === text) this.input.value = "";
    } catch (error) {
      this.error.textContent = errorText(error instanceof Error ? error : {}, this.limits);
    }
  }

  /**
   * The channels this person may write to now: the team channel when the server says the rules
   * open it.
   * @param {RoomState} state
   * @returns {ChatChannel[]}
   */
  channels(state) {
    if (state.yourSeats.length === 0) return ["spectators"];
    /** @type {ChatChannel[]} */
    const list = ["room"];
    if (state.rules && state.rules.team_chat) list.push("team");
    return list;
  }

  /** @param {RoomState} state */
  update(state) {
    this.limits = state.limits;
    if (state.limits) this.input.maxLength = state.limits.chat_chars;
    const channels = this.channels(state);
    const key = channels.join(",");
    if (key !== this.channelsKey) {
      const previous = this.channel.value;
      fill(this.channel, channels.map((c) => h("option", { value: c, text: CHANNEL_NAMES[c] })));
      if (channels.some((c) => c === previous)) this.channel.value = previous;
      this.channel.hidden = channels.length < 2;
      this.channelsKey = key;
    }
    if (state.chat.length < this.shown) {
      this.list.replaceChildren();
      this.shown = 0;
    }
    const nearBottom = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    const added = state.chat.slice(this.shown);
    for (const line of added) this.list.append(this.line(line, state));
    this.shown = state.chat.length;
    const fromOthers = added.filter((line) => line.seat === undefined || line.seat === null || !state.yourSeats.includes(line.seat)).length;
    if (this.primed && fromOthers && !this.inView && this.el.isConnected) this.setUnread(this.unread + fromOthers);
    this.primed = true;
    if (nearBottom) this.list.scrollTop = this.list.scrollHeight;
    if (state.chat.length === 0 && !this.list.querySelector(".chat-empty")) {
      this.list.append(h("li", { class: "chat-empty", text: "No messages yet." }));
    } else if (state.chat.length) {
      const empty = this.list.querySelector(".chat-empty");
      if (empty) empty.remove();
    }
  }

  /**
   * @param {ChatLine} line
   * @param {RoomState} state
   * @returns {HTMLLIElement}
   */
  line(line, state) {
    const time = new Date(line.at);
    const hhmm = `${String(time.getHours()).padStart(2, "0")}:${String(time.getMinutes()).padStart(2, "0")}`;
    return h(
      "li",
      { class: `chat-line channel-${line.channel}` },
      h("span", { class: "chat-time", text: hhmm }),
      line.channel !== "room" ? h("span", { class: "chat-tag", text: CHANNEL_NAMES[line.channel] || line.channel }) : null,
      line.seat !== undefined && line.seat !== null ? armyBadge(line.seat, state.duo, { size: 12 }) : null,
      h("span", { class: "chat-name", text: line.name }),
      h("span", { class: "chat-text", text: line.text }),
    );
  }
}
