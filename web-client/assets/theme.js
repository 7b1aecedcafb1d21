// Light or dark: the system's setting unless the player chose one (remembered on the device).
// The stylesheet's dark colours apply under `<html data-theme="dark">`, set here.

import { h } from "./dom.js";
import { preference, savePreference } from "./storage.js";

/** @typedef {"light" | "dark"} Theme */

const system = window.matchMedia("(prefers-color-scheme: dark)");

/** The theme shown: the player's choice, else the system's. @returns {Theme} */
export function currentTheme() {
  const chosen = preference("theme", null);
  if (chosen === "light" || chosen === "dark") return chosen;
  return system.matches ? "dark" : "light";
}

function apply() {
  document.documentElement.dataset.theme = currentTheme();
}

/**
 * The header's switch, named for the theme it switches to ("Dark theme" while the light one
 * shows), as a player reads a button: what pressing it does. It follows the system until used.
 * @returns {HTMLButtonElement}
 */
export function themeSwitch() {
  apply();
  const button = h("button", { class: "btn small ghost theme-switch", type: "button", dataset: { action: "theme" } });
  const show = () => {
    const dark = currentTheme() === "dark";
    button.textContent = dark ? "Light theme" : "Dark theme";
    button.title = dark ? "Switch to the light theme" : "Switch to the dark theme";
  };
  button.addEventListener("click", () => {
    savePreference("theme", currentTheme() === "dark" ? "light" : "dark");
    apply();
    show();
  });
  system.addEventListener("change", () => {
    apply();
    show();
  });
  show();
  return button;
}
