// The game as a file: PGN4 on the cross board (the format of /work/shared/FEN4.md, as the
// engine writes it: tags, then one round per line, `1. a .. b .. c .. d`) and ordinary PGN for
// Duo. Built from the move list the server sends and the seat names.

import { seatLabel } from "./armies.js";

const START_FEN4_BODY =
  "-0,0,0,0-1,1,1,1-1,1,1,1-0,0,0,0-0-3,yR,yN,yB,yK,yQ,yB,yN,yR,3/3,yP,yP,yP,yP,yP,yP,yP,yP,3/14/bR,bP,10,gP,gR/bN,bP,10,gP,gN/bB,bP,10,gP,gB/bQ,bP,10,gP,gK/bK,bP,10,gP,gQ/bB,bP,10,gP,gB/bN,bP,10,gP,gN/bR,bP,10,gP,gR/14/3,rP,rP,rP,rP,rP,rP,rP,rP,3/3,rR,rN,rB,rQ,rK,rB,rN,rR,3";

function tag(name, value) {
  return `[${name} "${String(value).replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"]`;
}

function today() {
  const d = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

function playerName(state, seat) {
  const s = state.seats[seat];
  if (!s || s.occupant === "empty") return "?";
  if (s.occupant === "cpu") return `CPU ${seat}`;
  return s.name;
}

/** `RuleVariants` tokens: the rules that differ from what `Variant` names (see the engine). */
export function ruleVariants(settings) {
  const ffa = settings.preset.startsWith("ffa");
  const tokens = [];
  if (settings.en_passant) tokens.push("EnPassant");
  if (settings.preset === "ffa-walking-kings") tokens.push("DeadKingWalking");
  const base = ffa ? "queen" : "all";
  if (settings.promotion !== base) tokens.push(`PromoteTo=${{ all: "QRBN", queen: "D", minor: "NB" }[settings.promotion]}`);
  if (!settings.castling) tokens.push("NoCastling");
  if (!settings.king_capture) tokens.push("NoKingCapture");
  if (settings.preset === "ffa-walking-kings") tokens.push("MateAtTurnStart");
  if (!settings.fifty_move_rule) tokens.push("NoFiftyMove");
  if (settings.preset === "teams-classic") tokens.push("ResignConsent");
  if (settings.move_limit > 0) tokens.push(`MoveLimit=${settings.move_limit}`);
  if (settings.pawn_breakthrough) tokens.push("Breakthrough");
  if (settings.lifelines) tokens.push("Lifelines=2");
  if (settings.claim_win) tokens.push("LeadClaim");
  return tokens;
}

function resultCode(game, duo, ffa) {
  const r = game.result;
  if (!r) return "*";
  if (ffa) return (r.points || game.points).join("-");
  if (r.winners.length === 0) return "1/2-1/2";
  return r.winners.includes(0) ? "1-0" : "0-1";
}

/** The file name and text of the game held in `state`. */
export function exportGame(state) {
  const game = state.game;
  const settings = state.settings;
  const duo = game.board === "classic";
  const ffa = settings.preset.startsWith("ffa");
  const result = resultCode(game, duo, ffa);
  const lines = [];
  if (duo) {
    lines.push(tag("Event", "Four Kings Duo"));
    lines.push(tag("Site", location.origin + "/r/" + state.roomId));
    lines.push(tag("Date", today().replace(/-/g, ".")));
    lines.push(tag("Round", "-"));
    lines.push(tag("White", `${playerName(state, 0)} & ${playerName(state, 2)}`));
    lines.push(tag("Black", `${playerName(state, 1)} & ${playerName(state, 3)}`));
    lines.push(tag("Result", result));
    lines.push(tag("Variant", "Duo"));
    const blackFirst = game.first_seat % 2 === 1;
    if (blackFirst) {
      lines.push(tag("SetUp", "1"));
      lines.push(tag("FEN", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"));
    }
    if (settings.team_clock) lines.push(tag("TimeControl", String(settings.team_clock * 60)));
    if (game.result) lines.push(tag("Termination", game.result.text));
    const words = [];
    let number = 1;
    game.moves.forEach((text, i) => {
      const white = state.plySeats[i] % 2 === 0;
      if (white) words.push(`${number}.`);
      else if (i === 0) words.push(`${number}...`);
      words.push(text);
      if (!white) number += 1;
    });
    words.push(result);
    let line = "";
    const body = [];
    for (const word of words) {
      if (line && line.length + 1 + word.length > 79) {
        body.push(line);
        line = "";
      }
      line = line ? `${line} ${word}` : word;
    }
    body.push(line);
    return { name: `fourkings-${state.roomId}.pgn`, text: `${lines.join("\n")}\n\n${body.join("\n")}\n` };
  }
  lines.push(tag("Variant", ffa ? "FFA" : "Teams"));
  const variants = ruleVariants(settings);
  if (variants.length) lines.push(tag("RuleVariants", variants.join(" ")));
  lines.push(tag("StartFen4", game.first_seat === 0 ? "4PC" : "RBYG"[game.first_seat] + START_FEN4_BODY));
  for (let seat = 0; seat < 4; seat++) lines.push(tag(seatLabel(seat, false), playerName(state, seat)));
  if (settings.turn_limit) lines.push(tag("TimeControl", `${settings.turn_limit} per move`));
  lines.push(tag("Result", result));
  if (game.result) lines.push(tag("Termination", game.result.text));
  lines.push(tag("Date", today()));
  // Rounds: a new one whenever the turn comes round again (a seat at or before the last one).
  const slots = [];
  let pendingComment = "";
  const eliminationsAfter = (plies) => {
    for (const e of state.eliminations) {
      if (e.ply !== plies) continue;
      if (e.onTurn === false) {
        // Out of turn (free-for-all): a comment where it happened, as the engine writes it.
        const comment = `{${seatLabel(e.seat, false)} resigned}`;
        if (slots.length) slots[slots.length - 1].text += ` ${comment}`;
        else pendingComment = comment;
      } else {
        slots.push({ seat: e.seat, text: e.token });
      }
    }
  };
  eliminationsAfter(0);
  game.moves.forEach((text, i) => {
    slots.push({ seat: state.plySeats[i], text: pendingComment ? `${pendingComment} ${text}` : text });
    pendingComment = "";
    eliminationsAfter(i + 1);
  });
  const rounds = [];
  let current = [];
  let last = null;
  for (const slot of slots) {
    if (last !== null && slot.seat <= last) {
      rounds.push(current);
      current = [];
    }
    current.push(slot.text);
    last = slot.seat;
  }
  if (current.length) rounds.push(current);
  const movetext = rounds.map((r, i) => `${i + 1}. ${r.join(" .. ")}`);
  return { name: `fourkings-${state.roomId}.pgn4`, text: `${lines.join("\n")}\n\n${movetext.join("\n")}${movetext.length ? "\n" : ""}` };
}

/** Offers the file to the browser as a download. */
export function download({ name, text }) {
  const blob = new Blob([text], { type: "application/x-chess-pgn" });
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}
