// The chat header's model switcher: this chat's own model, or the default.
// Picking one changes only this chat (stored on the session); its next turn
// asks the picked model, and each answer names the model that wrote it.
import { createSignal, For, type JSX, onMount, Show } from "solid-js";
import type { ChatModelsView, ModelChoiceView } from "../bindings";

export interface ModelSwitcherApi {
  chatModels(sessionId: string): Promise<ChatModelsView>;
  setChatModel(sessionId: string, provider: string | null, model: string | null): Promise<ModelChoiceView | null>;
  errorMessage(e: unknown): string;
}

/** The select's value for a choice ("" is the default). */
export function choiceKey(c: ModelChoiceView): string {
  return JSON.stringify([c.provider, c.model]);
}

/** The options grouped by provider, the chat's pick included even when
 *  its endpoint does not list it now (down, or the model since removed). */
export function groupChoices(view: ChatModelsView): { provider: string; name: string; choices: ModelChoiceView[] }[] {
  const all = [...view.options];
  if (view.chosen && !all.some((o) => choiceKey(o) === choiceKey(view.chosen!))) all.unshift(view.chosen);
  const groups: { provider: string; name: string; choices: ModelChoiceView[] }[] = [];
  for (const c of all) {
    let g = groups.find((x) => x.provider === c.provider);
    if (!g) groups.push((g = { provider: c.provider, name: c.providerName, choices: [] }));
    if (!g.choices.some((x) => x.model === c.model)) g.choices.push(c);
  }
  return groups;
}

export function ModelSwitcher(props: { sessionId: string; api: ModelSwitcherApi }): JSX.Element {
  const [view, setView] = createSignal<ChatModelsView | null>(null);
  const [message, setMessage] = createSignal<string | null>(null);
  onMount(async () => {
    try {
      setView(await props.api.chatModels(props.sessionId));
    } catch (e) {
      setMessage(props.api.errorMessage(e));
    }
  });
  const pick = async (key: string) => {
    const v = view();
    if (!v) return;
    const choice = key === "" ? null : groupChoices(v).flatMap((g) => g.choices).find((c) => choiceKey(c) === key) ?? null;
    try {
      const chosen = await props.api.setChatModel(props.sessionId, choice?.provider ?? null, choice?.model ?? null);
      setView({ ...v, chosen });
      setMessage(null);
    } catch (e) {
      setMessage(props.api.errorMessage(e));
    }
  };
  const defaultLabel = () => {
    const d = view()?.default;
    return d ? `Default (${d.model} · ${d.providerName})` : "Default model";
  };
  return (
    <div class="model-switcher" data-testid="model-switcher">
      <Show when={view()} fallback={<span class="muted">{message() ?? "Model…"}</span>}>
        {(v) => (
          <select
            aria-label="Model for this chat"
            data-testid="chat-model"
            title={v().errors.length ? `Some providers could not list their models: ${v().errors.join("; ")}` : "The model this chat asks"}
            on:change={(e) => void pick(e.currentTarget.value)}
          >
            <option value="" selected={!v().chosen}>
              {defaultLabel()}
            </option>
            <For each={groupChoices(v())}>
              {(g) => (
                <optgroup label={g.name}>
                  <For each={g.choices}>
                    {(c) => (
                      <option value={choiceKey(c)} selected={!!v().chosen && choiceKey(v().chosen!) === choiceKey(c)}>
                        {c.model}
                      </option>
                    )}
                  </For>
                </optgroup>
              )}
            </For>
          </select>
        )}
      </Show>
      <Show when={view() && message()}>
        <span class="error" role="alert">
          {message()}
        </span>
      </Show>
    </div>
  );
}
