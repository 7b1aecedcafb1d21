// The connection's banner: lost (with the countdown to the next try and "Retry now"), the
// server restarting, and reconnected; each said to screen readers once.

import { h, fill } from "./dom.js";
import { announce, announceNow } from "./announce.js";

/** @typedef {import("./connection.js").Status} Status */

export class ConnectionBanner {
  /**
   * @param {{retryNow: () => void, isOpen: () => boolean}} connection what the banner may ask of
   *   the connection: to try again now, and whether it is open
   */
  constructor({ retryNow, isOpen }) {
    this.retryNow = retryNow;
    this.isOpen = isOpen;
    this.el = h("div", { class: "conn-banner", role: "status", hidden: true });
    this.wasDisconnected = false;
  }

  /** @param {Status} status */
  show(status) {
    const banner = this.el;
    if (status.state === "open") {
      if (this.wasDisconnected) {
        banner.hidden = false;
        banner.className = "conn-banner ok";
        fill(banner, h("span", { text: "Reconnected." }));
        announce("Reconnected.");
        setTimeout(() => {
          if (this.isOpen()) banner.hidden = true;
        }, 1500);
      } else banner.hidden = true;
      this.wasDisconnected = false;
      return;
    }
    if (status.state === "connecting") return;
    // A restart is announced by the server: nothing is wrong on this side, and nothing was lost.
    const lost = status.restarting ? "The server is restarting." : "Connection lost.";
    if (!this.wasDisconnected || (status.restarting && !banner.classList.contains("restarting"))) announceNow(`${lost} Reconnecting…`);
    this.wasDisconnected = true;
    banner.hidden = false;
    banner.className = status.restarting ? "conn-banner lost restarting" : "conn-banner lost";
    const countdown = h("span", { class: "conn-countdown" });
    fill(
      banner,
      h("strong", { text: lost }),
      status.state === "waiting" ? h("span", {}, " Reconnecting in ", countdown, "…") : h("span", { text: " Reconnecting…" }),
      status.state === "waiting" ? h("button", { class: "btn small", type: "button", text: "Retry now", on: { click: () => this.retryNow() } }) : null,
    );
    banner.dataset.retryAt = status.retryAt ? String(status.retryAt) : "";
    this.tick();
  }

  /** Counts down to the next try (called often). */
  tick() {
    const banner = this.el;
    const at = Number(banner.dataset.retryAt || 0);
    const span = banner.querySelector(".conn-countdown");
    if (span && at) span.textContent = `${Math.max(0, Math.ceil((at - Date.now()) / 1000))} s`;
  }

  hide() {
    this.el.hidden = true;
  }
}
