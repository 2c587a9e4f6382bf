import { describe, expect, it, vi } from "vitest";
import type { RuleView } from "../bindings";
import { describeRule, exactRule, mountRules, ruleInWords } from "./rules";

const rules: RuleView[] = [
  { id: 1, group: "default", agentId: null, source: null, toolPattern: "@fs_any", pathPattern: "secrets/*", action: "deny", note: null, priority: 1000 },
  { id: 3, group: "default", agentId: null, source: null, toolPattern: "execute_cmd", pathPattern: null, action: "require", note: null, priority: 100 },
];

function fakeApi() {
  return {
    listGroups: vi.fn().mockResolvedValue([{ name: "default", description: "", builtin: true }]),
    listRules: vi.fn().mockResolvedValue(rules),
    listTools: vi.fn().mockResolvedValue({
      builtIn: [
        { name: "execute_cmd", description: "", category: "Shell", kind: "registry", subAgentsOnly: false, rootAgentOnly: false },
        { name: "read_file", description: "", category: "Filesystem", kind: "registry", subAgentsOnly: false, rootAgentOnly: false },
      ],
      mcp: [],
    }),
    addRule: vi.fn().mockResolvedValue(rules[1]),
    updateRule: vi.fn().mockResolvedValue(rules[1]),
    deleteRule: vi.fn().mockResolvedValue(true),
    createGroup: vi.fn(),
    deleteGroup: vi.fn(),
    errorMessage: (e: unknown) => String(e),
  };
}

describe("permissions page", () => {
  it("lists rules in order and the tools matrix", async () => {
    const api = fakeApi();
    const root = document.body.appendChild(document.createElement("div"));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountRules(root, "default", { api: api as any });
    expect(Array.from(root.querySelectorAll("[data-rule]")).map((r) => r.getAttribute("data-rule"))).toEqual(["1", "3"]);
    const exec = root.querySelector('[data-matrix-tool="execute_cmd"] select') as HTMLSelectElement;
    expect(exec.value).toBe("require");
    const read = root.querySelector('[data-matrix-tool="read_file"] select') as HTMLSelectElement;
    expect(read.value).toBe("(inherit)");
    // The default group cannot be deleted.
    const del = Array.from(root.querySelectorAll("button")).find((b) => b.textContent === "Delete default")!;
    expect(del.disabled).toBe(true);
  });

  it("the matrix adds an exact rule for a tool", async () => {
    const api = fakeApi();
    const root = document.body.appendChild(document.createElement("div"));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountRules(root, "default", { api: api as any });
    const read = root.querySelector('[data-matrix-tool="read_file"] select') as HTMLSelectElement;
    read.value = "allow";
    read.dispatchEvent(new Event("change"));
    expect(api.addRule).toHaveBeenCalledWith({
      group: "default",
      toolPattern: "read_file",
      pathPattern: null,
      action: "allow",
      note: "tools matrix",
      priority: 100,
    });
    const exec = root.querySelector('[data-matrix-tool="execute_cmd"] select') as HTMLSelectElement;
    exec.value = "deny";
    exec.dispatchEvent(new Event("change"));
    expect(api.updateRule).toHaveBeenCalledWith(3, expect.objectContaining({ action: "deny", toolPattern: "execute_cmd" }));
  });

  it("describes and finds rules", () => {
    expect(describeRule(rules[0])).toBe("@fs_any secrets/* → deny (priority 1000)");
    expect(exactRule(rules, "execute_cmd")?.id).toBe(3);
    expect(exactRule(rules, "@fs_any")).toBeUndefined();
  });

  it("says each rule in plain language", async () => {
    expect(ruleInWords({ toolPattern: "*", pathPattern: null, action: "require" })).toBe("asks you: the default rule (any other tool)");
    expect(ruleInWords(rules[0])).toBe("blocked: rule for fs any tools on secrets/*");
    const api = fakeApi();
    const root = document.body.appendChild(document.createElement("div"));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountRules(root, "default", { api: api as any });
    expect(root.querySelector('[data-rule="3"] [data-testid=rule-words]')!.textContent).toBe("asks you: rule for execute_cmd");
  });
});

describe("editing a rule", () => {
  it("fills the form from the rule and saves it in place", async () => {
    const api = fakeApi();
    const root = document.body.appendChild(document.createElement("div"));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountRules(root, "default", { api: api as any });
    (root.querySelector("[data-testid=edit-rule-3]") as HTMLButtonElement).click();
    const tool = root.querySelector("[name=toolPattern]") as HTMLInputElement;
    expect(tool.value).toBe("execute_cmd");
    (root.querySelector("[name=pathPattern]") as HTMLInputElement).value = "scripts/*";
    const save = root.querySelector("[data-testid=add-rule]") as HTMLButtonElement;
    expect(save.textContent).toBe("Save rule 3");
    save.click();
    expect(api.updateRule).toHaveBeenCalledWith(3, {
      group: "default",
      toolPattern: "execute_cmd",
      pathPattern: "scripts/*",
      action: "require",
      note: null,
      priority: 100,
    });
    expect(api.addRule).not.toHaveBeenCalled();
  });
});
