import { describe, expect, it } from "vitest";
import type { SessionEvent, ToolCallView } from "../bindings";
import { addUserMessage, applyEvent, type ChatView, emptyView, fromHistory, incompleteNote, outcomeText, withoutErrors } from "./state";

const sid = "s1";
const call: ToolCallView = {
  id: "call_1",
  name: "read_file",
  labelShort: "read_file src/main.rs:1-40",
  labelFull: "read_file src/main.rs:1-40",
  path: "src/main.rs",
  arguments: { path: "/w/src/main.rs" },
  status: "running",
  result: null,
  decisionReason: null,
};

function run(events: SessionEvent[]) {
  return events.reduce(applyEvent, addUserMessage(emptyView(), "hi"));
}

describe("applyEvent", () => {
  it("streams text, stores the message, runs a tool and answers", () => {
    const view = run([
      { type: "turnStarted", sessionId: sid },
      { type: "tokenDelta", sessionId: sid, text: "Let me " },
      { type: "tokenDelta", sessionId: sid, text: "look." },
      { type: "assistantMessage", sessionId: sid, messageId: 2, text: "Let me look." },
      { type: "toolStart", sessionId: sid, call },
      { type: "toolAllowed", sessionId: sid, toolCallId: "call_1", reason: "allowed: a read under the working directory" },
      { type: "toolDone", sessionId: sid, toolCallId: "call_1", result: "1 | fn main() {}" },
      { type: "tokenDelta", sessionId: sid, text: "It is empty." },
      { type: "assistantMessage", sessionId: sid, messageId: 4, text: "It is empty." },
      { type: "turnEnded", sessionId: sid, outcome: { kind: "completed" } },
    ]);
    expect(view.running).toBe(false);
    expect(view.streaming).toBeNull();
    expect(view.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "hi"],
      ["assistant", "Let me look."],
      ["assistant", "It is empty."],
    ]);
    expect(view.messages[1].toolCalls[0]).toMatchObject({
      status: "done",
      result: "1 | fn main() {}",
      decisionReason: "allowed: a read under the working directory",
    });
    expect(outcomeText(view.outcome)).toBeNull();
  });

  it("shows partial text while streaming and keeps it after a stop", () => {
    let view = run([
      { type: "turnStarted", sessionId: sid },
      { type: "tokenDelta", sessionId: sid, text: "Half an ans" },
    ]);
    expect(view.running).toBe(true);
    expect(view.streaming?.text).toBe("Half an ans");
    view = applyEvent(view, { type: "turnEnded", sessionId: sid, outcome: { kind: "cancelled" } });
    expect(view.messages.at(-1)?.content).toBe("Half an ans");
    expect(outcomeText(view.outcome)).toBe("Stopped.");
  });

  it("marks failed, cancelled and rejected calls", () => {
    const c2 = { ...call, id: "call_2" };
    const c3 = { ...call, id: "call_3" };
    const view = run([
      { type: "turnStarted", sessionId: sid },
      { type: "toolStart", sessionId: sid, call },
      { type: "toolStart", sessionId: sid, call: c2 },
      { type: "toolStart", sessionId: sid, call: c3 },
      { type: "toolError", sessionId: sid, toolCallId: "call_1", error: "no such file" },
      { type: "toolCancelled", sessionId: sid, toolCallId: "call_2", reason: "Cancelled: the user stopped this call before it finished." },
      { type: "toolRejected", sessionId: sid, toolCallId: "call_3", reason: "User rejected this tool call." },
      { type: "turnEnded", sessionId: sid, outcome: { kind: "failed", message: "HTTP 401" } },
    ]);
    const calls = view.messages.at(-1)!.toolCalls;
    expect(calls.map((c) => c.status)).toEqual(["failed", "cancelled", "rejected"]);
    // Each says why, live: the stop's note is the card's result.
    expect(calls.map((c) => c.result)).toEqual(["no such file", "Cancelled: the user stopped this call before it finished.", "User rejected this tool call."]);
    expect(outcomeText(view.outcome)).toBe("The turn failed: HTTP 401");
  });

  it("does not mutate the previous view", () => {
    const before = run([{ type: "turnStarted", sessionId: sid }, { type: "toolStart", sessionId: sid, call }]);
    const snapshot = JSON.stringify(before);
    applyEvent(before, { type: "toolDone", sessionId: sid, toolCallId: "call_1", result: "x" });
    expect(JSON.stringify(before)).toBe(snapshot);
  });

  it("builds a view from stored history without tool-result rows", () => {
    const view = fromHistory([
      { id: 1, role: "user", content: "hi", toolCalls: [], createdAt: 0, reasoning: null, usage: null },
      { id: 2, role: "assistant", content: "", toolCalls: [{ ...call, status: "done" }], createdAt: 0, reasoning: null, usage: null },
      { id: 3, role: "tool", content: "1 | fn main", toolCalls: [], createdAt: 0, reasoning: null, usage: null },
      { id: 4, role: "assistant", content: "Done.", toolCalls: [], createdAt: 0, reasoning: null, usage: null },
    ]);
    expect(view.messages.map((m) => m.key)).toEqual(["m1", "m2", "m4"]);
    expect(outcomeText({ kind: "roundLimit", rounds: 20 })).toBe("Stopped after 20 rounds (the round limit).");
  });

  it("nests a sub-agent's events under the call that started it, its approvals in the chat", () => {
    const task: ToolCallView = { ...call, id: "t1", name: "execute_task", labelShort: "execute_task ⚡ → worker: Count" };
    const inner: ToolCallView = { ...call, id: "w1" };
    const sub = (event: SessionEvent): SessionEvent => ({
      type: "subAgent",
      sessionId: sid,
      frameId: 7,
      agentId: "worker",
      depth: 1,
      parentCallId: "t1",
      event,
    });
    const request = {
      toolCallId: "w1",
      sessionId: sid,
    } as unknown as import("../bindings").ApprovalRequest;
    let view = run([
      { type: "turnStarted", sessionId: sid },
      { type: "toolStart", sessionId: sid, call: task },
      sub({ type: "turnStarted", sessionId: sid }),
      sub({ type: "toolStart", sessionId: sid, call: inner }),
      sub({ type: "approvalRequired", sessionId: sid, request }),
    ]);
    expect(view.subAgents.t1.agentId).toBe("worker");
    expect(view.subAgents.t1.view.running).toBe(true);
    expect(view.subAgents.t1.view.messages.at(-1)!.toolCalls.map((c) => c.id)).toEqual(["w1"]);
    expect(Object.keys(view.approvals)).toEqual(["w1"]);
    // The root's own conversation has only its card.
    expect(view.messages.at(-1)!.toolCalls.map((c) => c.id)).toEqual(["t1"]);
    view = [
      sub({ type: "toolDone", sessionId: sid, toolCallId: "w1", result: "3 files" }),
      sub({ type: "assistantMessage", sessionId: sid, messageId: 9, text: "There are 3." }),
      sub({ type: "turnEnded", sessionId: sid, outcome: { kind: "completed" } }),
    ].reduce(applyEvent, view);
    expect(view.approvals).toEqual({});
    expect(view.subAgents.t1.view.running).toBe(false);
    expect(view.subAgents.t1.view.messages.map((m) => m.content)).toEqual(["", "There are 3."]);
    expect(view.running).toBe(true);
  });
});

describe("structural sharing", () => {
  it("an event copies only the message it changes and leaves the old view as it was", () => {
    const first: ToolCallView = { ...call, id: "a" };
    const second: ToolCallView = { ...call, id: "b" };
    let view = run([
      { type: "turnStarted", sessionId: sid },
      { type: "assistantMessage", sessionId: sid, messageId: 2, text: "one" },
      { type: "toolStart", sessionId: sid, call: first },
    ]);
    view = addUserMessage(view, "again");
    view = applyEvent(view, { type: "assistantMessage", sessionId: sid, messageId: 4, text: "two" });
    view = applyEvent(view, { type: "toolStart", sessionId: sid, call: second });
    const before = view;
    const after = applyEvent(before, { type: "toolDone", sessionId: sid, toolCallId: "a", result: "ok" });
    const changed = after.messages.map((m, i) => m !== before.messages[i]);
    expect(changed).toEqual([false, true, false, false]);
    expect(after.messages[1].toolCalls[0].status).toBe("done");
    expect(before.messages[1].toolCalls[0].status).toBe("running");
    expect(after.messages[3].toolCalls[0]).toBe(before.messages[3].toolCalls[0]);
  });
});

describe("context management events", () => {
  const summary = { id: 3, content: "Earlier: set up the repo.", firstMessageId: 1, lastMessageId: 2, messageCount: 2, coveredTokens: 900, manual: false, createdAt: 0 };
  const base = { toolCalls: [], createdAt: 0, reasoning: null, usage: null };

  it("a stored summary is a divider where it stands; a new one is inserted after what it covers", () => {
    const view = fromHistory([
      { ...base, id: 1, role: "user", content: "a" },
      { ...base, id: 2, role: "assistant", content: "b" },
      { ...base, id: -3, role: "system", content: summary.content, summary },
      { ...base, id: 4, role: "user", content: "c" },
      { ...base, id: 5, role: "system", content: "a plain system note" },
    ]);
    expect(view.messages.map((m) => m.key)).toEqual(["m1", "m2", "s3", "m4"]);
    const live = applyEvent(fromHistory([{ ...base, id: 1, role: "user", content: "a" }, { ...base, id: 2, role: "assistant", content: "b" }, { ...base, id: 4, role: "user", content: "c" }]), {
      type: "contextSummarized",
      sessionId: sid,
      summary,
    });
    expect(live.messages.map((m) => m.key)).toEqual(["m1", "m2", "s3", "m4"]);
    expect(live.messages[2].summary?.coveredTokens).toBe(900);
  });

  it("a retry notice shows until the stream goes on; a cut answer is marked incomplete; the context fill is kept", () => {
    let view = run([{ type: "turnStarted", sessionId: sid }]);
    view = applyEvent(view, { type: "retrying", sessionId: sid, attempt: 2, maxAttempts: 5, delayMs: 3000, reason: "rate limited", detail: "429" });
    expect(view.retrying?.attempt).toBe(2);
    expect(view.retrying!.until - Date.now()).toBeGreaterThan(2000);
    view = applyEvent(view, { type: "tokenDelta", sessionId: sid, text: "Hel" });
    expect(view.retrying).toBeNull();
    view = applyEvent(view, { type: "assistantMessage", sessionId: sid, messageId: 9, text: "Hel" });
    view = applyEvent(view, { type: "messageIncomplete", sessionId: sid, messageId: 9, reason: "connection reset", cause: { by: "cut", error: "connection reset" } });
    const cut = view.messages.find((m) => m.key === "m9")!;
    expect(cut.incomplete).toBe(true);
    expect(incompleteNote(cut)).toBe("The answer was cut off before it finished: connection reset");
    view = applyEvent(view, { type: "contextUsage", sessionId: sid, estimatedTokens: 500, contextWindow: 1000, trimmedToolResults: 2 });
    expect(view.context).toEqual({ estimatedTokens: 500, contextWindow: 1000, trimmedToolResults: 2 });
  });
});

describe("withoutErrors", () => {
  it("drops every stored failure and the failed outcome as a retry starts, leaving the rest as it was", () => {
    const failed: ChatView = {
      ...emptyView(),
      messages: [
        { key: "m1", role: "user", content: "What is the answer?", error: "model mock-model is not enabled" },
        { key: "m2", role: "assistant", content: "Half an ans", incomplete: true },
      ] as ChatView["messages"],
      outcome: { kind: "failed", message: "model mock-model is not enabled" },
    };
    const next = withoutErrors(failed);
    expect(next.messages.map((m) => m.error)).toEqual([undefined, undefined]);
    expect(next.messages.map((m) => m.content)).toEqual(["What is the answer?", "Half an ans"]);
    expect(next.outcome).toBeNull();
    const clean = withoutErrors(next);
    expect(clean).toBe(next);
  });
});

describe("incompleteNote", () => {
  it("tells a stopped answer from a cut one by the stored cause, not by an error a retry may have cleared", () => {
    expect(incompleteNote({ incomplete: true, incompleteCause: { by: "stopped" } })).toBe("You stopped this answer before it finished.");
    expect(incompleteNote({ incomplete: true, incompleteCause: { by: "cut", error: "stream broken: reset" } })).toBe(
      "The answer was cut off before it finished: stream broken: reset",
    );
    // A cut answer whose error withoutErrors dropped still reads as cut.
    const [m] = withoutErrors({
      ...emptyView(),
      messages: [{ key: "m2", role: "assistant", content: "Half", toolCalls: [], incomplete: true, incompleteCause: { by: "cut", error: "reset" }, error: "reset" }],
    }).messages;
    expect(m.error).toBeUndefined();
    expect(incompleteNote(m)).toBe("The answer was cut off before it finished: reset");
    expect(incompleteNote({ incomplete: false })).toBeNull();
  });
});

describe("fromHistory with sub-agents", () => {
  it("puts each sub-agent's conversation under its call's id at every depth, and keeps no copy on the card", () => {
    const msg = { createdAt: 0, reasoning: null, usage: null };
    const task = (id: string): ToolCallView => ({ ...call, id, name: "execute_task", status: "done", result: "ok" });
    const view = fromHistory([
      {
        ...msg,
        id: 2,
        role: "assistant",
        content: "",
        toolCalls: [
          {
            ...task("t1"),
            subAgent: {
              frameId: 2,
              agentId: "worker",
              depth: 1,
              outcome: { kind: "failed", message: "the sub-agent failed: boom" },
              messages: [
                {
                  ...msg,
                  id: 4,
                  role: "assistant",
                  content: "Asking.",
                  toolCalls: [{ ...task("w2"), subAgent: { frameId: 3, agentId: "helper", depth: 2, outcome: null, messages: [] } }],
                },
              ],
            },
          },
        ],
      },
    ]);
    expect(view.messages[0].toolCalls[0]).not.toHaveProperty("subAgent");
    const worker = view.subAgents.t1;
    expect([worker.agentId, worker.depth, worker.view.running]).toEqual(["worker", 1, false]);
    expect(outcomeText(worker.view.outcome)).toBe("The turn failed: the sub-agent failed: boom");
    expect(worker.view.messages.map((m) => [m.key, m.content])).toEqual([["m4", "Asking."]]);
    expect(worker.view.messages[0].toolCalls[0]).not.toHaveProperty("subAgent");
    // A sub-agent whose frame is still live shows as working, as between
    // its TurnStarted and TurnEnded; its later events land on it.
    const helper = view.subAgents.w2;
    expect([helper.agentId, helper.depth, helper.view.running]).toEqual(["helper", 2, true]);
    const next = applyEvent(view, {
      type: "subAgent",
      sessionId: sid,
      frameId: 3,
      agentId: "helper",
      depth: 2,
      parentCallId: "w2",
      event: { type: "turnEnded", sessionId: sid, outcome: { kind: "completed" } },
    });
    expect(next.subAgents.w2.view.running).toBe(false);
  });
});
