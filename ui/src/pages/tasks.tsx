// The Tasks view: async tasks and cron jobs. Running ones first, then the
// scheduled (next run in the job's time zone, the expression in words), then the
// finished with their outcome and a link to the transcript. It refreshes
// itself while shown (runs end in the background); rows are keyed by task
// id, so a refresh only touches what changed.
import { createResource, createSignal, For, type JSX, onCleanup, Show } from "solid-js";
import * as api from "../api";
import type { TaskView } from "../bindings";
import { mountSolid } from "../solid";

type Deps = { api: Pick<typeof api, "listTasks" | "stopTask" | "runTaskNow" | "setTaskEnabled" | "deleteTask" | "errorMessage"> };

const REFRESH_MS = 1000;
let current: (() => void) | null = null;

/** Stops the view (another page is shown). */
export function disposeTasks(): void {
  current?.();
  current = null;
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

function TaskRow(props: { t: TaskView; act: (what: () => Promise<unknown>) => void; deps: Deps }): JSX.Element {
  const t = () => props.t;
  const api = () => props.deps.api;
  const run = () => t().lastRun;
  return (
    <section class="task-item" data-testid="task-item" data-task={String(t().id)} data-state={t().state}>
      <h2>
        {`${t().kind === "cron" ? "📅" : "🚀"} `}
        <span data-testid="task-title">{t().title}</span>
        <span class="muted">{` → ${t().agentId}`}</span>
      </h2>
      <p class="muted">
        <Show when={t().kind === "cron"}>
          <span data-testid="task-schedule">
            {`${t().cronWords ?? ""} `}
            <code>{t().cron ?? ""}</code>
            {` (${t().timeZone ?? ""})`}
          </span>
          <span data-testid="task-next">{t().nextRunAt != null ? ` · next ${localTime(t().nextRunAt as number, t().timeZone)}` : " · disabled"}</span>
        </Show>
        <Show when={run()}>
          {(r) => (
            <>
              <span class={`task-outcome outcome-${r().status}`} data-testid="task-outcome">
                {`${t().kind === "cron" ? " · " : ""}${r().status} · ${r().finishedAt != null ? `ended ${localTime(r().finishedAt as number)}` : `started ${localTime(r().startedAt)}`}`}
              </span>
              <Show when={r().sessionId}>
                {" · "}
                <a href={`#/chat/${r().sessionId}`} data-testid="task-transcript">
                  transcript
                </a>
              </Show>
            </>
          )}
        </Show>
        <Show when={t().kind === "async" && t().parentSessionId}>
          {" · "}
          <a href={`#/chat/${t().parentSessionId}`} data-testid="task-parent">
            conversation
          </a>
        </Show>
      </p>
      <Show when={run()?.error}>
        <p class="error">{run()?.error}</p>
      </Show>
      <div class="task-actions">
        <Show when={t().state === "running"}>
          <button type="button" data-testid="task-stop" onClick={() => props.act(() => api().stopTask(t().id))}>
            Stop
          </button>
        </Show>
        <Show when={t().kind === "cron"}>
          <Show when={t().state !== "running"}>
            <button type="button" data-testid="task-run-now" onClick={() => props.act(() => api().runTaskNow(t().id))}>
              Run now
            </button>
          </Show>
          <button type="button" data-testid="task-toggle" onClick={() => props.act(() => api().setTaskEnabled(t().id, !t().enabled))}>
            {t().enabled ? "Disable" : "Enable"}
          </button>
        </Show>
        <Show when={t().state !== "running"}>
          <button type="button" data-testid="task-delete" onClick={() => props.act(() => api().deleteTask(t().id))}>
            Delete
          </button>
        </Show>
      </div>
    </section>
  );
}

export type TasksDeps = Deps;

/** The task list. `only` keeps some tasks (a chat's side panel: the ones
 *  that report to it); `heading: false` leaves out the page's title. */
export function Tasks(props: { deps: Deps; refresh: boolean; only?: (t: TaskView) => boolean; heading?: boolean }): JSX.Element {
  const [tasks, { refetch }] = createResource(() => props.deps.api.listTasks());
  const [error, setError] = createSignal("");
  let timer: ReturnType<typeof setTimeout> | null = null;
  const again = () => {
    void Promise.resolve(refetch()).finally(() => {
      if (props.refresh) timer = setTimeout(again, REFRESH_MS);
    });
  };
  if (props.refresh) timer = setTimeout(again, REFRESH_MS);
  onCleanup(() => timer && clearTimeout(timer));
  const act = (what: () => Promise<unknown>) => {
    what().then(
      () => {
        setError("");
        void refetch();
      },
      (e) => setError(props.deps.api.errorMessage(e)),
    );
  };
  // Stable rows: the same TaskView id keeps its node across refreshes.
  const byId = new Map<number, [() => TaskView, (t: TaskView) => void]>();
  const rows = (key: ReturnType<typeof section>) =>
    (tasks.latest ?? []).filter((t) => section(t) === key && (props.only?.(t) ?? true)).map((t) => {
      const had = byId.get(t.id);
      if (had) {
        had[1](t);
        return t.id;
      }
      const [get, set] = createSignal(t, { equals: (a, b) => JSON.stringify(a) === JSON.stringify(b) });
      byId.set(t.id, [get, set]);
      return t.id;
    });
  const part = (title: string, key: ReturnType<typeof section>, empty: string) => (
    <div data-testid={`tasks-${key}`}>
      <h2>{title}</h2>
      <For each={rows(key)} fallback={<p class="muted">{empty}</p>}>
        {(id) => <TaskRow t={(byId.get(id) as [() => TaskView, unknown])[0]()} act={act} deps={props.deps} />}
      </For>
    </div>
  );
  return (
    <>
      <Show when={props.heading ?? true}>
        <h1>Tasks</h1>
      </Show>
      <Show when={error() || tasks.error}>
        <p class="error" role="alert">{error() || props.deps.api.errorMessage(tasks.error)}</p>
      </Show>
      {part("Running", "running", "Nothing is running.")}
      {part("Scheduled", "scheduled", "No cron jobs.")}
      {part("Finished", "finished", "No finished tasks.")}
    </>
  );
}

/** Shows the view in `root`; resolves once the first list is shown. */
export async function mountTasks(root: HTMLElement, deps: Deps = { api }, refresh = true): Promise<void> {
  disposeTasks();
  current = mountSolid(root, () => <Tasks deps={deps} refresh={refresh} />);
  for (let i = 0; i < 100 && !root.querySelector("[data-testid=tasks-running]"); i++) await new Promise((r) => setTimeout(r, 5));
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
}
