import { describe, expect, it, vi } from "vitest";
import type { PendingQuestionView } from "../bindings";
import { INBOX_REFRESH, mountInbox } from "./inbox";

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

const question: PendingQuestionView = {
  toolCallId: "q1",
  sessionId: "s1",
  sessionTitle: "Storage",
  agentId: "main",
  title: "Which database?",
  question: "Use SQLite?",
  suggestedAnswers: ["Yes", "No"],
  createdAt: 0,
};

describe("inbox", () => {
  it("lists questions beside approvals and answers one with a suggestion", async () => {
    let waiting = [question];
    const api = {
      listPending: vi.fn().mockResolvedValue([]),
      listQuestions: vi.fn(async () => waiting),
      answerQuestion: vi.fn(async () => {
        waiting = [];
      }),
      errorMessage: String,
    };
    const root = document.body.appendChild(document.createElement("div"));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountInbox(root, { api: api as any });
    expect(root.querySelector("[data-testid=inbox-count]")!.textContent).toBe("1 waiting for you");
    const item = root.querySelector("[data-testid=inbox-question][data-tool-call=q1]")!;
    expect(item.textContent).toContain("Storage");
    expect(item.textContent).toContain("Which database?");
    (item.querySelector("[data-testid=question-suggestion]") as HTMLButtonElement).click();
    await flush();
    expect(api.answerQuestion).toHaveBeenCalledWith("q1", "Yes");
    expect(root.querySelector("[data-testid=inbox-count]")!.textContent).toBe("Nothing is waiting for you.");
  });
});

describe("an approval in the inbox", () => {
  it("says the rule's reason in plain language", async () => {
    const api = {
      listPending: vi.fn().mockResolvedValue([
        {
          sessionId: "s1",
          sessionTitle: "Edits",
          createdAt: 0,
          request: { toolCallId: "c1", name: "write_file", labelShort: "write_file a.txt", labelFull: "write_file a.txt", path: "a.txt", arguments: {}, reason: "asked by rule 11: *", kind: { type: "generic" } },
        },
      ]),
      listQuestions: vi.fn().mockResolvedValue([]),
    };
    const root = document.body.appendChild(document.createElement("div"));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountInbox(root, { api: api as any });
    expect(root.querySelector("[data-testid=inbox-item][data-tool-call=c1] [data-testid=inbox-reason]")!.textContent).toBe("asks you: default rule for write_file");
  });
});

describe("a refresh of the inbox", () => {
  it("keeps an unchanged card and what is typed in it, and adds the new one", async () => {
    // Each list is a fresh array of fresh objects, as from the backend.
    let waiting: PendingQuestionView[] = [question];
    const api = {
      listPending: vi.fn().mockResolvedValue([]),
      listQuestions: vi.fn(async () => waiting.map((q) => ({ ...q }))),
      answerQuestion: vi.fn(),
      errorMessage: String,
    };
    const root = document.body.appendChild(document.createElement("div"));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const dispose = await mountInbox(root, { api: api as any });
    const card = root.querySelector("[data-testid=inbox-question][data-tool-call=q1]")!;
    const input = card.querySelector("input, textarea") as HTMLInputElement;
    input.value = "half an answer";
    waiting = [question, { ...question, toolCallId: "q2", title: "Which port?" }];
    window.dispatchEvent(new Event(INBOX_REFRESH));
    await flush();
    expect(root.querySelectorAll("[data-testid=inbox-question]").length).toBe(2);
    expect(root.querySelector("[data-testid=inbox-question][data-tool-call=q1]")).toBe(card);
    expect((card.querySelector("input, textarea") as HTMLInputElement).value).toBe("half an answer");
    dispose();
  });
});
