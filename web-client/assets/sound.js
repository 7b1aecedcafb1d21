// A short two-note chime made with WebAudio (no sound files). Browsers only allow audio after
// the user has interacted with the page, so the context is created on the first gesture.

import { preference, savePreference } from "./storage.js";

let ctx = null;
let enabled = preference("sound", true);

function unlock() {
  if (ctx) return;
  const AudioContext = window.AudioContext || window.webkitAudioContext;
  if (!AudioContext) return;
  try {
    ctx = new AudioContext();
  } catch {
    ctx = null;
  }
}

for (const type of ["pointerdown", "keydown"]) window.addEventListener(type, unlock, { once: true, capture: true });

export function soundEnabled() {
  return enabled;
}

export function setSoundEnabled(on) {
  enabled = on;
  savePreference("sound", on);
}

function tone(freq, start, length, volume) {
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
  tone(660, t, 0.12, 0.15);
  tone(880, t + 0.1, 0.18, 0.15);
}

/** A soft click for a move. */
export function clickMove() {
  if (!enabled || !ctx) return;
  if (ctx.state === "suspended") ctx.resume();
  tone(300, ctx.currentTime, 0.06, 0.08);
}
