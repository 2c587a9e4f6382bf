// Settings → Permissions: groups, their ordered rules, and a per-tool matrix.
import * as api from "../api";
import type { RuleActionView, RuleInput, RuleView, ToolInfo } from "../bindings";
import { el } from "../dom";

const ACTIONS: RuleActionView[] = ["allow", "require", "deny"];

/** `@fs_read docs/* → allow (priority 100)` */
export function describeRule(r: Pick<RuleView, "toolPattern" | "pathPattern" | "action" | "priority">): string {
  return `${r.toolPattern}${r.pathPattern ? ` ${r.pathPattern}` : ""} → ${r.action} (priority ${r.priority})`;
}

/** The group's rule that names exactly this tool (no path), if any. */
export function exactRule(rules: RuleView[], tool: string): RuleView | undefined {
  return rules.find((r) => r.toolPattern === tool && !r.pathPattern && !r.agentId && !r.source);
}

function select(name: string, values: string[], current: string): HTMLSelectElement {
  const s = el("select", { name });
  for (const v of values) s.append(el("option", { value: v }, v));
  s.value = current;
  return s;
}

export async function mountRules(root: HTMLElement, group: string, deps = { api }): Promise<void> {
  const refresh = (g = group) => void mountRules(root, g, deps);
  const message = el("p", { class: "form-message", role: "status" });
  const fail = (e: unknown) => (message.textContent = api.errorMessage(e));
  const [groups, rules, tools] = await Promise.all([deps.api.listGroups(), deps.api.listRules(group), deps.api.listTools()]);

  // Groups: pick, create (optionally as a copy), delete.
  const picker = select("group", groups.map((g) => g.name), group);
  picker.addEventListener("change", () => refresh(picker.value));
  const newName = el("input", { name: "newGroup", placeholder: "new group name", "aria-label": "New group name" });
  const create = el("button", { type: "button" }, "Create");
  const duplicate = el("button", { type: "button" }, `Duplicate ${group}`);
  const makeGroup = (copy: string | null) =>
    deps.api.createGroup(newName.value, "", copy).then((g) => refresh(g.name), fail);
  create.addEventListener("click", () => void makeGroup(null));
  duplicate.addEventListener("click", () => void makeGroup(group));
  const current = groups.find((g) => g.name === group);
  const del = el("button", { type: "button", class: "reject" }, `Delete ${group}`);
  del.disabled = !current || current.builtin;
  del.title = current?.builtin ? "The default group cannot be deleted" : "";
  del.addEventListener("click", () => void deps.api.deleteGroup(group).then(() => refresh("default"), fail));

  // Rules, in evaluation order.
  // Add a rule.
  const tool = el("input", { name: "toolPattern", placeholder: "tool, prefix*, *, @fs_read…", "aria-label": "Tool pattern" });
  const path = el("input", { name: "pathPattern", placeholder: "path (optional): docs/*", "aria-label": "Path pattern" });
  const action = select("action", ACTIONS, "require");
  const priority = el("input", { name: "priority", type: "number", value: "100", "aria-label": "Priority" });
  const note = el("input", { name: "note", placeholder: "note", "aria-label": "Note" });
  const add = el("button", { type: "button", "data-testid": "add-rule" }, "Add rule");
  // The form below adds a rule, or saves the one picked with Edit.
  let editing: RuleView | null = null;
  const ruleRows = rules.map((r) => {
    const remove = el("button", { type: "button", "aria-label": `Delete rule ${r.id}` }, "Delete");
    remove.addEventListener("click", () => void deps.api.deleteRule(r.id).then(() => refresh(), fail));
    const edit = el("button", { type: "button", "aria-label": `Edit rule ${r.id}`, "data-testid": `edit-rule-${r.id}` }, "Edit");
    edit.addEventListener("click", () => {
      editing = r;
      tool.value = r.toolPattern;
      path.value = r.pathPattern ?? "";
      action.value = r.action;
      priority.value = String(r.priority);
      note.value = r.note ?? "";
      add.textContent = `Save rule ${r.id}`;
    });
    return el(
      "tr",
      { "data-rule": String(r.id) },
      el("td", {}, String(r.id)),
      el("td", {}, el("code", {}, r.toolPattern)),
      el("td", {}, r.pathPattern ? el("code", {}, r.pathPattern) : "—"),
      el("td", { class: `action-${r.action}` }, r.action),
      el("td", {}, String(r.priority)),
      el("td", {}, r.note ?? ""),
      el("td", {}, edit, " ", remove),
    );
  });
  const ruleTable = el(
    "table",
    { class: "tools rules", "data-testid": "rules-table" },
    el("thead", {}, el("tr", {}, ...["#", "Tool", "Path", "Action", "Priority", "Note", ""].map((h) => el("th", {}, h)))),
    el("tbody", {}, ...ruleRows),
  );

  add.addEventListener("click", () => {
    const input: RuleInput = {
      group,
      toolPattern: tool.value,
      pathPattern: path.value || null,
      action: action.value as RuleActionView,
      note: note.value || null,
      priority: Number(priority.value) || 0,
    };
    const saved = editing ? deps.api.updateRule(editing.id, input) : deps.api.addRule(input);
    void saved.then(() => refresh(), fail);
  });

  // The tools matrix: one exact rule per tool in this group.
  const all: ToolInfo[] = [...tools.builtIn, ...tools.mcp];
  const matrixRows = all.map((t) => {
    const rule = exactRule(rules, t.name);
    const choice = select(`matrix-${t.name}`, ["(inherit)", ...ACTIONS], rule?.action ?? "(inherit)");
    choice.addEventListener("change", () => {
      const v = choice.value;
      const done = () => refresh();
      if (v === "(inherit)") {
        if (rule) void deps.api.deleteRule(rule.id).then(done, fail);
        return;
      }
      const input: RuleInput = { group, toolPattern: t.name, pathPattern: null, action: v as RuleActionView, note: "tools matrix", priority: rule?.priority ?? 100 };
      void (rule ? deps.api.updateRule(rule.id, input) : deps.api.addRule(input)).then(done, fail);
    });
    return el("tr", { "data-matrix-tool": t.name }, el("td", {}, el("code", {}, t.name)), el("td", {}, t.category ?? "—"), el("td", {}, choice));
  });

  root.replaceChildren(
    el("h1", {}, "Permissions"),
    el("div", { class: "row" }, el("label", {}, "Group ", picker), newName, create, duplicate, del),
    message,
    el("h2", {}, "Rules (first match wins: this group, then default; higher priority first)"),
    ruleTable,
    el("div", { class: "row add-rule" }, tool, path, action, priority, note, add),
    el("h2", {}, "Tools"),
    el("table", { class: "tools matrix", "data-testid": "tools-matrix" }, el("tbody", {}, ...matrixRows)),
  );
}
