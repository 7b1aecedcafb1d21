// Teams-classic: resigning needs the partner's consent, asked and answered in the browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import {
  withServerAndBrowser, person, createRoom, sit, waitForMyTurn, playSomething,
} from "./helpers.js";

let server;
let browser;

withServerAndBrowser((s, b) => {
  server = s;
  browser = b;
});

test("a resignation waits for the partner, who refuses, then agrees", async () => {
  const red = await person(browser);
  const url = await createRoom(red.page, server.url, { preset: "teams-classic" });
  await sit(red.page, 0, "Rita");
  const yellow = await person(browser);
  await yellow.page.goto(url);
  await yellow.page.waitForSelector(".seat-card");
  await sit(yellow.page, 2, "Yusuf");
  await red.page.click('[data-action="start"]');
  await waitForMyTurn(red.page);
  await playSomething(red.page, [["h2", "h3"]]);
  // Blue's CPU moves next, and a move ends a waiting resignation: Red asks once Yellow, a person,
  // is to move, so that nothing moves meanwhile. (With both cores busy the CPU once moved after
  // the request, and the partner's buttons went with it.)
  await waitForMyTurn(yellow.page);

  await red.page.click('[data-action="resign"]');
  assert.match(await red.page.locator("dialog").innerText(), /partner/);
  await red.page.click('dialog [data-confirm="yes"]');
  await yellow.page.waitForSelector('.offer:has-text("wants to resign")');
  await yellow.page.click('[data-action="refuse-resignation"]');
  await red.page.waitForSelector(".offer", { state: "detached" });

  await red.page.click('[data-action="resign"]');
  await red.page.click('dialog [data-confirm="yes"]');
  await yellow.page.click('[data-action="accept-resignation"]');
  await yellow.page.click('dialog [data-confirm="yes"]');
  for (const { page } of [red, yellow]) {
    await page.waitForSelector(".result");
    assert.match(await page.locator(".result").innerText(), /Red resigned/);
    assert.deepEqual(page.errors, []);
  }
});
