// Settings → Permissions: groups, their ordered rules (each also said in
// plain language), and a per-tool matrix.
import { createResource, createSignal, For, type JSX, Show } from "solid-js";
import * as api from "../api";
import type { RuleActionView, RuleInput, RuleView, ToolInfo } from "../bindings";
import { patternWords } from "../rule_words";
import { mountSolid } from "../solid";

const ACTIONS: RuleActionView[] = ["allow", "require", "deny"];
const ACTION_WORDS: Record<RuleActionView, string> = { allow: "allowed", require: "asks you", deny: "blocked" };

export type RulesApi = Pick<typeof api, "listGroups" | "listRules" | "listTools" | "addRule" | "updateRule" | "deleteRule" | "createGroup" | "deleteGroup">;

/** `@fs_read docs/* → allow (priority 100)` */
export function describeRule(r: Pick<RuleView, "toolPattern" | "pathPattern" | "action" | "priority">): string {
  return `${r.toolPattern}${r.pathPattern ? ` ${r.pathPattern}` : ""} → ${r.action} (priority ${r.priority})`;
}

/** The rule in words: "asks you: default rule (any other tool)", "blocked: rule for fs any tools on secrets/*". */
export function ruleInWords(r: Pick<RuleView, "toolPattern" | "pathPattern" | "action">): string {
  return `${ACTION_WORDS[r.action]}: ${patternWords(r.toolPattern, r.pathPattern)}`;
}

/** The group's rule that names exactly this tool (no path), if any. */
export function exactRule(rules: RuleView[], tool: string): RuleView | undefined {
  return rules.find((r) => r.toolPattern === tool && !r.pathPattern && !r.agentId && !r.source);
}

function Rules(props: { group: string; api: RulesApi; go: (group: string) => void }): JSX.Element {
  const [data, { refetch }] = createResource(
    () => props.group,
    (g) => Promise.all([props.api.listGroups(), props.api.listRules(g), props.api.listTools()]),
  );
  const [message, setMessage] = createSignal("");
  const [editing, setEditing] = createSignal<RuleView | null>(null);
  const fail = (e: unknown): void => void setMessage(api.errorMessage(e));
  const refresh = () => {
    setMessage("");
    void refetch();
  };
  let newName!: HTMLInputElement;
  let tool!: HTMLInputElement;
  let path!: HTMLInputElement;
  let action!: HTMLSelectElement;
  let priority!: HTMLInputElement;
  let note!: HTMLInputElement;
  const groups = () => data.latest?.[0] ?? [];
  const rules = () => data.latest?.[1] ?? [];
  const tools = (): ToolInfo[] => {
    const t = data.latest?.[2];
    return t ? [...t.builtIn, ...t.mcp] : [];
  };
  const current = () => groups().find((g) => g.name === props.group);
  const makeGroup = (copy: string | null) => props.api.createGroup(newName.value, "", copy).then((g) => props.go(g.name), fail);
  const edit = (r: RuleView) => {
    setEditing(r);
    tool.value = r.toolPattern;
    path.value = r.pathPattern ?? "";
    action.value = r.action;
    priority.value = String(r.priority);
    note.value = r.note ?? "";
  };
  const save = () => {
    const input: RuleInput = {
      group: props.group,
      toolPattern: tool.value,
      pathPattern: path.value || null,
      action: action.value as RuleActionView,
      note: note.value || null,
      priority: Number(priority.value) || 0,
    };
    const e = editing();
    void (e ? props.api.updateRule(e.id, input) : props.api.addRule(input)).then(() => {
      setEditing(null);
      refresh();
    }, fail);
  };
  const setMatrix = (t: ToolInfo, v: string) => {
    const rule = exactRule(rules(), t.name);
    if (v === "(inherit)") {
      if (rule) void props.api.deleteRule(rule.id).then(refresh, fail);
      return;
    }
    const input: RuleInput = { group: props.group, toolPattern: t.name, pathPattern: null, action: v as RuleActionView, note: "tools matrix", priority: rule?.priority ?? 100 };
    void (rule ? props.api.updateRule(rule.id, input) : props.api.addRule(input)).then(refresh, fail);
  };
  return (
    <>
      <h1>Permissions</h1>
      <Show when={data.error}>
        <p class="error" role="alert">{api.errorMessage(data.error)}</p>
      </Show>
      <div class="row">
        <label>
          Group{" "}
          <select name="group" value={props.group} onChange={(e) => props.go(e.currentTarget.value)}>
            <For each={groups()}>{(g) => <option value={g.name} selected={g.name === props.group}>{g.name}</option>}</For>
          </select>
        </label>
        <input ref={newName} name="newGroup" placeholder="new group name" aria-label="New group name" />
        <button type="button" onClick={() => void makeGroup(null)}>
          Create
        </button>
        <button type="button" onClick={() => void makeGroup(props.group)}>{`Duplicate ${props.group}`}</button>
        <button
          type="button"
          class="reject"
          disabled={!current() || current()?.builtin}
          title={current()?.builtin ? "The default group cannot be deleted" : ""}
          onClick={() => void props.api.deleteGroup(props.group).then(() => props.go("default"), fail)}
        >{`Delete ${props.group}`}</button>
      </div>
      <p class="form-message" role="status">{message()}</p>
      <h2>Rules (first match wins: this group, then default; higher priority first)</h2>
      <table class="tools rules" data-testid="rules-table">
        <thead>
          <tr>
            <For each={["#", "Tool", "Path", "Action", "Priority", "Note", ""]}>{(h) => <th>{h}</th>}</For>
          </tr>
        </thead>
        <tbody>
          <For each={rules()}>
            {(r) => (
              <tr data-rule={String(r.id)} title={ruleInWords(r)}>
                <td>{String(r.id)}</td>
                <td>
                  <code>{r.toolPattern}</code>
                  <div class="muted rule-words" data-testid="rule-words">{ruleInWords(r)}</div>
                </td>
                <td>{r.pathPattern ? <code>{r.pathPattern}</code> : "—"}</td>
                <td class={`action-${r.action}`}>{ACTION_WORDS[r.action]}</td>
                <td>{String(r.priority)}</td>
                <td>{r.note ?? ""}</td>
                <td>
                  <button type="button" aria-label={`Edit rule ${r.id}`} data-testid={`edit-rule-${r.id}`} onClick={() => edit(r)}>
                    Edit
                  </button>{" "}
                  <button type="button" aria-label={`Delete rule ${r.id}`} onClick={() => void props.api.deleteRule(r.id).then(refresh, fail)}>
                    Delete
                  </button>
                </td>
              </tr>
            )}
          </For>
        </tbody>
      </table>
      <div class="row add-rule">
        <input ref={tool} name="toolPattern" placeholder="tool, prefix*, *, @fs_read…" aria-label="Tool pattern" />
        <input ref={path} name="pathPattern" placeholder="path (optional): docs/*" aria-label="Path pattern" />
        <select ref={action} name="action" value="require">
          <For each={ACTIONS}>{(a) => <option value={a} selected={a === "require"}>{a}</option>}</For>
        </select>
        <input ref={priority} name="priority" type="number" value="100" aria-label="Priority" />
        <input ref={note} name="note" placeholder="note" aria-label="Note" />
        <button type="button" data-testid="add-rule" onClick={save}>
          {editing() ? `Save rule ${editing()?.id}` : "Add rule"}
        </button>
      </div>
      <h2>Tools</h2>
      <table class="tools matrix" data-testid="tools-matrix">
        <tbody>
          <For each={tools()}>
            {(t) => {
              const rule = () => exactRule(rules(), t.name);
              return (
                <tr data-matrix-tool={t.name}>
                  <td>
                    <code>{t.name}</code>
                  </td>
                  <td>{t.category ?? "—"}</td>
                  <td>
                    <select name={`matrix-${t.name}`} value={rule()?.action ?? "(inherit)"} onChange={(e) => setMatrix(t, e.currentTarget.value)}>
                      <For each={["(inherit)", ...ACTIONS]}>{(v) => <option value={v} selected={v === (rule()?.action ?? "(inherit)")}>{v}</option>}</For>
                    </select>
                  </td>
                </tr>
              );
            }}
          </For>
        </tbody>
      </table>
    </>
  );
}

/** Mounts the page for `group`; resolves once its data is shown. */
export async function mountRules(root: HTMLElement, group: string, deps: { api: RulesApi } = { api }): Promise<() => void> {
  const [g, setG] = createSignal(group);
  const dispose = mountSolid(root, () => <Rules group={g()} api={deps.api} go={(next) => (location.hash = `#/permissions/${encodeURIComponent(next)}`, setG(next))} />);
  // Callers (and tests) expect the rows on return, as the vanilla page did.
  for (let i = 0; i < 100 && !root.querySelector("[data-testid=rules-table] tbody tr, [role=alert]"); i++) await new Promise((r) => setTimeout(r, 5));
  return dispose;
}
