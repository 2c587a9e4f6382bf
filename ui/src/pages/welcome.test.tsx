import { describe, expect, it, vi } from "vitest";
import { mountSolid } from "../solid";
import { needsWelcome, Welcome } from "./welcome";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("the first-launch welcome", () => {
  it("is needed only with no stored provider and none from the environment", async () => {
    const none = { listProviders: vi.fn().mockResolvedValue([]), envEndpoints: vi.fn().mockResolvedValue([]) };
    expect(await needsWelcome(none)).toBe(true);
    const env = { ...none, envEndpoints: vi.fn().mockResolvedValue([{ kind: "openai" }]) };
    expect(await needsWelcome(env as never)).toBe(false);
    const stored = { ...none, listProviders: vi.fn().mockResolvedValue([{ id: "p" }]) };
    expect(await needsWelcome(stored as never)).toBe(false);
  });

  it("offers the local Ollama it found and is dismissed by Not now", async () => {
    const api = { localOllama: vi.fn().mockResolvedValue({ baseUrl: "http://127.0.0.1:11434", models: ["qwen3:8b"] }), addProvider: vi.fn().mockResolvedValue(undefined) };
    const dismiss = vi.fn();
    const root = document.body.appendChild(document.createElement("div"));
    mountSolid(root, () => <Welcome api={api as never} dismiss={dismiss} />);
    for (let i = 0; i < 20 && !root.querySelector("[data-testid=add-ollama]"); i++) await tick();
    expect(root.querySelector("[data-testid=welcome-add-provider]")!.getAttribute("href")).toBe("#/settings");
    (root.querySelector("[data-testid=add-ollama]") as HTMLButtonElement).click();
    expect(api.addProvider).toHaveBeenCalledWith(expect.objectContaining({ kind: "ollama", model: "qwen3:8b" }));
    (root.querySelector("[data-testid=welcome-skip]") as HTMLButtonElement).click();
    expect(dismiss).toHaveBeenCalled();
  });
});
