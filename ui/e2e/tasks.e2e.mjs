// E2E: an async task in the real app. The root agent starts a background
// task (execute_task async) and finishes its turn; the Tasks view shows the
// task running, then done with a link to its transcript; its result arrives
// in the chat by itself as a task_completed card, and the root agent's turn
// resumes on it. The task's session is not in the chat list but opens from
// its link; Settings › Time zone sets the zone cron jobs use.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { addMockProvider, newChat, send, startMockOpenAI, toolCallChunk } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const workdir = mkdtempSync(join(tmpdir(), "skald-e2e-tasks-"));
const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-tasks-data-"));
const prompt = "List the files in the project and count them.";
const task = JSON.stringify({ mode: "async", title: "Count files", prompt, agent_id: "code-explorer" });

let mock;
let driver;
let session;

before(async () => {
  mock = await startMockOpenAI(
    [
      // main starts the task…
      [toolCallChunk(0, { id: "call_bg", name: "execute_task", args: task }), { finish_reason: "tool_calls" }],
      // …and ends its turn at once
      ["Started the count in the background.", { finish_reason: "stop" }],
      // main, resumed by the task's ending
      ["The background count says **3 files**.", { finish_reason: "stop" }],
    ],
    {
      routes: [
        {
          // the task's own agent: slow, so the Tasks view sees it running
          when: { user_contains: prompt },
          reply: [6000, "There are 3 files.", { finish_reason: "stop" }],
        },
      ],
    },
  );
  driver = await startDriver({ name: "tasks", cwd: workdir, env: { SKALD_DATA_DIR: dataDir } });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
});

async function shot(name) {
  mkdirSync(shots, { recursive: true });
  const file = join(shots, name);
  writeFileSync(file, await session.screenshot());
  console.log(`screenshot: ${file}`);
}

test("an async task runs in the Tasks view and its result arrives in the chat", async () => {
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "Count the files in the background, please.");

  // Started (approved if the rules ask), under its 🚀 label.
  await session.waitFor(
    `const a = document.querySelector('[data-testid=approval][data-tool-call=call_bg] [data-testid=approve]');
     if (a) a.click();
     return document.querySelector('.tool-card[data-tool-call=call_bg] .tool-status')?.dataset.status === 'done'`,
    { what: "the execute_task card done", timeoutMs: 20_000 },
  );
  const label = await session.execute(
    "return document.querySelector('.tool-card[data-tool-call=call_bg] .tool-label').textContent",
  );
  assert.equal(label, "execute_task 🚀 → code-explorer: Count files");
  const parent = await session.execute("return location.hash");

  // The Tasks view: running…
  await session.execute("location.hash = '#/tasks'");
  await session.waitFor(
    "return document.querySelector('[data-testid=tasks-running] [data-testid=task-item][data-state=running]')",
    { what: "the task running in the Tasks view", timeoutMs: 10_000 },
  );
  const title = await session.execute(
    "return document.querySelector('[data-testid=tasks-running] [data-testid=task-title]').textContent",
  );
  assert.equal(title, "Count files");
  await shot("tasks-running.png");

  // …then finished, with its outcome and transcript.
  await session.waitFor(
    "return document.querySelector('[data-testid=tasks-finished] [data-testid=task-item][data-state=done]')",
    { what: "the task done in the Tasks view", timeoutMs: 30_000 },
  );
  const outcome = await session.execute(
    "return document.querySelector('[data-testid=tasks-finished] [data-testid=task-outcome]').textContent",
  );
  assert.match(outcome, /done/);
  const transcript = await session.execute(
    "return document.querySelector('[data-testid=tasks-finished] [data-testid=task-transcript]').getAttribute('href')",
  );
  assert.match(transcript, /^#\/chat\/.+/);
  assert.notEqual(transcript, parent);
  await shot("tasks-done.png");

  // The result arrived in the chat by itself, and the agent answered it.
  await session.execute("document.querySelector('[data-testid=tasks-finished] [data-testid=task-parent]').click()");
  const answer = await session.waitFor(
    "const ms = document.querySelectorAll('[data-role=assistant] .md strong'); const t = ms.length ? ms[ms.length-1].textContent : ''; return t === '3 files' ? t : null",
    { what: "the resumed answer", timeoutMs: 20_000 },
  );
  assert.equal(answer, "3 files");
  const delivered = await session.execute(
    "const c = Array.from(document.querySelectorAll('.tool-card')).find((c) => c.querySelector('.tool-label')?.textContent.startsWith('task_completed')); return c ? c.querySelector('.tool-label').textContent : null",
  );
  assert.equal(delivered, "task_completed 🚀 → code-explorer: Count files");
  await shot("task-result-in-chat.png");
  // The chat list has the conversation, not the task's session…
  const listed = await session.execute(
    "return Array.from(document.querySelectorAll('[data-testid=session-list] [data-session]')).map((li) => li.dataset.session)",
  );
  const bgId = transcript.slice("#/chat/".length);
  assert.ok(listed.includes(parent.slice("#/chat/".length)), `${listed}`);
  assert.ok(!listed.includes(bgId), `${listed}`);
  // …whose transcript opens from the Tasks view's link.
  await session.execute(`location.hash = ${JSON.stringify(transcript)}`);
  await session.waitFor(
    "return Array.from(document.querySelectorAll('[data-role=assistant] .md')).some((m) => m.textContent.includes('There are 3 files.'))",
    { what: "the task's transcript", timeoutMs: 10_000 },
  );

  // Settings › Time zone: cron jobs from now on run in the chosen zone.
  await session.execute("location.hash = '#/settings'");
  await session.waitFor("return document.querySelector('[data-testid=time-zone-current]')", {
    what: "the time zone setting",
    timeoutMs: 10_000,
  });
  await session.execute(
    `const i = document.querySelector('[data-testid=time-zone-input]');
     i.value = 'Asia/Tokyo';
     i.dispatchEvent(new Event('input', { bubbles: true }));
     document.querySelector('[data-testid=time-zone-save]').click();`,
  );
  await session.waitFor(
    "return document.querySelector('[data-testid=time-zone-current]').textContent.includes('Asia/Tokyo')",
    { what: "the chosen time zone", timeoutMs: 10_000 },
  );
  await shot("settings-time-zone.png");
  // The task's agent had its own prompt and conversation.
  const worker = mock.requests.find((r) => r.messages.some((m) => m.role === "user" && m.content === prompt));
  assert.match(worker.messages[0].content, /^You are a code explorer/);
  assert.equal(mock.requests.length, 4);
});
