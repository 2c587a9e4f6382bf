import { createSignal } from "solid-js";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionSummary } from "../bindings";
import { mountSolid } from "../solid";
import { SEARCH_DELAY_MS, SessionList, UNDO_MS } from "./session_list";

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

let dispose: (() => void) | null = null;
afterEach(() => {
  dispose?.();
  dispose = null;
  vi.useRealTimers();
});

function mount(sessions: SessionSummary[], current: string | null, deps = fakeDeps()) {
  const root = document.body.appendChild(document.createElement("div"));
  const [rows, setRows] = createSignal(sessions);
  dispose = mountSolid(root, () => <SessionList sessions={rows()} current={current} deps={deps} />);
  return { root, deps, setRows };
}

const click = (root: HTMLElement, css: string) => (root.querySelector(css) as HTMLButtonElement).click();

describe("session list", () => {
  it("renames in place with Enter, and Esc keeps the old title without reaching the page", async () => {
    const { root, deps } = mount([s("a", "Old title")], "a");
    click(root, "[data-testid=rename-session]");
    const input = root.querySelector("[data-testid=session-title-input]") as HTMLInputElement;
    expect(input.value).toBe("Old title");
    input.value = "  New title ";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await vi.waitFor(() => expect(root.querySelector("[data-session=a] a")?.textContent).toBe("New title"));
    expect(deps.api.renameSession).toHaveBeenCalledWith("a", "  New title ");
    expect(root.querySelector("[data-testid=session-title-input]")).toBeNull();

    const pageEsc = vi.fn();
    document.addEventListener("keydown", pageEsc);
    click(root, "[data-testid=rename-session]");
    const again = root.querySelector("[data-testid=session-title-input]") as HTMLInputElement;
    again.value = "Dropped";
    again.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
    document.removeEventListener("keydown", pageEsc);
    expect(pageEsc).not.toHaveBeenCalled();
    expect(root.querySelector("[data-session=a] a")?.textContent).toBe("New title");
    expect(deps.api.renameSession).toHaveBeenCalledTimes(1);
  });

  it("deletes only when the Undo time is over, and Undo keeps the chat", async () => {
    vi.useFakeTimers();
    const { root, deps } = mount([s("a", "One"), s("b", "Two")], "a");
    click(root, "[data-session=a] [data-testid=delete-session]");
    expect(root.querySelector("[data-session=a]")).toBeNull();
    expect(root.querySelector("[data-testid=session-status]")!.textContent).toContain("Deleted “One”");
    click(root, "[data-testid=undo-delete]");
    vi.advanceTimersByTime(UNDO_MS + 100);
    expect(deps.api.deleteSession).not.toHaveBeenCalled();
    expect(root.querySelector("[data-session=a]")).not.toBeNull();

    click(root, "[data-session=b] [data-testid=delete-session]");
    await vi.advanceTimersByTimeAsync(UNDO_MS + 100);
    expect(deps.api.deleteSession).toHaveBeenCalledWith("b");
    expect(deps.navigate).not.toHaveBeenCalled();
  });

  it("a chat waiting for its Undo stays hidden when the list is read again, and deleting the open chat leaves it", async () => {
    vi.useFakeTimers();
    const { root, deps, setRows } = mount([s("a", "One"), s("b", "Two")], "a");
    click(root, "[data-session=a] [data-testid=delete-session]");
    // A turn's end reads the list again: the deleted chat is still in it.
    setRows([s("a", "One"), s("b", "Two"), s("c", "Three")]);
    expect(root.querySelector("[data-session=a]")).toBeNull();
    expect(root.querySelector("[data-session=c]")).not.toBeNull();
    await vi.advanceTimersByTimeAsync(UNDO_MS + 100);
    expect(deps.api.deleteSession).toHaveBeenCalledWith("a");
    expect(deps.navigate).toHaveBeenCalledWith("#/chat");
  });

  it("a refused delete brings the chat back and says why", async () => {
    vi.useFakeTimers();
    const deps = fakeDeps();
    deps.api.deleteSession.mockRejectedValueOnce("a turn is running in it");
    const { root } = mount([s("a", "One")], null, deps);
    click(root, "[data-testid=delete-session]");
    await vi.advanceTimersByTimeAsync(UNDO_MS + 100);
    expect(root.querySelector("[data-session=a]")).not.toBeNull();
    expect(root.querySelector("[data-testid=session-status]")!.textContent).toContain("a turn is running");
  });

  it("searches titles and content, showing where it matched; clearing the search shows every chat", async () => {
    vi.useFakeTimers();
    const { root, deps } = mount([s("a", "One")], null);
    const search = root.querySelector("[data-testid=session-search]") as HTMLInputElement;
    search.value = "deploy";
    search.dispatchEvent(new Event("input"));
    await vi.advanceTimersByTimeAsync(SEARCH_DELAY_MS + 50);
    expect(deps.api.searchSessions).toHaveBeenCalledWith("deploy");
    expect(root.querySelector("[data-session=a]")).toBeNull();
    expect(root.querySelector("[data-session=b] .session-snippet")!.textContent).toContain("deploy script");
    search.value = "";
    search.dispatchEvent(new Event("input"));
    await vi.advanceTimersByTimeAsync(SEARCH_DELAY_MS + 50);
    expect(root.querySelector("[data-session=a]")).not.toBeNull();
    expect(root.querySelector("[data-session=b]")).toBeNull();
  });

  it("New chat opens the session the backend gives (an empty one is reused there)", async () => {
    const { root, deps } = mount([s("a", "One")], "a");
    click(root, "[data-testid=new-chat]");
    await vi.waitFor(() => expect(deps.navigate).toHaveBeenCalledWith("#/chat/new"));
    expect(deps.api.createSession).toHaveBeenCalledWith(null, null);
  });
});
