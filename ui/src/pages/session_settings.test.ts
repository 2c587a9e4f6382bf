import { describe, expect, it, vi } from "vitest";
import { parseList, sessionSettingsPanel } from "./session_settings";

const flush = () => new Promise((r) => setTimeout(r, 0));

function fakeApi() {
  return {
    getRunContext: vi.fn().mockResolvedValue({
      permissionGroup: "default",
      extraSystemPrompt: null,
      allowFsReads: ["/data"],
      allowFsWrites: [],
      workingDir: "/w",
    }),
    listGroups: vi.fn().mockResolvedValue([
      { name: "default", description: "", builtin: true },
      { name: "strict", description: "", builtin: false },
    ]),
    setRunContext: vi.fn().mockResolvedValue(undefined),
    addBypass: vi.fn().mockResolvedValue(undefined),
    clearBypasses: vi.fn().mockResolvedValue(undefined),
    errorMessage: String,
  };
}

describe("session settings", () => {
  it("loads on open and saves the edited RunContext", async () => {
    const api = fakeApi();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const panel = sessionSettingsPanel("s1", { api: api as any });
    expect(api.getRunContext).not.toHaveBeenCalled();
    (panel as HTMLDetailsElement).open = true;
    panel.dispatchEvent(new Event("toggle"));
    await flush();
    await flush();
    const group = panel.querySelector("[name=permissionGroup]") as HTMLSelectElement;
    expect(group.value).toBe("default");
    group.value = "strict";
    (panel.querySelector("[name=allowFsWrites]") as HTMLTextAreaElement).value = "/w/out\n\n /tmp/x \n";
    (panel.querySelector("[data-testid=save-run-context]") as HTMLButtonElement).click();
    expect(api.setRunContext).toHaveBeenCalledWith("s1", {
      permissionGroup: "strict",
      extraSystemPrompt: null,
      allowFsReads: ["/data"],
      allowFsWrites: ["/w/out", "/tmp/x"],
      workingDir: "/w",
    });
  });

  it("adds a timed bypass for file tools", async () => {
    const api = fakeApi();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const panel = sessionSettingsPanel("s1", { api: api as any });
    (panel as HTMLDetailsElement).open = true;
    panel.dispatchEvent(new Event("toggle"));
    await flush();
    await flush();
    const btn = Array.from(panel.querySelectorAll("button")).find((b) => b.textContent?.includes("file tools"))!;
    btn.click();
    expect(api.addBypass).toHaveBeenCalledWith("s1", { kind: "category", category: "Filesystem" }, 60);
  });

  it("parses one path per line", () => {
    expect(parseList(" a \n\nb\n")).toEqual(["a", "b"]);
  });
});
