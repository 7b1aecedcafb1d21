// The room's settings as a form: the preset (with a line on each), the turn limit, the CPU
// level, the twists for Teams, and the team clock and king friendly captures for Duo. Used to
// create a room and, by the host, in the lobby. It reports patches (only what changed).

import { h } from "./dom.js";
import { PRESETS, isTeamsPreset } from "./armies.js";

/** @typedef {import("./protocol.js").Settings} Settings */
/** @typedef {import("./protocol.js").SettingsPatch} SettingsPatch */

/**
 * The settings the form shows (a room's settings have more: the form leaves the rest to the
 * preset).
 * @typedef {Pick<Settings, "preset" | "turn_limit" | "team_clock" | "cpu_level" | "promotion" | "pawn_breakthrough" | "lifelines" | "silent_partners" | "switch_partners" | "king_friendly_capture" | "show_legal_moves">} FormSettings
 */

/** @typedef {"pawn_breakthrough" | "minor_promotion" | "lifelines" | "silent_partners" | "switch_partners" | "king_friendly_capture"} TwistKey */

let formCount = 0;

/**
 * A row of radio buttons.
 * @template {string | number} T
 * @param {string} name
 * @param {string} legend
 * @param {{value: T, label: string}[]} options
 * @param {(value: T) => void} onPick
 * @param {string} [extraClass]
 */
export function radioGroup(name, legend, options, onPick, extraClass = "") {
  /** @type {Map<string, HTMLInputElement>} */
  const inputs = new Map();
  const fieldset = h("fieldset", { class: `segmented ${extraClass}` }, h("legend", { text: legend }));
  const row = h("div", { class: "segments" });
  for (const { value, label } of options) {
    const input = h("input", { type: "radio", name, value: String(value), on: { change: () => onPick(value) } });
    inputs.set(String(value), input);
    row.append(h("label", { class: "segment" }, input, h("span", { text: label })));
  }
  fieldset.append(row);
  /** @param {string | number} value */
  const set = (value) => {
    const i = inputs.get(String(value));
    if (i) i.checked = true;
  };
  return { el: fieldset, set, inputs };
}

export class SettingsForm {
  /**
   * @param {FormSettings} settings
   * @param {(patch: SettingsPatch, settings: FormSettings) => void} onChange called with the
   *   fields that changed and the settings now
   */
  constructor(settings, onChange) {
    this.id = ++formCount;
    /** @type {FormSettings} */
    this.settings = { ...settings };
    this.onChange = onChange;
    this.el = h("div", { class: "settings-form" });
    /** @param {string} n */
    const name = (n) => `${n}-${this.id}`;

    const presetBox = h("fieldset", { class: "presets" }, h("legend", { text: "Game" }));
    /** @type {Map<string, HTMLInputElement>} */
    this.presetInputs = new Map();
    for (const preset of PRESETS) {
      const input = h("input", { type: "radio", name: name("preset"), value: preset.id, on: { change: () => this.pickPreset(preset.id) } });
      this.presetInputs.set(preset.id, input);
      presetBox.append(
        h("label", { class: "preset", dataset: { preset: preset.id } }, input, h("span", { class: "preset-body" }, h("strong", { text: preset.name }), h("small", { text: preset.line }))),
      );
    }

    this.turnLimit = radioGroup(name("turn"), "Time per move", [
      { value: 0, label: "No limit" },
      { value: 30, label: "30 s" },
      { value: 60, label: "60 s" },
    ], (v) => this.change({ turn_limit: v }));

    this.teamClock = radioGroup(name("clock"), "Team clock", [
      { value: 0, label: "Untimed" },
      { value: 3, label: "3 min" },
      { value: 5, label: "5 min" },
      { value: 10, label: "10 min" },
      { value: 15, label: "15 min" },
    ], (v) => this.change({ team_clock: v }), "duo-only");

    this.cpuLevel = radioGroup(name("cpu"), "CPU players", [
      { value: "easy", label: "Easy" },
      { value: "medium", label: "Medium" },
      { value: "hard", label: "Hard" },
    ], (v) => this.change({ cpu_level: v }));

    /**
     * @param {TwistKey} key
     * @param {string} label
     * @param {string} help
     */
    const twist = (key, label, help) => {
      /** @type {HTMLInputElement} */
      const input = h("input", { type: "checkbox", name: `${key}-${this.id}`, on: { change: () => this.toggle(key, input.checked) } });
      return { key, input, el: h("label", { class: "twist" }, input, h("span", {}, h("strong", { text: label }), h("small", { text: help }))) };
    };
    this.twists = [
      twist("pawn_breakthrough", "Pawn breakthrough", "The first team to land a pawn on its promotion line wins."),
      twist("minor_promotion", "Minor promotion", "Pawns promote to a knight or a bishop only."),
      twist("lifelines", "Two lifelines", "Each team may take back two of its moves."),
      twist("silent_partners", "Silent partners", "No team chat once the game starts."),
      twist("switch_partners", "Switch partners", "Three games, every pairing once; personal points."),
    ];
    this.twistBox = h("fieldset", { class: "twists teams-only" }, h("legend", { text: "Twists" }), this.twists.map((t) => t.el));
    this.duoOptions = [twist("king_friendly_capture", "Kings take their own pieces", "The king may capture a piece of its own side, as the other pieces may.")];
    this.duoBox = h("fieldset", { class: "twists duo-only" }, h("legend", { text: "Duo" }), this.duoOptions.map((t) => t.el));

    /** @type {HTMLInputElement} */
    this.showLegal = h("input", { type: "checkbox", name: `legal-${this.id}`, on: { change: () => this.change({ show_legal_moves: this.showLegal.checked }) } });
    const more = h("label", { class: "twist" }, this.showLegal, h("span", {}, h("strong", { text: "Show legal moves" }), h("small", { text: "Mark where a selected piece may go." })));

    this.el.append(presetBox, h("div", { class: "settings-options" }, this.turnLimit.el, this.teamClock.el, this.cpuLevel.el, this.twistBox, this.duoBox, h("fieldset", { class: "twists" }, h("legend", { text: "Hints" }), more)));
    this.update(settings);
  }

  /** @param {string} preset */
  pickPreset(preset) {
    // A new preset resets the rule options; keep the time per move the host chose.
    const patch = { preset, turn_limit: this.settings.turn_limit };
    this.settings = { ...this.settings, preset, pawn_breakthrough: false, lifelines: false, silent_partners: false, switch_partners: false, king_friendly_capture: false, team_clock: 0, promotion: preset.startsWith("ffa") ? "queen" : "all" };
    this.update(this.settings);
    this.onChange(patch, this.settings);
  }

  /**
   * @param {TwistKey} key
   * @param {boolean} on
   */
  toggle(key, on) {
    if (key === "minor_promotion") this.change({ promotion: on ? "minor" : "all" });
    else this.change({ [key]: on });
  }

  /** @param {Partial<FormSettings>} patch */
  change(patch) {
    this.settings = { ...this.settings, ...patch };
    this.update(this.settings);
    this.onChange(patch, this.settings);
  }

  /**
   * Shows `settings` (after an event, say) without rebuilding the form.
   * @param {FormSettings} settings
   */
  update(settings) {
    this.settings = { ...settings };
    const preset = settings.preset;
    const input = this.presetInputs.get(preset);
    if (input) input.checked = true;
    for (const [id, i] of this.presetInputs) i.closest(".preset")?.classList.toggle("chosen", id === preset);
    this.turnLimit.set(settings.turn_limit);
    this.teamClock.set(settings.team_clock);
    this.cpuLevel.set(settings.cpu_level);
    for (const { key, input } of [...this.twists, ...this.duoOptions]) input.checked = key === "minor_promotion" ? settings.promotion === "minor" : !!settings[key];
    this.showLegal.checked = settings.show_legal_moves !== false;
    this.el.classList.toggle("is-duo", preset === "duo");
    this.el.classList.toggle("is-teams", isTeamsPreset(preset));
  }

  /** @param {boolean} disabled */
  setDisabled(disabled) {
    for (const el of this.el.querySelectorAll("input")) el.disabled = disabled;
  }
}

/**
 * The patch that creates a room with these settings (only what differs from a preset's defaults).
 * @param {FormSettings} settings
 * @returns {SettingsPatch}
 */
export function createPatch(settings) {
  /** @type {SettingsPatch} */
  const patch = { preset: settings.preset, turn_limit: settings.turn_limit, cpu_level: settings.cpu_level };
  if (settings.preset === "duo") {
    patch.team_clock = settings.team_clock;
    if (settings.king_friendly_capture) patch.king_friendly_capture = true;
  }
  if (isTeamsPreset(settings.preset)) {
    for (const key of /** @type {const} */ (["pawn_breakthrough", "lifelines", "silent_partners", "switch_partners"])) if (settings[key]) patch[key] = true;
    if (settings.promotion === "minor") patch.promotion = "minor";
  }
  if (settings.show_legal_moves === false) patch.show_legal_moves = false;
  return patch;
}

/**
 * Words for settings, for those who cannot change them.
 * @param {Settings} settings
 * @returns {string}
 */
export function describeSettings(settings) {
  const parts = [];
  parts.push(settings.turn_limit ? `${settings.turn_limit} s per move` : "no time limit per move");
  if (settings.preset === "duo") parts.push(settings.team_clock ? `${settings.team_clock} min team clocks` : "untimed");
  parts.push(`CPU ${settings.cpu_level}`);
  const twists = [];
  if (settings.pawn_breakthrough) twists.push("pawn breakthrough");
  if (settings.promotion === "minor") twists.push("minor promotion");
  if (settings.lifelines) twists.push("two lifelines");
  if (settings.silent_partners) twists.push("silent partners");
  if (settings.switch_partners) twists.push("switch partners");
  if (settings.king_friendly_capture) twists.push("kings take their own pieces");
  if (twists.length) parts.push(`twists: ${twists.join(", ")}`);
  if (!settings.show_legal_moves) parts.push("legal moves not shown");
  return parts.join(" · ");
}
