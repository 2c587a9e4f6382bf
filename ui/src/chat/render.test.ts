// @vitest-environment jsdom
// jsdom, not happy-dom: DOMPurify only sanitises correctly on a spec-complete DOM.
import { describe, expect, it, vi } from "vitest";
import type { ToolCallView } from "../bindings";
import { MAX_INLINE_IMAGE, renderConversation, toolCard } from "./render";
import { addUserMessage, applyEvent, emptyView, fromHistory } from "./state";

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
    expect(card.querySelector("[data-testid=decision]")!.textContent).toBe("allowed by rule 12: @fs_read docs/*");
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
    expect(user.textContent).toBe("<b>hi</b>");
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
    renderConversation(root, view, vi.fn());
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
