// Versions: a client that misses an event (dropped here between the server and the page) sees
// the gap in the versions, asks to resync, and ends up holding the room exactly as the server does.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startServer, launchBrowser, person, createRoom, sit, waitForPly, waitForMyTurn, playSomething } from "./helpers.js";

let server;
let browser;

before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
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
