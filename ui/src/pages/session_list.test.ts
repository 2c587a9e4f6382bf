import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionSummary } from "../bindings";
import { UNDO_MS, sessionList } from "./session_list";

const s = (id: string, title: string): SessionSummary => ({ id, title, agentId: "main", workingDir: null, createdAt: 0, updatedAt: 0 });

function fakeDeps() {
  return {
    api: {
      createSession: vi.fn(async () => s("new", "")),
      renameSession: vi.fn(async (id: string, title: string) => s(id, title.trim())),
      deleteSession: vi.fn(async () => true),
      searchSessions: vi.fn(async () => [{ session: s("b", "Deploy"), snippet: "…the deploy script lives in ops…" }]),
      errorMessage: (e: unknown) => String(e),
    },
    navigate: vi.fn(),
  };
}

afterEach(() => vi.useRealTimers());

describe("session list", () => {
  it("renames in place with Enter", async () => {
    const deps = fakeDeps();
    const list = sessionList([s("a", "Old title")], "a", deps);
    (list.querySelector("[data-testid=rename-session]") as HTMLButtonElement).click();
    const input = list.querySelector("[data-testid=session-title-input]") as HTMLInputElement;
    input.value = "  New title ";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await vi.waitFor(() => expect(list.querySelector("[data-session=a] a")?.textContent).toBe("New title"));
    expect(deps.api.renameSession).toHaveBeenCalledWith("a", "  New title ");
  });

  it("deletes only when the Undo time is over, and Undo keeps the chat", async () => {
    vi.useFakeTimers();
    const deps = fakeDeps();
    const list = sessionList([s("a", "One"), s("b", "Two")], "a", deps);
    (list.querySelector("[data-session=a] [data-testid=delete-session]") as HTMLButtonElement).click();
    expect(list.querySelector("[data-session=a]")).toBeNull();
    expect(list.querySelector("[data-testid=session-status]")!.textContent).toContain("Deleted “One”");
    (list.querySelector("[data-testid=undo-delete]") as HTMLButtonElement).click();
    vi.advanceTimersByTime(UNDO_MS + 100);
    expect(deps.api.deleteSession).not.toHaveBeenCalled();
    expect(list.querySelector("[data-session=a]")).not.toBeNull();

    (list.querySelector("[data-session=b] [data-testid=delete-session]") as HTMLButtonElement).click();
    await vi.advanceTimersByTimeAsync(UNDO_MS + 100);
    expect(deps.api.deleteSession).toHaveBeenCalledWith("b");
    expect(deps.navigate).not.toHaveBeenCalled();
  });

  it("searches titles and content, showing where it matched", async () => {
    vi.useFakeTimers();
    const deps = fakeDeps();
    const list = sessionList([s("a", "One")], null, deps);
    const search = list.querySelector("[data-testid=session-search]") as HTMLInputElement;
    search.value = "deploy";
    search.dispatchEvent(new Event("input"));
    await vi.advanceTimersByTimeAsync(200);
    expect(deps.api.searchSessions).toHaveBeenCalledWith("deploy");
    expect(list.querySelector("[data-session=a]")).toBeNull();
    expect(list.querySelector("[data-session=b] .session-snippet")!.textContent).toContain("deploy script");
  });
});
