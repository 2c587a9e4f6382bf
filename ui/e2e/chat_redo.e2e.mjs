// E2E: a turn that failed is tried again with its Retry button. The mock
// refuses the first request with a 400 (an error that is not retried on its
// own); the chat keeps the message with the error and a Retry button, and
// Retry asks again with the same message and shows the answer. Then, in the
// window's 640×420 minimum and the dark theme: an approved edit keeps its
// diff on the card, a stopped command says why on its card, and nothing of
// the chat is cut off or scrolls sideways.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { addMockProvider, inViewScript, newChat, send, startMockOpenAI, toolCallChunk } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const workdir = mkdtempSync(join(tmpdir(), "skald-e2e-redo-"));
writeFileSync(join(workdir, "greeting.txt"), "first line\nhelo world\nlast line\n");
const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-data-"));

let mock;
let driver;
let session;

before(async () => {
  mock = await startMockOpenAI([
    { status: 400, json: { error: { message: "model mock-model is not enabled for this key" } } },
    ["Recovered: ", "the answer after Retry.", { finish_reason: "stop" }],
    // An edit, approved: its card keeps the diff.
    [
      "I will fix the greeting in `src/a-rather-long-directory-name/another-long-directory-name/greeting.txt`.",
      toolCallChunk(0, { id: "call_edit", name: "edit_file", args: JSON.stringify({ path: "greeting.txt", old_string: "helo", new_string: "hello" }) }),
      { finish_reason: "tool_calls" },
    ],
    ["Fixed the typo.", { finish_reason: "stop" }],
    // A command, approved, then stopped while it runs.
    [toolCallChunk(0, { id: "call_sleep", name: "execute_cmd", args: JSON.stringify({ command: "echo started; sleep 60" }) }), { finish_reason: "tool_calls" }],
    ["never asked for", { finish_reason: "stop" }],
  ]);
  driver = await startDriver({ name: "chat_redo", cwd: workdir, env: { SKALD_DATA_DIR: dataDir, GTK_THEME: "Adwaita:dark" } });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
});

test("a failed turn keeps its error with Retry; Retry asks again and the answer appears", async () => {
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "What is the answer?");
  const error = await session.waitFor(
    "return !document.querySelector('[data-testid=turn-running]') && document.querySelector('[data-testid=retry]') ? document.querySelector('[data-testid=conversation]').innerText : null",
    { what: "the failure with Retry", timeoutMs: 20_000 },
  );
  assert.match(error, /not enabled for this key/);
  assert.equal(mock.requests.length, 1, "a 400 is not retried on its own");
  // The message stays in the chat, once.
  assert.deepEqual(await session.execute("return Array.from(document.querySelectorAll('[data-role=user]')).map(m => m.querySelector('.text')?.textContent)"), [
    "What is the answer?",
  ]);
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, "chat-failed-retry.png"), await session.screenshot());

  await session.click("[data-testid=retry]");
  await session.waitFor(
    "const ms = document.querySelectorAll('[data-role=assistant]'); return !document.querySelector('[data-testid=turn-running]') && ms[ms.length-1]?.textContent.includes('the answer after Retry.')",
    { what: "the answer after Retry", timeoutMs: 20_000 },
  );
  assert.equal(mock.requests.length, 2);
  const users = mock.requests[1].messages.filter((m) => m.role === "user").map((m) => m.content);
  assert.deepEqual(users, ["What is the answer?"], "Retry sends the same message, once");
  // The failure and its Retry are gone; the message is still there once.
  assert.equal(await session.execute("return document.querySelectorAll('[data-testid=retry]').length"), 0);
  assert.doesNotMatch(await session.execute("return document.querySelector('[data-testid=conversation]').innerText"), /not enabled for this key/);
  assert.equal(await session.execute("return document.querySelectorAll('[data-role=user]').length"), 1);
});

/** What of the chat sticks out of the window or scrolls sideways: a list of
 *  "what: how" strings, empty when everything fits. */
const cutOff = `
  const out = [];
  const c = document.querySelector('[data-testid=conversation]');
  if (c.scrollWidth - c.clientWidth > 1) out.push('conversation scrolls sideways by ' + (c.scrollWidth - c.clientWidth));
  const box = c.getBoundingClientRect();
  for (const b of document.querySelectorAll('.chat-main button, .chat-main input, .chat-main textarea')) {
    const r = b.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.right > innerWidth + 1 || r.left < -1) out.push((b.dataset.testid || b.textContent || b.className) + ': ' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + innerWidth);
    if (c.contains(b) && (r.right > box.right + 1 || r.left < box.left - 1)) out.push((b.dataset.testid || b.textContent || b.className) + ' past the conversation');
  }
  return out;`;

test("at 640×420 in dark mode: an approved edit keeps its diff, a stopped command says why, nothing is cut off", async () => {
  assert.equal(await session.execute("return matchMedia('(prefers-color-scheme: dark)').matches"), true);
  await session.cmd("POST", "/window/rect", { width: 640, height: 420 });
  await session.waitFor("return innerWidth <= 640", { what: "the narrow window" });

  await send(session, "Fix the typo in greeting.txt.");
  const approval = "[data-testid=approval][data-tool-call=call_edit]";
  await session.waitFor(`return !!document.querySelector('${approval} [data-testid=diff]')`, { what: "the edit's approval", timeoutMs: 20_000 });
  await session.waitFor(inViewScript(approval), { what: "the approval in view", timeoutMs: 3_000 });
  // The chat, not the page, scrolls: the composer and Send stay in the window.
  const composer = await session.execute(
    "const s = document.querySelector('[data-testid=send]').getBoundingClientRect(); return { bottom: s.bottom, inner: innerHeight };",
  );
  assert.ok(composer.bottom <= composer.inner, `Send ends at ${composer.bottom} of ${composer.inner}`);
  // And the conversation keeps most of the window's height.
  const convHeight = await session.execute("return document.querySelector('[data-testid=conversation]').clientHeight");
  assert.ok(convHeight >= 150, `the conversation is ${convHeight} px high`);
  await new Promise((r) => setTimeout(r, 500));
  writeFileSync(join(shots, "narrow-dark-approval.png"), await session.screenshot());
  assert.deepEqual(await session.execute(cutOff), []);
  await session.click(`${approval} [data-testid=approve]`);
  await session.waitFor(
    "const ms = document.querySelectorAll('[data-role=assistant]'); return !document.querySelector('[data-testid=turn-running]') && ms[ms.length-1]?.textContent.includes('Fixed the typo.')",
    { what: "the answer after the edit" },
  );
  assert.equal(readFileSync(join(workdir, "greeting.txt"), "utf8"), "first line\nhello world\nlast line\n");
  // The card, done, still shows what changed (read again from the history).
  const diff = await session.execute(
    "const d = document.querySelector('.tool-card[data-tool-call=call_edit] [data-testid=write-diff] .diff'); return d ? Array.from(d.children).map(r => r.textContent) : null",
  );
  assert.deepEqual(diff, ["  first line", "- helo world", "+ hello world", "  last line"]);
  assert.equal(await session.execute("return document.querySelector('.tool-card[data-tool-call=call_edit] .tool-status').dataset.status"), "done");
  await session.execute("document.querySelector('.tool-card[data-tool-call=call_edit]').scrollIntoView()");
  await new Promise((r) => setTimeout(r, 300));
  writeFileSync(join(shots, "narrow-dark-edit-diff.png"), await session.screenshot());

  // A command that runs until stopped: its card says why it ended.
  await send(session, "Run the long job.");
  const cmd = ".tool-card[data-tool-call=call_sleep]";
  await session.waitFor(
    `const a = document.querySelector('[data-testid=approval][data-tool-call=call_sleep] [data-testid=approve]');
     if (a) a.click();
     return (document.querySelector('${cmd} [data-testid=live-output]')?.textContent ?? '').includes('started')`,
    { what: "the command running", timeoutMs: 20_000 },
  );
  await session.click("[data-testid=stop]");
  const why = await session.waitFor(
    `return !document.querySelector('[data-testid=turn-running]') && document.querySelector('${cmd} .tool-status')?.dataset.status === 'cancelled' ? document.querySelector('${cmd} [data-testid=tool-why]')?.textContent : null`,
    { what: "the stopped command's card", timeoutMs: 10_000 },
  );
  assert.match(why, /stopped this call before it finished/);
  // Said on the card itself, seen with the card closed.
  await session.execute(`document.querySelector('${cmd}').open = false; document.querySelector('${cmd}').scrollIntoView()`);
  assert.equal(await session.execute(`return !!document.querySelector('${cmd} [data-testid=tool-why]').closest('.tool-body')`), false);
  assert.ok(await session.execute(`const r = document.querySelector('${cmd} [data-testid=tool-why]').getBoundingClientRect(); return r.height > 0`), "the reason is shown");
  await new Promise((r) => setTimeout(r, 300));
  writeFileSync(join(shots, "narrow-dark-stopped.png"), await session.screenshot());
  assert.deepEqual(await session.execute(cutOff), []);
});
