// E2E: the `restart` tool in the real app. The model asks to restart; the
// seeded rules make the person approve it; the app marks the call done,
// starts a new instance of itself (which the single-instance lock must let
// through) and exits; the new instance resumes the turn, so the model's next
// request carries the restart's result.
import assert from "node:assert/strict";
import { test } from "node:test";
import { addMockProvider, appThatComesBack, newChat, send, toolCallChunk, waitUntil } from "./helpers.mjs";

const t = appThatComesBack("restart", [
  [
    toolCallChunk(0, { id: "call_r1", name: "restart", args: "" }),
    toolCallChunk(0, { args: JSON.stringify({ reason: "new settings" }) }),
    { finish_reason: "tool_calls" },
  ],
  // The old instance may ask once more before it exits; it never hears back.
  ["Restarting", 60_000, " never sent", { finish_reason: "stop" }],
  ["Back after the restart.", { finish_reason: "stop" }],
]);

test("an approved restart respawns the app, which resumes the turn", async () => {
  const { session, mock, apps } = t;
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  const [first] = apps();
  assert.ok(first, "the app runs under the driver");
  await send(session, "Restart to pick up the new settings.");
  await session.waitFor("return !!document.querySelector('[data-testid=approval][data-tool-call=call_r1] [data-testid=approve]')", {
    what: "the restart approval card",
  });
  await session.execute("document.querySelector('[data-testid=approval][data-tool-call=call_r1] [data-testid=approve]').click()");

  // The first instance exits; a second one starts and stays.
  await waitUntil(() => !apps().includes(first) && apps().length === 1, "the old app to exit and a new one to run");
  const [second] = apps();
  // The new instance resumes the interrupted turn: a request it sent (the
  // mock tells who asked) carries the restart's result.
  const fromNewInstance = () =>
    mock.requests.findIndex(
      (r, i) => mock.pids[i] === second && r.messages.some((m) => m.role === "tool" && m.tool_call_id === "call_r1"),
    );
  await waitUntil(() => fromNewInstance() >= 0, "a request of the new instance carrying the restart result");
  const toolMsg = mock.requests[fromNewInstance()].messages.find((m) => m.role === "tool" && m.tool_call_id === "call_r1");
  assert.match(toolMsg.content, /restart/i);
  await new Promise((r) => setTimeout(r, 1500));
  assert.deepEqual(apps(), [second], "the new instance keeps running (the single-instance lock let it through)");
});
