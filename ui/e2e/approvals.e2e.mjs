// E2E: approvals in the real app. The model asks to write a file; the card
// shows the diff; approving writes it. A second write is rejected with a note,
// and the model's next request carries exactly that note. Then: two waiting
// cards answered by keyboard (A, R), three approved with one click, a
// "Don't ask" bypass shown on the chat until "Ask again" ends it, and two
// writes of one message asked at once, approved with one click, their
// diffs still on the cards after a reload.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startMockOpenAI, toolCallChunk } from "./helpers.mjs";
import { addMockProvider, inViewScript, newChat, pressKey, send, setValue } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const workdir = mkdtempSync(join(tmpdir(), "skald-e2e-approve-"));
writeFileSync(join(workdir, "hello.txt"), "old line\nkept line\n");
writeFileSync(join(workdir, "two-a.txt"), "before\nsame\n");
const dataDir = mkdtempSync(join(tmpdir(), "skald-e2e-data-"));

let mock;
let driver;
let session;

function writeCall(id, path, content) {
  return [
    toolCallChunk(0, { id, name: "write_file", args: "" }),
    toolCallChunk(0, { args: JSON.stringify({ path, content }) }),
    { finish_reason: "tool_calls" },
  ];
}

/** Several write_file calls in one message. */
function writeCalls(...calls) {
  return [...calls.map(([id, path, content], i) => toolCallChunk(i, { id, name: "write_file", args: JSON.stringify({ path, content }) })), { finish_reason: "tool_calls" }];
}

/** Sync delegations to software-engineer, one per task word, in one message. */
function delegations(tasks) {
  return [
    ...tasks.map((t, i) =>
      toolCallChunk(i, {
        id: `call_task_${t}`,
        name: "execute_task",
        args: JSON.stringify({ mode: "sync", title: `Task ${t}`, prompt: `Do ${t}: write the file you are told.`, agent_id: "software-engineer" }),
      }),
    ),
    { finish_reason: "tool_calls" },
  ];
}

/** A plan long enough that the chat scrolls. */
const plan = `My plan:\n\n${Array.from({ length: 40 }, (_, i) => `- step ${i + 1}`).join("\n")}\n\n`;

before(async () => {
  mock = await startMockOpenAI([
    ["I will update it.", ...writeCall("call_w1", "hello.txt", "new line\nkept line\n")],
    ["Updated hello.txt.", { finish_reason: "stop" }],
    ["Writing another.", ...writeCall("call_w2", "second.txt", "second\n")],
    ["Understood, I did not write it.", { finish_reason: "stop" }],
    // By keyboard, then approve all: delegations run side by side, so their
    // sub-agents' writes wait at once (routed below by the sub-agent's task).
    [plan, ...delegations(["KEYS-A", "KEYS-B"])],
    ["Wrote keys-a.txt only.", { finish_reason: "stop" }],
    delegations(["ALL-1", "ALL-2", "ALL-3"]),
    ["All three written.", { finish_reason: "stop" }],
    // Under a bypass, then after "Ask again".
    writeCalls(["call_by1", "bypassed.txt", "no question\n"]),
    ["Wrote it without asking.", { finish_reason: "stop" }],
    writeCalls(["call_by2", "asked.txt", "asked\n"]),
    ["Wrote it after you approved.", { finish_reason: "stop" }],
    // Two writes of one message: both asked at once.
    ["Writing both.", ...writeCalls(["call_m1", "two-a.txt", "after\nsame\n"], ["call_m2", "two-b.txt", "brand new\n"])],
    ["Both written.", { finish_reason: "stop" }],
  ], {
    routes: [
      ...[["KEYS-A", "call_k1", "keys-a.txt", "A\n"], ["KEYS-B", "call_k2", "keys-b.txt", "B\n"], ["ALL-1", "call_all1", "all-1.txt", "1\n"], ["ALL-2", "call_all2", "all-2.txt", "2\n"], ["ALL-3", "call_all3", "all-3.txt", "3\n"]].map(
        ([task, id, path, content]) => ({ when: { last_user_contains: task }, replies: [writeCalls([id, path, content]), [`${task} done.`, { finish_reason: "stop" }]] }),
      ),
    ],
  });
  driver = await startDriver({ name: "approvals", cwd: workdir, env: { SKALD_DATA_DIR: dataDir } });
  session = await Session.create(driver.base, app);
});

after(async () => {
  await session?.quit();
  await driver?.stop();
  mock?.close();
});

test("approve a write after seeing its diff; reject another with a note", async () => {
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "Change the first line of hello.txt.");

  // The card: pending, with a real diff of the file.
  const diff = await session.waitFor(
    "const d = document.querySelector('[data-testid=approval][data-tool-call=call_w1] [data-testid=diff]'); return d ? Array.from(d.children).map(r => r.textContent) : null",
    { what: "the approval card with a diff", timeoutMs: 20_000 },
  );
  assert.deepEqual(diff, ["- old line", "+ new line", "  kept line"]);
  assert.equal(readFileSync(join(workdir, "hello.txt"), "utf8"), "old line\nkept line\n", "nothing written before approval");
  // Pushed by the backend (approvals-changed), not the UI's 15 s safety poll.
  const badge = await session.waitFor("const b = document.getElementById('inbox-badge'); return b && !b.hidden ? b.textContent : null", {
    what: "the inbox badge",
    timeoutMs: 5_000,
  });
  assert.equal(badge, "1");
  await new Promise((r) => setTimeout(r, 800));
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, "approval-card.png"), await session.screenshot());

  await session.execute("document.querySelector('[data-testid=approval][data-tool-call=call_w1] [data-testid=approve]').click()");
  await session.waitFor(
    "const ms = document.querySelectorAll('[data-role=assistant]'); return !document.querySelector('[data-testid=turn-running]') && ms[ms.length-1]?.textContent.includes('Updated hello.txt.')",
    { what: "the answer after approval" },
  );
  assert.equal(readFileSync(join(workdir, "hello.txt"), "utf8"), "new line\nkept line\n");
  assert.equal(
    await session.execute("return document.querySelector('.tool-card[data-tool-call=call_w1] .tool-status').dataset.status"),
    "done",
  );

  // Second write: rejected with a note.
  await send(session, "Now write second.txt.");
  await session.waitFor("return !!document.querySelector('[data-testid=approval][data-tool-call=call_w2]')", { what: "the second approval card" });
  await setValue(session, "[data-testid=approval][data-tool-call=call_w2] .approval-note", "not in this folder");
  await session.execute("document.querySelector('[data-testid=approval][data-tool-call=call_w2] [data-testid=reject]').click()");
  await session.waitFor(
    "const ms = document.querySelectorAll('[data-role=assistant]'); return !document.querySelector('[data-testid=turn-running]') && ms[ms.length-1]?.textContent.includes('did not write it')",
    { what: "the answer after rejection" },
  );
  assert.equal(existsSync(join(workdir, "second.txt")), false);
  assert.equal(mock.requests.length, 4);
  const toolMsg = mock.requests[3].messages.find((m) => m.role === "tool" && m.tool_call_id === "call_w2");
  assert.equal(toolMsg.content, "User rejected this tool call. Reason: not in this folder");
  assert.equal(
    await session.execute("return document.querySelector('.tool-card[data-tool-call=call_w2] .tool-status').dataset.status"),
    "rejected",
  );
});

const turnEndedWith = (text) =>
  `const ms = document.querySelectorAll('[data-role=assistant]'); return !document.querySelector('[data-testid=turn-running]') && ms[ms.length-1]?.textContent.includes(${JSON.stringify(text)})`;
const status = (id) => `return document.querySelector('.tool-card[data-tool-call=${id}] .tool-status')?.dataset.status`;

test("two waiting cards answered by keyboard: A approves the focused one, R rejects the next", async () => {
  await send(session, "Write the two files.");
  const k1 = "[data-testid=approval][data-tool-call=call_k1]";
  const k2 = "[data-testid=approval][data-tool-call=call_k2]";
  await session.waitFor(`return !!document.querySelector('${k1}') && !!document.querySelector('${k2}')`, { what: "both approval cards", timeoutMs: 20_000 });
  // The chat followed the long plan to the cards (each opens the delegation
  // card around it): one of them is in view, not below the fold.
  await session.waitFor(`return (() => { ${inViewScript(k1)} })() || (() => { ${inViewScript(k2)} })()`, { what: "a waiting card in view", timeoutMs: 3_000 });
  // A click on the card (not on a button) gives it the focus; A approves it.
  await session.click(`${k1} .approval-reason`);
  assert.equal(await session.execute("return document.activeElement?.dataset.toolCall"), "call_k1");
  await new Promise((r) => setTimeout(r, 300));
  writeFileSync(join(shots, "approval-keys.png"), await session.screenshot());
  await pressKey(session, "a");
  // The focus moved on to the next waiting card; R rejects it with the reason typed.
  assert.equal(await session.execute("return document.activeElement?.dataset.toolCall"), "call_k2");
  await session.waitFor(`${status("call_k1")} !== 'pending'`, { what: "the first call approved" });
  await setValue(session, `${k2} .approval-note`, "not b");
  assert.equal(await session.execute("return document.activeElement?.dataset.toolCall"), "call_k2");
  await pressKey(session, "r");
  await session.waitFor(turnEndedWith("Wrote keys-a.txt only."), { what: "the answer after the keys" });
  assert.equal(readFileSync(join(workdir, "keys-a.txt"), "utf8"), "A\n");
  assert.equal(existsSync(join(workdir, "keys-b.txt")), false);
  // The sub-agent that asked read exactly the reason typed.
  const req = mock.requests.find((r) => r.messages.some((m) => m.role === "tool" && m.tool_call_id === "call_k2"));
  assert.equal(req.messages.find((m) => m.role === "tool" && m.tool_call_id === "call_k2")?.content, "User rejected this tool call. Reason: not b");
});

test("three waiting calls of one message: one click approves them all and all run", async () => {
  await send(session, "Write three files.");
  await session.waitFor("return document.querySelectorAll('[data-testid=approval]').length === 3 && !!document.querySelector('[data-testid=approve-all]')", {
    what: "three approval cards and Approve all",
    timeoutMs: 20_000,
  });
  assert.match(await session.execute("return document.querySelector('[data-testid=approve-all-bar]').textContent"), /3 calls wait/);
  await session.click("[data-testid=approve-all]");
  await session.waitFor(turnEndedWith("All three written."), { what: "the answer after approve all" });
  for (const n of [1, 2, 3]) assert.equal(readFileSync(join(workdir, `all-${n}.txt`), "utf8"), `${n}\n`);
  assert.equal(await session.execute("return document.querySelectorAll('[data-testid=approval]').length"), 0);
  for (const n of [1, 2, 3]) {
    const req = mock.requests.find((r) => r.messages.some((m) => m.role === "tool" && m.tool_call_id === `call_all${n}`));
    assert.match(req.messages.find((m) => m.tool_call_id === `call_all${n}`).content, /all-\d\.txt/);
  }
});

test("a Don't-ask bypass shows on the chat with its time left; Ask again ends it and the next call asks", async () => {
  // The chat page may still be mounting after a navigation or reload.
  await session.waitFor("const d = document.querySelector('[data-testid=session-settings]'); if (d) d.open = true; return !!d", { what: "the session settings" });
  // The settings read the session when first opened: the form comes after.
  await session.waitFor("return !!document.querySelector('[name=bypassKind]')", { what: "the session settings' form" });
  await session.execute(
    "const k = document.querySelector('[name=bypassKind]'); k.value = 'tool'; k.dispatchEvent(new Event('change')); const m = document.querySelector('[name=bypassMinutes]'); m.value = '15'; m.dispatchEvent(new Event('change'));",
  );
  await setValue(session, "[name=bypassValue]", "write_file");
  await session.execute("document.querySelector('[data-testid=add-bypass]').click()");
  const bar = await session.waitFor("return document.querySelector('[data-testid=bypass-bar]')?.textContent", { what: "the bypass bar", timeoutMs: 10_000 });
  assert.match(bar, /write_file, 15 min left/);
  await session.execute("document.querySelector('[data-testid=session-settings]').open = false");
  writeFileSync(join(shots, "bypass-bar.png"), await session.screenshot());

  // Under it, the write runs without a question.
  await send(session, "Write bypassed.txt.");
  await session.waitFor(turnEndedWith("Wrote it without asking."), { what: "the answer under the bypass", timeoutMs: 20_000 });
  assert.equal(readFileSync(join(workdir, "bypassed.txt"), "utf8"), "no question\n");
  assert.match(await session.execute("return document.querySelector('.tool-card[data-tool-call=call_by1] [data-testid=decision]')?.textContent ?? ''"), /bypass/);
  // Nobody was asked, yet the card keeps the diff it made.
  assert.match(await session.execute("return document.querySelector('.tool-card[data-tool-call=call_by1] [data-testid=write-diff]')?.textContent ?? ''"), /New file .*bypassed\.txt/);

  // Ask again: the bar goes, and the next write waits for the person.
  await session.click("[data-testid=end-bypass]");
  await session.waitFor("return !document.querySelector('[data-testid=bypass-bar]')", { what: "the bar to go" });
  await send(session, "Write asked.txt.");
  await session.waitFor("return !!document.querySelector('[data-testid=approval][data-tool-call=call_by2]')", { what: "the call to ask again", timeoutMs: 20_000 });
  assert.equal(existsSync(join(workdir, "asked.txt")), false);
  await session.click("[data-testid=approval][data-tool-call=call_by2] [data-testid=approve]");
  await session.waitFor(turnEndedWith("Wrote it after you approved."), { what: "the answer after approval" });
  assert.equal(readFileSync(join(workdir, "asked.txt"), "utf8"), "asked\n");
});

const diffRows = (id) =>
  `const d = document.querySelector('.tool-card[data-tool-call=${id}] [data-testid=write-diff] .diff'); return d ? Array.from(d.children).map(r => r.textContent) : null`;

test("two writes of one message wait at once; Approve all runs both in order; their cards keep their diffs after a reload", async () => {
  await send(session, "Write two files at once.");
  const m1 = "[data-testid=approval][data-tool-call=call_m1]";
  const m2 = "[data-testid=approval][data-tool-call=call_m2]";
  // Both cards wait together, each with its diff, before either is answered.
  await session.waitFor(`return !!document.querySelector('${m1} [data-testid=diff]') && !!document.querySelector('${m2} [data-testid=diff]')`, {
    what: "both approval cards of one message",
    timeoutMs: 20_000,
  });
  assert.match(await session.execute("return document.querySelector('[data-testid=approve-all-bar]')?.textContent ?? ''"), /2 calls wait/);
  assert.equal(existsSync(join(workdir, "two-b.txt")), false, "nothing runs before an answer");
  const badge = await session.waitFor("const b = document.getElementById('inbox-badge'); return b && !b.hidden && b.textContent === '2' ? b.textContent : null", {
    what: "two calls in the Inbox badge",
    timeoutMs: 5_000,
  });
  assert.equal(badge, "2");
  await new Promise((r) => setTimeout(r, 500));
  writeFileSync(join(shots, "approve-all-one-message.png"), await session.screenshot());

  await session.click("[data-testid=approve-all]");
  await session.waitFor(turnEndedWith("Both written."), { what: "the answer after approve all", timeoutMs: 20_000 });
  assert.equal(readFileSync(join(workdir, "two-a.txt"), "utf8"), "after\nsame\n");
  assert.equal(readFileSync(join(workdir, "two-b.txt"), "utf8"), "brand new\n");
  // The model read both results, in its own order.
  const last = mock.requests[mock.requests.length - 1].messages.filter((m) => m.role === "tool").slice(-2);
  assert.deepEqual(last.map((m) => m.tool_call_id), ["call_m1", "call_m2"]);

  // After a reload the cards come from history, diffs and all (the
  // bypassed write's too, which nobody was asked about).
  await session.execute("location.reload()");
  await session.waitFor("return !!document.querySelector('.tool-card[data-tool-call=call_m2]')", { what: "the chat after a reload", timeoutMs: 20_000 });
  assert.deepEqual(await session.waitFor(diffRows("call_m1"), { what: "the first card's diff" }), ["- before", "+ after", "  same"]);
  assert.deepEqual(await session.execute(diffRows("call_m2")), ["+ brand new"]);
  assert.deepEqual(await session.execute(diffRows("call_by1")), ["+ no question"]);
  for (const id of ["call_m1", "call_m2"]) assert.equal(await session.execute(status(id)), "done");
  await session.execute(
    "for (const id of ['call_m1', 'call_m2']) { const c = document.querySelector(`.tool-card[data-tool-call=${id}]`); c.open = true; } document.querySelector('.tool-card[data-tool-call=call_m2]').scrollIntoView({ block: 'end' })",
  );
  await new Promise((r) => setTimeout(r, 500));
  writeFileSync(join(shots, "approve-all-diffs-after-reload.png"), await session.screenshot());
});
