// E2E: the window at its 640×420 minimum and in the system's dark theme:
// the chat column keeps the width (not 190 px), a wide table and a long URL
// never scroll the chat sideways, a rule's Edit/Delete stay reachable, and
// the dark preference of GTK reaches the page.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startMockOpenAI } from "./helpers.mjs";
import { addMockProvider, newChat, send } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-data-"));
const wide = "| name | value | description |\n|---|---|---|\n| alpha | 1 | the first letter of the Greek alphabet, used very widely in science |\n| beta | 2 | second |";
const url = "https://example.com/a/very/long/path/that/keeps/going/and/going/without/any/break/at/all/really/truly";

let mock;
let driver;
let session;

before(async () => {
  mock = await startMockOpenAI([[`A table:\n\n${wide}\n\nand ${url}`, { finish_reason: "stop" }]]);
  driver = await startDriver({ name: "layout", cwd: dataDir, env: { SKALD_DATA_DIR: dataDir, GTK_THEME: "Adwaita:dark" } });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
});

test("at 640×420 in dark mode the chat keeps its width and nothing is cut off", async () => {
  assert.equal(await session.execute("return matchMedia('(prefers-color-scheme: dark)').matches"), true);
  const bg = await session.execute("return getComputedStyle(document.documentElement).backgroundColor");
  assert.equal(bg, "rgb(22, 26, 34)", "the dark background");

  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "a table please");
  await session.waitFor("return !document.querySelector('[data-testid=turn-running]') && document.querySelector('[data-role=assistant] table')", {
    what: "the answer with its table",
  });
  await session.cmd("POST", "/window/rect", { width: 640, height: 420 });
  await session.waitFor("return innerWidth <= 640", { what: "the narrow window" });
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, "narrow-dark-chat.png"), await session.screenshot());
  const chat = await session.execute(`
    const c = document.querySelector('[data-testid=conversation]');
    const send = document.querySelector('[data-testid=send]').getBoundingClientRect();
    return { width: c.clientWidth, overflow: c.scrollWidth - c.clientWidth, sendRight: send.right, inner: innerWidth };`);
  assert.ok(chat.width >= 560, `chat column ${chat.width} px`);
  assert.ok(chat.overflow <= 1, `the chat scrolls sideways by ${chat.overflow} px`);
  assert.ok(chat.sendRight <= chat.inner, "Send is on screen");

  await session.execute("location.hash = '#/permissions'");
  await session.waitFor("return document.querySelector('[data-testid=rules-table] [data-testid^=edit-rule-]')", { what: "the rules" });
  writeFileSync(join(shots, "narrow-dark-permissions.png"), await session.screenshot());
  const edit = await session.execute(`
    const b = document.querySelector('[data-testid=rules-table] [data-testid^=edit-rule-]').getBoundingClientRect();
    return { right: b.right, left: b.left, inner: innerWidth };`);
  assert.ok(edit.left >= 0 && edit.right <= edit.inner, `Edit at ${edit.left}–${edit.right} of ${edit.inner}`);
  // It works where it is.
  await session.click("[data-testid=rules-table] [data-testid^=edit-rule-]");
  await session.waitFor("return /Save rule/.test(document.body.innerText)", { what: "the rule in the form" });
});
