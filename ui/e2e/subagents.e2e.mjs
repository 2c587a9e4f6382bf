// E2E: a delegation in the real app. The root agent calls execute_task
// (sync) to code-explorer; it runs without asking (a seeded rule: the
// sub-agent's own calls are the ones gated), the sub-agent's own card
// appears live inside the execute_task card while it runs, and its answer
// comes back as the delegation's result before the final answer. After the
// turn and after a page reload the nested card is still there (the history
// carries each sub-agent's transcript under its call).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startMockOpenAI, toolCallChunk } from "./helpers.mjs";
import { addMockProvider, newChat, send } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const workdir = mkdtempSync(join(tmpdir(), "skald-e2e-sub-"));
writeFileSync(join(workdir, "notes.md"), "# Notes\n\nThe code word is nested-skald.\n");
const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-sub-data-"));

const task = JSON.stringify({
  mode: "sync",
  title: "Find the code word",
  prompt: "Read notes.md and tell me the code word.",
  agent_id: "code-explorer",
});

let mock;
let driver;
let session;

before(async () => {
  mock = await startMockOpenAI([
    // main delegates
    [toolCallChunk(0, { id: "call_task", name: "execute_task", args: task }), { finish_reason: "tool_calls" }],
    // code-explorer reads the notes…
    [toolCallChunk(0, { id: "call_read", name: "read_file", args: '{"path": "notes.md"}' }), { finish_reason: "tool_calls" }],
    // …and answers slowly, so the nested card can be seen while it runs
    [3000, "The code word is nested-skald.", { finish_reason: "stop" }],
    // main answers with the result
    ["The explorer says: **nested-skald**.", { finish_reason: "stop" }],
  ]);
  driver = await startDriver({ name: "subagents", cwd: workdir, env: { SKALD_DATA_DIR: dataDir } });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
});

test("a delegation's sub-agent cards appear live inside its execute_task card", async () => {
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "Ask the explorer for the code word in notes.md.");

  // The delegation starts without asking, under its label.
  await session.waitFor("return !!document.querySelector('.tool-card[data-tool-call=call_task] .tool-label')", {
    what: "the execute_task card",
  });
  const label = await session.execute(
    "return document.querySelector('.tool-card[data-tool-call=call_task] .tool-label').textContent",
  );
  assert.equal(label, "execute_task ⚡ → code-explorer: Find the code word");
  assert.equal(
    await session.execute("return !!document.querySelector('[data-testid=approval][data-tool-call=call_task]')"),
    false,
    "a delegation is not asked about",
  );

  // While the delegation runs, the sub-agent's read_file card is inside it.
  const live = await session.waitFor(
    `const task = document.querySelector('.tool-card[data-tool-call=call_task]');
     const sub = task?.querySelector('[data-sub-agent=code-explorer]');
     const read = sub?.querySelector('.tool-card[data-tool-name=read_file] .tool-status');
     return read?.dataset.status === 'done' && task.querySelector(':scope > summary .tool-status').dataset.status === 'running'
       ? sub.querySelector('.tool-section').textContent : null`,
    { what: "the sub-agent's card inside the running delegation", timeoutMs: 20_000 },
  );
  assert.equal(live, "↳ code-explorer — working");
  await session.execute("document.querySelector('.tool-card[data-tool-call=call_task]').open = true");
  await new Promise((r) => setTimeout(r, 500));
  mkdirSync(shots, { recursive: true });
  let file = join(shots, "subagent-running.png");
  writeFileSync(file, await session.screenshot());
  console.log(`screenshot: ${file}`);

  // The sub-agent's answer is the delegation's result; then the final answer.
  const answer = await session.waitFor(
    "const ms = document.querySelectorAll('[data-role=assistant] .md strong'); const t = ms.length ? ms[ms.length-1].textContent : ''; return !document.querySelector('[data-testid=turn-running]') && t === 'nested-skald' ? t : null",
    { what: "the final answer", timeoutMs: 20_000 },
  );
  assert.equal(answer, "nested-skald");
  const result = await session.execute(
    "return document.querySelector('.tool-card[data-tool-call=call_task] > .tool-body > .tool-result')?.textContent",
  );
  assert.equal(result, "The code word is nested-skald.");
  // The sub-agent had its own prompt and conversation.
  assert.equal(mock.requests.length, 4);
  assert.match(mock.requests[1].messages[0].content, /^You are a code explorer/);
  assert.equal(mock.requests[1].messages[1].content, "Read notes.md and tell me the code word.");
  assert.equal(mock.requests[3].messages.at(-1).content, "The code word is nested-skald.");
  await session.execute("document.querySelector('.tool-card[data-tool-call=call_task]').open = true");
  await new Promise((r) => setTimeout(r, 500));
  file = join(shots, "subagent-done.png");
  writeFileSync(file, await session.screenshot());
  console.log(`screenshot: ${file}`);
});

// The turn's end reloads the history; a page reload reads it again. Before,
// the history had no sub-agent transcripts and the nested cards vanished.
const nestedRead = `const task = document.querySelector('.tool-card[data-tool-call=call_task]');
  const sub = task?.querySelector(':scope > .tool-body [data-sub-agent=code-explorer]');
  const read = sub?.querySelector('.tool-card[data-tool-name=read_file]');
  return read && read.querySelector('.tool-status').dataset.status === 'done'
    ? { head: sub.querySelector('.tool-section').textContent, label: read.querySelector('.tool-label').textContent,
        answer: sub.querySelector('[data-role=assistant] .md')?.textContent.trim() ?? null, open: task.open }
    : null`;

test("after the turn and after a page reload, the sub-agent's cards are still inside the delegation's card", async () => {
  // The history reloaded when the turn ended.
  const ended = await session.waitFor(nestedRead, { what: "the nested card after the turn ended" });
  assert.equal(ended.head, "↳ code-explorer — finished");
  assert.equal(ended.label, "read_file notes.md");
  assert.equal(ended.answer, "The code word is nested-skald.");

  await session.execute("location.reload()");
  await session.waitFor("return document.querySelectorAll('[data-role=assistant] .md strong').length > 0", {
    what: "the chat after a reload",
  });
  const reloaded = await session.waitFor(nestedRead, { what: "the nested card after a reload" });
  assert.deepEqual(reloaded, { ...ended, open: false }, "the same nested transcript, collapsed");
  await session.execute("document.querySelector('.tool-card[data-tool-call=call_task]').open = true");
  await new Promise((r) => setTimeout(r, 500));
  const file = join(shots, "subagent-reloaded.png");
  writeFileSync(file, await session.screenshot());
  console.log(`screenshot: ${file}`);
});
