// @vitest-environment jsdom
// jsdom, not happy-dom: DOMPurify only sanitises correctly on a spec-complete DOM.
import { createSignal } from "solid-js";
import { render } from "solid-js/web";
import { describe, expect, it, vi } from "vitest";
import type { SessionEvent, ToolCallView } from "../bindings";
import { renderMarkdown } from "../markdown";
import type { ApprovalActions } from "./approval";
import { MAX_INLINE_IMAGE, ToolCard } from "./cards";
import { type ChatHandlers, createPaging, mountConversation, type Paging } from "./conversation";
import type { AnswerQuestion } from "./question";
import { addUserMessage, applyEvent, type ChatView, emptyView, fromHistory, type LiveProgress } from "./state";

vi.mock("../markdown", async (importOriginal) => {
  const real = await importOriginal<typeof import("../markdown")>();
  return { ...real, renderMarkdown: vi.fn(real.renderMarkdown) };
});

/** One card, rendered alone. */
function toolCard(c: ToolCallView, openFile: (path: string, line?: number) => void, _approval?: undefined, _nested?: undefined, live?: LiveProgress): HTMLDetailsElement {
  const root = document.createElement("div");
  render(() => <ToolCard call={c} openFile={openFile} live={live} />, root);
  return root.firstElementChild as HTMLDetailsElement;
}

const mounted = new WeakMap<HTMLElement, (v: ChatView) => void>();

/** Shows `view` in `root`: mounted the first time, updated after. */
function renderConversation(root: HTMLElement, view: ChatView, openFile: ChatHandlers["openFile"], actions?: ApprovalActions, answerQuestion?: AnswerQuestion, paging?: Paging) {
  const set = mounted.get(root);
  if (set) return set(view);
  mounted.set(root, mountConversation(root, view, { openFile, actions, answerQuestion }, paging).set);
}

const call: ToolCallView = {
  id: "c1",
  name: "read_file",
  labelShort: "read_file notes.md",
  labelFull: "read_file /w/notes.md",
  path: "notes.md",
  arguments: { path: "/w/notes.md" },
  status: "done",
  result: "     1 | hello",
  decisionReason: null,
};

describe("tool cards", () => {
  it("show label, status, arguments, result and a clickable path", () => {
    const open = vi.fn();
    const card = toolCard(call, open);
    expect(card.querySelector(".tool-label")!.textContent).toBe("read_file notes.md");
    expect(card.querySelector(".tool-label")!.getAttribute("title")).toBe("read_file /w/notes.md");
    expect(card.querySelector(".tool-status")!.textContent).toBe("done");
    expect(card.querySelector(".tool-args")!.textContent).toContain('"path": "/w/notes.md"');
    expect(card.querySelector(".tool-result")!.textContent).toBe("     1 | hello");
    (card.querySelector(".tool-path") as HTMLElement).click();
    expect(open.mock.calls[0][0]).toBe("notes.md");
  });

  it("open a file call's path at the line the call is about", () => {
    const open = vi.fn();
    const card = toolCard({ ...call, arguments: { path: "/w/notes.md", start_line: 120, end_line: 140 } }, open);
    (card.querySelector(".tool-path") as HTMLElement).click();
    expect(open).toHaveBeenCalledWith("notes.md", 120);
  });

  it("say why the gate let the call run, when the reason is known", () => {
    expect(toolCard(call, vi.fn()).querySelector("[data-testid=decision]")).toBeNull();
    const card = toolCard({ ...call, decisionReason: "allowed by rule 12: @fs_read docs/*" }, vi.fn());
    expect(card.querySelector("[data-testid=decision]")!.textContent).toBe("allowed: rule for fs read tools on docs/*");
  });

  it("a write the person answered keeps its diff on the card; a waiting one shows it in its approval only", () => {
    const w: ToolCallView = { ...call, id: "w1", name: "write_file", path: "/w/a.txt", status: "done", result: "Wrote 4 bytes", writePreview: { oldContent: "old\n", newContent: "new\n" } };
    const card = toolCard(w, vi.fn());
    expect(Array.from(card.querySelectorAll("[data-testid=write-diff] .diff > div")).map((d) => d.textContent)).toEqual(["- old", "+ new"]);
    expect(card.querySelector("[data-testid=write-diff]")!.textContent).toContain("/w/a.txt: +1 −1");
    const root = document.createElement("div");
    const actions = { approve: vi.fn(), reject: vi.fn(), previewAlwaysAllow: vi.fn(), alwaysAllow: vi.fn() };
    const request = { toolCallId: "w1", name: "write_file", labelShort: "", labelFull: "", path: "/w/a.txt", arguments: {}, reason: "asks", kind: { type: "write" as const, path: "/w/a.txt", oldContent: "old\n", newContent: "new\n" } };
    render(() => <ToolCard call={{ ...w, status: "pending" }} openFile={vi.fn()} request={request} actions={actions} />, root);
    expect(root.querySelectorAll(".diff").length).toBe(1);
    expect(root.querySelector("[data-testid=write-diff]")).toBeNull();
  });

  it("a kept diff cut to the changed lines of a large file says so under the diff", () => {
    const note = "Large file: only the changed lines are kept here, from line 9997 (9996 lines before the change unchanged).";
    const w: ToolCallView = { ...call, id: "w2", name: "write_file", path: "/w/big.txt", status: "done", result: "Wrote", writePreview: { oldContent: "x\n", newContent: "y\n", note } };
    const card = toolCard(w, vi.fn());
    expect(card.querySelector("[data-testid=write-diff-note]")!.textContent).toBe(note);
    const whole = toolCard({ ...w, writePreview: { oldContent: "x\n", newContent: "y\n" } }, vi.fn());
    expect(whole.querySelector("[data-testid=write-diff]")).not.toBeNull();
    expect(whole.querySelector("[data-testid=write-diff-note]")).toBeNull();
  });

  it("a stopped or rejected call says why outside its collapsed body", () => {
    const stopped = toolCard({ ...call, status: "cancelled", result: "Cancelled: the user stopped this call before it finished." }, vi.fn());
    expect(stopped.open).toBe(false);
    const why = stopped.querySelector("[data-testid=tool-why]")!;
    expect(why.textContent).toBe("Cancelled: the user stopped this call before it finished.");
    expect(why.closest(".tool-body")).toBeNull();
    const rejected = toolCard({ ...call, status: "rejected", result: "Rejected: blocked by a rule. The call was not run." }, vi.fn());
    expect(rejected.querySelector("[data-testid=tool-why]")!.textContent).toContain("blocked by a rule");
    expect(toolCard(call, vi.fn()).querySelector("[data-testid=tool-why]")).toBeNull();
  });

  it("omit the path link and result when there are none", () => {
    const card = toolCard({ ...call, path: null, result: null, status: "pending" }, vi.fn());
    expect(card.querySelector(".tool-path")).toBeNull();
    expect(card.querySelector(".tool-result")).toBeNull();
    expect(card.querySelector(".tool-status")!.textContent).toBe("waiting for approval");
  });
});

describe("conversation", () => {
  it("renders markdown sanitised and the streaming answer", () => {
    let view = addUserMessage(emptyView(), "<b>hi</b>");
    view = applyEvent(view, { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, { type: "assistantMessage", sessionId: "s", messageId: 1, text: "**bold** <img src=x onerror=alert(1)>" });
    view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "stream" });
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn());
    const user = root.querySelector('[data-role="user"]')!;
    expect(user.querySelector(".text")!.textContent).toBe("<b>hi</b>");
    expect(user.querySelector("b")).toBeNull();
    const assistant = root.querySelector('[data-role="assistant"] .md')!;
    expect(assistant.querySelector("strong")!.textContent).toBe("bold");
    expect(assistant.innerHTML).not.toContain("onerror");
    expect(root.querySelector('[data-role="streaming"]')!.textContent).toContain("stream");
    expect(root.querySelector('[data-testid="turn-running"]')).not.toBeNull();
  });

  it("shows a sub-agent's activity inside its call's card", () => {
    const root = document.createElement("div");
    const task: ToolCallView = { ...call, id: "t1", name: "execute_task", status: "running", result: null };
    let view = applyEvent(addUserMessage(emptyView(), "go"), { type: "toolStart", sessionId: "s", call: task });
    view = applyEvent(view, {
      type: "subAgent",
      sessionId: "s",
      frameId: 2,
      agentId: "worker",
      depth: 1,
      parentCallId: "t1",
      event: { type: "toolStart", sessionId: "s", call: { ...call, id: "w1", labelShort: "list_files" } },
    });
    renderConversation(root, view, () => {});
    const card = root.querySelector('[data-tool-call="t1"]')!;
    const nested = card.querySelector('[data-sub-agent="worker"]')!;
    expect(nested.querySelector('[data-tool-call="w1"] .tool-label')!.textContent).toBe("list_files");
    expect((card as HTMLDetailsElement).open).toBe(false);
  });

  it("after a reload, a sub-agent's cards are back under its call (at every depth), collapsed, as they showed live", () => {
    const msg = { createdAt: 0, reasoning: null, usage: null };
    const task = (id: string, status: ToolCallView["status"]): ToolCallView => ({ ...call, id, name: "execute_task", labelShort: `task ${id}`, status, result: status === "done" ? "ok" : null });
    const list: ToolCallView = { ...call, id: "w1", labelShort: "list_files" };
    // Live: the events of the turn.
    const sub = (parentCallId: string, agentId: string, depth: number, event: SessionEvent): SessionEvent => ({ type: "subAgent", sessionId: "s", frameId: depth + 1, agentId, depth, parentCallId, event });
    let live = applyEvent(addUserMessage(emptyView(), "go"), { type: "assistantMessage", sessionId: "s", messageId: 2, text: "" });
    for (const event of [
      { type: "toolStart", sessionId: "s", call: task("t1", "running") },
      sub("t1", "worker", 1, { type: "turnStarted", sessionId: "s" }),
      sub("t1", "worker", 1, { type: "assistantMessage", sessionId: "s", messageId: 4, text: "Listing." }),
      sub("t1", "worker", 1, { type: "toolStart", sessionId: "s", call: { ...list, status: "running", result: null } }),
      sub("t1", "worker", 1, { type: "toolDone", sessionId: "s", toolCallId: "w1", result: list.result as string }),
      sub("t1", "worker", 1, { type: "toolStart", sessionId: "s", call: task("w2", "running") }),
      sub("w2", "helper", 2, { type: "turnStarted", sessionId: "s" }),
      sub("w2", "helper", 2, { type: "assistantMessage", sessionId: "s", messageId: 7, text: "Checked." }),
      sub("w2", "helper", 2, { type: "turnEnded", sessionId: "s", outcome: { kind: "completed" } }),
      sub("t1", "worker", 1, { type: "toolDone", sessionId: "s", toolCallId: "w2", result: "ok" }),
      sub("t1", "worker", 1, { type: "turnEnded", sessionId: "s", outcome: { kind: "completed" } }),
      { type: "toolDone", sessionId: "s", toolCallId: "t1", result: "ok" },
    ] as SessionEvent[]) {
      live = applyEvent(live, event);
    }
    // Reloaded: the history with the same transcripts nested on the cards.
    const stored = fromHistory([
      { ...msg, id: 1, role: "user", content: "go", toolCalls: [] },
      {
        ...msg,
        id: 2,
        role: "assistant",
        content: "",
        toolCalls: [
          {
            ...task("t1", "done"),
            subAgent: {
              frameId: 2,
              agentId: "worker",
              depth: 1,
              outcome: { kind: "completed" },
              messages: [
                { ...msg, id: 4, role: "assistant", content: "Listing.", toolCalls: [list] },
                {
                  ...msg,
                  id: 6,
                  role: "assistant",
                  content: "",
                  toolCalls: [
                    {
                      ...task("w2", "done"),
                      subAgent: { frameId: 3, agentId: "helper", depth: 2, outcome: { kind: "completed" }, messages: [{ ...msg, id: 7, role: "assistant", content: "Checked.", toolCalls: [] }] },
                    },
                  ],
                },
              ],
            },
          },
        ],
      },
    ]);
    expect(Object.keys(stored.subAgents).sort()).toEqual(["t1", "w2"]);
    const shape = (view: ChatView) => {
      const root = document.createElement("div");
      renderConversation(root, view, () => {});
      const card = root.querySelector('[data-tool-call="t1"]') as HTMLDetailsElement;
      const worker = card.querySelector('[data-sub-agent="worker"]')!;
      const helper = worker.querySelector('[data-tool-call="w2"] [data-sub-agent="helper"]')!;
      return {
        open: card.open,
        workerHead: worker.querySelector(".tool-section")!.textContent,
        workerCards: [...worker.querySelectorAll(":scope > .msg [data-tool-call]")].map((c) => c.getAttribute("data-tool-call")),
        workerText: worker.querySelector("[data-role=assistant] .md")!.textContent!.trim(),
        helperHead: helper.querySelector(".tool-section")!.textContent,
        helperText: helper.textContent!.includes("Checked."),
      };
    };
    const reloaded = shape(stored);
    expect(reloaded).toEqual({
      open: false,
      workerHead: "↳ worker — finished",
      workerCards: ["w1", "w2"],
      workerText: "Listing.",
      helperHead: "↳ helper — finished",
      helperText: true,
    });
    expect(reloaded).toEqual(shape(live));
  });

  it("shows reasoning as a thinking block: open while it streams, collapsed once stored", () => {
    let view = applyEvent(emptyView(), { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, { type: "reasoningDelta", sessionId: "s", text: "Check the " });
    view = applyEvent(view, { type: "reasoningDelta", sessionId: "s", text: "file first." });
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn());
    const live = root.querySelector('[data-role="streaming"] [data-testid="thinking"]') as HTMLDetailsElement;
    expect(live.open).toBe(true);
    expect(live.querySelector(".reasoning-text")!.textContent).toBe("Check the file first.");

    view = applyEvent(view, { type: "assistantMessage", sessionId: "s", messageId: 7, text: "Done." });
    renderConversation(root, view, vi.fn());
    const kept = root.querySelector('[data-role="assistant"] [data-testid="thinking"]') as HTMLDetailsElement;
    expect(kept.open).toBe(false);
    expect(kept.querySelector("summary")!.textContent).toBe("Thinking");
    expect(kept.querySelector(".reasoning-text")!.textContent).toBe("Check the file first.");
  });

  it("shows a stored message's reasoning from history, and none when there was none", () => {
    const base = { role: "assistant" as const, toolCalls: [], createdAt: 0, usage: null };
    const view = fromHistory([
      { ...base, id: 1, content: "Hi.", reasoning: "The user greets me." },
      { ...base, id: 2, content: "Bye.", reasoning: null },
    ]);
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn());
    const blocks = root.querySelectorAll('[data-testid="thinking"]');
    expect(blocks.length).toBe(1);
    expect(blocks[0].textContent).toContain("The user greets me.");
  });
});

describe("conversation updates", () => {
  const running: ToolCallView = { ...call, id: "c9", status: "running", result: null };
  function longView() {
    let view = emptyView();
    for (let i = 0; i < 50; i++) {
      view = addUserMessage(view, `question ${i}`);
      view = applyEvent(view, { type: "assistantMessage", sessionId: "s", messageId: i, text: `answer **${i}**` });
    }
    view = applyEvent(view, { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, { type: "toolStart", sessionId: "s", call: running });
    return view;
  }

  it("a streamed token touches only the streaming answer", () => {
    let view = longView();
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn());
    const before = Array.from(root.querySelectorAll("[data-key]"));
    view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "Hel" });
    renderConversation(root, view, vi.fn());
    view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "lo" });
    renderConversation(root, view, vi.fn());
    const after = Array.from(root.querySelectorAll("[data-key]"));
    expect(after.length).toBe(before.length);
    after.forEach((n, i) => expect(n).toBe(before[i]));
    expect(root.querySelector("[data-role=streaming]")!.textContent).toContain("Hello");
  });

  it("a card the person opened stays open while 500 tokens stream and when its call finishes", () => {
    let view = longView();
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn());
    (root.querySelector("details[data-tool-call=c9]") as HTMLDetailsElement).open = true;
    for (let i = 0; i < 500; i++) {
      view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "x" });
      renderConversation(root, view, vi.fn());
    }
    expect((root.querySelector("details[data-tool-call=c9]") as HTMLDetailsElement).open).toBe(true);
    view = applyEvent(view, { type: "toolDone", sessionId: "s", toolCallId: "c9", result: "ok" });
    renderConversation(root, view, vi.fn());
    const card = root.querySelector("details[data-tool-call=c9]") as HTMLDetailsElement;
    expect(card.open).toBe(true);
    expect(card.querySelector(".tool-result")!.textContent).toBe("ok");
  });

  it("keeps the children in the view's order when messages come and go", () => {
    let view = longView();
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn(), undefined, undefined, createPaging(500));
    view = { ...view, messages: view.messages.slice(10) };
    view = addUserMessage(view, "new one");
    renderConversation(root, view, vi.fn());
    const keys = Array.from(root.querySelectorAll("[data-key]")).map((n) => (n as HTMLElement).dataset.key);
    expect(keys).toEqual(view.messages.map((m) => m.key));
  });
});

describe("rich results and live output", () => {
  const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

  it("a card shows an image inline, a resource link that opens the viewer and JSON", () => {
    const open = vi.fn();
    const card = toolCard(
      {
        ...call,
        result: "snapped",
        blocks: [
          { type: "image", mime: "image/png", dataBase64: png },
          { type: "resource_link", uri: "file:///w/out%20dir/chart.svg", name: "chart.svg" },
          { type: "resource_link", uri: "https://example.com/x" },
          { type: "json", value: { temperature: 22, unit: "C" } },
        ],
      },
      open,
    ) as HTMLDetailsElement;
    const img = card.querySelector("img.tool-image") as HTMLImageElement;
    expect(img.getAttribute("src")).toBe(`data:image/png;base64,${png}`);
    expect(card.open).toBe(true);
    const link = card.querySelector("a.tool-link") as HTMLElement;
    expect(link.textContent).toBe("chart.svg");
    link.click();
    expect(open).toHaveBeenCalledWith("/w/out dir/chart.svg");
    // A URI the viewer cannot open is shown, not linked.
    expect(card.querySelectorAll("a.tool-link").length).toBe(1);
    expect(card.querySelector("p.tool-link code")!.textContent).toBe("https://example.com/x");
    const json = card.querySelector("details.tool-json") as HTMLDetailsElement;
    expect(json.open).toBe(false);
    expect(json.querySelector("pre")!.textContent).toBe('{\n  "temperature": 22,\n  "unit": "C"\n}');
  });

  it("an image over the size cap or of an unsafe type is named, not shown", () => {
    const big = toolCard({ ...call, blocks: [{ type: "image", mime: "image/png", dataBase64: "A".repeat(MAX_INLINE_IMAGE + 4) }] }, vi.fn());
    expect(big.querySelector("img")).toBeNull();
    expect(big.querySelector(".tool-block")!.textContent).toContain("not shown");
    const odd = toolCard({ ...call, blocks: [{ type: "image", mime: "text/html", dataBase64: "PGI+" }] }, vi.fn());
    expect(odd.querySelector("img")).toBeNull();
  });

  it("a running call shows its live output until its result replaces it", () => {
    const running: ToolCallView = { ...call, id: "x1", name: "execute_cmd", status: "running", result: null };
    let view = applyEvent(emptyView(), { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, { type: "toolStart", sessionId: "s", call: running });
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn());
    expect(root.querySelector("[data-testid=live-output]")).toBeNull();
    view = applyEvent(view, { type: "toolProgress", sessionId: "s", toolCallId: "x1", output: "1\n", outputBytes: 2 });
    renderConversation(root, view, vi.fn());
    view = applyEvent(view, { type: "toolProgress", sessionId: "s", toolCallId: "x1", output: "1\n2\n", outputBytes: 4 });
    renderConversation(root, view, vi.fn());
    const live = root.querySelector("[data-tool-call=x1] [data-testid=live-output]")!;
    // Seen without opening the card.
    expect(live.parentElement!.tagName).toBe("DETAILS");
    expect(live.closest(".tool-body")).toBeNull();
    expect(live.textContent).toBe("1\n2\n");
    view = applyEvent(view, { type: "toolDone", sessionId: "s", toolCallId: "x1", result: "1\n2\n3\n[exit code: 0]" });
    renderConversation(root, view, vi.fn());
    expect(root.querySelector("[data-testid=live-output]")).toBeNull();
    expect(root.querySelector("[data-tool-call=x1] .tool-result")!.textContent).toBe("1\n2\n3\n[exit code: 0]");
  });

  it("shows an MCP server's progress figures and message", () => {
    const running: ToolCallView = { ...call, id: "m1", status: "running", result: null };
    const card = toolCard(running, vi.fn(), undefined, undefined, { output: "", progress: 2, total: 4, message: "step 2" });
    expect(card.querySelector(".tool-progress")!.textContent).toBe("2 / 4 — step 2");
  });
});

describe("fine-grained updates", () => {
  function history(n: number): ChatView {
    let view = emptyView();
    for (let i = 0; i < n; i++) {
      view = addUserMessage(view, `question ${i}`);
      view = applyEvent(view, { type: "assistantMessage", sessionId: "s", messageId: i, text: `answer **${i}**` });
    }
    return applyEvent(view, { type: "turnStarted", sessionId: "s" });
  }
  const token = (view: ChatView, text: string) => applyEvent(view, { type: "tokenDelta", sessionId: "s", text });

  it("finished Markdown is never parsed again; the streaming node is the same node all along", () => {
    let view = history(20);
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn());
    const parse = vi.mocked(renderMarkdown);
    parse.mockClear();
    view = token(view, "First ");
    renderConversation(root, view, vi.fn());
    const streaming = root.querySelector("[data-role=streaming]");
    for (let i = 0; i < 100; i++) {
      view = token(view, i % 10 === 9 ? "end.\n\n" : "word ");
      renderConversation(root, view, vi.fn());
    }
    expect(root.querySelector("[data-role=streaming]")).toBe(streaming);
    expect(root.querySelector("[data-role=streaming]")!.textContent).toContain("word end.");
    // Only the streamed text was parsed, never a stored answer.
    expect(parse.mock.calls.some(([src]) => /answer \*\*/.test(src))).toBe(false);
    // Finished paragraphs are parsed once each; the open tail at most once
    // per TAIL_PARSE_MS, not once per token.
    expect(parse.mock.calls.length).toBeLessThan(40);
    // A stored answer arriving parses that answer alone.
    parse.mockClear();
    view = applyEvent(view, { type: "assistantMessage", sessionId: "s", messageId: 99, text: "Stored **now**." });
    renderConversation(root, view, vi.fn());
    expect(parse.mock.calls.map(([src]) => src)).toEqual(["Stored **now**."]);
  });

  it("a Thinking block the person collapses mid-stream stays collapsed while reasoning streams", () => {
    let view = history(1);
    const root = document.createElement("div");
    view = applyEvent(view, { type: "reasoningDelta", sessionId: "s", text: "Let me think" });
    renderConversation(root, view, vi.fn());
    const block = root.querySelector("[data-role=streaming] [data-testid=thinking]") as HTMLDetailsElement;
    expect(block.open).toBe(true);
    block.open = false;
    for (let i = 0; i < 50; i++) {
      view = applyEvent(view, { type: "reasoningDelta", sessionId: "s", text: " more" });
      renderConversation(root, view, vi.fn());
    }
    const after = root.querySelector("[data-role=streaming] [data-testid=thinking]") as HTMLDetailsElement;
    expect(after).toBe(block);
    expect(after.open).toBe(false);
    expect(after.textContent).toContain("more more");
  });

  it("a question's half-typed answer survives updates of its message", () => {
    const ask: ToolCallView = { ...call, id: "q1", name: "ask_user_clarification", status: "running", result: null, presentation: "question", arguments: { question: "Which?", suggested_answers: ["A"] } };
    const other: ToolCallView = { ...call, id: "o1", status: "running", result: null };
    let view = applyEvent(history(1), { type: "toolStart", sessionId: "s", call: ask });
    view = applyEvent(view, { type: "toolStart", sessionId: "s", call: other });
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn(), undefined, vi.fn());
    const input = root.querySelector("[data-testid=question-input]") as HTMLInputElement;
    input.value = "half typed";
    view = applyEvent(view, { type: "toolDone", sessionId: "s", toolCallId: "o1", result: "ok" });
    renderConversation(root, view, vi.fn(), undefined, vi.fn());
    expect(root.querySelector("[data-testid=question-input]")).toBe(input);
    expect(input.value).toBe("half typed");
  });

  it("an MCP server's elicitation is asked as a form under the running call that asked it", () => {
    const mcp: ToolCallView = { ...call, id: "m1", name: "mcp__everything__trigger-elicitation-request", status: "running", result: null, arguments: {} };
    const view = applyEvent(history(1), { type: "toolStart", sessionId: "s", call: mcp });
    const asked = {
      toolCallId: "m1",
      title: "everything asks",
      question: "Please provide your details",
      suggestedAnswers: [],
      schema: { type: "object", properties: { name: { type: "string", title: "Name" } }, required: ["name"] },
    };
    const root = document.createElement("div");
    const elicitation = vi.fn((id: string) => (id === "m1" ? asked : null));
    mountConversation(root, view, { openFile: vi.fn(), answerQuestion: vi.fn(), elicitation });
    expect(root.querySelector("[data-testid=elicitation-form]")).not.toBeNull();
    expect(root.querySelector("[data-testid=elicitation-form] [data-field=name]")).not.toBeNull();
    // Not once the call has ended.
    const ended = document.createElement("div");
    mountConversation(ended, applyEvent(view, { type: "toolDone", sessionId: "s", toolCallId: "m1", result: "ok" }), { openFile: vi.fn(), answerQuestion: vi.fn(), elicitation });
    expect(ended.querySelector("[data-testid=elicitation-form]")).toBeNull();
  });

  it("follows new text only while the person is at the bottom", () => {
    let view = history(5);
    const root = document.createElement("div");
    let top = 0;
    const conv = () => root.querySelector("[data-testid=conversation]") as HTMLElement;
    renderConversation(root, view, vi.fn());
    Object.defineProperty(conv(), "scrollHeight", { get: () => 2000 });
    Object.defineProperty(conv(), "clientHeight", { get: () => 300 });
    Object.defineProperty(conv(), "scrollTop", { get: () => top, set: (v: number) => (top = v) });
    view = token(view, "a");
    renderConversation(root, view, vi.fn());
    expect(top).toBe(2000);
    // The person scrolls up to read: tokens leave them there.
    top = 900;
    conv().dispatchEvent(new Event("scroll"));
    view = token(view, "b");
    renderConversation(root, view, vi.fn());
    expect(top).toBe(900);
    // Back at the bottom: followed again.
    top = 1700;
    conv().dispatchEvent(new Event("scroll"));
    view = token(view, "c");
    renderConversation(root, view, vi.fn());
    expect(top).toBe(2000);
  });
});

describe("a card that waits for the person comes into view", () => {
  const mcp: ToolCallView = { ...call, id: "m1", name: "mcp__everything__trigger-elicitation-request", status: "running", result: null, arguments: {} };
  const asked = { toolCallId: "m1", title: "everything asks", question: "Your name?", suggestedAnswers: [], schema: { type: "object", properties: { name: { type: "string" } } } };
  function running(): ChatView {
    let view = addUserMessage(emptyView(), "go");
    view = applyEvent(view, { type: "turnStarted", sessionId: "s" });
    return applyEvent(view, { type: "toolStart", sessionId: "s", call: mcp });
  }
  /** A conversation 300 px high over content whose height `content()` gives. */
  function laidOut(root: HTMLElement, content: () => number) {
    const conv = root.querySelector("[data-testid=conversation]") as HTMLElement;
    let top = 0;
    Object.defineProperty(conv, "scrollHeight", { get: content });
    Object.defineProperty(conv, "clientHeight", { get: () => 300 });
    Object.defineProperty(conv, "scrollTop", { get: () => top, set: (v: number) => (top = Math.max(0, Math.min(v, content() - 300))) });
    conv.getBoundingClientRect = () => ({ top: 0, bottom: 300 }) as DOMRect;
    const scrollTo = (v: number) => {
      top = v;
      conv.dispatchEvent(new Event("scroll"));
    };
    return { conv, top: () => top, scrollTo };
  }
  const cardRect = (at: () => number, top: () => number) =>
    vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(function (this: HTMLElement) {
      return { top: this.matches("[data-testid=question-card], [data-testid=approval]") ? at() - top() : 0, bottom: 0 } as DOMRect;
    });
  const settled = () => new Promise((r) => setTimeout(r, 0));

  it("an MCP form asked under a running call is scrolled to when the person was at the bottom", async () => {
    const [asking, setAsking] = createSignal(false);
    const root = document.createElement("div");
    document.body.append(root);
    mountConversation(root, running(), { openFile: vi.fn(), answerQuestion: vi.fn(), elicitation: (id) => (asking() && id === "m1" ? asked : null) });
    const card = () => !!root.querySelector("[data-testid=question-card]");
    const g = laidOut(root, () => (card() ? 2000 : 1800));
    const spy = cardRect(() => 1800, g.top);
    g.scrollTo(1500);
    setAsking(true);
    await settled();
    expect(card()).toBe(true);
    expect(g.top()).toBe(1700);
    spy.mockRestore();
    root.remove();
  });

  it("a person who scrolled up to read is left where they are", async () => {
    const [asking, setAsking] = createSignal(false);
    const root = document.createElement("div");
    document.body.append(root);
    mountConversation(root, running(), { openFile: vi.fn(), answerQuestion: vi.fn(), elicitation: (id) => (asking() && id === "m1" ? asked : null) });
    const card = () => !!root.querySelector("[data-testid=question-card]");
    const g = laidOut(root, () => (card() ? 2000 : 1800));
    const spy = cardRect(() => 1800, g.top);
    g.scrollTo(600);
    setAsking(true);
    await settled();
    expect(card()).toBe(true);
    expect(g.top()).toBe(600);
    spy.mockRestore();
    root.remove();
  });

  it("an approval panel taller than the view shows its top, and tokens then leave it there", async () => {
    const root = document.createElement("div");
    document.body.append(root);
    const actions = { approve: vi.fn(), reject: vi.fn(), previewAlwaysAllow: vi.fn(), alwaysAllow: vi.fn() };
    let view = running();
    const m = mountConversation(root, view, { openFile: vi.fn(), actions });
    const panel = () => !!root.querySelector("[data-testid=approval]");
    const g = laidOut(root, () => (panel() ? 2400 : 1800));
    const spy = cardRect(() => 1800, g.top);
    g.scrollTo(1500);
    const w: ToolCallView = { ...call, id: "w1", name: "write_file", status: "pending", result: null };
    view = applyEvent(view, { type: "toolStart", sessionId: "s", call: w });
    view = applyEvent(view, {
      type: "approvalRequired",
      sessionId: "s",
      request: { toolCallId: "w1", name: "write_file", labelShort: "w1", labelFull: "w1", path: null, arguments: {}, reason: "asks", kind: { type: "generic" } },
    });
    m.set(view);
    await settled();
    expect(panel()).toBe(true);
    // The bottom would be 2100; the panel starts at 1800: its top, less a margin.
    expect(g.top()).toBe(1792);
    m.set(applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "x" }));
    expect(g.top()).toBe(1792);
    spy.mockRestore();
    root.remove();
  });

  it("sub-agents' calls waiting side by side: their delegation cards open, and Approve all answers them all", async () => {
    const task = (id: string): ToolCallView => ({ ...call, id, name: "execute_task", status: "running", result: null });
    const w = (id: string): ToolCallView => ({ ...call, id, name: "write_file", status: "pending", result: null });
    let view = applyEvent(addUserMessage(emptyView(), "go"), { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, { type: "toolStart", sessionId: "s", call: task("t1") });
    view = applyEvent(view, { type: "toolStart", sessionId: "s", call: task("t2") });
    const root = document.createElement("div");
    document.body.append(root);
    const approve = vi.fn().mockResolvedValue(undefined);
    const m = mountConversation(root, view, { openFile: vi.fn(), actions: { approve, reject: vi.fn(), previewAlwaysAllow: vi.fn(), alwaysAllow: vi.fn() } });
    for (const [parent, id] of [["t1", "a1"], ["t2", "a2"]]) {
      const inner = (event: SessionEvent) => (view = applyEvent(view, { type: "subAgent", sessionId: "s", parentCallId: parent, frameId: 1, agentId: "software-engineer", depth: 1, event }));
      inner({ type: "turnStarted", sessionId: "sub" });
      inner({ type: "toolStart", sessionId: "sub", call: w(id) });
      inner({
        type: "approvalRequired",
        sessionId: "sub",
        request: { toolCallId: id, name: "write_file", labelShort: id, labelFull: id, path: null, arguments: {}, reason: "asks", kind: { type: "generic" } },
      });
    }
    m.set(view);
    await new Promise((r) => setTimeout(r, 0));
    for (const t of ["t1", "t2"]) expect((root.querySelector(`.tool-card[data-tool-call=${t}]`) as HTMLDetailsElement).open).toBe(true);
    expect(root.querySelector("[data-testid=approve-all-bar]")!.textContent).toContain("2 calls wait");
    (root.querySelector("[data-testid=approve-all]") as HTMLElement).click();
    expect(approve.mock.calls.map(([id]) => id)).toEqual(["a1", "a2"]);
    root.remove();
  });

  it("the late scroll event of the page's own jump, after the content grew, does not stop the following", () => {
    let height = 1800;
    const root = document.createElement("div");
    document.body.append(root);
    let view = running();
    const m = mountConversation(root, view, { openFile: vi.fn() });
    const g = laidOut(root, () => height);
    g.scrollTo(1500);
    view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "a" });
    m.set(view);
    expect(g.top()).toBe(1500);
    // A card 500 px high arrives before the browser reports that jump.
    height = 2300;
    g.conv.dispatchEvent(new Event("scroll"));
    m.set(applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "b" }));
    expect(g.top()).toBe(2000);
    root.remove();
  });
});

describe("long histories", () => {
  it("1,000 messages open with a bounded number of nodes; scrolling up brings earlier ones", () => {
    let view = emptyView();
    for (let i = 0; i < 500; i++) {
      view = addUserMessage(view, `question ${i}`);
      view = applyEvent(view, { type: "assistantMessage", sessionId: "s", messageId: i, text: `answer ${i}` });
    }
    expect(view.messages.length).toBe(1000);
    const root = document.createElement("div");
    const paging = createPaging(60);
    renderConversation(root, view, vi.fn(), undefined, undefined, paging);
    const keys = () => Array.from(root.querySelectorAll("[data-key]")).map((n) => (n as HTMLElement).dataset.key);
    expect(keys().length).toBe(60);
    expect(keys().at(-1)).toBe("m499");
    expect(root.querySelector("[data-testid=load-earlier]")!.textContent).toContain("940");
    // Scrolled to the top: the previous page comes, the newest stay.
    const conv = root.querySelector("[data-testid=conversation]") as HTMLElement;
    conv.scrollTop = 0;
    conv.dispatchEvent(new Event("scroll"));
    expect(keys().length).toBe(120);
    expect(keys()[0]).toBe(view.messages[880].key);
    expect(keys().at(-1)).toBe("m499");
    // The button does the same.
    (root.querySelector("[data-testid=load-earlier]") as HTMLElement).click();
    expect(keys().length).toBe(180);
    expect(keys()[0]).toBe(view.messages[820].key);
    expect(root.querySelector("[data-testid=load-earlier]")!.textContent).toContain("820");
    // Rendering 180 messages under jsdom on a loaded machine takes seconds; the assertion is the count, not the time.
  }, 60_000);
});

describe("message actions", () => {
  const usage = (input: number, output: number, cost: number | null) => ({ inputTokens: input, outputTokens: output, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, costUsd: cost });
  const base = { toolCalls: [], createdAt: 0, reasoning: null, usage: null };
  function stored(): ChatView {
    return fromHistory([
      { ...base, id: 1, role: "user", content: "first" },
      { ...base, id: 2, role: "assistant", content: "Reading.", usage: usage(1000, 20, 0.001) },
      { ...base, id: 3, role: "assistant", content: "Here:\n\n```js\nconst x = 1;\n```", usage: usage(1200, 30, 0.002), model: "mock-model" } as never,
      { ...base, id: 4, role: "user", content: "second" },
      { ...base, id: 5, role: "assistant", content: "Done.", usage: usage(1500, 5, null) },
    ]);
  }

  it("copy the whole message and each code block", async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const root = document.createElement("div");
    document.body.append(root);
    renderConversation(root, stored(), vi.fn());
    const code = root.querySelector("[data-key=m3] [data-testid=copy-code]") as HTMLElement;
    code.click();
    await Promise.resolve();
    expect(writeText).toHaveBeenLastCalledWith("const x = 1;\n");
    (root.querySelector("[data-key=m3] [data-testid=copy-message]") as HTMLElement).click();
    await Promise.resolve();
    expect(writeText).toHaveBeenLastCalledWith("Here:\n\n```js\nconst x = 1;\n```");
    root.remove();
  });

  it("each turn's tokens, cost and model under its last answer", () => {
    const root = document.createElement("div");
    renderConversation(root, stored(), vi.fn());
    const usages = Array.from(root.querySelectorAll("[data-testid=msg-usage]")).map((n) => [(n.closest("[data-key]") as HTMLElement).dataset.key, n.textContent]);
    expect(usages).toEqual([
      ["m3", "mock-model · 2.2k in · 50 out · $0.0030"],
      ["m5", "1.5k in · 5 out"],
    ]);
  });

  it("edit the last message, regenerate the last answer: offered there only, and only when idle", () => {
    const h = { edit: vi.fn(), regenerate: vi.fn(), retry: vi.fn() };
    const root = document.createElement("div");
    document.body.append(root);
    const { set } = mountConversation(root, stored(), { openFile: vi.fn(), ...h });
    expect(root.querySelectorAll("[data-testid=edit-message]").length).toBe(1);
    expect(root.querySelector("[data-key=m4] [data-testid=edit-message]")).not.toBeNull();
    expect(root.querySelectorAll("[data-testid=regenerate]").length).toBe(1);
    (root.querySelector("[data-key=m5] [data-testid=regenerate]") as HTMLElement).click();
    expect(h.regenerate).toHaveBeenCalledTimes(1);
    (root.querySelector("[data-key=m4] [data-testid=edit-message]") as HTMLElement).click();
    const editor = root.querySelector("[data-key=m4] [data-testid=edit-input]") as HTMLTextAreaElement;
    expect(editor.value).toBe("second");
    editor.value = "second, better";
    (root.querySelector("[data-key=m4] [data-testid=edit-send]") as HTMLElement).click();
    expect(h.edit).toHaveBeenCalledWith("second, better");
    set({ ...stored(), running: true });
    expect(root.querySelector("[data-testid=regenerate]")).toBeNull();
    expect(root.querySelector("[data-testid=edit-message]")).toBeNull();
    root.remove();
  });

  it("a failed turn keeps its error in the history with Retry", () => {
    const retry = vi.fn();
    const view = fromHistory([{ ...base, id: 1, role: "user", content: "hi", error: "rate limited" } as never]);
    const root = document.createElement("div");
    document.body.append(root);
    mountConversation(root, view, { openFile: vi.fn(), retry });
    expect(root.querySelector("[data-key=m1] [data-testid=msg-error]")!.textContent).toBe("The turn failed: rate limited");
    (root.querySelector("[data-key=m1] [data-testid=retry]") as HTMLElement).click();
    expect(retry).toHaveBeenCalledTimes(1);
    root.remove();
  });

  it("an incomplete answer says who cut it: the person, or the connection with its error", () => {
    const msg = { createdAt: 0, reasoning: null, usage: null, toolCalls: [], role: "assistant" as const, incomplete: true };
    const view = fromHistory([
      { ...msg, id: 1, content: "Half", incompleteCause: { by: "cut", error: "connection reset" } },
      { id: 2, createdAt: 0, reasoning: null, usage: null, toolCalls: [], role: "user", content: "go on" },
      { ...msg, id: 3, content: "Well", incompleteCause: { by: "stopped" } },
    ]);
    const root = document.createElement("div");
    document.body.append(root);
    mountConversation(root, view, { openFile: vi.fn() });
    const note = (key: string) => root.querySelector(`[data-key=${key}] [data-testid=msg-incomplete]`);
    expect(note("m1")!.textContent).toBe("The answer was cut off before it finished: connection reset");
    expect(note("m1")!.getAttribute("data-cause")).toBe("cut");
    expect(note("m3")!.textContent).toBe("You stopped this answer before it finished.");
    root.remove();
  });

  it("a live failure offers Retry beside its note", () => {
    const retry = vi.fn();
    let view = addUserMessage(emptyView(), "hi");
    view = applyEvent(view, { type: "turnEnded", sessionId: "s", outcome: { kind: "failed", message: "boom" } });
    const root = document.createElement("div");
    document.body.append(root);
    mountConversation(root, view, { openFile: vi.fn(), retry });
    expect(root.querySelector(".turn-note")!.textContent).toBe("The turn failed: boom");
    (root.querySelector(".turn-end [data-testid=retry]") as HTMLElement).click();
    expect(retry).toHaveBeenCalledTimes(1);
    root.remove();
  });

  it("several waiting calls of one message: all shown, one click approves them all", async () => {
    const w = (id: string): ToolCallView => ({ ...call, id, name: "write_file", status: "pending", result: null });
    let view = applyEvent(addUserMessage(emptyView(), "go"), { type: "turnStarted", sessionId: "s" });
    for (const id of ["a1", "a2", "a3"]) {
      view = applyEvent(view, { type: "toolStart", sessionId: "s", call: w(id) });
      view = applyEvent(view, {
        type: "approvalRequired",
        sessionId: "s",
        request: { toolCallId: id, name: "write_file", labelShort: id, labelFull: id, path: null, arguments: {}, reason: "asks", kind: { type: "generic" } },
      });
    }
    const approve = vi.fn().mockResolvedValue(undefined);
    const actions = { approve, reject: vi.fn(), previewAlwaysAllow: vi.fn(), alwaysAllow: vi.fn() };
    const root = document.createElement("div");
    document.body.append(root);
    renderConversation(root, view, vi.fn(), actions);
    expect(root.querySelectorAll("[data-testid=approval]").length).toBe(3);
    expect(root.querySelector("[data-testid=approve-all-bar]")!.textContent).toContain("3 calls wait");
    (root.querySelector("[data-testid=approve-all]") as HTMLElement).click();
    expect(approve.mock.calls.map(([id]) => id)).toEqual(["a1", "a2", "a3"]);
    // One left: no bar.
    view = applyEvent(view, { type: "toolAllowed", sessionId: "s", toolCallId: "a1", reason: "approved" });
    view = applyEvent(view, { type: "toolAllowed", sessionId: "s", toolCallId: "a2", reason: "approved" });
    renderConversation(root, view, vi.fn(), actions);
    expect(root.querySelector("[data-testid=approve-all-bar]")).toBeNull();
    root.remove();
  });
});

describe("context management on the page", () => {
  it("a summary divider expands to its text; a retry notice counts down", () => {
    const summary = { id: 3, content: "Earlier: **set up**.", firstMessageId: 1, lastMessageId: 2, messageCount: 2, coveredTokens: 900, manual: true, createdAt: 0 };
    let view = fromHistory([
      { toolCalls: [], createdAt: 0, reasoning: null, usage: null, id: 1, role: "user", content: "a" },
      { toolCalls: [], createdAt: 0, reasoning: null, usage: null, id: -3, role: "system", content: summary.content, summary },
    ]);
    view = applyEvent(view, { type: "turnStarted", sessionId: "s" });
    view = applyEvent(view, { type: "retrying", sessionId: "s", attempt: 2, maxAttempts: 5, delayMs: 3000, reason: "rate limited", detail: "HTTP 429" });
    const root = document.createElement("div");
    renderConversation(root, view, vi.fn());
    const divider = root.querySelector("[data-testid=summary-divider]") as HTMLDetailsElement;
    expect(divider.open).toBe(false);
    expect(divider.querySelector("summary")!.textContent).toContain("Compacted: the 2 messages above (about 900 tokens)");
    expect(divider.querySelector(".md strong")!.textContent).toBe("set up");
    expect(root.querySelector("[data-testid=retrying]")!.textContent).toBe("rate limited, retrying in 3 s, attempt 2 of 5");
    view = applyEvent(view, { type: "tokenDelta", sessionId: "s", text: "ok" });
    renderConversation(root, view, vi.fn());
    expect(root.querySelector("[data-testid=retrying]")).toBeNull();
  });
});
