// A short two-note chime made with WebAudio (no sound files). Browsers only allow audio after
// the user has interacted with the page, so the context is created on the first gesture.

import { preference, savePreference } from "./storage.js";

/** @type {AudioContext | null} */
let ctx = null;
let enabled = preference("sound", true);

function unlock() {
  if (ctx) return;
  // Older Safari has only the prefixed constructor.
  const Context = window.AudioContext || /** @type {{webkitAudioContext?: typeof AudioContext}} */ (window).webkitAudioContext;
  if (!Context) return;
  try {
    ctx = new Context();
  } catch {
    ctx = null;
  }
}

for (const type of ["pointerdown", "keydown"]) window.addEventListener(type, unlock, { once: true, capture: true });

export function soundEnabled() {
  return enabled;
}

/** @param {boolean} on */
export function setSoundEnabled(on) {
  enabled = on;
  savePreference("sound", on);
}

/**
 * @param {AudioContext} ctx
 * @param {number} freq
 * @param {number} start
 * @param {number} length
 * @param {number} volume
 */
function tone(ctx, freq, start, length, volume) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = "sine";
  osc.frequency.value = freq;
  gain.gain.setValueAtTime(0.0001, start);
  gain.gain.exponentialRampToValueAtTime(volume, start + 0.01);
  gain.gain.exponentialRampToValueAtTime(0.0001, start + length);
  osc.connect(gain).connect(ctx.destination);
  osc.start(start);
  osc.stop(start + length + 0.02);
}

/** The "your turn" chime. */
export function beepYourTurn() {
  if (!enabled || !ctx) return;
  if (ctx.state === "suspended") ctx.resume();
  const t = ctx.currentTime;
  tone(ctx, 660, t, 0.12, 0.15);
  tone(ctx, 880, t + 0.1, 0.18, 0.15);
}

/** A soft click for a move. */
export function clickMove() {
  if (!enabled || !ctx) return;
  if (ctx.state === "suspended") ctx.resume();
  tone(ctx, 300, ctx.currentTime, 0.06, 0.08);
}
