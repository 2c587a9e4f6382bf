// E2E: the companion tools in the real app. The model writes todos (the
// Todos panel updates live) and the scratchpad; the person edits the entry in
// the Scratchpad panel and the next request the mock receives carries the
// edit; the model asks a question and the person answers by clicking a
// suggestion, which the model then reads as the call's result.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startMockOpenAI, toolCallChunk } from "./helpers.mjs";
import { addMockProvider, newChat, send, setValue } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const workdir = mkdtempSync(join(tmpdir(), "skald-e2e-companion-"));
const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-data-"));

let mock;
let driver;
let session;

function call(id, name, args) {
  return [toolCallChunk(0, { id, name, args: "" }), toolCallChunk(0, { args: JSON.stringify(args) }), { finish_reason: "tool_calls" }];
}

const todos = [
  { content: "Pick a database", status: "in_progress" },
  { content: "Write the schema", status: "pending" },
];

before(async () => {
  mock = await startMockOpenAI([
    call("call_t1", "write_todos", { todos }),
    call("call_s1", "update_scratchpad", { key: "plan", value: "use a database" }),
    // Slow enough for the panel to be seen before the question.
    [300, ...call("call_q1", "ask_user_clarification", { title: "Which database?", question: "Use **SQLite** or Postgres?", suggested_answers: ["SQLite", "Postgres"] })],
    ["SQLite then.", { finish_reason: "stop" }],
    ["Seen the plan.", { finish_reason: "stop" }],
  ]);
  driver = await startDriver({ name: "companion", cwd: workdir, env: { SKALD_DATA_DIR: dataDir } });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
});

test("todos live, a question answered by a suggestion, a scratchpad edit in the next request", async () => {
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "Set up storage.");
  // The todos are a tab of the side panel, which the agent's first todos
  // open on that tab (an empty chat leaves the panel closed).
  await session.waitFor("return !document.querySelector('[data-testid=side-panel]').hidden && document.querySelector('[data-testid=side-pin-tab][data-tab=todos]')?.getAttribute('aria-selected') === 'true'", {
    what: "the panel opened on the new todos",
    timeoutMs: 20_000,
  });

  const progress = await session.waitFor("return document.querySelector('[data-testid=todo-progress]')?.textContent ?? null", {
    what: "the todos panel",
    timeoutMs: 20_000,
  });
  assert.equal(progress, "0/2");
  const card = await session.waitFor(
    "const c = document.querySelector('[data-testid=question-card][data-tool-call=call_q1]'); return c ? Array.from(c.querySelectorAll('[data-testid=question-suggestion]')).map(b => b.textContent) : null",
    { what: "the question card", timeoutMs: 20_000 },
  );
  assert.deepEqual(card, ["SQLite", "Postgres"]);
  // Seen, not only present: the card is laid out on the page.
  const shown = await session.execute(
    "const r = document.querySelector('[data-testid=question-card][data-tool-call=call_q1] [data-testid=question-suggestion]').getBoundingClientRect(); return r.width > 0 && r.height > 0",
  );
  assert.equal(shown, true, "the question's buttons are visible");
  // The scratchpad is a tab of the side panel beside the Todos.
  await session.click("[data-testid=side-pin-tab][data-tab=scratchpad]");
  await session.waitFor("return !!document.querySelector('[data-testid=side-pane-scratchpad] [data-testid=scratch-entry][data-key=plan]')", { what: "the scratchpad entry" });
  mkdirSync(shots, { recursive: true });
  await new Promise((r) => setTimeout(r, 500));
  writeFileSync(join(shots, "companion-question.png"), await session.screenshot());

  await session.execute("document.querySelector('[data-testid=question-card][data-tool-call=call_q1] [data-testid=question-suggestion]').click()");
  await session.waitFor(
    "const ms = document.querySelectorAll('[data-role=assistant]'); return !document.querySelector('[data-testid=turn-running]') && ms[ms.length-1]?.textContent.includes('SQLite then.')",
    { what: "the answer after the question" },
  );
  const afterQuestion = mock.requests[3].messages.at(-1);
  assert.equal(afterQuestion.role, "tool");
  assert.equal(afterQuestion.content, "SQLite");

  // The person edits the scratchpad; the next request carries the edit.
  await setValue(session, "[data-testid=scratch-entry][data-key=plan] [data-testid=scratch-value]", "use SQLite, file in data/");
  await session.execute("document.querySelector('[data-testid=scratch-entry][data-key=plan] [data-testid=scratch-save]').click()");
  await session.waitFor(
    "return document.querySelector('[data-testid=scratch-entry][data-key=plan] [data-testid=scratch-value]')?.dataset.original === 'use SQLite, file in data/'",
    { what: "the saved entry" },
  );
  await send(session, "What is the plan?");
  await session.waitFor(
    "const ms = document.querySelectorAll('[data-role=assistant]'); return ms[ms.length-1]?.textContent.includes('Seen the plan.')",
    { what: "the last answer" },
  );
  const block = mock.requests[4].messages.find((m) => m.role === "system" && m.content.startsWith("<scratchpad>"));
  assert.ok(block, "the scratchpad block in the request");
  assert.match(block.content, /## plan\nuse SQLite, file in data\//);
  writeFileSync(join(shots, "companion-scratchpad.png"), await session.screenshot());
});

test("each companion tool is in the permission matrix with its category, allowed by a seeded rule", async () => {
  await session.execute("location.hash = '#/permissions/default'");
  await session.waitFor("return !!document.querySelector('[data-matrix-tool=show_file_to_user]')", { what: "the permission matrix" });
  const rows = await session.execute(`return Array.from(document.querySelectorAll('[data-matrix-tool]')).map((tr) => [
    tr.dataset.matrixTool, tr.children[1].textContent, tr.querySelector('select').value])`);
  const byName = Object.fromEntries(rows.map(([name, category, action]) => [name, { category, action }]));
  const expected = {
    update_scratchpad: "Introspection",
    write_todos: "Introspection",
    ask_user_clarification: "Introspection",
    notify: "Introspection",
    read_notification: "Introspection",
    show_file_to_user: "Filesystem",
    execute_task: "Subagent",
    list_items: "Introspection",
  };
  for (const [name, category] of Object.entries(expected)) {
    assert.deepEqual(byName[name], { category, action: "allow" }, `${name} in the matrix`);
  }
  // Anything else still asks through the catch-all, not a per-tool rule.
  assert.equal(byName.execute_cmd.action, "require");
});
