import { describe, expect, it, vi } from "vitest";
import type { SessionEvent, SessionSummary } from "../bindings";
import { mountChat } from "./chat";

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

function session(title: string): SessionSummary {
  return { id: "s1", title, agentId: "main", workingDir: "/w", createdAt: 0, updatedAt: 0 };
}

function fakeApi() {
  let titled = false;
  // What the backend stores as turns run (the page reads it after each turn).
  const stored: unknown[] = [];
  const row = (id: number, role: string, content: string) => ({ id, role, content, toolCalls: [], createdAt: 0, reasoning: null, usage: null });
  return {
    listSessions: vi.fn(async () => [session(titled ? "Hello there" : "")]),
    sessionHistory: vi.fn(async () => stored.slice()),
    createSession: vi.fn(),
    stopTurn: vi.fn().mockResolvedValue(true),
    attachSession: vi.fn().mockResolvedValue(false),
    resumedTurns: vi.fn().mockResolvedValue([] as string[]),
    onTurnResumed: vi.fn().mockResolvedValue(() => undefined),
    sendMessage: vi.fn(async (_id: string, text: string, onEvent: (e: SessionEvent) => void) => {
      titled = true;
      stored.push(row(1, "user", text), row(2, "assistant", `echo: ${text}`));
      onEvent({ type: "turnStarted", sessionId: "s1" });
      onEvent({ type: "tokenDelta", sessionId: "s1", text: `echo: ${text}` });
      onEvent({ type: "assistantMessage", sessionId: "s1", messageId: 2, text: `echo: ${text}` });
      onEvent({ type: "turnEnded", sessionId: "s1", outcome: { kind: "completed" } });
      return { kind: "completed" };
    }),
    approveCall: vi.fn(),
    rejectCall: vi.fn(),
    previewAlwaysAllow: vi.fn(),
    alwaysAllow: vi.fn(),
    errorMessage: String,
  };
}

describe("chat page", () => {
  it("sends on Enter, renders the turn, and refreshes the session title", async () => {
    const api = fakeApi();
    const root = document.createElement("div");
    document.body.append(root);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountChat(root, "s1", { api: api as any, navigate: vi.fn() });
    const input = root.querySelector("[data-testid=composer]") as HTMLTextAreaElement;
    input.value = "Hello there";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await flush();
    expect(api.sendMessage).toHaveBeenCalledWith("s1", "Hello there", expect.any(Function));
    const roles = Array.from(root.querySelectorAll("[data-role]")).map((n) => [n.getAttribute("data-role"), n.querySelector(".text, .md")?.textContent?.trim()]);
    expect(roles).toEqual([
      ["user", "Hello there"],
      ["assistant", "echo: Hello there"],
    ]);
    expect(root.querySelector("[data-session=s1] a")!.textContent).toBe("Hello there");
    expect((root.querySelector("[data-testid=stop]") as HTMLElement).hidden).toBe(true);
    root.remove();
  });

  it("shows a failed turn's reason", async () => {
    const api = fakeApi();
    api.sendMessage.mockRejectedValueOnce({ code: "invalid_input", message: "no provider configured" });
    const root = document.createElement("div");
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountChat(root, "s1", { api: api as any, navigate: vi.fn() });
    (root.querySelector("[data-testid=composer]") as HTMLTextAreaElement).value = "hi";
    (root.querySelector("[data-testid=send]") as HTMLButtonElement).click();
    await flush();
    expect(root.querySelector(".turn-note")!.textContent).toBe("The turn failed: no provider configured");
  });

  it("gives a stored waiting call its approval panel back, and approving it continues the turn here", async () => {
    const api = fakeApi();
    const call = {
      id: "w1",
      name: "write_file",
      labelShort: "write_file a.txt",
      labelFull: "write_file /w/a.txt",
      path: "/w/a.txt",
      arguments: { path: "/w/a.txt", content: "new\n" },
      status: "pending" as const,
      result: null,
      decisionReason: "asked by rule 9: *",
    };
    const history = [{ id: 1, role: "assistant" as const, content: "", toolCalls: [call] }];
    api.sessionHistory.mockResolvedValue(history);
    const request = {
      toolCallId: "w1",
      name: "write_file",
      labelShort: "write_file a.txt",
      labelFull: "write_file /w/a.txt",
      path: "/w/a.txt",
      arguments: call.arguments,
      reason: "asked by rule 9: *",
      kind: { type: "generic" as const },
    };
    const listPending = vi.fn().mockResolvedValue([
      { sessionId: "s1", sessionTitle: "t", request, createdAt: 0, live: false },
      { sessionId: "other", sessionTitle: "t", request: { ...request, toolCallId: "x9" }, createdAt: 0, live: false },
    ]);
    api.approveCall.mockImplementation(async (_id: string, onEvent: (e: SessionEvent) => void) => {
      onEvent({ type: "toolDone", sessionId: "s1", toolCallId: "w1", result: "wrote" });
    });
    const root = document.createElement("div");
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountChat(root, "s1", { api: { ...api, listPending } as any, navigate: vi.fn() });
    const approve = root.querySelector("[data-tool-call=w1] [data-testid=approve]") as HTMLButtonElement;
    expect(approve).not.toBeNull();
    expect(root.querySelector("[data-tool-call=x9]")).toBeNull();
    expect(root.querySelector("[data-testid=decision]")!.textContent).toBe("asks you: default rule for write_file");
    approve.click();
    await flush();
    expect(api.approveCall).toHaveBeenCalledWith("w1", expect.any(Function));
    // The history is read again once the continued turn is over.
    expect(api.sessionHistory).toHaveBeenCalledTimes(2);
  });

  it("re-attaches to a turn that runs without it: Working, Stop, no repeated messages", async () => {
    const api = fakeApi();
    const call = {
      id: "c1",
      name: "execute_cmd",
      labelShort: "execute_cmd `sleep 5`",
      labelFull: "execute_cmd `sleep 5`",
      path: null,
      arguments: { command: "sleep 5" },
      status: "running" as const,
      result: null,
      decisionReason: null,
    };
    api.sessionHistory.mockResolvedValue([
      { id: 4, role: "user", content: "run it", toolCalls: [], createdAt: 0 },
      { id: 5, role: "assistant", content: "Running.", toolCalls: [call], createdAt: 0 },
    ]);
    let later: ((e: SessionEvent) => void) | null = null;
    api.attachSession.mockImplementation(async (_id: string, onEvent: (e: SessionEvent) => void) => {
      // What the turn did before this page came back, replayed at once.
      onEvent({ type: "turnStarted", sessionId: "s1" });
      onEvent({ type: "tokenDelta", sessionId: "s1", text: "Running." });
      onEvent({ type: "assistantMessage", sessionId: "s1", messageId: 5, text: "Running." });
      onEvent({ type: "toolStart", sessionId: "s1", call });
      later = onEvent;
      return true;
    });
    const root = document.createElement("div");
    document.body.append(root);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountChat(root, "s1", { api: api as any, navigate: vi.fn() });
    await flush();
    const stop = root.querySelector("[data-testid=stop]") as HTMLButtonElement;
    const send = root.querySelector("[data-testid=send]") as HTMLButtonElement;
    expect(stop.hidden).toBe(false);
    expect(send.disabled).toBe(true);
    expect(root.textContent?.match(/Running\./g)?.length).toBe(1);
    stop.click();
    expect(api.stopTurn).toHaveBeenCalledWith("s1");
    // The live events keep coming to this page.
    later!({ type: "toolCancelled", sessionId: "s1", toolCallId: "c1", reason: "Cancelled: the user stopped this call before it finished." });
    later!({ type: "turnEnded", sessionId: "s1", outcome: { kind: "cancelled" } });
    await flush();
    expect(stop.hidden).toBe(true);
    expect(send.disabled).toBe(false);
    // The history is read again when the turn ends; how it ended stays shown.
    expect(api.sessionHistory).toHaveBeenCalledTimes(2);
    expect(root.querySelector(".turn-note")?.textContent).toBe("Stopped.");
  });

  it("follows a turn crash resume starts after the page loaded, under a banner, stoppable", async () => {
    const api = fakeApi();
    let announce: ((sessionId: string) => void) | null = null;
    api.onTurnResumed.mockImplementation(async (handler: (sessionId: string) => void) => {
      announce = handler;
      return () => undefined;
    });
    const root = document.createElement("div");
    document.body.append(root);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountChat(root, "s1", { api: api as any, navigate: vi.fn() });
    await flush();
    const banner = root.querySelector("[data-testid=resumed-banner]") as HTMLElement;
    const stop = root.querySelector("[data-testid=stop]") as HTMLButtonElement;
    // Nothing runs yet: no banner, no Stop.
    expect(banner.hidden).toBe(true);
    expect(stop.hidden).toBe(true);
    expect(api.attachSession).toHaveBeenCalledTimes(1);

    let live: ((e: SessionEvent) => void) | null = null;
    api.attachSession.mockImplementation(async (_id: string, onEvent: (e: SessionEvent) => void) => {
      onEvent({ type: "turnStarted", sessionId: "s1" });
      live = onEvent;
      return true;
    });
    // Another session's resume is not this page's business.
    announce!("s2");
    await flush();
    expect(api.attachSession).toHaveBeenCalledTimes(1);
    announce!("s1");
    await flush();
    expect(api.attachSession).toHaveBeenCalledTimes(2);
    expect(banner.hidden).toBe(false);
    expect(banner.textContent).toContain("resumed after a crash");
    expect(stop.hidden).toBe(false);
    live!({ type: "tokenDelta", sessionId: "s1", text: "Picking up where I was" });
    await new Promise((r) => requestAnimationFrame(() => r(undefined)));
    expect(root.textContent).toContain("Picking up where I was");
    stop.click();
    expect(api.stopTurn).toHaveBeenCalledWith("s1");
    live!({ type: "turnEnded", sessionId: "s1", outcome: { kind: "cancelled" } });
    await flush();
    expect(stop.hidden).toBe(true);
    // A second announcement while following would attach twice: it did not.
    expect(api.attachSession).toHaveBeenCalledTimes(2);
    root.remove();
  });

  it("shows the banner for a resumed turn already running when the page opens", async () => {
    const api = fakeApi();
    api.resumedTurns.mockResolvedValue(["s1"]);
    api.attachSession.mockImplementation(async (_id: string, onEvent: (e: SessionEvent) => void) => {
      onEvent({ type: "turnStarted", sessionId: "s1" });
      return true;
    });
    const root = document.createElement("div");
    document.body.append(root);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountChat(root, "s1", { api: api as any, navigate: vi.fn() });
    await flush();
    expect((root.querySelector("[data-testid=resumed-banner]") as HTMLElement).hidden).toBe(false);
    expect((root.querySelector("[data-testid=stop]") as HTMLElement).hidden).toBe(false);
    root.remove();
  });
});


describe("chat page mounted twice in quick succession", () => {
  it("keeps the newer mount even when the older one's first read ends last, and the older cleanup leaves it", async () => {
    const slow = fakeApi();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    slow.listSessions.mockImplementationOnce(async () => {
      await gate;
      return [session("")];
    });
    const fast = fakeApi();
    const root = document.createElement("div");
    document.body.append(root);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const older = mountChat(root, "s1", { api: slow as any, navigate: vi.fn() });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const newer = await mountChat(root, "s1", { api: fast as any, navigate: vi.fn() });
    release();
    const olderCleanup = await older;
    // The route that started first ends last and runs its cleanup at once.
    olderCleanup();
    await flush();
    expect(root.querySelector("[data-testid=composer]")).not.toBeNull();
    expect(slow.sessionHistory).not.toHaveBeenCalled();
    newer();
    expect(root.querySelector("[data-testid=composer]")).toBeNull();
    root.remove();
  });
});

describe("chat page mounted again while its history loads", () => {
  it("the older mount's late cleanup leaves the newer mount (New chat while the chat still read its history)", async () => {
    const slow = fakeApi();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const history = slow.sessionHistory.getMockImplementation();
    slow.sessionHistory.mockImplementationOnce(async (...args: unknown[]) => {
      await gate;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      return (history as any)(...args);
    });
    const fast = fakeApi();
    const older = document.createElement("div");
    const newerRoot = document.createElement("div");
    document.body.append(older, newerRoot);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const olderMount = mountChat(older, "s1", { api: slow as any, navigate: vi.fn() });
    await flush();
    expect(slow.sessionHistory).toHaveBeenCalled();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const newer = await mountChat(newerRoot, "s1", { api: fast as any, navigate: vi.fn() });
    release();
    const olderCleanup = await olderMount;
    // The router ends the older route's page as soon as its mount resolves.
    olderCleanup();
    await flush();
    expect(newerRoot.querySelector("[data-testid=composer]")).not.toBeNull();
    newer();
    expect(newerRoot.querySelector("[data-testid=composer]")).toBeNull();
    older.remove();
    newerRoot.remove();
  });
});

describe("chat page and the companion tools", () => {
  it("opens a shown file in the viewer, relative to the session's directory", async () => {
    const api = fakeApi();
    api.sendMessage = vi.fn(async (_id: string, _text: string, onEvent: (e: SessionEvent) => void) => {
      onEvent({ type: "turnStarted", sessionId: "s1" });
      onEvent({ type: "openFile", sessionId: "s1", path: "docs/a.md" });
      onEvent({ type: "turnEnded", sessionId: "s1", outcome: { kind: "completed" } });
      return { kind: "completed" };
    });
    const navigate = vi.fn();
    const root = document.createElement("div");
    document.body.append(root);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountChat(root, "s1", { api: api as any, navigate });
    const input = root.querySelector("[data-testid=composer]") as HTMLTextAreaElement;
    input.value = "show it";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
    await flush();
    expect(navigate).toHaveBeenCalledWith("#/view?path=%2Fw%2Fdocs%2Fa.md");
    root.remove();
  });
});

describe("chat page: edit, regenerate, retry", () => {
  it("regenerate drops the last answer at once, runs the turn here and reads the history after", async () => {
    const api = fakeApi();
    const base = { toolCalls: [], createdAt: 0, reasoning: null, usage: null };
    api.sessionHistory
      .mockResolvedValueOnce([
        { ...base, id: 1, role: "user", content: "hi" },
        { ...base, id: 2, role: "assistant", content: "first answer" },
      ])
      .mockResolvedValue([
        { ...base, id: 1, role: "user", content: "hi" },
        { ...base, id: 3, role: "assistant", content: "second answer" },
      ]);
    let seen: string[] = [];
    const regenerateAnswer = vi.fn(async (_id: string, onEvent: (e: SessionEvent) => void) => {
      seen = Array.from(root.querySelectorAll("[data-role=assistant]")).map((n) => n.textContent ?? "");
      onEvent({ type: "turnStarted", sessionId: "s1" });
      onEvent({ type: "assistantMessage", sessionId: "s1", messageId: 3, text: "second answer" });
      onEvent({ type: "turnEnded", sessionId: "s1", outcome: { kind: "completed" } });
      return { kind: "completed" };
    });
    const editLastMessage = vi.fn().mockResolvedValue({ kind: "completed" });
    const root = document.createElement("div");
    document.body.append(root);
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountChat(root, "s1", { api: { ...api, regenerateAnswer, editLastMessage } as any, navigate: vi.fn() });
    (root.querySelector("[data-testid=regenerate]") as HTMLElement).click();
    await flush();
    expect(regenerateAnswer).toHaveBeenCalledWith("s1", expect.any(Function));
    expect(seen).toEqual([]);
    expect(root.textContent).toContain("second answer");
    expect(api.sessionHistory).toHaveBeenCalledTimes(2);
    // Without retry_turn on the api there is no Retry button anywhere.
    expect(root.querySelector("[data-testid=retry]")).toBeNull();
    root.remove();
  });
});
