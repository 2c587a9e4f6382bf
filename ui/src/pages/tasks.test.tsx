import { describe, expect, it, vi } from "vitest";
import type { TaskView } from "../bindings";
import { mountTasks } from "./tasks";

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

const cron: TaskView = {
  id: 2,
  kind: "cron",
  title: "Backups",
  description: null,
  agentId: "worker",
  prompt: "check",
  state: "scheduled",
  enabled: true,
  cron: "0 9 * * *",
  cronWords: "At 09:00",
  timeZone: "Europe/Berlin",
  nextRunAt: Date.UTC(2026, 2, 30, 7, 0),
  parentSessionId: null,
  lastRun: null,
};
const running: TaskView = {
  ...cron,
  id: 1,
  kind: "async",
  title: "Count files",
  state: "running",
  cron: null,
  cronWords: null,
  timeZone: null,
  nextRunAt: null,
  parentSessionId: "p1",
  lastRun: { id: 7, taskId: 1, status: "running", trigger: "async", startedAt: 0, finishedAt: null, sessionId: "bg1", error: null, output: null },
};
const done: TaskView = {
  ...running,
  id: 3,
  title: "Old one",
  state: "done",
  lastRun: { ...running.lastRun!, id: 8, taskId: 3, status: "done", finishedAt: 1000, sessionId: "bg3" },
};

describe("tasks", () => {
  it("groups running, scheduled and finished tasks with their actions", async () => {
    let list = [running, cron, done];
    const api = {
      listTasks: vi.fn(async () => list),
      stopTask: vi.fn(async () => {
        list = [{ ...running, state: "cancelled" }, cron, done];
        return true;
      }),
      runTaskNow: vi.fn(async () => 9),
      setTaskEnabled: vi.fn(async () => cron),
      deleteTask: vi.fn(async () => true),
      errorMessage: String,
    };
    const root = document.createElement("div");
    document.body.append(root);
    await mountTasks(root, { api }, false);
    const running1 = root.querySelector("[data-testid=tasks-running] [data-task='1']")!;
    expect(running1.textContent).toContain("Count files");
    const scheduled = root.querySelector("[data-testid=tasks-scheduled] [data-task='2']")!;
    expect(scheduled.querySelector("[data-testid=task-schedule]")!.textContent).toContain("At 09:00 0 9 * * * (Europe/Berlin)");
    // 07:00 UTC is 09:00 in Berlin (CEST), whatever zone the machine is in.
    const next = scheduled.querySelector("[data-testid=task-next]")!.textContent!;
    expect(next).toContain("next");
    expect(next).toMatch(/\b9:00\b|\b09:00\b/);
    expect(next).toContain("Europe/Berlin");
    const finished = root.querySelector("[data-testid=tasks-finished] [data-task='3']")!;
    expect(finished.querySelector("[data-testid=task-outcome]")!.textContent).toContain("done");
    expect(finished.querySelector("[data-testid=task-transcript]")!.getAttribute("href")).toBe("#/chat/bg3");
    (scheduled.querySelector("[data-testid=task-toggle]") as HTMLButtonElement).click();
    expect(api.setTaskEnabled).toHaveBeenCalledWith(2, false);
    (scheduled.querySelector("[data-testid=task-run-now]") as HTMLButtonElement).click();
    expect(api.runTaskNow).toHaveBeenCalledWith(2);
    (running1.querySelector("[data-testid=task-stop]") as HTMLButtonElement).click();
    await flush();
    expect(api.stopTask).toHaveBeenCalledWith(1);
    expect(root.querySelector("[data-task='1']")!.getAttribute("data-state")).toBe("cancelled");
    root.remove();
  });
});
