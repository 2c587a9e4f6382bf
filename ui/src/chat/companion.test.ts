import { describe, expect, it, vi } from "vitest";
import type { ScratchpadEntryView, TodoListView } from "../bindings";
import { companionPanel } from "./companion";
import { questionCard, questionFromArgs, waitingQuestion } from "./question";

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

function entry(key: string, value: string): ScratchpadEntryView {
  return { key, value, updatedAt: 0 };
}

const todos: TodoListView[] = [
  {
    frameId: 1,
    agentId: "main",
    depth: 0,
    toolCallId: "t1",
    completed: 1,
    total: 2,
    todos: [
      { content: "read", status: "completed" },
      { content: "write", status: "in_progress" },
    ],
  },
  { frameId: 2, agentId: "helper", depth: 1, toolCallId: "t2", completed: 0, total: 1, todos: [{ content: "sub step", status: "pending" }] },
];

function fakeApi(entries: ScratchpadEntryView[]) {
  let current = entries;
  return {
    getScratchpad: vi.fn(async () => current),
    setScratchpadEntry: vi.fn(async (_s: string, key: string, value: string) => {
      current = [...current.filter((e) => e.key !== key), ...(value.trim() ? [entry(key, value)] : [])];
      return current;
    }),
    removeScratchpadEntry: vi.fn(async (_s: string, key: string) => {
      current = current.filter((e) => e.key !== key);
      return current;
    }),
    sessionTodos: vi.fn(async () => todos),
  };
}

describe("companion panels", () => {
  it("says when the chat has todos, then only when a refresh finds more", async () => {
    const api = fakeApi([]);
    const onNew = vi.fn();
    api.sessionTodos.mockResolvedValueOnce([]).mockResolvedValueOnce([todos[0]]);
    const panel = companionPanel("s1", api, onNew);
    await panel.refresh();
    expect(onNew).not.toHaveBeenCalled();
    await panel.refresh();
    expect(onNew).toHaveBeenCalledTimes(1);
    await panel.refresh();
    expect(onNew).toHaveBeenCalledTimes(2);
    await panel.refresh();
    expect(onNew).toHaveBeenCalledTimes(2);
    // A chat opened with todos already written shows them at once.
    const again = vi.fn();
    await companionPanel("s1", api, again).refresh();
    expect(again).toHaveBeenCalledTimes(1);
  });

  it("edits and deletes scratchpad entries and shows each agent's todos apart", async () => {
    const api = fakeApi([entry("plan", "step 1")]);
    const panel = companionPanel("s1", api);
    const node = document.createElement("div");
    node.append(panel.scratch, panel.todos);
    document.body.append(node);
    await panel.refresh();
    const value = node.querySelector("[data-testid=scratch-value]") as HTMLTextAreaElement;
    expect(value.value).toBe("step 1");
    value.value = "step 2";
    (node.querySelector("[data-testid=scratch-save]") as HTMLButtonElement).click();
    await flush();
    expect(api.setScratchpadEntry).toHaveBeenCalledWith("s1", "plan", "step 2");
    expect((node.querySelector("[data-testid=scratch-value]") as HTMLTextAreaElement).value).toBe("step 2");
    (node.querySelector("[data-testid=scratch-delete]") as HTMLButtonElement).click();
    await flush();
    expect(api.removeScratchpadEntry).toHaveBeenCalledWith("s1", "plan");
    expect(node.querySelectorAll("[data-testid=scratch-entry]").length).toBe(0);

    const lists = node.querySelectorAll("[data-testid=todo-list]");
    expect(lists.length).toBe(2);
    expect(lists[0].textContent).toContain("main (main)");
    expect(lists[0].querySelector("[data-testid=todo-progress]")!.textContent).toBe("1/2");
    expect(lists[1].textContent).toContain("helper (sub-agent, depth 1)");
    expect(lists[1].textContent).not.toContain("read");
    node.remove();
  });

  it("does not wipe an unsaved edit on a live refresh", async () => {
    const api = fakeApi([entry("plan", "step 1")]);
    const panel = companionPanel("s1", api);
    const node = panel.scratch;
    await panel.refresh();
    const value = node.querySelector("[data-testid=scratch-value]") as HTMLTextAreaElement;
    value.value = "typing…";
    await panel.refresh();
    expect((node.querySelector("[data-testid=scratch-value]") as HTMLTextAreaElement).value).toBe("typing…");
  });
});

describe("question card", () => {
  it("answers with a suggestion button or free text", async () => {
    const answer = vi.fn().mockResolvedValue(undefined);
    const q = questionFromArgs("q1", { title: "DB?", question: "Use **SQLite**?", suggested_answers: ["SQLite", "Postgres"] })!;
    const card = questionCard(q, answer);
    expect(card.querySelector(".question-text")!.innerHTML).toContain("<strong>SQLite</strong>");
    const buttons = card.querySelectorAll<HTMLButtonElement>("[data-testid=question-suggestion]");
    expect(Array.from(buttons).map((b) => b.textContent)).toEqual(["SQLite", "Postgres"]);
    buttons[1].click();
    await flush();
    expect(answer).toHaveBeenCalledWith("q1", "Postgres");
    expect(card.classList.contains("answered")).toBe(true);

    const free = questionCard(q, answer);
    (free.querySelector("[data-testid=question-input]") as HTMLInputElement).value = "MySQL";
    (free.querySelector("[data-testid=question-send]") as HTMLButtonElement).click();
    await flush();
    expect(answer).toHaveBeenLastCalledWith("q1", "MySQL");
  });

  it("shows inline on a running card its tool presents as a question only", () => {
    const call = {
      id: "q1",
      name: "ask_user_clarification",
      labelShort: "ask_user_clarification — DB?",
      labelFull: "ask_user_clarification — DB?",
      path: null,
      arguments: { title: "DB?", question: "Which?", suggested_answers: ["A"] },
      status: "running" as const,
      result: null,
      decisionReason: null,
      presentation: "question" as const,
    };
    const answer = vi.fn();
    expect(waitingQuestion(call, answer)?.dataset.testid).toBe("question-card");
    expect(waitingQuestion({ ...call, status: "done", result: "A" }, answer)).toBeNull();
    // The tool's declaration decides, not its name: another tool presented
    // as a question gets the inline card, the same name without it does not.
    expect(waitingQuestion({ ...call, name: "ask_the_team" }, answer)?.dataset.testid).toBe("question-card");
    expect(waitingQuestion({ ...call, presentation: undefined }, answer)).toBeNull();
  });
});
