// The session settings panel: its permission group and RunContext, and
// temporary human bypasses ("don't ask again for a while").
import * as api from "../api";
import type { BypassScopeView, GroupView, RunContextView } from "../bindings";
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
  const allHour = el("button", { type: "button" }, "Don't ask for 1 hour");
  allHour.addEventListener("click", () => bypass({ kind: "all" }, 60, "anything"));
  const filesHour = el("button", { type: "button" }, "Don't ask for file tools for 1 hour");
  filesHour.addEventListener("click", () => bypass({ kind: "category", category: "Filesystem" }, 60, "file tools"));
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
    el("div", { class: "row" }, save, allHour, filesHour, clear),
    status,
  );
}
