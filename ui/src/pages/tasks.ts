// The Tasks view: async tasks and cron jobs. Running ones first, then the
// scheduled (next run in the job's time zone, the expression in words), then the
// finished with their outcome and a link to the transcript. It refreshes
// itself while shown: runs end in the background.
import * as api from "../api";
import type { TaskView } from "../bindings";
import { el } from "../dom";

type Deps = { api: Pick<typeof api, "listTasks" | "stopTask" | "runTaskNow" | "setTaskEnabled" | "deleteTask" | "errorMessage"> };

const REFRESH_MS = 1000;
let timer: ReturnType<typeof setTimeout> | null = null;

/** Stops the view's refresh (another page is shown). */
export function disposeTasks(): void {
  if (timer) clearTimeout(timer);
  timer = null;
}

/** `ms` as a date and time for people: in `timeZone` (a cron job's, which
 *  is the person's zone setting when it was scheduled) with the zone
 *  named, else in the system's. */
export function localTime(ms: number, timeZone?: string | null): string {
  const date = new Date(ms);
  if (timeZone) {
    try {
      return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short", timeZone }) + ` ${timeZone}`;
    } catch {
      // An unknown zone name: the system's time rather than nothing.
    }
  }
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function section(t: TaskView): "running" | "scheduled" | "finished" {
  if (t.state === "running" || t.state === "starting") return "running";
  if (t.kind === "cron") return "scheduled";
  return "finished";
}

function taskRow(t: TaskView, act: (what: () => Promise<unknown>) => void, deps: Deps): HTMLElement {
  const icon = t.kind === "cron" ? "📅" : "🚀";
  const buttons: HTMLElement[] = [];
  const button = (label: string, testid: string, what: () => Promise<unknown>) => {
    const b = el("button", { type: "button", "data-testid": testid }, label);
    b.addEventListener("click", () => act(what));
    return b;
  };
  if (t.state === "running") buttons.push(button("Stop", "task-stop", () => deps.api.stopTask(t.id)));
  if (t.kind === "cron") {
    if (t.state !== "running") buttons.push(button("Run now", "task-run-now", () => deps.api.runTaskNow(t.id)));
    buttons.push(
      button(t.enabled ? "Disable" : "Enable", "task-toggle", () => deps.api.setTaskEnabled(t.id, !t.enabled)),
    );
  }
  if (t.state !== "running") buttons.push(button("Delete", "task-delete", () => deps.api.deleteTask(t.id)));
  const details: (HTMLElement | string)[] = [];
  if (t.kind === "cron") {
    details.push(
      el("span", { "data-testid": "task-schedule" }, `${t.cronWords ?? ""} `, el("code", {}, t.cron ?? ""), ` (${t.timeZone ?? ""})`),
    );
    details.push(
      el("span", { "data-testid": "task-next" }, t.nextRunAt != null ? ` · next ${localTime(t.nextRunAt, t.timeZone)}` : " · disabled"),
    );
  }
  const run = t.lastRun;
  if (run) {
    const when = run.finishedAt != null ? `ended ${localTime(run.finishedAt)}` : `started ${localTime(run.startedAt)}`;
    const sep = details.length ? " · " : "";
    details.push(el("span", { class: `task-outcome outcome-${run.status}`, "data-testid": "task-outcome" }, `${sep}${run.status} · ${when}`));
    if (run.sessionId) {
      details.push(" · ", el("a", { href: `#/chat/${run.sessionId}`, "data-testid": "task-transcript" }, "transcript"));
    }
  }
  if (t.kind === "async" && t.parentSessionId) {
    details.push(" · ", el("a", { href: `#/chat/${t.parentSessionId}`, "data-testid": "task-parent" }, "conversation"));
  }
  return el(
    "section",
    { class: "task-item", "data-testid": "task-item", "data-task": String(t.id), "data-state": t.state },
    el("h2", {}, `${icon} `, el("span", { "data-testid": "task-title" }, t.title), el("span", { class: "muted" }, ` → ${t.agentId}`)),
    el("p", { class: "muted" }, ...details),
    run?.error ? el("p", { class: "error" }, run.error) : el("span", {}),
    el("div", { class: "task-actions" }, ...buttons),
  );
}

export async function mountTasks(root: HTMLElement, deps: Deps = { api }, refresh = true): Promise<void> {
  disposeTasks();
  let tasks: TaskView[];
  try {
    tasks = await deps.api.listTasks();
  } catch (e) {
    root.replaceChildren(el("h1", {}, "Tasks"), el("p", { class: "error", role: "alert" }, deps.api.errorMessage(e)));
    return;
  }
  const again = () => void mountTasks(root, deps, refresh);
  const act = (what: () => Promise<unknown>) => {
    what()
      .then(again)
      .catch((e) => root.prepend(el("p", { class: "error", role: "alert" }, deps.api.errorMessage(e))));
  };
  const groups = { running: [] as HTMLElement[], scheduled: [] as HTMLElement[], finished: [] as HTMLElement[] };
  for (const t of tasks) groups[section(t)].push(taskRow(t, act, deps));
  const part = (title: string, key: keyof typeof groups, empty: string) =>
    el("div", { "data-testid": `tasks-${key}` }, el("h2", {}, title), ...(groups[key].length ? groups[key] : [el("p", { class: "muted" }, empty)]));
  root.replaceChildren(
    el("h1", {}, "Tasks"),
    part("Running", "running", "Nothing is running."),
    part("Scheduled", "scheduled", "No cron jobs."),
    part("Finished", "finished", "No finished tasks."),
  );
  if (refresh && root.isConnected) timer = setTimeout(again, REFRESH_MS);
}
