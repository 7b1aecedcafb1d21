// The web client, unchanged, on a cluster: three nodes over one PostgreSQL database, and four
// people each reaching it through a different node, as a balancer that spreads connections at
// random would send them. The room is created through one node, moves to the node of its first
// WebSocket, and every other connection is relayed to it; the game is played, one person reloads
// through yet another node, and everyone sees the same moves.

import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startCluster, launchBrowser, person, createRoom, sit, playSomething, waitForPly } from "./helpers.js";

let cluster;
let browser;
const people = [];

before(async () => {
  cluster = await startCluster(3);
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  if (cluster) await cluster.stop();
});

/** The same room's page on another node. */
function through(url, node) {
  return node + new URL(url).pathname;
}

test("four people on three nodes play one game, and a reload through another node finds it", async () => {
  const { urls } = cluster;
  const ann = await person(browser);
  const roomUrl = await createRoom(ann.page, urls[0], { preset: "teams", name: "Ann" });
  people.push(ann);
  for (const [seat, name, node] of [[1, "Bob", urls[1]], [2, "Cleo", urls[2]], [3, "Dev", urls[1]]]) {
    const someone = await person(browser);
    await someone.page.goto(through(roomUrl, node));
    await someone.page.waitForSelector(".seat-card");
    await sit(someone.page, seat, name);
    people.push(someone);
  }
  await ann.page.waitForSelector('.seat-card[data-seat="3"] .name:text-is("Dev")');
  await ann.page.click('[data-action="start"]');
  for (const { page } of people) await page.waitForSelector(".board .sq");

  for (let ply = 0; ply < 8; ply++) {
    await playSomething(people[ply % 4].page);
  }
  for (const { page } of people) await waitForPly(page, 8);

  // Cleo reloads through the first node: back in her seat, with the game as it stands.
  const cleo = people[2].page;
  await cleo.goto(through(roomUrl, urls[0]));
  await cleo.waitForSelector('.seat-card.mine[data-seat="2"], .board .sq');
  await waitForPly(cleo, 8);
  const moves = async (page) => (await page.locator(".moves tbody td").allInnerTexts()).filter(Boolean);
  const seen = await moves(people[0].page);
  assert.equal(seen.length, 8);
  for (const { page } of people) assert.deepEqual(await moves(page), seen);
  await playSomething(people[0].page);
  for (const { page } of people) await waitForPly(page, 9);
  for (const { page } of people) assert.deepEqual(page.errors, []);
});
