// E2E: the window at its 640×420 minimum and in the system's dark theme:
// the chat column keeps the width (not 190 px), a wide table and a long URL
// never scroll the chat sideways, a rule's Edit/Delete stay reachable, and
// the dark preference of GTK reaches the page. The side panel holds the
// chat's todos, scratchpad and tasks beside the viewer's files; the chat is a
// column of the window's height at every width; a narrow window's hidden
// panel is one click away in the chat header.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { dragPanelEdge, startMockOpenAI, toolCallChunk } from "./helpers.mjs";
import { addMockProvider, newChat, send } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-data-"));
const wide = "| name | value | description |\n|---|---|---|\n| alpha | 1 | the first letter of the Greek alphabet, used very widely in science |\n| beta | 2 | second |";
const url = "https://example.com/a/very/long/path/that/keeps/going/and/going/without/any/break/at/all/really/truly";

const todos = [
  { content: "Measure the chat", status: "in_progress" },
  { content: "Resize the panel", status: "pending" },
];

/** 40 words, 120 ms apart: long enough to look at the answer while it streams. */
function slowAnswer() {
  const steps = [];
  for (let i = 0; i < 40; i++) steps.push(`word${i} `, 120);
  steps.push("Done.", { finish_reason: "stop" });
  return steps;
}

let mock;
let driver;
let session;

before(async () => {
  mock = await startMockOpenAI([
    [`A table:\n\n${wide}\n\nand ${url}`, { finish_reason: "stop" }],
    // The side panel's test: the agent writes todos, then answers slowly.
    [toolCallChunk(0, { id: "call_todos", name: "write_todos", args: JSON.stringify({ todos }) }), { finish_reason: "tool_calls" }],
    slowAnswer(),
  ]);
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

async function shot(name) {
  await new Promise((r) => setTimeout(r, 400));
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, `${name}.png`), await session.screenshot());
}

async function windowSize(width, height) {
  await session.cmd("POST", "/window/rect", { width, height });
  await session.waitFor(`return Math.abs(innerWidth - ${width}) < 40 && Math.abs(innerHeight - ${height}) < 80`, { what: `a ${width}×${height} window` });
}

const widths = () =>
  session.execute(`const p = document.querySelector('[data-testid=side-panel]');
    return { panel: p.hidden ? 0 : Math.round(p.getBoundingClientRect().width), chat: Math.round(document.querySelector('[data-testid=conversation]').getBoundingClientRect().width) };`);

test("the side panel holds the chat's todos, scratchpad and tasks; the chat is a fixed column; a narrow window gets a count and an overlay", async () => {
  await windowSize(1600, 900);
  // The webview's storage outlives a run: start from no remembered panel.
  await session.execute("for (const k of ['skald.sidePanelWidth', 'skald.sidePanelHidden', 'skald.sidePanelTab', 'skald.sidePanelPinnedOpen']) localStorage.removeItem(k); location.reload()");
  await new Promise((r) => setTimeout(r, 1000));
  await newChat(session);
  assert.equal(await session.execute("return document.querySelector('[data-testid=side-panel]').hidden"), true, "a new chat's empty tabs leave the panel closed");
  await send(session, "Plan the work.");
  // The model's name is on the answer while it streams (not only once the turn ends).
  const named = await session.waitFor("return document.querySelector('[data-role=streaming] [data-testid=streaming-model]')?.textContent ?? null", {
    what: "the model on the streaming answer",
    timeoutMs: 20_000,
  });
  assert.equal(named, "mock-model");
  assert.ok(await session.execute("return !!document.querySelector('[data-testid=turn-running]')"), "named while the turn still runs");
  await shot("layout-dark-1600-streaming");

  // The todos the agent wrote, in the side panel's Todos tab.
  await session.waitFor("return !!document.querySelector('[data-testid=side-pin-tab][data-tab=todos]')", { what: "the Todos tab" });
  // The chat's tabs alone leave the panel closed (no empty todo list takes
  // the chat's room); the todos the agent writes open it on their tab.
  await session.waitFor("return !document.querySelector('[data-testid=side-panel]').hidden", { what: "the panel opened by the new todos", timeoutMs: 20_000 });
  await session.click("[data-testid=side-pin-tab][data-tab=todos]");
  const todo = await session.waitFor(
    "const p = document.querySelector('[data-testid=side-panel]:not([hidden]) [data-testid=side-pane-todos]'); return p && p.querySelector('[data-testid=todo-progress]')?.textContent === '0/2' ? p.innerText : null",
    { what: "the todos in the side panel", timeoutMs: 20_000 },
  );
  assert.match(todo, /Measure the chat/);
  assert.match(todo, /Resize the panel/);
  await session.waitFor("return !document.querySelector('[data-testid=turn-running]')", { what: "the turn's end", timeoutMs: 30_000 });
  const tabs = await session.execute("return Array.from(document.querySelectorAll('[data-testid=side-pin-tab]')).map((t) => t.dataset.tab)");
  assert.deepEqual(tabs, ["todos", "scratchpad", "tasks"]);
  await session.click("[data-testid=side-pin-tab][data-tab=tasks]");
  await session.waitFor("return !!document.querySelector('[data-testid=side-pane-tasks] [data-testid=tasks-running]')", { what: "the Tasks tab's list" });
  await session.click("[data-testid=side-pin-tab][data-tab=todos]");

  // Dragged 200 px narrower, the panel gives that much to the chat; the width survives a reload.
  const before = await widths();
  await dragPanelEdge(session, 200);
  const dragged = await widths();
  assert.ok(Math.abs(before.panel - dragged.panel - 200) <= 4, `panel ${before.panel} -> ${dragged.panel}`);
  assert.ok(Math.abs(dragged.chat - before.chat - 200) <= 6, `chat ${before.chat} -> ${dragged.chat}`);
  await session.execute("location.reload()");
  await new Promise((r) => setTimeout(r, 1000));
  await session.waitFor("return !!document.querySelector('[data-testid=side-panel]:not([hidden]) [data-testid=todo-progress]')", { what: "the reloaded chat with its panel" });
  assert.deepEqual(await widths(), dragged, "the panel's width and the chat's after the reload");

  // A long conversation in the chat narrowed by the widest panel: the list scrolls, never the page.
  const edge = await session.element("[data-testid=side-resizer]");
  await session.cmd("POST", `/element/${edge}/value`, { text: "\uE011" });
  const sid = await session.execute("return location.hash.split('/')[2]");
  execFileSync("sqlite3", [
    join(dataDir, "skald.db"),
    ".timeout 5000",
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200)
     INSERT INTO chat_history (session_id, stack_id, role, content, created_at)
     SELECT '${sid}', (SELECT stack_id FROM chat_history WHERE session_id = '${sid}' LIMIT 1),
            CASE WHEN i % 2 = 1 THEN 'user' ELSE 'assistant' END,
            CASE WHEN i % 2 = 1 THEN 'Old question ' || i ELSE 'Old answer ' || i || ':\n\n- one\n- two\n- three' END,
            0 FROM n`,
  ]);
  await session.execute("location.hash = '#/inbox'");
  await session.waitFor("return !document.querySelector('[data-testid=composer]')", { what: "the Inbox" });
  await session.execute(`location.hash = '#/chat/${sid}'`);
  await session.waitFor("return document.querySelector('[data-testid=conversation]')?.textContent.includes('Old answer 200')", { what: "the long conversation" });
  await new Promise((r) => setTimeout(r, 500));
  const m = await session.execute(`
    const c = document.querySelector('[data-testid=conversation]');
    const page = document.getElementById('page');
    const s = document.scrollingElement;
    const before = c.scrollTop;
    c.scrollTop = 0;
    const moved = before - c.scrollTop;
    c.scrollTop = c.scrollHeight;
    return { doc: s.scrollHeight, inner: innerHeight, page: page.scrollHeight - page.clientHeight, list: c.scrollHeight - c.clientHeight, moved,
      chat: Math.round(c.getBoundingClientRect().width), composer: document.querySelector('[data-testid=composer]').getBoundingClientRect().bottom };`);
  console.log(`1600×900, widest panel: ${JSON.stringify(m)}`);
  assert.equal(m.doc, m.inner, "the document does not scroll");
  assert.ok(m.page <= 1, `the page does not scroll: ${m.page} px`);
  assert.ok(m.list > 1000 && m.moved > 1000, `the message list scrolls: ${m.list} px, moved ${m.moved}`);
  assert.ok(m.composer <= m.inner, "the composer is at the bottom, on screen");
  await shot("layout-dark-1600-long");

  await windowSize(1100, 720);
  assert.equal(await session.execute("return document.scrollingElement.scrollHeight === innerHeight && document.getElementById('page').scrollHeight <= document.getElementById('page').clientHeight + 1"), true, "1100×720: no page scroll");
  await shot("layout-dark-1100");

  // Below 880 px the panel hides; the chat header says how many tabs it has and opens it over the chat.
  await windowSize(700, 720);
  await session.waitFor("return getComputedStyle(document.querySelector('[data-testid=side-panel]')).display === 'none'", { what: "the panel giving way" });
  const count = await session.waitFor("const c = document.querySelector('[data-testid=side-panel-toggle] [data-testid=side-panel-count]'); return c && c.getBoundingClientRect().width > 0 ? c.textContent : null", {
    what: "the panel's tab count in the chat header",
  });
  assert.equal(count, "3");
  await session.click("[data-testid=side-panel-toggle]");
  const overlay = await session.waitFor(
    "const p = document.querySelector('[data-testid=side-panel]'); const s = getComputedStyle(p); return s.display !== 'none' && s.position === 'fixed' ? Math.round(p.getBoundingClientRect().width) : null",
    { what: "the panel as an overlay" },
  );
  assert.ok(overlay >= 280 && overlay <= 700 - 96, `overlay ${overlay} px`);
  assert.ok(await session.execute("return !!document.querySelector('[data-testid=side-pane-todos] [data-testid=todo-progress]')"), "its todos");
  await shot("layout-dark-700-overlay");
  await session.click("[data-testid=side-hide]");
  await session.waitFor("return getComputedStyle(document.querySelector('[data-testid=side-panel]')).display === 'none'", { what: "the overlay closed" });

  await windowSize(640, 420);
  assert.equal(await session.execute("return document.scrollingElement.scrollHeight === innerHeight && document.querySelector('[data-testid=composer]').getBoundingClientRect().bottom <= innerHeight"), true, "640×420: no page scroll, the composer on screen");
  await session.click("[data-testid=side-panel-toggle]");
  await session.waitFor("return getComputedStyle(document.querySelector('[data-testid=side-panel]')).display !== 'none'", { what: "the overlay at 640×420" });
  await shot("layout-dark-640-overlay");
  // A press on the strip of chat the overlay leaves closes it.
  await session.cmd("POST", "/actions", {
    actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [{ type: "pointerMove", duration: 0, origin: "viewport", x: 40, y: 300 }, { type: "pointerDown", button: 0 }, { type: "pointerUp", button: 0 }] }],
  });
  await session.cmd("DELETE", "/actions").catch(() => undefined);
  await session.waitFor("return getComputedStyle(document.querySelector('[data-testid=side-panel]')).display === 'none'", { what: "the overlay closed by a press beside it" });
  await shot("layout-dark-640");
});
