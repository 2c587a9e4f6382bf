import { describe, expect, it, vi } from "vitest";
import type { ProviderView } from "../bindings";
import { mountSolid } from "../solid";
import { EnvEndpointList, findDuplicate, LocalOllamaOffer, mountSettings, ReasoningPicker, readProviderForm, testSummary, type SettingsApi } from "./settings";

function form(fields: Record<string, string>): HTMLFormElement {
  const f = document.createElement("form");
  for (const [name, value] of Object.entries(fields)) {
    const i = document.createElement("input");
    i.name = name;
    i.value = value;
    f.append(i);
  }
  return f;
}

// Solid delegates clicks to the document: roots must be attached.
function attached(): HTMLDivElement {
  const d = document.createElement("div");
  document.body.append(d);
  return d;
}

const tick = () => new Promise((r) => setTimeout(r, 0));
async function until(check: () => unknown): Promise<void> {
  for (let i = 0; i < 50 && !check(); i++) await tick();
  expect(check()).toBeTruthy();
}

function provider(over: Partial<ProviderView> = {}): ProviderView {
  return { id: "lab", kind: "openai", name: "Lab", baseUrl: "http://127.0.0.1:8080/v1", hasApiKey: true, enabled: true, models: [{ id: 1, name: "m-small", isDefault: true, reasoning: null }], ...over };
}

function fakeApi(providers: ProviderView[] = []) {
  return {
    listProviders: vi.fn().mockResolvedValue(providers),
    addProvider: vi.fn().mockResolvedValue(undefined),
    editProvider: vi.fn().mockResolvedValue(undefined),
    deleteProvider: vi.fn().mockResolvedValue(true),
    testProvider: vi.fn(),
    probeProvider: vi.fn(),
    useProviderModel: vi.fn().mockResolvedValue(undefined),
    setDefaultModel: vi.fn().mockResolvedValue(undefined),
    setModelReasoning: vi.fn().mockResolvedValue(undefined),
    setModelSendImages: vi.fn().mockResolvedValue(undefined),
    envEndpoints: vi.fn().mockResolvedValue([]),
    setEnvModel: vi.fn().mockResolvedValue(undefined),
    localOllama: vi.fn().mockResolvedValue(null),
  };
}

const q = <T extends Element = HTMLElement>(root: ParentNode, sel: string) => root.querySelector(sel) as T;
function setField(root: ParentNode, sel: string, value: string) {
  (q<HTMLInputElement>(root, sel)).value = value;
}

describe("provider form", () => {
  it("reads a valid provider", () => {
    expect(readProviderForm(form({ kind: "openai", name: "", baseUrl: "http://127.0.0.1:9/v1", apiKey: "k", model: "m" }))).toEqual({
      kind: "openai",
      name: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "k",
      model: "m",
    });
  });
  it("explains what is wrong", () => {
    expect(readProviderForm(form({ kind: "openai", model: "" }))).toMatch(/model name/);
    expect(readProviderForm(form({ kind: "openai", model: "m", baseUrl: "ftp://x" }))).toMatch(/http/);
  });
  it("finds a provider it would repeat: same endpoint (default URL filled in, trailing slash ignored) or same name", () => {
    const stored = [provider(), provider({ id: "oa", name: "OpenAI", baseUrl: null })];
    expect(findDuplicate(stored, { kind: "openai", name: "x", baseUrl: "http://127.0.0.1:8080/v1/", apiKey: null, model: "m" })?.id).toBe("lab");
    expect(findDuplicate(stored, { kind: "openai", name: "y", baseUrl: "https://api.openai.com/v1", apiKey: null, model: "m" })?.id).toBe("oa");
    expect(findDuplicate(stored, { kind: "ollama", name: "lab", baseUrl: null, apiKey: null, model: "m" })?.id).toBe("lab");
    expect(findDuplicate(stored, { kind: "anthropic", name: "Claude", baseUrl: null, apiKey: null, model: "m" })).toBeUndefined();
  });
});

describe("a local Ollama", () => {
  it("is offered with its models, and adding it picks the chosen one", async () => {
    const add = vi.fn().mockResolvedValue(undefined);
    const root = attached();
    mountSolid(root, () => <LocalOllamaOffer found={{ baseUrl: "http://127.0.0.1:11434", models: ["qwen3:8b", "llama3.2"] }} add={add} />);
    expect(root.textContent).toContain("2 models");
    q<HTMLSelectElement>(root, "[name=ollamaModel]").value = "llama3.2";
    q<HTMLButtonElement>(root, "[data-testid=add-ollama]").click();
    expect(add).toHaveBeenCalledWith({ kind: "ollama", name: "Ollama", baseUrl: "http://127.0.0.1:11434", apiKey: null, model: "llama3.2" });
  });

  it("without models says to pull one", () => {
    const root = attached();
    mountSolid(root, () => <LocalOllamaOffer found={{ baseUrl: "http://127.0.0.1:11434", models: [] }} add={vi.fn()} />);
    expect(root.textContent).toContain("ollama pull");
    expect(root.querySelector("button")).toBeNull();
  });

  it("is looked for only while no provider is configured", async () => {
    const api = fakeApi([]);
    api.localOllama.mockResolvedValue({ baseUrl: "http://127.0.0.1:11434", models: ["qwen3:8b"] });
    const root = attached();
    await mountSettings(root, { api: api as unknown as SettingsApi });
    await until(() => root.querySelector("[data-testid=ollama-offer]"));
    const other = fakeApi([provider()]);
    const root2 = attached();
    await mountSettings(root2, { api: other as unknown as SettingsApi });
    await until(() => root2.querySelector("[data-testid=providers]"));
    expect(other.localOllama).not.toHaveBeenCalled();
    expect(root2.querySelector("[data-testid=ollama-offer]")).toBeNull();
  });
});

describe("stored providers", () => {
  it("are tested against their endpoint, and a discovered model can be chosen", async () => {
    const api = fakeApi([provider()]);
    api.testProvider.mockResolvedValue({ baseUrl: "http://127.0.0.1:8080/v1", ok: true, models: ["m-small", "m-large"], error: null, elapsedMs: 12 });
    const root = attached();
    await mountSettings(root, { api: api as unknown as SettingsApi });
    await until(() => root.querySelector("[data-testid=test-provider-lab]"));
    q<HTMLButtonElement>(root, "[data-testid=test-provider-lab]").click();
    await until(() => root.querySelector("[data-testid=test-result-lab]"));
    expect(api.testProvider).toHaveBeenCalledWith("lab");
    expect(q(root, "[data-testid=test-result-lab]").textContent).toContain("in 12 ms: 2 models");
    q<HTMLSelectElement>(root, "[data-testid=discovered-lab]").value = "m-large";
    q<HTMLButtonElement>(root, "[data-testid=use-discovered-lab]").click();
    expect(api.useProviderModel).toHaveBeenCalledWith("lab", "m-large");
  });

  it("say why a test failed", () => {
    expect(testSummary({ baseUrl: "http://x/v1", ok: false, models: [], error: "openai: HTTP 401: bad key", elapsedMs: 3 })).toBe("Could not connect to http://x/v1: openai: HTTP 401: bad key");
  });

  it("are edited (a blank key keeps the stored one) and deleted after a confirmation", async () => {
    const api = fakeApi([provider()]);
    const root = attached();
    await mountSettings(root, { api: api as unknown as SettingsApi });
    await until(() => root.querySelector("[data-testid=edit-provider-lab]"));
    q<HTMLButtonElement>(root, "[data-testid=edit-provider-lab]").click();
    const edit = q<HTMLFormElement>(root, "[data-testid=provider-edit-lab]");
    setField(edit, "[name=name]", "Lab 2");
    setField(edit, "[name=model]", "m-large");
    q<HTMLButtonElement>(edit, "[data-testid=save-provider-lab]").click();
    await until(() => api.editProvider.mock.calls.length);
    expect(api.editProvider).toHaveBeenCalledWith("lab", { name: "Lab 2", baseUrl: "http://127.0.0.1:8080/v1", apiKey: null, clearApiKey: false, model: "m-large" });

    q<HTMLButtonElement>(root, "[data-testid=delete-provider-lab]").click();
    expect(api.deleteProvider).not.toHaveBeenCalled();
    q<HTMLButtonElement>(root, "[data-testid=confirm-delete-yes-lab]").click();
    expect(api.deleteProvider).toHaveBeenCalledWith("lab");
  });

  it("adding the same endpoint again offers to edit the existing one", async () => {
    const api = fakeApi([provider()]);
    const root = attached();
    await mountSettings(root, { api: api as unknown as SettingsApi });
    await until(() => root.querySelector("[data-testid=providers]"));
    const f = q<HTMLFormElement>(root, "[data-testid=provider-form]");
    setField(f, "[name=name]", "Again");
    setField(f, "[name=baseUrl]", "http://127.0.0.1:8080/v1");
    setField(f, "[name=model]", "m");
    f.requestSubmit();
    await until(() => root.querySelector("[data-testid=duplicate-provider]"));
    expect(api.addProvider).not.toHaveBeenCalled();
    q<HTMLButtonElement>(root, "[data-testid=edit-duplicate]").click();
    await until(() => root.querySelector("[data-testid=provider-edit-lab]"));
    expect(root.querySelector("[data-testid=duplicate-provider]")).toBeNull();
  });
});

describe("environment endpoints", () => {
  it("offer the models the endpoint lists and remember the pick", async () => {
    const choose = vi.fn().mockResolvedValue(undefined);
    const list = attached();
    mountSolid(list, () => (
      <EnvEndpointList endpoints={[{ kind: "openai", baseUrl: "http://127.0.0.1:8080/v1", hasApiKey: true, models: ["a-model", "b-model"], error: null, chosen: "b-model" }]} choose={choose} />
    ));
    const select = list.querySelector("select") as HTMLSelectElement;
    expect(Array.from(select.options).map((o) => o.value)).toEqual(["a-model", "b-model"]);
    expect(select.value).toBe("b-model");
    expect(list.querySelector("[data-testid=env-chosen-openai]")!.textContent).toBe("Chats use b-model.");
    select.value = "a-model";
    (list.querySelector("[data-testid=use-env-openai]") as HTMLButtonElement).click();
    expect(choose).toHaveBeenCalledWith("openai", "a-model");
  });

  it("say why an endpoint lists nothing", () => {
    const list = attached();
    mountSolid(list, () => (
      <EnvEndpointList endpoints={[{ kind: "ollama", baseUrl: "http://127.0.0.1:9", hasApiKey: false, models: [], error: "ollama: network error: refused", chosen: null }]} choose={vi.fn()} />
    ));
    expect(list.querySelector("[role=alert]")!.textContent).toContain("network error");
    expect(list.querySelector("select")).toBeNull();
  });
});

describe("a model's reasoning", () => {
  it("shows the stored setting and sends the chosen one (or null for the default)", () => {
    const set = vi.fn().mockResolvedValue(undefined);
    const root = attached();
    mountSolid(root, () => (
      <>
        <ReasoningPicker model={{ id: 7, name: "claude-sonnet-4-5", isDefault: true, reasoning: "medium" }} set={set} />
        <ReasoningPicker model={{ id: 8, name: "m", isDefault: false, reasoning: null }} set={set} />
      </>
    ));
    const [picker, other] = Array.from(root.querySelectorAll("select"));
    expect(picker.value).toBe("medium");
    picker.value = "high";
    picker.dispatchEvent(new Event("change"));
    expect(set).toHaveBeenLastCalledWith("high");
    picker.value = "";
    picker.dispatchEvent(new Event("change"));
    expect(set).toHaveBeenLastCalledWith(null);
    expect(other.value).toBe("");
  });
});
