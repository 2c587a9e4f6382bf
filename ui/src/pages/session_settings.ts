// The session settings panel: its permission group and RunContext, and
// temporary human bypasses ("don't ask again for a while").
import * as api from "../api";
import type { BypassScopeView, GroupView, RunContextView, ToolCategory } from "../bindings";
import { el } from "../dom";

export function parseList(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

export function sessionSettingsPanel(sessionId: string, deps: { api: typeof api } = { api }): HTMLElement {
  const body = el("div", { class: "session-settings-body" }, el("p", { class: "muted" }, "Loading…"));
  const panel = el("details", { class: "session-settings", "data-testid": "session-settings" }, el("summary", {}, "Session settings"), body);
  let loaded = false;
  panel.addEventListener("toggle", () => {
    if (panel.open && !loaded) {
      loaded = true;
      void fill(body, sessionId, deps);
    }
  });
  return panel;
}

async function fill(body: HTMLElement, sessionId: string, deps: { api: typeof api }): Promise<void> {
  let ctx: RunContextView;
  let groups: GroupView[];
  try {
    [ctx, groups] = await Promise.all([deps.api.getRunContext(sessionId), deps.api.listGroups()]);
  } catch (e) {
    body.replaceChildren(el("p", { class: "error" }, api.errorMessage(e)));
    return;
  }
  const group = el("select", { name: "permissionGroup", "aria-label": "Permission group" });
  for (const g of groups) group.append(el("option", { value: g.name }, g.name));
  group.value = ctx.permissionGroup;
  const workdir = el("input", { name: "workingDir", value: ctx.workingDir ?? "", "aria-label": "Working directory" });
  const prompt = el("textarea", { name: "extraSystemPrompt", rows: "2", "aria-label": "Extra system prompt" });
  prompt.value = ctx.extraSystemPrompt ?? "";
  const reads = el("textarea", { name: "allowFsReads", rows: "2", placeholder: "one absolute path per line", "aria-label": "Readable without asking" });
  reads.value = ctx.allowFsReads.join("\n");
  const writes = el("textarea", { name: "allowFsWrites", rows: "2", placeholder: "one absolute path per line", "aria-label": "Writable without asking" });
  writes.value = ctx.allowFsWrites.join("\n");
  const status = el("p", { class: "form-message", role: "status" });
  const save = el("button", { type: "button", "data-testid": "save-run-context" }, "Save");
  save.addEventListener("click", () => {
    const next: RunContextView = {
      permissionGroup: group.value,
      extraSystemPrompt: prompt.value.trim() || null,
      allowFsReads: parseList(reads.value),
      allowFsWrites: parseList(writes.value),
      workingDir: workdir.value.trim() || null,
    };
    deps.api.setRunContext(sessionId, next).then(
      () => (status.textContent = "Saved."),
      (e) => (status.textContent = api.errorMessage(e)),
    );
  });

  const bypass = (scope: BypassScopeView, minutes: number | null, what: string) => {
    deps.api.addBypass(sessionId, scope, minutes).then(
      () => (status.textContent = `Not asking for ${what}${minutes ? ` for ${minutes} minutes` : ""} (deny rules still apply; Stop clears it).`),
      (e) => (status.textContent = api.errorMessage(e)),
    );
  };
  // "Don't ask" for a scope (everything, a category, one tool, an MCP server)
  // and a while; deny rules still apply and Stop clears it.
  const scopeKind = el("select", { name: "bypassKind", "aria-label": "Don't ask for" });
  for (const [value, label] of BYPASS_KINDS) scopeKind.append(el("option", { value }, label));
  const scopeValue = el("input", { name: "bypassValue", "aria-label": "Which", placeholder: "tool or server name" });
  // The name field only for the scopes that need one.
  const showValue = () => (scopeValue.hidden = !(scopeKind.value === "tool" || scopeKind.value === "mcp"));
  scopeKind.addEventListener("change", showValue);
  showValue();
  const minutes = el("select", { name: "bypassMinutes", "aria-label": "For how long" });
  for (const [value, label] of BYPASS_DURATIONS) minutes.append(el("option", { value }, label));
  minutes.value = "60";
  const dontAsk = el("button", { type: "button", "data-testid": "add-bypass" }, "Don't ask");
  dontAsk.addEventListener("click", () => {
    const scope = bypassScope(scopeKind.value, scopeValue.value);
    if (typeof scope === "string") {
      status.textContent = scope;
      return;
    }
    const m = minutes.value === "" ? null : Number(minutes.value);
    bypass(scope, m, describeScope(scope));
  });
  const clear = el("button", { type: "button" }, "Ask again");
  clear.addEventListener("click", () => {
    deps.api.clearBypasses(sessionId).then(() => (status.textContent = "Asking again."), (e) => (status.textContent = api.errorMessage(e)));
  });

  body.replaceChildren(
    el("label", {}, "Permission group ", group),
    el("label", {}, "Working directory ", workdir),
    el("label", {}, "Extra system prompt ", prompt),
    el("label", {}, "Readable without asking ", reads),
    el("label", {}, "Writable without asking ", writes),
    el("div", { class: "row" }, save),
    el("div", { class: "row bypass-row" }, el("span", { class: "muted" }, "Don't ask for"), scopeKind, scopeValue, minutes, dontAsk, clear),
    status,
  );
}

const CATEGORIES: ToolCategory[] = ["Filesystem", "Shell", "Subagent", "Introspection", "Config"];

const BYPASS_KINDS: [string, string][] = [
  ["all", "anything"],
  ...CATEGORIES.map((c): [string, string] => [`category:${c}`, `${c.toLowerCase()} tools`]),
  ["tool", "one tool…"],
  ["mcp", "an MCP server…"],
];

const BYPASS_DURATIONS: [string, string][] = [
  ["15", "15 minutes"],
  ["60", "1 hour"],
  ["240", "4 hours"],
  ["", "until stopped"],
];

/** The scope the form describes, or what is missing. */
export function bypassScope(kind: string, value: string): BypassScopeView | string {
  const name = value.trim();
  if (kind === "all") return { kind: "all" };
  if (kind.startsWith("category:")) {
    const category = kind.slice("category:".length) as ToolCategory;
    return CATEGORIES.includes(category) ? { kind: "category", category } : `unknown category ${category}`;
  }
  if (kind === "tool") return name ? { kind: "tool", name } : "Name the tool (for example execute_cmd).";
  if (kind === "mcp") return name ? { kind: "mcpServer", server: name } : "Name the MCP server.";
  return `unknown scope ${kind}`;
}

function describeScope(scope: BypassScopeView): string {
  switch (scope.kind) {
    case "all":
      return "anything";
    case "category":
      return `${scope.category.toLowerCase()} tools`;
    case "tool":
      return scope.name;
    case "mcpServer":
      return `the MCP server ${scope.server}`;
  }
}
