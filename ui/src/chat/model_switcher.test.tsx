import { afterEach, describe, expect, it, vi } from "vitest";
import type { ChatModelsView } from "../bindings";
import { mountSolid } from "../solid";
import { choiceKey, groupChoices, ModelSwitcher } from "./model_switcher";

const c = (provider: string, providerName: string, model: string) => ({ provider, providerName, model });

const VIEW: ChatModelsView = {
  chosen: null,
  default: c("alpha", "Alpha", "alpha-small"),
  options: [c("alpha", "Alpha", "alpha-small"), c("beta", "Beta", "beta-large"), c("beta", "Beta", "mock-small")],
  errors: [],
};

let dispose: (() => void) | null = null;
afterEach(() => {
  dispose?.();
  dispose = null;
});

async function shown(root: HTMLElement): Promise<HTMLSelectElement> {
  return vi.waitFor(() => {
    const select = root.querySelector("[data-testid=chat-model]");
    if (!select) throw new Error("the switcher is not shown yet");
    return select as HTMLSelectElement;
  });
}

function mount(view: ChatModelsView) {
  const api = {
    chatModels: vi.fn().mockResolvedValue(view),
    setChatModel: vi.fn(async (_s: string, provider: string | null, model: string | null) => (provider && model ? c(provider, provider === "beta" ? "Beta" : provider, model) : null)),
    errorMessage: String,
  };
  const root = document.body.appendChild(document.createElement("div"));
  dispose = mountSolid(root, () => <ModelSwitcher sessionId="s1" api={api} />);
  return { root, api };
}

describe("model switcher", () => {
  it("lists the models by provider with the default first, and a pick changes this chat only", async () => {
    const { root, api } = mount(VIEW);
    const select = await shown(root);
    expect(api.chatModels).toHaveBeenCalledWith("s1");
    expect(select.value).toBe("");
    expect(select.options[0].textContent).toBe("Default (alpha-small · Alpha)");
    expect(Array.from(select.querySelectorAll("optgroup")).map((g) => g.label)).toEqual(["Alpha", "Beta"]);
    select.value = choiceKey(c("beta", "Beta", "beta-large"));
    select.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(api.setChatModel).toHaveBeenCalledWith("s1", "beta", "beta-large"));
    select.value = "";
    select.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(api.setChatModel).toHaveBeenLastCalledWith("s1", null, null));
  });

  it("shows the chat's pick selected, even when its endpoint does not list it now", async () => {
    const { root } = mount({ ...VIEW, chosen: c("gone", "gone", "old-model"), errors: ["Beta: connection refused"] });
    const select = await shown(root);
    expect(select.value).toBe(choiceKey(c("gone", "gone", "old-model")));
    expect(select.title).toContain("Beta: connection refused");
  });

  it("a refused pick says why", async () => {
    const { root, api } = mount(VIEW);
    api.setChatModel.mockRejectedValueOnce("no provider `beta`");
    const select = await shown(root);
    select.value = choiceKey(c("beta", "Beta", "beta-large"));
    select.dispatchEvent(new Event("change"));
    await vi.waitFor(() => expect(root.querySelector("[role=alert]")?.textContent).toBe("no provider `beta`"));
  });

  it("groups without repeating a model", () => {
    const g = groupChoices({ ...VIEW, options: [...VIEW.options, c("beta", "Beta", "beta-large")] });
    expect(g.map((x) => [x.provider, x.choices.map((y) => y.model)])).toEqual([
      ["alpha", ["alpha-small"]],
      ["beta", ["beta-large", "mock-small"]],
    ]);
  });
});
