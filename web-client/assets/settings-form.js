// The room's settings as a form: the preset (with a line on each), the turn limit, the game clock
// (not in Duo), the CPU level, the twists for Teams, and the team clock and king friendly
// captures for Duo. Used to
// create a room and, by the host, in the lobby. It reports patches (only what changed).

import { h } from "./dom.js";
import { PRESETS, isTeamsPreset } from "./armies.js";
import { CONTROLS, controlName, controlWords, parseControl } from "./game-clock.js";

/** @typedef {import("./protocol.js").Settings} Settings */
/** @typedef {import("./protocol.js").SettingsPatch} SettingsPatch */
/** @typedef {import("./protocol.js").GameClock} GameClock */

/**
 * The settings the form shows (a room's settings have more: the form leaves the rest to the
 * preset).
 * @typedef {Pick<Settings, "preset" | "turn_limit" | "team_clock" | "game_clock" | "cpu_level" | "promotion" | "pawn_breakthrough" | "lifelines" | "silent_partners" | "switch_partners" | "king_friendly_capture" | "show_legal_moves">} FormSettings
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

/**
 * The game clock: none, one of chess.com's controls, or a custom one written the same way
 * (`3 | 2`, `1 | 15D`), checked as it is typed.
 * @param {string} name
 * @param {(clock: GameClock | null) => void} onPick
 */
function gameClockField(name, onPick) {
  const options = [{ value: "none", label: "None" }, ...CONTROLS.map((c) => ({ value: controlName(c), label: controlName(c) })), { value: "custom", label: "Custom" }];
  const help = h("small", { class: "clock-help", "aria-live": "polite" });
  /** @type {HTMLInputElement} */
  const custom = h("input", {
    type: "text",
    class: "custom-clock",
    placeholder: "3 | 2 or 1 | 15D",
    "aria-label": "Custom game clock: minutes | seconds added a move, or seconds of delay with D",
    hidden: true,
    on: {
      change: () => {
        const clock = parseControl(custom.value);
        custom.setAttribute("aria-invalid", String(!clock));
        help.textContent = clock ? controlWords(clock) : "1–60 minutes | 0–60 seconds, D for a delay";
        if (clock) onPick(clock);
      },
    },
  });
  const group = radioGroup(name, "Game clock", options, (value) => {
    custom.hidden = value !== "custom";
    if (value === "none") onPick(null);
    else if (value === "custom") custom.focus();
    else onPick(parseControl(String(value)));
  }, "not-duo");
  group.el.append(custom, help);
  /** @param {GameClock | null | undefined} clock */
  const set = (clock) => {
    const named = clock ? controlName(clock) : "none";
    const value = !clock || CONTROLS.some((c) => controlName(c) === named) ? named : "custom";
    group.set(value);
    custom.hidden = value !== "custom";
    if (clock && value === "custom" && document.activeElement !== custom) custom.value = named;
    help.textContent = clock ? controlWords(clock) : "";
  };
  return { el: group.el, set };
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

    this.gameClock = gameClockField(name("game-clock"), (clock) => this.change({ game_clock: clock }));

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

    this.el.append(presetBox, h("div", { class: "settings-options" }, this.turnLimit.el, this.gameClock.el, this.teamClock.el, this.cpuLevel.el, this.twistBox, this.duoBox, h("fieldset", { class: "twists" }, h("legend", { text: "Hints" }), more)));
    this.update(settings);
  }

  /** @param {string} preset */
  pickPreset(preset) {
    // A new preset resets the rule options; keep the time per move and the game clock the host
    // chose (Duo has its team clock instead).
    const game_clock = preset === "duo" ? null : this.settings.game_clock ?? null;
    /** @type {SettingsPatch} */
    const patch = { preset, turn_limit: this.settings.turn_limit };
    if (game_clock) patch.game_clock = game_clock;
    this.settings = { ...this.settings, preset, game_clock, pawn_breakthrough: false, lifelines: false, silent_partners: false, switch_partners: false, king_friendly_capture: false, team_clock: 0, promotion: preset.startsWith("ffa") ? "queen" : "all" };
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
    this.gameClock.set(settings.game_clock);
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
  if (settings.preset !== "duo" && settings.game_clock) patch.game_clock = settings.game_clock;
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
  else if (settings.game_clock) parts.push(`game clock ${controlName(settings.game_clock)} (${controlWords(settings.game_clock)})`);
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
