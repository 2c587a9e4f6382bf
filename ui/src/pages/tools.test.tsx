import { describe, expect, it } from "vitest";
import type { AllTools, ToolInfo } from "../bindings";
import { renderToolsPage, visibility } from "./tools";

function tool(over: Partial<ToolInfo>): ToolInfo {
  return {
    name: "read_file",
    description: "Reads a file.",
    category: "Filesystem",
    kind: "registry",
    subAgentsOnly: false,
    rootAgentOnly: false,
    ...over,
  };
}

const all: AllTools = {
  builtIn: [
    tool({}),
    tool({ name: "execute_cmd", category: "Shell", rootAgentOnly: true, description: "Runs <b>sh</b>" }),
    tool({ name: "write_todos", kind: "synthetic", category: null, subAgentsOnly: true }),
  ],
  mcp: [tool({ name: "mcp__fs__read", kind: "mcp", category: null })],
};

describe("tools page", () => {
  it("lists every tool with category, kind and visibility", () => {
    const root = document.body.appendChild(document.createElement("div"));
    renderToolsPage(root, all);
    const rows = Array.from(root.querySelectorAll("tbody tr"));
    expect(rows.map((r) => r.getAttribute("data-tool"))).toEqual([
      "read_file",
      "execute_cmd",
      "write_todos",
      "mcp__fs__read",
    ]);
    const exec = root.querySelector('tr[data-tool="execute_cmd"]')!;
    expect(exec.querySelector(".tool-category")!.textContent).toBe("Shell");
    expect(exec.querySelector(".tool-visibility")!.textContent).toBe("root agent only");
    expect(root.querySelector('tr[data-tool="write_todos"] .tool-category')!.textContent).toBe("—");
    expect(root.querySelector('[data-testid="tool-counts"]')!.textContent).toBe(
      "4 tools: 2 built-in, 1 synthetic, 1 MCP",
    );
  });

  it("renders descriptions as text, never as markup", () => {
    const root = document.body.appendChild(document.createElement("div"));
    renderToolsPage(root, all);
    const desc = root.querySelector('tr[data-tool="execute_cmd"] .tool-description')!;
    expect(desc.textContent).toBe("Runs <b>sh</b>");
    expect(desc.querySelector("b")).toBeNull();
  });

  it("filters rows by name or description", () => {
    const root = document.body.appendChild(document.createElement("div"));
    renderToolsPage(root, all);
    const input = root.querySelector("input")!;
    input.value = "SH";
    input.dispatchEvent(new Event("input"));
    const visible = Array.from(root.querySelectorAll<HTMLTableRowElement>("tbody tr"))
      .filter((r) => !r.hidden)
      .map((r) => r.dataset.tool);
    expect(visible).toEqual(["execute_cmd"]);
  });

  it("expands a clamped description on click", () => {
    const root = document.body.appendChild(document.createElement("div"));
    renderToolsPage(root, all);
    const tr = root.querySelector<HTMLTableRowElement>('tr[data-tool="read_file"]')!;
    expect(tr.classList.contains("expanded")).toBe(false);
    tr.click();
    expect(tr.classList.contains("expanded")).toBe(true);
  });

  it("names visibility flags", () => {
    expect(visibility(tool({}))).toBe("all agents");
    expect(visibility(tool({ subAgentsOnly: true }))).toBe("sub-agents only");
    expect(visibility(tool({ subAgentsOnly: true, rootAgentOnly: true }))).toBe("none (misconfigured)");
  });
});
