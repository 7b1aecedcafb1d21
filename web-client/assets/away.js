// What happened while a player was away: the moves since their last own choice, the ones the CPU
// played for them, the pieces of theirs taken and the checks to them. Nothing here touches the
// page, so that `node --test` can check it.

import { capturedPieces, applyDiff } from "./history.js";

/** @typedef {import("./history.js").GameHistory} GameHistory */

/**
 * @typedef {object} AwaySummary
 * @property {number} moves how many moves were played since the player's last own choice
 * @property {{ply: number, text: string}[]} forYou the moves the CPU played for the player (ply from 1)
 * @property {string[]} lost the player's pieces taken meanwhile (codes such as `rN`)
 * @property {number} checks how many moves put one of the player's seats in check
 */

/**
 * The summary of the moves after the player's last own (chosen) move, if the CPU stood in for
 * them among those moves; null otherwise, or while a move of them is not known.
 * @param {GameHistory} history
 * @param {{ply: number, moves: string[], move_seats: number[]}} game
 * @param {number[]} mine the player's seats
 * @param {(code: string) => boolean} isMine whether a piece is one of the player's (their army,
 *   or in Duo their side's colour)
 * @returns {AwaySummary | null}
 */
export function awaySummary(history, game, mine, isMine) {
  if (!mine.length) return null;
  let from = 0;
  for (let i = game.ply - 1; i >= 0; i--) {
    if (mine.includes(game.move_seats[i]) && !history.automatic(i)) {
      from = i + 1;
      break;
    }
  }
  /** @type {{ply: number, text: string}[]} */
  const forYou = [];
  for (let i = from; i < game.ply; i++) {
    if (mine.includes(game.move_seats[i]) && history.automatic(i)) forYou.push({ ply: i + 1, text: game.moves[i] });
  }
  if (!forYou.length) return null;
  const position = history.position(from);
  if (!position) return null;
  /** @type {string[]} */
  const lost = [];
  let checks = 0;
  for (let i = from; i < game.ply; i++) {
    const ply = history.ply(i);
    if (!ply) return null;
    lost.push(...capturedPieces(position, ply.move, ply.changed).filter(isMine));
    const before = i > 0 ? history.ply(i - 1) : undefined;
    const checkedBefore = before ? before.checks : [];
    if (ply.checks.some((seat) => mine.includes(seat) && !checkedBefore.includes(seat))) checks += 1;
    applyDiff(position, ply.changed);
  }
  return { moves: game.ply - from, forYou, lost, checks };
}
