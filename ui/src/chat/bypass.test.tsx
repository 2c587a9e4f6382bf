import { render } from "solid-js/web";
import { describe, expect, it, vi } from "vitest";
import { BYPASSES_CHANGED, BypassBar, timeLeft } from "./bypass";

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

describe("the Don't-ask bar", () => {
  it("shows each live bypass with its time left and ends them all on Ask again", async () => {
    const api = {
      // After clearing, the backend has none.
      listBypasses: vi
        .fn()
        .mockResolvedValueOnce([
          { scope: { kind: "all" }, remainingMs: 59 * 60_000 + 30_000 },
          { scope: { kind: "tool", name: "execute_cmd" }, remainingMs: null },
        ])
        .mockResolvedValue([]),
      clearBypasses: vi.fn().mockResolvedValue(undefined),
    };
    const root = document.createElement("div");
    document.body.append(root);
    const dispose = render(() => <BypassBar sessionId="s1" api={api} running={false} />, root);
    await flush();
    expect(api.listBypasses).toHaveBeenCalledWith("s1");
    const items = Array.from(root.querySelectorAll("[data-testid=bypass-item]")).map((n) => n.textContent);
    expect(items).toEqual(["any tool, 60 min left", "; execute_cmd, until you stop the turn"]);
    (root.querySelector("[data-testid=end-bypass]") as HTMLElement).click();
    await flush();
    expect(api.clearBypasses).toHaveBeenCalledWith("s1");
    expect(root.querySelector("[data-testid=bypass-bar]")).toBeNull();
    dispose();
    root.remove();
  });

  it("counts from the read, not from when the bar was built", async () => {
    const api = {
      listBypasses: vi
        .fn()
        .mockResolvedValueOnce([])
        .mockResolvedValue([{ scope: { kind: "tool", name: "write_file" }, remainingMs: 15 * 60_000 }]),
      clearBypasses: vi.fn(),
    };
    const built = Date.now();
    const spy = vi.spyOn(Date, "now").mockImplementation(() => built);
    const root = document.createElement("div");
    const dispose = render(() => <BypassBar sessionId="s1" api={api} running={false} />, root);
    await flush();
    expect(root.querySelector("[data-testid=bypass-bar]")).toBeNull();
    // Two minutes later the person adds a 15-minute bypass.
    spy.mockImplementation(() => built + 120_000);
    document.dispatchEvent(new Event(BYPASSES_CHANGED));
    await flush();
    expect(root.querySelector("[data-testid=bypass-item]")!.textContent).toBe("write_file, 15 min left");
    spy.mockRestore();
    dispose();
  });

  it("shows nothing when no bypass is on", async () => {
    const api = { listBypasses: vi.fn().mockResolvedValue([]), clearBypasses: vi.fn() };
    const root = document.createElement("div");
    const dispose = render(() => <BypassBar sessionId="s1" api={api} running={false} />, root);
    await flush();
    expect(root.querySelector("[data-testid=bypass-bar]")).toBeNull();
    dispose();
  });

  it("words the time left", () => {
    expect(timeLeft(null)).toBe("until you stop the turn");
    expect(timeLeft(42_000)).toBe("42 s left");
    expect(timeLeft(15 * 60_000)).toBe("15 min left");
    expect(timeLeft(4 * 3600_000)).toBe("4 h 0 min left");
    expect(timeLeft(0)).toBe("ending");
  });
});
