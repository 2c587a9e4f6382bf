import { describe, expect, it, vi } from "vitest";
import { envEndpointList, localOllamaOffer, mountSettings, readProviderForm, reasoningPicker } from "./settings";

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
});

describe("a local Ollama", () => {
  it("is offered with its models, and adding it picks the chosen one", async () => {
    const add = vi.fn().mockResolvedValue(undefined);
    const offer = localOllamaOffer({ baseUrl: "http://127.0.0.1:11434", models: ["qwen3:8b", "llama3.2"] }, add);
    expect(offer.textContent).toContain("2 models");
    (offer.querySelector("[name=ollamaModel]") as HTMLSelectElement).value = "llama3.2";
    (offer.querySelector("[data-testid=add-ollama]") as HTMLButtonElement).click();
    expect(add).toHaveBeenCalledWith({ kind: "ollama", name: "Ollama", baseUrl: "http://127.0.0.1:11434", apiKey: null, model: "llama3.2" });
  });

  it("without models says to pull one", () => {
    const offer = localOllamaOffer({ baseUrl: "http://127.0.0.1:11434", models: [] }, vi.fn());
    expect(offer.textContent).toContain("ollama pull");
    expect(offer.querySelector("button")).toBeNull();
  });

  it("is looked for only while no provider is configured", async () => {
    const api = {
      listProviders: vi.fn().mockResolvedValue([]),
      localOllama: vi.fn().mockResolvedValue({ baseUrl: "http://127.0.0.1:11434", models: ["qwen3:8b"] }),
      envEndpoints: vi.fn().mockResolvedValue([]),
      errorMessage: String,
    };
    const root = document.createElement("div");
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountSettings(root, { api: api as any });
    expect(root.querySelector("[data-testid=ollama-offer]")).not.toBeNull();
    api.listProviders.mockResolvedValue([{ id: "p", kind: "openai", name: "x", baseUrl: null, hasApiKey: false, enabled: true, models: [] }]);
    api.localOllama.mockClear();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await mountSettings(root, { api: api as any });
    expect(api.localOllama).not.toHaveBeenCalled();
    expect(root.querySelector("[data-testid=ollama-offer]")).toBeNull();
  });
});

describe("environment endpoints", () => {
  it("offer the models the endpoint lists and remember the pick", async () => {
    const choose = vi.fn().mockResolvedValue(undefined);
    const list = envEndpointList(
      [{ kind: "openai", baseUrl: "http://127.0.0.1:8080/v1", hasApiKey: true, models: ["a-model", "b-model"], error: null, chosen: "b-model" }],
      choose,
    );
    const select = list.querySelector("select") as HTMLSelectElement;
    expect(Array.from(select.options).map((o) => o.value)).toEqual(["a-model", "b-model"]);
    expect(select.value).toBe("b-model");
    expect(list.querySelector("[data-testid=env-chosen-openai]")!.textContent).toBe("Chats use b-model.");
    select.value = "a-model";
    (list.querySelector("[data-testid=use-env-openai]") as HTMLButtonElement).click();
    expect(choose).toHaveBeenCalledWith("openai", "a-model");
  });

  it("say why an endpoint lists nothing", () => {
    const list = envEndpointList(
      [{ kind: "ollama", baseUrl: "http://127.0.0.1:9", hasApiKey: false, models: [], error: "ollama: network error: refused", chosen: null }],
      vi.fn(),
    );
    expect(list.querySelector("[role=alert]")!.textContent).toContain("network error");
    expect(list.querySelector("select")).toBeNull();
  });
});

describe("a model's reasoning", () => {
  it("shows the stored setting and sends the chosen one (or null for the default)", () => {
    const set = vi.fn().mockResolvedValue(undefined);
    const picker = reasoningPicker({ id: 7, name: "claude-sonnet-4-5", isDefault: true, reasoning: "medium" }, set);
    expect(picker.value).toBe("medium");
    picker.value = "high";
    picker.dispatchEvent(new Event("change"));
    expect(set).toHaveBeenLastCalledWith("high");
    picker.value = "";
    picker.dispatchEvent(new Event("change"));
    expect(set).toHaveBeenLastCalledWith(null);
    expect(reasoningPicker({ id: 8, name: "m", isDefault: false, reasoning: null }, set).value).toBe("");
  });
});
