// Versions: a client that misses an event (dropped here between the server and the page) sees
// the gap in the versions, asks to resync, and ends up holding the room exactly as the server does.
// A server restart (SIGTERM) shows its own banner, and the client comes back where it stood.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  withServerAndBrowser, person, createRoom, sit, waitForPly, waitForMyTurn, playSomething, ply, text,
} from "./helpers.js";

let server;
let browser;

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

test("a missing event is noticed and the client resyncs", async () => {
  const { page } = await person(browser);
  let dropped = null;
  const sent = [];
  await page.routeWebSocket(/\/ws\//, (ws) => {
    const upstream = ws.connectToServer();
    upstream.onMessage((message) => {
      const msg = JSON.parse(message);
      // Drop the first move by a CPU seat: the page will see the next version too soon.
      if (!dropped && msg.type === "event" && msg.event.kind === "moved" && msg.event.seat === 1) {
        dropped = msg.v;
        return;
      }
      ws.send(message);
    });
    ws.onMessage((message) => {
      sent.push(JSON.parse(message));
      upstream.send(message);
    });
  });
  const url = await createRoom(page, server.url, { preset: "teams" });
  await sit(page, 0, "Gus");
  await page.click('[data-action="start"]');
  await waitForMyTurn(page);
  await playSomething(page, [["h2", "h3"]]);
  await waitForMyTurn(page);
  assert.ok(dropped, "an event was dropped");
  const resync = sent.find((m) => m.type === "resync");
  assert.ok(resync, "the client asked to resync");
  assert.equal(resync.since, dropped - 1);
  const id = url.split("/r/")[1];
  const info = await (await fetch(`${server.url}/api/rooms/${id}`)).json();
  const held = await page.evaluate(() => window.fourkings.state.v);
  assert.equal(held, info.v);
  const moves = (await page.locator(".moves tbody td").allInnerTexts()).filter(Boolean);
  assert.equal(moves.length, 4);
  await playSomething(page, []);
  await waitForPly(page, 5);
  assert.deepEqual(page.errors, []);
});

test("a server restart shows its banner, and the game carries on where it stood", async () => {
  const { page } = await person(browser);
  await createRoom(page, server.url, { preset: "teams" });
  await sit(page, 0, "Hal");
  await page.click('[data-action="start"]');
  await playSomething(page, [["h2", "h3"]]);
  // The three CPUs have moved: Red is to move again, and the room is still until Hal moves.
  await waitForMyTurn(page);
  const plies = await ply(page);
  const restarted = server.restart();
  await page.waitForSelector(".conn-banner.restarting");
  assert.match(await text(page, ".conn-banner"), /server is restarting/);
  await restarted;
  await page.waitForSelector(".conn-banner.lost", { state: "hidden", timeout: 20000 });
  await waitForMyTurn(page);
  assert.equal(await ply(page), plies, "the restart lost no move and made none");
  await playSomething(page, []);
  await waitForPly(page, plies + 1);
  assert.deepEqual(page.errors, []);
});
