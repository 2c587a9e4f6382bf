// @vitest-environment jsdom
// jsdom, not happy-dom: DOMPurify only sanitises correctly on a spec-complete DOM.
import { describe, expect, it, vi } from "vitest";
import type { ToolCallView } from "../bindings";
import { renderConversation, toolCard } from "./render";
import { addUserMessage, applyEvent, emptyView } from "./state";

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
    expect(open).toHaveBeenCalledWith("notes.md");
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
});
