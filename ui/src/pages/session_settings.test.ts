import { describe, expect, it, vi } from "vitest";
import { bypassScope, parseList, sessionSettingsPanel } from "./session_settings";

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

  it("adds a timed bypass for a scope the person picks", async () => {
    const api = fakeApi();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const panel = sessionSettingsPanel("s1", { api: api as any });
    (panel as HTMLDetailsElement).open = true;
    panel.dispatchEvent(new Event("toggle"));
    await flush();
    await flush();
    const kind = panel.querySelector("[name=bypassKind]") as HTMLSelectElement;
    const value = panel.querySelector("[name=bypassValue]") as HTMLInputElement;
    const minutes = panel.querySelector("[name=bypassMinutes]") as HTMLSelectElement;
    const add = panel.querySelector("[data-testid=add-bypass]") as HTMLButtonElement;
    kind.value = "category:Filesystem";
    add.click();
    expect(api.addBypass).toHaveBeenLastCalledWith("s1", { kind: "category", category: "Filesystem" }, 60);
    kind.value = "tool";
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
