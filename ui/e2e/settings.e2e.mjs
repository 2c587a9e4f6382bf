// E2E: set up through the environment only (OPENAI_BASE_URL + OPENAI_API_KEY,
// as Settings suggests), the app offers the models the endpoint lists,
// remembers the pick across a relaunch, and a chat needs nothing else.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { MOCK_MODELS, startMockOpenAI } from "./helpers.mjs";
import { newChat, send } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
if (!app) throw new Error("set SKALD_APP");

const workdir = mkdtempSync(join(tmpdir(), "skald-e2e-work-"));
const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-data-"));

let mock;
let driver;
let session;

async function launch() {
  driver = await startDriver({
    name: "settings",
    cwd: workdir,
    env: { SKALD_DATA_DIR: dataDir, OPENAI_BASE_URL: mock.baseUrl, OPENAI_API_KEY: "env-key" },
  });
  session = await Session.create(driver.base, app);
}

async function quit() {
  await session?.quit();
  await driver?.stop();
}

before(async () => {
  mock = await startMockOpenAI([["Answered by the model from the list.", { finish_reason: "stop" }]]);
  await launch();
});

after(async () => {
  await quit();
  mock?.close();
});

test("an endpoint from the environment offers its models; the pick is remembered and used", async () => {
  await session.execute("location.hash = '#/settings'");
  const offered = await session.waitFor(
    "const s = document.querySelector('[data-env=openai] select'); return s && Array.from(s.options).map((o) => o.value)",
    { what: "the environment endpoint's models" },
  );
  assert.deepEqual(offered, MOCK_MODELS);
  await session.execute("const s = document.querySelector('[data-env=openai] select'); s.value = 'mock-large';");
  await session.click("[data-testid=use-env-openai]");
  await session.waitFor("return document.querySelector('[data-testid=env-chosen-openai]')?.textContent === 'Chats use mock-large.'", {
    what: "the pick confirmed",
  });

  // A relaunch keeps it.
  await quit();
  await launch();
  await session.execute("location.hash = '#/settings'");
  await session.waitFor("return document.querySelector('[data-testid=env-chosen-openai]')?.textContent === 'Chats use mock-large.'", {
    what: "the pick after a relaunch",
  });

  await newChat(session);
  await send(session, "hello");
  await session.waitFor(
    "const m = document.querySelectorAll('[data-role=assistant]'); return !document.querySelector('[data-testid=turn-running]') && m[m.length-1]?.textContent.includes('Answered by the model from the list.')",
    { what: "the answer" },
  );
  assert.equal(mock.requests.length, 1);
  assert.equal(mock.requests[0].model, "mock-large");
});
