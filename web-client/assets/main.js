// The client's entry point: the page frame and the routes, `/` (home) and `/r/<room-id>`.

import { h, fill, byId } from "./dom.js";
import { homePage } from "./home.js";
import { roomPage } from "./room.js";
import { announcer } from "./announce.js";
import { crownIcon } from "./brand.js";
import { themeSwitch } from "./theme.js";

const app = byId("app");
/** @type {import("./room.js").RoomPage | null} */
let current = null;

/** @type {import("./home.js").Navigate} */
function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  route();
}

function route() {
  if (current) current.destroy();
  current = null;
  const path = location.pathname;
  const room = /^\/r\/([0-9a-z]+)\/?$/.exec(path);
  document.body.dataset.page = room ? "room" : "home";
  delete document.body.dataset.status;
  if (room) {
    current = roomPage(room[1], { navigate });
    fill(main, current.el);
    // For the browser tests and for debugging from the console.
    Object.assign(window, { fourkings: current.debug });
  } else {
    fill(main, homePage({ navigate }));
    Object.assign(window, { fourkings: null });
  }
  window.scrollTo(0, 0);
}

const main = h("main", { id: "main", tabindex: "-1" });
const header = h(
  "header",
  { class: "site-header" },
  h("a", { class: "brand", href: "/", on: { click: (e) => { e.preventDefault(); navigate("/"); } } }, crownIcon(), h("span", { text: "Four Kings" })),
  h("span", { class: "tagline", text: "four-player chess" }),
  themeSwitch(),
);
const skip = h("a", { class: "skip-link", href: "#main", text: "Skip to content" });
fill(app, skip, header, main, h("footer", { class: "site-footer" }, h("span", { text: "Four Kings · open-source four-player chess" })), ...announcer());

window.addEventListener("popstate", route);
route();
