// Settings › Time zone: the zone cron jobs are scheduled in (default: the
// system's). A job keeps the zone it was scheduled in, so changing this
// moves only the jobs scheduled afterwards; the Tasks view names each
// job's zone beside its next run.
import { createResource, createSignal, For, Show } from "solid-js";
import * as api from "../api";
import type { TimeZoneView } from "../bindings";

type Deps = { api: Pick<typeof api, "getTimeZone" | "setTimeZone" | "errorMessage"> };

/** IANA names the webview knows, for the input's suggestions. */
function knownZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    return intl.supportedValuesOf?.("timeZone") ?? [];
  } catch {
    return [];
  }
}

export function TimeZoneSetting(props: { deps: Deps }) {
  const [error, setError] = createSignal("");
  const [draft, setDraft] = createSignal("");
  // Null when it cannot be read: the error says why, the input still works.
  const [view, { mutate }] = createResource<TimeZoneView | null>(async () => {
    try {
      return await props.deps.api.getTimeZone();
    } catch (e) {
      setError(props.deps.api.errorMessage(e));
      return null;
    }
  });
  const save = async (zone: string | null) => {
    setError("");
    try {
      mutate(await props.deps.api.setTimeZone(zone));
      setDraft("");
    } catch (e) {
      setError(props.deps.api.errorMessage(e));
    }
  };
  return (
    <section class="time-zone" data-testid="time-zone">
      <h2>Time zone</h2>
      <Show when={view.latest}>
        {(v) => (
          <p data-testid="time-zone-current">
            Cron jobs run in <strong>{v().timeZone}</strong>
            {v().fromSystem ? " (the system's)." : ` (chosen; the system's is ${v().systemTimeZone}).`} Jobs
            already scheduled keep their zone.
          </p>
        )}
      </Show>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          const zone = draft().trim();
          if (zone) void save(zone);
        }}
      >
        <input
          name="timeZone"
          list="time-zones"
          placeholder="e.g. Europe/Berlin"
          aria-label="Time zone"
          data-testid="time-zone-input"
          value={draft()}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
        <datalist id="time-zones">
          <For each={knownZones()}>{(z) => <option value={z} />}</For>
        </datalist>
        <button type="submit" data-testid="time-zone-save" disabled={!draft().trim()}>
          Use this zone
        </button>
        <Show when={view.latest?.fromSystem === false}>
          <button type="button" data-testid="time-zone-system" onClick={() => void save(null)}>
            Use the system's ({view.latest?.systemTimeZone})
          </button>
        </Show>
      </form>
      <Show when={error()}>
        <p class="error" role="alert" data-testid="time-zone-error">
          {error()}
        </p>
      </Show>
    </section>
  );
}
