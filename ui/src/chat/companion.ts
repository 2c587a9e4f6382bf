// The session's companion panels, tabs of the side panel: the Scratchpad (every
// agent of the session reads it; the person edits or deletes entries, and
// the next request of every agent sees the change) and the Todos (each
// agent's latest list, root and sub-agents apart, with progress).
import type { ScratchpadEntryView, TodoListView } from "../bindings";
import { el } from "../dom";

export interface CompanionApi {
  getScratchpad(sessionId: string): Promise<ScratchpadEntryView[]>;
  setScratchpadEntry(sessionId: string, key: string, value: string): Promise<ScratchpadEntryView[]>;
  removeScratchpadEntry(sessionId: string, key: string): Promise<ScratchpadEntryView[]>;
  sessionTodos(sessionId: string): Promise<TodoListView[]>;
}

const MARK: Record<string, string> = { pending: "☐", in_progress: "◐", completed: "☑" };

export function todosList(lists: TodoListView[]): HTMLElement {
  const root = el("section", { class: "companion-todos", "data-testid": "todos-panel" }, el("h3", {}, "Todos"));
  if (lists.length === 0) {
    root.append(el("p", { class: "muted" }, "No agent keeps a todo list yet."));
    return root;
  }
  for (const l of lists) {
    const who = l.depth === 0 ? `${l.agentId} (main)` : `${l.agentId} (sub-agent, depth ${l.depth})`;
    const progress = el("progress", { max: String(l.total), value: String(l.completed), "aria-label": `${l.completed} of ${l.total} done` });
    const items = el("ul", { class: "todo-items" });
    for (const t of l.todos) {
      items.append(el("li", { class: `todo todo-${t.status}`, "data-status": t.status }, `${MARK[t.status] ?? ""} ${t.content}`));
    }
    root.append(
      el(
        "div",
        { class: "todo-list", "data-testid": "todo-list", "data-frame": String(l.frameId) },
        el("div", { class: "todo-who" }, who, " ", el("span", { class: "muted", "data-testid": "todo-progress" }, `${l.completed}/${l.total}`)),
        progress,
        items,
      ),
    );
  }
  return root;
}

export function scratchpadList(
  sessionId: string,
  entries: ScratchpadEntryView[],
  api: CompanionApi,
  changed: (entries: ScratchpadEntryView[]) => void,
): HTMLElement {
  const root = el("section", { class: "companion-scratchpad", "data-testid": "scratchpad-panel" }, el("h3", {}, "Scratchpad"));
  const error = el("p", { class: "error", role: "alert", hidden: "" });
  const run = async (op: () => Promise<ScratchpadEntryView[]>) => {
    error.hidden = true;
    try {
      changed(await op());
    } catch (e) {
      error.textContent = typeof e === "object" && e && "message" in e ? String((e as { message: unknown }).message) : String(e);
      error.hidden = false;
    }
  };
  for (const entry of entries) {
    const value = el("textarea", { class: "scratch-value", rows: "2", "aria-label": `Value of ${entry.key}`, "data-testid": "scratch-value" });
    value.value = entry.value;
    value.dataset.original = entry.value;
    const save = el("button", { type: "button", "data-testid": "scratch-save" }, "Save");
    save.addEventListener("click", () => void run(() => api.setScratchpadEntry(sessionId, entry.key, value.value)));
    const del = el("button", { type: "button", class: "danger", "data-testid": "scratch-delete" }, "Delete");
    del.addEventListener("click", () => void run(() => api.removeScratchpadEntry(sessionId, entry.key)));
    root.append(el("div", { class: "scratch-entry", "data-testid": "scratch-entry", "data-key": entry.key }, el("div", { class: "scratch-key" }, entry.key), value, el("div", { class: "scratch-actions" }, save, del)));
  }
  if (entries.length === 0) root.append(el("p", { class: "muted" }, "Empty. Agents write here with update_scratchpad; so can you."));
  const key = el("input", { type: "text", placeholder: "key", "aria-label": "New key", "data-testid": "scratch-new-key" });
  const val = el("input", { type: "text", placeholder: "value", "aria-label": "New value", "data-testid": "scratch-new-value" });
  const add = el("button", { type: "button", "data-testid": "scratch-add" }, "Add");
  add.addEventListener("click", () => void run(() => api.setScratchpadEntry(sessionId, key.value, val.value)));
  root.append(el("div", { class: "scratch-new" }, key, val, add), error);
  return root;
}

/** Whether the person is editing the scratchpad (focus, an unsaved change). */
function editing(root: HTMLElement): boolean {
  const fields = Array.from(root.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("textarea, input"));
  return fields.some((f) => f === document.activeElement || (f.dataset.original !== undefined ? f.value !== f.dataset.original : f.value.trim() !== ""));
}

/** The panels (each a tab of the side panel), refreshed with `refresh()`
 *  (on tool results and turn ends); a refresh never wipes what the person is
 *  typing in the scratchpad. */
export function companionPanel(
  sessionId: string,
  api: CompanionApi,
  /** Called when the chat has todos on the first read, or more than the last read found. */
  onNewTodos?: () => void,
): { todos: HTMLElement; scratch: HTMLElement; refresh: () => Promise<void> } {
  const todosBox = el("div", { class: "companion", "data-testid": "companion-todos" });
  const scratchBox = el("div", { class: "companion", "data-testid": "companion-scratchpad" });
  let scratch: HTMLElement = el("section");
  let todos: HTMLElement = todosList([]);
  let seen: number | null = null;
  todosBox.append(todos);
  scratchBox.append(scratch);
  const paintScratch = (entries: ScratchpadEntryView[]) => {
    const fresh = scratchpadList(sessionId, entries, api, paintScratch);
    scratch.replaceWith(fresh);
    scratch = fresh;
  };
  const refresh = async () => {
    const [entries, lists] = await Promise.all([api.getScratchpad(sessionId), api.sessionTodos(sessionId)]);
    if (!editing(scratch)) paintScratch(entries);
    const fresh = todosList(lists);
    todos.replaceWith(fresh);
    todos = fresh;
    const count = lists.reduce((n, l) => n + l.todos.length, 0);
    if (count > (seen ?? 0)) onNewTodos?.();
    seen = count;
  };
  return { todos: todosBox, scratch: scratchBox, refresh };
}
