// The game's sounds, made with WebAudio (no sound files): a move, a capture, a check, your turn,
// low time and the game's end, each its own, at a volume the player sets and the device
// remembers (0 is silence). Browsers only allow audio after the user has interacted with the
// page, so the context is created on the first gesture.

import { preference, savePreference } from "./storage.js";

/** @typedef {"move" | "capture" | "check" | "turn" | "low" | "end"} SoundKind */

/**
 * Each sound as notes: frequency (Hz), start and length (s), loudness (0–1 of the volume) and
 * the oscillator's wave.
 * @type {Record<SoundKind, {freq: number, at: number, length: number, gain: number, wave: OscillatorType}[]>}
 */
const SOUNDS = {
  move: [{ freq: 300, at: 0, length: 0.06, gain: 0.5, wave: "sine" }],
  capture: [
    { freq: 220, at: 0, length: 0.05, gain: 0.6, wave: "triangle" },
    { freq: 160, at: 0.04, length: 0.09, gain: 0.6, wave: "triangle" },
  ],
  check: [
    { freq: 740, at: 0, length: 0.08, gain: 0.55, wave: "square" },
    { freq: 740, at: 0.12, length: 0.08, gain: 0.55, wave: "square" },
  ],
  turn: [
    { freq: 660, at: 0, length: 0.12, gain: 1, wave: "sine" },
    { freq: 880, at: 0.1, length: 0.18, gain: 1, wave: "sine" },
  ],
  low: [
    { freq: 1000, at: 0, length: 0.05, gain: 0.5, wave: "sine" },
    { freq: 1000, at: 0.09, length: 0.05, gain: 0.5, wave: "sine" },
    { freq: 1000, at: 0.18, length: 0.05, gain: 0.5, wave: "sine" },
  ],
  end: [
    { freq: 523, at: 0, length: 0.16, gain: 0.9, wave: "sine" },
    { freq: 659, at: 0.14, length: 0.16, gain: 0.9, wave: "sine" },
    { freq: 784, at: 0.28, length: 0.32, gain: 0.9, wave: "sine" },
  ],
};

/** The loudest a sound gets at full volume (WebAudio gain). */
const MAX_GAIN = 0.3;

/** @type {AudioContext | null} */
let ctx = null;
// The old on/off setting, if that is all the device remembers, decides the first volume.
let volume = preference("volume", preference("sound", true) ? 0.6 : 0);

/** The sounds asked for, newest last (for the browser tests and for debugging). */
export const played = /** @type {SoundKind[]} */ ([]);

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

/** The volume, 0 (silent) to 1. */
export function soundVolume() {
  return volume;
}

/**
 * Sets and remembers the volume.
 * @param {number} level 0 to 1
 */
export function setSoundVolume(level) {
  volume = Math.min(1, Math.max(0, level));
  savePreference("volume", volume);
}

/**
 * Plays a sound, unless the volume is 0.
 * @param {SoundKind} kind
 */
export function playSound(kind) {
  if (volume === 0) return;
  played.push(kind);
  if (played.length > 50) played.shift();
  if (!ctx) return;
  if (ctx.state === "suspended") ctx.resume();
  const start = ctx.currentTime;
  for (const note of SOUNDS[kind]) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    const at = start + note.at;
    osc.type = note.wave;
    osc.frequency.value = note.freq;
    gain.gain.setValueAtTime(0.0001, at);
    gain.gain.exponentialRampToValueAtTime(Math.max(0.0002, MAX_GAIN * volume * note.gain), at + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, at + note.length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(at);
    osc.stop(at + note.length + 0.02);
  }
}
