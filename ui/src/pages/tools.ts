// The Tools page: every tool the agent can be offered, with its category,
// description and who sees it.
import type { AllTools, ToolInfo } from "../bindings";
import { el } from "../dom";

const KIND_LABEL: Record<ToolInfo["kind"], string> = {
  registry: "built-in",
  synthetic: "synthetic",
  mcp: "MCP",
  discovered: "discovered",
};

export function visibility(t: ToolInfo): string {
  if (t.subAgentsOnly && t.rootAgentOnly) return "none (misconfigured)";
  if (t.subAgentsOnly) return "sub-agents only";
  if (t.rootAgentOnly) return "root agent only";
  return "all agents";
}

function row(t: ToolInfo): HTMLTableRowElement {
  const tr = el(
    "tr",
    { "data-tool": t.name, "data-kind": t.kind },
    el("td", { class: "tool-name" }, el("code", {}, t.name)),
    el("td", {}, el("span", { class: `badge kind-${t.kind}` }, KIND_LABEL[t.kind])),
    el("td", { class: "tool-category" }, t.category ?? "—"),
    el("td", { class: "tool-visibility" }, visibility(t)),
    el("td", { class: "tool-description" }, el("div", { class: "text", title: "Click to expand" }, t.description)),
  );
  // Long descriptions are clamped to two lines; a click shows all of it.
  tr.addEventListener("click", () => tr.classList.toggle("expanded"));
  return tr;
}

/** Renders the catalogue into `root`, with a filter box over name and description. */
export function renderToolsPage(root: HTMLElement, all: AllTools): void {
  const tools = [...all.builtIn, ...all.mcp];
  const counts = el(
    "p",
    { class: "counts", "data-testid": "tool-counts" },
    `${tools.length} tools: ${all.builtIn.filter((t) => t.kind === "registry").length} built-in, ` +
      `${all.builtIn.filter((t) => t.kind === "synthetic").length} synthetic, ${all.mcp.length} MCP` +
      (all.builtIn.some((t) => t.kind === "discovered") ? `, ${all.builtIn.filter((t) => t.kind === "discovered").length} discovered` : ""),
  );
  const filter = el("input", {
    type: "search",
    placeholder: "Filter tools…",
    "aria-label": "Filter tools",
    class: "filter",
  });
  const tbody = el("tbody", {});
  for (const t of tools) tbody.append(row(t));
  const table = el(
    "table",
    { class: "tools", "data-testid": "tools-table" },
    el(
      "thead",
      {},
      el("tr", {}, ...["Tool", "Kind", "Category", "Visible to", "Description"].map((h) => el("th", {}, h))),
    ),
    tbody,
  );
  filter.addEventListener("input", () => {
    const q = filter.value.trim().toLowerCase();
    for (const tr of Array.from(tbody.querySelectorAll("tr"))) {
      tr.hidden = q !== "" && !(tr.textContent ?? "").toLowerCase().includes(q);
    }
  });
  root.replaceChildren(el("h1", {}, "Tools"), counts, filter, table);
}
