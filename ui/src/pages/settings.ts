// Settings: LLM providers (base URL, key, model) and the default model.
import * as api from "../api";
import type { EnvEndpointView, LocalOllamaView, ModelView, NewProviderInput, ProviderKindView, ProviderView, ReasoningSetting } from "../bindings";
import { el } from "../dom";
import { timeZoneSection } from "./timezone";

const DEFAULT_URLS: Record<ProviderKindView, string> = {
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
export function reasoningPicker(m: ModelView, set: (value: ReasoningSetting | null) => Promise<void>): HTMLSelectElement {
  const select = el("select", { class: "model-reasoning", "aria-label": `Reasoning for ${m.name}`, "data-testid": "model-reasoning" }) as HTMLSelectElement;
  for (const [value, label] of REASONING) select.append(el("option", { value }, label));
  select.value = m.reasoning ?? "";
  select.addEventListener("change", () => void set(select.value === "" ? null : (select.value as ReasoningSetting)));
  return select;
}

function providerList(providers: ProviderView[], deps: { api: typeof api }, refresh: () => void): HTMLElement {
  if (providers.length === 0) {
    return el("p", { class: "muted", "data-testid": "no-providers" }, "No provider yet. Environment variables (OPENAI_BASE_URL + OPENAI_API_KEY, ANTHROPIC_API_KEY, OLLAMA_HOST) are used when none is configured.");
  }
  const list = el("ul", { class: "providers", "data-testid": "providers" });
  for (const p of providers) {
    const models = el("ul", { class: "models" });
    for (const m of p.models) {
      const pick = el("input", { type: "radio", name: "default-model", value: String(m.id), "aria-label": `Use ${m.name}` });
      pick.checked = m.isDefault;
      pick.addEventListener("change", async () => {
        await deps.api.setDefaultModel(m.id);
        refresh();
      });
      const reasoning = reasoningPicker(m, async (value) => {
        await deps.api.setModelReasoning(m.id, value);
        refresh();
      });
      models.append(el("li", { "data-model": m.name }, el("label", {}, pick, ` ${m.name}${m.isDefault ? " (default)" : ""}`), " ", reasoning));
    }
    list.append(
      el(
        "li",
        { "data-provider": p.id },
        el("strong", {}, p.name),
        ` — ${p.kind}, ${p.baseUrl ?? DEFAULT_URLS[p.kind]}${p.hasApiKey ? ", key stored" : ""}`,
        models,
      ),
    );
  }
  return list;
}

/** Endpoints set up through environment variables: pick the model they
 *  list (remembered), so chats work without adding a provider. */
export function envEndpointList(
  endpoints: EnvEndpointView[],
  choose: (kind: ProviderKindView, model: string) => Promise<void>,
): HTMLElement {
  const list = el("ul", { class: "providers", "data-testid": "env-endpoints" });
  for (const e of endpoints) {
    const item = el(
      "li",
      { "data-env": e.kind },
      el("strong", {}, `${e.kind} from the environment`),
      ` — ${e.baseUrl}${e.hasApiKey ? ", key set" : ""}`,
    );
    if (e.error) {
      item.append(el("p", { class: "error", role: "alert" }, `Cannot list its models: ${e.error}`));
    } else if (e.models.length === 0) {
      item.append(el("p", { class: "muted" }, "It lists no models."));
    } else {
      const select = el("select", { name: `env-model-${e.kind}`, "aria-label": `Model for ${e.kind}` });
      for (const m of e.models) {
        const o = el("option", { value: m }, m);
        o.selected = m === e.chosen;
        select.append(o);
      }
      const use = el("button", { type: "button", "data-testid": `use-env-${e.kind}` }, "Use this model");
      use.addEventListener("click", () => void choose(e.kind, select.value));
      item.append(
        el("div", { class: "row" }, select, use),
        el("p", { class: "muted", "data-testid": `env-chosen-${e.kind}` }, e.chosen ? `Chats use ${e.chosen}.` : "No model picked yet."),
      );
    }
    list.append(item);
  }
  return list;
}

/** The offer of an Ollama found on this machine, while no provider is configured. */
export function localOllamaOffer(found: LocalOllamaView, add: (input: NewProviderInput) => Promise<void>): HTMLElement {
  const box = el("div", { class: "offer", "data-testid": "ollama-offer" });
  if (found.models.length === 0) {
    box.append(el("p", {}, `Ollama is running at ${found.baseUrl} but has no model yet: pull one (ollama pull qwen3), then come back.`));
    return box;
  }
  const model = el("select", { name: "ollamaModel", "aria-label": "Ollama model" });
  for (const m of found.models) model.append(el("option", { value: m }, m));
  const button = el("button", { type: "button", "data-testid": "add-ollama" }, "Use it");
  button.addEventListener("click", () => {
    void add({ kind: "ollama", name: "Ollama", baseUrl: found.baseUrl, apiKey: null, model: model.value });
  });
  box.append(
    el("p", {}, `Ollama is running at ${found.baseUrl} with ${found.models.length} model${found.models.length === 1 ? "" : "s"}. Chats use it until a provider is added.`),
    el("div", { class: "row" }, model, button),
  );
  return box;
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

export async function mountSettings(root: HTMLElement, deps = { api }): Promise<void> {
  const refresh = () => void mountSettings(root, deps);
  let providers: ProviderView[] = [];
  let loadError = "";
  try {
    providers = await deps.api.listProviders();
  } catch (e) {
    loadError = api.errorMessage(e);
  }
  const message = el("p", { class: "form-message", role: "status" });
  const form = el(
    "form",
    { class: "provider-form", "data-testid": "provider-form" },
    el("label", {}, "Kind ", (() => {
      const s = el("select", { name: "kind" });
      for (const k of ["openai", "anthropic", "ollama"]) s.append(el("option", { value: k }, k));
      return s;
    })()),
    el("label", {}, "Name ", el("input", { name: "name", placeholder: "e.g. OpenRouter" })),
    el("label", {}, "Base URL ", el("input", { name: "baseUrl", placeholder: "https://api.openai.com/v1" })),
    el("label", {}, "API key ", el("input", { name: "apiKey", type: "password", autocomplete: "off" })),
    el("label", {}, "Model ", el("input", { name: "model", placeholder: "gpt-4o-mini" })),
    el("button", { type: "submit" }, "Add provider"),
    message,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const input = readProviderForm(form);
    if (typeof input === "string") {
      message.textContent = input;
      return;
    }
    try {
      await deps.api.addProvider(input);
      refresh();
    } catch (err) {
      message.textContent = api.errorMessage(err);
    }
  });
  const endpoints = loadError ? [] : await deps.api.envEndpoints().catch(() => []);
  const envSection: (HTMLElement | string)[] = endpoints.length
    ? [
        el("h2", {}, "From the environment"),
        envEndpointList(endpoints, async (kind, model) => {
          try {
            await deps.api.setEnvModel(kind, model);
            refresh();
          } catch (err) {
            message.textContent = api.errorMessage(err);
          }
        }),
      ]
    : [];
  let offer: HTMLElement | string = "";
  if (!loadError && providers.length === 0) {
    const found = await deps.api.localOllama().catch(() => null);
    if (found) {
      offer = localOllamaOffer(found, async (input) => {
        try {
          await deps.api.addProvider(input);
          refresh();
        } catch (err) {
          message.textContent = api.errorMessage(err);
        }
      });
    }
  }
  root.replaceChildren(
    el("h1", {}, "Settings"),
    el("h2", {}, "Providers"),
    loadError ? el("p", { class: "error", role: "alert" }, loadError) : providerList(providers, deps, refresh),
    offer,
    ...envSection,
    el("h2", {}, "Add a provider"),
    form,
    timeZoneSection(deps),
  );
}
