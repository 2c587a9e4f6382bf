// Settings: LLM providers (add, edit, delete, test the connection, discover
// the models an endpoint lists), the default model, the endpoints the
// environment configures, and a local Ollama offered while nothing is set up.
import { createResource, createSignal, For, Index, type JSX, Show } from "solid-js";
import * as api from "../api";
import type { EnvEndpointView, LocalOllamaView, ModelView, NewProviderInput, ProviderKindView, ProviderTestView, ProviderView, ReasoningSetting } from "../bindings";
import { mountSolid } from "../solid";
import { SendImagesPicker } from "./send_images";
import { TimeZoneSetting } from "./timezone";

export type SettingsApi = Pick<
  typeof api,
  | "listProviders"
  | "addProvider"
  | "editProvider"
  | "deleteProvider"
  | "testProvider"
  | "probeProvider"
  | "useProviderModel"
  | "setDefaultModel"
  | "setModelReasoning"
  | "setModelSendImages"
  | "envEndpoints"
  | "setEnvModel"
  | "localOllama"
>;

export const DEFAULT_URLS: Record<ProviderKindView, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
  ollama: "http://127.0.0.1:11434",
};

const REASONING: [ReasoningSetting | "", string][] = [
  ["", "reasoning: provider default"],
  ["off", "reasoning: off"],
  ["low", "reasoning: low"],
  ["medium", "reasoning: medium"],
  ["high", "reasoning: high"],
];

/** A model's reasoning setting (Anthropic thinking budget, OpenAI-style effort, Ollama think). */
export function ReasoningPicker(props: { model: ModelView; set: (value: ReasoningSetting | null) => Promise<void> }): JSX.Element {
  return (
    <select
      class="model-reasoning"
      aria-label={`Reasoning for ${props.model.name}`}
      data-testid="model-reasoning"
      value={props.model.reasoning ?? ""}
      onChange={(e) => void props.set(e.currentTarget.value === "" ? null : (e.currentTarget.value as ReasoningSetting))}
    >
      <For each={REASONING}>{([value, label]) => <option value={value} selected={(props.model.reasoning ?? "") === value}>{label}</option>}</For>
    </select>
  );
}

/** Endpoints set up through environment variables: pick the model they
 *  list (remembered), so chats work without adding a provider. */
export function EnvEndpointList(props: { endpoints: EnvEndpointView[]; choose: (kind: ProviderKindView, model: string) => Promise<void> }): JSX.Element {
  return (
    <ul class="providers" data-testid="env-endpoints">
      <For each={props.endpoints}>
        {(e) => {
          let select: HTMLSelectElement | undefined;
          return (
            <li data-env={e.kind}>
              <strong>{`${e.kind} from the environment`}</strong>
              {` — ${e.baseUrl}${e.hasApiKey ? ", key set" : ""}`}
              <Show when={!e.error} fallback={<p class="error" role="alert">{`Cannot list its models: ${e.error}`}</p>}>
                <Show when={e.models.length > 0} fallback={<p class="muted">It lists no models.</p>}>
                  <div class="row">
                    <select ref={select} name={`env-model-${e.kind}`} aria-label={`Model for ${e.kind}`}>
                      <For each={e.models}>{(m) => <option value={m} selected={m === e.chosen}>{m}</option>}</For>
                    </select>
                    <button type="button" data-testid={`use-env-${e.kind}`} onClick={() => select && void props.choose(e.kind, select.value)}>
                      Use this model
                    </button>
                  </div>
                  <p class="muted" data-testid={`env-chosen-${e.kind}`}>{e.chosen ? `Chats use ${e.chosen}.` : "No model picked yet."}</p>
                </Show>
              </Show>
            </li>
          );
        }}
      </For>
    </ul>
  );
}

/** The offer of an Ollama found on this machine, while no provider is configured. */
export function LocalOllamaOffer(props: { found: LocalOllamaView; add: (input: NewProviderInput) => Promise<void> }): JSX.Element {
  let model: HTMLSelectElement | undefined;
  const n = () => props.found.models.length;
  return (
    <div class="offer" data-testid="ollama-offer">
      <Show when={n() > 0} fallback={<p>{`Ollama is running at ${props.found.baseUrl} but has no model yet: pull one (ollama pull qwen3), then come back.`}</p>}>
        <p>{`Ollama is running at ${props.found.baseUrl} with ${n()} model${n() === 1 ? "" : "s"}. Chats use it until a provider is added.`}</p>
        <div class="row">
          <select ref={model} name="ollamaModel" aria-label="Ollama model">
            <For each={props.found.models}>{(m) => <option value={m}>{m}</option>}</For>
          </select>
          <button
            type="button"
            data-testid="add-ollama"
            onClick={() => void props.add({ kind: "ollama", name: "Ollama", baseUrl: props.found.baseUrl, apiKey: null, model: model?.value ?? props.found.models[0] })}
          >
            Use it
          </button>
        </div>
      </Show>
    </div>
  );
}

export function readProviderForm(form: HTMLFormElement): NewProviderInput | string {
  const data = new FormData(form);
  const kind = String(data.get("kind") ?? "openai") as ProviderKindView;
  const name = String(data.get("name") ?? "").trim();
  const baseUrl = String(data.get("baseUrl") ?? "").trim();
  const apiKey = String(data.get("apiKey") ?? "").trim();
  const model = String(data.get("model") ?? "").trim();
  if (!model) return "Enter a model name, e.g. gpt-4o-mini or llama3.1.";
  if (baseUrl && !/^https?:\/\//.test(baseUrl)) return "The base URL must start with http:// or https://.";
  return { kind, name: name || kind, baseUrl: baseUrl || null, apiKey: apiKey || null, model };
}

function endpointOf(kind: ProviderKindView, baseUrl: string | null): string {
  return (baseUrl || DEFAULT_URLS[kind]).trim().replace(/\/+$/, "").toLowerCase();
}

/** A stored provider the new one repeats: the same endpoint (kind and base
 *  URL, the default filled in) or the same name. */
export function findDuplicate(providers: ProviderView[], input: NewProviderInput): ProviderView | undefined {
  const at = endpointOf(input.kind, input.baseUrl);
  return (
    providers.find((p) => p.kind === input.kind && endpointOf(p.kind, p.baseUrl) === at) ??
    providers.find((p) => p.name.trim().toLowerCase() === input.name.trim().toLowerCase())
  );
}

/** "Connected in 12 ms: 3 models" or why not. */
export function testSummary(t: ProviderTestView): string {
  if (!t.ok) return `Could not connect to ${t.baseUrl}: ${t.error ?? "unknown error"}`;
  const n = t.models.length;
  return `Connected to ${t.baseUrl} in ${t.elapsedMs} ms: ${n === 0 ? "it lists no models" : `${n} model${n === 1 ? "" : "s"}`}.`;
}

function ProviderItem(props: { p: ProviderView; api: SettingsApi; refresh: () => void; editing: boolean; setEditing: (id: string | null) => void; fail: (e: unknown) => void }): JSX.Element {
  const p = () => props.p;
  const [test, setTest] = createSignal<ProviderTestView | null>(null);
  const [testing, setTesting] = createSignal(false);
  const [confirmDelete, setConfirmDelete] = createSignal(false);
  const [editMessage, setEditMessage] = createSignal("");
  let discovered: HTMLSelectElement | undefined;
  const runTest = async () => {
    setTesting(true);
    try {
      setTest(await props.api.testProvider(p().id));
    } catch (e) {
      props.fail(e);
    } finally {
      setTesting(false);
    }
  };
  const save = async (e: SubmitEvent) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget as HTMLFormElement);
    const baseUrl = String(data.get("baseUrl") ?? "").trim();
    const model = String(data.get("model") ?? "").trim();
    if (!model) return setEditMessage("Enter a model name.");
    if (baseUrl && !/^https?:\/\//.test(baseUrl)) return setEditMessage("The base URL must start with http:// or https://.");
    try {
      await props.api.editProvider(p().id, {
        name: String(data.get("name") ?? ""),
        baseUrl: baseUrl || null,
        apiKey: String(data.get("apiKey") ?? "") || null,
        clearApiKey: data.get("clearApiKey") === "on",
        model,
      });
      props.setEditing(null);
      props.refresh();
    } catch (err) {
      setEditMessage(api.errorMessage(err));
    }
  };
  const current = () => p().models.find((m) => m.isDefault)?.name ?? p().models[0]?.name ?? "";
  return (
    <li data-provider={p().id}>
      <div class="provider-head">
        <strong>{p().name}</strong>
        <span>{` — ${p().kind}, ${p().baseUrl ?? DEFAULT_URLS[p().kind]}${p().hasApiKey ? ", key stored" : ""}`}</span>
        <span class="provider-actions">
          <button type="button" data-testid={`test-provider-${p().id}`} disabled={testing()} onClick={() => void runTest()}>
            {testing() ? "Testing…" : "Test connection"}
          </button>
          <button type="button" data-testid={`edit-provider-${p().id}`} onClick={() => props.setEditing(props.editing ? null : p().id)}>
            Edit
          </button>
          <button type="button" class="reject" data-testid={`delete-provider-${p().id}`} onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        </span>
      </div>
      <Show when={confirmDelete()}>
        <div class="confirm row" role="alertdialog" data-testid={`confirm-delete-${p().id}`}>
          {`Delete ${p().name} and its stored key? Chats using it need another provider.`}
          <button type="button" class="reject" data-testid={`confirm-delete-yes-${p().id}`} onClick={() => void props.api.deleteProvider(p().id).then(props.refresh, props.fail)}>
            Delete
          </button>
          <button type="button" onClick={() => setConfirmDelete(false)}>
            Keep
          </button>
        </div>
      </Show>
      <Show when={test()}>
        {(t) => (
          <div class="provider-test" data-testid={`test-result-${p().id}`} data-ok={String(t().ok)}>
            <p class={t().ok ? "ok" : "error"} role="status">{testSummary(t())}</p>
            <Show when={t().ok && t().models.length > 0}>
              <div class="row">
                <select ref={discovered} aria-label={`Models of ${p().name}`} data-testid={`discovered-${p().id}`}>
                  <For each={t().models}>{(m) => <option value={m} selected={m === current()}>{m}</option>}</For>
                </select>
                <button type="button" data-testid={`use-discovered-${p().id}`} onClick={() => discovered && void props.api.useProviderModel(p().id, discovered.value).then(props.refresh, props.fail)}>
                  Use this model
                </button>
              </div>
            </Show>
          </div>
        )}
      </Show>
      <Show when={props.editing}>
        <form class="provider-form provider-edit" data-testid={`provider-edit-${p().id}`} onSubmit={(e) => void save(e)}>
          <label>
            Name <input name="name" value={p().name} />
          </label>
          <label>
            Base URL <input name="baseUrl" value={p().baseUrl ?? ""} placeholder={DEFAULT_URLS[p().kind]} />
          </label>
          <label>
            API key <input name="apiKey" type="password" autocomplete="off" placeholder={p().hasApiKey ? "stored — leave empty to keep" : "none"} />
          </label>
          <Show when={p().hasApiKey}>
            <label class="inline">
              <input type="checkbox" name="clearApiKey" /> forget the stored key
            </label>
          </Show>
          <label>
            Model <input name="model" value={current()} />
          </label>
          <button type="submit" data-testid={`save-provider-${p().id}`}>
            Save
          </button>
          <button type="button" onClick={() => props.setEditing(null)}>
            Cancel
          </button>
          <p class="form-message" role="status">{editMessage()}</p>
        </form>
      </Show>
      <ul class="models">
        <For each={p().models}>
          {(m) => (
            <li data-model={m.name}>
              <label>
                <input
                  type="radio"
                  name="default-model"
                  value={String(m.id)}
                  aria-label={`Use ${m.name}`}
                  checked={m.isDefault}
                  onChange={() => void props.api.setDefaultModel(m.id).then(props.refresh, props.fail)}
                />
                {` ${m.name}${m.isDefault ? " (default)" : ""}`}
              </label>{" "}
              <ReasoningPicker model={m} set={(value) => props.api.setModelReasoning(m.id, value).then(props.refresh, props.fail)} />{" "}
              <SendImagesPicker model={m} set={(on) => props.api.setModelSendImages(m.id, on).then(props.refresh, props.fail)} />
            </li>
          )}
        </For>
      </ul>
    </li>
  );
}

export function Settings(props: { api: SettingsApi }): JSX.Element {
  const [providers, { refetch }] = createResource(() => props.api.listProviders());
  const [endpoints, { refetch: refetchEnv }] = createResource(() => props.api.envEndpoints().catch(() => [] as EnvEndpointView[]));
  // `latest` keeps the list on screen while a refresh is under way.
  const stored = () => (providers.error ? undefined : providers.latest);
  const [ollama] = createResource(
    () => stored()?.length === 0,
    (none) => (none ? props.api.localOllama().catch(() => null) : Promise.resolve(null)),
  );
  const [message, setMessage] = createSignal("");
  const [editing, setEditing] = createSignal<string | null>(null);
  const [duplicate, setDuplicate] = createSignal<{ of: ProviderView; input: NewProviderInput } | null>(null);
  const [discovered, setDiscovered] = createSignal<ProviderTestView | null>(null);
  const refresh = () => {
    setMessage("");
    void refetch();
    void refetchEnv();
  };
  const fail = (e: unknown): void => void setMessage(api.errorMessage(e));
  let form: HTMLFormElement | undefined;
  const add = async (input: NewProviderInput) => {
    try {
      await props.api.addProvider(input);
      setDuplicate(null);
      setDiscovered(null);
      form?.reset();
      refresh();
    } catch (err) {
      fail(err);
    }
  };
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    if (!form) return;
    const input = readProviderForm(form);
    if (typeof input === "string") return setMessage(input);
    const same = findDuplicate(stored() ?? [], input);
    if (same) return setDuplicate({ of: same, input });
    void add(input);
  };
  const discover = async () => {
    if (!form) return;
    const data = new FormData(form);
    const kind = String(data.get("kind") ?? "openai") as ProviderKindView;
    setMessage("Asking the endpoint for its models…");
    try {
      const t = await props.api.probeProvider(kind, String(data.get("baseUrl") ?? "").trim() || null, String(data.get("apiKey") ?? "").trim() || null);
      setDiscovered(t);
      setMessage(testSummary(t));
      const model = form.elements.namedItem("model") as HTMLInputElement | null;
      if (t.ok && model && !model.value && t.models.length) model.value = t.models[0];
    } catch (err) {
      fail(err);
    }
  };
  const noProvider = () => stored()?.length === 0;
  return (
    <>
      <h1>Settings</h1>
      <h2>Providers</h2>
      <Show when={providers.error}>
        <p class="error" role="alert">{api.errorMessage(providers.error)}</p>
      </Show>
      <Show when={noProvider()}>
        <p class="muted" data-testid="no-providers">
          No provider yet. Add one below, or set environment variables (OPENAI_BASE_URL + OPENAI_API_KEY, ANTHROPIC_API_KEY, OLLAMA_HOST): they are used when none is configured.
        </p>
      </Show>
      <Show when={(stored()?.length ?? 0) > 0}>
        <ul class="providers" data-testid="providers">
          {/* By position, so a refresh keeps a provider's test result and open forms. */}
          <Index each={stored()}>
            {(p) => <ProviderItem p={p()} api={props.api} refresh={refresh} editing={editing() === p().id} setEditing={setEditing} fail={fail} />}
          </Index>
        </ul>
      </Show>
      <Show when={noProvider() && ollama()}>{(found) => <LocalOllamaOffer found={found()} add={add} />}</Show>
      <Show when={(endpoints() ?? []).length > 0}>
        <h2>From the environment</h2>
        <EnvEndpointList endpoints={endpoints() ?? []} choose={(kind, model) => props.api.setEnvModel(kind, model).then(refresh, (e) => void fail(e))} />
      </Show>
      <h2 id="add-provider">Add a provider</h2>
      <form ref={form} class="provider-form" data-testid="provider-form" onSubmit={submit}>
        <label>
          Kind{" "}
          <select name="kind">
            <option value="openai">openai</option>
            <option value="anthropic">anthropic</option>
            <option value="ollama">ollama</option>
          </select>
        </label>
        <label>
          Name <input name="name" placeholder="e.g. OpenRouter" />
        </label>
        <label>
          Base URL <input name="baseUrl" placeholder="https://api.openai.com/v1" />
        </label>
        <label>
          API key <input name="apiKey" type="password" autocomplete="off" />
        </label>
        <label>
          Model <input name="model" placeholder="gpt-4o-mini" list="discovered-models" />
        </label>
        <datalist id="discovered-models">
          <For each={discovered()?.models ?? []}>{(m) => <option value={m} />}</For>
        </datalist>
        <button type="button" data-testid="discover-models" onClick={() => void discover()}>
          Discover models
        </button>
        <button type="submit">Add provider</button>
        <p class="form-message" role="status" data-testid="provider-form-message">{message()}</p>
      </form>
      <Show when={duplicate()}>
        {(d) => (
          <div class="offer" role="alertdialog" data-testid="duplicate-provider">
            <p>{`${d().of.name} already uses this endpoint (${d().of.baseUrl ?? DEFAULT_URLS[d().of.kind]}). Edit it instead of adding a second one?`}</p>
            <div class="row">
              <button
                type="button"
                data-testid="edit-duplicate"
                onClick={() => {
                  const id = d().of.id;
                  setEditing(id);
                  setDuplicate(null);
                  document.querySelector(`[data-provider="${CSS.escape(id)}"]`)?.scrollIntoView({ block: "nearest" });
                }}
              >
                {`Edit ${d().of.name}`}
              </button>
              <button type="button" data-testid="add-anyway" onClick={() => void add(d().input)}>
                Add anyway
              </button>
              <button type="button" onClick={() => setDuplicate(null)}>
                Cancel
              </button>
            </div>
          </div>
        )}
      </Show>
      <TimeZoneSetting deps={{ api }} />
    </>
  );
}

export async function mountSettings(root: HTMLElement, deps: { api: SettingsApi } = { api }): Promise<() => void> {
  return mountSolid(root, () => <Settings api={deps.api} />);
}
