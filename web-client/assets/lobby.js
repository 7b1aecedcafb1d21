// The room before the game: the link to share, the four seats (take one with a name), and for
// the host the settings, CPU seats, moving and removing players, and the start.

import { h, add, fill, rerender } from "./dom.js";
import { presetInfo, seatArmy } from "./armies.js";
import { SettingsForm, describeSettings } from "./settings-form.js";
import { armyBadge, presenceBadge } from "./ui.js";
import { lastName, saveName } from "./storage.js";

/** @typedef {import("./state.js").RoomState} RoomState */
/** @typedef {import("./protocol.js").SeatView} SeatView */

export class Lobby {
  /** @param {import("./requests.js").Actions} actions */
  constructor(actions) {
    this.actions = actions;
    this.nameInput = h("input", { id: "your-name", type: "text", value: lastName(), placeholder: "Your name", autocomplete: "nickname" });
    this.nameInput.addEventListener("input", () => saveName(this.nameInput.value.trim()));
    this.header = h("div", { class: "lobby-head" });
    this.seats = h("div", { class: "seat-grid" });
    this.hostBox = h("div", { class: "host-box" });
    this.settingsBox = h("section", { class: "card settings-card", "aria-labelledby": "settings-title" });
    /** @type {SettingsForm | null} */
    this.form = null;
    this.main = h(
      "div",
      { class: "lobby-main" },
      h("section", { class: "card seats-card", "aria-labelledby": "seats-title" },
        h("div", { class: "card-head" },
          h("h2", { id: "seats-title", class: "card-title", text: "Seats" }),
          h("label", { class: "name-field" }, h("span", { text: "Your name" }), this.nameInput)),
        this.seats,
        this.hostBox),
    );
    this.el = h("div", { class: "lobby" }, this.header, this.main, this.settingsBox);
    /** @type {string | null} what was drawn last */
    this.key = null;
  }

  /** @param {HTMLElement} chatEl */
  attachChat(chatEl) {
    this.main.append(chatEl);
  }

  /** @param {RoomState} state */
  update(state) {
    if (state.limits) this.nameInput.maxLength = state.limits.name_chars;
    // Redraw only when something shown here changed (not for a chat line, say): a button
    // replaced under the pointer would lose the click.
    const key = JSON.stringify([state.seats, state.hostSeat, state.yourSeats, state.youAreHost, state.settings]);
    if (key === this.key) return;
    this.key = key;
    const preset = presetInfo(state.roomSettings.preset);
    fill(
      this.header,
      h("h1", { class: "room-title" }, preset.name),
      h("p", { class: "muted", text: preset.line }),
      h("p", { class: "invite-hint", text: "Send the room's link to your friends: whoever opens it can take a free seat or watch." }),
    );
    rerender(this.seats, () => state.seats.map((seat) => this.seatCard(seat, state)));
    rerender(this.hostBox, () => this.hostControls(state));
    this.renderSettings(state);
  }

  /**
   * @param {SeatView} seat
   * @param {RoomState} state
   * @returns {HTMLElement}
   */
  seatCard(seat, state) {
    const duo = state.duo;
    const army = seatArmy(seat.seat, duo);
    const mine = state.yourSeats.includes(seat.seat);
    const host = state.youAreHost;
    const team = duo ? (seat.seat % 2 === 0 ? "White" : "Black") : state.ffa ? "On their own" : seat.seat % 2 === 0 ? "Red + Yellow" : "Blue + Green";
    const card = h("article", { class: ["seat-card", `seat-${seat.seat}`, duo ? "duo" : "cross", mine && "mine", seat.occupant], dataset: { seat: String(seat.seat) } });
    card.style.setProperty("--army", army.color);
    card.append(
      h("header", { class: "seat-head" }, armyBadge(seat.seat, duo, { size: 20 }), h("span", { class: "seat-label", text: seat.label }), h("span", { class: "seat-team", text: team })),
    );
    const body = h("div", { class: "seat-body" });
    const tools = h("div", { class: "seat-tools" });
    if (seat.occupant === "human") {
      add(
        body,
        h("div", { class: "seat-name" }, h("span", { class: "name", text: seat.name }), mine ? h("span", { class: "tag you", text: "you" }) : null, state.hostSeat === seat.seat ? h("span", { class: "tag host", text: "host" }) : null),
        presenceBadge(seat),
      );
      if (mine) tools.append(h("button", { class: "btn small", type: "button", dataset: { key: `leave-${seat.seat}` }, text: "Leave seat", on: { click: () => this.actions.leaveSeat(seat.seat) } }));
      if (host && !mine) {
        tools.append(h("button", { class: "btn small", type: "button", dataset: { key: `remove-${seat.seat}` }, text: "Remove", on: { click: () => this.actions.removePlayer(seat.seat) } }));
      }
      if (host) {
        const empty = state.seats.filter((s) => s.occupant === "empty");
        if (empty.length) {
          const select = h("select", { class: "small", "aria-label": `Move ${seat.name} to another seat`, dataset: { key: `move-${seat.seat}` } },
            h("option", { value: "", text: "Move to…" }),
            empty.map((s) => h("option", { value: String(s.seat), text: s.label })));
          select.addEventListener("change", () => {
            if (select.value !== "") this.actions.movePlayer(seat.seat, Number(select.value));
          });
          tools.append(select);
        }
      }
    } else if (seat.occupant === "cpu") {
      add(body, h("div", { class: "seat-name" }, h("span", { class: "name", text: "CPU" })), presenceBadge(seat));
      if (host) {
        const level = h("select", { class: "small", "aria-label": `CPU level for ${seat.label}`, dataset: { key: `cpu-level-${seat.seat}` } },
          ["easy", "medium", "hard"].map((l) => h("option", { value: l, text: l[0].toUpperCase() + l.slice(1), selected: l === seat.cpu_level })));
        level.addEventListener("change", () => this.actions.setCpu(seat.seat, /** @type {import("./protocol.js").CpuLevel} */ (level.value)));
        tools.append(level, h("button", { class: "btn small", type: "button", dataset: { key: `free-${seat.seat}` }, text: "Free the seat", on: { click: () => this.actions.setCpu(seat.seat, null) } }));
      }
    } else {
      body.append(h("div", { class: "seat-name free" }, h("span", { class: "name", text: "Free seat" })), h("span", { class: "presence empty", text: "CPU joins at the start" }));
      tools.append(
        h("button", {
          class: "btn small primary",
          type: "button",
          dataset: { key: `sit-${seat.seat}`, action: "sit" },
          text: "Sit here",
          "aria-label": `Sit here at ${seat.label}`,
          on: { click: () => this.sit(seat.seat) },
        }),
      );
      if (host) tools.append(h("button", { class: "btn small", type: "button", dataset: { key: `cpu-${seat.seat}` }, text: "Add CPU", on: { click: () => this.actions.setCpu(seat.seat, state.roomSettings.cpu_level) } }));
    }
    card.append(body, tools);
    return card;
  }

  /** @param {number} seat */
  sit(seat) {
    const name = this.nameInput.value.trim();
    if (!name) {
      this.nameInput.setCustomValidity("Enter your name first.");
      this.nameInput.reportValidity();
      this.nameInput.addEventListener("input", () => this.nameInput.setCustomValidity(""), { once: true });
      this.nameInput.focus();
      return;
    }
    saveName(name);
    this.actions.takeSeat(seat, name);
  }

  /**
   * @param {RoomState} state
   * @returns {HTMLElement}
   */
  hostControls(state) {
    if (!state.youAreHost) {
      return h("p", { class: "waiting", text: state.yourSeats.length ? "Waiting for the host to start the game…" : "Take a free seat, or stay and watch." });
    }
    const empty = state.seats.filter((s) => s.occupant === "empty").length;
    return h(
      "div",
      { class: "start-row" },
      h("button", { class: "btn primary big", type: "button", dataset: { key: "start", action: "start" }, text: "Start the game", on: { click: () => this.actions.start() } }),
      h("p", { class: "muted", text: empty ? `${empty} free seat${empty > 1 ? "s" : ""} will be played by the CPU (${state.roomSettings.cpu_level}).` : "Everyone is seated." }),
    );
  }

  /** @param {RoomState} state */
  renderSettings(state) {
    const settings = state.roomSettings;
    if (state.youAreHost) {
      if (!this.form) {
        this.form = new SettingsForm(settings, (patch) => this.actions.updateSettings(patch));
        fill(this.settingsBox, h("h2", { id: "settings-title", class: "card-title", text: "Settings" }), this.form.el);
      } else {
        this.form.update(settings);
      }
      return;
    }
    this.form = null;
    fill(
      this.settingsBox,
      h("h2", { id: "settings-title", class: "card-title", text: "Settings" }),
      h("p", { class: "settings-summary", text: describeSettings(settings) }),
      h("p", { class: "muted", text: "The host chooses the settings." }),
    );
  }
}
