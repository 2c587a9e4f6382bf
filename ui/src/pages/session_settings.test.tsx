import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunContextView } from "../bindings";
import { BYPASSES_CHANGED } from "../chat/bypass";
import { mountSolid } from "../solid";
import { bypassScope, parseList, SessionSettings, type SessionSettingsApi } from "./session_settings";

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
    pickFolder: vi.fn().mockResolvedValue("/home/p/project"),
    errorMessage: String,
  };
}

let dispose: (() => void) | null = null;
afterEach(() => {
  dispose?.();
  dispose = null;
});

async function opened(api: ReturnType<typeof fakeApi>, onSaved?: (ctx: RunContextView) => void): Promise<HTMLElement> {
  const root = document.body.appendChild(document.createElement("div"));
  dispose = mountSolid(root, () => <SessionSettings sessionId="s1" api={api as unknown as SessionSettingsApi} onSaved={onSaved} />);
  const panel = root.querySelector("[data-testid=session-settings]") as HTMLDetailsElement;
  expect(api.getRunContext).not.toHaveBeenCalled();
  panel.open = true;
  panel.dispatchEvent(new Event("toggle"));
  await vi.waitFor(() => expect(panel.querySelector("[name=permissionGroup]")).not.toBeNull());
  return panel;
}

describe("session settings", () => {
  it("loads on open and saves the edited RunContext", async () => {
    const api = fakeApi();
    const panel = await opened(api);
    const group = panel.querySelector("[name=permissionGroup]") as HTMLSelectElement;
    expect(group.value).toBe("default");
    expect((panel.querySelector("[name=allowFsReads]") as HTMLTextAreaElement).value).toBe("/data");
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
    await vi.waitFor(() => expect(panel.querySelector("[role=status]")!.textContent).toBe("Saved."));
  });

  it("Choose… opens the folder dialog from the current directory and saves the folder picked", async () => {
    const api = fakeApi();
    const saved = vi.fn();
    const panel = await opened(api, saved);
    (panel.querySelector("[data-testid=choose-working-dir]") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(api.setRunContext).toHaveBeenCalled());
    // The chat page hears the new folder (it resolves opened files there).
    await vi.waitFor(() => expect(saved).toHaveBeenCalledWith(expect.objectContaining({ workingDir: "/home/p/project" })));
    expect(api.pickFolder).toHaveBeenCalledWith("/w");
    expect(api.setRunContext.mock.calls[0][1].workingDir).toBe("/home/p/project");
    expect((panel.querySelector("[data-testid=working-dir]") as HTMLInputElement).value).toBe("/home/p/project");
    await vi.waitFor(() => expect(panel.querySelector("[role=status]")!.textContent).toBe("Working directory: /home/p/project"));
    // Cancelling the dialog changes nothing.
    api.pickFolder.mockResolvedValueOnce(null);
    (panel.querySelector("[data-testid=choose-working-dir]") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(api.pickFolder).toHaveBeenCalledTimes(2));
    await new Promise((r) => setTimeout(r, 0));
    expect(api.setRunContext).toHaveBeenCalledTimes(1);
    expect((panel.querySelector("[data-testid=working-dir]") as HTMLInputElement).value).toBe("/home/p/project");
  });

  it("adds a timed bypass for a scope the person picks, and tells the chat's bar", async () => {
    const api = fakeApi();
    const panel = await opened(api);
    const changed = vi.fn();
    document.addEventListener(BYPASSES_CHANGED, changed);
    const kind = panel.querySelector("[name=bypassKind]") as HTMLSelectElement;
    const value = panel.querySelector("[name=bypassValue]") as HTMLInputElement;
    const minutes = panel.querySelector("[name=bypassMinutes]") as HTMLSelectElement;
    const add = panel.querySelector("[data-testid=add-bypass]") as HTMLButtonElement;
    expect(value.hidden).toBe(true);
    kind.value = "category:Filesystem";
    add.click();
    expect(api.addBypass).toHaveBeenLastCalledWith("s1", { kind: "category", category: "Filesystem" }, 60);
    kind.value = "tool";
    kind.dispatchEvent(new Event("change"));
    expect(value.hidden).toBe(false);
    value.value = " execute_cmd ";
    minutes.value = "15";
    add.click();
    expect(api.addBypass).toHaveBeenLastCalledWith("s1", { kind: "tool", name: "execute_cmd" }, 15);
    kind.value = "mcp";
    value.value = "gmail";
    minutes.value = "";
    add.click();
    expect(api.addBypass).toHaveBeenLastCalledWith("s1", { kind: "mcpServer", server: "gmail" }, null);
    // A tool scope without a name is not sent.
    kind.value = "tool";
    value.value = "";
    add.click();
    expect(api.addBypass).toHaveBeenCalledTimes(3);
    expect(panel.querySelector("[role=status]")!.textContent).toContain("Name the tool");
    await vi.waitFor(() => expect(changed).toHaveBeenCalledTimes(3));
    document.removeEventListener(BYPASSES_CHANGED, changed);
  });

  it("says why it cannot load", async () => {
    const api = fakeApi();
    api.getRunContext.mockRejectedValueOnce("no session s1");
    const root = document.body.appendChild(document.createElement("div"));
    dispose = mountSolid(root, () => <SessionSettings sessionId="s1" api={api as unknown as SessionSettingsApi} />);
    const panel = root.querySelector("[data-testid=session-settings]") as HTMLDetailsElement;
    panel.open = true;
    panel.dispatchEvent(new Event("toggle"));
    await vi.waitFor(() => expect(panel.querySelector(".error")?.textContent).toBe("no session s1"));
  });

  it("builds every bypass scope, and says what is missing", () => {
    expect(bypassScope("all", "")).toEqual({ kind: "all" });
    expect(bypassScope("category:Shell", "")).toEqual({ kind: "category", category: "Shell" });
    expect(bypassScope("category:Nope", "")).toBe("unknown category Nope");
    expect(bypassScope("mcp", "  ")).toBe("Name the MCP server.");
  });

  it("parses one path per line", () => {
    expect(parseList(" a \n\nb\n")).toEqual(["a", "b"]);
  });
});
