// The home page: create a room (preset, options, twists) or open one by its link.

import { h } from "./dom.js";
import { createRoom } from "./api.js";
import { SettingsForm, createPatch, radioGroup } from "./settings-form.js";
import { updateRoomTokens, lastName, saveName, sitOnArrival } from "./storage.js";
import { errorText } from "./ui.js";
import { heroBoard } from "./hero.js";

/** @typedef {(path: string, options?: {replace?: boolean}) => void} Navigate */

/** @type {import("./settings-form.js").FormSettings} */
const DEFAULTS = {
  preset: "teams",
  turn_limit: 0,
  team_clock: 0,
  game_clock: null,
  cpu_level: "medium",
  promotion: "all",
  pawn_breakthrough: false,
  lifelines: false,
  silent_partners: false,
  switch_partners: false,
  king_friendly_capture: false,
  show_legal_moves: true,
};

/**
 * @param {{navigate: Navigate}} page
 * @returns {HTMLElement}
 */
export function homePage({ navigate }) {
  let settings = { ...DEFAULTS };
  const form = new SettingsForm(settings, (_patch, next) => {
    settings = next;
  });
  // The host plays (sits at Red as soon as the room opens) unless they choose to watch.
  let watching = false;
  const hostName = h("input", { id: "host-name", type: "text", value: lastName(), placeholder: "Your name", autocomplete: "nickname" });
  hostName.addEventListener("input", () => hostName.setCustomValidity(""));
  const role = radioGroup("host-role", "You", [{ value: "play", label: "Play" }, { value: "watch", label: "Watch" }], (value) => {
    watching = value === "watch";
    nameField.hidden = watching;
  });
  role.set("play");
  const nameField = h("label", { class: "name-field" }, h("span", { text: "Your name" }), hostName);
  const you = h("div", { class: "host-role" }, role.el, nameField);
  const error = h("p", { class: "form-error", role: "alert" });
  const create = h("button", { class: "btn primary big", type: "submit", text: "Create room" });
  const createForm = h(
    "form",
    {
      class: "card create",
      "aria-labelledby": "create-title",
      on: {
        submit: async (e) => {
          e.preventDefault();
          error.textContent = "";
          const name = hostName.value.trim();
          if (!watching && !name) {
            hostName.setCustomValidity("Enter your name, or choose to watch.");
            hostName.reportValidity();
            return;
          }
          create.disabled = true;
          create.textContent = "Creating…";
          try {
            const room = await createRoom(createPatch(settings));
            updateRoomTokens(room.id, (t) => {
              t.host = room.host_token;
            });
            if (!watching) {
              saveName(name);
              sitOnArrival(room.id, name);
            }
            navigate(room.link);
          } catch (err) {
            error.textContent = errorText(err instanceof Error ? err : {});
            create.disabled = false;
            create.textContent = "Create room";
          }
        },
      },
    },
    h("h2", { id: "create-title", class: "card-title", text: "Open a room" }),
    h("p", { class: "muted", text: "Choose the game, share the link, and the CPU fills any seat nobody takes." }),
    form.el,
    you,
    h("div", { class: "create-actions" }, create, error),
  );

  const joinInput = h("input", { type: "text", placeholder: "Paste a room link", "aria-label": "Room link or id", autocomplete: "off" });
  const joinForm = h(
    "form",
    {
      class: "join",
      on: {
        submit: (e) => {
          e.preventDefault();
          const text = joinInput.value.trim();
          // A room's link, or its id alone: all of it, so that a mistyped id is not cut to fit.
          const m = /^(?:(?:https?:\/\/[^/\s]+)?\/r\/)?([0-9a-z]{13})\/?$/i.exec(text);
          if (m) {
            navigate(`/r/${m[1].toLowerCase()}`);
          } else {
            joinInput.setCustomValidity("That is not a room link: a link ends in /r/ and a room id of 13 letters and digits.");
            joinInput.reportValidity();
          }
        },
      },
    },
    joinInput,
    h("button", { class: "btn", type: "submit", text: "Open" }),
  );
  joinInput.addEventListener("input", () => joinInput.setCustomValidity(""));

  return h(
    "div",
    { class: "home" },
    h(
      "section",
      { class: "hero" },
      h("div", { class: "hero-text" },
        h("h1", { text: "Four-player chess with friends" }),
        h("p", { class: "lead", text: "Teams, free-for-all and Duo, played to the last rule. Open a private room, send the link, and play in the browser: no accounts, nothing to install." }),
        h("ul", { class: "hero-points" },
          h("li", { text: "Seats come back to you if your connection drops" }),
          h("li", { text: "CPU players fill empty seats and stand in for absent ones" }),
          h("li", { text: "Works with a mouse, a touch screen, a keyboard or a screen reader" }),
        ),
        joinForm,
      ),
      heroBoard(),
    ),
    createForm,
  );
}
