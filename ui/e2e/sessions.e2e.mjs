// E2E: the chat list and a chat's own settings in the real app, against the
// scripted mock: New chat reuses an empty chat, rename in place, search by
// content, delete with Undo; the per-chat model switcher (the mock receives
// the picked model, the answer names it, another chat keeps the default);
// and the working directory chosen in the real GTK folder dialog (found and
// typed into with xdotool), which the next request's system prompt names.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, test } from "node:test";
import { addMockProvider, newChat, send, setValue, startMockOpenAI } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-sessions-"));
const picked = join(dataDir, "picked project");
mkdirSync(picked, { recursive: true });

let mock;
let driver;
let session;

async function shot(name) {
  mkdirSync(shots, { recursive: true });
  await sleep(400);
  writeFileSync(join(shots, name), await session.screenshot());
}

const currentId = () => session.execute("return decodeURIComponent(location.hash.replace(/^#\\/chat\\/?/, ''))");
const lastAnswer = "(() => { const m = document.querySelectorAll('[data-role=assistant]'); return m[m.length - 1]; })()";

/** Waits until the last answer is `text`, stored (its usage line read back). */
async function answered(text) {
  return session.waitFor(
    `const m = ${lastAnswer}; return m && m.textContent.includes(${JSON.stringify(text)}) && !document.querySelector('[data-testid=turn-running]') && m.querySelector('[data-testid=msg-usage]')?.textContent`,
    { what: `the answer "${text}" with its usage line` },
  );
}

before(async () => {
  mock = await startMockOpenAI([]);
  driver = await startDriver({ name: "sessions", cwd: dataDir, env: { SKALD_DATA_DIR: dataDir, OLLAMA_HOST: "", OPENAI_BASE_URL: "", OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" } });
  session = await Session.create(driver.base, app);
  await session.waitFor("return !!document.querySelector('[data-testid=new-chat]')", { what: "the chat page" });
  await addMockProvider(session, mock.baseUrl, { name: "Lab", model: "mock-small" });
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("New chat reuses an empty chat; rename, search by content, delete with Undo", async () => {
  await newChat(session);
  const first = await currentId();
  assert.ok(first, "a chat is open");
  await session.click("[data-testid=new-chat]");
  await sleep(500);
  assert.equal(await currentId(), first, "the empty chat is reused, not a second one");
  assert.equal(await session.execute("return document.querySelectorAll('[data-testid=session-list] [data-session]').length"), 1);

  await mock.push(["Zebras are striped."]);
  await send(session, "tell me about the okapi's cousin");
  await answered("Zebras are striped.");

  // Rename in place.
  await session.execute(`document.querySelector('[data-session="${first}"] [data-testid=rename-session]').click()`);
  await session.waitFor("return !!document.querySelector('[data-testid=session-title-input]')", { what: "the title field" });
  await session.execute(
    "const i = document.querySelector('[data-testid=session-title-input]'); i.value = 'Striped animals'; i.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter' }));",
  );
  await session.waitFor(`return document.querySelector('[data-session="${first}"] a')?.textContent === 'Striped animals'`, { what: "the new title" });

  // A second chat, then search by what the first one's answer said.
  await session.click("[data-testid=new-chat]");
  await session.waitFor(`return location.hash !== '#/chat/${first}' && !!document.querySelector('[data-testid=composer]')`, { what: "a second chat" });
  await mock.push(["Nothing about stripes."]);
  await send(session, "something else");
  await answered("Nothing about stripes.");
  const second = await currentId();
  await setValue(session, "[data-testid=session-search]", "zebras");
  await session.waitFor(
    `const items = Array.from(document.querySelectorAll('[data-testid=session-list] [data-session]')); return items.length === 1 && items[0].dataset.session === '${first}' && items[0].querySelector('.session-snippet')?.textContent.includes('Zebras')`,
    { what: "only the first chat, found by its answer's words" },
  );
  await shot("sessions-search.png");
  await setValue(session, "[data-testid=session-search]", "");
  await session.waitFor("return document.querySelectorAll('[data-testid=session-list] [data-session]').length === 2", { what: "every chat again" });

  // Delete with Undo, then for good (the Undo time is 8 s).
  await session.execute(`document.querySelector('[data-session="${first}"] [data-testid=delete-session]').click()`);
  await session.waitFor(`return !document.querySelector('[data-session="${first}"]') && document.querySelector('[data-testid=session-status]').textContent.includes('Deleted “Striped animals”')`, { what: "the chat hidden, Undo offered" });
  await shot("sessions-undo.png");
  await session.click("[data-testid=undo-delete]");
  await session.waitFor(`return !!document.querySelector('[data-session="${first}"]')`, { what: "the chat back after Undo" });
  await sleep(9000);
  assert.ok(await session.execute(`return !!document.querySelector('[data-session="${first}"]')`), "Undo kept it");
  await session.execute(`document.querySelector('[data-session="${first}"] [data-testid=delete-session]').click()`);
  await sleep(9000);
  // Read again from the backend: it is gone for good, the other is not.
  await session.execute("location.hash = '#/inbox'");
  await sleep(300);
  await session.execute(`location.hash = '#/chat/${second}'`);
  await session.waitFor(`return !!document.querySelector('[data-session="${second}"]')`, { what: "the list read again" });
  assert.equal(await session.execute(`return !!document.querySelector('[data-session="${first}"]')`), false, "deleted once the Undo time was over");
});

test("a chat's own model: the next turn asks it, the answer names it, another chat keeps the default", async () => {
  await newChat(session);
  await mock.push(["Default answer."]);
  await send(session, "which model are you");
  const meta = await answered("Default answer.");
  assert.match(meta, /mock-small/, "the answer names the model that wrote it");
  assert.equal(mock.requests.at(-1).model, "mock-small");

  // The switcher lists the provider's models as its endpoint lists them.
  await session.waitFor("return document.querySelector('[data-testid=chat-model]')?.options.length >= 3", { what: "the model switcher's options" });
  const large = await session.execute(
    "return Array.from(document.querySelector('[data-testid=chat-model]').options).find((o) => o.textContent === 'mock-large')?.value",
  );
  assert.ok(large, "mock-large is offered");
  await session.execute("const s = document.querySelector('[data-testid=chat-model]'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));", [large]);
  await sleep(500);
  const switched = await currentId();
  await mock.push(["Large answer."]);
  await send(session, "and now?");
  const meta2 = await answered("Large answer.");
  assert.equal(mock.requests.at(-1).model, "mock-large", "the mock was asked for the picked model");
  assert.match(meta2, /mock-large/);
  await shot("sessions-model-switcher.png");

  // Another chat keeps the default.
  await session.click("[data-testid=new-chat]");
  await session.waitFor(`return location.hash !== '#/chat/${switched}' && !!document.querySelector('[data-testid=composer]')`, { what: "another chat" });
  await mock.push(["Still default."]);
  await send(session, "hello");
  await answered("Still default.");
  assert.equal(mock.requests.at(-1).model, "mock-small");
  assert.equal(await session.execute("return document.querySelector('[data-testid=chat-model]').value"), "", "it follows the default");

  // Back in the switched chat, the pick is remembered.
  await session.execute(`location.hash = '#/chat/${switched}'`);
  await session.waitFor(`return document.querySelector('[data-testid=chat-model]')?.value === ${JSON.stringify(large)}`, { what: "the chat's pick shown again" });
});

test("the working directory is chosen in the native folder dialog, and the next request names it", async () => {
  await newChat(session);
  await session.execute("const d = document.querySelector('[data-testid=session-settings]'); d.open = true;");
  await session.waitFor("return !!document.querySelector('[data-testid=choose-working-dir]')", { what: "the session settings" });
  await session.click("[data-testid=choose-working-dir]");
  // The GTK dialog is a real X window: find it, give it the keyboard, type the path.
  let wid = "";
  for (let i = 0; i < 100 && !wid; i++) {
    try {
      wid = execFileSync("xdotool", ["search", "--onlyvisible", "--name", "Choose the chat's working directory"], { encoding: "utf8" }).trim().split("\n")[0];
    } catch {
      await sleep(200);
    }
  }
  assert.ok(wid, "the folder dialog's window");
  await sleep(800);
  execFileSync("xdotool", ["windowfocus", "--sync", wid]);
  mkdirSync(shots, { recursive: true });
  execFileSync("import", ["-window", "root", join(shots, "sessions-folder-dialog.png")]);
  execFileSync("xdotool", ["key", "--delay", "50", "ctrl+l"]);
  execFileSync("xdotool", ["type", "--delay", "15", `${picked}/`]);
  await sleep(400);
  execFileSync("xdotool", ["key", "Return"]);
  // GTK may take the first Return as "go into the folder": a second one
  // selects it. Only while the dialog is still there.
  let dialogOpen = true;
  for (let i = 0; i < 10 && dialogOpen; i++) {
    await sleep(500);
    dialogOpen = await session.execute("return document.querySelector('[data-testid=working-dir]').value") !== picked;
    if (dialogOpen && i === 3) {
      try {
        execFileSync("xdotool", ["search", "--onlyvisible", "--name", "Choose the chat's working directory"]);
        execFileSync("xdotool", ["key", "Return"]);
      } catch {
        // The dialog is gone already.
      }
    }
  }
  await session.waitFor(`return document.querySelector('[data-testid=working-dir]').value === ${JSON.stringify(picked)}`, { what: "the picked folder in the field" });
  await session.waitFor(`return document.querySelector('[data-testid=session-settings-status]').textContent === ${JSON.stringify(`Working directory: ${picked}`)}`, { what: "saved" });
  await shot("sessions-working-dir.png");
  // The session works there now: the system prompt says so.
  await mock.push(["Noted."]);
  await send(session, "where are we");
  await answered("Noted.");
  const system = mock.requests.at(-1).messages.find((m) => m.role === "system");
  assert.ok(JSON.stringify(system.content).includes(picked), "the request's system prompt names the picked folder");
});
