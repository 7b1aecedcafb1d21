// The client's protocol types are the server's: types/protocol.d.ts is what
// scripts/protocol-types.mjs makes from protocol/schema.json (itself what the server's types make,
// checked by `cargo test`), and the type check refuses a message the server would not read.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { declarations } from "../scripts/protocol-types.mjs";

const CLIENT = fileURLToPath(new URL("..", import.meta.url));

test("types/protocol.d.ts is what the schema makes", async () => {
  const stored = readFileSync(join(CLIENT, "types/protocol.d.ts"), "utf8");
  assert.ok(stored === (await declarations()), "types/protocol.d.ts is not current: run `npm run types` in web-client");
});

/**
 * The type checker's verdict on `source`, a module of the client that names the protocol types.
 * @param {string} source
 * @returns {string} the errors, empty when it checks
 */
function typeErrors(source) {
  const dir = mkdtempSync(join(tmpdir(), "fourkings-types-"));
  try {
    const file = join(dir, "message.js");
    writeFileSync(file, source.replaceAll("PROTOCOL", JSON.stringify(join(CLIENT, "assets/protocol.js"))));
    const tsc = join(CLIENT, "node_modules/typescript/bin/tsc");
    const options = ["--noEmit", "--allowJs", "--checkJs", "--strict", "--target", "es2022", "--module", "esnext", "--moduleResolution", "bundler", "--lib", "es2022,dom", file];
    try {
      execFileSync(process.execPath, [tsc, ...options], { encoding: "utf8", cwd: dir });
      return "";
    } catch (error) {
      return String(/** @type {{stdout?: string}} */ (error).stdout ?? error);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("the type check refuses a misspelt field, a missing one and an unknown type", () => {
  const good = `/** @type {import(PROTOCOL).Request} */
export const move = { type: "move", seat: 0, token: "t", ply: 3, move: "h2h4" };
/** @param {import(PROTOCOL).ServerMessage} m */
export const ply = (m) => (m.type === "event" && m.event.kind === "moved" ? m.event.ply : 0);
`;
  assert.equal(typeErrors(good), "");
  // One wrong message a line, each named by its line in the checker's errors.
  const bad = [
    `/** @type {import(PROTOCOL).Request} */ export const a = { type: "move", seat: 0, token: "t", ply: 3, mvoe: "h2h4" };`,
    `/** @type {import(PROTOCOL).Request} */ export const b = { type: "move", seat: 0, token: "t", move: "h2h4" };`,
    `/** @type {import(PROTOCOL).Request} */ export const c = { type: "dance", seat: 0 };`,
    `/** @param {import(PROTOCOL).ServerMessage} m */ export const d = (m) => (m.type === "event" && m.event.kind === "moved" ? m.event.plly : 0);`,
  ];
  const errors = typeErrors(bad.join("\n"));
  bad.forEach((line, index) => assert.match(errors, new RegExp(`message\\.js\\(${index + 1},`), `no error for ${line}\n${errors}`));
  assert.match(errors, /mvoe/);
  assert.match(errors, /plly/);
});
