// An active "Don't ask" bypass, shown on the chat it applies to: what it
// covers, the time left, and a button that ends it. The backend is the
// truth (bypasses live in its memory and end on Stop); the bar reads it on
// mount, when a turn starts or ends, when the settings add one, and every
// few seconds, and counts down between reads.
import { batch, createEffect, createSignal, For, on, onCleanup, Show } from "solid-js";
import type { BypassScopeView, BypassView } from "../bindings";

export interface BypassApi {
  listBypasses(sessionId: string): Promise<BypassView[]>;
  clearBypasses(sessionId: string): Promise<void>;
}

/** The event the session settings dispatch on `document` when they add or clear one. */
export const BYPASSES_CHANGED = "skald:bypasses-changed";

export function describeScope(scope: BypassScopeView): string {
  switch (scope.kind) {
    case "all":
      return "any tool";
    case "category":
      return `${scope.category.toLowerCase()} tools`;
    case "tool":
      return scope.name;
    case "mcpServer":
      return `the MCP server ${scope.server}`;
  }
}

export function timeLeft(ms: number | null): string {
  if (ms === null) return "until you stop the turn";
  if (ms <= 0) return "ending";
  const s = Math.ceil(ms / 1000);
  if (s < 60) return `${s} s left`;
  const m = Math.ceil(s / 60);
  return m < 120 ? `${m} min left` : `${Math.floor(m / 60)} h ${m % 60} min left`;
}

export function BypassBar(p: { sessionId: string; api: BypassApi; running: boolean; pollMs?: number }) {
  const [list, setList] = createSignal<{ b: BypassView; readAt: number }[]>([]);
  const [now, setNow] = createSignal(Date.now());
  const [error, setError] = createSignal<string | null>(null);
  const read = async () => {
    try {
      const at = Date.now();
      const read = await p.api.listBypasses(p.sessionId);
      // The clock starts at the read: an older `now` would add the time
      // the read took (a 15-minute bypass read "16 min left").
      batch(() => {
        setNow(at);
        setList(read.map((b) => ({ b, readAt: at })));
      });
    } catch {
      // A read that fails leaves the last one shown.
    }
  };
  void read();
  createEffect(on(() => p.running, () => void read(), { defer: true }));
  const poll = setInterval(() => void read(), p.pollMs ?? 5000);
  const tick = setInterval(() => list().length > 0 && setNow(Date.now()), 1000);
  const onChanged = () => void read();
  document.addEventListener(BYPASSES_CHANGED, onChanged);
  // The session settings' "Don't ask" and "Ask again" buttons change them.
  const onClick = (e: Event) => {
    if ((e.target as Element | null)?.closest?.(".bypass-row button")) setTimeout(() => void read(), 300);
  };
  document.addEventListener("click", onClick);
  onCleanup(() => {
    clearInterval(poll);
    clearInterval(tick);
    document.removeEventListener(BYPASSES_CHANGED, onChanged);
    document.removeEventListener("click", onClick);
  });
  const left = (e: { b: BypassView; readAt: number }) => (e.b.remainingMs === null ? null : e.b.remainingMs - (now() - e.readAt));
  const live = () => list().filter((e) => left(e) === null || (left(e) as number) > 0);
  const end = async () => {
    setError(null);
    try {
      await p.api.clearBypasses(p.sessionId);
      setList([]);
      document.dispatchEvent(new Event(BYPASSES_CHANGED));
    } catch (e) {
      setError(e && typeof e === "object" && "message" in e ? String((e as { message: unknown }).message) : String(e));
    }
  };
  return (
    <Show when={live().length > 0}>
      <div class="bypass-bar" role="status" data-testid="bypass-bar">
        <span>
          <b>Not asking</b> (deny rules still apply):{" "}
          <For each={live()}>
            {(e, i) => (
              <span data-testid="bypass-item">
                {i() > 0 ? "; " : ""}
                {`${describeScope(e.b.scope)}, ${timeLeft(left(e))}`}
              </span>
            )}
          </For>
        </span>
        <button type="button" data-testid="end-bypass" on:click={() => void end()}>
          Ask again
        </button>
        <Show when={error()}>
          <span class="error">{error()}</span>
        </Show>
      </div>
    </Show>
  );
}
