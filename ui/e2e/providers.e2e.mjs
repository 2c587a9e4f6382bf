// E2E: the first launch greets with a welcome that leads to adding a
// provider; a provider is tested against its real endpoint (the mock's
// /v1/models), a discovered model chosen, a duplicate offered for editing,
// edited and deleted; the keyboard-shortcut overlay opens with ? and the
// global shortcuts work with real key presses (xdotool).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { addMockProvider, MOCK_MODELS, setValue, startMockOpenAI } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-data-"));

let mock;
let driver;
let session;

async function shot(name) {
  mkdirSync(shots, { recursive: true });
  // Let WebKit paint what the last step changed (a resize takes a while).
  await sleep(400);
  await session.cmd("POST", "/execute/async", { script: "requestAnimationFrame(() => requestAnimationFrame(arguments[0]))", args: [] });
  writeFileSync(join(shots, name), await session.screenshot());
}

/** Real key presses into the app's window, as a person types them. */
function keys(...combos) {
  const ids = execFileSync("xdotool", ["search", "--onlyvisible", "--name", "^Skald$"], { encoding: "utf8" }).trim().split("\n");
  const wid = ids[ids.length - 1];
  execFileSync("xdotool", ["windowfocus", "--sync", wid]);
  execFileSync("xdotool", ["key", "--delay", "60", ...combos]);
}

/** Starts the app on `dir` (no OPENAI_* / ANTHROPIC_* / OLLAMA_HOST: a
 *  first launch with nothing set up). */
async function launch(dir, name = "providers") {
  driver = await startDriver({ name, cwd: dir, env: { SKALD_DATA_DIR: dir, OLLAMA_HOST: "", OPENAI_BASE_URL: "", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", GTK_THEME: "Adwaita:dark" } });
  session = await Session.create(driver.base, app);
}

async function quit() {
  await session.quit();
  await driver.stop();
  session = null;
  driver = null;
}

before(async () => {
  mock = await startMockOpenAI([]);
  await launch(dataDir);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
});

test("the first launch shows a welcome that leads to adding a provider", async () => {
  // Above the (empty) chat, which stays usable.
  await session.waitFor("return !!document.querySelector('#page [data-testid=welcome]') && !!document.querySelector('[data-testid=new-chat]')", { what: "the welcome" });
  await shot("welcome-dark.png");
  await session.click("[data-testid=welcome-add-provider]");
  await session.waitFor("return location.hash === '#/settings' && !!document.querySelector('[data-testid=provider-form]')", { what: "settings from the welcome" });
  assert.ok(await session.execute("return !!document.querySelector('[data-testid=no-providers]')"));
});

test("once a provider exists the chat shows no welcome", async () => {
  await addMockProvider(session, mock.baseUrl, { name: "Lab", model: "mock-small" });
  await session.execute("location.hash = '#/chat'");
  await session.waitFor("return !!document.querySelector('[data-testid=new-chat]')", { what: "the chat" });
  await session.waitFor("return !document.querySelector('[data-testid=welcome]')", { what: "no welcome once a provider exists", timeoutMs: 5000 });
  await session.execute("location.hash = '#/settings'");
  await session.waitFor("return !!document.querySelector('[data-testid=provider-form]')", { what: "settings" });
});

test("a provider is tested, a discovered model chosen, a duplicate edited instead, and deleted", async () => {
  await session.click("[data-testid=test-provider-lab]");
  const result = await session.waitFor("return document.querySelector('[data-testid=test-result-lab]')?.textContent", { what: "the test result" });
  assert.match(result, /Connected to .* in \d+ ms: 2 models/);
  assert.equal(await session.execute("return document.querySelector('[data-testid=test-result-lab]').dataset.ok"), "true");
  const offered = await session.execute("return Array.from(document.querySelector('[data-testid=discovered-lab]').options).map((o) => o.value)");
  assert.deepEqual(offered, MOCK_MODELS);
  // Only the endpoint knows these names: the request reached it.
  await session.execute("document.querySelector('[data-testid=discovered-lab]').value = 'mock-large'");
  await session.click("[data-testid=use-discovered-lab]");
  await session.waitFor("return document.querySelector('[data-model=\"mock-large\"] input')?.checked === true", { what: "the discovered model as the default" });
  await shot("providers-tested-dark.png");

  // The same endpoint again: offered to edit the existing one instead.
  await setValue(session, "[data-testid=provider-form] [name=name]", "Lab again");
  await setValue(session, "[data-testid=provider-form] [name=baseUrl]", mock.baseUrl);
  await setValue(session, "[data-testid=provider-form] [name=model]", "mock-small");
  await session.click("[data-testid=provider-form] button[type=submit]");
  await session.waitFor("return !!document.querySelector('[data-testid=duplicate-provider]')", { what: "the duplicate offer" });
  assert.equal(await session.execute("return document.querySelectorAll('[data-provider]').length"), 1, "nothing added yet");
  await session.click("[data-testid=edit-duplicate]");
  await session.waitFor("return !!document.querySelector('[data-testid=provider-edit-lab]')", { what: "the edit form" });
  await setValue(session, "[data-testid=provider-edit-lab] [name=name]", "Lab renamed");
  await session.click("[data-testid=save-provider-lab]");
  await session.waitFor("return document.querySelector('[data-provider=lab] strong')?.textContent === 'Lab renamed' && !document.querySelector('[data-testid=provider-edit-lab]')", {
    what: "the renamed provider",
  });
  assert.match(await session.execute("return document.querySelector('[data-provider=lab]').textContent"), /key stored/, "a blank key kept the stored one");

  // A wrong base URL tests as failed, with the reason.
  await session.click("[data-testid=edit-provider-lab]");
  await setValue(session, "[data-testid=provider-edit-lab] [name=baseUrl]", "http://127.0.0.1:9/v1");
  await session.click("[data-testid=save-provider-lab]");
  await session.waitFor("return !document.querySelector('[data-testid=provider-edit-lab]')", { what: "the edit saved" });
  await session.click("[data-testid=test-provider-lab]");
  await session.waitFor("return document.querySelector('[data-testid=test-result-lab]')?.dataset.ok === 'false'", { what: "the failed test" });
  assert.match(await session.execute("return document.querySelector('[data-testid=test-result-lab]').textContent"), /Could not connect to http:\/\/127\.0\.0\.1:9\/v1/);

  await session.click("[data-testid=delete-provider-lab]");
  await session.click("[data-testid=confirm-delete-yes-lab]");
  await session.waitFor("return !document.querySelector('[data-provider]') && !!document.querySelector('[data-testid=no-providers]')", { what: "the provider gone" });
});

test("? shows the keyboard shortcuts; Ctrl+N starts a chat and Ctrl+1 switches to the first", async () => {
  await session.execute("document.activeElement?.blur()");
  keys("question");
  await session.waitFor("return !!document.querySelector('[data-testid=shortcut-help]')", { what: "the shortcut overlay" });
  const listed = await session.execute("return document.querySelector('[data-testid=shortcut-help]').innerText");
  for (const what of ["New chat", "Switch to chat", "Focus the message box", "Stop the running turn", "Approve / reject", "Open a file"]) assert.match(listed, new RegExp(what));
  await session.cmd("POST", "/window/rect", { width: 640, height: 420 });
  await session.waitFor("return innerWidth <= 640", { what: "the narrow window" });
  await sleep(600);
  await shot("shortcuts-narrow-dark.png");
  const box = await session.execute("const r = document.querySelector('[data-testid=shortcut-help]').getBoundingClientRect(); return { l: r.left, r: r.right, w: innerWidth }");
  assert.ok(box.l >= 0 && box.r <= box.w, `the overlay fits: ${JSON.stringify(box)}`);
  keys("Escape");
  await session.waitFor("return !document.querySelector('[data-testid=shortcut-help]')", { what: "the overlay closed" });
  keys("ctrl+slash");
  await session.waitFor("return !!document.querySelector('[data-testid=shortcut-help]')", { what: "the overlay by Ctrl+/" });
  keys("ctrl+slash");
  await session.waitFor("return !document.querySelector('[data-testid=shortcut-help]')", { what: "the overlay toggled off" });

  keys("ctrl+n");
  const first = await session.waitFor("const m = /^#\\/chat\\/(.+)$/.exec(location.hash); return m && m[1]", { what: "a new chat by Ctrl+N" });
  await session.waitFor("return document.activeElement?.dataset?.testid === 'composer' || !!document.querySelector('[data-testid=composer]')", { what: "the composer" });
  await session.execute("location.hash = '#/settings'");
  await session.waitFor("return !!document.querySelector('[data-testid=provider-form]')", { what: "settings" });
  await sleep(200);
  await session.execute("document.activeElement?.blur()");
  keys("ctrl+1");
  await session.waitFor(`return location.hash === '#/chat/${first}'`, { what: "the first chat by Ctrl+1" });
  keys("ctrl+l");
  await session.waitFor("return document.activeElement?.getAttribute('data-testid') === 'composer'", { what: "the composer focused by Ctrl+L" });
});

test("the navigation collapses to icons and the chat list can be hidden", async () => {
  await session.cmd("POST", "/window/rect", { width: 1100, height: 700 });
  await session.waitFor("return innerWidth > 900", { what: "the wide window" });
  const wide = await session.execute("return document.querySelector('.sidebar').getBoundingClientRect().width");
  await session.click("[data-testid=nav-toggle]");
  const narrow = await session.waitFor("const w = document.querySelector('.sidebar').getBoundingClientRect().width; return w < 80 ? w : null", { what: "the collapsed navigation" });
  assert.ok(narrow < wide, `${narrow} < ${wide}`);
  await session.click("[data-testid=chat-list-toggle]");
  await session.waitFor("const s = document.querySelector('.sessions'); return s && getComputedStyle(s).display === 'none'", { what: "the chat list hidden" });
  await shot("collapsed-dark.png");
  await session.click("[data-testid=chat-list-toggle]");
  await session.click("[data-testid=nav-toggle]");
  await session.waitFor("return document.querySelector('.sidebar').getBoundingClientRect().width > 120", { what: "the navigation expanded" });
});

test("the layout belongs to the data directory: another one starts with its own, this one keeps it", async () => {
  const listShown = "const s = document.querySelector('.sessions'); return s ? getComputedStyle(s).display !== 'none' : null";
  await session.execute("location.hash = '#/chat'");
  await session.waitFor("return !!document.querySelector('[data-testid=chat-list-toggle]')", { what: "the chat page" });
  await session.click("[data-testid=chat-list-toggle]");
  await session.waitFor(`return (() => { ${listShown} })() === false`, { what: "the chat list hidden" });
  // WebKit writes local storage a moment later, off the page's thread.
  await sleep(1500);
  await quit();

  // The webview's storage lived in one directory for every data dir: a
  // list hidden in one (a test, another profile) was hidden in all.
  const other = mkdtempSync(join(tmpdir(), "skald-e2e-other-"));
  try {
    await launch(other, "providers-other");
    await session.waitFor(`return (() => { ${listShown} })() === true`, { what: "the other data dir's chat list, shown" });
    await quit();
  } finally {
    rmSync(other, { recursive: true, force: true });
  }

  await launch(dataDir, "providers-again");
  await session.waitFor(`return (() => { ${listShown} })() === false`, { what: "this data dir's choice, kept" });
  await session.click("[data-testid=chat-list-toggle]");
  await session.waitFor(`return (() => { ${listShown} })() === true`, { what: "the chat list back" });
});
