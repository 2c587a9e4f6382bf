// E2E: approvals in the real app. The model asks to write a file; the card
// shows the diff; approving writes it. A second write is rejected with a note,
// and the model's next request carries exactly that note.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startMockOpenAI, toolCallChunk } from "./helpers.mjs";
import { addMockProvider, newChat, send, setValue } from "./helpers.mjs";
import { Session, startDriver } from "./webdriver.mjs";

const app = process.env.SKALD_APP;
const shots = process.env.SKALD_SCREENSHOTS;
if (!app || !shots) throw new Error("set SKALD_APP and SKALD_SCREENSHOTS");

const workdir = mkdtempSync(join(tmpdir(), "skald-e2e-approve-"));
writeFileSync(join(workdir, "hello.txt"), "old line\nkept line\n");
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

before(async () => {
  mock = await startMockOpenAI([
    ["I will update it.", ...writeCall("call_w1", "hello.txt", "new line\nkept line\n")],
    ["Updated hello.txt.", { finish_reason: "stop" }],
    ["Writing another.", ...writeCall("call_w2", "second.txt", "second\n")],
    ["Understood, I did not write it.", { finish_reason: "stop" }],
  ]);
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
